#version 330 core
// The desk shadow's darkness: strongest under the book, fading smoothly over the margin; the
// spine edge is mirrored, so the two halves of an open book meet without a seam (a closed
// book's, uClosed 1, is one rectangle soft on all sides).
// Inputs:   vLocal, vRise from desk.vert.
// Uniforms: uSize, uMargin, uStrength (0…1), uClosed (0 … 1).
// Output:   fragColor: the factor the destination is multiplied by.
in vec2 vLocal;
in float vRise;

#include "desk-draw.glsl"

out vec4 fragColor;

void main() {
    // Centre of the shadow's rectangle across: the spine (mirrored halves) … the middle.
    float c = 0.5 * uClosed * uSize.x;
    vec2 q = abs(vLocal - vec2(c, 0.0)) - vec2(uSize.x - c, 0.5 * uSize.y);
    float outside = length(max(q, 0.0)) + min(max(q.x, q.y), 0.0);
    // Softer where the book stands higher: the two halves' margins agree at the spine.
    float margin = mix(uMargin.x, uMargin.y, vRise);
    float dark = uStrength * (1.0 - smoothstep(-0.25 * margin, margin, outside));
    // Across the spine it fades out before the mesh ends (desk.vert), over a band that
    // narrows to nothing as the book opens.
    if (vLocal.x < 0.0) dark *= smoothstep(-uClosed * (uMargin.y + (1.0 - uClosed) * uSize.x), 0.0, vLocal.x);
    fragColor = vec4(vec3(1.0 - dark), 1.0);
}
