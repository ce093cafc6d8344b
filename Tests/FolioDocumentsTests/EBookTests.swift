import FolioBook
import FolioImage
import FolioLibrary
@testable import FolioMuPDF
import Foundation
import XCTest

/// The books of `Fixtures/make_ebooks.py`, written once per test run into a temporary folder,
/// with MuPDF's formats registered.
enum EBooks {
    static let folder: String? = {
        MuPDF.register()
        return Fixtures.generate("make_ebooks.py")
    }()

    static func path(_ name: String) throws -> String {
        guard let folder else { throw XCTSkip("python3 missing: no test books") }
        return folder + "/" + name
    }

    /// Chapter openings of the reflowable books (make_ebooks.py's WORDS).
    static let words = ["ALPHA", "BRAVO", "CHARLIE", "DELTA"]
    static let colours = [(230, 26, 26), (26, 179, 26), (26, 51, 230), (230, 204, 26)]
}

/// Dark pixels (ink) in a region of an image, given in fractions.
func ink(_ image: RGBAImage, _ r: PageRegion) -> Int {
    var n = 0
    for y in Int(r.y0 * Double(image.height))..<Int(r.y1 * Double(image.height)) {
        for x in Int(r.x0 * Double(image.width))..<Int(r.x1 * Double(image.width)) where image.pixel(x, y).g < 128 { n += 1 }
    }
    return n
}

final class EBookTests: XCTestCase {
    /// The page each chapter's opening word is on, in order.
    private func chapterPages(_ doc: PageSource) throws -> [Int] {
        var pages: [Int] = []
        for i in 0..<doc.pageCount {
            let words = try doc.text(page: i)?.words.map(\.text) ?? []
            if let first = words.first, EBooks.words.contains(first) { pages.append(i) }
        }
        return pages
    }

    func testAnEPUB2IsABookLaidOutForItsPageWithItsTextOnTheRightPages() throws {
        let lib = Library.load(from: try EBooks.path("reflow2.epub"), documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.problems, [])
        let book = try XCTUnwrap(lib.books.first)
        XCTAssertEqual(book.title, "Reflowing Words")
        XCTAssertEqual(book.author, "A. Writer")
        XCTAssertEqual(book.direction, .ltr)
        XCTAssertEqual(book.pageWidth, Book.referencePageWidth)
        let doc = try Fixtures.documents.open(try EBooks.path("reflow2.epub"))
        XCTAssertEqual(book.pages.count, doc.pageCount)
        // Four chapters of six long paragraphs: each starts a page, in order, after the last.
        let starts = try chapterPages(doc)
        XCTAssertEqual(starts.count, 4)
        XCTAssertEqual(starts, starts.sorted())
        XCTAssertEqual(starts.first, 0)
        XCTAssertGreaterThan(doc.pageCount, 4)
        // The opening word sits in the top left of its page, inside the margins.
        let alpha = try XCTUnwrap(doc.text(page: starts[1])?.words.first)
        XCTAssertEqual(alpha.text, "BRAVO")
        XCTAssertTrue(alpha.box.x0 > 0.02 && alpha.box.x0 < 0.2 && alpha.box.y0 > 0.02 && alpha.box.y1 < 0.2, "\(alpha.box)")
        // Rendered: ink where the text is, paper in the margins.
        let image = try doc.render(page: 1, fit: PixelSize(width: 362, height: 568)).image
        XCTAssertEqual(image.width, 362)
        XCTAssertGreaterThan(ink(image, PageRegion(x0: 0.1, y0: 0.1, x1: 0.9, y1: 0.9)), 2000)
        XCTAssertEqual(ink(image, PageRegion(x0: 0, y0: 0, x1: 0.03, y1: 1)), 0)
        // On Folio's blank paper, as the book's blank faces are, not on white.
        let margin = image.pixel(4, 4)
        XCTAssertTrue(margin == RGBAImage.blankPaper, "\(margin)")
        // A word's box lies on its ink.
        let first = try doc.render(page: 0, fit: PixelSize(width: 724, height: 1136)).image
        let heading = try XCTUnwrap(doc.text(page: 0)?.words.first)
        XCTAssertEqual(heading.text, "ALPHA")
        XCTAssertGreaterThan(ink(first, heading.box), 50)
        XCTAssertEqual(ink(first, PageRegion(x0: heading.box.x1 + 0.05, y0: heading.box.y0, x1: 0.95, y1: heading.box.y1)), 0)
        // Links: one to the third chapter's page, one out of the book, each over its words.
        let links = doc.links(page: 0)
        XCTAssertEqual(Set(links.map(\.target)), [.page(starts[2]), .uri("https://example.org/")])
        for link in links { XCTAssertTrue(PageRegion.whole.contains(link.box) && !link.box.isEmpty, "\(link)") }
        // The outline (the NCX) points at the chapters' pages.
        XCTAssertEqual(doc.outline.map(\.title), ["Chapter 1", "Chapter 2", "Chapter 3", "Chapter 4"])
        XCTAssertEqual(doc.outline.compactMap(\.page), starts)
    }

