#version 330 core
// The backdrop: a desk for an open book, a dim room for the shelf. A vertical gradient
// with a soft vignette; cheap enough for every frame on a software renderer.
// Inputs:   vUV from backdrop.vert.
// Uniforms: uTop, uBottom (colours), uVignette (0…1).
// Output:   fragColor.
in vec2 vUV;

uniform vec3 uTop;
uniform vec3 uBottom;
uniform float uVignette;

out vec4 fragColor;

void main() {
    vec3 c = mix(uBottom, uTop, vUV.y);
    vec2 d = vUV - 0.5;
    c *= 1.0 - uVignette * dot(d, d) * 1.6;
    fragColor = vec4(c, 1.0);
}
