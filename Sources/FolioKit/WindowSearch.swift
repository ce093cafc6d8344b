import FolioBook
import FolioFind
import FolioInput
import FolioLayout
import FolioOverlay
import FolioReader

/// A search typed in the window: the open book's document searched in the background from the
/// page shown, its hits marked on the pages, the first one turned to, N / Shift+N moving on.
/// It owns the layer's entry line, which a note (`PageHighlights`) and a form's field
/// (`FormFilling`) borrow. The frame loop only reads the search's progress; it never waits for
/// it. Does not: search (`Search`), or draw.
final class WindowSearch: PipelinePart {
    /// The search running, and what of it is shown.
    struct Running {
        let search: Search
        /// The document searched, and the book showing it.
        let path: String
        let book: Int
        var cursor = HitCursor()
        /// The hit shown (its index in the hits moves when pages before it are searched later).
        var shown: SearchHit?
        /// Hits marked on the pages so far, and the document's pages they are on.
        var marked = 0
        var markedPages: Set<Int> = []
        /// Turns to the first hit found: a search typed does; one run again on a new layout
        /// leaves the reader where they are.
        var turnsToFirstHit = true
    }

    private(set) var finding: Running?
    /// A phrase searched in every book as it opens (`searchEveryBook`), and the book it was last started in.
    private var standing: (phrase: String, book: Int?)?
    /// Seconds between looks at a running search.
    static let poll = 0.1

    /// Whether the search field can open: in an open book, with the layer shown.
    private var searchable: Bool { p.configuration.showsLayer && controller.book != nil && controller.phase == .reading }

    /// Opens the search field with the last phrase to edit (`/` typed, or the key map's Ctrl+F).
    func openField(at now: Double) {
        guard searchable else { return }
        layer.openField(.find, with: finding?.search.phrase.text ?? "")
        layer.fade.show(at: now)
        p.needsRender = true
    }

    /// Keys and typed text for the entry field: `/` typed in an open book opens it to search, `i`
    /// to write a note;
    /// while open it takes every key (Enter searches or keeps the note typed, Escape closes,
    /// Backspace erases) and the text typed. True when the event was used up.
    func takes(_ event: InputEvent, at now: Double) -> Bool {
        guard searchable else { return false }
        switch event {
        case let .text(typed):
            if layer.field != nil {
                layer.typeInField(typed)
            } else if let binding = KeyMap.bindings.first(where: { $0.context == .book && $0.typed.contains(typed) }) {
                // Characters that open a field come as text, so they are not typed into it.
                p.perform(binding.action, at: now, origin: .key)
            } else {
                return false
            }
        case let .key(key, _, _):
            if layer.field == nil {
                return false
            } else {
                switch key {
                case .escape:
                    layer.closeField()
                    p.highlights.cancelNote()
                    p.form.cancel()
                case .backspace: layer.eraseInField()
                case .enter where layer.fieldPurpose == .note: p.highlights.keepNote(layer.field ?? "")
                case .enter where layer.fieldPurpose == .form: p.form.keep(layer.field ?? "")
                case .enter: start(layer.field ?? "", at: now)
                // Fullscreen and a screenshot work over the field.
                case .f11, .f12: return false
                // Other keys: their characters come as text.
                default: break
                }
            }
        default:
            return false
        }
        layer.fade.show(at: now)
        p.needsRender = true
        return true
    }

    /// Searches the open book's document for `text` from the page shown, dropping the last
    /// search and its marks; an empty or overlong phrase, or a book of images, is answered.
    /// With `turnsToFirstHit` the book turns to the first hit found.
    func start(_ text: String, at now: Double, turnsToFirstHit: Bool = true) {
        layer.closeField()
        end()
        guard let b = controller.book, let (path, page) = ReaderLayer.documentPage(book: library.books[b], image: p.shownImage) else {
            layer.searchLine = "this book has no text to search"
            return
        }
        let phrase: Phrase
        do {
            phrase = try Phrase(text)
        } catch {
            layer.searchLine = "\(error)"
            return
        }
        guard let source = try? p.configuration.documents.open(path) else {
            layer.searchLine = "this book has no text to search"
            return
        }
        let search = Search(phrase, in: PageTextCache(source: source), from: page)
        finding = Running(search: search, path: path, book: b, turnsToFirstHit: turnsToFirstHit)
        layer.searchLine = ReaderLayer.searchLine(search.progress, phrase: phrase.text, cursor: HitCursor(), shown: [])
        p.configuration.startsSearch(search)
    }

    /// Stops the running search (the pipeline goes).
    func cancel() { finding?.search.cancel() }

