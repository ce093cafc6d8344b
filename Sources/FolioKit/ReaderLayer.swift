import FolioBook
import FolioFind
import FolioImage
import FolioInput
import FolioLayout
import FolioOverlay
import FolioOverlayText
import FolioReader
import FolioRender
import Foundation

/// The facts of a reader's state the on-screen layer shows: what the library, the key map and
/// the state say, put into the layer's terms (`OverlayContent`).
public enum ReaderLayer {
    /// What the layer shows for `library` in `phase` with book `book` open at `spread` of its
    /// layout in one page or two (`singlePage`), or the shelf at `scroll`, with the help card,
    /// typed page number, answer, notice and bar drag of `state`; its cards in `theme`'s colours.
    public static func content(library: Library, documents: DocumentRegistry, phase: Scene.State, book: Int?, spread: Int,
                               singlePage: Bool = false, scroll: Double, state: LayerState = LayerState(),
                               theme: Theme = .paper) -> OverlayContent {
        var c = OverlayContent(entry: state.entry, notice: state.notice)
        c.cards = cards(theme)
        if state.helpShown { c.help = helpSections }
        c.note = state.noteShown
        c.noteLinks = state.note == nil ? [] : state.noteLinks
        if phase != .shelf { c.typography = state.typography }
        c.contents = state.contents
        if let b = book, library.books.indices.contains(b), phase != .shelf {
            let info = laidOut(library.bookInfos[b], singlePage: singlePage)
            let s = state.dragFraction.map { Self.spread(at: $0, lastSpread: info.lastSpread) } ?? spread
            c.progress = OverlayProgress(label: label(book: library.books[b], spread: s, singlePage: singlePage, in: documents),
                                         fraction: info.lastSpread > 0 ? Double(s) / Double(info.lastSpread) : 0, detail: state.timeLeft)
        } else if phase == .shelf, !library.books.isEmpty {
            let shown = library.books[min(max(Int(scroll.rounded()), 0), library.books.count - 1)]
            c.shelfTitle = shown.title
            // A book still being laid out says so under its title, as the title bar and the bar do.
            let estimate = shown.pagesEstimated(in: documents) ? "\(shown.pageCountLabel(in: documents)) pages" : nil
            let read = state.shelfRead.map { "\(Int(($0 * 100).rounded()))% read" }
            let line = [shown.author, estimate, read].compactMap { $0 }.joined(separator: " · ")
            c.shelfAuthor = line.isEmpty ? nil : line
            c.shelfRead = state.shelfRead
        }
        return c
    }

    /// The choices the typography card lists after the text size, in its order.
    public static let typographyChoices: [TypographyChoice] = [.face, .margins, .lineSpacing, .justify, .hyphenate, .publisherStyles]

    /// The typography card's rows for `typography` and text size `fontSize`: each choice's
    /// keys, as the key map has them, and what it is now.
    public static func typographyRows(_ typography: Typography, fontSize: Double) -> [HelpRow] {
        let keys = { (action: Action) in KeyMap.bindings.filter { $0.action == action }.map(\.label).joined(separator: ", ") }
        return [HelpRow(keys: [keys(.textLarger), keys(.textSmaller)].joined(separator: " "), summary: "text: \(fontSize.formatted()) pt")]
            + typographyChoices.map {
                HelpRow(keys: keys(.typography($0)), summary: $0.describe(typography))
            }
    }

    /// The cards' colours in `theme`.
    public static func cards(_ theme: Theme) -> CardTone {
        switch theme {
        case .paper: .paper
        case .sepia: .sepia
        case .night: .night
        }
    }

    /// The spread a fraction of the progress bar stands for.
    public static func spread(at fraction: Double, lastSpread: Int) -> Int {
        Int((min(max(fraction, 0), 1) * Double(lastSpread)).rounded())
    }

    /// A book's spreads as the page mode lays them out: one page image a spread in single-page mode.
    static func laidOut(_ info: BookInfo, singlePage: Bool) -> BookInfo { singlePage ? info.onePagePerSheet : info }

    /// "17–18 · 36" (one page: "17 · 36"): the labels of the page images spread `s` shows
    /// (`BookController.shownPages`) and the number of images ("≈36" while the book is laid
    /// out), its document read through `documents`.
    public static func label(book: Book, spread s: Int, singlePage: Bool = false, in documents: DocumentRegistry) -> String {
        let shown = BookController.shownPages(spread: s, singlePage: singlePage, imageCount: book.pages.count)
            .map { book.pageLabel(image: $0.index, in: documents) }
        let pages = shown.isEmpty ? "cover" : shown.joined(separator: "–")
        return "\(pages) · \(book.pageCountLabel(in: documents))"
    }

