// The colour of a point of a page block's or board's face, lit: block.vert and block.frag's,
// and edge.vert and fringe.frag's for the strips along the outline. Included (Shader.swift's `#include`)
// after frame.glsl, block-draw.glsl and the sampler uCover; the uniforms are block.frag's.

// A band's own shade, −0.5 … 0.5: each sheet's edge a little lighter or darker than the next.
float hash(float n) { return fract(sin(n * 78.233) * 43758.5453) - 0.5; }

// Bands x (in bands, w of them a pixel): a dark line at each band's edge and the band's own
// shade, about their mean; none where a band is under two pixels, whole from four on.
float bands(float x, float w) {
    float edge = abs(fract(x) - 0.5) * 2.0;
    float line = smoothstep(0.7 - 2.0 * w, 1.0, edge) - 0.17;
    return (0.4 * hash(floor(x)) - line) * (1.0 - smoothstep(0.25, 0.5, w));
}

// How far a point of a board lies in from its fore edge (x) and from its head or tail (y), in
// overhangs (uGrow): a board's faces overhang the paper by one.
vec2 boardInset(vec3 box) {
    return vec2((1.0 - box.x) * (uSize.x + uGrow), min(box.y, 1.0 - box.y) * (uSize.y + 2.0 * uGrow)) / max(uGrow, 1e-3);
}

// The face with this (world) normal lit, as paper and as cloth: its colour is paper · (0.92 +
// the sheets' lines' shade there) + cloth · boardRim. spineSide: 1 on a block's spine side. The
// same over a face (its normal is), so found per vertex. The cloth is the cover's own colour just
// inside its edge; paper blocks take it only on a shut book's spine side.
void boxLight(vec3 normal, float spineSide, out vec3 paper, out vec3 cloth) {
    float light = 0.6 + 0.4 * max(dot(normalize(normal), uLight), 0.0);
    float share = uBoard == 1 ? 1.0 : spineSide * uSpine;
    paper = uPaper * (1.0 - share) * light;
    cloth = share > 0.0 ? textureLod(uCover, vec2(0.015, 0.5), 0.0).rgb * 0.85 * uClothTint * share * light : vec3(0.0);
}

// A board's edge is the cloth turned round it, so its thickness shows as a rounded rim and not
// as a flat slab's: on its rim (`edge` as block.vert's vEdge), lightest across the middle,
// where it faces out; on its faces, where they overhang the paper (or the cover printed on
// it), a light crest where the cloth starts to turn and a dark sliver at the very edge. Faded
// out where the fore edge's band meets the head's or the tail's, so the corner shows no 45°
// mitre. `px`: how far boardInset's nearer distance changes in a pixel. 1 on a block.
float boardRim(vec3 box, float edge, float px) {
    if (uBoard != 1) return 1.0;
    vec2 d = boardInset(box);
    float t = min(d.x, d.y);
    float face = -0.28 + 0.28 * smoothstep(0.0, 0.3, t) + 0.3 * (smoothstep(0.1, 0.35, t) - smoothstep(0.35, 0.9, t));
    // Where the overhang is only a few pixels (a shelf book's is under two at 640 × 360) that
    // profile vanishes under a pixel: there the sliver narrows away and the crest takes the
    // outer pixel, stronger, a lit edge against the room. Blended by px, so a book growing on
    // screen shows no step.
    float crest = min(0.6 + 1.2 * px, 1.0);
    face = mix(face, 0.7 * (1.0 - smoothstep(crest - 0.5 * px, crest + 0.5 * px, t)), smoothstep(0.2, 0.45, px));
    float bevel = 1.0 + smoothstep(1.0, 2.0, max(d.x, d.y)) * face;
    return mix(bevel, 0.7 + 0.55 * sin(3.14159265 * box.z), edge);
}
