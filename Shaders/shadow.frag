#version 330 core
// Darkening passes, drawn with multiplicative blending (dst × src). Two variants of this file,
// as a software renderer runs the code of a uniform branch it does not take:
// Overlay (no define; also the depth-only pass over the pages' insides, whose colour is
// masked): the darkening of a page a sheet turns over: uStrength uniformly plus uAmbient
// times the sky the sheet hides (page.vert's shadow pass 2, in vHeight).
// Cast shadow (CAST): the turning sheet flattened onto the page plane by page.vert's shadow
// pass; darkest where the sheet is near the paper (the covering edge), fading with height,
// and soft at a rim whose width grows with height (a penumbra).
// Inputs:   vST, vHeight from page.vert.
// Uniforms: uStrength (0…1), uAmbient (0…1, overlay), uSize (layout units, cast), uFalloff
//           (cast: height at which the shadow has faded to a third).
// Output:   fragColor: the factor the destination is multiplied by.

in vec2 vST;
in float vHeight;

uniform float uStrength;
#ifdef CAST
uniform vec2 uSize;
uniform float uFalloff;
#else
uniform float uAmbient;
#endif

out vec4 fragColor;

void main() {
#ifdef CAST
    vec2 p = vST * uSize;
    float edge = min(min(uSize.x - p.x, p.y), uSize.y - p.y);
    float penumbra = 3.0 + vHeight * 0.35;
    float rim = smoothstep(0.0, penumbra, edge);
    float dark = uStrength * exp(-vHeight / uFalloff) * rim;
#else
    float dark = clamp(uStrength + uAmbient * vHeight, 0.0, 1.0);
#endif
    fragColor = vec4(vec3(1.0 - dark), 1.0);
}
