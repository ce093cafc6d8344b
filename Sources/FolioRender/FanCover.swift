import FolioLayout
import FolioMath

/// How much of each fanned page lies under a page nearer the reader on its side of the spine.
/// A software renderer pays for every pixel of every page it rasterises, shaded or rejected by
/// depth, and in a fan most of a page lies under the next one up: the renderer draws each page
/// only from where it can show (page.vert's `uFrom`). Found through the camera, so any view,
/// orientation or zoom; a point counts as covered only well inside the covering page (its
/// antialiased rim blends over what is beneath) and in front of it, and a page whose head or
/// tail shows past the one above is not cut there.
///
/// Does not: cut curved, bent or translucent pages, or a page by one on the other side.
enum FanCover {
    /// Pixels a point must lie inside the covering page's outline to count as covered.
    static let margin = 4.0

    /// For the index of each fanned page in `items` whose band next to the spine is covered,
    /// the fraction of its width that band spans.
    static func hidden(_ items: [SceneItem], viewProjection: Mat4, viewport: Vec2) -> [Int: Double] {
        let flat = items.indices.filter { i in
            let f = items[i]
            return f.ratio != nil && (f.kind == .page || f.kind == .cover) && f.deformation == .flat && f.gutterDrop == .zero
                && f.opacity >= 1 && f.visible
        }
        var out: [Int: Double] = [:]
        for b in flat {
            let below = items[b], rb = below.ratio ?? 0
            var cut = 0.0
            for a in flat where a != b {
                let above = items[a], ra = above.ratio ?? 0
                guard ra * rb > 0, abs(ra) < abs(rb) else { continue }
                cut = max(cut, covered(below, by: above, viewProjection: viewProjection, viewport: viewport))
            }
            if cut > 0.05 { out[b] = cut }
        }
        return out
    }

    /// The fraction of `below`'s width from its spine edge that `above` covers at every height.
    static func covered(_ below: SceneItem, by above: SceneItem, viewProjection: Mat4, viewport: Vec2) -> Double {
        let mb = viewProjection * below.model, ma = viewProjection * above.model
        let width = below.size.x
        var cut = width
        for t in [-0.5, -0.25, 0, 0.25, 0.5] {
            let l = t * below.size.y
            // Bisect for the furthest point across this height that is covered (covering
            // shrinks as the point moves out: the band from the spine is convex).
            // At its head and tail the page meets the one above at the spine: there a point
            // need only lie inside it (the two rims blend there as before).
            let edge = abs(t) == 0.5
            var lo = 0.0, hi = width
            guard isCovered(Vec2(0.02 * width, l), mb, by: above, ma, viewport: viewport, edge: edge) else { return 0 }
            for _ in 0..<16 {
                let mid = (lo + hi) / 2
                if isCovered(Vec2(mid, l), mb, by: above, ma, viewport: viewport, edge: edge) { lo = mid } else { hi = mid }
            }
            cut = min(cut, lo)
        }
        return cut / width
    }

    /// Whether the point `p` (local a, l) of the page `mb` places lies well inside `above`'s
    /// outline on screen (`edge`: at its head or tail, inside it) and behind it.
    static func isCovered(_ p: Vec2, _ mb: Mat4, by above: SceneItem, _ ma: Mat4, viewport: Vec2, edge: Bool) -> Bool {
        let clip = mb * Vec4(p.x, p.y, 0, 1)
        guard clip.w > 0 else { return false }
        let ndc = Vec3(clip.x / clip.w, clip.y / clip.w, clip.z / clip.w)
        // The point of `above`'s plane seen at the same place: its projection is a homography.
        let (c0, c1, c3) = (ma[column: 0], ma[column: 1], ma[column: 3])
        let m00 = c0.x - ndc.x * c0.w, m01 = c1.x - ndc.x * c1.w, r0 = ndc.x * c3.w - c3.x
        let m10 = c0.y - ndc.y * c0.w, m11 = c1.y - ndc.y * c1.w, r1 = ndc.y * c3.w - c3.y
        let det = m00 * m11 - m01 * m10
        guard abs(det) > 1e-12 else { return false }
        let q = Vec2((r0 * m11 - m01 * r1) / det, (m00 * r1 - m10 * r0) / det)
        let qc = ma * Vec4(q.x, q.y, 0, 1)
        guard qc.w > 0, qc.z / qc.w < ndc.z else { return false }
        // Pixels per unit across and along `above` there, for the margin.
        func pixels(_ d: Vec2) -> Double {
            let e = ma * Vec4(q.x + d.x, q.y + d.y, 0, 1)
            let dx = (e.x / e.w - qc.x / qc.w) * viewport.x / 2, dy = (e.y / e.w - qc.y / qc.w) * viewport.y / 2
            return (dx * dx + dy * dy).squareRoot()
        }
        let across = pixels(Vec2(1, 0)), along = pixels(Vec2(0, 1))
        return q.x >= 0 && (above.size.x - q.x) * across >= margin && (above.size.y / 2 - abs(q.y)) * along >= (edge ? 0 : margin)
    }
}
