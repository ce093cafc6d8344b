import FolioMath
import Foundation

/// Image helpers for page textures: fitting a size limit, rounded corners, placeholders.
/// Pure Swift on 8-bit RGBA (straight, not premultiplied, alpha).
extension RGBAImage {
    /// Bytes the pixels take (what a page costs against the residency budget).
    public var byteCount: Int { pixels.count }

    /// The image scaled down, aspect kept, to fit `maxWidth` × `maxHeight`; unchanged when it
    /// already fits. Area-averaging (a box filter with fractional edge weights), done on
    /// premultiplied colour so transparent pixels do not darken their neighbours.
    public func scaledToFit(maxWidth: Int, maxHeight: Int) -> RGBAImage {
        guard width > maxWidth || height > maxHeight, width > 0, height > 0 else { return self }
        let scale = min(Double(max(1, maxWidth)) / Double(width), Double(max(1, maxHeight)) / Double(height))
        let w = max(1, min(maxWidth, Int((Double(width) * scale).rounded())))
        let h = max(1, min(maxHeight, Int((Double(height) * scale).rounded())))
        return resampled(width: w, height: h)
    }

    /// Area-averaged resize to exactly `w` × `h`: each output pixel averages the source area it
    /// covers (enlarging, that is the nearest pixel, blended where two meet).
    public func resampled(width w: Int, height h: Int) -> RGBAImage {
        // Per output coordinate: (first source index, weights) covering [o·s, (o+1)·s).
        func taps(_ src: Int, _ dst: Int) -> [(Int, [Float])] {
            let s = Double(src) / Double(dst)
            return (0..<dst).map { o in
                let a = Double(o) * s, b = Double(o + 1) * s
                let first = Int(a), last = min(src - 1, Int((b - 1e-9).rounded(.down)))
                let weights = (first...last).map { i in Float((min(b, Double(i + 1)) - max(a, Double(i))) / s) }
                return (first, weights)
            }
        }
        // Horizontal pass into premultiplied floats, then vertical pass back to bytes.
        let tx = taps(width, w), ty = taps(height, h)
        var rows = [Float](repeating: 0, count: w * height * 4)
        for y in 0..<height {
            for (ox, (first, weights)) in tx.enumerated() {
                var acc: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (k, wgt) in weights.enumerated() {
                    let i = (y * width + first + k) * 4
                    let a = Float(pixels[i + 3]) * wgt
                    acc.0 += Float(pixels[i]) * a; acc.1 += Float(pixels[i + 1]) * a; acc.2 += Float(pixels[i + 2]) * a; acc.3 += a
                }
                let o = (y * w + ox) * 4
                rows[o] = acc.0; rows[o + 1] = acc.1; rows[o + 2] = acc.2; rows[o + 3] = acc.3
            }
        }
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for (oy, (first, weights)) in ty.enumerated() {
            for x in 0..<w {
                var acc: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (k, wgt) in weights.enumerated() {
                    let i = ((first + k) * w + x) * 4
                    acc.0 += rows[i] * wgt; acc.1 += rows[i + 1] * wgt; acc.2 += rows[i + 2] * wgt; acc.3 += rows[i + 3] * wgt
                }
                let o = (oy * w + x) * 4
                if acc.3 > 0 {
                    out[o] = UInt8(clamp(acc.0 / acc.3, 0, 255).rounded())
                    out[o + 1] = UInt8(clamp(acc.1 / acc.3, 0, 255).rounded())
                    out[o + 2] = UInt8(clamp(acc.2 / acc.3, 0, 255).rounded())
                }
                out[o + 3] = UInt8(clamp(acc.3, 0, 255).rounded())
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }

    /// The image with its corners cut to quarter circles of `radius` pixels; the alpha along
    /// each arc is the pixel's covered fraction, so the edge is antialiased.
    public func roundingCorners(radius: Double) -> RGBAImage {
        let r = min(radius, Double(min(width, height)) / 2)
        guard r > 0 else { return self }
        var out = self
        let n = Int(r.rounded(.up))
        for y in 0..<min(n, height) {
            for x in 0..<min(n, width) {
                // Distance from the pixel centre to the arc's centre, compared with r; a one-pixel
                // ramp approximates the covered area well enough for 8 bits.
                let dx = r - (Double(x) + 0.5), dy = r - (Double(y) + 0.5)
                guard dx > 0 && dy > 0 else { continue }
                let coverage = clamp(r - (dx * dx + dy * dy).squareRoot() + 0.5, 0, 1)
                for (cx, cy) in [(x, y), (width - 1 - x, y), (x, height - 1 - y), (width - 1 - x, height - 1 - y)] {
                    let i = (cy * width + cx) * 4 + 3
                    out.pixels[i] = UInt8((Double(pixels[i]) * coverage).rounded())
                }
            }
        }
        return out
    }

    /// What a page shows while it has no image of its own.
    public enum PlaceholderKind: Sendable {
        /// Not decoded yet: plain paper with a faint frame.
        case loading
        /// Missing or unreadable: paper, a grey frame and a red diagonal cross, unmistakable
        /// without any text.
        case broken
    }

    /// A placeholder page of the given size.
    public static func placeholder(width: Int, height: Int, kind: PlaceholderKind) -> RGBAImage {
        var img = RGBAImage(width: width, height: height, fill: paper)
        let side = Double(min(width, height))
        let inset = side / 12, thickness = max(1.5, side / 90)
        let (x0, y0, x1, y1) = (inset, inset, Double(width) - inset, Double(height) - inset)
        let frame: (UInt8, UInt8, UInt8) = kind == .broken ? (128, 128, 128) : (222, 216, 202)
        let cross: (UInt8, UInt8, UInt8) = (196, 60, 48)
        for y in 0..<height {
            for x in 0..<width {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                // Distance to the frame rectangle's outline.
                let inside = px >= x0 && px <= x1 && py >= y0 && py <= y1
                let dFrame = inside ? min(px - x0, x1 - px, py - y0, y1 - py)
                                    : hypot(max(x0 - px, 0, px - x1), max(y0 - py, 0, py - y1))
                var colour = paper3
                colour = blend(colour, frame, coverage(dFrame, thickness))
                if kind == .broken {
                    let d = min(distance(px, py, x0, y0, x1, y1), distance(px, py, x1, y0, x0, y1))
                    colour = blend(colour, cross, coverage(d, thickness * 1.5))
                }
                img.setPixel(x, y, (colour.0, colour.1, colour.2, 255))
            }
        }
        return img
    }

    /// Warm off-white, the colour of the placeholder's paper.
    public static let paper: (UInt8, UInt8, UInt8, UInt8) = (246, 242, 232, 255)
    private static let paper3: (UInt8, UInt8, UInt8) = (paper.0, paper.1, paper.2)

    /// Antialiased coverage of a line of `thickness` at distance `d` from its centre.
    private static func coverage(_ d: Double, _ thickness: Double) -> Double { clamp(thickness / 2 - d + 0.5, 0, 1) }

    private static func distance(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        let (vx, vy) = (bx - ax, by - ay)
        let t = clamp(((px - ax) * vx + (py - ay) * vy) / (vx * vx + vy * vy), 0, 1)
        return hypot(px - ax - t * vx, py - ay - t * vy)
    }

    private static func blend(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8), _ t: Double) -> (UInt8, UInt8, UInt8) {
        func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) * (1 - t) + Double(y) * t).rounded()) }
        return (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
    }
}