    func testAnEPUB3TakesItsOutlineFromItsNavigationAndIsSharpAtTheSizeShown() throws {
        let doc = try Fixtures.documents.open(try EBooks.path("reflow3.epub"))
        XCTAssertEqual(doc.title, "Navigated Words")
        // No NCX: the outline is the EPUB 3 navigation document's, pointing at the chapters.
        XCTAssertEqual(doc.outline.map(\.title), ["Part 1", "Part 2", "Part 3", "Part 4"])
        XCTAssertEqual(doc.outline.compactMap(\.page), try chapterPages(doc))
        let small = try doc.render(page: 0, fit: PixelSize(width: 181, height: 284)).image
        let large = try doc.render(page: 0, fit: PixelSize(width: 724, height: 1136)).image
        XCTAssertEqual(large.width, 724)
        // Drawn again at four times the area, not scaled up: about 4× the ink pixels.
        let ratio = Double(ink(large, .whole)) / Double(max(1, ink(small, .whole)))
        XCTAssertGreaterThan(ratio, 3)
    }

    /// A reflowable page drawn small (an overview's thumbnail) is the whole page, as drawn large:
    /// its lower part has its text too (the list's nodes were culled against the pixmap's
    /// pixels read as points, keeping only a small render's top).
    func testASmallRenderOfAReflowablePageIsTheWholePage() throws {
        let doc = try Fixtures.documents.open(try EBooks.path("long.epub"))
        let page = try XCTUnwrap((0..<doc.pageCount).first { ink(try doc.render(page: $0, fit: PixelSize(width: 362, height: 568)).image,
                                                                PageRegion(x0: 0, y0: 0.7, x1: 1, y1: 0.95)) > 200 })
        let small = try doc.render(page: page, fit: PixelSize(width: 120, height: 188)).image
        XCTAssertLessThan(small.height, 200)
        XCTAssertGreaterThan(ink(small, PageRegion(x0: 0, y0: 0.7, x1: 1, y1: 0.95)), 20, "the foot of page \(page + 1) drawn small")
    }

