#version 330 core
// The shadow a book lays on the desk: its rectangle grown by a soft margin, on the desk below
// the book and pushed away from the light by the book's height there.
// Inputs:   aGrid (s, t) in [0, 1]².
// Uniforms: uViewProj, uModel, uSize (across, along), uMargin (layout units: at no height,
//           at the book's), uHeight (the book's height above the desk), uLight (unit, towards
//           the light), uClosed (0 … 1: a closed book's shadow is soft beyond its spine edge too),
//           uHole (drawn on GridMesh's ring: the middle a shut book's cover hides, vLocal's
//           lowest and highest corners; the ring's cuts at 1/512 and 511/512 move there).
// Outputs:  vLocal (layout units in the item's frame), vRise (the height there, a fraction
//           of uHeight).
layout(location = 0) in vec2 aGrid;

#include "frame.glsl"
#include "desk-draw.glsl"

out vec2 vLocal;
out float vRise;

float ringMark(float g, float low, float high, float elsewhere) {
    return g == 1.0 / 512.0 ? low : g == 511.0 / 512.0 ? high : elsewhere;
}

void main() {
    // A part-open book's rectangle reaches across the spine (desk.frag): so does the mesh, as
    // far as the rectangle's soft edge, less as the book opens (none when it is open).
    float back = uClosed * (uMargin.y + (1.0 - uClosed) * uSize.x);
    vec2 p = vec2(mix(-back, uSize.x + uMargin.y, aGrid.x), (aGrid.y - 0.5) * (uSize.y + 2.0 * uMargin.y));
    p = vec2(ringMark(aGrid.x, uHole.x, uHole.z, p.x), ringMark(aGrid.y, uHole.y, uHole.w, p.y));
    vLocal = p;
    vec4 world = uModel * vec4(p, 0.0, 1.0);
    // An open book's spine lies on the desk and its halves rise away from it: the shadow is
    // pushed by the height at each point, none at the spine, so the two halves (of different
    // heights) meet there without a step. A closed book stands at its full height.
    float rise = mix(clamp(p.x / uSize.x, 0.0, 1.0), 1.0, uClosed);
    vRise = rise;
    world.xy -= uLight.xy / uLight.z * uHeight * 0.5 * rise;
    gl_Position = uViewProj * world;
}