extension RGBAImage {
    /// The rectangle `x, y, width × height` of the image (clamped to it; at least 1 × 1).
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> RGBAImage {
        let x0 = min(max(x, 0), width - 1), y0 = min(max(y, 0), height - 1)
        let cw = max(1, min(w, width - x0)), ch = max(1, min(h, height - y0))
        var out = [UInt8]()
        out.reserveCapacity(cw * ch * 4)
        for row in y0..<(y0 + ch) {
            let start = (row * width + x0) * 4
            out += pixels[start..<(start + cw * 4)]
        }
        return RGBAImage(width: cw, height: ch, pixels: out)
    }
}

extension RGBAImage {
    /// The image turned the way an EXIF orientation tag (1…8) says it is to be shown: 2 mirrored,
    /// 3 turned half round, 4 upside-down mirror, 5 transposed, 6 turned a quarter clockwise,
    /// 7 transversed, 8 a quarter anticlockwise. Anything else leaves it as it is.
    public func oriented(exif orientation: Int) -> RGBAImage {
        guard (2...8).contains(orientation) else { return self }
        let (w, h) = (width, height)
        let swaps = orientation >= 5
        let (ow, oh) = swaps ? (h, w) : (w, h)
        // For each pixel (x, y) shown, the pixel of the stored image it comes from.
        let source: (Int, Int) -> (Int, Int) = switch orientation {
        case 2: { x, y in (w - 1 - x, y) }
        case 3: { x, y in (w - 1 - x, h - 1 - y) }
        case 4: { x, y in (x, h - 1 - y) }
        case 5: { x, y in (y, x) }
        case 6: { x, y in (y, h - 1 - x) }
        case 7: { x, y in (w - 1 - y, h - 1 - x) }
        default: { x, y in (w - 1 - y, x) }
        }
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<oh {
                    for x in 0..<ow {
                        let (sx, sy) = source(x, y)
                        let s = (sy * w + sx) * 4, d = (y * ow + x) * 4
                        dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = src[s + 3]
                    }
                }
            }
        }
        return RGBAImage(width: ow, height: oh, pixels: out)
    }
}
