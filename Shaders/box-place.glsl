// Where a point of a page block or board lies, in its model's space: block.vert draws the box's
// faces there and edge.vert the fringes along its outline, so the two meet exactly. Included
// (Shader.swift's `#include`) after frame.glsl, block-draw.glsl, block-shade.glsl and arch.glsl.
// Outputs: vBox, vEdge, vPaper, vCloth (block.vert's header).
// Inputs: box in [0, 1]³ (s across from the spine, t along it, k down into the stack), as
// block.vert's aBox after its hollow marks are moved.

// Leaves fanned open: their edges rise from the stack's top (k = 1) to the top leaf (k = 0) over
// the fore edge and the head and tail.
vec3 leafPlace(vec3 box) {
    float phi = uLeafAngle * (1.0 - box.z);
    return vec3(box.x * uSize.x * cos(phi), (box.y - 0.5) * uSize.y, box.x * uSize.x * sin(phi));
}

vec3 boxPlace(vec3 box) {
    if (uLeafAngle > 0.0) return leafPlace(box);
    float depth = box.z * uThickness;
    vec3 local = vec3(box.x * (uSize.x + uGrow + uFlare * depth), (box.y - 0.5) * (uSize.y + 2.0 * (uGrow - uEndsInset)), -depth);
    // The top bends down into the gutter under the page; the bottom stays on the board. A
    // little lower than the page everywhere: the page's columns sit a little further out (its
    // mesh reaches past its edges), so its curve's end lies a hair beyond the block's.
    float u = clamp(1.0 - local.x / (uGutterWidth * uSize.x), 0.0, 1.0);
    // And arches up out of it as the page does (page.vert's curve; GutterCurve.arch).
    float s = clamp(local.x / uSize.x, 0.0, 1.0);
    float arch = archOf(uGutterDrop);
    local.z -= (uGutterDrop * (u * u + 0.02) - arch * rise(s)) * (1.0 - box.z);
    return local;
}

// Whether the face with this outward normal is drawn: fanned leaves lie in the planes of the
// top and bottom faces (the top leaf's is the page lifted with it; the bottom lies on the
// stack); a shut book's block lies between its boards, which overhang it, so its top and bottom
// are never seen (a shelf of books rasterised them, each a cover's size).
bool boxFaceDrawn(vec3 normal) {
    return abs(normal.z) < 0.5 || (uLeafAngle <= 0.0 && uSpine < 1.0);
}

out vec3 vBox;
flat out float vEdge;
flat out vec3 vPaper;
flat out vec3 vCloth;

// What block.frag shades a point of the face with this outward normal by: the point, whether
// the face is a board's rim, and the face lit (block-shade.glsl's boxLight: it is the same all
// over a face, so found here). Between two fanned leaves' edges the eye sees the lower leaf's
// face: the fore edge is lit as the leaves' faces are; else the fore edge leans outwards by the
// flare, and the spine side shows a shut book's cloth.
void boxFace(vec3 box, vec3 normal) {
    vBox = box;
    if (uLeafAngle > 0.0) {
        float mid = 0.5 * uLeafAngle;
        vEdge = 1.0;
        boxLight(mat3(uModel) * (normal.x > 0.5 ? vec3(-sin(mid), 0.0, cos(mid)) : normal), 0.0, vPaper, vCloth);
    } else {
        vEdge = abs(normal.z) < 0.5 ? 1.0 : 0.0;
        boxLight(mat3(uModel) * normalize(normal + vec3(0.0, 0.0, uFlare * max(normal.x, 0.0))), normal.x < -0.5 ? 1.0 : 0.0,
                 vPaper, vCloth);
    }
}
