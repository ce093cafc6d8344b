import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// Every uniform a draw of the renderer's programs sets, named as in `Shaders/` (`model`:
/// `uModel`): the members of the programs' `Draw` blocks (`Shaders/*-draw.glsl`). The frame's
/// are another block (`FrameUniforms`); samplers are set once, when a program is linked.
enum UniformName: Int, CaseIterable {
    // page-draw.glsl: every program that draws a page (faces, cast shadow, overlays, insides)
    case model, size, gutterDrop, gutterWidth, deform, curl, curlRadius, curlWrap, cone
    case shadowPass, expand, spineEdge, casterModel, casterSize, inset, from, tapBias, texelAxes
    case stackLeft, stackRight, stackDrops, stackRims, alignLift, alignDrop, aligns
    case uvOrigin, uvDu, uvDt, shade, gutter, wedge, ambient, opacity, backTone
    case showThrough, behindLevel, behindOrigin, behindDu, behindDt, backFace
    case strength, falloff
    // block-draw.glsl
    case thickness, paper, clothTint, sheets, board, grow, flare, spine, hollow
    case leafAngle, endsInset
    // desk-draw.glsl
    case margin, height, closed, hole
    // backdrop.frag
    case top, bottom, vignette

    var glsl: String {
        switch self {
        case .uvOrigin: "uUVOrigin"
        case .uvDu: "uUVdu"
        case .uvDt: "uUVdt"
        default: "u" + String(describing: self).prefix(1).uppercased() + String(describing: self).dropFirst()
        }
    }
}

/// A program with its draw's uniforms as one block (`Draw`, std140), set as GL sets a program's
/// own uniforms: each program keeps its values from draw to draw, a draw changes some of them,
/// and `draw` writes the whole block into the ring (`UniformRing`) only where it changed since
/// the program's last draw, then binds it — one buffer write per draw at most, as sokol's
/// `sg_apply_uniforms` takes a draw's block (`sokol_gfx.h`) and bgfx sets `UniformFreq::Draw`'s
/// (`bgfx.h`). Each member's offset is asked of GL once, when the program is linked; samplers
/// and constants are set there too. A name the block lacks is ignored, as GL ignores
/// location −1. Render thread only.
final class ProgramUniforms {
    let program: Program
    /// Each `UniformName`'s byte offset in the block; −1 where the program's block lacks it.
    private let offsets: [Int]
    private var values: [UInt8]
    /// Where the values were last written into the ring, and the ring's generation then.
    private var written: (generation: Int, offset: Int)?
    private let ring: UniformRing

    init(_ program: Program, ring: UniformRing) {
        self.program = program
        self.ring = ring
        let p = program.name
        FrameUniforms.bind(program)
        let block = glGetUniformBlockIndex(p, "Draw")
        var size: GLint = 0
        if block != GLuint.max {
            glUniformBlockBinding(p, block, UniformRing.binding)
            glGetActiveUniformBlockiv(p, block, E(GL_UNIFORM_BLOCK_DATA_SIZE), &size)
        }
        values = [UInt8](repeating: 0, count: Int(size))
        offsets = UniformName.allCases.map { name in
            guard block != GLuint.max else { return -1 }
            var index = GLuint.max
            name.glsl.withCString { cName in
                var names: [UnsafePointer<GLchar>?] = [cName]
                glGetUniformIndices(p, 1, &names, &index)
            }
            guard index != GLuint.max else { return -1 }
            var offset: GLint = -1, owner: GLint = -1
            glGetActiveUniformsiv(p, 1, &index, E(GL_UNIFORM_BLOCK_INDEX), &owner)
            glGetActiveUniformsiv(p, 1, &index, E(GL_UNIFORM_OFFSET), &offset)
            return owner == GLint(block) ? Int(offset) : -1
        }
        program.use()
        for (sampler, unit) in [("uImage", 0), ("uBehind", 1), ("uCover", 0), ("uSource", 0)] {
            program.uniform(sampler).set(Int32(unit))
        }
        self[.gutterWidth].set(Float(GutterCurve.width))
    }

