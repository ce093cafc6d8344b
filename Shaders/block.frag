#version 330 core
// Page-block sides: the paper's sheet edges as fine, slightly irregular lines across the depth
// (so they follow the gutter's curve with the block's top); cover boards: the cover's cloth at
// its edge. Both lit like the pages. The lines come in six scales (a sheet, 3, 9, 27, 81, 243),
// each faded to its mean where it is finer than about two pixels (fwidth): lines finer than
// that only alias into moiré, and a coarser scale still shows. The coarse scales are the
// strongest (as a book's gatherings show on its edge), so at reading size, where a 400-page
// book's fore edge is 15 pixels at 1080p and 5 at 360p, it still reads as paper.
// Inputs:   vBox, vEdge, vPaper, vCloth from block.vert.
// Uniforms: uPaper (edge colour), uLight (unit, towards the light), uSheets (sheets in the stack),
//           uBoard (1: a cover board), uCover (sampler, unit 0: the cover image, for a board or
//           a block with uSpine > 0), uSpine (0 … 1: how much a block's spine side shows the
//           cover's cloth: a shut book's spine), uClothTint (the theme's room colour on the
//           cloth of a book the theme recolours; 1 otherwise), uSize and uGrow (block.vert's:
//           where a board's faces overhang), uLeafAngle (block.vert's: leaves fanned open, the
//           edge's chord from the top leaf down to the stack; the leaf k of the way down lies at
//           √(1 − k) of the top one's angle, so seen from the front their edges lie evenly).
// Output:   fragColor. The colour itself is block-shade.glsl's, with the lines; the face is lit
//           in block.vert, where uPaper, uLight, uCover, uSpine and uClothTint are read.
in vec3 vBox;
flat in float vEdge;
flat in vec3 vPaper;
flat in vec3 vCloth;

#include "frame.glsl"
uniform sampler2D uCover;
#include "block-draw.glsl"
#include "block-shade.glsl"

out vec4 fragColor;

void main() {
    float x = (uLeafAngle > 0.0 ? 1.0 - (1.0 - vBox.z) * (1.0 - vBox.z) : vBox.z) * uSheets;
    float w = fwidth(x);
    float lines = 0.12 * bands(x, w) + 0.1 * bands(x / 3.0 + 0.37, w / 3.0) + 0.08 * bands(x / 9.0 + 0.71, w / 9.0)
                  + 0.07 * bands(x / 27.0 + 0.13, w / 27.0) + 0.09 * bands(x / 81.0 + 0.53, w / 81.0)
                  + 0.16 * bands(x / 243.0 + 0.29, w / 243.0);
    vec2 d = boardInset(vBox);
    fragColor = vec4(vPaper * (0.92 + lines) + vCloth * boardRim(vBox, vEdge, max(fwidth(min(d.x, d.y)), 1e-4)), 1.0);
}
