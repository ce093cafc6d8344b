#version 330 core
// Page mesh: bends a unit grid into a page and places it in the world.
// Inputs:   aGrid (s, t) in [0, 1]²: s across from the spine edge, t along it.
// Uniforms: uViewProj, uModel (local → world), uSize (across, along) in layout units,
//           uDeform (0 flat, 1 curl, 2 cone), uCurl (fold point xy, direction xy), uCurlRadius,
//           uCurlWrap (radians round the cylinder before the paper leaves it: π lays it flat),
//           uCone (apex, theta, rotation; a curl's rotation about the spine is its z too), uShadowPass (1: flatten onto the plane z = 0 along
//           uLight, for the cast shadow; 3: the depth-only pass over a flat page's inside, drawn
//           uInset layout units in from its edges (the spine edge only with uSpineEdge); 4: the
//           same over a page curving into the gutter, on its colour pass's own vertices
//           (shadow.frag's INSIDES leaves its edges out); 2: the mesh is a flat receiving page and the
//           deformation uniforms describe the sheet above it, uCasterModel and uCasterSize
//           placing that sheet: vHeight carries how much of the sky the sheet hides).
//           uExpand (layout units the drawn page reaches past its edges, so that edge coverage
//           fades outwards as well as inwards), uSpineEdge (1: the spine edge is an edge too,
//           a cover standing alone), uGutterDrop (how far the page curves down into the gutter
//           at the spine: x on its own side, y turned over to the other; SceneItem.gutterDrop),
//           uGutterWidth (the curve's width, a fraction of the page width), uBackFace (1: the
//           face drawn is the back, lit from the other side), uFrom (the fraction
//           of the width from the spine the page is drawn from, faces and their depth-only
//           pass: the band before it lies under a fanned page nearer the reader; 0: whole),
//           uTapBias (page.frag's BIASED bias of a flat face, the renderer's `tapBias`),
//           uTexelAxes (texels per layout unit across and along the face's image: a bent
//           face's bias is found here, per vertex), uStackLeft, uStackRight (the models of
//           the pages a turning sheet leaves and lands on, for page.frag's STACKED), uStackDrops
//           (their own drops into the gutter: the sheet's turns over as it turns), uStackRims (1
//           where that page's rim lies under the sheet's, 0 where it is drawn apart: an endpaper),
//           uAlignLift (the sheet's height over each of those pages' planes) and uAlignDrop (its
//           own drop, turned back: where the sheet lay on the one and will lie on the other),
//           uPixelHalf (half the view in pixels).
// Outputs:  vST (s, t; a little outside 0 … 1 on the expanded rim), vLit (the face's light and
//           how much of it comes from behind, page.frag's), vHeight (world height above the
//           page plane, for the shadow's strength and softness; with uShadowPass 2 the
//           occlusion, 0 … 1), vBias (page.frag's BIASED level-of-detail bias), vHere
//           and vRest (clip x, y and w of a sheet's point and of the same point of the nearer of
//           those pages: page.frag finds how far the sheet has moved off them per pixel, exactly
//           where the page lies flat, as both are affine over a triangle of the sheet), vAlign
//           (the same point of the sheet lying at rest on that page), vLying (1 where the sheet
//           lies within 15° of that page's plane, 0 past 25°), vRim (that
//           page's uStackRims; with uShadowPass 2, how much the receiving page's rim is the
//           sheet's: 1 while the sheet lies on it, its same point within 2 px, page.frag's
//           STACKED hand-over, fading out by 4).
// The deformations and the gutter's curve mirror FolioLayout's Deformation.swift and
// GutterCurve.swift; tests compare the two.

layout(location = 0) in vec2 aGrid;

#include "frame.glsl"
#include "page-draw.glsl"
#include "arch.glsl"

out vec2 vST;
out vec2 vLit;
out float vHeight;
out float vBias;
out vec3 vHere;
out vec3 vRest;
out vec3 vAlign;
out float vLying;
out float vRim;

const float PI = 3.14159265358979;

