#version 330 core
// Page mesh: bends a unit grid into a page and places it in the world.
// Inputs:   aGrid (s, t) in [0, 1]²: s across from the spine edge, t along it.
// Uniforms: uViewProj, uModel (local → world), uSize (across, along) in layout units,
//           uDeform (0 flat, 1 curl, 2 cone), uCurl (fold point xy, direction xy), uCurlRadius,
//           uCone (apex, theta, rotation), uShadowPass (1: flatten onto the plane z = 0 along
//           uLight, for the cast shadow).
// Outputs:  vST (s, t), vNormal (world, of the front face), vHeight (world height above the
//           page plane, for the shadow's strength and softness).
// The deformations mirror FolioLayout's Deformation.swift; a test compares the two.

layout(location = 0) in vec2 aGrid;

uniform mat4 uViewProj;
uniform mat4 uModel;
uniform vec2 uSize;
uniform int uDeform;
uniform vec4 uCurl;
uniform float uCurlRadius;
uniform vec3 uCone;
uniform int uShadowPass;
uniform vec3 uLight;

out vec2 vST;
out vec3 vNormal;
out float vHeight;

const float PI = 3.14159265358979;

// Cylinder curl: past the fold line the paper rolls around a cylinder of radius r lying on
// the page; past half a turn it lies flat on top, face down.
void curl(vec2 p, out vec3 pos, out vec3 n) {
    vec2 d = uCurl.zw;
    float r = uCurlRadius;
    float s = dot(p - uCurl.xy, d);
    if (s <= 0.0) { pos = vec3(p, 0.0); n = vec3(0.0, 0.0, 1.0); return; }
    vec2 base = p - d * s;
    float halfTurn = PI * r;
    if (s < halfTurn) {
        float phi = s / r;
        pos = vec3(base + d * (r * sin(phi)), r * (1.0 - cos(phi)));
        n = vec3(-d * sin(phi), cos(phi));
    } else {
        pos = vec3(base - d * (s - halfTurn), 2.0 * r);
        n = vec3(0.0, 0.0, -1.0);
    }
}

// Hong, Ahn and Yoon's conical turn: apex on the spine line, distances from it kept.
vec3 conePosition(vec2 p) {
    float dl = p.y - uCone.x;
    float sgn = dl >= 0.0 ? 1.0 : -1.0;
    float R = length(vec2(p.x, dl));
    if (R < 1e-6) return vec3(p, 0.0);
    float sinT = sin(uCone.y), cosT = cos(uCone.y);
    float r = R * sinT;
    float beta = asin(clamp(p.x / R, -1.0, 1.0)) / sinT;
    float k = r * (1.0 - cos(beta));
    return vec3(r * sin(beta), uCone.x + sgn * (R - k * sinT), k * cosT);
}

mat3 rotateAboutSpine(float a) {
    // Rotation by −a about the spine (the l axis): the free edge rises towards +z.
    float c = cos(a), s = sin(a);
    return mat3(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c);
}

void cone(vec2 p, out vec3 pos, out vec3 n) {
    const float e = 0.5;
    vec3 du = conePosition(p + vec2(e, 0.0)) - conePosition(p - vec2(e, 0.0));
    vec3 dv = conePosition(p + vec2(0.0, e)) - conePosition(p - vec2(0.0, e));
    mat3 rot = rotateAboutSpine(uCone.z);
    pos = rot * conePosition(p);
    n = rot * normalize(cross(du, dv));
}

void main() {
    vec2 p = vec2(aGrid.x * uSize.x, (aGrid.y - 0.5) * uSize.y);
    vec3 pos;
    vec3 n;
    if (uDeform == 1) curl(p, pos, n);
    else if (uDeform == 2) cone(p, pos, n);
    else { pos = vec3(p, 0.0); n = vec3(0.0, 0.0, 1.0); }

    vec4 world = uModel * vec4(pos, 1.0);
    vST = aGrid;
    vNormal = mat3(uModel) * n;
    vHeight = max(world.z, 0.0);
    if (uShadowPass == 1) {
        // Flatten along the light onto the page plane, just above it.
        world.xyz -= uLight * (world.z / uLight.z);
        world.z = 0.05;
    }
    gl_Position = uViewProj * world;
}
