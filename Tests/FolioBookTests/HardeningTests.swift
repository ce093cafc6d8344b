import Foundation
import XCTest
@testable import FolioBook

/// Numbers and shapes a file can give that no page has: each becomes one problem line and the
/// book keeps a size the layout can use.
final class PageSizeTests: XCTestCase {
    let png = TestPNG.page()

    func testAbsurdManifestPageSizesAreRefused() {
        for size in ["[1e20, 568]", "[362, 1e-300]", "[1, 9000]", "[362, 1e308]"] {
            let dir = TempDir()
            dir.write("a/1.png", png)
            dir.write("Book.json", text: "{ \"pages\": \"a\",\n  \"pageSize\": \(size) }")
            let lib = Library.load(from: dir.path, logProblems: false)
            XCTAssertEqual(lib.books.count, 1, size)
            let book = lib.books[0]
            XCTAssertTrue(Book.isPageSize(book.pageWidth, book.pageHeight), "\(size) gave \(book.pageWidth)×\(book.pageHeight)")
            // The first page (16 × 24) decides instead.
            XCTAssertEqual(book.pageHeight, 568)
            XCTAssertEqual(book.pageWidth, (568.0 * 16 / 24).rounded())
            XCTAssertTrue(lib.problems.contains { $0.line == 2 && $0.message.hasPrefix("pageSize: ") && $0.message.contains("is not a page size") },
                          "\(lib.problems)")
        }
    }

    func testAStripAsFirstPageDoesNotShapeTheBook() {
        let dir = TempDir()
        dir.write("book/1.png", TestPNG.page(width: 2000, height: 10))
        dir.write("book/2.png", png)
        let lib = Library.load(from: dir.path + "/book", logProblems: false)
        XCTAssertEqual(lib.books.first?.pageWidth, Book.referencePageWidth)
        XCTAssertEqual(lib.books.first?.pageHeight, Book.referencePageHeight)
        XCTAssertTrue(lib.problems.contains { $0.severity == .note && $0.message.hasPrefix("the first page is 2000×10, not the shape of a page") },
                      "\(lib.problems)")
    }
}
