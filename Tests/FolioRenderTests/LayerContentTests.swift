import FolioBook
import FolioFind
import FolioImage
import FolioKit
import FolioOverlay
import FolioOverlayText
import FolioReader
import Foundation
import Testing

/// What the reader's state puts on the layer: printed page labels where the document has them,
/// image numbers otherwise; the title and author on the shelf; the help card from the key map;
/// the answer to a page that does not exist.
@Suite struct LayerContentTests {
    /// A document whose pages are labelled with roman numerals for the front matter, then from 1.
    final class Labelled: PageSource {
        let pageCount = 40
        let title: String? = "Labelled"
        func pageSize(_ index: Int) -> (width: Double, height: Double)? { (100, 150) }
        func render(page index: Int, fit: PixelSize) throws -> PageRender {
            PageRender(image: RGBAImage(width: 1, height: 1), scalable: false)
        }
        func label(ofPage index: Int) -> String? { index < 4 ? ["i", "ii", "iii", "iv"][index] : String(index - 3) }
    }

    /// A book of the labelled document's 40 pages (a file must exist for it to open).
    static func labelledBook() throws -> Book {
        PageSources.register(PageSourceFormat(name: "labelled test document", extensions: ["labelled-test"]) { _, _ in Labelled() })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("folio-layer-\(getpid()).labelled-test").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        return Book(title: "Labelled", author: "A. Writer", pages: (0..<40).map { PageRef.document(path, index: $0) })
    }

    @Test func theBarShowsPrintedLabelsWhereTheDocumentHasThem() throws {
        let book = try Self.labelledBook()
        #expect(ReaderLayer.label(book: book, spread: 0, in: DocumentRegistry()) == "i · 40")
        #expect(ReaderLayer.label(book: book, spread: 2, in: DocumentRegistry()) == "iv–1 · 40")
        #expect(ReaderLayer.label(book: book, spread: 11, in: DocumentRegistry()) == "18–19 · 40")
        #expect(ReaderLayer.label(book: book, spread: 20, in: DocumentRegistry()) == "36 · 40")
        let library = Library(title: "", books: [book])
        let content = ReaderLayer.content(library: library, documents: DocumentRegistry(), phase: .reading, book: 0, spread: 10, scroll: 0)
        #expect(content.progress == OverlayProgress(label: "16–17 · 40", fraction: 0.5))
        #expect(content.shelfTitle == nil && content.help == nil && content.entry == nil)
    }

    @Test func imagesWithoutLabelsAreNumberedFromOne() {
        let book = Book(title: "Album", pages: (1...5).map { .image("/nowhere/p\($0).png") })
        #expect(ReaderLayer.label(book: book, spread: 0, in: DocumentRegistry()) == "1 · 5")
        #expect(ReaderLayer.label(book: book, spread: 1, in: DocumentRegistry()) == "2–3 · 5")
        #expect(ReaderLayer.label(book: book, spread: 2, in: DocumentRegistry()) == "4–5 · 5")
        #expect(ReaderLayer.label(book: Book(title: "Empty", pages: []), spread: 0, in: DocumentRegistry()) == "cover · 0")
    }

    @Test func theShelfShowsTheCentredBooksTitleAndAuthor() {
        let library = Library(title: "", books: [Book(title: "One", author: "Ann", pages: []), Book(title: "Two", pages: [])])
        let first = ReaderLayer.content(library: library, documents: DocumentRegistry(), phase: .shelf, book: nil, spread: 0, scroll: 0.3)
        #expect(first.shelfTitle == "One" && first.shelfAuthor == "Ann" && first.progress == nil)
        let second = ReaderLayer.content(library: library, documents: DocumentRegistry(), phase: .shelf, book: nil, spread: 0, scroll: 7)
        #expect(second.shelfTitle == "Two" && second.shelfAuthor == nil)
        #expect(ReaderLayer.content(library: Library(title: "", books: []), documents: DocumentRegistry(), phase: .shelf, book: nil, spread: 0, scroll: 0) == OverlayContent())
    }

