// What one draw of a page program sets (page.vert, page.frag and shadow.frag: the faces, the
// cast shadow, the overlays and the insides' depth), written into one uniform buffer before the
// draw and bound at point 1 (FolioRender's ProgramUniforms and UniformRing). Included by the
// three stages, so every page program has the same block; what each uniform means is in the
// header of the stage that reads it. std140: every member is active, read or not.
layout(std140) uniform Draw {
    mat4 uModel;
    mat4 uCasterModel;
    mat4 uStackLeft;
    mat4 uStackRight;
    vec4 uCurl;
    vec4 uTexelAxes;
    vec4 uShade;
    vec3 uCone;
    float uCurlRadius;
    vec2 uSize;
    vec2 uGutterDrop;
    vec2 uCasterSize;
    vec2 uStackDrops;
    vec2 uStackRims;
    vec2 uAlignLift;
    vec2 uUVOrigin;
    vec2 uUVdu;
    vec2 uUVdt;
    vec2 uWedge;
    vec2 uBehindOrigin;
    vec2 uBehindDu;
    vec2 uBehindDt;
    vec2 uShowThrough;
    int uDeform;
    int uShadowPass;
    float uCurlWrap;
    float uInset;
    float uExpand;
    float uSpineEdge;
    float uGutterWidth;
    float uBackFace;
    float uFrom;
    float uTapBias;
    float uAlignDrop;
    float uAligns;
    float uGutter;
    float uOpacity;
    float uAmbient;
    float uBackTone;
    float uBehindLevel;
    float uStrength;
    float uFalloff;
};
