#version 330 core
// Copies a texture over the whole view (restores the cached static layer into a
// multisampled target, where a framebuffer blit is not allowed).
// Inputs:   vUV from backdrop.vert.  Uniforms: uSource (sampler, unit 0).  Output: fragColor.
in vec2 vUV;

uniform sampler2D uSource;

out vec4 fragColor;

void main() {
    fragColor = texture(uSource, vUV);
}
