#version 330 core
// Darkening passes, drawn with multiplicative blending (dst × src), and the pages' insides in
// depth. Four variants of this file, as a software renderer runs the code of a uniform branch
// it does not take:
// Overlay (no define): the darkening of a page a sheet turns over: uStrength uniformly plus uAmbient
// times the sky the sheet hides (page.vert's shadow pass 2, in vHeight); also the depth-only
// pass over a flat page's inside (pass 3, its colour masked), which page.vert insets.
// With RIMS, for a page whose free edges the sheet may still lie on (vRim): none along them,
// as page.frag's STACKED leaves the edge there to the page's rim, which must look as at rest.
// Cast shadow (CAST): the turning sheet flattened onto the page plane by page.vert's shadow
// pass; darkest where the sheet is near the paper (the covering edge), fading with height,
// and soft at a rim whose width grows with height (a penumbra).
// Insides (INSIDES): the depth-only pass over the inside of a page curving into the gutter (its
// colour masked): the page less the band along its outline where edge coverage blends over what
// lies beneath (the spine edge only with uSpineEdge), on the page's own vertices (page.vert's
// pass 4). Its discard costs a software renderer its early depth test: flat pages use pass 3.
// Inputs:   vST, vHeight, vRim from page.vert.
// Uniforms: uStrength (0…1), uAmbient (0…1, overlay), uSize (layout units),
//           uFalloff (cast: height at which the shadow has faded to a third), uSpineEdge and
//           uCornerRadius (insides).
// Output:   fragColor: the factor the destination is multiplied by.

in vec2 vST;
in float vHeight;
in float vRim;

#include "page-draw.glsl"
#ifdef INSIDES
#include "frame.glsl"
#include "outline.glsl"
#elif defined(RIMS)
// Pixels in from a free edge within which the sheet's rim covers the page's (page.frag's
// STACKED: 2 px apart at most, its coverage falling from ½ px in), and past which it fades.
const vec2 SPARED = vec2(2.5, 4.5);
#endif

out vec4 fragColor;

void main() {
#ifdef INSIDES
    // Two pixels in from where page.frag's coverage falls below 1, however steeply the page is seen.
    float dist = outline(vec2(vST.x * uSize.x, (vST.y - 0.5) * uSize.y));
    if (dist > -2.0 * max(fwidth(dist), 1e-4)) discard;
    fragColor = vec4(1.0);
#elif defined(CAST)
    vec2 p = vST * uSize;
    float edge = min(min(uSize.x - p.x, p.y), uSize.y - p.y);
    float penumbra = 3.0 + vHeight * 0.35;
    float rim = smoothstep(0.0, penumbra, edge);
    float dark = uStrength * exp(-vHeight / uFalloff) * rim;
    fragColor = vec4(vec3(1.0 - dark), 1.0);
#else
    float dark = clamp(uStrength + uAmbient * vHeight, 0.0, 1.0);
#ifdef RIMS
    vec2 p = vST * uSize;
    float edge = min(min(uSize.x - p.x, p.y), uSize.y - p.y);
    dark *= 1.0 - vRim * (1.0 - smoothstep(SPARED.x, SPARED.y, edge / max(fwidth(edge), 1e-4)));
#endif
    fragColor = vec4(vec3(1.0 - dark), 1.0);
#endif
}