    subscript(_ name: UniformName) -> BlockField { BlockField(owner: self, offset: offsets[name.rawValue]) }

    /// Whether the program's block has `name` (tests).
    func declares(_ name: UniformName) -> Bool { offsets[name.rawValue] >= 0 }

    /// The block's size in bytes; 0 for a program without one.
    var blockSize: Int { values.count }

    fileprivate func store(_ floats: [Float], at offset: Int) {
        guard offset >= 0 else { return }
        floats.withUnsafeBytes { bytes in
            for (i, b) in bytes.enumerated() where values[offset + i] != b {
                values[offset + i] = b
                written = nil
            }
        }
    }

    /// Runs `body`, the draw calls, with the block as it stands bound: written into the ring
    /// first if it changed since it was last written there (or the ring has started over since).
    func draw(_ body: () -> Void) {
        if !values.isEmpty {
            if written?.generation != ring.generation { written = ring.write(values) }
            if let written { ring.bind(offset: written.offset, size: values.count) }
        }
        body()
    }
}

/// A member of a program's `Draw` block: what `set` writes is drawn by its next `draw`.
/// Integers are written as their bits, as std140 stores them.
struct BlockField {
    fileprivate let owner: ProgramUniforms
    fileprivate let offset: Int

    func set(_ v: Float) { owner.store([v], at: offset) }
    func set(_ v: Int32) { owner.store([Float(bitPattern: UInt32(bitPattern: v))], at: offset) }
    func set(_ x: Float, _ y: Float) { owner.store([x, y], at: offset) }
    func set(_ x: Float, _ y: Float, _ z: Float) { owner.store([x, y, z], at: offset) }
    func set(_ x: Float, _ y: Float, _ z: Float, _ w: Float) { owner.store([x, y, z, w], at: offset) }
    /// A 4 × 4 matrix, column-major: std140 lays its columns out as four vec4s, one after another.
    func set(matrix m: [Float]) { owner.store(m, at: offset) }
}

/// One buffer that the draws' blocks are written into, each at the next aligned offset after
/// the last, never over one a queued draw may still read: written unsynchronised, so a software
/// renderer does not flush its queued draws for each write (`glBufferSubData` into a buffer they
/// read would). Full, it waits for the queued draws (`glFinish`: a GPU reads a draw's block
/// when it runs the draw) and starts over at 0, a new generation: at 8 MiB, once in a few
/// hundred frames of a turn, a few dozen of a shelf on a GPU (whose blocks are aligned to 256
/// bytes). Not orphaned (`glBufferData` with no data): on llvmpipe that left the draws of the
/// frame under way reading garbage (the backdrop's colours, once a crash). Nor fenced: a fence
/// made mid-frame has llvmpipe rasterise what is queued before it, one made every frame ends
/// its batch there, and neither drew faster here (docs/performance.md).
/// Bound at point `binding`, which every program's `Draw` block is bound to when it is linked.
final class UniformRing {
    static let binding: GLuint = 1
    static let capacity = 8 << 20
    private let capacity: Int
    private var buffer: GLuint = 0
    private let alignment: Int
    private var cursor = 0
    /// Counts the times the ring started over: an offset of an earlier generation is gone.
    private(set) var generation = 0
    private var bound: (offset: Int, size: Int)?
    private let owner: GLOwner

    init(capacity: Int) {
        self.capacity = capacity
        alignment = max(Int(GLInfo.integer(GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT)), 16)
        buffer = makeUniformBuffer(bytes: capacity, usage: GL_STREAM_DRAW)
        owner = GLOwner("buffer")
    }