    func testALargerTextSizeTakesMorePagesAndAPlaceInTheTextIsKept() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("reflow2.epub"), fontSize: 11)
        let starts = try chapterPages(doc)
        let charlie = doc.place(ofPage: starts[2])
        let before = doc.pageCount
        try doc.layout(fontSize: 20)
        let after = doc.pageCount
        XCTAssertGreaterThan(after, before)
        let page = try XCTUnwrap(doc.page(of: charlie))
        XCTAssertEqual(try doc.text(page: page)?.words.first?.text, "CHARLIE")
        XCTAssertGreaterThan(page, starts[2])
    }

    func testFixedLayoutPagesAreTheirImagesAndARightToLeftSpineTurnsRightToLeft() throws {
        for name in ["fixed.epub", "manga-rtl.epub"] {
            let book = try XCTUnwrap(Library.load(from: try EBooks.path(name), documents: Fixtures.documents, logProblems: false).books.first)
            XCTAssertEqual(book.direction, name == "manga-rtl.epub" ? .rtl : .ltr, name)
            XCTAssertEqual(book.pages.count, 4, name)
            for (i, page) in book.pages.enumerated() {
                let image = try Fixtures.documents.render(page, fit: PixelSize(width: 200, height: 300)).image
                XCTAssertColour(image.centre(), EBooks.colours[i], tolerance: 24, "\(name) page \(i + 1)")
            }
        }
    }

    /// A fixed-layout manga whose pictures are its viewport's pixels (no stylesheet sizing them)
    /// has pages of the viewport's shape, each filled by its picture to the bottom: no paper
    /// below it, as a comic archive's page is its picture.
    func testAFixedLayoutMangaHasItsViewportsPageShape() throws {
        let book = try XCTUnwrap(Library.load(from: try EBooks.path("manga-viewport.epub"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.direction, .rtl)
        XCTAssertEqual(book.pageWidth, (568.0 * 120 / 180).rounded(), "the viewport's 120 × 180 at the book's height")
        for (i, page) in book.pages.enumerated() {
            let image = try Fixtures.documents.render(page, fit: PixelSize(width: 200, height: 300)).image
            XCTAssertEqual(Double(image.width) / Double(image.height), 120.0 / 180, accuracy: 0.02, "page \(i + 1)")
            for y in [image.height / 10, image.height / 2, image.height - 3] {
                XCTAssertColour(image.pixel(image.width / 2, y), EBooks.colours[i], tolerance: 24, "page \(i + 1), row \(y)")
            }
        }
    }

    /// A MOBI as Kindle tools write one: its text laid out, its title and author from the
    /// header's EXTH records (MuPDF reads neither); a header whose lengths lie gives neither.
    func testAMOBITakesItsTitleAndAuthorFromItsHeader() throws {
        let book = try Fixtures.documents.open(try EBooks.path("book.mobi"))
        XCTAssertEqual(book.title, "Kindle Words \u{2014} Updated")
        XCTAssertEqual(book.author, "K. Writer")
        XCTAssertEqual(try book.text(page: 0)?.words.first?.text, "ALPHA")
        let lying = try Fixtures.documents.open(try EBooks.path("lying-header.mobi"))
        XCTAssertNil(lying.title)
        XCTAssertNil(lying.author, "\"Unknown\" is no author")
        XCTAssertEqual(try lying.text(page: 0)?.words.first?.text, "ALPHA")
    }

    /// A Kindle book shows what Kindle readers show: its cover (EXTH 201, a picture its text never
    /// places) as its first page; its contents from its NCX index, in the text's order and nested;
    /// its contents page's `filepos` links leading to their chapters; its Windows-1252 text as
    /// written, hyphenated in its language (EXTH 524), under the running head of its chapter; the
    /// picture its text names where it names it.
    func testAKindleBookShowsItsCoverContentsAndLinks() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("kindle.mobi"), fontSize: 11)
        let pages = try (0..<doc.pageCount).map { try doc.text(page: $0)?.words.map(\.text) ?? [] }
        let part = try XCTUnwrap(pages.firstIndex { $0.starts(with: ["Part", "One"]) })
        let one = try XCTUnwrap(pages.firstIndex { $0.first == "YANKEE" })
        let two = try XCTUnwrap(pages.firstIndex { $0.first == "ZULU" })
        XCTAssertEqual(pages[0], [], "the cover page holds no text")
        XCTAssertEqual(Array(pages[one].prefix(3)), ["YANKEE", "the", "traveller\u{2019}s"])
        let fit = PixelSize(width: 181, height: 284)
        let share = Self.share
        let images = try (0..<doc.pageCount).map { try doc.render(page: $0, fit: fit).image }
        XCTAssertGreaterThan(share(images[0], EBooks.colours[0]), 0.4, "the red cover fills the first page")
        XCTAssertEqual(images.dropFirst().map { share($0, EBooks.colours[0]) }.max(), 0, "the cover is nowhere else")
        XCTAssertEqual(images.indices.filter { share(images[$0], EBooks.colours[2]) > 0.002 }.count, 1, "the blue picture, once")
        XCTAssertEqual(doc.outline, [OutlineEntry(title: "Part One", page: part, children: [
            OutlineEntry(title: "Chapter One \u{2014} D\u{E9}but", page: one), OutlineEntry(title: "Chapter Two", page: two)])])
        XCTAssertEqual(Set(doc.links(page: 1).map(\.target)), [.page(one), .page(two)])
        XCTAssertEqual(doc.hyphenationLanguage, "en")
        let right = try XCTUnwrap((one + 1..<two).first { doc.furniture($0)?.right == true })
        XCTAssertEqual(doc.furniture(right)?.head, "Chapter One \u{2014} D\u{E9}but")
    }

    /// A KF8 (AZW3) book is its parts put together, as Kindle readers show it: MuPDF 1.21 read
    /// its text as it lies in its records, skeletons apart from their fragments (a Calibre-made
    /// AZW3 of a 194-page book showed two empty pages). Its cover, pictures, stylesheet, links by
    /// position and contents are each found.
    func testAKF8BookIsItsPartsPutTogether() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("kf8.azw3"), fontSize: 11)
        let texts = try (0..<doc.pageCount).map { try doc.text(page: $0)?.words ?? [] }
        let pages = texts.map { $0.map(\.text) }
        let contents = try XCTUnwrap(pages.firstIndex { $0.first == "Contents" })
        let two = try XCTUnwrap(pages.firstIndex { $0.starts(with: ["Chapter", "Two", "ZULU"]) })
        XCTAssertEqual(pages[0], [], "the cover page holds no text")
        let words = pages.joined()
        let order = try ["ZULU", "WHISKEY", "XRAY"].map { word in try XCTUnwrap(words.firstIndex(of: word), word) }
        XCTAssertEqual(order, order.sorted(), "each fragment in its place in its skeleton")
        XCTAssertFalse(pages.joined().contains { $0.contains("kindle:") || $0.contains("<") }, "no markup shows")
        let heights = texts[contents].prefix(2).map { $0.box.height }
        XCTAssertGreaterThan(heights[0], 2 * heights[1], "the stylesheet in the text's second flow sets \"Contents\" large")
        let fit = PixelSize(width: 181, height: 284)
        let images = try (0..<doc.pageCount).map { try doc.render(page: $0, fit: fit).image }
        XCTAssertGreaterThan(Self.share(images[0], EBooks.colours[0]), 0.4, "the red cover fills the first page")
        XCTAssertEqual(images.indices.filter { Self.share(images[$0], EBooks.colours[2]) > 0.002 }.count, 1, "the blue picture, once")
        XCTAssertEqual(doc.outline, [OutlineEntry(title: "Contents", page: contents), OutlineEntry(title: "Chapter Two", page: two)])
        XCTAssertEqual(Set(doc.links(page: contents).map(\.target)), [.page(two)])
        XCTAssertEqual(doc.title, "KF8 Book")
        // A chapter's first page has no running head, though its heading lies below the
        // page's top by its margin (it was headed by the chapter before).
        XCTAssertEqual(doc.furniture(two)?.head, "")
        // An index naming one fragment 3,000 times does not multiply the text.
        let repeated = try MuPDFDocument(path: try EBooks.path("kf8-repeats.azw3"), fontSize: 11)
        XCTAssertLessThanOrEqual(repeated.pageCount, doc.pageCount + 1)
    }

    /// The share of `image`'s pixels within 30 levels of `colour`.
    private static func share(_ image: RGBAImage, _ colour: (Int, Int, Int)) -> Double {
        var n = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x, y)
                if abs(Int(p.r) - colour.0) < 30 && abs(Int(p.g) - colour.1) < 30 && abs(Int(p.b) - colour.2) < 30 { n += 1 }
            }
        }
        return Double(n) / Double(image.width * image.height)
    }

    /// An FB2's contents are its titled sections, nested as they are, each title's paragraphs
    /// joined, and its notes once, and they name its running heads: MuPDF listed every title
    /// and subtitle flat, a title's paragraphs and note references run together ("Chapter
    /// 1The Beginning [1]"), and each note.
    func testAnFB2sContentsAreItsSections() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("sections.fb2"), fontSize: 11)
        let pages = try (0..<doc.pageCount).map { try doc.text(page: $0)?.words.map(\.text) ?? [] }
        let page = { (word: String) in try XCTUnwrap(pages.firstIndex { $0.contains(word) }, word) }
        let notes = try XCTUnwrap(pages.firstIndex { $0.contains("note.") })
        XCTAssertEqual(doc.outline, [
            OutlineEntry(title: "Chapter 1. The Beginning", page: try page("ECHO"), children: [
                OutlineEntry(title: "Part 1.1", page: try page("FOXTROT"), children: [
                    OutlineEntry(title: "Part 1.1.1", page: try page("GOLF"))])]),
            OutlineEntry(title: "Chapter 2", page: try page("HOTEL")),
            OutlineEntry(title: "Notes", page: notes)])
        let hotel = try page("HOTEL")
        let right = try XCTUnwrap((hotel + 1...notes).first { doc.furniture($0)?.right == true })
        XCTAssertEqual(doc.furniture(right)?.head, "Chapter 2")
        // A story of untitled sections is its body's title (its contents were empty).
        let story = try MuPDFDocument(path: try EBooks.path("story.fb2"), fontSize: 11)
        XCTAssertEqual(story.outline, [OutlineEntry(title: "Ann Writer. The Story", page: 0)])
    }

    /// An FB2 with one damaged picture shows its others, and is set with the reader's typography:
    /// MuPDF reads every picture as it opens an FB2, and one it cannot decode threw it out of
    /// reading the pictures and the stylesheets, so the cover and line spacing were lost.
    func testAnFB2sDamagedPictureLosesNothingElse() throws {
        let path = try EBooks.path("pictured.fb2")
        let standard = try MuPDFDocument(path: path, fontSize: 11)
        let cover = try standard.render(page: 0, fit: PixelSize(width: 181, height: 284)).image
        var red = 0
        for y in 0..<cover.height {
            for x in 0..<cover.width {
                let p = cover.pixel(x, y)
                if p.r > 200 && p.g < 60 && p.b < 60 { red += 1 }
            }
        }
        XCTAssertGreaterThan(red, 200, "the red cover")
        let loose = try MuPDFDocument(path: path, fontSize: 11, typography: Typography(lineSpacing: 2))
        XCTAssertGreaterThan(loose.pageCount, standard.pageCount)
    }

    /// An FB2's notes follow one another, as FB2 readers set them: MuPDF's stylesheet starts a
    /// page at every section's title, so each note took a page (24 of a 69-page book's).
    func testAnFB2sNotesFollowOneAnother() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("notes.fb2"), fontSize: 11)
        let pages = try (0..<doc.pageCount).map { try doc.text(page: $0)?.words.map(\.text) ?? [] }
        let first = try XCTUnwrap(pages.firstIndex { $0.contains("NOTE1") })
        let last = try XCTUnwrap(pages.firstIndex { $0.contains("NOTE12") })
        XCTAssertLessThanOrEqual(last - first, 1, "twelve notes on a page or two: \(pages)")
    }

    /// FB2 and MOBI are set with the reader's typography, as EPUBs are: MuPDF parses them as it
    /// opens them, and Folio's stylesheet came only after (their lines set solid in MuPDF's page
    /// margins whatever the reader chose). An FB2's title is its own, no soft hyphen put in it
    /// ("The Sanc-tu-ary Spar-row" in every running head).
    func testFB2AndMOBIAreSetWithTheReadersTypography() throws {
        for book in ["long.fb2", "quoted.mobi"] {
            let path = try EBooks.path(book)
            let standard = try MuPDFDocument(path: path, fontSize: 11)
            let loose = try MuPDFDocument(path: path, fontSize: 11, typography: Typography(lineSpacing: 2))
            XCTAssertGreaterThan(loose.pageCount, standard.pageCount, book)
            // Folio's margins are about the text block, not MuPDF's 2 em inside it.
            let words = try (0..<standard.pageCount).flatMap { try XCTUnwrap(standard.text(page: $0)).words }
            XCTAssertLessThan(try XCTUnwrap(words.map(\.box.x0).min()), 0.1, book)
        }
        XCTAssertEqual(try MuPDFDocument(path: try EBooks.path("long.fb2"), fontSize: 11).title, "The Sanctuary Sparrow")
    }

    /// A poem a Kindle book quotes ten blockquotes deep stays on the page: each nested quotation
    /// is indented half an em, not 40 points each side (which pushed its words past the edge).
    func testAQuotationNestedTenDeepStaysOnThePage() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("quoted.mobi"), fontSize: 11)
        let words = try (0..<doc.pageCount).flatMap { try XCTUnwrap(doc.text(page: $0)).words }
        let poem = words.filter { ["How", "crocodile", "shining", "tail"].contains($0.text) }
        XCTAssertEqual(poem.count, 4, "\(poem)")
        XCTAssertLessThan(poem[0].box.x0, 0.5, "the poem's line starts in the page's left half: \(poem[0])")
        for word in poem { XCTAssertLessThanOrEqual(word.box.x1, 1, "\(word)") }
    }

    func testFB2AndXPS() throws {
        let fb2 = try Fixtures.documents.open(try EBooks.path("book.fb2"))
        XCTAssertEqual(fb2.title, "Fiction Words")
        XCTAssertEqual(try chapterPages(fb2).count, 3)
        let xps = try Fixtures.documents.open(try EBooks.path("sheet.xps"))
        XCTAssertEqual(xps.pageCount, 2)
        for i in 0..<2 {
            let image = try xps.render(page: i, fit: PixelSize(width: 200, height: 300)).image
            XCTAssertColour(image.centre(), EBooks.colours[i], tolerance: 24, "XPS page \(i + 1)")
            XCTAssertColour(image.pixel(image.width / 2, 5), white, "XPS page \(i + 1) top")
        }
    }

    /// A book whose layout takes longer than the decode timeout opens when it is up, laid out
    /// as far as MuPDF got (the chapters before the slow one), and says so in one line; laid out
    /// again (a text size) it gives the same. Not waited for: MuPDF finishes the slow chapter on
    /// its own thread.
    func testALayoutTakingTooLongShowsTheChaptersLaidOutSoFar() throws {
        let timeout = PageSources.decodeTimeout
        PageSources.decodeTimeout = 0.5
        defer { PageSources.decodeTimeout = timeout }
        let path = try EBooks.path("slow-layout.epub")
        let registry = DocumentRegistry()
        let book = try registry.open(path)
        let firstChapter = try chapterPages(try MuPDFDocument(path: try EBooks.path("reflow2.epub"), fontSize: 11))[1]
        XCTAssertEqual(book.pageCount, firstChapter, "the first chapter's pages, as in the book it comes from")
        XCTAssertFalse(book.pagesEstimated)
        XCTAssertEqual(book.notes, ["laying out took over 0.5 s; showing the first 1 of 3 chapters"])
        XCTAssertEqual(try book.text(page: 0)?.words.first?.text, "ALPHA")
        let reflowable = try XCTUnwrap(book as? any ReflowableSource)
        let (larger, page) = try reflowable.relaid(fontSize: 12, keeping: reflowable.place(ofPage: 0))
        XCTAssertEqual(page, 0)
        XCTAssertEqual(try larger.text(page: 0)?.words.first?.text, "ALPHA")
        XCTAssertGreaterThan(larger.pageCount, 0)
    }

    /// Each bad book says what is wrong in one line naming it; the others in the folder open.
    func testBadBooksSayWhyAndTheRestOfTheLibraryOpens() throws {
        let dir = try EBooks.path("bad")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let bad = ["truncated.epub", "garbage.epub", "outside-spine.epub", "nested.epub", "drm.epub"]
        let survive = ["missing-spine.epub", "laughs.epub", "huge-image.epub", "absurd-css.epub", "broken-base64.fb2", "reflow2.epub"]
        for name in bad + survive { try FileManager.default.copyItem(atPath: try EBooks.path(name), toPath: dir + "/" + name) }
        let lib = Library.load(from: dir, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.books.count, bad.count + survive.count)
        for name in bad {
            let lines = lib.problems.filter { $0.file.hasSuffix("/" + name) }
            XCTAssertEqual(lines.count, 1, "\(name): \(lines)")
        }
        XCTAssertTrue(lib.problems.contains { $0.file.hasSuffix("drm.epub") && $0.message.contains("DRM") })
        XCTAssertTrue(lib.problems.contains { $0.file.hasSuffix("nested.epub") && $0.message.contains("OEBPS/c0.xhtml") })
        for name in survive {
            let book = try XCTUnwrap(lib.books.first { $0.pages.first?.path.hasPrefix(dir + "/" + name) == true }, name)
            XCTAssertGreaterThan(book.pages.count, 0, name)
            // Every page draws or says why (a page too large for the memory limit).
            for page in book.pages {
                do { _ = try Fixtures.documents.render(page, fit: PixelSize(width: 181, height: 284)) } catch let e as PageError {
                    XCTAssertTrue(e.description.hasPrefix(dir + "/" + name), e.description)
                }
            }
        }
        // Absurd CSS is bounded: the text is laid out at a readable size, not one letter a page.
        let absurd = try Fixtures.documents.open(dir + "/absurd-css.epub")
        XCTAssertGreaterThan(try absurd.text(page: 0)?.words.count ?? 0, 50)
    }
}

