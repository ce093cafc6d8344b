#version 330 core
// Page-block sides: paper edges as fine stripes, lit like the pages.
// Inputs:   vBox, vNormal from block.vert.
// Uniforms: uPaper (edge colour), uLight (unit, towards the light), uSheets (sheets in the stack).
// Output:   fragColor.
in vec3 vBox;
in vec3 vNormal;

uniform vec3 uPaper;
uniform vec3 uLight;
uniform float uSheets;

out vec4 fragColor;

void main() {
    float stripe = 0.92 + 0.08 * sin(vBox.z * uSheets * 6.2831853);
    float light = clamp(0.45 + 0.55 * max(dot(normalize(vNormal), uLight), 0.0), 0.3, 1.0);
    fragColor = vec4(uPaper * stripe * light, 1.0);
}
