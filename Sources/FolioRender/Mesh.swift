import COpenGL

/// A grid over the unit square (s across from the spine, t along it), drawn as indexed
/// triangles. The vertex shader turns (s, t) into the page's local frame and deforms it.
public struct GridMesh {
    let vao: GLuint
    let buffers: [GLuint]
    private let owner: GLOwner
    public let indexCount: Int
    /// The uniform columns asked for (the extra ones come on top).
    public let columns: Int
    public let rows: Int
    /// Where its vertices lie across (s) and along (t).
    let across: [Float]
    let along: [Float]

    /// A grid of `columns × rows` cells (a curl at 1080p shows no facets with 64 × 48), with
    /// more columns at the positions `extra` (s in 0 … 1): where the page curves into the gutter.
    public init(columns: Int, rows: Int, extra: [Double] = []) {
        let uniform = (0...max(columns, 1)).map { Double($0) / Double(max(columns, 1)) }
        self.init(across: Array(Set(uniform + extra.filter { $0 > 0 && $0 < 1 })).sorted().map(Float.init),
                  along: (0...max(rows, 1)).map { Float($0) / Float(max(rows, 1)) }, columns: max(columns, 1))
    }

    /// The triangles of this grid's cells for which `kept` (by row, then column) holds, as
    /// (s, t) pairs for a `TriangleMesh`: each cut as this mesh cuts it, at its vertices, so a
    /// vertex shader interpolates the same values over it.
    func cells(kept: [[Bool]]) -> [Float] {
        var floats: [Float] = []
        for (j, row) in kept.enumerated() {
            for (i, drawn) in row.enumerated() where drawn {
                let (s0, s1, t0, t1) = (across[i], across[i + 1], along[j], along[j + 1])
                floats += [s0, t0, s1, t0, s1, t1, s0, t0, s1, t1, s0, t1]
            }
        }
        return floats
    }

    /// 3 × 3 cells cut at `BoxMesh`'s hollow marks, the middle one left out: desk.vert moves the
    /// marks to the edges of the middle a shut book's cover hides.
    static func ring() -> GridMesh {
        let marks: [Float] = [0, BoxMesh.hollowLow, BoxMesh.hollowHigh, 1]
        return GridMesh(across: marks, along: marks, columns: 3, leaving: (1, 1))
    }

    /// Cells between the cuts `across` (s) and `along` (t), but the one at `leaving` (column, row).
    private init(across cuts: [Float], along: [Float], columns: Int, leaving: (Int, Int)? = nil) {
        self.columns = columns
        rows = along.count - 1
        self.across = cuts
        self.along = along
        var vertices: [Float] = []
        for t in along {
            for s in cuts {
                vertices += [s, t]
            }
        }
        var indices: [UInt32] = []
        let stride = UInt32(cuts.count)
        for j in 0..<UInt32(rows) {
            for i in 0..<UInt32(cuts.count - 1) where leaving.map({ $0 != (Int(i), Int(j)) }) ?? true {
                let a = j * stride + i, b = a + 1, c = a + stride, d = c + 1
                indices += [a, b, d, a, d, c]
            }
        }
        indexCount = indices.count
        var v: GLuint = 0
        glGenVertexArrays(1, &v)
        glBindVertexArray(v)
        var b = [GLuint](repeating: 0, count: 2)
        glGenBuffers(2, &b)
        glBindBuffer(E(GL_ARRAY_BUFFER), b[0])
        vertices.withUnsafeBytes { glBufferData(E(GL_ARRAY_BUFFER), $0.count, $0.baseAddress, E(GL_STATIC_DRAW)) }
        glBindBuffer(E(GL_ELEMENT_ARRAY_BUFFER), b[1])
        indices.withUnsafeBytes { glBufferData(E(GL_ELEMENT_ARRAY_BUFFER), $0.count, $0.baseAddress, E(GL_STATIC_DRAW)) }
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, E(GL_FLOAT), GLboolean(GL_FALSE), 8, nil)
        glBindVertexArray(0)
        vao = v
        buffers = b
        owner = GLOwner("mesh")
    }

    public func draw() {
        glBindVertexArray(vao)
        glDrawElements(E(GL_TRIANGLES), GLsizei(indexCount), E(GL_UNSIGNED_INT), nil)
    }

    public func destroy() {
        owner.release()
        var v = vao
        glDeleteVertexArrays(1, &v)
        var b = buffers
        glDeleteBuffers(GLsizei(b.count), &b)
    }
}

/// A triangle list in one vertex buffer: float attributes interleaved at `stride` bytes.
/// Uploaded once (a page block) or every frame (the strips of a curling sheet).
final class TriangleMesh {
    private let vao: GLuint
    private let buffer: GLuint
    private let floatsPerVertex: Int
    private let owner = GLOwner("mesh")
    private(set) var vertexCount = 0

    /// `components`: the float count of each attribute, at locations 0, 1, …
    init(components: [Int]) {
        floatsPerVertex = components.reduce(0, +)
        var v: GLuint = 0, b: GLuint = 0
        glGenVertexArrays(1, &v)
        glBindVertexArray(v)
        glGenBuffers(1, &b)
        glBindBuffer(E(GL_ARRAY_BUFFER), b)
        var offset = 0
        for (location, n) in components.enumerated() {
            glEnableVertexAttribArray(GLuint(location))
            glVertexAttribPointer(GLuint(location), GLint(n), E(GL_FLOAT), GLboolean(GL_FALSE),
                                  GLsizei(floatsPerVertex * 4), UnsafeRawPointer(bitPattern: offset * 4))
            offset += n
        }
        glBindVertexArray(0)
        vao = v
        buffer = b
    }

    /// Replaces the vertices (interleaved floats, three vertices a triangle) with new storage:
    /// writing into storage a queued draw still reads makes a software renderer finish drawing
    /// everything queued first (a stall in the middle of a frame); new storage never waits.
    func upload(_ floats: [Float]) {
        glBindBuffer(E(GL_ARRAY_BUFFER), buffer)
        floats.withUnsafeBytes { raw in
            glBufferData(E(GL_ARRAY_BUFFER), raw.count, raw.baseAddress, E(GL_STREAM_DRAW))
        }
        vertexCount = floats.count / floatsPerVertex
    }

    func draw() { draw(first: 0, count: vertexCount) }

    /// Draws `count` vertices from `first` (whole triangles).
    func draw(first: Int, count: Int) {
        guard count > 0 else { return }
        glBindVertexArray(vao)
        glDrawArrays(E(GL_TRIANGLES), GLint(first), GLsizei(count))
    }

    func destroy() {
        owner.release()
        var v = vao, b = buffer
        glDeleteVertexArrays(1, &v)
        glDeleteBuffers(1, &b)
    }
}
