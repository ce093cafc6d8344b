import FolioLayout
import FolioLibrary
import FolioReader
import FolioBook
@testable import FolioMuPDF
import Foundation
import XCTest
import FolioState

/// A reflowable book laid out again at another text size keeps the reader's place: the page
/// found holds the same text, and a stored reading position finds it too.
final class RelayoutTests: XCTestCase {
    /// A copy of the generated EPUB under its own name, so that laying it out at other sizes
    /// leaves the copy other tests read alone.
    private func copy() throws -> (folder: String, path: String) {
        let source = try EBooks.path("reflow2.epub")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-relayout-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/book.epub"
        try FileManager.default.copyItem(atPath: source, toPath: path)
        return (folder, path)
    }

    /// Words on the pages before `page`: where its text starts in the book's words.
    private func wordsBefore(_ page: Int, in doc: PageSource) throws -> Int {
        try (0..<page).reduce(0) { $0 + (try doc.text(page: $1)?.words.count ?? 0) }
    }

    /// The word the old page started with (`start`, counted in the book's words) lies on page
    /// `page` of the new layout (a word of slack where MuPDF's place falls between words).
    private func assertPage(_ page: Int, of doc: PageSource, holdsWord start: Int, line: UInt = #line) throws {
        let first = try wordsBefore(page, in: doc), count = try XCTUnwrap(doc.text(page: page)?.words.count)
        XCTAssertTrue((first - 1..<first + count + 1).contains(start),
                      "page \(page + 1) holds words \(first)…\(first + count), the text shown started at word \(start)", line: line)
    }

    /// A copy of the book laid out at `fontSize`, the page in its middle (in a chapter: its first
    /// words are not a heading), the word that page starts with and its place.
    private func middlePage(at fontSize: Double) throws -> (folder: String, doc: MuPDFDocument, shown: Int, start: Int, place: TextPlace) {
        let (folder, path) = try copy()
        let doc = try MuPDFDocument(path: path, fontSize: fontSize)
        let shown = doc.pageCount / 2
        return (folder, doc, shown, try wordsBefore(shown, in: doc), doc.place(ofPage: shown))
    }

    /// Words of page `page` as MuPDF's text output gives them.
    private func words(_ page: Int, of doc: PageSource) throws -> [String] {
        try doc.text(page: page)?.words.map(\.text) ?? []
    }

    /// Pages of `old` about page `shown` go to the page of `new` holding their first word, and
    /// every page is mapped, in the text's order.
    private func assertMapped(_ mapping: PageMapping, from old: PageSource, to new: PageSource, around shown: Int,
                              line: UInt = #line) throws {
        for page in max(shown - 3, 0)..<min(shown + 4, old.pageCount) {
            guard let start = try words(page, of: old).first, let to = mapping.page(page) else { XCTFail("page \(page + 1) gone", line: line); continue }
            XCTAssertTrue(try words(to, of: new).contains(start), "old page \(page + 1) (\(start)) mapped to \(to + 1)", line: line)
        }
        let mapped = (0..<old.pageCount).compactMap(mapping.page)
        XCTAssertEqual(mapped.count, old.pageCount, line: line)
        XCTAssertEqual(mapped, mapped.sorted(), "text keeps its order", line: line)
    }

