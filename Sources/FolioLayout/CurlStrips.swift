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
        let all = region.rectangles(size: size).flatMap { pieces(of: $0, size: size, curl: curl, strips: strips, gutter: gutter) }
        return zip(sealed(all.map(\.polygon)), all).map { ($0, $1.flat) }
    }

    /// The polygons with every vertex of another that lies within one of their edges put into
    /// that edge. The gutter's cuts part the flat pieces, not the bent strips beside them: where
    /// a cut meets the fold, the flat side had a vertex the strip's edge ran past (a T-junction),
    /// and rounding let single pixels of what lies beneath show through along the fold (at
    /// 1080p, 7 in a curl at turn 0.4). A vertex put in is in line with its edge: a triangle of
    /// it and the edge's ends has no area and draws nothing.
    static func sealed(_ polygons: [[Vec2]]) -> [[Vec2]] {
        // Each vertex once, sorted by x: an edge looks only at those within its span of x.
        let vertices = Set(polygons.flatMap { $0.map { [$0.x, $0.y] } }).map { Vec2($0[0], $0[1]) }.sorted { $0.x < $1.x }
        let xs = vertices.map(\.x)
        return polygons.map { poly in
            var out: [Vec2] = []
            out.reserveCapacity(poly.count + 2)
            for (i, p) in poly.enumerated() {
                out.append(p)
                let q = poly[(i + 1) % poly.count], d = q - p, length2 = (d * d).sum()
                guard length2 > 0 else { continue }
                // As far off the edge as "in line" allows.
                let slack = 1e-6 * length2.squareRoot() + 1e-9
                let (lo, hi) = (min(p.x, q.x) - slack, max(p.x, q.x) + slack)
                var k = xs.partitioningIndex { $0 >= lo }
                var within: [(Double, Vec2)] = []
                while k < xs.count, xs[k] <= hi {
                    // Within the edge: in line with it (to a millionth of its length) and between its ends.
                    let v = vertices[k], t = ((v - p) * d).sum() / length2, off = (v - p).x * d.y - (v - p).y * d.x
                    if t > 1e-9, t < 1 - 1e-9, off * off <= 1e-12 * length2 * length2 { within.append((t, v)) }
                    k += 1
                }
                if !within.isEmpty { out += within.sorted { $0.0 < $1.0 }.map(\.1) }
            }
            return out
        }
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
            // A vertex put into an edge (`sealed`) lies in line with its neighbours: a fan from a
            // corner would pass it by with a chord, which the gutter's curve bends away from the
            // neighbour's edge through that vertex (a crack of single pixels along a slanted
            // fold). Such a polygon is fanned from its centroid: each of its edges is a triangle's.
            if hasVertexInLine(poly) {
                let centre = unit.reduce(Vec2.zero, +) / Double(unit.count)
                for i in unit.indices { out += [centre, unit[i], unit[(i + 1) % unit.count]] }
            } else {
                for i in 1..<(unit.count - 1) { out += [unit[0], unit[i], unit[i + 1]] }
            }
        }
        return out
    }

    /// Whether some vertex of `poly` lies in line with the two beside it.
    static func hasVertexInLine(_ poly: [Vec2]) -> Bool {
        poly.indices.contains { i in
            let a = poly[(i + poly.count - 1) % poly.count], b = poly[i], c = poly[(i + 1) % poly.count]
            let u = b - a, v = c - b, cross = u.x * v.y - u.y * v.x
            return cross * cross <= 1e-12 * (u * u).sum() * (v * v).sum()
        }
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

extension Array where Element == Double {
    /// The first index whose element meets `belongs` in an array sorted so that those that do
    /// come last (a binary search); `count` when none does.
    func partitioningIndex(where belongs: (Double) -> Bool) -> Int {
        var (lo, hi) = (0, count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if belongs(self[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