    /// What the layer says when the page mode changes (E): "one page (auto)" names what auto
    /// chose in this window.
    public static func pageModeLine(_ mode: PageMode, singlePage: Bool) -> String {
        let shown = singlePage ? "one page" : "two pages"
        return mode == .auto ? "\(shown) (auto)" : shown
    }

    /// The answer to typing page `n` of a book of `count` images: nil when it exists.
    public static func missingPage(_ n: Int, count: Int) -> String? {
        guard n < 1 || n > count else { return nil }
        return count == 0 ? "no page \(n): the book has no pages" : count == 1 ? "no page \(n) — 1" : "no page \(n) — 1–\(count)"
    }

    /// The layer's layout for a framebuffer of `width × height` at `scale`, its wrapped lines
    /// counted as the painter breaks them.
    public static func layout(width: Int, height: Int, scale: Double = 1) -> OverlayLayout {
        var layout = OverlayLayout(width: width, height: height, scale: scale)
        layout.measure = OverlayPainter.lines
        return layout
    }

    /// The help card, from the key map (the terminal's help and the manual page read the same
    /// table): a book's keys, those of everywhere and of the shelf, then the pointer and page
    /// numbers, which are not keys of the map.
    /// The card's rows for `bindings`: a key and the same key with Shift, one after the other,
    /// share a row ("N / Shift+N", "next search hit / previous search hit"), so the card keeps
    /// a legible size as keys are added.
    static func paired(_ bindings: [KeyMap.Binding]) -> [HelpRow] {
        var rows: [HelpRow] = [], i = 0
        while i < bindings.count {
            let b = bindings[i]
            if i + 1 < bindings.count, case let s = bindings[i + 1], s.keys == b.keys, b.modifiers.isEmpty, s.modifiers == .shift {
                rows.append(HelpRow(keys: "\(b.label) / \(s.label)", summary: "\(b.summary) / \(s.summary)"))
                i += 2
            } else {
                rows.append(HelpRow(keys: b.label, summary: b.summary))
                i += 1
            }
        }
        return rows
    }

    public static var helpSections: [HelpSection] {
        let contexts: [KeyMap.Context] = [.book, .anywhere, .shelf]
        return contexts.map { context in
            HelpSection(title: KeyMap.titles[context] ?? context.rawValue, rows: paired(KeyMap.bindings.filter { $0.context == context }))
        } + [HelpSection(title: "Pointer and page numbers", rows: [
            HelpRow(keys: "0–9, Enter", summary: "go to that page"),
            HelpRow(keys: "click a page", summary: "turn it, or follow the link under it"),
            HelpRow(keys: "the bar", summary: "click or drag it to jump"),
            HelpRow(keys: "Shift+drag", summary: "select a page's words"),
        ])]
    }
}

/// The layer's images on the GPU: each panel painted once and kept while it is shown, drawn
/// over the frame as screen quads. Render thread only; `destroy()` while the context is current.
final class LayerTextures {
    private let quads: ScreenQuads
    private var textures: [OverlayPanel: Texture] = [:]

    init(shaders: String) throws { quads = try ScreenQuads(shaders: shaders) }

    func destroy() {
        textures.values.forEach { $0.destroy() }
        textures = [:]
        quads.destroy()
    }

    /// Draws `panels` over `target` at `opacity`, painting those not painted before and freeing
    /// those no longer shown; the renderer restores the pixels covered before its next frame.
    func draw(_ panels: [OverlayPanel], opacity: Double, into target: Framebuffer, renderer: Renderer) {
        let shown = Set(panels)
        for (panel, texture) in textures where !shown.contains(panel) {
            texture.destroy()
            textures[panel] = nil
        }
        guard opacity > 0 else { return }
        let list = panels.map { panel in
            let texture = textures[panel] ?? Texture(image: OverlayPainter.paint(panel), descriptor: TextureDescriptor(mipmaps: false))
            textures[panel] = texture
            return ScreenQuad(texture: texture, x: Int(panel.frame.x), y: Int(panel.frame.y), opacity: Float(min(opacity, 1)))
        }
        renderer.drewOver(quads.draw(list, into: target), in: target)
    }
}

extension ReaderLayer {
    /// The contents of `book` as panel rows: its document's outline, or its file names for a
    /// book of image files (a comic archive's pages are its document's). `shown` is the page
    /// image the reader is at: the last row starting at or before it is the current chapter.
    /// The document is opened through `documents`.
    public static func contents(of book: Book, shown: Int, in documents: DocumentRegistry) -> ContentsList {
        let outline: [OutlineEntry]
        var target: (Int) -> Int? = { book.pages.indices.contains($0) ? $0 : nil }
        if let (path, _) = documentPage(book: book, image: 0) {
            outline = (try? documents.open(path))?.outline ?? []
            target = { book.pages.firstIndex(of: .document(path, index: $0)) }
        } else {
            outline = OutlineEntry.fileNames(book.pages.map { ($0.path as NSString).lastPathComponent })
        }
        let rows = outline.rows.map { depth, entry in
            let image = entry.page.flatMap(target)
            return ContentsList.Row(title: entry.title, label: image.map { book.pageLabel(image: $0, in: documents) }, depth: depth, target: image)
        }
        return ContentsList(rows: rows, current: rows.lastIndex { ($0.target ?? .max) <= shown })
    }
}

