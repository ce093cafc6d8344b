// A page's outline (page.frag's edge coverage, shadow.frag's INSIDES): signed distances in
// layout units, negative inside. Included (Shader.swift's `#include`) after frame.glsl, by
// stages that declare uSize and uSpineEdge.

// To a rectangle with rounded corners.
float box(vec2 p, vec2 center, vec2 halfSize, float radius) {
    vec2 q = abs(p - center) - (halfSize - vec2(radius));
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - radius;
}

// To the outline of the page drawn, at local (across from the spine, up from the middle).
// Unless the spine edge is an edge (uSpineEdge), the outline is mirrored across the spine, so
// that edge never fades.
float outline(vec2 local) {
    bool spine = uSpineEdge > 0.5;
    return box(local, spine ? vec2(0.5 * uSize.x, 0.0) : vec2(0.0),
               vec2(spine ? 0.5 * uSize.x : uSize.x, 0.5 * uSize.y), spine ? 0.0 : uCornerRadius);
}
