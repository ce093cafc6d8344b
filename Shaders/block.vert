#version 330 core
// Page blocks: the stacked edges of the sheets under a flat page, a box below the page plane.
// Inputs:   aBox in [0, 1]³: s across from the spine, t along it, k down into the stack.
// Uniforms: uViewProj, uModel, uSize (across, along), uThickness (layout units).
// Outputs:  vBox (the input, for the edge stripes), vNormal (world).
layout(location = 0) in vec3 aBox;
layout(location = 1) in vec3 aNormal;

uniform mat4 uViewProj;
uniform mat4 uModel;
uniform vec2 uSize;
uniform float uThickness;

out vec3 vBox;
out vec3 vNormal;

void main() {
    vec3 local = vec3(aBox.x * uSize.x, (aBox.y - 0.5) * uSize.y, -aBox.z * uThickness);
    vBox = aBox;
    vNormal = mat3(uModel) * aNormal;
    gl_Position = uViewProj * uModel * vec4(local, 1.0);
}
