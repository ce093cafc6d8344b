import COpenGL

/// The fixed-function state a draw runs with, as a value: each pass of the renderer names one
/// (`Pipeline`) instead of leaving GL as the previous pass left it.
struct DrawState: Equatable, Sendable {
    enum Depth: Equatable, Sendable {
        case off
        /// Depth-tested with `GL_LESS` (`less`) or `GL_LEQUAL`, writing depth or not.
        case test(less: Bool, write: Bool)
    }

    /// How a fragment's colour meets the target's.
    enum Blend: Equatable, Sendable {
        case off
        /// Straight alpha over, the target's alpha kept as coverage (`ONE, ONE_MINUS_SRC_ALPHA` for alpha).
        case over
        /// Premultiplied colour over.
        case premultiplied
        /// The target multiplied by the fragment's colour (shadows, darkening).
        case multiply
    }

    enum Cull: Equatable, Sendable {
        case off, front, back
    }

    /// The stencil: test and write as one value.
    struct Stencil: Equatable, Sendable {
        var function: GLenum
        var reference: GLint
        var readMask: GLuint
        var writeMask: GLuint
        /// What a fragment that passes both tests does to the stencil.
        var pass: GLenum

        init(function: GLenum, reference: GLint, readMask: GLuint, writeMask: GLuint, pass: GLenum = E(GL_KEEP)) {
            self.function = function
            self.reference = reference
            self.readMask = readMask
            self.writeMask = writeMask
            self.pass = pass
        }
    }

    var depth: Depth = .off
    var stencil: Stencil?
    var cull: Cull = .off
    /// Which winding is the front: a mirrored model matrix turns it over.
    var clockwise = false
    var blend: Blend = .off
    var colorWrite = true
    /// Pushed back in depth by this many steps of four units, on top of the face's slope (so a
    /// surface in the same plane in front of it wins): the pages' insides one, the boxes beneath
    /// the pages two, so a box's top lying under a page fails the depth test there and is not
    /// shaded. The slope's share stays one, so faces of different slopes keep their order.
    var polygonOffset: GLfloat = 0

    init(depth: Depth = .off, stencil: Stencil? = nil, cull: Cull = .off, clockwise: Bool = false,
                blend: Blend = .off, colorWrite: Bool = true, polygonOffset: GLfloat = 0) {
        self.depth = depth
        self.stencil = stencil
        self.cull = cull
        self.clockwise = clockwise
        self.blend = blend
        self.colorWrite = colorWrite
        self.polygonOffset = polygonOffset
    }

    /// Every write mask open, as a clear needs.
    static let clearing = DrawState(depth: .test(less: false, write: true))
}

/// A program with the state it draws with (sokol's pipeline object).
struct Pipeline: Equatable {
    var program: GLuint
    var state: DrawState

    init(_ program: Program, _ state: DrawState) {
        self.program = program.name
        self.state = state
    }
}

/// Where a pass draws and what it starts from (bgfx's view).
struct Pass {
    struct Clear: OptionSet, Sendable {
        let rawValue: Int
        init(rawValue: Int) { self.rawValue = rawValue }
        /// To opaque black.
        static let color = Clear(rawValue: 1)
        static let depthStencil = Clear(rawValue: 2)
        static let all: Clear = [.color, .depthStencil]
    }

    var target: Framebuffer
    var clear: Clear
    /// Only this rectangle is drawn (GL's origin); nil: the whole target.
    var scissor: PixelRect?

    init(target: Framebuffer, clear: Clear = [], scissor: PixelRect? = nil) {
        self.target = target
        self.clear = clear
        self.scissor = scissor
    }
}

/// Applies passes and pipelines, changing only the GL state that differs from what it last
/// set. Everything else that draws on the context goes through one too, or calls `forget()`
/// after its own GL calls, so that what it knows stays true.
///
/// Does not: own any GL object. Render thread only.
final class GLState {
    private var known: DrawState?
    private var program: GLuint?
    private var scissor: PixelRect??
    /// Groups of state calls made (a program, a scissor, each part of `DrawState` counts one):
    /// tests see that an unchanged part costs none.
    private(set) var changes = 0

    init() {}

    /// Nothing about the context is known any more: the next `apply` sets everything.
    func forget() {
        known = nil
        program = nil
        scissor = nil
    }

