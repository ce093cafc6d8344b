#version 330 core
// The shadow a book lays on the desk: its rectangle grown by a soft margin, on the desk below
// the book and pushed away from the light by the book's height.
// Inputs:   aGrid (s, t) in [0, 1]².
// Uniforms: uViewProj, uModel, uSize (across, along), uMargin (layout units), uHeight (the
//           book's height above the desk), uLight (unit, towards the light), uClosed (0 … 1:
//           a closed book's shadow is soft beyond its spine edge too).
// Outputs:  vLocal (layout units in the item's frame).
layout(location = 0) in vec2 aGrid;

uniform mat4 uViewProj;
uniform mat4 uModel;
uniform vec2 uSize;
uniform float uMargin;
uniform float uHeight;
uniform vec3 uLight;
uniform float uClosed;

out vec2 vLocal;

void main() {
    vec2 p = vec2(mix(-uClosed * uMargin, uSize.x + uMargin, aGrid.x), (aGrid.y - 0.5) * (uSize.y + 2.0 * uMargin));
    vLocal = p;
    vec4 world = uModel * vec4(p, 0.0, 1.0);
    world.xy -= uLight.xy / uLight.z * uHeight * 0.5;
    gl_Position = uViewProj * world;
}
