#version 330 core
// The desk shadow's darkness: strongest under the book, fading smoothly over the margin; the
// spine edge is mirrored, so the two halves of an open book meet without a seam.
// Inputs:   vLocal from desk.vert.
// Uniforms: uSize, uMargin, uStrength (0…1).
// Output:   fragColor: the factor the destination is multiplied by.
in vec2 vLocal;

uniform vec2 uSize;
uniform float uMargin;
uniform float uStrength;

out vec4 fragColor;

void main() {
    vec2 q = abs(vLocal) - vec2(uSize.x, 0.5 * uSize.y);
    float outside = length(max(q, 0.0)) + min(max(q.x, q.y), 0.0);
    float dark = uStrength * (1.0 - smoothstep(-0.25 * uMargin, uMargin, outside));
    fragColor = vec4(vec3(1.0 - dark), 1.0);
}
