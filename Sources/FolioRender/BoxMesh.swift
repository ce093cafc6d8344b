/// A unit box (s, t, k) ∈ [0, 1]³ with face normals: a page block or a board. The bottom shows
/// on a closed book's front board, around its cover.
enum BoxMesh {
    /// A mesh of the box: positions and normals. The faces that span s are cut at `columns`
    /// (fractions of s, from 0 to 1), so a block's top can follow the gutter's curve.
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
        let cuts = columns.map(Float.init)
        var data: [Float] = []
        for (corners, n) in faces {
            // A face at one s (the spine side, the fore edge) is one quad; the others one per column.
            let spans = Set(corners.map(\.x)).count > 1
            for (a, b) in spans ? Array(zip(cuts, cuts.dropFirst())) : [(0, 1)] {
                for i in [0, 1, 2, 0, 2, 3] {
                    var c = corners[i]
                    if spans { c.x = c.x == 0 ? a : b }
                    data += [c.x, c.y, c.z, n.x, n.y, n.z]
                }
            }
        }
        let mesh = TriangleMesh(components: [3, 3])
        mesh.upload(data)
        return mesh
    }
}
