#version 330 core
// Page blocks and cover boards: boxes below the page plane.
// Inputs:   aBox in [0, 1]³: s across from the spine, t along it, k down into the stack.
// Uniforms: uViewProj, uModel, uSize (across, along), uThickness (layout units), uGrow (how far
//           the box reaches past uSize on its three free sides: a board's overhang), uFlare
//           (how much further per unit of depth: the stack's sheets spread a little towards
//           the bottom, so its edges show from above as they do on a real open book),
//           uGutterDrop (how far the page on the block dips at the spine: its top follows that
//           curve, GutterCurve in FolioLayout, the page's twin is page.vert's), uGutterWidth,
//           uLeafAngle (0, or the block is leaves fanned up off the stack about the spine: k
//           from the top leaf, at this angle, down to the stack; BookBody.leaves), uSpine (1: a
//           shut book's block, between its boards: block.frag's cloth on its spine side),
//           uEndsInset (how far an open block's head and tail lie inside the page on it); and
//           block.frag's that light a face (uPaper, uLight, uCover, uSpine, uClothTint).
// Outputs:  vBox (the input, for the edge stripes), vEdge (1 on the four faces across the
//           depth: a block's paper edges, a board's rim), vPaper and vCloth (the face lit:
//           block-shade.glsl's boxLight; the spine side, at s = 0, takes a shut book's cloth).
layout(location = 0) in vec3 aBox;
layout(location = 1) in vec3 aNormal;

#include "frame.glsl"
uniform sampler2D uCover;
#include "block-draw.glsl"
#include "block-shade.glsl"
#include "arch.glsl"
#include "box-place.glsl"

// BoxMesh's hollow marks (1/512 and 511/512 of s and t): the inner edges of the band round a
// hollow board's top and bottom (uHollow in from where the block stands on it and the cover
// lies on it), else the box's edges.
float hollowMark(float x, float low, float high) {
    return x == 1.0 / 512.0 ? low : x == 511.0 / 512.0 ? high : x;
}

void main() {
    // The cells of a board's top and bottom inside the marks carry their normal doubled (BoxMesh).
    bool inner = dot(aNormal, aNormal) > 2.0;
    vec3 normal = inner ? 0.5 * aNormal : aNormal;
    bool hollow = uHollow > 0.0;
    vec2 lo = hollow ? vec2(uHollow / (uSize.x + uGrow), (uGrow + uHollow) / (uSize.y + 2.0 * uGrow)) : vec2(0.0);
    vec2 hi = hollow ? vec2((uSize.x - uHollow) / (uSize.x + uGrow), 1.0 - lo.y) : vec2(1.0);
    vec3 box = vec3(hollowMark(aBox.x, lo.x, hi.x), hollowMark(aBox.y, lo.y, hi.y), aBox.z);
    // A shut book's board turns its top to the block and its bottom to the cover on it (the
    // front board) or to the desk (the back): inside the band round each, never seen, and a
    // software renderer pays for every pixel it covers, hidden or not (a tenth of a wheel frame).
    if (hollow && inner) {
        gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
        return;
    }
    boxFace(box, normal);
    gl_Position = boxFaceDrawn(normal) ? uViewProj * uModel * vec4(boxPlace(box), 1.0) : vec4(0.0, 0.0, 2.0, 1.0);
}
