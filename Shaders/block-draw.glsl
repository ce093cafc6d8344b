// What one draw of a block or board sets (block.vert and block.frag), written into one uniform
// buffer before the draw and bound at point 1 (FolioRender's ProgramUniforms); the meanings are
// in the two stages' headers. std140: every member is active, read or not.
layout(std140) uniform Draw {
    mat4 uModel;
    vec3 uPaper;
    float uThickness;
    vec3 uClothTint;
    float uGrow;
    vec2 uSize;
    float uFlare;
    float uGutterDrop;
    float uGutterWidth;
    float uLeafAngle;
    float uSpine;
    float uHollow;
    float uEndsInset;
    float uSheets;
    int uBoard;
};
