#version 330 core
// The strips along a block's or board's outline (edge.vert): the face's colour, its board's rim
// as block.frag draws it, covering the pixel by less across the strip.
// Inputs:   vBox, vEdge, vPaper, vCloth, vPx, vFringe (edge.vert's).
// Uniforms: block.frag's.
// Output:   fragColor (its alpha the coverage).
in vec3 vBox;
flat in float vEdge;
flat in vec3 vPaper;
flat in vec3 vCloth;
in float vPx;
noperspective in float vFringe;

#include "frame.glsl"
uniform sampler2D uCover;
#include "block-draw.glsl"
#include "block-shade.glsl"

out vec4 fragColor;

void main() {
    fragColor = vec4(vPaper + vCloth * boardRim(vBox, vEdge, vPx), 1.0 - vFringe);
}
