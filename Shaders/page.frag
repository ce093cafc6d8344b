#version 330 core
// Page shading: paper texture on both faces, diffuse light (page.vert's, per vertex), paper lit
// from behind (its own tone and the other side's print showing through), the crease band, the
// gutter, the shade terms (docs/behaviour.md §5) and analytic edge antialiasing.
// Inputs:   vST, vLit (the light and the back-lighting of the face drawn), vBias (with
//           BIASED), vHere, vRest and vAlign (with STACKED or INSIDE: a turning sheet's point,
//           the same point of the page beneath and of the sheet lying at rest there, in clip
//           space), vLying (whether it lies in that page's plane), vRim (with STACKED: whether that
//           page's rim lies under the sheet's) from page.vert.
// Uniforms: uImage (sampler, unit 0: the face being drawn), uBackFace (1 while drawing a
//           sheet's back: its image is mirrored across the spine, and page.vert lights it from
//           the other side; a two-sided sheet is drawn twice, once per face, so each pixel
//           samples one image),
//           uUVOrigin, uUVdu, uUVdt (local (s, t) → image uv),
//           uSize, uShade (reveal, facing, self, crease), uGutter (0…1), uOpacity,
//           uCornerRadius (layout units),
//           uDeform, uCurl, uCurlRadius, uCurlWrap (the curl, for the shadow its flap casts on the front),
//           uWedge (the far edge of a page hinged over this one, in this page's plane across
//           the spine and height above it, layout units; y = 0: none), uAmbient (its strength),
//           uSpineEdge (1: the spine edge is an edge, antialiased like the others),
//           uGutterWidth (the gutter's curve, a fraction of the width: page.vert),
//           uBackTone (1 for paper, 0 for covers: how much a face lit from behind warms),
//           uBehind (sampler, unit 1: the other side of the sheet, with SHOW_THROUGH),
//           uBehindLevel (its mipmap level: texels a fixed share of the page, or the face's
//           footprint where coarser), uBehindOrigin, uBehindDu,
//           uBehindDt (local (s, t) → its uv, mirrored below), uShowThrough (strength
//           where the light falls on the face, and added where it comes from behind),
//           uThemePaper, uThemeInk (Theme.swift, with RECOLOUR), uAligns (1 while some of a
//           turning sheet lies near the plane of a page it leaves or lands on: Renderer.liesNear).
// Output:   fragColor, straight alpha = edge coverage × opacity.
// Defines:  each adds a term (a software renderer pays for the code of a branch it skips): WEDGE
//           the wedge (a fanned page under another), FLAP the flap's shadow (a curl's flat part
//           while the flap lies over it), RIM the back's rim (a sheet with a back), BIASED
//           one tap whose level of detail is biased by vBias towards a squeezed face's
//           sharper axis (with software filtering, a face not seen square somewhere:
//           the sampler's level follows the longer of a pixel's steps, the type's sharpness
//           the shorter; page.vert finds the bias from the face's geometry, so it follows the
//           face continuously and no line or frame switches between blurred and sharp).
//           Faces seen square use the plain one. SHOW_THROUGH adds the other side's
//           print, for a sheet's faces and pages lying open (one more texture tap, at a coarse
//           level). RECOLOUR maps the print to the
//           theme's ink and paper (a theme other than paper, on printed pages). STACKED
//           draws a turning sheet's rim against the rims of the pages it leaves and lands on.
//           INSIDE draws a turning sheet's inside, where every pixel is at least a few
//           from its free edges: no edge coverage, rim or STACKED term (their arithmetic is
//           about a sixth of a sheet's cost on a software renderer); the full program then
//           draws the band around it (the renderer's `insideInset`, `SheetRegion`).

in vec2 vST;
in vec2 vLit;
in float vBias;
in vec3 vHere;
in vec3 vRest;
in vec3 vAlign;
in float vLying;
in float vRim;

uniform sampler2D uImage;
#include "page-draw.glsl"
#include "frame.glsl"
#ifdef WEDGE
// The gap, a share of the page's width, at which the wedge lets in all the light.
const float WEDGE_GAP = 0.03;
#endif
#ifdef SHOW_THROUGH
uniform sampler2D uBehind;
#endif

