import ArgumentParser
import FolioBook
import FolioMath

/// The options of a headless render to PNG, shared by the commands that make images.
struct RenderOptions: ParsableArguments {
    @Argument(help: "A library (Library.json or its folder), a book manifest, a document (PDF, CBZ/CBT/CB7/CBR), or a folder of images or documents. Default: the bundled library.")
    var source: String?

    @Option(help: "Password of protected PDFs (or set FOLIO_PASSWORD).")
    var password: String?

    @Option(help: "Image size, WxH.")
    var size: String = "1280x720"

    @Option(help: ArgumentHelp("Layout view size in layout units (the scene is fitted to --size).", valueName: "WxH"))
    var view = "1280x720"

    @Option(help: "Folder of GLSL shaders (default: FOLIO_SHADERS, beside the binary, the package root).")
    var shaders: String?

    @Option(help: "Multisample antialiasing samples (0: off; default off on a software renderer, 4 on a GPU).")
    var msaa: Int?

    @Option(help: "PNG compression level 0-9.")
    var compression: Int = 1

    @Option(help: "Round the pages' outer corners by this radius, layout units (0: square).")
    var cornerRadius: Double = 0

    func validate() throws {
        _ = try parseSize(size)
        _ = try StateOptions.size(view, option: "--view")
        guard (0...9).contains(compression) else { throw ValidationError("--compression must be 0…9 (got \(compression))") }
        guard (0...60).contains(cornerRadius) else { throw ValidationError("--corner-radius must be 0…60 (got \(cornerRadius))") }
        guard (0...16).contains(msaa ?? 0) else { throw ValidationError("--msaa must be 0…16 samples (got \(msaa ?? 0))") }
    }

    /// The layout view size, layout units.
    var viewSize: Vec2 { get throws { try StateOptions.size(view, option: "--view") } }

    /// A headless session that draws pages of `library` at `--size`; close it when done.
    func session(library: Library) throws -> HeadlessSession {
        let (w, h) = try parseSize(size)
        let session = try HeadlessSession(library: library, width: w, height: h, msaa: msaa, shaders: shaders)
        session.renderer.settings.cornerRadius = cornerRadius
        return session
    }
}
