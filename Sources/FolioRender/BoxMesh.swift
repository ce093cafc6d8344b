/// A unit box (s, t, k) ∈ [0, 1]³ with face normals: a page block or a board. The bottom shows
/// on a closed book's front board, around its cover.
enum BoxMesh {
    /// Cut marks block.vert moves to where a shut book's board is hollowed (`uHollow`): the
    /// inner edges of the band round its top that shows past the block; elsewhere onto the box's
    /// edges, where the cells they bound have no area. Powers of two, so they reach the shader
    /// exactly.
    static let hollowLow: Float = 1.0 / 512
    static let hollowHigh: Float = 1 - 1.0 / 512

    /// A mesh of the box: positions and normals. The faces that span s are cut at `columns`
    /// (fractions of s, from 0 to 1), so a block's top can follow the gutter's curve; every
    /// face is also cut at the hollow's marks along s and t, the same on faces that share an
    /// edge (no vertex of one lies inside an edge of another). The cells of the top (the face a
    /// board turns to its block) inside the marks carry their normal doubled: block.vert drops
    /// them for a hollow board.
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
                    let hollow = n.z > 0 && s0 >= hollowLow && s1 <= hollowHigh && t0 >= hollowLow && t1 <= hollowHigh
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
