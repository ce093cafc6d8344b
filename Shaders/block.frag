#version 330 core
// Page-block sides: the paper's sheet edges as fine, slightly irregular lines across the depth
// (so they follow the gutter's curve with the block's top); cover boards: the cover's cloth at
// its edge. Both lit like the pages. The lines come in six scales (a sheet, 3, 9, 27, 81, 243),
// each faded to its mean where it is finer than about two pixels (fwidth): lines finer than
// that only alias into moiré, and a coarser scale still shows. The coarse scales are the
// strongest (as a book's gatherings show on its edge), so at reading size, where a 400-page
// book's fore edge is 15 pixels at 1080p and 5 at 360p, it still reads as paper.
// Inputs:   vBox, vNormal, vSpineSide, vEdge from block.vert (or edge.vert), vFringe (edge.vert:
//           how far across its strip, the coverage falling from 1 to 0).
// Uniforms: uPaper (edge colour), uLight (unit, towards the light), uSheets (sheets in the stack),
//           uBoard (1: a cover board), uCover (sampler, unit 0: the cover image, for a board or
//           a block with uSpine > 0), uSpine (0 … 1: how much a block's spine side shows the
//           cover's cloth: a shut book's spine), uClothTint (the theme's room colour on the
//           cloth of a book the theme recolours; 1 otherwise), uSize and uGrow (block.vert's:
//           where a board's faces overhang), uLeafAngle (block.vert's: leaves fanned open, the
//           edge's chord from the top leaf down to the stack; the leaf k of the way down lies at
//           √(1 − k) of the top one's angle, so seen from the front their edges lie evenly).
// Defines:  FRINGE (edge.vert's strips: the sheets' lines at their mean).
// Output:   fragColor (its alpha the coverage, 1 − vFringe).
in vec3 vBox;
in vec3 vNormal;
flat in float vSpineSide;
flat in float vEdge;
noperspective in float vFringe;

#include "frame.glsl"
uniform sampler2D uCover;
#include "block-draw.glsl"

out vec4 fragColor;

// A band's own shade, −0.5 … 0.5: each sheet's edge a little lighter or darker than the next.
float hash(float n) { return fract(sin(n * 78.233) * 43758.5453) - 0.5; }

// Bands x (in bands, w of them a pixel): a dark line at each band's edge and the band's own
// shade, about their mean; none where a band is under two pixels, whole from four on.
float bands(float x, float w) {
    float edge = abs(fract(x) - 0.5) * 2.0;
    float line = smoothstep(0.7 - 2.0 * w, 1.0, edge) - 0.17;
    return (0.4 * hash(floor(x)) - line) * (1.0 - smoothstep(0.25, 0.5, w));
}

void main() {
    float light = 0.6 + 0.4 * max(dot(normalize(vNormal), uLight), 0.0);
    vec3 color;
    // The cloth: the cover's own colour just inside its edge, a little darker where it turns.
    // Paper blocks fetch it only on a shut book's spine side.
    float cloth = uBoard == 1 ? 1.0 : vSpineSide * uSpine;
#ifdef FRINGE
    // A strip a pixel wide along the outline, mostly the room: the sheets' lines at their mean.
    color = uPaper * 0.92;
#else
    float x = (uLeafAngle > 0.0 ? 1.0 - (1.0 - vBox.z) * (1.0 - vBox.z) : vBox.z) * uSheets;
    float w = fwidth(x);
    color = uPaper * (0.92 + 0.12 * bands(x, w) + 0.1 * bands(x / 3.0 + 0.37, w / 3.0)
                      + 0.08 * bands(x / 9.0 + 0.71, w / 9.0) + 0.07 * bands(x / 27.0 + 0.13, w / 27.0)
                      + 0.09 * bands(x / 81.0 + 0.53, w / 81.0) + 0.16 * bands(x / 243.0 + 0.29, w / 243.0));
#endif
    // A board's edge is the cloth turned round it, so its thickness shows as a rounded rim and
    // not as a flat slab's: on its rim, lightest across the middle, where it faces out; on its
    // faces, where they overhang the paper (or the cover printed on it), a light crest where the
    // cloth starts to turn and a dark sliver at the very edge. Faded out where the fore edge's
    // band meets the head's or the tail's, so the corner shows no 45° mitre.
    float g = max(uGrow, 1e-3);
    vec2 d = vec2((1.0 - vBox.x) * (uSize.x + uGrow), min(vBox.y, 1.0 - vBox.y) * (uSize.y + 2.0 * uGrow)) / g;
    float t = min(d.x, d.y);
    float face = -0.28 + 0.28 * smoothstep(0.0, 0.3, t) + 0.3 * (smoothstep(0.1, 0.35, t) - smoothstep(0.35, 0.9, t));
    // Where the overhang is only a few pixels (px: a pixel in these units; a shelf book's is
    // under two at 640 × 360) that profile vanishes under a pixel: there the sliver narrows
    // away and the crest takes the outer pixel, stronger, a lit edge against the room. Blended
    // by px, so a book growing on screen shows no step.
    float px = max(fwidth(t), 1e-4);
    float crest = min(0.6 + 1.2 * px, 1.0);
    face = mix(face, 0.7 * (1.0 - smoothstep(crest - 0.5 * px, crest + 0.5 * px, t)), smoothstep(0.2, 0.45, px));
    float bevel = 1.0 + smoothstep(1.0, 2.0, max(d.x, d.y)) * face;
    float rim = uBoard == 1 ? mix(bevel, 0.7 + 0.55 * sin(3.14159265 * vBox.z), vEdge) : 1.0;
    if (cloth > 0.0) color = mix(color, textureLod(uCover, vec2(0.015, 0.5), 0.0).rgb * 0.85 * rim * uClothTint, cloth);
    fragColor = vec4(color * light, 1.0 - vFringe);
}
