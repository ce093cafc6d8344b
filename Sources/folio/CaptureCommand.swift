import ArgumentParser
import FolioApp
import FolioBook
import FolioLayout
import FolioMath
import Foundation

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render one still of any state to PNG, headless (no display needed).")

    @OptionGroup var render: RenderOptions

    @Option(name: .shortAndLong, help: "Output PNG path (a file, a link to one, a character device such as /dev/stdout, or a FIFO).")
    var output: String = "folio.png"

    @Flag(help: "Replace the output even if it is not a PNG image.")
    var force = false

    @OptionGroup var state: StateOptions
    @OptionGroup var tuning: TuningOptions

    func validate() throws {
        try checkPNGName(output, option: "-o")
    }

    func run() throws {
        // The output is checked before anything is drawn: a bad path fails at once.
        let file = OutputFile(output, replace: force ? .always : .onlyPNG)
        try file.prepare()
        Interrupt.catchSignals(notice: "interrupted; stopping before the image is written")
        let library = try loadLibrary(render.source, password: render.password)
        var still = try state.stillState(view: render.viewSize)
        try tuning.apply(to: &still)
        still.show(library.namedPage)
        let scene: Scene
        do {
            scene = try still.scene(library: library.bookInfos)
        } catch {
            throw ValidationError(error.message)
        }
        let pipeline = try render.pipeline(library: library)
        defer { pipeline.destroy() }
        pipeline.draw(scene)
        if Interrupt.requested { throw Failure(.interrupted, "interrupted; \(output) is not written") }
        try PNG.write(pipeline.target.readPixels(), to: file, compression: render.compression, bottomUp: true)
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
        throw Failure(.noInput, "no SOURCE given and the bundled Textures/ folder was not found")
    }
    try requireSource(path)
    let library = Library.load(from: path, logProblems: false)
    report(library.problems)
    try requireBooks(library, source: path)
    return library
}

/// Fails (66) when a source is not there at all.
func requireSource(_ source: String) throws {
    var st = stat()
    guard stat(FileName.bytes(source), &st) == 0 else { throw Failure(.noInput, "\(source): \(FileError.reason())") }
}

/// Fails (65) when a library has no book (the problems printed before say why).
func requireBooks(_ library: Library, source: String) throws {
    guard library.books.isEmpty else { return }
    throw Failure(.data, "\(source): no book could be opened")
}
