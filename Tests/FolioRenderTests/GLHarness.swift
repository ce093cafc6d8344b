import FolioApp
import FolioBook
import FolioLayout
import FolioPlatform
import FolioRender
import Foundation

/// What a render test draws with: multisampling and texture filtering. Every test names the
/// one it compares against, so a machine with a GPU compares like with like.
struct RenderConfiguration: Sendable, CustomStringConvertible {
    var samples: Int
    var filtering: TextureFiltering

    /// What the reference images were made with: no multisampling, software filtering.
    static let reference = RenderConfiguration(samples: 0, filtering: .software)
    /// {MSAA 0, MSAA 4} × {software filtering, the GPU's}: llvmpipe runs them all.
    static let matrix = [0, 4].flatMap { s in TextureFiltering.allCases.map { RenderConfiguration(samples: s, filtering: $0) } }

    var description: String { "msaa \(samples), \(filtering.rawValue) filtering" }
}

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
    func render(_ scene: Scene, width: Int, height: Int, library: Library? = nil,
                configuration: RenderConfiguration = .reference,
                configure: (inout RenderSettings) -> Void = { _ in }) throws -> RGBAImage {
        try frames([scene], width: width, height: height, library: library, configuration: configuration, configure: configure)[0]
    }

    /// Renders `scenes` one after another into one target (as a viewer or a recording does,
    /// so the renderer's cached layer carries over) and returns each frame, rows top to bottom.
    func frames(_ scenes: [Scene], width: Int, height: Int, library: Library? = nil,
                configuration: RenderConfiguration = .reference,
                configure: (inout RenderSettings) -> Void = { _ in }) throws -> [RGBAImage] {
        try run { renderer in
            configure(&renderer.settings)
            let target = try Framebuffer(width: width, height: height, samples: configuration.samples)
            defer { target.destroy() }
            let textures = TextureStore(descriptor: .pages(configuration.filtering)) { face in
                library.flatMap { PageImages.path(for: face, in: $0) }.flatMap { try? PNG.read(path: $0) }
            }
            defer { textures.destroy() }
            let images = scenes.map { scene in
                renderer.draw(scene, into: target, textures: textures)
                return target.readPixels().flippedVertically()
            }
            // Debug builds stop at the error; a release build of the tests fails here.
            let errors = GLErrors.drain()
            guard errors.isEmpty else { throw GLFailure(errors: errors) }
            return images
        }
    }
}

struct GLFailure: Error, CustomStringConvertible {
    var errors: [String]
    var description: String { "GL errors: " + errors.joined(separator: "; ") }
}