// Cylinder curl: past the fold line the paper bends up around a cylinder of radius r lying on
// the page for uCurlWrap radians, then leaves it along the tangent (at π: flat on top, face
// down); the sheet then turns about the spine by uCone.z.
void curl(vec2 p, out vec3 pos, out vec3 n) {
    vec2 d = uCurl.zw;
    float r = uCurlRadius;
    float s = dot(p - uCurl.xy, d);
    if (s <= 0.0) { pos = vec3(p, 0.0); n = vec3(0.0, 0.0, 1.0); return; }
    vec2 base = p - d * s;
    float arc = uCurlWrap * r;
    if (s < arc) {
        float phi = s / r;
        pos = vec3(base + d * (r * sin(phi)), r * (1.0 - cos(phi)));
        n = vec3(-d * sin(phi), cos(phi));
    } else {
        float w = uCurlWrap, rest = s - arc;
        pos = vec3(base + d * (r * sin(w) + rest * cos(w)), r * (1.0 - cos(w)) + rest * sin(w));
        n = vec3(-d * sin(w), cos(w));
    }
}

// Hong, Ahn and Yoon's conical turn: apex on the spine line, distances from it kept.
vec3 conePosition(vec2 p) {
    float dl = p.y - uCone.x;
    float sgn = dl >= 0.0 ? 1.0 : -1.0;
    float R = length(vec2(p.x, dl));
    if (R < 1e-6) return vec3(p, 0.0);
    float sinT = sin(uCone.y), cosT = cos(uCone.y);
    float r = R * sinT;
    // β = φ / sin θ, φ the point's angle about the apex on the flat page (sin φ = x / R,
    // cos φ = |dl| / R): sin β and cos β from φ's own sine and cosine and the small excess
    // φ (1 / sin θ − 1), so a nearly flat cone keeps its points where the flat page has them
    // (an asin and a sin in a row, each approximated in single precision, moved its fore edge
    // by a tenth of a pixel at 1080p as a turn began: a darker column along it).
    float sp = p.x / R, cp = abs(dl) / R;
    float excess = asin(clamp(sp, -1.0, 1.0)) * (1.0 / sinT - 1.0);
    float sinB = sp * cos(excess) + cp * sin(excess), cosB = cp * cos(excess) - sp * sin(excess);
    float k = r * (1.0 - cosB);
    return vec3(r * sinB, uCone.x + sgn * (R - k * sinT), k * cosT);
}

mat3 rotateAboutSpine(float a) {
    // Rotation by −a about the spine (the l axis): the free edge rises towards +z.
    float c = cos(a), s = sin(a);
    return mat3(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c);
}

// The cone's bend; its rotation about the spine comes after the gutter's curve.
void cone(vec2 p, out vec3 pos, out vec3 n) {
    const float e = 0.5;
    vec3 du = conePosition(p + vec2(e, 0.0)) - conePosition(p - vec2(e, 0.0));
    vec3 dv = conePosition(p + vec2(0.0, e)) - conePosition(p - vec2(0.0, e));
    pos = conePosition(p);
    n = normalize(cross(du, dv));
}

// The page bent by its deformation, without the gutter's curve; `rot` is what turns it about
// the spine afterwards (a curl's or a cone's rotation).
void bend(vec2 p, out vec3 pos, out vec3 n, out mat3 rot) {
    rot = mat3(1.0);
    if (uDeform == 1) { curl(p, pos, n); rot = rotateAboutSpine(uCone.z); }
    else if (uDeform == 2) { cone(p, pos, n); rot = rotateAboutSpine(uCone.z); }
    else { pos = vec3(p, 0.0); n = vec3(0.0, 0.0, 1.0); }
}

