/// A unit box (s, t, k) ∈ [0, 1]³ with face normals: a page block or a board. The bottom shows
/// on a closed book's front board, around its cover.
enum BoxMesh {
    /// Cut marks block.vert moves to where a shut book's board is hollowed (`uHollow`): the
    /// inner edges of the band round its top and bottom that shows past the block and the
    /// cover; elsewhere onto the box's
    /// edges, where the cells they bound have no area. Powers of two, so they reach the shader
    /// exactly.
    static let hollowLow: Float = 1.0 / 512
    static let hollowHigh: Float = 1 - 1.0 / 512

    /// A mesh of the box: positions and normals. The faces that span s are cut at `columns`
    /// (fractions of s, from 0 to 1), so a block's top can follow the gutter's curve; every
    /// face is also cut at the hollow's marks along s and t, the same on faces that share an
    /// edge (no vertex of one lies inside an edge of another). The cells of the top and the bottom
    /// inside the marks carry their normal doubled: block.vert drops them for a hollow board (a
    /// shut book's board turns its top to the block, and its bottom to the cover lying on it or
    /// to the desk).
    static func make(columns: [Double] = [0, 1]) -> TriangleMesh {
        // Each face: two triangles, counter-clockwise seen from outside; k grows downwards (−z).
        let faces: [([SIMD3<Float>], SIMD3<Float>)] = [
            ([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [0, 0, 1]),   // top
            ([[0, 0, 1], [1, 0, 1], [1, 0, 0], [0, 0, 0]], [0, -1, 0]),  // bottom edge (t = 0)
            ([[1, 1, 1], [0, 1, 1], [0, 1, 0], [1, 1, 0]], [0, 1, 0]),   // top edge (t = 1)
            ([[1, 0, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0]], [1, 0, 0]),   // fore edge (s = 1)
            ([[0, 1, 1], [0, 0, 1], [0, 0, 0], [0, 1, 0]], [-1, 0, 0]),  // spine side
            ([[0, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1]], [0, 0, -1]),  // bottom
        ]
        let marks = [0, hollowLow, hollowHigh, 1]
        let sCuts = Set(columns.map(Float.init) + marks).sorted()
        func spans(_ cuts: [Float]) -> [(Float, Float)] { Array(zip(cuts, cuts.dropFirst())) }
        var data: [Float] = []
        for (corners, n) in faces {
            // A face spans s, t or both; along each it is cut at that axis's cuts.
            let acrossS = Set(corners.map(\.x)).count > 1, acrossT = Set(corners.map(\.y)).count > 1
            for (s0, s1) in acrossS ? spans(sCuts) : [(0, 1)] {
                for (t0, t1) in acrossT ? spans(marks) : [(0, 1)] {
                    let hollow = n.z != 0 && s0 >= hollowLow && s1 <= hollowHigh && t0 >= hollowLow && t1 <= hollowHigh
                    for i in [0, 1, 2, 0, 2, 3] {
                        var c = corners[i]
                        if acrossS { c.x = c.x == 0 ? s0 : s1 }
                        if acrossT { c.y = c.y == 0 ? t0 : t1 }
                        let m = hollow ? n * 2 : n
                        data += [c.x, c.y, c.z, m.x, m.y, m.z]
                    }
                }
            }
        }
        let mesh = TriangleMesh(components: [3, 3])
        mesh.upload(data)
        return mesh
    }
}

extension BoxMesh {
    /// The fringe strips along the box's twelve edges (edge.vert): for each stretch of an edge,
    /// and for each of the two faces that meet there, two triangles whose vertices carry the
    /// stretch's end (`aBox`), its other end, the face's normal and the other face's, and 0 on
    /// the strip's inner side or 1 on its outer. The shader keeps the strips of edges on the
    /// outline, each shaded as the face that shows. The top's edges along s are cut at
    /// `columns`, where it bends into the gutter (a box whose top does not bend is drawn with
    /// none).
    static func edges(columns: [Double] = [0, 1]) -> TriangleMesh {
        // Where an edge runs along s, t or k, it lies between two faces: (fixed coordinates, normals).
        var edges: [(SIMD3<Float>, SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)] = []
        let sides: [Float] = [0, 1]
        // A face's normal from the coordinate it fixes: k grows downwards, so k = 0 is the top.
        func normal(_ axis: Int, _ at: Float) -> SIMD3<Float> {
            var n = SIMD3<Float>(repeating: 0)
            n[axis] = axis == 2 ? (at == 0 ? 1 : -1) : (at == 0 ? -1 : 1)
            return n
        }
        let sCuts = Set(columns.map(Float.init) + [0, 1]).sorted()
        for a in sides {
            for b in sides {
                // Only the top bends (its foot stays on the board): the bottom's edges are straight.
                let cuts = b == 0 ? sCuts : [0, 1]
                for (s0, s1) in zip(cuts, cuts.dropFirst()) {
                    edges.append(([s0, a, b], [s1, a, b], normal(1, a), normal(2, b)))
                }
                edges.append(([a, 0, b], [a, 1, b], normal(0, a), normal(2, b)))
                edges.append(([a, b, 0], [a, b, 1], normal(0, a), normal(1, b)))
            }
        }
        var data: [Float] = []
        for (p, q, n, m) in edges {
            for (face, beyond) in [(n, m), (m, n)] {
                for (end, out) in [(p, 0), (q, 0), (q, 1), (p, 0), (q, 1), (p, 1)] as [(SIMD3<Float>, Float)] {
                    let other = end == p ? q : p
                    data += [end.x, end.y, end.z, other.x, other.y, other.z, face.x, face.y, face.z, beyond.x, beyond.y, beyond.z, out]
                }
            }
        }
        let mesh = TriangleMesh(components: [3, 3, 3, 3, 1])
        mesh.upload(data)
        return mesh
    }
}
