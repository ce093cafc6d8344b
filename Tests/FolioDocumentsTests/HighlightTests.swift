import FolioBook
import FolioImage
@testable import FolioMuPDF
import FolioReader
import FolioState
import XCTest

/// Highlights in a reflowable book: anchored to its text, they cover the same words in every
/// layout, and are painted on those words' paper, under the ink.
final class HighlightTests: XCTestCase {
    /// The words a highlight covers on the pages of `doc`, in order.
    private func covered(_ h: Highlight, in doc: any ReflowableSource) throws -> [String] {
        var words: [String] = []
        for page in 0..<doc.pageCount {
            guard let text = try doc.text(page: page) else { continue }
            let range = h.words(of: text, page: page, start: doc.textPosition(ofPage: page))
            words += text.words[range].map(\.text)
        }
        return words
    }

    /// Every word of numbered.epub is numbered (w1, w2, …): fifteen words marked on a page at
    /// 11 points are exactly those fifteen at 16 and 8 points and on a wide page, wherever the
    /// new layout breaks its pages.
    func testAHighlightCoversTheSameWordsInEveryLayout() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("numbered.epub"), fontSize: 11)
        let page = 3
        let text = try XCTUnwrap(try doc.text(page: page))
        XCTAssertGreaterThan(text.words.count, 40)
        let range = 20..<35
        let marked = text.words[range].map(\.text)
        let h = Highlight(anchor: Highlight.anchor(words: range, of: text, page: page, start: doc.textPosition(ofPage: page)),
                          text: marked.joined(separator: " "))
        guard case .text = h.anchor else { return XCTFail("a reflowable book's highlight is anchored to its text: \(h.anchor)") }
        XCTAssertEqual(try covered(h, in: doc), marked)
        for (size, aspect) in [(16.0, doc.pageAspect), (8.0, doc.pageAspect), (11.0, 1.4)] {
            let (relaid, _) = try doc.relaid(fontSize: size, pageAspect: aspect, keeping: doc.place(ofPage: page))
            XCTAssertEqual(try covered(h, in: relaid), marked, "at \(size) points, pages \(aspect)")
        }
    }

    /// Painted on a rendered page: the paper of the words marked turns the highlight's colour,
    /// their ink stays dark, and the page beside them is as it was.
    func testAHighlightIsPaintedUnderTheInkOfItsWords() throws {
        let path = try EBooks.path("numbered.epub")
        let documents = DocumentRegistry()
        let doc = try XCTUnwrap(documents.reflowable(path))
        let text = try XCTUnwrap(try doc.text(page: 2))
        let h = Highlight(anchor: Highlight.anchor(words: 5..<9, of: text, page: 2, start: doc.textPosition(ofPage: 2)), text: "", colour: .blue)
        let fit = PixelSize(width: 600, height: 900)
        let plain = try documents.render(.document(path, index: 2), fit: fit).image
        documents.marks.setHighlights([h], for: path)
        let marked = try documents.render(.document(path, index: 2), fit: fit).image
        let box = try XCTUnwrap(PageText(words: Array(text.words[5..<9])).lineBoxes.first)
        var blue = 0, dark = 0, total = 0
        for y in Int(box.y0 * Double(marked.height)) + 1..<Int(box.y1 * Double(marked.height)) - 1 {
            for x in Int(box.x0 * Double(marked.width)) + 1..<Int(box.x1 * Double(marked.width)) - 1 {
                let p = marked.pixel(x, y), q = plain.pixel(x, y)
                total += 1
                if q.g > 200, Int(p.b) - Int(p.r) > 60 { blue += 1 }
                if q.g < 80, p.g < 80 { dark += 1 }
            }
        }
        XCTAssertGreaterThan(Double(blue) / Double(total), 0.4, "the paper under the words is blue")
        XCTAssertGreaterThan(dark, 20, "the ink stays dark")
        // Below the words' line, nothing changed.
        let below = Int(box.y1 * Double(marked.height)) + 4
        for x in stride(from: 0, to: marked.width, by: 7) { XCTAssertTrue(marked.pixel(x, below) == plain.pixel(x, below), "\(x)") }
        // The marks are the registry's: another one (another pipeline) renders the page plain.
        XCTAssertTrue(try DocumentRegistry().render(.document(path, index: 2), fit: fit).image == plain)
    }

    /// A bookmarked page wears a ribbon over its head in its outer margin: the right margin of a
    /// page on the right (even indices in a left-to-right book), the left of one on the left.
    func testABookmarkedPageWearsARibbonInItsOuterMargin() throws {
        let path = try EBooks.path("numbered.epub")
        let documents = DocumentRegistry()
        let fit = PixelSize(width: 400, height: 600)
        documents.marks.setRibbons([2, 3], for: path)
        func red(_ image: RGBAImage, _ x: Double, _ y: Double) -> Bool {
            let p = image.pixel(Int(x * Double(image.width)), Int(y * Double(image.height)))
            return p.r > 150 && p.g < 60 && p.b < 70
        }
        let right = try documents.render(.document(path, index: 2), fit: fit).image
        let left = try documents.render(.document(path, index: 3), fit: fit).image
        let plain = try documents.render(.document(path, index: 4), fit: fit).image
        XCTAssertTrue(red(right, 0.935, 0.03) && !red(right, 0.065, 0.03))
        XCTAssertTrue(red(left, 0.065, 0.03) && !red(left, 0.935, 0.03))
        XCTAssertFalse(red(plain, 0.935, 0.03) || red(plain, 0.065, 0.03))
        XCTAssertFalse(red(right, 0.935, 0.078), "the ribbon's foot is cut in a V")
    }

    /// A book opening paints the ribbons of the marks made in the layout it shows at once; a mark
    /// made at another text size is placed (its chapter's pages counted) only when all are asked for.
    func testRibbonsAtHandAreTheMarksOfTheLayoutShown() throws {
        let path = try EBooks.path("numbered.epub")
        let documents = DocumentRegistry()
        let doc = try XCTUnwrap(documents.reflowable(path))
        let book = Book(title: "Numbered", pages: (0..<doc.pageCount).map { .document(path, index: $0) })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-ribbons-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try XCTUnwrap(StateStore.open(path: folder + "/state.sqlite").store)
        let here = ReadingPosition(page: 3, fontSize: doc.fontSize, pageAspect: doc.pageAspect)
        let (larger, _) = try doc.relaid(fontSize: 16, keeping: doc.place(ofPage: 0))
        let other = ReadingPosition(page: 4, fontSize: 16, pageAspect: larger.pageAspect, text: larger.textPosition(ofPage: 3))
        _ = store.updateBookmarks(of: book) { _ in ([here, other], ()) }
        let marks = Bookmarks(store: store, documents: documents)
        XCTAssertEqual(marks.documentPages(of: book, atHand: true), [2])
        let all = marks.documentPages(of: book)
        XCTAssertEqual(all.count, 2)
        XCTAssertTrue(all.contains(2))
    }
}