const float PI = 3.14159265358979;
// Pixels from where a sheet lay, or will lie, at rest within which its texels are aligned with
// its own there (3 left a landing's type 4% soft half a pixel from rest).
const float ALIGN_REACH = 6.0;

#include "outline.glsl"

// The shadow a curl's flap, lying face down 2r above the flat part, casts on that part: a
// point is beside the flap when its mirror across the line the flap folds back on (πr/2 past
// the fold line) lies just outside the page; soft over a width that grows with the height.
float flapShadow(vec2 p) {
    float r = uCurlRadius;
    float s = dot(p - uCurl.xy, uCurl.zw);
    if (s >= 0.0) return 0.0;
    vec2 mirror = p + uCurl.zw * (PI * r - 2.0 * s);
    float outside = box(mirror, vec2(0.5 * uSize.x, 0.0), vec2(0.5 * uSize.x, 0.5 * uSize.y), uCornerRadius);
    float width = 2.0 + 1.5 * r;
    // A flap that stands off the page (wrap under π, the fan) lies over no part of it.
    return 0.3 * (1.0 - smoothstep(0.0, width, max(outside, 0.0))) * smoothstep(0.0, 6.0, r)
        * smoothstep(0.75 * PI, PI, uCurlWrap);
}

out vec4 fragColor;