    /// Writes `bytes` at the next free offset and returns it with the generation.
    func write(_ bytes: [UInt8]) -> (generation: Int, offset: Int) {
        precondition(bytes.count <= capacity, "a uniform block of \(bytes.count) bytes is larger than the ring")
        var offset = (cursor + alignment - 1) / alignment * alignment
        glBindBuffer(E(GL_UNIFORM_BUFFER), buffer)
        if offset + bytes.count > capacity {
            glFinish()
            generation += 1
            bound = nil
            offset = 0
        }
        let access = GL_MAP_WRITE_BIT | GL_MAP_UNSYNCHRONIZED_BIT
        if let target = glMapBufferRange(E(GL_UNIFORM_BUFFER), offset, bytes.count, GLbitfield(access)) {
            bytes.withUnsafeBytes { target.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            glUnmapBuffer(E(GL_UNIFORM_BUFFER))
        }
        cursor = offset + bytes.count
        return (generation, offset)
    }

    /// Binds the block at `offset` for the draws that follow (once: a bound range stays bound).
    func bind(offset: Int, size: Int) {
        guard bound?.offset != offset || bound?.size != size else { return }
        glBindBufferRange(E(GL_UNIFORM_BUFFER), Self.binding, buffer, offset, size)
        bound = (offset, size)
    }

    /// Forgets what it bound, at the start of a frame: others may have drawn on the context since.
    func forgetBinding() { bound = nil }

    func destroy() {
        owner.release()
        glDeleteBuffers(1, &buffer)
    }
}

/// The uniforms every draw of a frame shares (`Shaders/frame.glsl`'s `Frame` block): written
/// once a frame into one buffer bound to point `binding`, which every program's block is bound
/// to when it is linked — uniforms grouped by how often they change, as sokol's
/// `sg_apply_uniforms` takes one block per call and bgfx's `UniformFreq::View` sets a view's
/// once. Does not: hold the uniforms of an item or a face (set per draw, `ProgramUniforms`).
final class FrameUniforms {
    static let binding: GLuint = 0
    /// frame.glsl's block in std140: uViewProj at 0, uLight at 16 floats, uCornerRadius at 19,
    /// uThemePaper at 20, uThemeInk at 24, uPixelHalf at 28; 32 floats in all.
    private static let floats = 32
    private var buffer: GLuint = 0
    private let owner: GLOwner

    init() {
        buffer = makeUniformBuffer(bytes: Self.floats * MemoryLayout<Float>.size, usage: GL_DYNAMIC_DRAW)
        owner = GLOwner("buffer")
    }

    /// Writes the frame's values and binds the buffer for the frame's draws.
    func set(viewProj: [Float], light: Vec3, cornerRadius: Double, theme: Theme, pixelHalf: Vec2) {
        var f = [Float](repeating: 0, count: Self.floats)
        f.replaceSubrange(0..<16, with: viewProj)
        (f[16], f[17], f[18], f[19]) = (Float(light.x), Float(light.y), Float(light.z), Float(cornerRadius))
        (f[20], f[21], f[22]) = (Float(theme.paper.r), Float(theme.paper.g), Float(theme.paper.b))
        (f[24], f[25], f[26]) = (Float(theme.ink.r), Float(theme.ink.g), Float(theme.ink.b))
        (f[28], f[29]) = (Float(pixelHalf.x), Float(pixelHalf.y))
        glBindBuffer(E(GL_UNIFORM_BUFFER), buffer)
        f.withUnsafeBytes { glBufferSubData(E(GL_UNIFORM_BUFFER), 0, $0.count, $0.baseAddress) }
        glBindBufferBase(E(GL_UNIFORM_BUFFER), Self.binding, buffer)
    }

    /// Binds `program`'s `Frame` block (if it reads it) to the buffer's point.
    static func bind(_ program: Program) {
        let block = glGetUniformBlockIndex(program.name, "Frame")
        if block != GLuint.max { glUniformBlockBinding(program.name, block, binding) }
    }

    func destroy() {
        owner.release()
        glDeleteBuffers(1, &buffer)
    }
}

/// A uniform buffer of `bytes`, its contents undefined until written.
private func makeUniformBuffer(bytes: Int, usage: Int32) -> GLuint {
    var buffer: GLuint = 0
    glGenBuffers(1, &buffer)
    glBindBuffer(E(GL_UNIFORM_BUFFER), buffer)
    glBufferData(E(GL_UNIFORM_BUFFER), bytes, nil, E(usage))
    glBindBuffer(E(GL_UNIFORM_BUFFER), 0)
    return buffer
}
