import ArgumentParser
import FolioReader
import FolioBook
import FolioKit
import FolioMath
import FolioPlatform
import FolioRender

/// How frames are drawn and written, shared by every command that makes images (through
/// `RenderOptions`, and `flip`, which takes images rather than a SOURCE).
struct DrawingOptions: ParsableArguments {
    @Option(help: "Folder of GLSL shaders (default: FOLIO_SHADERS, then folio/Shaders in PREFIX/share or the XDG data folders).")
    var shaders: String?

    @Option(help: "Multisample antialiasing samples (0: off; default off on a software renderer, 4 on a GPU).")
    var msaa: Int?

    @Option(help: "PNG compression level 0-9.")
    var compression: Int = 1

    @OptionGroup var look: ThemeOptions

    func validate() throws {
        guard (0...9).contains(compression) else { throw ValidationError("--compression must be 0…9 (got \(compression))") }
        try Self.checkMSAA(msaa)
    }

    /// The one rule for `--msaa` in every command (view, capture, record, bench, flip).
    static func checkMSAA(_ msaa: Int?) throws {
        guard (0...16).contains(msaa ?? 0) else { throw ValidationError("--msaa must be 0…16 samples (got \(msaa ?? 0))") }
    }
}

/// The options of a headless render to PNG, shared by the commands that make images.
struct RenderOptions: ParsableArguments {
    @Argument(help: "A library (Library.json or its folder), a book manifest, a document (PDF, EPUB, MOBI, FB2, XPS, CBZ/CBT/CB7/CBR), a folder of images or documents, or one page image (the book of the folder it is in; capture opens it at that page). Default: the bundled library.")
    var source: String?

    /// What the command reads, which its outputs never replace (`OutputFile.reads`).
    var reads: [String] { source.map { [$0] } ?? [] }

    @Option(help: "Password of protected PDFs (or set FOLIO_PASSWORD).")
    var password: String?

    @Option(help: "Image size, WxH.")
    var size: String = "1280x720"

    @Option(name: .customLong("view"),
            help: ArgumentHelp("Layout view size in layout units (the scene is fitted to --size). Default: the viewer's, a window of --size: 1280x720 widened or heightened to its shape.", valueName: "WxH"))
    var viewGiven: String?

    /// `--view` as given, else the viewer's base view (`viewSize` fits it to `--size`).
    var view: String { viewGiven ?? "1280x720" }

    @OptionGroup var drawing: DrawingOptions
    var shaders: String? { drawing.shaders }
    var msaa: Int? { drawing.msaa }
    var compression: Int { drawing.compression }

    @Option(parsing: .unconditional, help: "Round the pages' outer corners by this radius, layout units (0: square).")
    var cornerRadius: Double = 0

    @Flag(help: "Show zoomed PDF pages from their whole-page image only, not the part shown rasterised at the scale shown (for comparison).")
    var noDetail = false

    func validate() throws {
        let (w, h) = try parseSize(size)
        // Colour and depth, 8 bytes a sample: --msaa 16 at 8192² took 4.5 GB.
        if let samples = msaa, samples > 1, samples * w * h > Self.maxSamples {
            throw ValidationError("--msaa \(samples) at \(size) needs \((samples * w * h * 8) >> 20) MiB of samples; at most "
                + "\((Self.maxSamples * 8) >> 20) MiB are drawn: lower --msaa or --size")
        }
        if let viewGiven { _ = try StateOptions.size(viewGiven, option: "--view") }
        guard (0...60).contains(cornerRadius) else { throw ValidationError("--corner-radius must be 0…60 (got \(cornerRadius))") }
    }

    /// Samples a multisampled frame may have in all (2 GiB of colour and depth).
    static let maxSamples = 1 << 28

    /// The one rule for `--fps` (record, flip): below 1 a recording would last for ages.
    static func checkFPS(_ fps: Double) throws {
        guard (1...240).contains(fps) else { throw ValidationError("--fps must be 1…240 (got \(fps))") }
    }

    /// The layout view size, layout units: `--view`, else what a window of `--size` shows (the
    /// viewer fits its base view to the window's shape, `ViewMapping.fittedViewSize`), so that
    /// `--size 720x1280` alone is a tall window's one page.
    var viewSize: Vec2 {
        get throws {
            if let viewGiven { return try StateOptions.size(viewGiven, option: "--view") }
            let (w, h) = try parseSize(size)
            return ViewMapping(width: w, height: h, viewSize: Vec2(1280, 720)).fittedViewSize
        }
    }

    /// A headless frame pipeline that draws pages of `library` at `--size`, each frame waiting
    /// for its images, on `context` (made current on this thread) or a new one; `destroy()` it when done.
    func pipeline(library: Library, settings: BookController.Settings = .init(), context: HeadlessContext? = nil) throws -> FramePipeline {
        let (w, h) = try parseSize(size)
        let pipeline = try headlessPipeline(library: library, width: w, height: h, view: try viewSize, msaa: msaa, shaders: shaders,
                                        settings: settings, detailPages: !noDetail, context: context)
        pipeline.renderer.settings.cornerRadius = cornerRadius
        drawing.look.apply(to: &pipeline.renderer.settings)
        return pipeline
    }
}

/// A pipeline on an EGL context of `width × height` whose frames wait for their images: what
/// every headless command draws with. Destroy it when done (the context with it: a `context`
/// given, current on this thread, too).
/// `view`: the layout view (units) that fits the image.
func headlessPipeline(library: Library, width: Int, height: Int, view: Vec2, msaa: Int?, shaders: String?,
                      settings: BookController.Settings = .init(), detailPages: Bool = true,
                      context: HeadlessContext? = nil) throws -> FramePipeline {
    let context = try context ?? HeadlessContext.make()
    context.framebufferSize = (width, height)
    do {
        var configuration = PipelineConfiguration(shaders: try ShaderFolder.locate(explicit: shaders))
        configuration.samples = msaa
        configuration.documents = commandDocuments
        configuration.waitsForImages = true
        configuration.waitsForLayouts = true
        configuration.baseView = view
        configuration.detailPages = detailPages
        return try FramePipeline(surface: context, library: library, configuration: configuration, settings: settings)
    } catch {
        context.destroy()
        throw error
    }
}
