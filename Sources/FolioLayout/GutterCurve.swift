import FolioMath

/// Pages of an open book curve down into the gutter: over the last `width` of the page width
/// next to the spine the page bends down by a drop that grows with the stack beneath it, as
/// the binding pulls every sheet down to it. The shader twin is `curve()` in
/// `Shaders/page.vert`; the gutter's shading (`Shade.gutter`) follows the same profile.
///
/// The page block's top follows the same curve (`Shaders/block.vert`), so the block keeps
/// its full height at the fore edge. Does not: bend the cover board or fanned pages.
public enum GutterCurve {
    /// Width of the curve, as a fraction of the page width.
    public static let width = 0.1
    /// Columns of a curved page's mesh (fractions of the width from the spine): three over the
    /// curve (a parabola: evenly spaced is best; off by under 3% of the drop), one quad beyond.
    /// Every column costs fill on a software renderer: a column edge crossing a tile makes it
    /// a partial tile, rasterised pixel by pixel.
    public static let columns: [Double] = [0, width / 3, 2 * width / 3, width, 1]

    /// The drop at the spine of a page lying on a stack `thickness` units thick: a thin stack
    /// dips a little (the binding's own curve, at most 1.5 units), a thick one more; never
    /// through the stack (the cover board lies beneath it).
    public static func drop(stack thickness: Double) -> Double {
        let t = max(thickness, 0)
        return 0.45 * t + min(1.5, 0.45 * t)
    }

    /// The profile: 1 at the spine, 0 from `width` of the page on, with no kink where it ends
    /// (zero slope there). `s` is across the page from the spine, 0 … 1.
    public static func profile(_ s: Double) -> Double {
        let u = clamp(1 - abs(s) / width, 0, 1)
        return u * u
    }

    /// Local height change of a page at deformed position `x` (local units across from the
    /// spine; negative on the other side) for a page `pageWidth` wide with `drop` (own side,
    /// other side): the page's local z goes down by this much.
    public static func offset(x: Double, pageWidth: Double, drop: Vec2) -> Double {
        (x >= 0 ? drop.x : drop.y) * profile(x / max(pageWidth, 1e-9))
    }

    /// The rate `offset` changes with x, on x's own side (at the spine, the page's own side).
    public static func slope(x: Double, pageWidth: Double, drop: Vec2) -> Double {
        let u = (profile(x / max(pageWidth, 1e-9))).squareRoot()
        return (x >= 0 ? -1 : 1) * 2 * (x >= 0 ? drop.x : drop.y) * u / (width * max(pageWidth, 1e-9))
    }
}
