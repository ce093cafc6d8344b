import FolioApp
import FolioBook
@testable import FolioMuPDF
import Foundation
import XCTest

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

    func testThePageShownAfterALargerTextSizeHoldsTheSameText() throws {
        let (folder, path) = try copy()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let small = try MuPDFDocument(path: path, fontSize: 11)
        // A page in the middle of a chapter: its first words are not a heading.
        let shown = small.pageCount / 2
        let start = try wordsBefore(shown, in: small)
        let place = small.place(ofPage: shown)
        let (large, page) = try small.relaid(fontSize: 16, keeping: place)
        XCTAssertEqual(large.fontSize, 16)
        XCTAssertEqual(small.fontSize, 11, "the open layout is left as it was")
        XCTAssertGreaterThan(large.pageCount, small.pageCount)
        XCTAssertEqual(large.page(of: place), page)
        // The word the old page started with lies on the new page (a word of slack where
        // MuPDF's place falls between words).
        let first = try wordsBefore(page, in: large), count = try XCTUnwrap(large.text(page: page)?.words.count)
        XCTAssertTrue((first - 1..<first + count + 1).contains(start),
                      "page \(page + 1) holds words \(first)…\(first + count), the text shown started at word \(start)")
        XCTAssertNotEqual(page, shown, "at 16 pt the text is further on")
    }

    func testAStoredTextPositionReopensOnThePageHoldingItAtAnotherSize() throws {
        let (folder, path) = try copy()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        PageSources.documents.replace(path, with: try MuPDFDocument(path: path, fontSize: 11))
        let positions = ReadingPositions(file: folder + "/positions.json")
        let book = try XCTUnwrap(Library.load(from: path, logProblems: false).books.first)
        let page = book.pages.count / 2 + 1
        XCTAssertTrue(positions.save(page: page, of: book))
        let saved = try String(contentsOfFile: positions.file, encoding: .utf8)
        XCTAssertTrue(saved.contains("\"fontSize\" : 11"), saved)
        XCTAssertEqual(positions.page(of: book), page)

        // Opened again at 16 pt: the page holding the same place, not the same number.
        let large = try MuPDFDocument(path: path, fontSize: 16)
        let expected = try XCTUnwrap(large.page(of: MuPDFDocument(path: path, fontSize: 11).place(ofPage: page - 1)))
        PageSources.documents.replace(path, with: large)
        let reopened = try XCTUnwrap(Library.load(from: path, logProblems: false).books.first)
        XCTAssertEqual(reopened.pages.count, large.pageCount)
        XCTAssertEqual(positions.page(of: reopened), expected + 1)
        XCTAssertNotEqual(expected + 1, page)
    }
}
