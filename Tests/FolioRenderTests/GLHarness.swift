import FolioBook
import FolioImage
import FolioKit
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

/// One headless frame pipeline for the whole test process, the one captures use: page images
/// decode in the background and reach the renderer as they do in every command. GL contexts
/// belong to one thread at a time and tests run on many, so every use takes a lock and makes
/// the context current.
final class GLHarness: @unchecked Sendable {
    /// Mesa's software rasteriser, pinned: what every reference image is compared on, so the
    /// same pixels come out on a machine with a GPU.
    static let shared = GLHarness(rasteriser: .software)
    /// Whatever the machine renders with: a GPU where there is one.
    static let gpu = GLHarness(rasteriser: .any)
    /// Whether `gpu` runs on a GPU (not on a software rasteriser).
    static let gpuPresent: Bool = (try? gpu.run { _ in !["llvmpipe", "softpipe"].contains(where: GLInfo.renderer.contains) }) ?? false

    private let rasteriser: HeadlessContext.Rasteriser
    private let lock = NSLock()
    private var pipeline: FramePipeline?
    private var failure: Error?

    private init(rasteriser: HeadlessContext.Rasteriser) { self.rasteriser = rasteriser }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
    static var shaders: String { packageRoot.appendingPathComponent("Shaders").path }
    static var textures: String { packageRoot.appendingPathComponent("Textures").path }
    private static let noBooks = Library(title: "", books: [])

    /// Runs `body` with the context current; the renderer's settings are restored after it.
    func run<T>(_ body: (FramePipeline) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        if pipeline == nil {
            do {
                let context = try HeadlessContext.make(rasteriser: rasteriser)
                var configuration = PipelineConfiguration(shaders: Self.shaders)
                configuration.waitsForImages = true
                configuration.samples = 0
                configuration.filtering = .software
                pipeline = try FramePipeline(surface: context, library: Self.noBooks, configuration: configuration)
            } catch {
                failure = error
                throw error
            }
        }
        let p = pipeline!
        p.surface.makeCurrent()
        defer { (p.surface as? HeadlessContext)?.releaseCurrent() }
        let saved = p.renderer.settings
        defer { p.renderer.settings = saved }
        // A test before may have drawn into the target past the renderer (a clear, its own
        // renderer): the next frame drawn from the cached layer restores all of it.
        p.renderer.drewOver(PixelRect(x: 0, y: 0, width: p.target.width, height: p.target.height), in: p.target)
        // The books printed on paper are the library's, as the pipeline set them when it took
        // the library (a run before may have left its own; a test may still set others).
        p.renderer.settings.printedBooks = Set(p.library.books.indices.filter { p.library.books[$0].isPrinted })
        return try body(p)
    }

    /// Makes the shared context current again after a test made and freed one of its own
    /// (call inside `run`).
    func restoreContext() { pipeline?.surface.makeCurrent() }

    /// Renders `scene` at `width × height` and returns the image, rows top to bottom.
    func render(_ scene: Scene, width: Int, height: Int, library: Library? = nil,
                configuration: RenderConfiguration = .reference,
                configure: (inout RenderSettings) -> Void = { _ in }) throws -> RGBAImage {
        try frames([scene], width: width, height: height, library: library, configuration: configuration, configure: configure)[0]
    }

    /// Renders `scenes` one after another into one target (as a viewer or a recording does,
    /// so the renderer's cached layer carries over) and returns each frame, rows top to bottom.
    /// `start` sees the renderer before the first frame, `afterEach` after each and `inspect`
    /// after the last, with no other test drawing in between (suites run side by side on the
    /// one context).
    func frames(_ scenes: [Scene], width: Int, height: Int, library: Library? = nil,
                configuration: RenderConfiguration = .reference,
                configure: (inout RenderSettings) -> Void = { _ in },
                start: (Renderer) -> Void = { _ in },
                inspect: (Renderer) -> Void = { _ in }, afterEach: (Renderer) -> Void = { _ in }) throws -> [RGBAImage] {
        try run { pipeline in
            configure(&pipeline.renderer.settings)
            start(pipeline.renderer)
            pipeline.replaceLibrary(library ?? Self.noBooks)
            pipeline.setFiltering(configuration.filtering)
            guard pipeline.resizeTarget(width: width, height: height, samples: configuration.samples) else {
                throw GLFailure(errors: ["cannot make a \(width)×\(height) target"])
            }
            let images = scenes.map { scene in
                pipeline.draw(scene)
                defer { afterEach(pipeline.renderer) }
                return pipeline.target.readPixels().flippedVertically()
            }
            inspect(pipeline.renderer)
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
