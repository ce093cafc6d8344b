import FolioMath

/// A mesh for the cylinder curl cut along the fold: the page rectangle split into strips
/// parallel to the fold line. A cylinder's generators are straight, so flat regions need one
/// polygon each and the rolled band only as many strips as make the arc smooth: a few hundred
/// triangles where a uniform grid needs thousands for the same smoothness.
public enum CurlStrips {
    /// Convex polygons, counter-clockwise in the page's local frame (a across from the spine,
    /// l along it), covering `region` of the page: the flat part, `strips` bands over the
    /// cylinder (as far round as the curl's wrap), and the flat part past it. With `gutter`,
    /// the flat parts are cut where they lie over the gutter's curve (`GutterCurve.columns`, on
    /// either side of the spine), so it bends there (a soft shadow does without: each cut costs
    /// fill on a software renderer).
    public static func polygons(size: Vec2, curl: Deformation.Curl, strips: Int, region: SheetRegion = .whole(margin: 0),
                                gutter: Bool = true) -> [[Vec2]] {
        pieces(size: size, curl: curl, strips: strips, region: region, gutter: gutter).map(\.polygon)
    }

    /// The polygons, each with whether it lies flat: in the page's plane or face down parallel
    /// to it (the part before the fold or past the roll, turned by none or all of half a turn).
    static func pieces(size: Vec2, curl: Deformation.Curl, strips: Int, region: SheetRegion,
                       gutter: Bool) -> [(polygon: [Vec2], flat: Bool)] {
        region.rectangles(size: size).flatMap { pieces(of: $0, size: size, curl: curl, strips: strips, gutter: gutter) }
    }

    /// The pieces of one convex polygon of the page.
    private static func pieces(of page: [Vec2], size: Vec2, curl: Deformation.Curl, strips: Int,
                               gutter: Bool) -> [(polygon: [Vec2], flat: Bool)] {
        let arc = curl.wrap * curl.radius
        var cuts = [-Double.infinity]
        let n = max(strips, 1)
        for i in 0...n { cuts.append(arc * Double(i) / Double(n)) }
        cuts.append(.infinity)
        var out: [(polygon: [Vec2], flat: Bool)] = []
        for (lo, hi) in zip(cuts, cuts.dropFirst()) {
            // Seen as a page at rest is where the sheet lies in the page's plane or face down.
            let angle = curl.rotation + (lo.isFinite ? curl.wrap : 0)
            let flat = (!lo.isFinite || !hi.isFinite) && (angle <= 1e-9 || angle >= .pi - 1e-9)
            // Distance past the fold line, the deformation's own measure.
            let distance = { (p: Vec2) in ((p - curl.point) * curl.direction).sum() }
            var poly = page
            if lo.isFinite { poly = clip(poly) { distance($0) - lo } }
            if hi.isFinite { poly = clip(poly) { hi - distance($0) } }
            guard poly.count >= 3 else { continue }
            // Where each flat part lies across the spine: the page's own a, or for the part
            // turned over on top its mirror across the line it folds back on.
            let across: ((Vec2) -> Double)? = !lo.isFinite ? { $0.x }
                : !hi.isFinite ? { $0.x - curl.direction.x * (2 * distance($0) - arc) } : nil
            guard gutter, let across else {
                out.append((poly, flat))
                continue
            }
            var pieces = [poly]
            for c in GutterCurve.columns where c < 1 {
                for cut in c > 0 ? [c * size.x, -c * size.x] : [0] {
                    pieces = pieces.flatMap { piece in
                        [clip(piece) { across($0) - cut }, clip(piece) { cut - across($0) }].filter { isProper($0) }
                    }
                }
            }
            out += pieces.map { ($0, flat) }
        }
        return out
    }

    /// The polygons as a triangle list in unit coordinates (s = a / width, t = l / height + ½),
    /// the vertex input of `Shaders/page.vert` (outside 0 … 1 on the margin).
    public static func triangles(size: Vec2, curl: Deformation.Curl, strips: Int, region: SheetRegion = .whole(margin: 0),
                                 gutter: Bool = true) -> [Vec2] {
        unitTriangles(polygons(size: size, curl: curl, strips: strips, region: region, gutter: gutter), size: size)
    }

    /// The triangles parted into those lying flat (in the page's plane or face down parallel
    /// to it: seen as a page at rest is) and the bent rest (the roll; a flap standing up).
    public static func parts(size: Vec2, curl: Deformation.Curl, strips: Int, region: SheetRegion = .whole(margin: 0),
                             gutter: Bool = true) -> (flat: [Vec2], bent: [Vec2]) {
        let all = pieces(size: size, curl: curl, strips: strips, region: region, gutter: gutter)
        return (unitTriangles(all.filter(\.flat).map(\.polygon), size: size),
                unitTriangles(all.filter { !$0.flat }.map(\.polygon), size: size))
    }

    private static func unitTriangles(_ polygons: [[Vec2]], size: Vec2) -> [Vec2] {
        var out: [Vec2] = []
        for poly in polygons {
            let unit = poly.map { Vec2($0.x / size.x, $0.y / size.y + 0.5) }
            for i in 1..<(unit.count - 1) { out += [unit[0], unit[i], unit[i + 1]] }
        }
        return out
    }

    /// Signed area of a polygon (positive counter-clockwise).
    public static func area(_ poly: [Vec2]) -> Double {
        poly.indices.map { i in
            let p = poly[i], q = poly[(i + 1) % poly.count]
            return p.x * q.y - q.x * p.y
        }.reduce(0, +) / 2
    }

    /// Whether a polygon has an area (a cut through one of its vertices leaves a sliver of none).
    static func isProper(_ poly: [Vec2]) -> Bool { poly.count >= 3 && area(poly) > 1e-9 }

    /// Sutherland–Hodgman: the part of a convex polygon where `inside` is ≥ 0. An edge is cut
    /// from its lesser end (x, then y), so two polygons that share it are cut at the same point
    /// to the bit, whichever way each runs along it: no crack between them.
    static func clip(_ poly: [Vec2], inside: (Vec2) -> Double) -> [Vec2] {
        var out: [Vec2] = []
        for (i, p) in poly.enumerated() {
            let q = poly[(i + 1) % poly.count]
            let dp = inside(p), dq = inside(q)
            if dp >= 0 { out.append(p) }
            guard (dp >= 0) != (dq >= 0) else { continue }
            let (a, b, da, db) = (p.x, p.y) < (q.x, q.y) ? (p, q, dp, dq) : (q, p, dq, dp)
            out.append(a + (b - a) * (da / (da - db)))
        }
        return out
    }
}