extension ReaderLayer {
    /// What Tab says of a book whose document has no outline.
    public static let noContents = "this book has no contents"
}

extension ReaderLayer {
    /// What X says of a book with no highlights, notes or bookmarks.
    public static let noNotes = "no highlights, notes or bookmarks yet: Shift + drag selects words, Shift+H highlights them, I writes a note, M marks the page"

    /// The notes panel's rows: each chapter with highlights as a heading, its highlights under
    /// it (their words, then their note), and the bookmarks at the end; `shown` is the page image
    /// the reader is at.
    public static func notes(of book: Book, highlights: [Highlight], bookmarks: [PageImage], shown: Int, in documents: DocumentRegistry) -> ContentsList {
        guard let path = book.document, let source = try? documents.open(path) else { return ContentsList(rows: [], current: nil) }
        let reflowing = (source as? any ReflowableSource).flatMap { $0.reflowable ? $0 : nil }
        let outline = source.outline.rows
        var rows: [ContentsList.Row] = [], chapter: String?
        for h in highlights {
            let page: Int?
            switch h.anchor {
            case let .text(c, start, _): page = reflowing?.page(at: TextPosition(chapter: c, offset: start))
            case let .page(p, _): page = p
            }
            let image = page.flatMap { book.pages.firstIndex(of: .document(path, index: $0)) }
            let entry = image.flatMap { i in outline.last { ($0.entry.page ?? .max) <= i }?.entry }
            if entry?.title ?? "Highlights" != chapter {
                chapter = entry?.title ?? "Highlights"
                rows.append(ContentsList.Row(title: chapter ?? "", label: nil, depth: 0, target: entry?.page.flatMap { book.pages.firstIndex(of: .document(path, index: $0)) }))
            }
            let words = h.text.count > 200 ? String(h.text.prefix(199)) + "…" : h.text
            rows.append(ContentsList.Row(title: "“\(words)”", label: image.map { book.pageLabel(image: $0, in: documents) }, depth: 1, target: image, tag: h.id))
            // The note on a row of its own under its words, each row one line.
            if let note = h.note { rows.append(ContentsList.Row(title: "✎ " + note, label: nil, depth: 2, target: image, tag: h.id)) }
        }
        if !bookmarks.isEmpty {
            rows.append(ContentsList.Row(title: "Bookmarks", label: nil, depth: 0, target: nil))
            for page in bookmarks where book.pages.indices.contains(page.index) {
                rows.append(ContentsList.Row(title: "Page \(book.pageLabel(image: page.index, in: documents))", label: nil, depth: 1, target: page.index))
            }
        }
        return ContentsList(rows: rows, current: rows.lastIndex { $0.depth == 1 && $0.tag != nil && ($0.target ?? .max) <= shown })
    }
}

extension ReaderLayer {
    /// The document `book`'s pages come from, with the page of it image `image` shows (its
    /// first when that image is not one of the document's); nil for a book of image files.
    public static func documentPage(book: Book, image: Int) -> (path: String, page: Int)? {
        guard let path = book.document else { return nil }
        let shown = book.pages.indices.contains(image) ? book.pages[image].documentPage : nil
        return (path, shown?.path == path ? shown?.index ?? 0 : 0)
    }

    /// What the layer says of a search: while it runs, the pages searched; then "“phrase” 3 of
    /// 17" while the hit chosen lies on the document pages `shown`, "“phrase” 17 hits" once the
    /// reader is elsewhere, "no hits for “phrase”" or "this book has no text to search".
    public static func searchLine(_ p: SearchProgress, phrase: String, cursor: HitCursor, shown: Set<Int>) -> String {
        let quoted = "“\(phrase.count > 40 ? phrase.prefix(40) + "…" : phrase)”"
        if p.noText { return "this book has no text to search" }
        if p.finished, p.hits.isEmpty { return "no hits for \(quoted)" }
        let pages = "\(p.searched) of \(p.pageCount) pages"
        if p.hits.isEmpty { return "searching \(quoted)… \(pages)" }
        let n = p.hits.count
        let on = cursor.current.map { p.hits.indices.contains($0) && shown.contains(p.hits[$0].page) } ?? false
        return "\(quoted) \(on ? cursor.label(count: n) : "\(n) hit\(n == 1 ? "" : "s")")" + (p.finished ? "" : " · searching, \(pages)")
    }
}
