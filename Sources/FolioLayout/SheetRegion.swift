import FolioMath

/// Which part of a turning sheet a mesh covers. A turning sheet's inside is drawn without the
/// edge terms and its rim with them (the renderer's `insideInset`): the two meet without a
/// crack, as every mesh here holds the same vertices along an edge two of its rectangles share.
public enum SheetRegion: Hashable, Sendable {
    /// The page grown by `margin` past its free edges (the top, the bottom and the fore edge).
    case whole(margin: Double)
    /// The page shrunk from its free edges by `inset`: x from the fore edge, y from the top and
    /// the bottom.
    case inside(inset: Vec2)
    /// The page grown by `margin` less its inside shrunk by `inset`.
    case rim(inset: Vec2, margin: Double)

    public var isInside: Bool {
        if case .inside = self { return true }
        return false
    }

    /// Rectangles covering the region, counter-clockwise; where two meet, they share a whole
    /// edge (so `CurlStrips.clip` cuts both at the same points).
    func rectangles(size: Vec2) -> [[Vec2]] {
        let w = size.x, h = size.y / 2
        func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [Vec2] {
            [Vec2(x0, y0), Vec2(x1, y0), Vec2(x1, y1), Vec2(x0, y1)]
        }
        switch self {
        case let .whole(m): return [rect(0, -h - m, w + m, h + m)]
        case let .inside(i): return [rect(0, i.y - h, w - i.x, h - i.y)]
        case let .rim(i, m):
            let (wi, hi, wo, ho) = (w - i.x, h - i.y, w + m, h + m)
            return [rect(0, hi, wi, ho), rect(wi, hi, wo, ho), rect(wi, -hi, wo, hi), rect(0, -ho, wi, -hi), rect(wi, -ho, wo, -hi)]
        }
    }

    /// The region of a flat or cone-bent sheet as triangles in unit coordinates (page.vert's
    /// `aGrid`, outside 0 … 1 on a margin): its rectangles cut into cells at `columns`
    /// (fractions of the width from the spine, in any order) and at `rows` equal rows, so the
    /// sheet bends there as a grid of that size does. A cell's corners are the cuts' own
    /// values, so rectangles that share an edge share its vertices. Built every frame a sheet
    /// turns, into one array reserved per rectangle.
    public func cells(size: Vec2, columns: [Double], rows: Int) -> [Vec2] {
        let xs = Set(columns).sorted().map { $0 * size.x }
        let ys = (1..<max(rows, 1)).map { (Double($0) / Double(max(rows, 1)) - 0.5) * size.y }
        let unit = { (x: Double, y: Double) in Vec2(x / size.x, y / size.y + 0.5) }
        var out: [Vec2] = []
        for r in rectangles(size: size) {
            let (x0, y0, x1, y1) = (r[0].x, r[0].y, r[2].x, r[2].y)
            let across = [x0] + xs.filter { $0 > x0 && $0 < x1 } + [x1]
            let along = [y0] + ys.filter { $0 > y0 && $0 < y1 } + [y1]
            out.reserveCapacity(out.count + 6 * (across.count - 1) * (along.count - 1))
            for (ya, yb) in zip(along, along.dropFirst()) {
                for (xa, xb) in zip(across, across.dropFirst()) {
                    let (a, b, c, d) = (unit(xa, ya), unit(xb, ya), unit(xb, yb), unit(xa, yb))
                    out.append(contentsOf: [a, b, c, a, c, d])
                }
            }
        }
        return out
    }
}
