import FolioBook
import FolioFind
import FolioLayout
import FolioOverlay
import FolioReader
import FolioState
import Foundation

/// The reader's highlights and notes in the open book: the words selected highlighted (Shift+H,
/// again for the next colour), a note written on them (I, typed on the entry line), the
/// highlights they touch taken away (Delete), and the panel listing them with the bookmarks
/// (X). Kept in the state store, painted on the paper by `PageMarks`. Does not: find the words
/// under the pointer (`PagePointer`), or draw.
final class PageHighlights: PipelinePart {
    /// The highlight a note is being typed for.
    private var noting: Highlight?

    /// A book opened: its highlights and bookmarks are painted.
    override func update(at now: Double) { whenABookOpens(show(of:)) }

    /// Escape on the entry line: the note is not kept.
    func cancelNote() { noting = nil }

    /// The open book's document and the store its highlights are kept in; nil (with the reason)
    /// when they cannot be kept.
    private func highlightTarget() -> Result<(book: Book, path: String, store: StateStore), HighlightRefusal> {
        guard let b = controller.book, let path = p.library.books[b].document else { return .failure(.noText) }
        guard let store = p.configuration.positions?.store else { return .failure(.noStore) }
        return .success((p.library.books[b], path, store))
    }

    /// Why the highlight keys did nothing, as the reader is told.
    enum HighlightRefusal: Error, CustomStringConvertible {
        case noText, noStore, noSelection

        var description: String {
            switch self {
            case .noText: "this book has no text to highlight"
            case .noStore: "highlights are not kept: the state store cannot be used"
            case .noSelection: "nothing selected: Shift + drag (or Shift + click a word) selects words"
            }
        }
    }

    /// Loads the open book's highlights and bookmarks to be painted on its pages (a book opened,
    /// or laid out again): the ribbons of the marks made in this layout, which cost no counting
    /// on the viewer's thread; M and Shift+M place the others.
    func show(of book: Book) {
        guard let path = book.document, let store = p.configuration.positions?.store else { return }
        p.marks.setHighlights(store.highlights(of: book), for: path)
        p.marks.setRibbons(Bookmarks(store: store, documents: p.configuration.documents).documentPages(of: book, atHand: true), for: path)
    }

    /// The open book's bookmarks changed or were gone through (M, Shift+M): every mark's ribbon
    /// painted, on the pages shown at once.
    func bookmarksChanged() {
        guard let b = controller.book, let path = p.library.books[b].document, let store = p.configuration.positions?.store else { return }
        p.marks.setRibbons(Bookmarks(store: store, documents: p.configuration.documents).documentPages(of: p.library.books[b]), for: path)
        p.pages.redrawNow(book: b, images: Set(controller.shownPages))
        p.needsRender = true
    }

    /// The highlights the words selected make: one for the words of a reflowable book's chapter
    /// (across the two pages of a spread), one a page for fixed pages.
    private func selectedHighlights() -> [Highlight] {
        guard let selection = p.pointer.selection, let source = try? p.configuration.documents.open(selection.path) else { return [] }
        let reflowing = (source as? any ReflowableSource).flatMap { $0.reflowable ? $0 : nil }
        var made: [Highlight] = []
        for part in selection.words where !part.words.isEmpty {
            guard let text = (try? source.text(page: part.page)) ?? nil, part.range.upperBound <= text.words.count else { continue }
            let anchor = Highlight.anchor(words: part.range, of: text, page: part.page, start: reflowing?.textPosition(ofPage: part.page))
            if case let .text(chapter, _, end)? = made.last?.anchor, case let .text(c, start, e) = anchor, c == chapter, start >= end {
                // The spread's second page goes on with the same chapter: one highlight.
                made[made.count - 1].anchor = .text(chapter: chapter, start: made[made.count - 1].startOffset ?? start, end: e)
                made[made.count - 1].text += " " + part.words.map(\.text).joined(separator: " ")
            } else {
                made.append(Highlight(anchor: anchor, text: part.words.map(\.text).joined(separator: " ")))
            }
        }
        return made
    }

    /// Runs `body` with the open book, its document, the store and the highlights the words
    /// selected make; says why not when there is no store, no text or nothing selected.
    private func withSelection(_ body: (Book, String, StateStore, [Highlight]) -> Void) {
        switch highlightTarget() {
        case let .failure(refusal): p.showNotice(refusal.description)
        case let .success((book, path, store)):
            let selected = selectedHighlights()
            guard !selected.isEmpty else { return p.showNotice(HighlightRefusal.noSelection.description) }
            body(book, path, store, selected)
        }
    }

    /// Shift+H: the words selected highlighted in yellow; when they are highlighted already, in
    /// the next colour (their notes kept).
    func highlight(at now: Double) {
        withSelection { book, path, store, wanted in
            let kept = store.highlights(of: book)
            let colour = kept.first { $0.anchor == wanted[0].anchor }?.colour.next ?? .yellow
            let made = wanted.map { h in
                Highlight(anchor: h.anchor, text: h.text, note: kept.first { $0.anchor == h.anchor }?.note, colour: colour)
            }
            guard store.add(made, to: book) != nil else {
                return p.showNotice("highlight not saved: \(FileName.printable(store.path)) cannot be written")
            }
            p.titleNote = "highlighted in \(colour.rawValue)"
            refreshHighlights(book: book, path: path, store: store)
        }
    }