    /// Binds the pass's target, clears what it says (the clear is never scissored: a software
    /// renderer clears a whole buffer as it starts each tile, but draws a quad for a scissored
    /// clear) and sets its scissor.
    func begin(_ pass: Pass) {
        pass.target.bind()
        if !pass.clear.isEmpty {
            setScissor(nil)
            // A clear writes through the masks: every one open.
            set(.clearing)
            glClearColor(0, 0, 0, 1)
            var bits: Int32 = 0
            if pass.clear.contains(.color) { bits |= GL_COLOR_BUFFER_BIT }
            if pass.clear.contains(.depthStencil) { bits |= GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT }
            glClear(E(bits))
        }
        setScissor(pass.scissor)
    }

    /// Leaves the scissor and the stencil test off (its write mask open), as blits, reads and
    /// a host's own drawing after a frame expect.
    func finish() {
        setScissor(nil)
        if var s = known, s.stencil != nil {
            s.stencil = nil
            set(s)
        }
    }

    /// Uses the pipeline's program and state.
    func apply(_ pipeline: Pipeline) {
        if program != pipeline.program {
            glUseProgram(pipeline.program)
            program = pipeline.program
            changes += 1
        }
        set(pipeline.state)
    }

    private func setScissor(_ rect: PixelRect?) {
        if let scissor, scissor == rect { return }
        if let rect {
            glEnable(E(GL_SCISSOR_TEST))
            glScissor(GLint(rect.x), GLint(rect.y), GLsizei(rect.width), GLsizei(rect.height))
        } else {
            glDisable(E(GL_SCISSOR_TEST))
        }
        scissor = .some(rect)
        changes += 1
    }

    private func set(_ s: DrawState) {
        let old = known
        changes += [old?.depth != s.depth, old.map { $0.stencil != s.stencil } ?? true, old?.cull != s.cull,
                    old?.clockwise != s.clockwise, old?.blend != s.blend, old?.colorWrite != s.colorWrite,
                    old?.polygonOffset != s.polygonOffset].filter { $0 }.count
        if old?.depth != s.depth {
            switch s.depth {
            case .off:
                glDisable(E(GL_DEPTH_TEST))
                glDepthMask(GLboolean(GL_TRUE))
            case let .test(less, write):
                glEnable(E(GL_DEPTH_TEST))
                glDepthFunc(E(less ? GL_LESS : GL_LEQUAL))
                glDepthMask(GLboolean(write ? GL_TRUE : GL_FALSE))
            }
        }
        if old.map({ $0.stencil != s.stencil }) ?? true {
            if let st = s.stencil {
                glEnable(E(GL_STENCIL_TEST))
                glStencilFunc(st.function, st.reference, st.readMask)
                glStencilMask(st.writeMask)
                glStencilOp(E(GL_KEEP), E(GL_KEEP), st.pass)
            } else {
                glDisable(E(GL_STENCIL_TEST))
                glStencilMask(0xFF)
            }
        }
        if old?.cull != s.cull {
            switch s.cull {
            case .off: glDisable(E(GL_CULL_FACE))
            case .front: glEnable(E(GL_CULL_FACE)); glCullFace(E(GL_FRONT))
            case .back: glEnable(E(GL_CULL_FACE)); glCullFace(E(GL_BACK))
            }
        }
        if old?.clockwise != s.clockwise { glFrontFace(E(s.clockwise ? GL_CW : GL_CCW)) }
        if old?.blend != s.blend {
            switch s.blend {
            case .off:
                glDisable(E(GL_BLEND))
            case .over:
                glEnable(E(GL_BLEND))
                glBlendFuncSeparate(E(GL_SRC_ALPHA), E(GL_ONE_MINUS_SRC_ALPHA), E(GL_ONE), E(GL_ONE_MINUS_SRC_ALPHA))
            case .premultiplied:
                glEnable(E(GL_BLEND))
                glBlendFunc(E(GL_ONE), E(GL_ONE_MINUS_SRC_ALPHA))
            case .multiply:
                glEnable(E(GL_BLEND))
                glBlendFunc(E(GL_ZERO), E(GL_SRC_COLOR))
            }
        }
        if old?.colorWrite != s.colorWrite {
            let w = GLboolean(s.colorWrite ? GL_TRUE : GL_FALSE)
            glColorMask(w, w, w, w)
        }
        if old?.polygonOffset != s.polygonOffset {
            if s.polygonOffset > 0 {
                glEnable(E(GL_POLYGON_OFFSET_FILL))
                glPolygonOffset(1, 4 * s.polygonOffset)
            } else {
                glDisable(E(GL_POLYGON_OFFSET_FILL))
            }
        }
        known = s
    }
}
