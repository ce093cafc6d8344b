import COpenGL
import FolioImage
import Synchronization

/// An offscreen render target: colour, depth and stencil, optionally multisampled (then
/// resolved into a single-sample colour texture before reading).
///
/// Does not: make a context. The caller makes one current first.
public final class Framebuffer {
    public let width: Int
    public let height: Int
    public let samples: Int
    /// Unique for the life of the process: tells a new target from an old one at the same address.
    public let serial: Int
    private static let serials = Atomic<Int>(0)
    /// The single-sample colour texture (the resolve target when multisampled).
    public let color: Texture
    private let fbo: GLuint
    private let depth: GLuint
    private let msFBO: GLuint
    private let msColor: GLuint
    private let msDepth: GLuint
    private let owner: GLOwner
    /// The single-sample buffer holds the newest drawing: a frame whose boxes were multisampled
    /// has been resolved into it (`resolveForSingleSampled`) and the rest drawn there. `bind`
    /// then binds it and `resolve` leaves it as it is, until `drawMultisampled`.
    private(set) var drawsSingleSampled = false

    /// `samples` is clamped to what the GPU offers; 0 or 1 means no multisampling.
    public init(width: Int, height: Int, samples: Int = 0) throws {
        let maxSize = GLInfo.maxTextureSize
        guard width > 0, height > 0, width <= maxSize, height <= maxSize else {
            throw RenderError.sizeTooLarge(width: width, height: height, max: maxSize)
        }
        self.width = width
        self.height = height
        serial = Self.serials.add(1, ordering: .relaxed).newValue
        color = Texture(renderTarget: width, height: height)
        owner = GLOwner("framebuffer")
        var f: GLuint = 0, d: GLuint = 0
        glGenFramebuffers(1, &f)
        glGenRenderbuffers(1, &d)
        glBindRenderbuffer(E(GL_RENDERBUFFER), d)
        glRenderbufferStorage(E(GL_RENDERBUFFER), E(GL_DEPTH24_STENCIL8), GLsizei(width), GLsizei(height))
        glBindFramebuffer(E(GL_FRAMEBUFFER), f)
        glFramebufferTexture2D(E(GL_FRAMEBUFFER), E(GL_COLOR_ATTACHMENT0), E(GL_TEXTURE_2D), color.name, 0)
        glFramebufferRenderbuffer(E(GL_FRAMEBUFFER), E(GL_DEPTH_STENCIL_ATTACHMENT), E(GL_RENDERBUFFER), d)
        fbo = f
        depth = d
        let s = min(max(samples, 0), GLInfo.maxSamples)
        self.samples = s > 1 ? s : 0
        if self.samples > 1 {
            var mf: GLuint = 0, mc: GLuint = 0, md: GLuint = 0
            glGenFramebuffers(1, &mf)
            glGenRenderbuffers(1, &mc)
            glGenRenderbuffers(1, &md)
            glBindRenderbuffer(E(GL_RENDERBUFFER), mc)
            glRenderbufferStorageMultisample(E(GL_RENDERBUFFER), GLsizei(self.samples), E(GL_RGBA8), GLsizei(width), GLsizei(height))
            glBindRenderbuffer(E(GL_RENDERBUFFER), md)
            glRenderbufferStorageMultisample(E(GL_RENDERBUFFER), GLsizei(self.samples), E(GL_DEPTH24_STENCIL8), GLsizei(width), GLsizei(height))
            glBindFramebuffer(E(GL_FRAMEBUFFER), mf)
            glFramebufferRenderbuffer(E(GL_FRAMEBUFFER), E(GL_COLOR_ATTACHMENT0), E(GL_RENDERBUFFER), mc)
            glFramebufferRenderbuffer(E(GL_FRAMEBUFFER), E(GL_DEPTH_STENCIL_ATTACHMENT), E(GL_RENDERBUFFER), md)
            msFBO = mf; msColor = mc; msDepth = md
        } else {
            msFBO = 0; msColor = 0; msDepth = 0
        }
        let status = glCheckFramebufferStatus(E(GL_FRAMEBUFFER))
        guard status == E(GL_FRAMEBUFFER_COMPLETE) else {
            destroy()
            throw RenderError.framebufferIncomplete(status: status)
        }
    }

