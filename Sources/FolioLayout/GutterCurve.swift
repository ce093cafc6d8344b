import FolioMath

/// Pages of an open book curve down into the gutter: over the last `width` of the page width
/// next to the spine the page bends down by a drop that grows with the stack beneath it, as
/// the binding pulls every sheet down to it. Out of the gutter the page arches gently up
/// (`arch`, `rise`): paper held at the spine rises from it and flattens towards the fore edge,
/// higher on a thicker stack. The shader twin is `curve()` in `Shaders/page.vert`; the
/// gutter's shading (`Shade.gutter`) follows the drop's profile.
///
/// The page block's top follows the same curve (`Shaders/block.vert`), so the block keeps
/// its full height at the fore edge under the arch. Does not: bend the cover board or fanned
/// pages.
public enum GutterCurve {
    /// Width of the curve, as a fraction of the page width.
    public static let width = 0.1
    /// Columns of a curved page's mesh (fractions of the width from the spine): three over the
    /// curve (a parabola: evenly spaced is best; off by under 3% of the drop), three beyond for
    /// the arch (a parabola too: off by under 3% of its height). Every column costs fill on a
    /// software renderer: a column edge crossing a tile makes it a partial tile, rasterised
    /// pixel by pixel.
    public static let columns: [Double] = [0, width / 3, 2 * width / 3, width, 0.4, 0.7, 1]

    /// The drop at the spine of a page lying on a stack `thickness` units thick: a thin stack
    /// dips a little (the binding's own curve, at most 1.5 units), a thick one more; never
    /// through the stack (the cover board lies beneath it).
    public static func drop(stack thickness: Double) -> Double {
        let t = max(thickness, 0)
        return 0.45 * t + min(1.5, 0.45 * t)
    }

    /// The drop of a page on a stack `thickness` units thick facing one `facing` thick across
    /// the spine: the binding pulls hardest where both halves are thick, so the gutter is
    /// deepest (and the arch highest) in the middle of a thick book and the pages near its
    /// ends lie flatter, the thin side flattest. A smooth function of both stacks, so a jump's
    /// stacks changing continuously change it continuously; never more than 0.9 of the stack.
    public static func drop(stack thickness: Double, facing: Double) -> Double {
        let a = max(thickness, 0), b = max(facing, 0)
        let both = a + b > 0 ? 2 * a * b / (a + b) : 0
        return min(0.9 * a, drop(stack: 0.3 * a + both))
    }

    /// The profile: 1 at the spine, 0 from `width` of the page on, with no kink where it ends
    /// (zero slope there). `s` is across the page from the spine, 0 … 1.
    public static func profile(_ s: Double) -> Double {
        let u = clamp(1 - abs(s) / width, 0, 1)
        return u * u
    }

    /// How high a page with `drop` arches at its fore edge: in proportion to the drop, about 2
    /// units on the thin stacks of a short book, 26 in the middle of a 400-page one, 19 on its
    /// thick side (up to 7 % of the page width, as an open paperback's pages). Proportional, so
    /// one sheet moving between the stacks changes it by at most 0.6 units (0.15 in the middle
    /// of a thick book): a turn's static stacks, drawn a sheet thinner or thicker than at rest, stay
    /// within a small fraction of a pixel of the rest at both ends (docs/engineering-notes.md).
    /// Odd and smooth, so a sheet whose drop passes through zero as it turns flattens and
    /// arches again continuously.
    public static func arch(drop: Double) -> Double {
        archScale * drop
    }

    /// `arch`'s scale, units of height per unit of drop (Shaders/arch.glsl's ARCH).
    public static let archScale = 2.0

    /// The arch's profile: 0 at the spine, rising to 1 at the fore edge with zero slope there,
    /// `s` across the page from the spine (0 … 1; beyond, 1). page.vert draws it along the
    /// chords between `columns`, as a resting page's mesh does (within 2 % of the arch).
    public static func rise(_ s: Double) -> Double {
        let a = clamp(abs(s), 0, 1)
        return a * (2 - a)
    }

    /// Local height change of a page at deformed position `x` (local units across from the
    /// spine; negative on the other side) for a page `pageWidth` wide with `drop` (own side,
    /// other side): the page's local z goes down by this much (up, where it arches).
    public static func offset(x: Double, pageWidth: Double, drop: Vec2) -> Double {
        let d = x >= 0 ? drop.x : drop.y, s = x / max(pageWidth, 1e-9)
        return d * profile(s) - arch(drop: d) * rise(s)
    }

    /// The rate `offset` changes with x, on x's own side (at the spine, the page's own side).
    public static func slope(x: Double, pageWidth: Double, drop: Vec2) -> Double {
        let d = x >= 0 ? drop.x : drop.y, w = max(pageWidth, 1e-9)
        let u = profile(x / w).squareRoot(), s = clamp(abs(x) / w, 0, 1)
        return (x >= 0 ? -1 : 1) * (2 * d * u / (width * w) + 2 * arch(drop: d) * (1 - s) / w)
    }
}
