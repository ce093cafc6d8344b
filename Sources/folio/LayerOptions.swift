import ArgumentParser
import FolioReader
import FolioBook
import FolioFind
import FolioKit
import FolioLayout
import FolioMuPDF
import FolioOverlay
import FolioState

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

    @Option(help: ArgumentHelp("Search the open book's document for the phrase, mark its hits and show the count the viewer shows (\"“phrase” 1 of 17\", the first hit from the page shown); implies --ui.", valueName: "phrase"))
    var uiSearch: String?

    @Flag(help: "Show the contents panel of the open book, its current chapter marked; implies --ui.")
    var uiContents = false

    @Flag(help: "Show the notes panel of the open book: its highlights by chapter with their notes, and its bookmarks, from the state store; implies --ui.")
    var uiNotes = false

    @Option(help: ArgumentHelp("Show the Nth note referred to on the pages shown (1 for the first) over the page, as a click on its reference does; implies --ui.", valueName: "N"))
    var uiNote: Int?

    @Flag(help: "Show the typography card of the open reflowable book (typeface, margins, spacing, justification, hyphenation, the publisher's styles, the keys that change them); implies --ui.")
    var uiTypography = false

    var isOn: Bool { ui || uiHelp || uiGoto != nil || uiNotice != nil || uiSearch != nil || uiContents || uiNotes || uiNote != nil || uiTypography }

    func validate() throws {
        if let uiGoto, uiGoto.isEmpty || uiGoto.count > 6 || !uiGoto.allSatisfy(\.isASCII) || Int(uiGoto) == nil || uiGoto.hasPrefix("-") {
            throw ValidationError("--ui-goto wants a page number of 1 to 6 digits, not '\(uiGoto)'")
        }
        // One line on screen: a longer text would only be cut.
        if let uiNotice, uiNotice.count > 500 { throw ValidationError("--ui-notice is one line: at most 500 characters (got \(uiNotice.count))") }
        if uiContents && uiNotes { throw ValidationError("--ui-contents and --ui-notes share the panel: choose one") }
        if let uiNote, uiNote < 1 { throw ValidationError("--ui-note counts from 1, not \(uiNote)") }
    }

    /// Draws the layer (when asked) over the frame `pipeline` holds, for `library` in `phase`
    /// with book `book` open at `spread` of its layout in one page or two, or the shelf at `scroll`.
    func draw(on pipeline: FramePipeline, library: Library, phase: Scene.State, book: Int?, spread: Int, singlePage: Bool, scroll: Double) {
        guard isOn else { return }
        var state = LayerState()
        state.helpShown = uiHelp
        if let uiGoto, let n = Int(uiGoto) {
            let count = book.map { library.books[$0].pages.count } ?? 0
            if let answer = ReaderLayer.missingPage(n, count: count) { state.answer(answer, at: 0) } else { state.typing = "Go to page \(n)" }
        }
        if let uiNotice { state.notice(uiNotice, at: 0) }
        let shown = book.map { BookController.shownPages(spread: spread, singlePage: singlePage, imageCount: library.books[$0].pages.count) } ?? []
        if uiContents || uiNotes, let b = book {
            let book = library.books[b], store = uiNotes ? existingStateStore : nil
            let list = uiNotes
                ? ReaderLayer.notes(of: book, highlights: store?.highlights(of: book) ?? [],
                                    bookmarks: store.map { Bookmarks(store: $0, documents: commandDocuments).pages(of: book) } ?? [],
                                    shown: shown.first?.index ?? 0, in: commandDocuments)
                : ReaderLayer.contents(of: book, shown: shown.last?.index ?? 0, in: commandDocuments)
            if list.rows.isEmpty {
                state.answer(uiNotes ? ReaderLayer.noNotes : ReaderLayer.noContents, at: 0)
            } else {
                state.contents = list
                state.contents?.visible = OverlayLayout(width: pipeline.target.width, height: pipeline.target.height,
                                                        scale: pipeline.surface.contentScale).contentsRows
            }
        }
        if let uiNote, let b = book {
            let notes = shown.flatMap { page -> [(text: String, links: [NoteLink])] in
                guard let (path, index) = library.books[b].pages[page.index].documentPage, let doc = try? commandDocuments.open(path) else { return [] }
                return doc.links(page: index).compactMap { if case let .note(_, text, links) = $0.target { (text, links) } else { nil } }
            }
            if notes.indices.contains(uiNote - 1) {
                state.note = notes[uiNote - 1].text
                state.noteLinks = notes[uiNote - 1].links.map(\.label)
            } else {
                state.answer(notes.isEmpty ? "no notes are referred to on these pages" : "these pages refer to \(notes.count) note\(notes.count == 1 ? "" : "s")", at: 0)
            }
        }
        if uiTypography { state.typography = ReaderLayer.typographyRows(MuPDF.typography, fontSize: MuPDF.fontSize) }
        if let uiSearch, let b = book { state.searchLine = searchLine(uiSearch, in: library, book: b, images: shown.map(\.index)) }
        // What the store says of the books shown, as the viewer says it (when there is a store).
        if let store = existingStateStore, !library.books.isEmpty {
            let session = ReadingSession(library: library, settings: .init(), positions: ReadingPositions(store: store, documents: commandDocuments),
                                         documents: commandDocuments)
            if let b = book, phase != .shelf {
                state.timeLeft = session.timeLeft(book: b, last: shown.last)
            } else {
                state.shelfRead = session.readFraction(ofBook: min(max(Int(scroll.rounded()), 0), library.books.count - 1))
            }
        }
        pipeline.drawLayer(ReaderLayer.content(library: library, documents: commandDocuments, phase: phase, book: book, spread: spread,
                                               singlePage: singlePage, scroll: scroll, state: state, theme: pipeline.renderer.settings.theme))
    }

    /// What the viewer says of a search for `phrase` in book `b` showing page images `images`,
    /// the first hit on or after the first of them chosen.
    private func searchLine(_ phrase: String, in library: Library, book b: Int, images: [Int]) -> String {
        let book = library.books[b]
        guard let (path, page) = ReaderLayer.documentPage(book: book, image: images.first ?? 0),
              let progress = (try? markHits(of: phrase, in: library, option: "--ui-search"))?[path] else {
            return "this book has no text to search"
        }
        var cursor = HitCursor()
        _ = cursor.next(in: progress.hits, page: page)
        let shown = Set(images.compactMap { ReaderLayer.documentPage(book: book, image: $0) }.filter { $0.path == path }.map(\.page))
        return ReaderLayer.searchLine(progress, phrase: phrase, cursor: cursor, shown: shown)
    }

    /// The same over the frame of the pipeline's own controller (recordings).
    func draw(on pipeline: FramePipeline) {
        let c = pipeline.controller
        draw(on: pipeline, library: pipeline.library, phase: c.phase, book: c.book, spread: c.spread, singlePage: c.singlePage, scroll: c.scroll)
    }
}
