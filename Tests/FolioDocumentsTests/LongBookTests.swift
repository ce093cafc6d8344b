import FolioBook
import FolioImage
@testable import FolioFind
@testable import FolioMuPDF
import Foundation
import XCTest

/// A page source that hides another's chapters' text and counts the pages whose words are read.
private final class Counted: PageSource, @unchecked Sendable {
    let inner: any PageSource
    private let lock = NSLock()
    private(set) var read: Set<Int> = []
    init(_ inner: any PageSource) { self.inner = inner }
    var pageCount: Int { inner.pageCount }
    var title: String? { nil }
    func pageSize(_ index: Int) -> (width: Double, height: Double)? { inner.pageSize(index) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender { try inner.render(page: index, fit: fit) }
    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? { nil }
    func text(page index: Int) throws -> PageText? {
        lock.withLock { _ = read.insert(index) }
        return try inner.text(page: index)
    }
}

/// The same, passing its chapters' text on.
private final class CountedChapters: PageSource, ChapterTextSource, @unchecked Sendable {
    let counted: Counted
    let chapters: any ChapterTextSource
    init(_ inner: any ChapterTextSource) { (counted, chapters) = (Counted(inner), inner) }
    var pageCount: Int { counted.pageCount }
    var title: String? { nil }
    func pageSize(_ index: Int) -> (width: Double, height: Double)? { counted.pageSize(index) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender { try counted.render(page: index, fit: fit) }
    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? { nil }
    func text(page index: Int) throws -> PageText? { try counted.text(page: index) }
    func chapter(ofPage index: Int) -> Int? { chapters.chapter(ofPage: index) }
    func chapterText(_ chapter: Int) -> String? { chapters.chapterText(chapter) }
}

/// Long books: their layouts' page counts kept between runs, and searches that pass over the
/// chapters that cannot hold the phrase.
final class LongBookTests: XCTestCase {
    private func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-layouts-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    /// A search over the chapters' text finds what a search of every page finds — a phrase spelt
    /// with character references, in a CDATA section, across a soft hyphen, and written with an
    /// entity MuPDF does not read — and draws the pages of only the chapters holding its letters.
    func testASearchPassesOverChaptersThatCannotHoldThePhrase() throws {
        let book = try TypesetBooks.open("chapters.epub")
        let phrase = try Phrase("café ægir")
        let every = Counted(book)
        let all = Search(phrase, in: PageTextCache(source: every))
        all.run()
        let filtered = CountedChapters(book)
        let some = Search(phrase, in: PageTextCache(source: filtered))
        some.run()
        XCTAssertEqual(all.progress.hits.map(\.page), some.progress.hits.map(\.page))
        XCTAssertEqual(all.progress.hits.count, 3, "chapters 8, 19 and 27 hold the phrase")
        XCTAssertEqual(every.read.count, book.pageCount)
        // The four chapters holding its letters (the fourth through an entity MuPDF shows as written).
        let chapters = Set(filtered.counted.read.compactMap { book.chapter(ofPage: $0) })
        XCTAssertEqual(chapters, [3, 7, 18, 26])
        XCTAssertLessThan(filtered.counted.read.count, book.pageCount / 5)
        XCTAssertTrue(some.progress.finished)
        XCTAssertFalse(some.progress.noText)
    }

    /// Chapter text as written: tags, `head` and comments away, references and CDATA read, and
    /// nil where an entity may stand for a letter Folio does not read.
    func testChapterTextIsTheFilesTextAsWritten() throws {
        let book = try TypesetBooks.open("chapters.epub")
        let seventh = try XCTUnwrap(book.chapterText(7))
        XCTAssertTrue(seventh.contains("Café Ægir"), seventh)
        XCTAssertFalse(seventh.contains("<"))
        XCTAssertFalse(seventh.contains("<title>") || seventh.hasPrefix("t"), "the head's title is not text")
        XCTAssertTrue(try XCTUnwrap(book.chapterText(18)).contains("CAFé Ægir"))
        XCTAssertNil(book.chapterText(3), "&eacute; is not read here")
        XCTAssertNil(book.chapterText(30))
        XCTAssertNil(book.chapterText(-1))
    }

