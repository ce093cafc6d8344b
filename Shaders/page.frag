#version 330 core
// Page shading: paper texture on both faces, diffuse light from the deformed normal, the
// crease band, the gutter, the spec's shade terms and analytic edge antialiasing.
// Inputs:   vST, vNormal, vHeight from page.vert.
// Uniforms: uImage (sampler, unit 0: the face being drawn), uBackFace (1 while drawing a
//           sheet's back: its image is mirrored across the spine and its normal flipped; a
//           two-sided sheet is drawn twice, once per face, so each pixel samples one image),
//           uUVOrigin, uUVdu, uUVdt (local (s, t) → image uv),
//           uSize, uShade (reveal, facing, self, crease), uGutter (0…1), uOpacity,
//           uLight (unit vector towards the light), uCornerRadius (layout units).
// Output:   fragColor, straight alpha = edge coverage × opacity.

in vec2 vST;
in vec3 vNormal;
in float vHeight;

uniform sampler2D uImage;
uniform float uBackFace;
uniform vec2 uUVOrigin;
uniform vec2 uUVdu;
uniform vec2 uUVdt;
uniform vec2 uSize;
uniform vec4 uShade;
uniform float uGutter;
uniform float uOpacity;
uniform vec3 uLight;
uniform float uCornerRadius;

out vec4 fragColor;

void main() {
    float s = mix(vST.x, 1.0 - vST.x, uBackFace);
    vec2 uv = uUVOrigin + uUVdu * s + uUVdt * vST.y;
    vec4 tex = texture(uImage, uv);

    // Lambert relative to a flat page, so flat lit paper keeps its own colour.
    vec3 n = normalize(vNormal) * (1.0 - 2.0 * uBackFace);
    float light = clamp(0.7 + 0.3 * dot(n, uLight) / uLight.z, 0.62, 1.05);

    // Crease: darkest at the spine, gone by 10% of the width; gutter: the fold's shade on
    // pages at rest.
    float crease = uShade.w * 0.45 * (1.0 - smoothstep(0.0, 0.1, vST.x));
    float gutter = uGutter * exp(-vST.x * 18.0);
    float shade = clamp(uShade.x + uShade.y + uShade.z, 0.0, 1.0);
    vec3 color = tex.rgb * light * (1.0 - crease) * (1.0 - gutter) * (1.0 - shade);

    // Signed distance to the page outline in layout units. The outline is mirrored across the
    // spine, so the spine edge is never an edge and never fades.
    vec2 p = vST * uSize;
    vec2 halfSize = vec2(uSize.x, uSize.y * 0.5);
    vec2 q = abs(p - vec2(0.0, halfSize.y)) - (halfSize - vec2(uCornerRadius));
    float dist = length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - uCornerRadius;
    float coverage = clamp(0.5 - dist / max(fwidth(dist), 1e-4), 0.0, 1.0);

    fragColor = vec4(color, tex.a * coverage * uOpacity);
}
