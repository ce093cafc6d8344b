#version 330 core
// Darkening passes, drawn with multiplicative blending (dst × src).
// Cast shadow (uMode 0): the turning sheet flattened onto the page plane by page.vert's
// shadow pass; darkest where the sheet is near the paper (the covering edge), fading with
// height, and soft at a rim whose width grows with height (a penumbra).
// Overlay (uMode 1): the darkening of a page a sheet turns over: uStrength uniformly plus
// uAmbient times the sky the sheet hides (page.vert's shadow pass 2, in vHeight).
// Inputs:   vST, vHeight from page.vert.
// Uniforms: uMode, uStrength (0…1), uAmbient (0…1), uSize (layout units), uFalloff (height at which the shadow
//           has faded to a third).
// Output:   fragColor: the factor the destination is multiplied by.

in vec2 vST;
in vec3 vNormal;
in float vHeight;

uniform int uMode;
uniform float uStrength;
uniform float uAmbient;
uniform vec2 uSize;
uniform float uFalloff;

out vec4 fragColor;

void main() {
    float dark;
    if (uMode == 1) {
        dark = clamp(uStrength + uAmbient * vHeight, 0.0, 1.0);
    } else {
        vec2 p = vST * uSize;
        float edge = min(min(uSize.x - p.x, p.y), uSize.y - p.y);
        float penumbra = 3.0 + vHeight * 0.35;
        float rim = smoothstep(0.0, penumbra, edge);
        dark = uStrength * exp(-vHeight / uFalloff) * rim;
    }
    fragColor = vec4(vec3(1.0 - dark), 1.0);
}
