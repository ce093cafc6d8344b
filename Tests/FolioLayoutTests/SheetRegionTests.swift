import FolioMath
@testable import FolioLayout
import Testing

/// A turning sheet's inside and rim (`SheetRegion`) together cover what its whole mesh covers, and
/// where they meet, their polygons share each edge's ends to the bit: no crack can open
/// between the two draws.
struct SheetRegionTests {
    let size = Vec2(420, 600)

    static let curls = [
        Deformation.Curl(point: Vec2(300, 0), direction: Vec2(1, 0), radius: 40, wrap: .pi, rotation: 0),
        Deformation.Curl(point: Vec2(250, -80), direction: Vec2(0.8, -0.6), radius: 55, wrap: 2.4, rotation: 0.7),
        Deformation.Curl(point: Vec2(380, 250), direction: Vec2(0.6, 0.8), radius: 20, wrap: 1.1, rotation: 0.2),
    ]

    @Test(arguments: curls)
    func insideAndRimCoverTheWhole(_ curl: Deformation.Curl) {
        let area = { (region: SheetRegion) in
            CurlStrips.polygons(size: size, curl: curl, strips: 24, region: region).map(CurlStrips.area).reduce(0, +)
        }
        let whole = area(.whole(margin: 1.5)), parts = area(.inside(inset: Vec2(7, 5))) + area(.rim(inset: Vec2(7, 5), margin: 1.5))
        #expect(abs(whole - (size.x + 1.5) * (size.y + 3)) < 1e-6 * whole)
        #expect(abs(parts - whole) < 1e-6 * whole)
    }

