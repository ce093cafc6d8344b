import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// Every uniform the renderer's programs take one by one, named as in `Shaders/` (`model`:
/// `uModel`); the frame's are a block (`FrameUniforms`).
enum UniformName: Int, CaseIterable {
    // page.vert: every program that draws a page (faces, cast shadow, overlays)
    case model, size, gutterDrop, gutterWidth, deform, curl, curlRadius, curlWrap, cone
    case shadowPass, expand, spineEdge, casterModel, casterSize, inset, from, tapBias, texelAxes
    case stackLeft, stackRight, stackDrops, stackRims, alignLift, alignDrop
    // page.frag
    case image, behind, uvOrigin, uvDu, uvDt, shade, gutter, wedge, ambient, opacity, backTone
    case showThrough, behindLevel, behindOrigin, behindDu, behindDt, backFace
    // shadow.frag
    case strength, falloff
    // block.vert and block.frag
    case thickness, paper, clothTint, sheets, board, grow, flare, spine, hollow, cover
    case leafAngle, endsInset
    // desk.vert and desk.frag
    case margin, height, closed
    // backdrop.frag, copy.frag
    case top, bottom, vignette, source

    var glsl: String {
        switch self {
        case .uvOrigin: "uUVOrigin"
        case .uvDu: "uUVdu"
        case .uvDt: "uUVdt"
        default: "u" + String(describing: self).prefix(1).uppercased() + String(describing: self).dropFirst()
        }
    }
}

/// A program with its uniforms located once, when it is built: a draw sets them by location,
/// never by name. Samplers and constants are set here, once (a program without them has
/// location −1 for them, which GL ignores).
struct ProgramUniforms {
    let program: Program
    private let locations: [Uniform]

    init(_ program: Program) {
        self.program = program
        locations = UniformName.allCases.map { program.uniform($0.glsl) }
        FrameUniforms.bind(program)
        program.use()
        self[.gutterWidth].set(Float(GutterCurve.width))
        self[.image].set(Int32(0))
        self[.behind].set(Int32(1))
        self[.cover].set(Int32(0))
        self[.source].set(Int32(0))
    }

    subscript(_ name: UniformName) -> Uniform { locations[name.rawValue] }
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
        glGenBuffers(1, &buffer)
        glBindBuffer(E(GL_UNIFORM_BUFFER), buffer)
        glBufferData(E(GL_UNIFORM_BUFFER), Self.floats * MemoryLayout<Float>.size, nil, E(GL_DYNAMIC_DRAW))
        glBindBuffer(E(GL_UNIFORM_BUFFER), 0)
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