    /// Binds the framebuffer to draw into (the multisampled one when there is one, unless the
    /// single-sample one holds the newest drawing).
    public func bind() {
        glBindFramebuffer(E(GL_FRAMEBUFFER), samples > 1 && !drawsSingleSampled ? msFBO : fbo)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
    }

    /// Draws into the multisampled buffer (when there is one) from the next `bind` on.
    func drawMultisampled() {
        drawsSingleSampled = false
    }

    /// Resolves colour and depth into the single-sample buffer (the passes that use the stencil
    /// clear it) and draws there from now on (a frame's boxes multisampled, its pages drawn
    /// over them single-sampled); with `copying` false, only draws there (what it holds is
    /// drawn over whole, as a cached layer).
    func resolveForSingleSampled(copying: Bool = true) {
        guard samples > 1 else { return }
        if copying && !drawsSingleSampled {
            glBindFramebuffer(E(GL_READ_FRAMEBUFFER), msFBO)
            glBindFramebuffer(E(GL_DRAW_FRAMEBUFFER), fbo)
            glBlitFramebuffer(0, 0, GLint(width), GLint(height), 0, 0, GLint(width), GLint(height),
                              E(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT), E(GL_NEAREST))
        }
        drawsSingleSampled = true
    }

    /// Resolves multisampling into `color`; a no-op without it.
    public func resolve() {
        guard samples > 1, !drawsSingleSampled else { return }
        glBindFramebuffer(E(GL_READ_FRAMEBUFFER), msFBO)
        glBindFramebuffer(E(GL_DRAW_FRAMEBUFFER), fbo)
        glBlitFramebuffer(0, 0, GLint(width), GLint(height), 0, 0, GLint(width), GLint(height), E(GL_COLOR_BUFFER_BIT), E(GL_NEAREST))
    }

    /// Copies this framebuffer's colour into the bound draw framebuffer `target` (0: the window).
    public func blit(toFramebuffer target: GLuint = 0, width tw: Int, height th: Int) {
        resolve()
        glBindFramebuffer(E(GL_READ_FRAMEBUFFER), fbo)
        glBindFramebuffer(E(GL_DRAW_FRAMEBUFFER), target)
        glBlitFramebuffer(0, 0, GLint(width), GLint(height), 0, 0, GLint(tw), GLint(th), E(GL_COLOR_BUFFER_BIT), E(GL_NEAREST))
    }

    /// Copies a rectangle of `source`'s resolved colour (same size), and with `depth` its
    /// single-sample depth and stencil, into this single-sampled framebuffer: restores part of a
    /// cached layer. GL 3.3 cannot blit into a multisampled target; the renderer draws the
    /// texture there instead.
    public func copy(from source: Framebuffer, rect r: PixelRect, depth: Bool = false) {
        precondition(samples <= 1 || drawsSingleSampled, "a blit cannot write a multisampled framebuffer")
        glBindFramebuffer(E(GL_READ_FRAMEBUFFER), source.fbo)
        glBindFramebuffer(E(GL_DRAW_FRAMEBUFFER), fbo)
        let x1 = GLint(r.x + r.width), y1 = GLint(r.y + r.height)
        let buffers = depth ? GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT : GL_COLOR_BUFFER_BIT
        glBlitFramebuffer(GLint(r.x), GLint(r.y), x1, y1, GLint(r.x), GLint(r.y), x1, y1, E(buffers), E(GL_NEAREST))
    }

    /// Resolves multisampling and binds the single-sample colour for reading.
    public func bindForReading() {
        resolve()
        glBindFramebuffer(E(GL_READ_FRAMEBUFFER), fbo)
    }

    /// Reads the pixels back as RGBA8, rows bottom to top (GL's order): write them with
    /// `PNG.encode(…, bottomUp: true)` or flip with `flippedVertically()`.
    public func readPixels() -> RGBAImage {
        bindForReading()
        glPixelStorei(E(GL_PACK_ALIGNMENT), 1)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBytes {
            glReadPixels(0, 0, GLsizei(width), GLsizei(height), E(GL_RGBA), E(GL_UNSIGNED_BYTE), $0.baseAddress)
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Frees the GL objects; the context must be current.
    public func destroy() {
        owner.release()
        var names = [fbo, msFBO].filter { $0 != 0 }
        glDeleteFramebuffers(GLsizei(names.count), &names)
        names = [depth, msColor, msDepth].filter { $0 != 0 }
        glDeleteRenderbuffers(GLsizei(names.count), &names)
        color.destroy()
    }
}
