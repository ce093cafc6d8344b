#version 330 core
// A page block's or board's outline, smoothed without multisampling: a strip a pixel wide
// along each edge where a face that shows meets one turned away (the silhouette), from a
// quarter of a pixel inside the edge to three quarters outside, shaded as the face that shows
// (block-shade.glsl) and fading from it to nothing across the pixel (fringe.frag). The outline
// no longer steps from pixel to pixel; it lies a quarter of a pixel further out on average (a
// strip wholly outside steps not at all but grows the box by half a pixel, eating a two-pixel
// sliver of paper between boards; one from half a pixel inside halves the steps). Drawn after
// the boxes, over what lies beyond them; an edge between two faces that show, or two turned
// away, draws nothing.
// Inputs:   aBox (one end of a stretch of an edge, BoxMesh's coordinates), aOther (its other
//           end), aFace (outward normal of the face the strip is shaded as), aBeyond (the other
//           face's at the edge), aOut (0 on the strip's inner side, 1 on its outer); BoxMesh.edges.
// Uniforms: block.vert's and block.frag's, uPixelHalf.
// Outputs:  vBox, vEdge (box-place.glsl's), vPaper and vCloth (the face lit: block-shade.glsl's
//           boxLight, its paper's lines at their mean), vPx (boardRim's px), vFringe (aOut: the
//           coverage falls from 1 to 0).
layout(location = 0) in vec3 aBox;
layout(location = 1) in vec3 aOther;
layout(location = 2) in vec3 aFace;
layout(location = 3) in vec3 aBeyond;
layout(location = 4) in float aOut;

#include "frame.glsl"
uniform sampler2D uCover;
#include "block-draw.glsl"
#include "block-shade.glsl"
#include "arch.glsl"
#include "box-place.glsl"

out float vPx;
noperspective out float vFringe;

vec4 clipOf(vec3 local) { return uViewProj * uModel * vec4(local, 1.0); }
// Pixels from the view's centre.
vec2 onScreen(vec4 clip) { return clip.xy / clip.w * uPixelHalf; }
float cross2(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }

// Whether the face holding the edge p → q and the point r faces the eye: its winding on screen
// against its winding seen from outside the box (away from its centre c), as the rasteriser
// culls it; a mirrored model turns the winding over.
bool faces(vec3 p, vec3 q, vec3 r, vec3 c, vec2 ps, vec2 qs, vec2 rs) {
    float outside = dot(cross(q - p, r - p), p - c) * determinant(mat3(uModel));
    return cross2(qs - ps, rs - ps) * outside > 0.0;
}

void main() {
    // Halfway into each face from the edge, in the box's coordinates (k grows downwards): away
    // from the other face.
    vec3 intoFace = aBox + 0.5 * vec3(-aBeyond.xy, aBeyond.z);
    vec3 intoBeyond = aBox + 0.5 * vec3(-aFace.xy, aFace.z);
    vec3 p = boxPlace(aBox), q = boxPlace(aOther), r = boxPlace(intoFace), b = boxPlace(intoBeyond), c = boxPlace(vec3(0.5));
    vec4 clip = clipOf(p);
    vec2 ps = onScreen(clip), qs = onScreen(clipOf(q)), rs = onScreen(clipOf(r));
    vec2 along = qs - ps;
    // A block's top lies under the page on it, whose rim smooths that edge; the block stops a
    // pixel inside the page's head and tail (uEndsInset), and a strip past it would show there.
    bool shows = boxFaceDrawn(aFace) && (uBoard == 1 || aFace.z < 0.5) && faces(p, q, r, c, ps, qs, rs);
    bool beyondShows = boxFaceDrawn(aBeyond) && faces(p, q, b, c, ps, qs, onScreen(clipOf(b)));
    vFringe = aOut;
    if (!shows || beyondShows || dot(along, along) < 1e-8) {
        gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
        return;
    }
    // Across the edge, away from the face.
    vec2 out2 = normalize(vec2(-along.y, along.x));
    if (dot(out2, rs - ps) > 0.0) out2 = -out2;
    // Shaded as the face's outermost pixels are: lit here, its paper's lines at their mean (they
    // cost a software renderer most); its board's rim in fringe.frag, carried on across the
    // strip a pixel a step, with the change in a pixel that block.frag finds (its fwidth). (A
    // step an eighth of the way into the face: perspective changes the scale across it.)
    vec3 near = mix(aBox, intoFace, 0.125);
    vec3 step = (aBox - near) / max(abs(dot(out2, onScreen(clipOf(boxPlace(near))) - ps)), 1e-4);
    vec3 at = aBox + (aOut - 0.25) * step;
    vec2 d = boardInset(at), e = boardInset(at + step);
    boxFace(at, aFace);
    vPx = max(abs(min(e.x, e.y) - min(d.x, d.y)), 1e-4);
    vPaper *= 0.92;
    gl_Position = vec4((ps + (aOut - 0.25) * out2) / uPixelHalf * clip.w, clip.zw);
}
