#version 330 core
// The backdrop: the desk the shelf's books and the open book lie on. A vertical gradient
// with a soft vignette, dithered by a fixed pattern of ±½ level so the gradient never bands
// (the same pixel always gets the same offset: captures stay byte-identical).
// Inputs:   vUV from backdrop.vert.
// Uniforms: uTop, uBottom (colours), uVignette (0…1).
// Output:   fragColor.
in vec2 vUV;

// Set before the draw into one uniform buffer at point 1 (FolioRender's ProgramUniforms).
layout(std140) uniform Draw {
    vec3 uTop;
    float uVignette;
    vec3 uBottom;
};

out vec4 fragColor;

void main() {
    vec3 c = mix(uBottom, uTop, vUV.y);
    vec2 d = vUV - 0.5;
    c *= 1.0 - uVignette * dot(d, d) * 1.6;
    float noise = fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715))));
    fragColor = vec4(c + (noise - 0.5) / 255.0, 1.0);
}
