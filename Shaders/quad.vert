#version 330 core
// A screen-aligned rectangle for an image of the on-screen layer; no inputs (gl_VertexID
// picks the corner of a four-vertex strip).
// Uniforms: uRect (x0, y0, x1, y1 in clip space, y up).
// Outputs:  vUV, (0, 0) at the image's top-left corner (its first row).
uniform vec4 uRect;

out vec2 vUV;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    vUV = vec2(corner.x, 1.0 - corner.y);
    gl_Position = vec4(mix(uRect.xy, uRect.zw, corner), 0.0, 1.0);
}
