import FolioApp
import FolioLayout
import FolioBook
import FolioPlatform
import FolioRender
import Foundation

/// Everything a headless command draws with: an EGL context, the renderer, the page textures
/// of a library and an offscreen target. Make it, draw, then `close()` on the same thread.
final class HeadlessSession {
    let context: HeadlessContext
    let renderer: Renderer
    let textures: TextureStore
    private let images: ImageSource
    let target: Framebuffer
    /// The books whose images the textures show; may be swapped between frames.
    var library: Library {
        didSet {
            images.library = library
            textures.evict(keeping: [])
        }
    }

    init(library: Library, width: Int, height: Int, msaa: Int?, shaders: String?) throws {
        self.library = library
        context = try HeadlessContext.make()
        do {
            renderer = try Renderer(shaders: ShaderFolder.locate(explicit: shaders),
                                    settings: .defaults(software: GLInfo.isSoftware))
        } catch {
            context.destroy()
            throw error
        }
        let images = ImageSource(library: library)
        textures = TextureStore { face in images.image(for: face) }
        self.images = images
        do {
            target = try Framebuffer(width: width, height: height, samples: msaa ?? (GLInfo.isSoftware ? 0 : 4))
        } catch {
            renderer.destroy()
            context.destroy()
            throw error
        }
    }

    /// Draws a scene into the target.
    func draw(_ scene: Scene) {
        renderer.draw(scene, into: target, textures: textures)
    }

    func close() {
        target.destroy()
        textures.destroy()
        renderer.destroy()
        context.destroy()
    }
}

/// Reads face images from the library's files, synchronously (a headless command waits for
/// every page it shows).
final class ImageSource {
    var library: Library

    init(library: Library) { self.library = library }

    func image(for face: FaceContent) -> RGBAImage? {
        PageImages.path(for: face, in: library).flatMap { try? PNG.read(path: $0) }
    }
}