    @Test func aBarDragShowsWhereItWouldGo() {
        let library = Library(title: "", books: [Book(title: "Album", pages: (1...36).map { .image("/nowhere/p\($0).png") })])
        var state = LayerState()
        state.dragFraction = 1
        let c = ReaderLayer.content(library: library, documents: DocumentRegistry(), phase: .reading, book: 0, spread: 0, scroll: 0, state: state)
        #expect(c.progress == OverlayProgress(label: "36 · 36", fraction: 1))
        #expect(ReaderLayer.spread(at: 0.5, lastSpread: 18) == 9)
        #expect(ReaderLayer.spread(at: -3, lastSpread: 18) == 0)
    }

    @Test func aPageThatDoesNotExistGetsAClearAnswer() {
        #expect(ReaderLayer.missingPage(9999, count: 36) == "no page 9999 — 1–36")
        #expect(ReaderLayer.missingPage(0, count: 36) == "no page 0 — 1–36")
        #expect(ReaderLayer.missingPage(36, count: 36) == nil)
        #expect(ReaderLayer.missingPage(1, count: 36) == nil)
        #expect(ReaderLayer.missingPage(2, count: 0) == "no page 2: the book has no pages")
    }

    /// Every binding of the key map is on the card, its keys as a desktop writes them: on a row
    /// of its own, or sharing one with its Shift twin ("N / Shift+N", "next … / previous …").
    @Test func theHelpCardIsTheKeyMap() {
        let rows = ReaderLayer.helpSections.flatMap(\.rows)
        func shows(_ keys: String, _ summary: String?) -> Bool {
            rows.contains { row in
                (row.keys == keys && (summary.map { row.summary == $0 } ?? true))
                    || (row.keys.hasPrefix(keys + " / ") && (summary.map { row.summary.hasPrefix($0 + " / ") } ?? true))
                    || (row.keys.hasSuffix(" / " + keys) && (summary.map { row.summary.hasSuffix(" / " + $0) } ?? true))
            }
        }
        for binding in KeyMap.bindings { #expect(shows(binding.label, binding.summary), "\(binding.summary)") }
        for keys in ["H, ?", "F, F11", "Shift+N", "Shift+M", "Alt+←", "Ctrl+=", "Ctrl+−", "Tab", "/, Ctrl+F", "Ctrl+C", "Shift+drag"] {
            #expect(shows(keys, nil), "\(keys)")
        }
        #expect(rows.contains { $0.keys == "N / Shift+N" }, "a key and its Shift twin share a row")
    }
}

extension LayerContentTests {
    /// The key map's help card, as the viewer lays it out, fits 640×360, 1280×720 and
    /// 1920×1080: every key and summary whole (wrapped, never cut with "…"), type of 7.5 pixels
    /// at least (the smallest window's), the card inside the window.
    /// The help card and the contents are cards of the reader's theme (light paper, sepia, dark
    /// at night), solid, their text and its dimmer parts reading on them (contrast 7:1 and 4.5:1 at
    /// least, WCAG's AAA and AA for text), the accent 3:1.
    @Test(arguments: Theme.allCases)
    func theCardsTakeTheThemesColoursAndStayLegible(_ theme: Theme) throws {
        var state = LayerState()
        state.helpShown = true
        state.contents = ContentsList(rows: [ContentsList.Row(title: "One", label: "1", depth: 0, target: 0), ContentsList.Row(title: "Two", label: "2", depth: 1, target: 1)], current: 1)
        let content = ReaderLayer.content(library: Library(title: "", books: []), documents: DocumentRegistry(), phase: .reading,
                                          book: nil, spread: 0, scroll: 0, state: state, theme: theme)
        let panels = ReaderLayer.layout(width: 1280, height: 720).panels(content)
        let tone = ReaderLayer.cards(theme)
        #expect(panels.count == 2)
        for panel in panels {
            #expect(panel.boxes.first?.color == tone.ground && tone.ground.a == 1)
            for text in panel.texts { #expect([tone.text, tone.dim, tone.accent].contains(text.color), "\(text.string)") }
        }
        func luminance(_ c: OverlayColor) -> Double {
            func lin(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
            return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b)
        }
        func contrast(_ a: OverlayColor, _ b: OverlayColor) -> Double {
            let (x, y) = (luminance(a), luminance(b))
            return (max(x, y) + 0.05) / (min(x, y) + 0.05)
        }
        #expect(contrast(tone.text, tone.ground) >= 7 && contrast(tone.dim, tone.ground) >= 4.5 && contrast(tone.accent, tone.ground) >= 3,
                "\(contrast(tone.text, tone.ground)) \(contrast(tone.dim, tone.ground)) \(contrast(tone.accent, tone.ground))")
        // Each theme's own: the paper's card is light, the night's dark.
        #expect(theme == .night ? luminance(tone.ground) < 0.05 : luminance(tone.ground) > 0.5)
    }

