import CMuPDFBridge
import FolioBook
@testable import FolioMuPDF
import XCTest

/// Plain-text books (text.c): their encoding found, their wrapped prose joined into paragraphs,
/// their verse kept line by line, their chapters made contents, their title and author read.
final class PlainTextTests: XCTestCase {
    /// Words of page `index` of `doc`, one string a line of text.
    private func lines(_ doc: MuPDFDocument, page index: Int) throws -> [String] {
        try XCTUnwrap(doc.text(page: index)).lines.map { $0.map(\.text).joined(separator: " ") }
    }

    /// Project Gutenberg's plain text reads as a book: its header's title and author, on a title
    /// page of their own, a contents entry for each chapter with its name, prose wrapped at 70 characters set as
    /// paragraphs filling the page's lines, and verse kept a line a line.
    func testAProjectGutenbergTextIsSetAsABook() throws {
        let doc = try TypesetBooks.open("gutenberg.txt")
        XCTAssertEqual(doc.title, "Plain Wonderland")
        XCTAssertEqual(doc.author, "Lewis Carroll")
        XCTAssertEqual(doc.outline.map(\.title), ["CHAPTER I. The Name of I", "CHAPTER II. The Name of II", "CHAPTER III. The Name of III",
                                                 "IV.", "V. THE LAST STORY", "The White Seal"])
        XCTAssertEqual(try lines(doc, page: 0), ["Plain Wonderland", "Lewis Carroll"], "a title page first")
        let page = try XCTUnwrap(doc.outline.first?.page)
        let text = try lines(doc, page: page)
        // Joined: words the text wraps onto two lines share one ("…pictures in it." ends one,
        // "Joined…" stands alone on the next).
        XCTAssertTrue(text.contains { $0.hasSuffix("pictures in it. JoinedI0 here.") }, "\(text)")
        let all = try (page..<min(page + 3, doc.pageCount)).flatMap { try lines(doc, page: $0) }
        XCTAssertTrue(all.contains("How doth the little crocodile"), "\(all)")
        XCTAssertTrue(all.contains("Improve his shining tail,"), "\(all)")
        // Underscores round words are italics, not printed; one inside a word is printed.
        let last = try (doc.pageCount - 3..<doc.pageCount).flatMap { try lines(doc, page: $0) }.joined(separator: " ")
        XCTAssertTrue(last.contains("She was very tired, and took a watch out of its waistcoat"), last)
        XCTAssertTrue(last.contains("pocket, said snake_case_name."), last)
    }

    /// A Chinese novel in GB18030, a paragraph a line, is read as Chinese, its `第一章` lines
    /// made chapters; Windows-1252 and UTF-16 are read as what they are.
    func testATextIsReadInItsOwnEncoding() throws {
        let novel = try TypesetBooks.open("novel.txt")
        XCTAssertEqual(novel.outline.map(\.title), ["第一章 标题", "第二章 标题", "第三章 标题"])
        XCTAssertEqual(try lines(novel, page: 0), ["novel"], "a title page of the file's name")
        let words = try XCTUnwrap(novel.text(page: 1)).words.map(\.text)
        XCTAssertEqual(Array(words.prefix(3)), ["第一章", "标题", "这是第一章的第0段文字。"], "the ideographic spaces left out")
        XCTAssertEqual(try lines(TypesetBooks.open("latin.txt"), page: 1).first, "Café Ægir naïve — “quoted”.")
        XCTAssertEqual(try lines(TypesetBooks.open("wide.txt"), page: 1).first, "Wide UTF-16 words.")
        XCTAssertEqual(try TypesetBooks.open("wide.txt").title, "wide", "no header: the file's name")
    }

    /// A text of more headings than an EPUB may have chapters (12,000, each long enough for a
    /// file of its own: Folio refuses a spine of more than 10,000 items) opens: past 4,000
    /// files, headings start none.
    func testATextOfThousandsOfHeadingsOpens() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-text-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("many.txt")
        let text = String(repeating: "Words of a chapter. ", count: 32)
        try (1...12000).map { "Chapter \($0)\n\n\(text)\n\n" }.joined().write(to: file, atomically: true, encoding: .utf8)
        let doc = try MuPDFDocument(path: file.path, fontSize: 11, extent: LayoutExtent(pages: 4))
        XCTAssertEqual(try XCTUnwrap(doc.text(page: 1)).words.prefix(2).map(\.text), ["Chapter", "1"])
    }

    /// A binary file or one of blank lines named `.txt` is refused with one line.
    func testWhatIsNoTextIsRefused() throws {
        for (name, words) in [("binary.txt", "not a text file"), ("blank.txt", "holds no text")] {
            XCTAssertThrowsError(try TypesetBooks.open(name), name) { error in
                XCTAssertTrue("\(error)".contains(words), "\(error)")
            }
        }
    }
}
