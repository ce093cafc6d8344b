#version 330 core
// Page-block sides: paper edges as fine stripes; cover boards: the cover's cloth at its edge.
// Both lit like the pages.
// Inputs:   vBox, vNormal, vSpineSide from block.vert.
// Uniforms: uPaper (edge colour), uLight (unit, towards the light), uSheets (sheets in the stack),
//           uBoard (1: a cover board), uCover (sampler, unit 0: the cover image, for a board or
//           a block with uSpine > 0), uSpine (0 … 1: how much a block's spine side shows the
//           cover's cloth: a shut book's spine), uClothTint (the theme's room colour on the
//           cloth of a book the theme recolours; 1 otherwise).
// Output:   fragColor.
in vec3 vBox;
in vec3 vNormal;
flat in float vSpineSide;

uniform vec3 uPaper;
uniform vec3 uLight;
uniform float uSheets;
uniform int uBoard;
uniform sampler2D uCover;
uniform float uSpine;
uniform vec3 uClothTint;

out vec4 fragColor;

void main() {
    float light = 0.6 + 0.4 * max(dot(normalize(vNormal), uLight), 0.0);
    vec3 color;
    // The cloth: the cover's own colour just inside its edge, a little darker where it turns.
    // Paper blocks fetch it only on a shut book's spine side.
    float cloth = uBoard == 1 ? 1.0 : vSpineSide * uSpine;
    color = uPaper * (0.92 + 0.08 * sin(vBox.z * uSheets * 6.2831853));
    if (cloth > 0.0) color = mix(color, textureLod(uCover, vec2(0.015, 0.5), 0.0).rgb * 0.85 * uClothTint, cloth);
    fragColor = vec4(color * light, 1.0);
}
