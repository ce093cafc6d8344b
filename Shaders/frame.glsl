// What every draw of a frame shares, set once a frame into one buffer bound to point 0
// (FolioRender's FrameUniforms): the camera, the light, the pixel grid, the corners' radius
// and the theme's print. Included (Shader.swift's `#include`) by the stages that read it.
// Uniforms: uViewProj, uLight (unit, towards the light), uCornerRadius (layout units),
//           uThemePaper and uThemeInk (page.frag's RECOLOUR), uPixelHalf (pixels across half
//           the view, x and y).
layout(std140) uniform Frame {
    mat4 uViewProj;
    vec3 uLight;
    float uCornerRadius;
    vec3 uThemePaper;
    vec3 uThemeInk;
    vec2 uPixelHalf;
};