// Pages curve down into the gutter and arch up out of it: at x across from the spine
// (negative: turned over to the other side) the page lies drop · u² below its plane along the
// local −z, u falling from 1 at the spine to 0 at uGutterWidth of the page (zero slope there),
// and arch · rise(s) above it, s the fraction of the width from the spine (s (2 − s), drawn
// along the resting mesh's chords); arch = ARCH · drop (both arch.glsl, GutterCurve.arch). The
// normal tilts with the curve's slope (zero at the fore edge) on x's own side (at the spine
// itself, the page's own side).
void curve(inout vec3 pos, inout vec3 n, vec2 drops) {
    float width = uGutterWidth * uSize.x;
    float u = clamp(1.0 - abs(pos.x) / width, 0.0, 1.0);
    float s = min(abs(pos.x) / uSize.x, 1.0);
    float side = pos.x >= 0.0 ? 1.0 : -1.0;
    float drop = pos.x >= 0.0 ? drops.x : drops.y;
    float arch = archOf(drop);
    pos.z -= drop * u * u - arch * rise(s);
    float slope = -side * (2.0 * drop * u / width + 2.0 * arch * (1.0 - s) / uSize.x);
    n = normalize(n + vec3(slope * n.z, 0.0, 0.0));
}

// `bent`: the normal before the gutter's curve tilts it.
void deform(vec2 p, out vec3 pos, out vec3 n, out vec3 bent) {
    mat3 rot;
    bend(p, pos, n, rot);
    bent = rot * n;
    curve(pos, n, uGutterDrop);
    pos = rot * pos;
    n = rot * n;
}

void deform(vec2 p, out vec3 pos, out vec3 n) {
    vec3 bent;
    deform(p, pos, n, bent);
}

// How nearly a face with local normal `n` placed by `model` lies in the plane of a page placed by
// `page`: the cosine of the angle between them, either side up.
float level(vec3 n, mat4 model, mat4 page) {
    return abs(dot(normalize(mat3(model) * n), normalize(mat3(page) * vec3(0.0, 0.0, 1.0))));
}

// How much of the sky above world point P the sheet hides: in the plane through P across the
// spine, the highest elevation of the sheet seen from P (measured from the horizon towards
// the spine) is α, and a cosine-weighted sky loses (1 − cos α) / 2 of its light. Darkest
// under the roll or hinge, fading away from it over a distance that grows with the height.
// P is taken no lower than the spine the sheet turns about, so a sheet lying flat (on a
// thicker stack at the start or the end of a turn) hides nothing: that is the gutter's part.
float occlusion(vec3 P) {
    vec3 spine = (uCasterModel * vec4(0.0, 0.0, 0.0, 1.0)).xyz;
    P.z = max(P.z, spine.z);
    vec3 along = mat3(uCasterModel) * vec3(0.0, 1.0, 0.0);
    float unit = length(along);
    along /= unit;
    vec3 w = spine - P;
    vec2 towards = w.xy - along.xy * dot(w, along);
    towards /= max(length(towards), 1e-4);
    float l = clamp(dot(P - spine, along) / unit, -0.5 * uCasterSize.y, 0.5 * uCasterSize.y);
    const int SAMPLES = 12;
    float highest = 0.0;
    for (int k = 0; k <= SAMPLES; k++) {
        // The caster's curve into the gutter is left out: it is the receiver's uGutterDrop.
        vec3 q, qn;
        mat3 rot;
        bend(vec2(uCasterSize.x * float(k) / float(SAMPLES), l), q, qn, rot);
        vec3 v = (uCasterModel * vec4(rot * q, 1.0)).xyz - P;
        float across = length(v.xy) * (dot(v.xy, towards) >= 0.0 ? 1.0 : -1.0);
        // Parts of the sheet level with P (lying flat) hide nothing, whichever side they are on.
        if (v.z > 0.01) highest = max(highest, atan(v.z, across));
    }
    return 0.5 * (1.0 - cos(highest));
}

