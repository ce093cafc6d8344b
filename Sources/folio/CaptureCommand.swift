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

    @OptionGroup var render: RenderOptions

    @Option(name: .shortAndLong, help: "Output PNG path.")
    var output: String = "folio.png"

    @OptionGroup var state: StateOptions

    func run() throws {
        let library = try loadLibrary(render.source)
        let scene: Scene
        do {
            scene = try state.stillState(view: render.viewSize).scene(library: library.bookInfos)
        } catch let e as StillStateError {
            throw ValidationError(e.message)
        }
        let session = try render.session(library: library)
        defer { session.close() }
        session.draw(scene)
        try PNG.write(session.target.readPixels(), to: output, compression: render.compression, bottomUp: true)
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
    guard var path = source ?? Resources.textures() else {
        throw ValidationError("no SOURCE given and the bundled Textures/ folder was not found")
    }
    // A page image chosen on its own (the desktop entry's "Open with") stands for the folder
    // of pages it is in.
    var isFolder: ObjCBool = false
    if path.lowercased().hasSuffix(".png"), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
        path = URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
    let library = Library.load(from: path, logProblems: false)
    for p in library.problems { FileHandle.standardError.write(Data("folio: \(p)\n".utf8)) }
    return library
}
