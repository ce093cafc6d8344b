import FolioLayout

/// Every uniform the renderer's programs take, named as in `Shaders/` (`viewProj`: `uViewProj`).
enum UniformName: Int, CaseIterable {
    // page.vert: every program that draws a page (faces, cast shadow, overlays)
    case viewProj, model, size, gutterDrop, gutterWidth, deform, curl, curlRadius, curlWrap, cone, light
    case shadowPass, expand, spineEdge, casterModel, casterSize, inset, from, tapBias, texelAxes
    case stackLeft, stackRight, stackDrops, stackRims, pixelHalf
    // page.frag
    case image, behind, uvOrigin, uvDu, uvDt, shade, gutter, wedge, ambient, opacity, cornerRadius, backTone
    case showThrough, behindLevel, behindOrigin, behindDu, behindDt, themePaper, themeInk, backFace
    // shadow.frag
    case strength, falloff
    // block.vert and block.frag
    case thickness, paper, clothTint, sheets, board, grow, flare, spine, cover
    case leafAngle
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
        program.use()
        self[.gutterWidth].set(Float(GutterCurve.width))
        self[.image].set(Int32(0))
        self[.behind].set(Int32(1))
        self[.cover].set(Int32(0))
        self[.source].set(Int32(0))
    }

    subscript(_ name: UniformName) -> Uniform { locations[name.rawValue] }
}
