import COpenGL

/// Which of the renderer's programs a pass draws with.
enum ProgramKind: Hashable {
    /// A face of a page or cover (page.frag's variant).
    case page(PageVariant)
    /// The cast shadow (shadow.frag with CAST).
    case cast
    /// The overlays' darkening, and the depth-only pass of flat pages' insides (shadow.frag).
    case overlay
    /// The overlays' darkening of a page whose rim a turning sheet may lie on (shadow.frag with RIMS).
    case overlayRims
    /// The depth-only pass of the insides of pages curving into the gutter (shadow.frag with INSIDES).
    case insides
    case backdrop, block, desk, copy
    /// The fringe along a block's or board's outline, without multisampling (edge.vert, fringe.frag).
    case edge

    /// Every program the renderer may draw with.
    static let all: [ProgramKind] = PageVariant.all.map { .page($0) } + [.cast, .overlay, .overlayRims, .insides, .backdrop, .block, .desk, .copy, .edge]

    /// Its files, the fragment stage's defines, and the attributes' locations.
    var stages: (vertex: String, fragment: String, defines: [String], bindings: [String: Int32]) {
        let grid = ["aGrid": Int32(0)]
        switch self {
        case let .page(variant): return ("page.vert", "page.frag", variant.defines, grid)
        case .cast: return ("page.vert", "shadow.frag", ["CAST"], grid)
        case .overlay: return ("page.vert", "shadow.frag", [], grid)
        case .overlayRims: return ("page.vert", "shadow.frag", ["RIMS"], grid)
        case .insides: return ("page.vert", "shadow.frag", ["INSIDES"], grid)
        case .backdrop: return ("backdrop.vert", "backdrop.frag", [], [:])
        case .block: return ("block.vert", "block.frag", [], ["aBox": 0, "aNormal": 1])
        case .desk: return ("desk.vert", "desk.frag", [], grid)
        case .copy: return ("backdrop.vert", "copy.frag", [], [:])
        case .edge: return ("edge.vert", "fringe.frag", [], ["aBox": 0, "aOther": 1, "aFace": 2, "aBeyond": 3, "aOut": 4])
        }
    }
}

/// The renderer's programs, each linked the first time a frame draws with it. On a software
/// renderer linking a program, and its first draw, run its shaders through LLVM (tens of
/// milliseconds each from Mesa's shader cache, far more without it), and a still or the first
/// frame of the viewer draws with a few of the ninety-seven: docs/performance.md has the figures.
/// Every stage is compiled when the cache is made, so a file that does not compile fails then,
/// naming its line; compiling costs little (Mesa skips a source its cache holds), and each
/// file is compiled once per set of defines, whatever the programs that share it.
///
/// Does not: link anything before it is asked for (`linkAll` does, for tests). A program that
/// compiled but fails to link is kept as `failure`, and its draws draw nothing.
final class ProgramCache {
    /// Compiled stages by file and defines, attached to each program as it is linked.
    private var stages: [String: GLuint]
    private var linked: [ProgramKind: ProgramUniforms] = [:]
    /// What draws in place of a program that did not link: nothing (its vertices lie outside
    /// the view). Two lines of GLSL, linked at once.
    private let nothing: ProgramUniforms
    /// The first program that did not link.
    private(set) var failure: RenderError?
    /// Where the programs' draws write their blocks.
    private let ring: UniformRing

    init(folder: String, ring: UniformRing) throws {
        self.ring = ring
        var compiled: [String: GLuint] = [:]
        do {
            for kind in ProgramKind.all {
                let s = kind.stages
                for (file, stage, defines) in [(s.vertex, GL_VERTEX_SHADER, [String]()), (s.fragment, GL_FRAGMENT_SHADER, s.defines)] {
                    let key = Self.key(file, defines)
                    if compiled[key] == nil { compiled[key] = try Program.compile(folder: folder, file: file, stage: stage, defines: defines) }
                }
            }
            nothing = ProgramUniforms(try Self.empty(), ring: ring)
        } catch {
            compiled.values.forEach { glDeleteShader($0) }
            throw error
        }
        stages = compiled
    }

    private static func key(_ file: String, _ defines: [String]) -> String { ([file] + defines).joined(separator: " ") }

    /// Programs linked so far.
    var linkedCount: Int { linked.count }

    /// The program of `kind`, linked now if it was not: the program in use stays in use.
    subscript(_ kind: ProgramKind) -> ProgramUniforms {
        if let p = linked[kind] { return p }
        do {
            return try link(kind)
        } catch {
            if failure == nil { failure = error as? RenderError }
            return nothing
        }
    }

    /// Links every program not linked yet (tests: every variant links; a renderer that will draw
    /// everything soon).
    func linkAll() throws {
        for kind in ProgramKind.all where linked[kind] == nil { _ = try link(kind) }
    }

    /// Links `kind` and keeps it; the program in use (a frame may be half drawn) stays in use,
    /// unless it was deleted while in use (its name is then no program's).
    private func link(_ kind: ProgramKind) throws -> ProgramUniforms {
        var current: GLint = 0
        glGetIntegerv(E(GL_CURRENT_PROGRAM), &current)
        defer { if current == 0 || glIsProgram(GLuint(current)) == GLboolean(GL_TRUE) { glUseProgram(GLuint(current)) } }
        let s = kind.stages
        // Every stage was compiled in `init`.
        let p = ProgramUniforms(try Program(linking: (stages[Self.key(s.vertex, [])]!, s.vertex),
                                            (stages[Self.key(s.fragment, s.defines)]!, s.fragment), bindings: s.bindings), ring: ring)
        linked[kind] = p
        return p
    }

    private static func empty() throws -> Program {
        let vs = try Program.compile(source: "#version 330 core\nvoid main() { gl_Position = vec4(0.0, 0.0, 2.0, 1.0); }\n",
                                     file: "(none).vert", stage: GL_VERTEX_SHADER)
        defer { glDeleteShader(vs) }
        let fs = try Program.compile(source: "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(0.0); }\n",
                                     file: "(none).frag", stage: GL_FRAGMENT_SHADER)
        defer { glDeleteShader(fs) }
        return try Program(linking: (vs, "(none).vert"), (fs, "(none).frag"))
    }

    /// Frees the programs and stages; the context must be current.
    func destroy() {
        (Array(linked.values) + [nothing]).forEach { $0.program.destroy() }
        linked = [:]
        stages.values.forEach { glDeleteShader($0) }
        stages = [:]
    }
}