    /// After a text-size change, a page-shape change and both, the page landed on holds the word
    /// the page shown before started with (every word of the book is numbered: exactly that
    /// word), and the old pages about it are mapped to the pages holding their first words.
    func testTheLandingPageHoldsTheWordThePageShownStartedWith() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("numbered.epub"), fontSize: 11)
        let wide = Book.reflowAspect(viewWidth: 1600, viewHeight: 720, pagesAcross: 2)
        // A page in the middle of a chapter, and the last page of one.
        let last = try XCTUnwrap((1..<doc.pageCount).first { try words($0, of: doc).first == "Part" }) - 1
        // A place costing more pages drawn than allowed is left out, until they are drawn.
        XCTAssertNil(doc.textPosition(ofPage: last, drawingAtMost: 1))
        let position = try XCTUnwrap(doc.textPosition(ofPage: last))
        XCTAssertEqual(doc.textPosition(ofPage: last, drawingAtMost: 0), position)
        // Asked again a page at a time (a frame's share), each ask counts one more: it gets there.
        let fresh = try MuPDFDocument(path: try EBooks.path("numbered.epub"), fontSize: 11)
        var asks = 1
        while fresh.textPosition(ofPage: last, drawingAtMost: 1) == nil, asks < 100 { asks += 1 }
        XCTAssertTrue(asks > 2 && asks < 100, "\(asks) asks")
        XCTAssertEqual(fresh.textPosition(ofPage: last, drawingAtMost: 0), position)
        for shown in [doc.pageCount / 2 + 1, last] {
            let first = try XCTUnwrap(words(shown, of: doc).first)
            XCTAssertTrue(first.hasPrefix("w"), first)
            for (size, aspect) in [(16.0, doc.pageAspect), (11, wide), (8, 0.5)] {
                let (relaid, page) = try doc.relaid(fontSize: size, pageAspect: aspect, keeping: doc.place(ofPage: shown))
                XCTAssertNotEqual(relaid.pageCount, doc.pageCount)
                XCTAssertTrue(try words(page, of: relaid).contains(first), "\(size) pt, \(aspect): page \(page + 1) lacks \(first)")
                let mapping = relaid.mapping(from: doc)
                XCTAssertEqual(mapping.page(shown), page)
                try assertMapped(mapping, from: doc, to: relaid, around: shown)
                // Steps one after another keep the first place: back where it started, the
                // pages about it mapped back to where they were.
                let (back, again) = try relaid.relaid(fontSize: 11, pageAspect: doc.pageAspect, keeping: doc.place(ofPage: shown))
                XCTAssertEqual(again, shown)
                try assertMapped(back.mapping(from: relaid), from: relaid, to: back, around: page)
            }
        }
    }

    func testThePageShownAfterALargerTextSizeHoldsTheSameText() throws {
        let (folder, small, shown, start, place) = try middlePage(at: 11)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (large, page) = try small.relaid(fontSize: 16, keeping: place)
        XCTAssertEqual(large.fontSize, 16)
        XCTAssertEqual(small.fontSize, 11, "the open layout is left as it was")
        XCTAssertGreaterThan(large.pageCount, small.pageCount)
        XCTAssertEqual(large.page(of: place), page)
        try assertPage(page, of: large, holdsWord: start)
        XCTAssertNotEqual(page, shown, "at 16 pt the text is further on")
    }

    /// Book `name` opened on its first chapters estimates its page count within `share` of the
    /// count laid out whole.
    private func assertEstimate(of name: String, within share: Double, line: UInt = #line) throws {
        let path = try EBooks.path(name)
        let whole = try MuPDFDocument(path: path, fontSize: 11)
        let first = try MuPDFDocument(path: path, fontSize: 11, extent: .opening)
        XCTAssertTrue(first.pagesEstimated, line: line)
        XCTAssertEqual(Double(first.pageCount), Double(whole.pageCount), accuracy: Double(whole.pageCount) * share,
                       "\(name): estimated \(first.pageCount) of \(whole.pageCount)", line: line)
    }

    /// A book opened on its first chapters estimates the pages of the others from their text:
    /// six one-line pages of front matter before long chapters do not make it look short, as
    /// pages per chapter so far would.
    func testAnEstimateCountsTheTextOfTheChaptersLeft() throws {
        try assertEstimate(of: "front-matter.epub", within: 0.1)
    }

    /// A book whose chapters after the first four wrap every word in a span of its own (their
    /// markup several times their text) is estimated by its text, not its bytes (which say 108
    /// pages of 60): within a quarter of its count.
    func testAMarkupHeavyBookIsEstimatedByItsText() throws {
        try assertEstimate(of: "markup-heavy.epub", within: 0.25)
    }

    /// Laid out 3 pt larger, a long book is laid out only as far as the place and a few spreads
    /// after it (the count estimated), and shows the page holding the text shown; its pages up
    /// to there are those of the whole layout at that size, which follows at the same size and
    /// keeps the page.
    func testALargerTextSizeLaysOutAsFarAsThePlaceFirstAndTheRestAfter() throws {
        let path = try EBooks.path("long.epub")
        let small = try MuPDFDocument(path: path, fontSize: 11)
        let large = try MuPDFDocument(path: path, fontSize: 14)
        let shown = small.pageCount / 3
        let start = try XCTUnwrap(words(shown, of: small).first)
        let (relaid, page) = try small.relaid(fontSize: 14, pageAspect: small.pageAspect, keeping: small.place(ofPage: shown))
        XCTAssertTrue(relaid.pagesEstimated, "laid out as far as the place: \(relaid.pageCount) of \(large.pageCount)")
        XCTAssertTrue(try words(page, of: relaid).contains(start), "page \(page + 1) lacks \(start)")
        for p in [0, page, page + MuPDF.firstPages] {
            XCTAssertEqual(try relaid.text(page: p)?.string, try large.text(page: p)?.string, "page \(p + 1)")
        }
        let mapping = relaid.mapping(from: small)
        XCTAssertEqual(mapping.page(shown), page)
        try assertMapped(mapping, from: small, to: relaid, around: shown)
        // The rest, at the same size: the exact count, the same page, the pages unchanged.
        let (rest, kept) = try relaid.relaid(fontSize: 14, pageAspect: relaid.pageAspect, keeping: relaid.place(ofPage: page))
        XCTAssertFalse(rest.pagesEstimated)
        XCTAssertEqual(rest.pageCount, large.pageCount)
        XCTAssertEqual(kept, page)
        XCTAssertEqual(rest.mapping(from: relaid), .extended(from: relaid.pageCount, to: rest.pageCount))
    }

    /// A page asked for past an estimate too low (chapters of a line a page) is laid out to:
    /// the book opened for it has at least that many pages, and the page holds its text.
    func testAnExtentLaysTheBookOutAsFarAsThePageAskedFor() throws {
        let path = try EBooks.path("page-breaks.epub")
        let whole = try MuPDFDocument(path: path, fontSize: 11)
        let opening = try MuPDFDocument(path: path, fontSize: 11, extent: .opening)
        let late = whole.pageCount - 5
        XCTAssertLessThan(opening.pageCount, late, "the estimate falls short of page \(late + 1)")
        let asked = try MuPDFDocument(path: path, fontSize: 11, extent: LayoutExtent(pages: late + 2))
        XCTAssertGreaterThanOrEqual(asked.pageCount, late + 2)
        XCTAssertEqual(try asked.text(page: late)?.string, try whole.text(page: late)?.string)
    }

    /// Laid out again for a wider page (a window made wider), the book has pages of that shape,
    /// fewer of them, and the page found holds the text shown; back at the first shape, the
    /// reader is on the page they left.
    func testAWiderPageHoldsMoreTextAndTheSamePlace() throws {
        // Large text: chapters of several pages, so that a wider page makes fewer.
        let (folder, narrow, shown, start, place) = try middlePage(at: 20)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let aspect = Book.reflowAspect(viewWidth: 1600, viewHeight: 720, pagesAcross: 2)
        XCTAssertEqual(aspect * 568, 453, accuracy: 0.001)
        let (wide, page) = try narrow.relaid(fontSize: 20, pageAspect: aspect, keeping: place)
        XCTAssertEqual(wide.pageAspect, aspect)
        XCTAssertEqual(Book.paperAspect(paper: wide.paperSize), aspect, accuracy: 0.001, "its paper takes the shape")
        XCTAssertLessThan(wide.pageCount, narrow.pageCount)
        XCTAssertEqual(narrow.pageAspect, 362.0 / 568, "the open layout is left as it was")
        try assertPage(page, of: wide, holdsWord: start)
        let (back, again) = try wide.relaid(fontSize: 20, pageAspect: 362.0 / 568, keeping: place)
        XCTAssertEqual(back.pageCount, narrow.pageCount)
        XCTAssertEqual(again, shown)
    }

    /// Opened for the viewer, a long book is laid out only as far as its first spreads: its
    /// first pages are there (the same as in the whole layout) while its page count is an
    /// estimate; laid out whole at the same size, the count is exact and the place the same.
    func testALongBookOpensOnItsFirstChaptersAndIsLaidOutWholeAfter() throws {
        let path = try EBooks.path("long.epub")
        let whole = try MuPDFDocument(path: path, fontSize: 11)
        let first = try MuPDFDocument(path: path, fontSize: 11, extent: .opening)
        XCTAssertFalse(whole.pagesEstimated)
        XCTAssertTrue(first.pagesEstimated, "30 chapters: more than the first pages hold")
        XCTAssertGreaterThan(whole.pageCount, MuPDF.firstPages * 2)
        // The estimate is of the right size (chapters alike: close).
        XCTAssertEqual(Double(first.pageCount), Double(whole.pageCount), accuracy: Double(whole.pageCount) * 0.25)
        // Pages of the first chapters and a later one hold the same words in both; the later one
        // is laid out when asked for.
        for page in [0, 1, MuPDF.firstPages, whole.pageCount / 2] {
            XCTAssertEqual(try first.text(page: page)?.string, try whole.text(page: page)?.string, "page \(page + 1)")
        }
        let image = try first.render(page: 0, fit: PixelSize(width: 362, height: 568)).image
        XCTAssertGreaterThan(ink(image, PageRegion(x0: 0.1, y0: 0.05, x1: 0.9, y1: 0.9)), 2000)
        // Laid out whole at the same size: the exact count, the same page.
        let (relaid, page) = try first.relaid(fontSize: 11, keeping: first.place(ofPage: 3))
        XCTAssertFalse(relaid.pagesEstimated)
        XCTAssertEqual(relaid.pageCount, whole.pageCount)
        XCTAssertEqual(page, 3)
        // A page past the end of an estimate too high is paper, not an error.
        XCTAssertNoThrow(try first.render(page: whole.pageCount + 5, fit: PixelSize(width: 36, height: 57)))
    }

    func testAStoredTextPositionReopensOnThePageHoldingItAtAnotherSize() throws {
        let (folder, path) = try copy()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let documents = DocumentRegistry()
        documents.replace(path, with: try MuPDFDocument(path: path, fontSize: 11))
        let positions = ReadingPositions(store: try XCTUnwrap(StateStore.open(path: folder + "/state.sqlite").store), documents: documents)
        let book = try XCTUnwrap(Library.load(from: path, documents: documents, logProblems: false).books.first)
        let page = book.pages.count / 2 + 1
        XCTAssertTrue(positions.save(page: page, of: book))
        XCTAssertEqual(positions.saved(of: book)?.fontSize, 11)
        XCTAssertEqual(positions.page(of: book), page)

        // Opened again at 16 pt: the page holding the same place, not the same number.
        let large = try MuPDFDocument(path: path, fontSize: 16)
        let expected = try XCTUnwrap(large.page(of: MuPDFDocument(path: path, fontSize: 11).place(ofPage: page - 1)))
        documents.replace(path, with: large)
        let reopened = try XCTUnwrap(Library.load(from: path, documents: documents, logProblems: false).books.first)
        XCTAssertEqual(reopened.pages.count, large.pageCount)
        XCTAssertEqual(positions.page(of: reopened), expected + 1)
        XCTAssertNotEqual(expected + 1, page)
    }

    /// A position saved with its place in the text reopens on the page holding that text at
    /// another text size and for another page shape (a window of another shape), as MuPDF's
    /// text of the pages says.
    func testASavedPositionSurvivesAnotherTextSizeAndAnotherPageShape() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-position-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/numbered.epub"
        try FileManager.default.copyItem(atPath: try EBooks.path("numbered.epub"), toPath: path)
        let documents = DocumentRegistry()
        let saved = try MuPDFDocument(path: path, fontSize: 11)
        documents.replace(path, with: saved)
        let positions = ReadingPositions(store: try XCTUnwrap(StateStore.open(path: folder + "/state.sqlite").store), documents: documents)
        let book = try XCTUnwrap(Library.load(from: path, documents: documents, logProblems: false).books.first)
        let page = book.pages.count / 2 + 2
        let first = try XCTUnwrap(words(page - 1, of: saved).first)
        XCTAssertTrue(positions.save(page: page, of: book))
        let kept = try XCTUnwrap(positions.saved(of: book))
        XCTAssertEqual(kept.fontSize, 11)
        XCTAssertNotNil(kept.pageAspect)
        XCTAssertNotNil(kept.text, "its place in the text")

        let wide = Book.reflowAspect(viewWidth: 1600, viewHeight: 720, pagesAcross: 2)
        for (size, aspect) in [(16.0, saved.pageAspect), (11, wide)] {
            let now = try MuPDFDocument(path: path, fontSize: size, pageAspect: aspect)
            documents.replace(path, with: now)
            let reopened = try XCTUnwrap(Library.load(from: path, documents: documents, logProblems: false).books.first)
            XCTAssertEqual(reopened.pages.count, now.pageCount)
            let found = try XCTUnwrap(positions.page(of: reopened))
            XCTAssertNotEqual(found, page, "\(size) pt, \(aspect): the text is on another page")
            XCTAssertTrue(try words(found - 1, of: now).contains(first), "\(size) pt, \(aspect): page \(found) lacks \(first)")
        }
    }

    func testABookmarkMadeAtOneTextSizeLandsOnTheSameTextAtAnother() throws {
        let (folder, path) = try copy()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let documents = DocumentRegistry()
        documents.replace(path, with: try MuPDFDocument(path: path, fontSize: 11))
        let store = try XCTUnwrap(StateStore.open(path: folder + "/state.sqlite").store)
        let marks = Bookmarks(store: store, documents: documents)
        let book = try XCTUnwrap(Library.load(from: path, documents: documents, logProblems: false).books.first)
        let page = book.pages.count / 2 + 1
        XCTAssertEqual(marks.toggle(page: PageImage(number: page), of: book), "bookmarked page \(page)")
        XCTAssertEqual(store.bookmarks(of: book).map(\.fontSize), [11])

        // Laid out at 14 pt: the mark is on the page holding the text it was made on.
        let large = try MuPDFDocument(path: path, fontSize: 14)
        let expected = try XCTUnwrap(large.page(of: TextPlace(fontSize: 11, page: page - 1))) + 1
        XCTAssertNotEqual(expected, page, "at 14 pt the text is further on")
        documents.replace(path, with: large)
        let relaid = try XCTUnwrap(Library.load(from: path, documents: documents, logProblems: false).books.first)
        XCTAssertEqual(marks.pages(of: relaid).map(\.number), [expected])
        // M on that page takes the mark made at 11 pt away.
        XCTAssertEqual(marks.toggle(page: PageImage(number: expected), of: relaid), "bookmark on page \(expected) removed")
        XCTAssertTrue(marks.pages(of: relaid).isEmpty)
    }
}
