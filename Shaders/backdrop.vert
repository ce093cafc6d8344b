#version 330 core
// A full-screen triangle for the backdrop; no inputs (gl_VertexID picks the corner).
// Outputs: vUV in [0, 1]² over the view.
out vec2 vUV;

void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    vUV = corner;
    gl_Position = vec4(corner * 2.0 - 1.0, 0.999, 1.0);
}
