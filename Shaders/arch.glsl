// How high a page with `drop` arches at its fore edge: ARCH · drop (GutterCurve.arch). Included
// (Shader.swift's `#include`) by page.vert and block.vert, whose tops follow the same arch.
const float ARCH = 2.0;
float archOf(float drop) { return ARCH * drop; }