void main() {
    float s = mix(vST.x, 1.0 - vST.x, uBackFace);
    vec2 uv = uUVOrigin + uUVdu * s + uUVdt * vST.y;
#if defined(STACKED) || defined(INSIDE)
    // A sheet within a few pixels of where it lay at rest, or will lie, reads its texels where
    // it read them there (moved back along its own texel steps), fading out as it moves away:
    // the page at rest lies on the pixel grid, and a sheet off it by a fraction of a pixel
    // blends neighbouring texels, so its type would sharpen only in its last frames. Exactly
    // there at the turn's ends: its first and last frames are the page's (page.vert's vAlign).
    // Only while some of the sheet lies near either page's plane (uAligns, Renderer.liesNear):
    // mid-turn it is nowhere. A GPU skips the branch then; llvmpipe runs its code under a mask
    // all the same (about 6% of a curl frame there: docs/performance.md).
    if (uAligns > 0.0) {
        vec2 moved = (vHere.xy / max(vHere.z, 1e-6) - vAlign.xy / max(vAlign.z, 1e-6)) * uPixelHalf;
        uv += vLying * (1.0 - smoothstep(0.0, ALIGN_REACH, length(moved))) * (dFdx(uv) * moved.x + dFdy(uv) * moved.y);
    }
#endif
#ifdef STACKED
    // How far on screen this point of a sheet lies from the same point of the page it leaves
    // or lands on (page.vert's vHere, vRest).
    vec2 offset = (vHere.xy / max(vHere.z, 1e-6) - vRest.xy / max(vRest.z, 1e-6)) * uPixelHalf;
#endif
    // Terms behind a uniform `if` cost a GPU nothing while off; a software renderer runs their
    // code under a mask either way, so the dear ones are defines (the variants above).
#ifdef BIASED
    vec4 tex = texture(uImage, uv, vBias);
#else
    vec4 tex = texture(uImage, uv);
#endif
    // A theme maps the print's lightness from black–white to ink–paper and keeps its colour
    // (what it differs from grey by): night is dark paper and light ink, never a negative.
#ifdef RECOLOUR
    float l = dot(tex.rgb, vec3(0.299, 0.587, 0.114));
    tex.rgb = clamp(mix(uThemeInk, uThemePaper, l) + (tex.rgb - vec3(l)), 0.0, 1.0);
#endif

    // The light, above 1 only by the paper's sheen (a lit facet brighter than flat paper shows as a lighter seam),
    // and how much of it comes from behind, through the paper (page.vert).
    float light = vLit.x, behind = vLit.y;

    // Crease: darkest at the spine, gone by 10% of the width; gutter: the fold's shade on
    // pages at rest, as deep as the page curves down there (page.vert's gutterOffset).
    float shade = clamp(uShade.x + uShade.y + uShade.z, 0.0, 1.0);
    vec3 color = tex.rgb * (light * (1.0 - shade));
    // Paper lit from behind shows the light that came through it: darker and warmer.
    color *= mix(vec3(1.0), vec3(0.96, 0.91, 0.82), behind * uBackTone);
#ifdef SHOW_THROUGH
    // The other side's print, diffused by the paper to its lines and mirrored (the other side's
    // image runs the other way from the spine): faint where the light falls on this face,
    // stronger where it comes through. The diffusion is the paper's, so in page units: a
    // mipmap level whose texels are a fixed share of the page, whatever the zoom, or the
    // screen's footprint where that is coarser (no aliasing when small), found per draw
    // (uBehindLevel: Renderer.behindLevel): a few texels to a line of type, so its lines show
    // as bands, never its letters, even magnified.
    vec2 otherUV = uBehindOrigin + uBehindDu * (1.0 - s) + uBehindDt * vST.y;
    vec3 other = textureLod(uBehind, otherUV, uBehindLevel).rgb;
    float ink = 1.0 - dot(other, vec3(0.299, 0.587, 0.114));
    color *= 1.0 - (uShowThrough.x + uShowThrough.y * behind) * ink;
#endif
    if (uShade.w > 0.0) color *= 1.0 - uShade.w * 0.45 * (1.0 - smoothstep(0.0, 0.1, vST.x));
    float deep = clamp(1.0 - vST.x / uGutterWidth, 0.0, 1.0);
    if (uGutter > 0.0) color *= 1.0 - uGutter * deep * deep;
    vec2 local = vec2(vST.x * uSize.x, (vST.y - 0.5) * uSize.y);
#ifdef FLAP
    color *= 1.0 - flapShadow(local);
#endif
#ifdef WEDGE
    // The wedge a page hinged over this one makes with it: dark only where the gap between the
    // two (x · sin of their angle, at x from the spine) is narrow, as paper in a fan is. Light
    // comes in from the head, the tail and the open side, and the paper's own light fills a
    // wedge: the sky its far edge hides (half of it, a page nearly lying on this one) would
    // darken the whole page.
    float gap = local.x * uWedge.y / uSize.x;
    color *= 1.0 - uAmbient * 0.5 * (1.0 - smoothstep(0.0, WEDGE_GAP * uSize.x, gap));
#endif

#ifdef INSIDE
    // Drawn only where no edge term reaches (Renderer.insideInset): no coverage to find.
    float alpha = 1.0;
#else
    float dist = outline(local);
    float pixel = max(fwidth(dist), 1e-4);
    float coverage = clamp(0.5 - dist / pixel, 0.0, 1.0);
#ifdef RIM
    // A moving sheet's back shows a thin darker rim, so a flap reads against the paper beneath.
    if (uBackFace > 0.5 && uShade.z > 0.0) color *= 1.0 - 4.0 * uShade.z * (1.0 - smoothstep(0.5, 2.5, -dist / pixel));
#endif
#ifdef STACKED
    // A sheet near the page it leaves or lands on has that page's rim beneath its own: the
    // page's outline is the sheet's moved by −offset on screen. Drawn over as any edge, the
    // two rims added up (a lighter line along the edges at every turn's start and landing).
    // Up to two pixels apart the sheet's rim covers only what the page's leaves uncovered, so
    // the two make one edge, the outer of the two parallel outlines; past four it is any edge
    // (the offset, taken as the same across the pixel, is then too rough a guide).
    float beneath = clamp(0.5 - (dist + dot(vec2(dFdx(dist), dFdy(dist)), offset)) / pixel, 0.0, 1.0);
    float apart = length(offset);
    float over = beneath > 0.999 ? coverage : max(coverage - beneath, 0.0) / (1.0 - beneath);
    float alpha = mix(over, coverage, max(smoothstep(2.0, 4.0, apart), 1.0 - vRim));
#else
    float alpha = coverage;
#endif
#endif
    fragColor = vec4(color, tex.a * alpha * uOpacity);
}
