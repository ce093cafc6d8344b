import FolioMath

/// Pages of an open book curve down into the gutter: over the last `width` of the page width
/// next to the spine the page bends down by a drop that grows with the stack beneath it, as
/// the binding pulls every sheet down to it. The shader twin is `curve()` in
/// `Shaders/page.vert`; the gutter's shading (`Shade.gutter`) follows the same profile.
///
/// Does not: bend the page block or the cover board (the block beneath a curved page is
/// lowered by the drop instead, `BookFaces.resting`), or bend fanned pages.
public enum GutterCurve {
    /// Width of the curve, as a fraction of the page width.
    public static let width = 0.1
    /// Columns of the flat page mesh (fractions of the width from the spine): dense where the
    /// curve bends most, one quad beyond it (`Renderer`'s page mesh).
    public static let columns: [Double] = [0, 0.006, 0.014, 0.025, 0.04, 0.06, 0.08, 0.1, 1]

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
}