// The light on the face drawn, whose world normal is `n`, the same for a sheet's front and
// back: Lambert relative to a flat page, so flat lit paper keeps its own colour, never above 1
// (a lit facet brighter than flat paper shows as a lighter seam). A face turned away from the
// light darkens on by its angle, ever more slowly (d / (1 − d) past edge-on: no floor, so no
// band of one grey, and no kink where the light passes edge-on). Only the paper's sheen goes
// past 1, where a bent face turns towards the half-way direction between the light and the eye
// more than a flat page does (a curl's crest as it turns to the light), never darkening one:
// none on a flat page. And 0 where the light falls on the face, rising to 1 as it comes from
// behind, through the paper (continuous in the face's angle, so in time; Renderer.isBackLit:
// where it is 0). Per vertex: all vary slowly over the mesh (a curl's strips follow its fold),
// and a software renderer then spares every pixel the normal's interpolation and this.
const float SHEEN = 0.25, SHEEN_POWER = 16.0;
vec2 lighting(vec3 n) {
    n = normalize(n) * (1.0 - 2.0 * uBackFace);
    float l = dot(n, uLight);
    float d = l / uLight.z;
    float lambert = min(0.7 + 0.3 * (d >= 0.0 ? d : d / (1.0 - d)), 1.0);
    vec3 h = normalize(uLight + vec3(0.0, 0.0, 1.0));
    float sheen = SHEEN * max(pow(max(dot(n, h), 0.0), SHEEN_POWER) - pow(h.z, SHEEN_POWER), 0.0);
    return vec2(lambert + sheen, smoothstep(0.0, -0.4, l));
}

// Where clip position c (x, y, w) lands on screen, in pixels (page.frag divides vHere and vRest alike).
vec2 clipPixels(vec3 c) {
    return c.xy / max(c.z, 1e-6) * uPixelHalf;
}
vec2 clipPixels(vec4 c) {
    return clipPixels(c.xyw);
}

// Where world point w lands on screen, in pixels (a point behind the eye, never seen, kept
// finite: no bias or offset is ever undefined).
vec2 pixels(vec4 w) {
    return clipPixels(uViewProj * w);
}

// Where local point p of the deformed face lands on screen, in pixels.
vec2 onScreen(vec2 p) {
    vec3 pos, n;
    deform(p, pos, n);
    return pixels(uModel * vec4(pos, 1.0));
}

// page.frag's BIASED bias where a bent face is seen from here, as the renderer's `tapBias`
// finds it for a flat one: log₂ of the ratio of the shorter to the longer of a pixel's steps
// in texels across and down the screen, no lower than −1. A bent face's squeeze varies over
// it; found per vertex, it follows the bend continuously (a curl's strips follow its fold).
float bentTapBias(vec2 p) {
    const float e = 0.5;
    vec2 at = onScreen(p);
    // Pixels per layout unit across and along the face here.
    vec2 u = (onScreen(p + vec2(e, 0.0)) - at) / e, v = (onScreen(p + vec2(0.0, e)) - at) / e;
    float det = u.x * v.y - u.y * v.x;
    if (abs(det) < 1e-12) return -1.0;
    // Layout units per step right and down the screen, then texels.
    vec2 right = vec2(v.y, -u.y) / det, down = vec2(-v.x, u.x) / det;
    vec2 dx = uTexelAxes.xy * right.x + uTexelAxes.zw * right.y;
    vec2 dy = uTexelAxes.xy * down.x + uTexelAxes.zw * down.y;
    float lx = dot(dx, dx), ly = dot(dy, dy);
    return max(0.5 * log2(max(min(lx, ly), 1e-24) / max(max(lx, ly), 1e-24)), -1.0);
}

// The same transform in every program that draws a page: the depth-only pass and the colour
// pass must agree to the bit.
invariant gl_Position;

