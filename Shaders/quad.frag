#version 330 core
// An image of the on-screen layer, colours premultiplied by alpha, faded as a whole.
// Inputs:   vUV from quad.vert.  Uniforms: uImage (sampler, unit 0), uOpacity (0…1).
// Output:   fragColor, premultiplied (blended with ONE, ONE_MINUS_SRC_ALPHA).
in vec2 vUV;

uniform sampler2D uImage;
uniform float uOpacity;

out vec4 fragColor;

void main() {
    fragColor = texture(uImage, vUV) * uOpacity;
}
