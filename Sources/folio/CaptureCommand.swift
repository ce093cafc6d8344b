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
        let library = try loadLibrary(render.source, password: render.password)
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

/// The library `source` names; `password` (else FOLIO_PASSWORD) opens protected documents.
func loadLibrary(_ source: String?, password: String? = nil) throws -> Library {
    PageSources.password = password ?? ProcessInfo.processInfo.environment["FOLIO_PASSWORD"]
    guard let path = source ?? Resources.textures() else {
        throw ValidationError("no SOURCE given and the bundled Textures/ folder was not found")
    }
    let library = Library.load(from: path, logProblems: false)
    for p in library.problems { FileHandle.standardError.write(Data("folio: \(p)\n".utf8)) }
    return library
}