    /// Delete: the highlights touching the words selected taken away.
    func removeSelected(at now: Double) {
        withSelection { book, path, store, selected in
            let touched = store.highlights(of: book).filter { h in selected.contains { $0.overlaps(h) } }
            guard !touched.isEmpty else { return p.showNotice("no highlight there to take away") }
            for h in touched { if let id = h.id { store.remove(highlight: id) } }
            p.titleNote = touched.count == 1 ? "highlight taken away" : "\(touched.count) highlights taken away"
            refreshHighlights(book: book, path: path, store: store)
        }
    }

    /// I: the entry line takes a note for the words selected (the highlight's note to edit when
    /// they are highlighted); Enter keeps it (`keepNote`).
    func annotate(at now: Double) {
        guard p.configuration.showsLayer else { return }
        withSelection { book, _, store, wanted in
            let existing = store.highlights(of: book).first { $0.anchor == wanted[0].anchor }
            noting = existing ?? wanted[0]
            p.layer.openField(.note, with: existing?.note ?? "")
            p.layer.fade.show(at: now)
            p.needsRender = true
        }
    }

    /// Enter on the note field: the note kept on its highlight (made when the words were not
    /// highlighted yet); an empty note takes the note away and leaves the highlight.
    func keepNote(_ text: String) {
        p.layer.closeField()
        guard let highlight = noting, case let .success((book, path, store)) = highlightTarget() else { return }
        noting = nil
        let note = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let kept = Highlight(anchor: highlight.anchor, text: highlight.text, note: note.isEmpty ? nil : note, colour: highlight.colour)
        guard store.add(kept, to: book) != nil else {
            return p.showNotice("note not saved: \(FileName.printable(store.path)) cannot be written")
        }
        p.titleNote = note.isEmpty ? "note taken away" : "note kept"
        refreshHighlights(book: book, path: path, store: store)
    }

    /// The highlights painted again from the store, the selection let go, and the pages shown
    /// drawn again at once: the change shows in the next frame.
    private func refreshHighlights(book: Book, path: String, store: StateStore) {
        p.marks.setHighlights(store.highlights(of: book), for: path)
        p.pointer.clear()
        guard let b = controller.book else { return }
        p.pages.redrawNow(book: b, images: Set(controller.shownPages))
        p.needsRender = true
    }

    /// X: the panel of the open book's highlights and notes, by chapter, and its bookmarks.
    func showPanel(at now: Double) {
        switch highlightTarget() {
        case let .failure(refusal): p.showNotice(refusal.description)
        case let .success((book, _, store)):
            var list = ReaderLayer.notes(of: book, highlights: store.highlights(of: book), bookmarks: Bookmarks(store: store, documents: p.configuration.documents).pages(of: book),
                                         shown: p.shownImage, in: p.configuration.documents)
            guard !list.rows.isEmpty else { return p.layer.answer(ReaderLayer.noNotes, at: now) }
            list.visible = p.layerLayout.contentsRows
            p.layer.contents = list
            p.layer.fade.show(at: now)
            p.needsRender = true
        }
    }

    /// Delete on a row of the notes panel: its highlight taken away, the panel shown again.
    func remove(row: Int, at now: Double) {
        guard let list = p.layer.contents, list.rows.indices.contains(row), let id = list.rows[row].tag,
              case let .success((book, path, store)) = highlightTarget() else { return }
        store.remove(highlight: id)
        p.marks.setHighlights(store.highlights(of: book), for: path)
        if let image = list.rows[row].target, let b = controller.book {
            p.pages.redrawNow(book: b, images: [PageImage(index: image)])
            p.needsRender = true
        }
        // The panel again, without the row (none at all when it was the last).
        p.layer.contents = nil
        showPanel(at: now)
        if var shown = p.layer.contents {
            shown.move(by: row - shown.selected)
            p.layer.contents = shown
        }
    }

    /// Shift+D: the first word selected looked up in the dictionaries installed, its entry
    /// shown on the note card; a line when there is none, or no dictionary.
    func lookUp(at now: Double) {
        guard let word = p.pointer.selectedText.flatMap(Dictionaries.word(in:)) else {
            return p.showNotice("nothing selected: Shift + click a word to look it up")
        }
        switch p.configuration.dictionaries.lookUp(word) {
        case let .entry(text): p.showNote(text, at: now)
        case let .notFound(line), let .noDictionary(line): p.showNotice(line)
        }
    }
}

extension Highlight {
    /// Where a reflowable book's highlight starts in its chapter.
    var startOffset: Int? { if case let .text(_, start, _) = anchor { start } else { nil } }

    /// Whether it and `other` share words: characters of the same chapter, or boxes of the
    /// same page that cross.
    func overlaps(_ other: Highlight) -> Bool {
        switch (anchor, other.anchor) {
        case let (.text(c1, s1, e1), .text(c2, s2, e2)): c1 == c2 && s1 < e2 && s2 < e1
        case let (.page(p1, b1), .page(p2, b2)): p1 == p2 && b1.contains { a in b2.contains { !a.intersection($0).isEmpty } }
        default: false
        }
    }
}

