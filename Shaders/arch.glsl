// How high a page with `drop` arches at its fore edge: ARCH · drop (GutterCurve.arch), and the
// arch's rise across it. Included (Shader.swift's `#include`) after the draw's block by
// page.vert and block.vert, whose tops follow the same arch.
const float ARCH = 2.0;
float archOf(float drop) { return ARCH * drop; }

// The arch's rise s (2 − s) as a resting page's mesh draws it: straight between its columns
// beyond the gutter (GutterCurve.columns: the gutter's width, 0.4, 0.7 and 1), where a chord
// lies up to 2 % of the arch below the curve; within the gutter the curve itself (its chords
// there are within 0.03 %). A denser mesh (a cone's grid) then lies on the page it leaves at
// a turn's ends, not up to half a unit above it. The normal keeps the curve's slope.
float rise(float s) {
    if (s <= uGutterWidth) return s * (2.0 - s);
    vec2 ends = s < 0.4 ? vec2(uGutterWidth, 0.4) : (s < 0.7 ? vec2(0.4, 0.7) : vec2(0.7, 1.0));
    vec2 at = ends * (2.0 - ends);
    return mix(at.x, at.y, (s - ends.x) / (ends.y - ends.x));
}