    /// A book laid out once keeps its counts: opened again with the same layout, they are read
    /// (a file of counts made up under the right name shows its counts), with another they are
    /// not; a file of counts that is malformed or under another name is passed over.
    func testPageCountsAreKeptBetweenRuns() throws {
        let cache = LayoutCache(folder: try folder())
        let first = try TypesetBooks.open("chapters.epub", cache: cache)
        let pages = first.pageCount
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.folder)
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(try TypesetBooks.open("chapters.epub", cache: cache).pageCount, pages)
        let file = cache.folder + "/" + files[0]
        let kept = try Data(contentsOf: URL(fileURLWithPath: file))
        let head = kept.prefix(kept.count - (36 + 4 * 30))
        func counts(_ each: Int32, chapters: Int32 = 30) -> Data {
            var d = kept.suffix(36 + 4 * 30).prefix(32)
            withUnsafeBytes(of: chapters.littleEndian) { d.append(contentsOf: $0) }
            for _ in 0..<30 { withUnsafeBytes(of: each.littleEndian) { d.append(contentsOf: $0) } }
            return d
        }
        // Counts made up, well formed, under the book's name: read, so each chapter one page.
        try (head + counts(1)).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try TypesetBooks.open("chapters.epub", cache: cache).pageCount, 30)
        // Another text size: MuPDF counts again.
        XCTAssertNotEqual(try TypesetBooks.open("chapters.epub", fontSize: 16, cache: cache).pageCount, 30)
        // Malformed: chapters beyond a book's, a count beyond a chapter's, cut short, another key.
        // (Thirty chapters of 40,000 pages each: more than a book's pages may add up to.)
        for bad in [head + counts(1, chapters: 1 << 30), head + counts(1 << 24), head + counts(40_000), head + counts(1).prefix(50),
                    Data("folio layout 0\n".utf8) + counts(1), Data()] {
            try bad.write(to: URL(fileURLWithPath: file))
            XCTAssertEqual(try TypesetBooks.open("chapters.epub", cache: cache).pageCount, pages)
        }
        // The book changed: its counts are looked for under another name.
        let copy = try folder() + ".epub"
        try FileManager.default.copyItem(atPath: try XCTUnwrap(TypesetBooks.folder) + "/chapters.epub", toPath: copy)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: copy) }
        XCTAssertEqual(try MuPDFDocument(path: copy, fontSize: 11, cache: cache).pageCount, pages)
        // Three layouts kept: the book at 11 and 16 points, and its copy.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.folder).count, 3)
    }

    /// The counts are Folio's own file: a link put in its place is replaced, not followed (the
    /// file it points at is untouched); a folder that cannot be written keeps nothing and
    /// costs nothing but the layout.
    func testTheCountsFileIsNeverFollowedAndAFolderThatCannotBeWrittenIsPassedOver() throws {
        let cache = LayoutCache(folder: try folder())
        let pages = try TypesetBooks.open("chapters.epub", cache: cache).pageCount
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: cache.folder).first)
        let precious = try folder() + ".txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: precious))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: precious) }
        try FileManager.default.removeItem(atPath: cache.folder + "/" + name)
        try FileManager.default.createSymbolicLink(atPath: cache.folder + "/" + name, withDestinationPath: precious)
        XCTAssertEqual(try TypesetBooks.open("chapters.epub", cache: cache).pageCount, pages)
        XCTAssertEqual(try String(contentsOfFile: precious, encoding: .utf8), "precious")
        let attributes = try FileManager.default.attributesOfItem(atPath: cache.folder + "/" + name)
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, "the link was replaced by the counts")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.folder), [name], "nothing left beside it")
        // A file where the folder should be.
        let blocked = try folder()
        try Data().write(to: URL(fileURLWithPath: blocked))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: blocked) }
        XCTAssertEqual(try TypesetBooks.open("chapters.epub", cache: LayoutCache(folder: blocked + "/layouts")).pageCount, pages)
    }
}
