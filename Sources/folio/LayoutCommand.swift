import ArgumentParser
import FolioReader
import FolioScript
import FolioBook
import FolioLayout
import Foundation

/// `folio layout`: prints the scene of a state as JSON.
struct Layout: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the scene of a state as JSON (layout units: 362 × 568 pages).")

    @Argument(help: "A library manifest, a folder of images, or one page image (the book of its folder, open at it). Default: the bundled library.")
    var source: String?
    @Option(help: ArgumentHelp("View size in layout units.", valueName: "WxH"))
    var view = "1280x720"
    @OptionGroup var state: StateOptions
    @OptionGroup var tuning: TuningOptions

    func run() throws {
        var still = try state.stillState(view: StateOptions.size(view, option: "--view"))
        try tuning.apply(to: &still)
        let library = try loadLibrary(source)
        still.show(library.namedPage)
        let json = LayoutJSON.encode(try still.scene(library: library.bookInfos))
        // One write, not stdio's: a scene's JSON outgrows stdio's buffer, whose failed writes
        // would be lost before the flush at exit could report them.
        do { try FileHandle.standardOutput.write(contentsOf: Data(json.utf8)) } catch {
            throw Failure(.io, "standard output: cannot write: \(FileError.reason())")
        }
    }
}
