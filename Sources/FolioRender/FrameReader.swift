import COpenGL
import FolioImage

/// Reads frames back through a ring of pixel-pack buffers, so the GPU keeps drawing frame
/// n + 1 while frame n is copied out: `read` starts an asynchronous copy and returns the frame
/// started `depth − 1` calls earlier (nil until the ring is full); `flush` returns the rest.
/// Rows come bottom to top, as GL stores them: RGBA images, or packed BGR bytes, which a video
/// encoder converts at a third of RGBA's cost (docs/engineering-notes.md).
public final class FrameReader {
    public enum Layout {
        case rgba, bgr
        public var bytesPerPixel: Int { self == .rgba ? 4 : 3 }
        var format: GLenum { E(self == .rgba ? GL_RGBA : GL_BGR) }
    }

    public let width: Int
    public let height: Int
    public let layout: Layout
    private var buffers: [GLuint]
    private let owner = GLOwner("pixel buffer")
    private var pending: [Int] = []   // ring slots holding a started copy, oldest first
    private var next = 0

    public init(width: Int, height: Int, depth: Int = 2, layout: Layout = .rgba) {
        self.width = width
        self.height = height
        self.layout = layout
        buffers = [GLuint](repeating: 0, count: max(depth, 1))
        glGenBuffers(GLsizei(buffers.count), &buffers)
        for b in buffers {
            glBindBuffer(E(GL_PIXEL_PACK_BUFFER), b)
            glBufferData(E(GL_PIXEL_PACK_BUFFER), width * height * layout.bytesPerPixel, nil, E(GL_STREAM_READ))
        }
        glBindBuffer(E(GL_PIXEL_PACK_BUFFER), 0)
    }

    /// Starts copying `framebuffer`'s pixels; returns the oldest finished frame once the ring is
    /// full. The reader's layout must be `.rgba`.
    public func read(_ framebuffer: Framebuffer) -> RGBAImage? {
        readBytes(framebuffer).map(image)
    }

    /// The frames still in flight, oldest first.
    public func flush() -> [RGBAImage] {
        flushBytes().map(image)
    }

    /// `read` for either layout: the frame's bytes.
    public func readBytes(_ framebuffer: Framebuffer) -> [UInt8]? {
        framebuffer.bindForReading()
        let slot = next
        next = (next + 1) % buffers.count
        glBindBuffer(E(GL_PIXEL_PACK_BUFFER), buffers[slot])
        glPixelStorei(E(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), layout.format, E(GL_UNSIGNED_BYTE), nil)
        glBindBuffer(E(GL_PIXEL_PACK_BUFFER), 0)
        pending.append(slot)
        return pending.count >= buffers.count ? take() : nil
    }

    /// `flush` for either layout.
    public func flushBytes() -> [[UInt8]] {
        var out: [[UInt8]] = []
        while !pending.isEmpty { out.append(take()) }
        return out
    }

    private func image(_ pixels: [UInt8]) -> RGBAImage {
        precondition(layout == .rgba, "a BGR reader makes no RGBA images")
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    private func take() -> [UInt8] {
        let slot = pending.removeFirst()
        glBindBuffer(E(GL_PIXEL_PACK_BUFFER), buffers[slot])
        var pixels = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
        if let p = glMapBufferRange(E(GL_PIXEL_PACK_BUFFER), 0, pixels.count, GLbitfield(GL_MAP_READ_BIT)) {
            pixels.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: $0.count)) }
            glUnmapBuffer(E(GL_PIXEL_PACK_BUFFER))
        }
        glBindBuffer(E(GL_PIXEL_PACK_BUFFER), 0)
        return pixels
    }

    public func destroy() {
        owner.release()
        glDeleteBuffers(GLsizei(buffers.count), &buffers)
    }
}
