#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioLayout
import FolioMath

/// What the renderer asks of an item's deformed surface on the CPU, before it draws: where its
/// normal turns and how its image's texels lie on it. Nothing here touches GL.
extension SceneItem {
    /// Whether some of the sheet lies within about 30° of the plane of a page placed by one of
    /// `pages`, its curve into the gutter aside: page.vert's `vLying` is 0 past 25°, and
    /// page.frag then leaves out the alignment of its texels with its rest (arithmetic a
    /// software renderer pays for on every pixel of the sheet). At a 17 × 9 grid of its points: a
    /// curl's or a cone's normal turns smoothly across it, so the grid's largest lies within
    /// the 5° to spare of the sheet's.
    func liesNear(_ pages: [Mat4]) -> Bool {
        let planes = pages.map { normalize($0.transformDirection(Vec3(0, 0, 1))) }
        guard !planes.isEmpty else { return false }
        let level = cos(30 * Double.pi / 180)
        return someNormal(columns: 16, rows: 8) { n in planes.contains { abs(dot(n, $0)) > level } }
    }

    /// Whether the sheet's rim may lie on `page`'s, as page.vert's shadow pass 2 finds it (its
    /// vRim above 0) at the vertices of the overlay's grid, `columns` × `rows` cells over the page:
    /// the sheet's same point within 4 pixels of the page's (`pixels`: world → screen) and level
    /// with it within 2.8°, each with a little to spare for rounding. A curl's roll turns through
    /// every angle but lies nowhere near the page, so this is far rarer than `liesNear`.
    func restsOnRim(of page: SceneItem, columns: Int, rows: Int, pixels: (Vec3) -> Vec2) -> Bool {
        let up = normalize(page.model.transformDirection(Vec3(0, 0, 1)))
        for j in 0...rows {
            for i in 0...columns {
                let p = Vec2(page.size.x * Double(i) / Double(columns), page.size.y * (Double(j) / Double(rows) - 0.5))
                let (q, n) = deformation.apply(p)
                let level = abs(dot(normalize(model.transformDirection(n)), up))
                let apart = pixels(model.project(q)) - pixels(page.model.project(Vec3(p.x, p.y, 0)))
                if level > 0.998, (apart * apart).sum() < 4.5 * 4.5 { return true }
            }
        }
        return false
    }

    /// Which cells of a `columns` × `rows` grid over `page` (its plane, its curve aside) this
    /// sheet darkens by half a level or more: `strength` plus `ambient` times the share of the
    /// sky it hides, as page.vert's shadow pass 2 finds it at the overlay grid's vertices
    /// (`occlusion`: the highest elevation, across the spine, of 13 points of the sheet's row
    /// level with the vertex). A cell's darkening lies between its corners', so a cell left
    /// out would have multiplied the page by exactly 1 (a little under half a level to spare
    /// for the shader's single precision). By row from the tail, by column from the spine.
    func darkenedCells(of page: SceneItem, columns: Int, rows: Int, strength: Double, ambient: Double) -> [[Bool]] {
        let spine = model.project(.zero)
        let axis = model.transformDirection(Vec3(0, 1, 0))
        let unit = max(length(axis), 1e-12)
        let along = axis / unit
        // The sheet's row level with a vertex: the same for every vertex of a row of the page.
        var row: (l: Double, points: [Vec3])?
        func darkening(_ i: Int, _ j: Int) -> Double {
            let local = Vec2(page.size.x * Double(i) / Double(columns), page.size.y * (Double(j) / Double(rows) - 0.5))
            let onPage = page.model.project(Vec3(local.x, local.y, 0))
            let p = Vec3(onPage.x, onPage.y, max(onPage.z, spine.z))
            let l = clamp(dot(p - spine, along) / unit, -0.5 * size.y, 0.5 * size.y)
            if row?.l != l { row = (l, (0...12).map { model.project(deformation.apply(Vec2(size.x * Double($0) / 12, l)).position) }) }
            let w = spine - p
            var towards = Vec2(w.x - along.x * dot(w, along), w.y - along.y * dot(w, along))
            towards = towards / max((towards * towards).sum().squareRoot(), 1e-4)
            var highest = 0.0
            for q in row?.points ?? [] {
                let v = q - p, flat = Vec2(v.x, v.y)
                let across = (flat * flat).sum().squareRoot() * ((flat * towards).sum() >= 0 ? 1 : -1)
                if v.z > 0.01 { highest = max(highest, atan2(v.z, across)) }
            }
            return strength + ambient * 0.5 * (1 - cos(highest))
        }
        let grid = (0...rows).map { j in (0...columns).map { i in darkening(i, j) } }
        let least = 0.4 / 255
        return (0..<rows).map { j in
            (0..<columns).map { i in
                let low = max(grid[j][i], grid[j][i + 1]), high = max(grid[j + 1][i], grid[j + 1][i + 1])
                return max(low, high) >= least
            }
        }
    }