    @Test(arguments: [(640, 360), (1280, 720), (1920, 1080)])
    func theKeyMapsHelpCardFitsTheWindow(width: Int, height: Int) throws {
        let content = OverlayContent(help: ReaderLayer.helpSections)
        let card = try #require(ReaderLayer.layout(width: width, height: height).panels(content).first)
        #expect(card.frame.x >= 0 && card.frame.y >= 0 && card.frame.maxX <= Double(width) && card.frame.maxY <= Double(height))
        for text in card.texts { #expect(OverlayPainter.fits(text), "\(text.string) at \(width)×\(height)") }
        #expect(card.texts.allSatisfy { $0.size >= 7.5 }, "\(card.texts.map(\.size).min() ?? 0)")
    }

    /// The line a search puts on the layer while it runs, once it found hits, found none, or
    /// found no text at all; a long phrase is shortened.
    @Test func theSearchLineSaysHowFarAndWhichHit() {
        var p = SearchProgress(pageCount: 800)
        p.searched = 12
        p.pagesWithText = 12
        #expect(ReaderLayer.searchLine(p, phrase: "zebra", cursor: HitCursor(), shown: [12]) == "searching “zebra”… 12 of 800 pages")
        let hits = (0..<17).map { SearchHit(page: $0 * 10, boxes: [], snippet: "") }
        p.hits = hits
        var cursor = HitCursor()
        _ = cursor.next(in: hits, page: 15)
        #expect(ReaderLayer.searchLine(p, phrase: "zebra", cursor: cursor, shown: [20, 21]) == "“zebra” 3 of 17 · searching, 12 of 800 pages")
        p.finished = true
        #expect(ReaderLayer.searchLine(p, phrase: "zebra", cursor: cursor, shown: [20, 21]) == "“zebra” 3 of 17")
        // The reader moved on from the hit: the count, not a hit they are not on.
        #expect(ReaderLayer.searchLine(p, phrase: "zebra", cursor: cursor, shown: [22, 23]) == "“zebra” 17 hits")
        // Hits found later before the one shown (the search went round): the count follows it.
        var more = [SearchHit(page: 1, boxes: [], snippet: "")] + hits
        more.sort { $0.page < $1.page }
        cursor.follow(hits[2], in: more)
        #expect(cursor.label(count: more.count) == "4 of 18")
        p.hits = []
        #expect(ReaderLayer.searchLine(p, phrase: String(repeating: "z", count: 50), cursor: HitCursor(), shown: [])
                == "no hits for “\(String(repeating: "z", count: 40))…”")
        p.pagesWithText = 0
        #expect(ReaderLayer.searchLine(p, phrase: "zebra", cursor: HitCursor(), shown: []) == "this book has no text to search")
    }
}