void main() {
    vec2 p = vec2(aGrid.x * uSize.x, (aGrid.y - 0.5) * uSize.y);
    float across = mix(uFrom, 1.0, aGrid.x);
    if (uShadowPass == 3) {
        // A cover's spine edge is an edge too (uSpineEdge): inset there as well.
        float back = uInset * uSpineEdge;
        p = vec2(back + across * (uSize.x - uInset - back), (aGrid.y - 0.5) * (uSize.y - 2.0 * uInset));
    }
    // A curl's strips carry their rim already: they are cut along the fold. The inside of a
    // page curving into the gutter (4) is found on the same vertices as its colour: inset, its
    // curve's columns would move, and the inside stand in front of the page by its kink.
    if ((uShadowPass == 0 || uShadowPass == 4) && uDeform != 1) {
        float back = uExpand * uSpineEdge;
        p = vec2(across * (uSize.x + uExpand + back) - back, (aGrid.y - 0.5) * (uSize.y + 2.0 * uExpand));
    }
    if (uShadowPass == 2) {
        vec3 q = vec3(p, 0.0), qn = vec3(0.0, 0.0, 1.0);
        curve(q, qn, uGutterDrop);
        vec4 page = uModel * vec4(q, 1.0);
        vST = aGrid;
        vLit = vec2(1.0, 0.0);
        vBias = 0.0;
        vHere = vec3(0.0, 0.0, 1.0);
        vRest = vec3(1e6, 1e6, 1.0);
        vAlign = vRest;
        vLying = 0.0;
        // The sheet's same point, both without their curves (the receiver's is uGutterDrop),
        // lying on the page: near it on screen, and in its plane to a degree or two (by the
        // spine a standing sheet's points are near the page's too).
        vec3 c, cn;
        mat3 crot;
        bend(p, c, cn, crot);
        vec2 apart = clipPixels(uViewProj * (uCasterModel * vec4(crot * c, 1.0))) - clipPixels(uViewProj * (uModel * vec4(p, 0.0, 1.0)));
        vRim = (1.0 - smoothstep(2.0, 4.0, length(apart))) * smoothstep(0.9988, 0.9998, level(crot * cn, uCasterModel, uModel));
        // Seen from the page's plane, as the caster's samples leave its curve out: a sheet
        // lying on the arched page hides nothing.
        vHeight = occlusion((uModel * vec4(p, 0.0, 1.0)).xyz);
        gl_Position = uViewProj * page;
        return;
    }
    vec3 pos;
    vec3 n;
    vec3 bent;
    deform(p, pos, n, bent);

    vec4 world = uModel * vec4(pos, 1.0);
    vST = uShadowPass == 0 || uShadowPass == 4 ? vec2(p.x / uSize.x, p.y / uSize.y + 0.5) : aGrid;
    vLit = lighting(mat3(uModel) * n);
    vHeight = max(world.z, 0.0);
    vBias = uDeform == 0 ? uTapBias : bentTapBias(p);
    // The same point of a page lying open, on the gutter's curve as the sheet starts and lands.
    vec3 onLeft = vec3(p, 0.0), onRight = onLeft, ln = vec3(0.0, 0.0, 1.0);
    curve(onLeft, ln, uStackDrops.xx);
    curve(onRight, ln, uStackDrops.yy);
    vec4 here = uViewProj * world, leftClip = uViewProj * (uStackLeft * vec4(onLeft, 1.0)),
         rightClip = uViewProj * (uStackRight * vec4(onRight, 1.0));
    vec2 left = clipPixels(here) - clipPixels(leftClip), right = clipPixels(here) - clipPixels(rightClip);
    vHere = here.xyw;
    bool nearerLeft = dot(left, left) < dot(right, right);
    vRest = (nearerLeft ? leftClip : rightClip).xyw;
    // The same point of the sheet itself lying at rest on that page: where the sheet lay as
    // the turn began, or will lie as it ends.
    mat4 restModel = nearerLeft ? uStackLeft : uStackRight;
    vec3 lay = vec3(p, nearerLeft ? uAlignLift.x : uAlignLift.y);
    curve(lay, ln, vec2(uAlignDrop));
    vAlign = (uViewProj * (restModel * vec4(lay, 1.0))).xyw;
    // Only where the sheet lies within about 20° of that plane (both without their curves into
    // the gutter, which tilt them alike there): by the spine a standing sheet's points are
    // near their rest too. A landing sheet half a pixel from rest may still lean by several
    // degrees, seen from above.
    vLying = smoothstep(0.906, 0.966, level(bent, uModel, restModel));
    vRim = nearerLeft ? uStackRims.x : uStackRims.y;
    if (uShadowPass == 1) {
        // Flatten along the light onto the page plane, just above it, from the sheet's height
        // above the pages it lies on: its curve and arch are theirs too, and cast nothing.
        vec3 bare;
        mat3 rot;
        bend(p, bare, n, rot);
        world = uModel * vec4(rot * bare, 1.0);
        vHeight = max(world.z, 0.0);
        world.xyz -= uLight * (world.z / uLight.z);
        world.z = 0.05;
    }
    gl_Position = uViewProj * world;
}
