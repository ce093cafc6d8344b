import COpenGL

/// The sides and top of a unit box (s, t, k) ∈ [0, 1]³ with face normals: a page block.
struct BoxMesh {
    let vao: GLuint
    let buffer: GLuint
    let vertexCount: Int

    init() {
        // Each face: two triangles, counter-clockwise seen from outside; k grows downwards (−z).
        let faces: [([SIMD3<Float>], SIMD3<Float>)] = [
            ([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [0, 0, 1]),   // top
            ([[0, 0, 1], [1, 0, 1], [1, 0, 0], [0, 0, 0]], [0, -1, 0]),  // bottom edge (t = 0)
            ([[1, 1, 1], [0, 1, 1], [0, 1, 0], [1, 1, 0]], [0, 1, 0]),   // top edge (t = 1)
            ([[1, 0, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0]], [1, 0, 0]),   // fore edge (s = 1)
            ([[0, 1, 1], [0, 0, 1], [0, 0, 0], [0, 1, 0]], [-1, 0, 0]),  // spine side
        ]
        var data: [Float] = []
        for (corners, n) in faces {
            for i in [0, 1, 2, 0, 2, 3] {
                let c = corners[i]
                data += [c.x, c.y, c.z, n.x, n.y, n.z]
            }
        }
        vertexCount = data.count / 6
        var v: GLuint = 0, b: GLuint = 0
        glGenVertexArrays(1, &v)
        glBindVertexArray(v)
        glGenBuffers(1, &b)
        glBindBuffer(E(GL_ARRAY_BUFFER), b)
        data.withUnsafeBytes { glBufferData(E(GL_ARRAY_BUFFER), $0.count, $0.baseAddress, E(GL_STATIC_DRAW)) }
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 3, E(GL_FLOAT), GLboolean(GL_FALSE), 24, nil)
        glEnableVertexAttribArray(1)
        glVertexAttribPointer(1, 3, E(GL_FLOAT), GLboolean(GL_FALSE), 24, UnsafeRawPointer(bitPattern: 12))
        glBindVertexArray(0)
        vao = v
        buffer = b
    }

    func draw() {
        glBindVertexArray(vao)
        glDrawArrays(E(GL_TRIANGLES), 0, GLsizei(vertexCount))
    }

    func destroy() {
        var v = vao, b = buffer
        glDeleteVertexArrays(1, &v)
        glDeleteBuffers(1, &b)
    }
}
