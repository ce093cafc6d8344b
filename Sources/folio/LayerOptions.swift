import ArgumentParser
import FolioApp
import FolioBook
import FolioKit
import FolioLayout
import FolioOverlay

/// `--ui` and its parts: the on-screen layer drawn over headless frames as the viewer shows it,
/// with the parts that answer a key (help, go to page) or a problem (a notice) asked for by name.
struct LayerOptions: ParsableArguments {
    @Flag(help: "Draw the on-screen layer over the image as the viewer shows it: the centred book's title and author on the shelf, the progress bar with the page labels in a book.")
    var ui = false

    @Flag(help: "Show the help card (the keys) too; implies --ui.")
    var uiHelp = false

    @Option(help: ArgumentHelp("Show the go-to-page field with N typed, or the viewer's answer when the book has no page N; implies --ui.", valueName: "N"))
    var uiGoto: String?

    @Option(help: ArgumentHelp("Show a one-line notice; implies --ui.", valueName: "text"))
    var uiNotice: String?

    var isOn: Bool { ui || uiHelp || uiGoto != nil || uiNotice != nil }

    func validate() throws {
        if let uiGoto, uiGoto.isEmpty || uiGoto.count > 6 || !uiGoto.allSatisfy(\.isASCII) || Int(uiGoto) == nil || uiGoto.hasPrefix("-") {
            throw ValidationError("--ui-goto wants a page number of 1 to 6 digits, not '\(uiGoto)'")
        }
        // One line on screen: a longer text would only be cut.
        if let uiNotice, uiNotice.count > 500 { throw ValidationError("--ui-notice is one line: at most 500 characters (got \(uiNotice.count))") }
    }

    /// Draws the layer (when asked) over the frame `pipeline` holds, for `library` in `phase`
    /// with book `book` open at `spread`, or the shelf at `scroll`.
    func draw(on pipeline: FramePipeline, library: Library, phase: Scene.State, book: Int?, spread: Int, scroll: Double) {
        guard isOn else { return }
        var state = LayerState()
        state.helpShown = uiHelp
        if let uiGoto, let n = Int(uiGoto) {
            let count = book.map { library.books[$0].pages.count } ?? 0
            if let answer = ReaderLayer.missingPage(n, count: count) { state.answer(answer, at: 0) } else { state.typing = "Go to page \(n)" }
        }
        if let uiNotice { state.notice(uiNotice, at: 0) }
        pipeline.drawLayer(ReaderLayer.content(library: library, phase: phase, book: book, spread: spread, scroll: scroll, state: state))
    }

    /// The same over the frame of the pipeline's own controller (recordings).
    func draw(on pipeline: FramePipeline) {
        let c = pipeline.controller
        draw(on: pipeline, library: pipeline.library, phase: c.phase, book: c.book, spread: c.spread, scroll: c.scroll)
    }
}
