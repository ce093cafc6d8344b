// What one draw of a desk shadow sets (desk.vert and desk.frag), written into one uniform buffer
// before the draw and bound at point 1 (FolioRender's ProgramUniforms); the meanings are in the
// two stages' headers. std140: every member is active, read or not.
layout(std140) uniform Draw {
    mat4 uModel;
    vec4 uHole;
    vec2 uSize;
    vec2 uMargin;
    float uHeight;
    float uClosed;
    float uStrength;
};