    @Test(arguments: curls)
    func theirSharedEdgesEndAtTheSamePoints(_ curl: Deformation.Curl) {
        let inset = Vec2(7, 5)
        let key = { (p: Vec2) in [p.x, p.y] }
        let edges = { (polygons: [[Vec2]]) in
            Set(polygons.flatMap { poly in poly.indices.map { i in Set([key(poly[i]), key(poly[(i + 1) % poly.count])]) } })
        }
        let inside = CurlStrips.polygons(size: size, curl: curl, strips: 24, region: .inside(inset: inset))
        let rim = edges(CurlStrips.polygons(size: size, curl: curl, strips: 24, region: .rim(inset: inset, margin: 1.5)))
        let (w, h) = (size.x - inset.x, size.y / 2 - inset.y)
        var shared = 0
        for poly in inside {
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                // An edge on the inside's boundary (not the spine): the rim must hold it as it is.
                let onBoundary = (a.x == w && b.x == w) || (abs(a.y) == h && a.y == b.y)
                guard onBoundary, a != b else { continue }
                shared += 1
                let twin = rim.contains(Set([key(a), key(b)]))
                #expect(twin, "edge \(a) – \(b) of the inside has no twin in the rim")
            }
        }
        #expect(shared >= 3)
    }

    /// No vertex of a curl's mesh lies within another polygon's edge (a T-junction, where a
    /// crack of single pixels opens): where the gutter's cuts meet the fold, the bent strip beside
    /// the flat piece holds their vertex too. Corner grabs fold on a slant, across the gutter's cuts.
    @Test(arguments: curls + [Deformation.Curl(point: Vec2(120, 0), direction: Vec2(0.95, -0.31), radius: 30, wrap: 2.0, rotation: 0.3),
                              Deformation.Curl(point: Vec2(60, 100), direction: Vec2(0.9, 0.44), radius: 45, wrap: .pi, rotation: 0)]
                              + [0.2, 0.3, 0.4].compactMap { cornerCurl(at: $0) })
    func noVertexLiesWithinAnotherPolygonsEdge(_ curl: Deformation.Curl) {
        for region in [SheetRegion.whole(margin: 1.5), .inside(inset: Vec2(7, 5)), .rim(inset: Vec2(7, 5), margin: 1.5)] {
            let polygons = CurlStrips.polygons(size: size, curl: curl, strips: 24, region: region)
            let vertices = Set(polygons.flatMap { $0.map { [$0.x, $0.y] } }).map { Vec2($0[0], $0[1]) }
            var junctions = 0
            for poly in polygons {
                for i in poly.indices {
                    let p = poly[i], d = poly[(i + 1) % poly.count] - p, length2 = (d * d).sum()
                    guard length2 > 0 else { continue }
                    junctions += vertices.filter { v in
                        let t = ((v - p) * d).sum() / length2, off = (v - p).x * d.y - (v - p).y * d.x
                        return t > 1e-6 && t < 1 - 1e-6 && off * off <= 1e-10 * length2 * length2
                    }.count
                }
            }
            #expect(junctions == 0, "\(region): \(junctions) vertices within an edge")
            let area = polygons.map(CurlStrips.area).reduce(0, +)
            #expect(polygons.allSatisfy { CurlStrips.area($0) >= 0 } && area > 0)
        }
    }

    /// Every edge of every polygon is an edge of one of the triangles drawn: a vertex put into
    /// an edge is not passed by with a chord, which the gutter's curve would bend away from the
    /// polygon beside it (single pixels of what lies beneath showed along a corner's slanted fold).
    @Test(arguments: [0.2, 0.3, 0.4].compactMap { cornerCurl(at: $0) })
    func everyEdgeIsATrianglesEdge(_ curl: Deformation.Curl) {
        let size = Vec2(420, 600)
        var inLine = false
        for region in [SheetRegion.whole(margin: 1.5), .inside(inset: Vec2(7, 5)), .rim(inset: Vec2(7, 5), margin: 1.5)] {
            let polygons = CurlStrips.polygons(size: size, curl: curl, strips: 24, region: region)
            inLine = inLine || polygons.contains(where: CurlStrips.hasVertexInLine)
            let unit = { (p: Vec2) in [p.x / size.x, p.y / size.y + 0.5] }
            let t = CurlStrips.triangles(size: size, curl: curl, strips: 24, region: region).map { [$0.x, $0.y] }
            var edges = Set<[Double]>()
            for k in stride(from: 0, to: t.count, by: 3) {
                for (a, b) in [(t[k], t[k + 1]), (t[k + 1], t[k + 2]), (t[k + 2], t[k])] { edges.insert(a + b); edges.insert(b + a) }
            }
            let missing = polygons.flatMap { poly in poly.indices.map { unit(poly[$0]) + unit(poly[($0 + 1) % poly.count]) } }
                .filter { !edges.contains($0) }
            #expect(missing.isEmpty, "\(region): \(missing.count) polygon edges no triangle has")
        }
        #expect(inLine, "no vertex was put into an edge: the test shows nothing")
    }

    /// A flat or cone-bent sheet's cells: the inside's and the rim's areas add up to the whole,
    /// and every vertex of the rim on the inside's boundary is a vertex of the inside too (no
    /// T-junction, so no crack), whatever order the columns come in.
    @Test(arguments: [([0.4, 0.1, 0.7, 0.2, 1, 0], 1), ((0...40).map { Double($0) / 40 } + [0.05, 0.4, 0.7], 30)])
    func cellsMeetVertexToVertex(columns: [Double], rows: Int) {
        let (inset, margin) = (Vec2(9, 12), 1.5)
        let triangles = { (region: SheetRegion) in
            let t = region.cells(size: size, columns: columns, rows: rows).map { Vec2($0.x * size.x, ($0.y - 0.5) * size.y) }
            return stride(from: 0, to: t.count, by: 3).map { Array(t[$0..<$0 + 3]) }
        }
        let inside = triangles(.inside(inset: inset)), rim = triangles(.rim(inset: inset, margin: margin))
        #expect((inside + rim).allSatisfy { CurlStrips.area($0) > 0 }, "every cell counter-clockwise")
        let area = (inside + rim).map(CurlStrips.area).reduce(0, +), whole = (size.x + margin) * (size.y + 2 * margin)
        #expect(abs(area - whole) < 1e-6 * whole)
        let (w, h) = (size.x - inset.x, size.y / 2 - inset.y)
        let onBoundary = { (p: Vec2) in
            (abs(p.x - w) < 1e-9 && abs(p.y) <= h + 1e-9) || (abs(abs(p.y) - h) < 1e-9 && p.x <= w + 1e-9)
        }
        let insideVertices = Set(inside.flatMap { $0 }.map { [$0.x, $0.y] })
        let rimOnBoundary = Set(rim.flatMap { $0 }.filter(onBoundary).map { [$0.x, $0.y] })
        #expect(!rimOnBoundary.isEmpty && rimOnBoundary.isSubset(of: insideVertices),
                "rim vertices on the boundary that the inside lacks: \(rimOnBoundary.subtracting(insideVertices).count)")
    }
}

/// The curl a hand makes from the bottom corner at scripted progress `p` (a fold along a diagonal).
private func cornerCurl(at p: Double) -> Deformation.Curl? {
    let size = Vec2(420, 600), grab = Vec2(420, -300)
    guard case let .curl(c) = CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: p), size: size) else { return nil }
    return c
}
