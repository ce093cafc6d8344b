import FolioApp
import FolioLayout
import FolioBook
import FolioPlatform
import FolioRender
import Foundation

/// Everything a headless command draws with: an EGL context, the renderer, the page textures
/// of a library and an offscreen target. Make it, draw, then `close()` on the same thread.
///
/// Page images decode in the background as in the viewer, but every frame waits for the
/// images of the faces it shows: a capture shows the real pages, never a placeholder.
final class HeadlessSession {
    let context: HeadlessContext
    let renderer: Renderer
    let textures: TextureStore
    private var images: FaceImages
    let target: Framebuffer
    /// The books whose images the textures show; may be swapped between frames.
    var library: Library {
        didSet {
            images = Self.faceImages(library, height: target.height)
            textures.provider = { [images] in images.image(for: $0) }
            textures.evict(keeping: [])
        }
    }
    /// How long a frame waits for its images before it is drawn with paper in their place.
    private let imageTimeout: TimeInterval = 60

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
        let images = Self.faceImages(library, height: height)
        textures = TextureStore { images.image(for: $0) }
        self.images = images
        do {
            target = try Framebuffer(width: width, height: height, samples: msaa ?? renderer.settings.samples)
        } catch {
            renderer.destroy()
            context.destroy()
            throw error
        }
    }

    /// Images of a library's faces for a frame that waits for them. No prefetching: a frame
    /// needs only its own pages, and decoding others would take cores from the renderer.
    /// Vector pages are rasterised for frames `height` pixels high.
    private static func faceImages(_ library: Library, height: Int) -> FaceImages {
        var settings = PageCache.Settings()
        (settings.ahead, settings.behind) = (0, 0)
        settings.displayHeight = height
        settings.previewHeight = 0
        return FaceImages(library: library, maxTextureSize: GLInfo.maxTextureSize, settings: settings)
    }

    /// Draws a scene into the target, once the images it shows are loaded.
    func draw(_ scene: Scene) {
        if let shown = scene.displayHeight(width: target.width, height: target.height) { images.setDisplayHeight(shown) }
        images.show(scene)
        if !images.waitUntilReady(faces: scene.shownFaces, timeout: imageTimeout) {
            warn("page images still loading after \(Int(imageTimeout)) s are drawn as blank paper")
        }
        for problem in images.drainProblems() { warn(problem.description) }
        if images.drainChanges().evicted { textures.evict(keeping: images.residentFaces) }
        renderer.draw(scene, into: target, textures: textures)
    }

    private func warn(_ line: String) {
        FileHandle.standardError.write(Data("folio: \(line)\n".utf8))
    }

    func close() {
        target.destroy()
        textures.destroy()
        renderer.destroy()
        context.destroy()
    }
}
