import COpenGL

/// An image drawn over a frame, screen-aligned, at whole pixels: a part of the on-screen layer.
public struct ScreenQuad {
    public var texture: Texture
    /// Where it goes in the target, pixels, origin top left (the image's first row at `y`).
    public var x: Int
    public var y: Int
    /// Its colours are premultiplied by alpha; `opacity` fades it as a whole.
    public var opacity: Float

    public init(texture: Texture, x: Int, y: Int, opacity: Float) {
        self.texture = texture
        self.x = x
        self.y = y
        self.opacity = opacity
    }
}

/// Draws screen-aligned images over whatever a framebuffer holds, one pixel of image to one of
/// the target, blended as premultiplied colour.
///
/// Does not: make the images or decide where they go (the on-screen layer does), nor keep
/// anything between frames. Render thread only; `destroy()` while the context is current.
public final class ScreenQuads {
    private let program: Program
    private let quadRect: Uniform
    private let opacity: Uniform
    private let gl = GLState()
    private var vao: GLuint = 0

    public init(shaders folder: String) throws {
        program = try Program(folder: folder, vertex: "quad.vert", fragment: "quad.frag")
        quadRect = program.uniform("uRect")
        opacity = program.uniform("uOpacity")
        program.use()
        program.uniform("uImage").set(Int32(0))
        glGenVertexArrays(1, &vao)
    }

    public func destroy() {
        program.destroy()
        glDeleteVertexArrays(1, &vao)
    }

    /// Draws `quads` in order over `target`'s content; returns the pixels they cover (GL's
    /// origin), for the renderer to restore before its next cached frame (`Renderer.drewOver`).
    @discardableResult
    public func draw(_ quads: [ScreenQuad], into target: Framebuffer) -> PixelRect {
        guard !quads.isEmpty else { return .empty }
        // The renderer drew last: nothing about the context is known here.
        gl.forget()
        gl.begin(Pass(target: target))
        gl.apply(Pipeline(program, DrawState(blend: .premultiplied)))
        glBindVertexArray(vao)
        let (w, h) = (Float(target.width), Float(target.height))
        var covered = PixelRect.empty
        for q in quads {
            // Clip space, y up: the image's top row at pixel row q.y from the top.
            let x0 = Float(q.x) / w * 2 - 1, x1 = Float(q.x + q.texture.width) / w * 2 - 1
            let y0 = 1 - Float(q.y + q.texture.height) / h * 2, y1 = 1 - Float(q.y) / h * 2
            quadRect.set(x0, y0, x1, y1)
            opacity.set(q.opacity)
            q.texture.bind(unit: 0)
            glDrawArrays(E(GL_TRIANGLE_STRIP), 0, 4)
            let rect = PixelRect(x: q.x, y: target.height - q.y - q.texture.height, width: q.texture.width, height: q.texture.height)
            covered = covered.isEmpty ? rect : covered.union(rect)
        }
        return covered.intersection(PixelRect(x: 0, y: 0, width: target.width, height: target.height))
    }
}
