import FolioApp
import FolioBook
import FolioLayout
import FolioPlatform
import FolioRender
import Foundation

/// One headless GL context for the whole test process. GL contexts belong to one thread at a
/// time and tests run on many, so every use takes a lock and makes the context current.
final class GLHarness: @unchecked Sendable {
    static let shared = GLHarness()
    private let lock = NSLock()
    private var context: HeadlessContext?
    private var renderer: Renderer?
    private var failure: Error?

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
    static var shaders: String { packageRoot.appendingPathComponent("Shaders").path }
    static var textures: String { packageRoot.appendingPathComponent("Textures").path }

    /// Runs `body` with the context current and a renderer with default settings.
    func run<T>(_ body: (Renderer) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        if context == nil {
            do {
                context = try HeadlessContext.make()
                renderer = try Renderer(shaders: Self.shaders)
            } catch {
                failure = error
                throw error
            }
        }
        context!.makeCurrent()
        defer { context!.releaseCurrent() }
        let r = renderer!
        let saved = r.settings
        defer { r.settings = saved }
        return try body(r)
    }

    /// Renders `scene` at `width × height` and returns the image, rows top to bottom.
    func render(_ scene: Scene, width: Int, height: Int, library: Library? = nil, msaa: Int = 0,
                configure: (inout RenderSettings) -> Void = { _ in }) throws -> RGBAImage {
        try run { renderer in
            configure(&renderer.settings)
            let target = try Framebuffer(width: width, height: height, samples: msaa)
            defer { target.destroy() }
            let textures = TextureStore { face in
                library.flatMap { PageImages.path(for: face, in: $0) }.flatMap { try? PNG.read(path: $0) }
            }
            defer { textures.destroy() }
            renderer.draw(scene, into: target, textures: textures)
            return target.readPixels().flippedVertically()
        }
    }
}