    /// Texels per layout unit across and along the face, for an image `texels` wide and high
    /// placed on it by `map` (the face's own image's by default).
    func texelAxes(texels: Vec2, map: UVMap? = nil) -> (across: Vec2, along: Vec2) {
        let m = map ?? uv
        return (Vec2(m.du.x * texels.x, m.du.y * texels.y) / max(size.x, 1e-9),
                Vec2(m.dt.x * texels.x, m.dt.y * texels.y) / max(size.y, 1e-9))
    }

    /// Whether the deformed face's unit world normal (its front's) passes `test` at some point
    /// of a grid over it, `columns` steps across from the spine and `rows` from tail to head.
    func someNormal(columns: Int, rows: Int, _ test: (Vec3) -> Bool) -> Bool {
        for j in 0...rows {
            for i in 0...columns {
                let p = Vec2(size.x * Double(i) / Double(columns), size.y * (Double(j) / Double(rows) - 0.5))
                let n = model.transformDirection(deformation.apply(p).normal)
                if test(n / max(length(n), 1e-9)) { return true }
            }
        }
        return false
    }

    /// The rectangle of this desk shadow (vLocal's units: desk.vert) that `cover` hides on
    /// screen, `inset` in from the cover's edges as its inside's depth is (`drawDepthOfInsides`):
    /// each corner of the cover's inset rectangle taken back to the shadow's plane through its
    /// pixel (the shadow pushed from the light by `shift`, as desk.vert pushes a shut book's),
    /// the largest upright rectangle between the four (the planes are near parallel, so it is
    /// nearly all of it). Nil when it leaves too little to pay for the ring's extra cells.
    func hiddenUnder(_ cover: SceneItem, inset: Double, shift: Vec2, viewProjection: Mat4) -> (low: Vec2, high: Vec2)? {
        let a = viewProjection * .translation(-shift.x, -shift.y, 0) * model, b = viewProjection * cover.model
        let (x, y, w) = (0, 1, 3)
        func at(_ m: Mat4, _ r: Int, _ c: Int) -> Double {
            switch c { case 0: m.columns.0[r]; case 1: m.columns.1[r]; default: m.columns.3[r] }
        }
        // The point p of the shadow's plane (z = 0) whose clip position divides to `s`: two
        // linear equations in p.
        func back(_ s: Vec2) -> Vec2? {
            let m00 = at(a, x, 0) - s.x * at(a, w, 0), m01 = at(a, x, 1) - s.x * at(a, w, 1)
            let m10 = at(a, y, 0) - s.y * at(a, w, 0), m11 = at(a, y, 1) - s.y * at(a, w, 1)
            let r0 = s.x * at(a, w, 3) - at(a, x, 3), r1 = s.y * at(a, w, 3) - at(a, y, 3)
            let det = m00 * m11 - m01 * m10
            guard abs(det) > 1e-12 else { return nil }
            return Vec2((r0 * m11 - m01 * r1) / det, (m00 * r1 - r0 * m10) / det)
        }
        let half = cover.size.y / 2 - inset
        let corners = [Vec2(inset, -half), Vec2(cover.size.x - inset, -half), Vec2(inset, half), Vec2(cover.size.x - inset, half)]
        let found = corners.compactMap { q -> Vec2? in
            let c = b * Vec4(q.x, q.y, 0, 1)
            return c.w > 0 ? back(Vec2(c.x / c.w, c.y / c.w)) : nil
        }
        guard found.count == 4 else { return nil }
        // The middle two of the four, across and along: inside the quadrilateral they span.
        let xs = found.map(\.x).sorted(), ys = found.map(\.y).sorted()
        let low = Vec2(xs[1], ys[1]), high = Vec2(xs[2], ys[2])
        return high.x - low.x > 0.1 * size.x && high.y - low.y > 0.1 * size.y ? (low, high) : nil
    }
}