    /// Stops the running search and takes its marks off the pages.
    func end() {
        guard let old = finding else { return }
        old.search.cancel()
        finding = nil
        p.marks.set([:], for: old.path)
        p.marks.setCurrent([], page: 0, of: old.path)
        p.marksChanged(pages: old.markedPages, of: old.path, book: old.book)
    }

    /// Moves the search on to what its threads have found: new hits marked (only the pages they
    /// are on are rasterised again, and only where they are held), the first turned to, the
    /// count shown. Called every frame; costs a lock while nothing changed.
    override func update(at now: Double) {
        // A book closed: the phrase is searched again when it opens again.
        if controller.book == nil, standing?.book != nil { standing?.book = nil }
        // The search is the open book's: closing it takes its field, its line and its marks away.
        if controller.phase == .closing || controller.phase == .shelf {
            end()
            if layer.searchLine != nil || layer.field != nil {
                layer.searchLine = nil
                layer.closeField()
                p.needsRender = true
            }
            return
        }
        if finding == nil, let standing, standing.book != controller.book, controller.phase == .reading {
            self.standing?.book = controller.book
            start(standing.phrase, at: now)
        }
        guard var s = finding else { return }
        guard controller.book == s.book else {
            // The book was closed or another opened: the search is over.
            end()
            layer.searchLine = nil
            return
        }
        let progress = s.search.progress
        if progress.hits.count != s.marked {
            p.marks.set(hits: progress.hits, for: s.path)
            // A page's hits come all at once: the pages newly among the hits' are the changed ones.
            let marked = Set(progress.hits.map(\.page))
            p.marksChanged(pages: marked.subtracting(s.markedPages), of: s.path, book: s.book)
            s.marked = progress.hits.count
            s.markedPages = marked
        }
        if let hit = s.shown {
            s.cursor.follow(hit, in: progress.hits)
        } else if !progress.hits.isEmpty, s.turnsToFirstHit {
            finding = s
            turnToHit(forward: true, at: now)
            s = finding ?? s
        }
        finding = s
        let line = ReaderLayer.searchLine(progress, phrase: s.search.phrase.text, cursor: s.cursor, shown: shownPages(of: s))
        if line != layer.searchLine { layer.searchLine = line }
    }

    /// Searches `phrase` in every book as it opens, as if typed in its search field
    /// (`folio view --search`); nil stops.
    func searchEveryBook(for phrase: String?) {
        standing = phrase.map { ($0, nil) }
        p.needsRender = true
    }

    /// N / Shift+N: the next or previous hit of the search, turned to.
    func turnToHit(forward: Bool, at now: Double) {
        guard var s = finding, controller.book == s.book else {
            p.titleNote = "no search in this book (/ or Ctrl+F searches)"
            return
        }
        let hits = s.search.progress.hits
        let book = library.books[s.book]
        let page = ReaderLayer.documentPage(book: book, image: p.shownImage)?.page ?? 0
        // Moved away from the hit (not on the way to it): N goes on from the page shown.
        if let at = s.shown, !controller.isAnimating, !shownPages(of: s).contains(at.page) { s.cursor = HitCursor() }
        guard let hit = forward ? s.cursor.next(in: hits, page: page) : s.cursor.previous(in: hits, page: page),
              let target = book.pages.firstIndex(of: .document(s.path, index: hit.page)) else { return }
        let before = s.shown
        s.shown = hit
        finding = s
        p.marks.setCurrent(hit.boxes, page: hit.page, of: s.path)
        p.marksChanged(pages: Set([before?.page, hit.page].compactMap { $0 }), of: s.path, book: s.book)
        layer.searchLine = ReaderLayer.searchLine(s.search.progress, phrase: s.search.phrase.text, cursor: s.cursor, shown: [hit.page])
        p.titleNote = "search hit \(s.cursor.label(count: hits.count)), page \(hit.page + 1)"
        layer.fade.show(at: now)
        let image = PageImage(index: target)
        if !controller.shownPages.contains(image) { p.perform(.goTo(image), at: now, origin: .key) }
    }

    /// The pages of the search's document the open spread shows.
    private func shownPages(of s: Running) -> Set<Int> {
        let pages = library.books[s.book].pages
        return Set(controller.shownPages.compactMap { image in
            pages.indices.contains(image.index) ? pages[image.index].documentPage.flatMap { $0.path == s.path ? $0.index : nil } : nil
        })
    }

    /// When the loop should look at the running search again; nil when none runs.
    override var wake: Double? {
        guard let s = finding, !s.search.progress.finished else { return nil }
        return p.surface.time + Self.poll
    }
}

