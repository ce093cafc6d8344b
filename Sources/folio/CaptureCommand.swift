import ArgumentParser
import FolioApp
import FolioBook
import FolioLayout
import FolioMath
import FolioPlatform
import FolioRender
import Foundation

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render one still of any state to PNG, headless (no display needed).")

    @Argument(help: "A library (Library.json or its folder), a book manifest or a folder of PNGs. Default: the bundled library.")
    var source: String?

    @Option(name: .shortAndLong, help: "Output PNG path.")
    var output: String = "folio.png"

    @Option(help: "Image size, WxH.")
    var size: String = "1280x720"

    @Option(help: ArgumentHelp("Layout view size in layout units (the scene is fitted to --size).", valueName: "WxH"))
    var view = "1280x720"

    @OptionGroup var state: StateOptions

    @Option(help: "Folder of GLSL shaders (default: FOLIO_SHADERS, beside the binary, the package root).")
    var shaders: String?

    @Option(help: "Multisample antialiasing samples (0: off; default off on a software renderer, 4 on a GPU).")
    var msaa: Int?

    @Option(help: "PNG compression level 0-9.")
    var compression: Int = 1

    func run() throws {
        let (w, h) = try parseSize(size)
        let library = try loadLibrary(source)
        let scene: Scene
        do {
            scene = try state.stillState(view: StateOptions.size(view, option: "--view")).scene(library: library.bookInfos)
        } catch let e as StillStateError {
            throw ValidationError(e.message)
        }
        let session = try HeadlessSession(library: library, width: w, height: h, msaa: msaa, shaders: shaders)
        defer { session.close() }
        session.draw(scene)
        try PNG.write(session.target.readPixels(), to: output, compression: compression, bottomUp: true)
        print(output)
    }
}

func parseSize(_ text: String) throws -> (Int, Int) {
    let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, (1...16384).contains(parts[0]), (1...16384).contains(parts[1]) else {
        throw ValidationError("--size must be WxH with each side 1…16384, e.g. 1280x720 (got \"\(text)\")")
    }
    return (parts[0], parts[1])
}

func loadLibrary(_ source: String?) throws -> Library {
    guard let path = source ?? Resources.textures() else {
        throw ValidationError("no SOURCE given and the bundled Textures/ folder was not found")
    }
    let library = Library.load(from: path)
    for p in library.problems { FileHandle.standardError.write(Data("folio: \(p)\n".utf8)) }
    return library
}
