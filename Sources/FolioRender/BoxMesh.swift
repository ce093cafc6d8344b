/// A unit box (s, t, k) ∈ [0, 1]³ with face normals: a page block or a board. The bottom shows
/// on a closed book's front board, around its cover.
enum BoxMesh {
    /// A mesh of the box: positions and normals.
    static func make() -> TriangleMesh {
        // Each face: two triangles, counter-clockwise seen from outside; k grows downwards (−z).
        let faces: [([SIMD3<Float>], SIMD3<Float>)] = [
            ([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [0, 0, 1]),   // top
            ([[0, 0, 1], [1, 0, 1], [1, 0, 0], [0, 0, 0]], [0, -1, 0]),  // bottom edge (t = 0)
            ([[1, 1, 1], [0, 1, 1], [0, 1, 0], [1, 1, 0]], [0, 1, 0]),   // top edge (t = 1)
            ([[1, 0, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0]], [1, 0, 0]),   // fore edge (s = 1)
            ([[0, 1, 1], [0, 0, 1], [0, 0, 0], [0, 1, 0]], [-1, 0, 0]),  // spine side
            ([[0, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1]], [0, 0, -1]),  // bottom
        ]
        var data: [Float] = []
        for (corners, n) in faces {
            for i in [0, 1, 2, 0, 2, 3] {
                let c = corners[i]
                data += [c.x, c.y, c.z, n.x, n.y, n.z]
            }
        }
        let mesh = TriangleMesh(components: [3, 3])
        mesh.upload(data)
        return mesh
    }
}
