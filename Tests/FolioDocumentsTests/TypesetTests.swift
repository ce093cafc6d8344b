import CMuPDFBridge
import FolioBook
import FolioFind
import FolioImage
@testable import FolioMuPDF
import Foundation
import XCTest

/// The books of `Fixtures/make_typeset_ebooks.py`: cases real EPUBs have, set like a printed book.
enum TypesetBooks {
    static let folder: String? = {
        MuPDF.register()
        return Fixtures.generate("make_typeset_ebooks.py")
    }()

    static func open(_ name: String, typography: Typography = .standard, fontSize: Double = 11,
                     extent: LayoutExtent = .whole, cache: LayoutCache? = nil) throws -> MuPDFDocument {
        guard let folder else { throw XCTSkip("python3 missing: no test books") }
        return try MuPDFDocument(path: folder + "/" + name, fontSize: fontSize, typography: typography, extent: extent, cache: cache)
    }
}

/// Whether a pixel is Folio's blank paper exactly.
private func paper(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
    (p.r, p.g, p.b) == (RGBAImage.blankPaper.0, RGBAImage.blankPaper.1, RGBAImage.blankPaper.2)
}

/// Pixels of `image` in `r` (fractions) that are not blank paper.
private func marked(_ image: RGBAImage, _ r: PageRegion) -> Int {
    var n = 0
    for y in Int(r.y0 * Double(image.height))..<Int(r.y1 * Double(image.height)) {
        for x in Int(r.x0 * Double(image.width))..<Int(r.x1 * Double(image.width)) where !paper(image.pixel(x, y)) { n += 1 }
    }
    return n
}

final class TypesetTests: XCTestCase {
    private let size = PixelSize(width: 362, height: 568)

    /// A book whose stylesheet sets `body { margin: 0 }` and paints its body white still has
    /// Folio's margins on every page, blank paper in them: the inner one narrower than the outer,
    /// on the side of the spine.
    func testTheMarginsAreFoliosAndThePaperIsNeverPaintedOver() throws {
        let doc = try TypesetBooks.open("margin0.epub")
        let frame = PageFrame(width: 362, height: 568, margins: .normal)
        XCTAssertLessThan(frame.inner, frame.outer)
        XCTAssertGreaterThan(frame.bottom, frame.top)
        XCTAssertGreaterThan(doc.pageCount, 4)
        for index in 0..<doc.pageCount {
            let image = try doc.render(page: index, fit: size).image
            // A page on the right of the spine (the first) has its inner margin on its left.
            let left = (index % 2 == 0 ? frame.inner : frame.outer) / frame.width
            let right = (index % 2 == 0 ? frame.outer : frame.inner) / frame.width
            XCTAssertEqual(marked(image, PageRegion(x0: 0, y0: 0, x1: left - 0.01, y1: 1)), 0, "page \(index + 1): the left margin")
            XCTAssertEqual(marked(image, PageRegion(x0: 1 - right + 0.01, y0: 0, x1: 1, y1: 1)), 0, "page \(index + 1): the right margin")
            // Between the lines the text block is paper too: no white box behind the text.
            XCTAssertTrue(paper(image.pixel(image.width / 2, Int(frame.top / frame.height * Double(image.height)) + 1)), "page \(index + 1)")
        }
        // Folio's margins on the page the text ends on: the last line is inside the block.
        let last = try XCTUnwrap(doc.text(page: 3)?.words.last)
        XCTAssertLessThan(last.box.y1, 1 - frame.bottom / frame.height + 0.005)
    }

    /// A book listing its print edition's pages (`page-list`) carries their numbers as folios: a
    /// page the number of the printed page it starts in (the break before it, or at its top),
    /// none before the first (its front matter), none on a chapter's opening; a book without one
    /// numbers its pages itself. An EPUB 2's NCX `pageList` gives the same.
    func testPrintedPageNumbersAreTheFolios() throws {
        let book = try TypesetBooks.open("printed.epub")
        var printed: String?, seen: Set<String> = []
        for index in 0..<book.pageCount {
            let words = try book.text(page: index)?.words.map(\.text) ?? []
            // Each break stands right before the word "markN": a page opening with it starts in N.
            if let first = words.first, first.hasPrefix("mark") { printed = String(first.dropFirst(4)) }
            let foot = book.furniture(index)?.foot
            if let foot { XCTAssertEqual(foot, printed ?? "", "page \(index + 1): \(words.prefix(3))") }
            if book.chapter(ofPage: index) == 0 { XCTAssert(foot == nil || foot == "", "front matter: no folio") }
            if let foot, !foot.isEmpty { seen.insert(foot) }
            printed = words.last(where: { $0.hasPrefix("mark") }).map { String($0.dropFirst(4)) } ?? printed
        }
        XCTAssertGreaterThanOrEqual(seen.count, 6, "\(seen)")
        XCTAssert(seen.isSubset(of: Set((12...19).map(String.init))), "\(seen)")
        // An EPUB 2 lists them in its NCX: the same folios.
        let epub2 = try TypesetBooks.open("printed2.epub")
        XCTAssertEqual(epub2.pageCount, book.pageCount)
        XCTAssertEqual((0..<book.pageCount).map { epub2.furniture($0)?.foot }, (0..<book.pageCount).map { book.furniture($0)?.foot })
        // A label's line break is a space ("Part↵1" in the contents).
        XCTAssertEqual(epub2.outline.map(\.title), ["Part 1"])
        let plain = try TypesetBooks.open("margin0.epub")
        XCTAssertEqual(plain.furniture(3)?.foot, "4")
    }

    /// Every page but a chapter's first has a running head in its head margin and a folio in its
    /// foot margin, at its outer side; a chapter's opening page has neither.
    func testFoliosAndRunningHeadsAreOnThePagesAndNotOnChapterOpenings() throws {
        let doc = try TypesetBooks.open("margin0.epub")
        let frame = PageFrame(width: 362, height: 568, margins: .normal)
        let head = PageRegion(x0: 0, y0: 0, x1: 1, y1: frame.top / frame.height)
        let foot = PageRegion(x0: 0, y0: 1 - frame.bottom / frame.height, x1: 1, y1: 1)
        var openings = 0, others = 0
        for index in 0..<doc.pageCount {
            let image = try doc.render(page: index, fit: size).image
            let opening = try XCTUnwrap(doc.text(page: index)?.words.first?.text) == "Chapter"
            if opening {
                openings += 1
                XCTAssertEqual(marked(image, head), 0, "page \(index + 1) opens a chapter: no head")
                XCTAssertEqual(marked(image, foot), 0, "page \(index + 1) opens a chapter: no folio")
            } else {
                others += 1
                XCTAssertGreaterThan(marked(image, head), 40, "page \(index + 1): its running head")
                XCTAssertGreaterThan(marked(image, foot), 10, "page \(index + 1): its folio")
                // The folio at the outer corner: right on a right-hand page, left on a left-hand one.
                let outer = index % 2 == 0 ? PageRegion(x0: 0.5, y0: foot.y0, x1: 1, y1: 1) : PageRegion(x0: 0, y0: foot.y0, x1: 0.5, y1: 1)
                XCTAssertEqual(marked(image, foot), marked(image, outer), "page \(index + 1): the folio at the outer corner")
            }
        }
        XCTAssertEqual(openings, 2)
        XCTAssertGreaterThan(others, 2)
    }

    /// Justified text is hyphenated by the book's language: lines end in hyphens, no word is
    /// lost (the page's characters are the same, hyphens not counted), and search reads a
    /// broken word whole. Without hyphenation no line ends in one.
    func testTextIsHyphenatedByItsLanguageAndSearchReadsBrokenWordsWhole() throws {
        let narrow = Typography(margins: .wide)
        let doc = try TypesetBooks.open("margin0.epub", typography: narrow)
        XCTAssertEqual(doc.hyphenationLanguage, "en")
        let words = try XCTUnwrap(doc.text(page: 1)).words
        let broken = words.filter { $0.text.count > 2 && $0.text.hasSuffix("-") }
        XCTAssertGreaterThan(broken.count, 3, "lines ending in a hyphen")
        let plain = try TypesetBooks.open("margin0.epub", typography: Typography(margins: .wide, hyphenate: false))
        XCTAssertNil(plain.hyphenationLanguage)
        XCTAssertEqual(try XCTUnwrap(plain.text(page: 1)).words.filter { $0.text.hasSuffix("-") }.count, 0)
        // Hyphenated lines hold more: the text ends sooner.
        XCTAssertLessThanOrEqual(doc.pageCount, plain.pageCount)
        // The same text: a chapter's characters are the same whatever the breaks.
        let chars = { (d: MuPDFDocument) in try (0..<d.pageCount).map { try XCTUnwrap(d.text(page: $0)).words.count } }
        XCTAssertGreaterThan(try chars(doc).reduce(0, +), 0)
        // A word broken across two lines is found whole, its boxes on both lines.
        let first = try XCTUnwrap(broken.first)
        let page = try XCTUnwrap(doc.text(page: 1))
        let at = try XCTUnwrap(page.words.firstIndex { $0 == first })
        let whole = String(first.text.dropLast()) + page.words[at + 1].text
        let hits = page.hits(of: try Phrase(whole.trimmingCharacters(in: .punctuationCharacters)), page: 1)
        XCTAssertEqual(hits.first?.boxes.count, 2, "\(whole)")
    }

    /// Paragraphs the publisher keeps whole (`hyphens: none` by a class, in `@media`, in a style
    /// attribute) break no word, nor does a heading (as a printed book's display type); the
    /// paragraphs beside them are hyphenated.
    func testWhatThePublisherKeepsUnhyphenatedIsKeptWhole() throws {
        let doc = try TypesetBooks.open("unhyphenated.epub", typography: Typography(margins: .wide))
        let kept = Set("Incontrovertibly counterrevolutionaries unconstitutionally disproportionated electroencephalographic telecommunications institutionalisation notwithstanding"
            .split(separator: " ").map(String.init))
        var brokenKept: [String] = [], brokenOther = 0
        for page in 0..<doc.pageCount {
            for word in try XCTUnwrap(doc.text(page: page)).words where word.text.count > 2 && word.text.hasSuffix("-") {
                let stem = String(word.text.dropLast())
                if kept.contains(where: { $0.hasPrefix(stem) }) && !["Notwithstanding", "notwithstanding"].contains(where: { $0.hasPrefix(stem) }) {
                    brokenKept.append(word.text)
                } else {
                    brokenOther += 1
                }
            }
        }
        XCTAssertEqual(brokenKept, [], "words the publisher keeps whole")
        XCTAssertGreaterThan(brokenOther, 3, "the other paragraphs are hyphenated")
    }

    /// An Arabic book (`<html dir="rtl">`) is set right to left: its one-line paragraphs lie at
    /// the right of the text block, none at its left.
    func testRightToLeftParagraphsAreSetToTheRight() throws {
        let doc = try TypesetBooks.open("rtl.epub")
        XCTAssertEqual(doc.direction, .rtl)
        let image = try doc.render(page: 0, fit: size).image
        XCTAssertGreaterThan(ink(image, PageRegion(x0: 0.6, y0: 0.1, x1: 0.95, y1: 0.9)), 200)
        XCTAssertEqual(ink(image, PageRegion(x0: 0, y0: 0.1, x1: 0.45, y1: 0.9)), 0)
    }

    /// A book set vertically says it is shown across, once.
    func testAVerticalBookSaysItIsShownHorizontally() throws {
        let doc = try TypesetBooks.open("vertical.epub")
        XCTAssertEqual(doc.notes.filter { $0.contains("vertically") }.count, 1, "\(doc.notes)")
        XCTAssertEqual(try TypesetBooks.open("margin0.epub").notes, [])
    }

    /// A fixed-layout book whose pages are pictures (a PNG and an SVG in the spine, a picture in
    /// an SVG wrapper) shows each picture across its page.
    func testPicturePagesShowTheirPictures() throws {
        let doc = try TypesetBooks.open("pictures.epub")
        XCTAssertEqual(doc.pageCount, 3)
        XCTAssertFalse(doc.reflowable)
        for (index, colour) in [(230, 26, 26), (26, 51, 230), (26, 179, 26)].enumerated() {
            let image = try doc.render(page: index, fit: PixelSize(width: 300, height: 400)).image
            for (x, y) in [(0.5, 0.5), (0.05, 0.05), (0.95, 0.95), (0.95, 0.05), (0.05, 0.95)] {
                XCTAssertColour(image.pixel(Int(x * Double(image.width - 1)), Int(y * Double(image.height - 1))), colour,
                                "page \(index + 1) at \(x), \(y)")
            }
        }
    }

    /// The share of the image's width and height (x0, y0, x1, y1) that pixels near `colour` span.
    private func span(of colour: (Int, Int, Int), in image: RGBAImage) -> (Double, Double, Double, Double)? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x, y)
                guard abs(Int(p.r) - colour.0) < 40, abs(Int(p.g) - colour.1) < 40, abs(Int(p.b) - colour.2) < 40 else { continue }
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        let w = Double(image.width), h = Double(image.height)
        return box.map { (Double($0.0) / w, Double($0.1) / h, Double($0.2 + 1) / w, Double($0.3 + 1) / h) }
    }

    /// A cover in an SVG wrapper (as Project Gutenberg and calibre write them) is fitted whole to
    /// its page and centred, as the wrapper's `viewBox` and `xMidYMid meet` have it: a wide
    /// picture as wide as the text and in the middle of its height, a tall one as tall and in
    /// the middle of its width. Set across the page, a cover lay at the page's top.
    func testACoverInAnSVGWrapperIsFittedAndCentred() throws {
        let book = try TypesetBooks.open("wrapped.epub")
        XCTAssertEqual(book.pageCount, 3, "each picture on a page of its own")
        let frame = try XCTUnwrap(book.frame), size = PixelSize(width: 362, height: 568)
        func block(_ page: Int) -> PageRegion {
            let left = frame.blockLeft(onRight: book.onRight(page))
            return PageRegion(x0: left / frame.width, y0: frame.top / frame.height,
                              x1: (left + frame.block.width) / frame.width, y1: (frame.top + frame.block.height) / frame.height)
        }
        let wide = try XCTUnwrap(span(of: (230, 26, 26), in: book.render(page: 0, fit: size).image), "the wide picture")
        XCTAssertEqual(wide.0, block(0).x0, accuracy: 0.01, "as wide as the text")
        XCTAssertEqual(wide.2, block(0).x1, accuracy: 0.01)
        XCTAssertEqual((wide.1 + wide.3) / 2, (block(0).y0 + block(0).y1) / 2, accuracy: 0.015, "in the middle of its height: \(wide)")
        let tall = try XCTUnwrap(span(of: (26, 51, 230), in: book.render(page: 1, fit: size).image), "the tall picture")
        XCTAssertEqual(tall.1, block(1).y0, accuracy: 0.01, "as tall as the text")
        XCTAssertEqual(tall.3 - tall.1, 0.98 * block(1).height, accuracy: 0.01)
        XCTAssertEqual((tall.0 + tall.2) / 2, (block(1).x0 + block(1).x1) / 2, accuracy: 0.01, "in the middle of its width: \(tall)")
    }

    /// A fixed-layout page whose body is sized in CSS pixels (as publishers export them) shows
    /// its picture where the page puts it: MuPDF takes a pixel for a point, and a body a third
    /// wider than its page shifted the page's SVG right and cut it off.
    func testAFixedPageSizedInPixelsShowsItsPictureInPlace() throws {
        let doc = try TypesetBooks.open("pixelbody.epub")
        XCTAssertFalse(doc.reflowable)
        let image = try doc.render(page: 0, fit: PixelSize(width: 300, height: 400)).image
        let square = try XCTUnwrap(span(of: (0, 0, 0), in: image), "the square is drawn")
        for (got, want) in zip([square.0, square.1, square.2, square.3], [0.1, 0.5, 0.2, 0.6]) {
            XCTAssertEqual(got, want, accuracy: 0.015, "the square spans \(square), not 10–20 % across, 50–60 % down")
        }
    }

    /// A picture sized in pixels in a body sized in pixels, both wider than the page, is shrunk
    /// to the text's width, as readers' stylesheets do, not cut off at the page's edge.
    func testAPictureWiderThanThePageIsShrunkToIt() throws {
        let doc = try TypesetBooks.open("widebody.epub")
        let image = try doc.render(page: 0, fit: PixelSize(width: 300, height: 480)).image
        let picture = try XCTUnwrap(span(of: (26, 51, 230), in: image), "the picture is drawn")
        let width = picture.2 - picture.0, height = (picture.3 - picture.1) * Double(image.height) / Double(image.width)
        XCTAssertLessThan(picture.2, 0.95, "the picture ends inside the page's margin: \(picture)")
        XCTAssertGreaterThan(width, 0.6, "the picture spans the text's width: \(picture)")
        XCTAssertEqual(width / height, 1024.0 / 400, accuracy: 0.1, "the picture keeps its shape: \(picture)")
    }

    /// MathML reads in a line (MuPDF set its tokens one after another: "b = 8 − 1 2 4"): a
    /// fenced column vector as rows, fractions with their bar, parenthesised where a part is a
    /// sum, a root, scripts, no TeX annotation, a bare matrix in brackets, and equations aligned
    /// in a displayed table on lines of their own.
    func testMathMLReadsInALine() throws {
        let doc = try TypesetBooks.open("math.epub")
        let words = try XCTUnwrap(doc.text(page: 0)).words
        let text = words.map(\.text).joined(separator: " ")
        for phrase in ["b = [8; −12; 4] is given", "x = −√3/2, y = (a + b)/2 hold", "A = [1, 2; 3, 4] is square", "u = 11 w = 22"] {
            XCTAssertTrue(text.contains(phrase), "“\(phrase)” in \(text)")
        }
        XCTAssertFalse(text.contains("TEXSOURCE"), text)
        XCTAssertTrue(text.contains("et + c0 here"), text)
        func word(_ text: String) throws -> PageRegion { try XCTUnwrap(words.first { $0.text == text }?.box, text) }
        let u = try word("u"), w = try word("w")
        XCTAssertGreaterThan(w.y0, u.y1 - 0.1 * u.height, "the aligned equations are lines of their own")
    }

    /// Chapters set as Project Gutenberg sets them (a break before the chapter's box and its
    /// heading, the box with a top margin) start on a page each, with no blank page before
    /// them (MuPDF broke again after the margin); a break between two chapters of one file
    /// still starts a page, which has no running head. A box of an empty `style` too: what the
    /// copy adds to a style must not start it with ';', on which MuPDF drops the style whole.
    func testAChapterOpeningAFileStartsItsPageWithNoBlankBeforeIt() throws {
        let doc = try TypesetBooks.open("gutenberg.epub")
        XCTAssertEqual(doc.pageCount, 4)
        for page in 0..<doc.pageCount {
            let words = try XCTUnwrap(doc.text(page: page)).words.map(\.text)
            XCTAssertEqual(words.prefix(2), ["CHAPTER", "\(page + 1)."], "page \(page + 1): \(words)")
            // A chapter's opening page has no running head, though its heading lies below the
            // chapter's top margin (the last page, inside its file, was headed "Chapter 3").
            XCTAssertEqual(doc.furniture(page)?.head ?? "", "", "page \(page + 1)")
        }
        XCTAssertEqual(doc.outline.map(\.page), [0, 1, 2, 3])
    }

    /// Lines of a page of `book` (page index 1) that end in a hyphen the layout put there.
    private func hyphenatedLines(_ book: String) throws -> Int {
        let doc = try TypesetBooks.open(book)
        return try XCTUnwrap(doc.text(page: 1)).words.filter { $0.text.count > 2 && $0.text.hasSuffix("-") }.count
    }

    /// Russian is hyphenated: Debian's patterns for it are KOI8-R, which libhyphen compares
    /// byte for byte with the UTF-8 words, so no word ever broke (and justified lines gaped).
    func testRussianIsHyphenatedThoughItsPatternsAreKOI8R() throws {
        guard FileManager.default.fileExists(atPath: "/usr/share/hyphen/hyph_ru_RU.dic") else {
            throw XCTSkip("hyphen-ru is not installed (Makefile's BUILD_PACKAGES has it)")
        }
        XCTAssertEqual(try TypesetBooks.open("russian.epub").hyphenationLanguage, "ru")
        XCTAssertGreaterThan(try hyphenatedLines("russian.epub"), 3)
        // Each line broken where the patterns allow (libhyphen gives a UTF-8 word's breaks by
        // letter, not by byte: read by byte, "очередной" broke as "оч-ередной"). The breaks of
        // the fixture's words, as libhyphen 2.8.8 finds them with Debian's patterns:
        let breaks = ["до", "достоприме", "достопримечатель", "достопримечательно", "пе", "петер", "не", "неод", "неодно",
                      "при", "привле", "внима", "путеше", "путешествен", "путешественни", "ис", "иссле", "исследо", "ар", "архи",
                      "архитек", "архитекто", "вос", "восхи", "ве", "вели", "велико", "много", "многочис", "многочислен"]
        let words = try XCTUnwrap(TypesetBooks.open("russian.epub").text(page: 1)).words
        for word in words where word.text.count > 2 && word.text.hasSuffix("-") {
            // A compound's last part ("Санкт-Пе-").
            let part = word.text.dropLast().split(separator: "-").last.map { String($0).lowercased() } ?? ""
            XCTAssertTrue(breaks.contains(part), "\(word.text) is not a break the patterns allow")
        }
    }

    /// German is hyphenated, by its two- or three-letter code, and its patterns are loaded once
    /// for every book a process opens: libhyphen takes seconds over Debian's German file, which
    /// each open of a German book and each change of its type paid (here three layouts of one
    /// book, and two more books).
    func testGermanPatternsAreLoadedOnceForEveryBook() throws {
        let patterns = "/usr/share/hyphen/hyph_de_DE.dic"
        guard FileManager.default.fileExists(atPath: patterns) else {
            throw XCTSkip("hyphen-de is not installed (Makefile's BUILD_PACKAGES has it)")
        }
        for size in [10.0, 11, 13] {
            XCTAssertEqual(try TypesetBooks.open("german.epub", fontSize: size).hyphenationLanguage, "de")
        }
        XCTAssertGreaterThan(try hyphenatedLines("german.epub"), 3)
        // A three-letter code names the same patterns ("pol" turned Polish hyphenation off).
        XCTAssertEqual(try TypesetBooks.open("german3.epub").hyphenationLanguage, "ger")
        XCTAssertGreaterThan(try hyphenatedLines("german3.epub"), 3)
        XCTAssertEqual(folio_pattern_loads(patterns), 1)
    }

    /// Chapters named `.xml` (Feedbooks') are prepared as `.xhtml` ones are: hyphenated, with no
    /// note saying English has no patterns.
    func testChaptersNamedXMLArePreparedLikeOthers() throws {
        let doc = try TypesetBooks.open("xmlchapters.epub")
        XCTAssertEqual(doc.hyphenationLanguage, "en")
        XCTAssertEqual(doc.notes, [])
        XCTAssertGreaterThan(try hyphenatedLines("xmlchapters.epub"), 3)
    }

    /// Contents entries pointing at `<section>`s nested in one file lead to each section's
    /// page: MuPDF 1.21 set sections inline and found no target in them, so every entry led to
    /// the file's first page.
    func testContentsEntriesLeadToTheirSections() throws {
        let doc = try TypesetBooks.open("sections.epub")
        let outline = doc.outline.flatMap { [$0] + $0.children }
        XCTAssertEqual(outline.map(\.title), ["Part 1", "Part 2", "Part 3"])
        for entry in outline {
            let page = try XCTUnwrap(entry.page, entry.title)
            let words = try XCTUnwrap(doc.text(page: page)).words.map(\.text)
            XCTAssertTrue(zip(words, words.dropFirst()).contains { $0 == "Part" && $1 == entry.title.dropFirst(5) },
                          "\(entry.title) on page \(page + 1): \(words.prefix(12))")
        }
    }

    /// Rules by `:first-child` apply, which MuPDF's CSS reads no pseudo-class of (it drops the
    /// rule): an element first among its parent's is marked in the copy and the selector made
    /// one of that mark. Text before it does not count, as CSS has it.
    func testRulesByFirstChildApply() throws {
        let doc = try TypesetBooks.open("firstchild.epub")
        let words = try XCTUnwrap(doc.text(page: 0)).words
        let height = { (word: String) in try XCTUnwrap(words.first { $0.text == word }, word).box.height }
        let normal = try height("words.")
        XCTAssertGreaterThan(try height("ALPHA"), 2 * normal)
        XCTAssertGreaterThan(try height("CHARLIE"), 2 * normal)
        XCTAssertEqual(try height("BRAVO"), normal, accuracy: normal * 0.1)
        XCTAssertEqual(try height("DELTA"), normal, accuracy: normal * 0.1)
    }

    /// A bold heading in small caps is in small caps (in the regular face, whose small caps
    /// MuPDF finds: the bold face has none, and they came out in bold lower case), as wide as the
    /// light one; a header's epigraph, which Standard Ebooks shrink to its lines and centre, is
    /// centred (MuPDF set it at the left).
    func testSmallCapsHeadingsAndTheirEpigraphsStandAsMeant() throws {
        let doc = try TypesetBooks.open("headed.epub")
        let words = try XCTUnwrap(doc.text(page: 0)).words
        let headings = words.filter { $0.text == "Mississippi" }.map(\.box.width)
        XCTAssertEqual(headings.count, 2)
        XCTAssertEqual(headings.first ?? 0, headings.last ?? 1, accuracy: 0.005, "bold and light alike in small caps")
        let epigraph = try XCTUnwrap(words.first { $0.text == "Short" })
        XCTAssertGreaterThan(epigraph.box.x0, 0.25, "centred, not at the text's left (0.1)")
    }

    /// Rules MuPDF reads otherwise than a browser are set as a browser sets them: what Standard
    /// Ebooks and "sr-only" rules hide from the eye (a title page's heading over its picture) is
    /// not shown, a block of a percentage width with auto margins and a rule of a percentage
    /// width are centred (MuPDF took auto for 0: scene breaks hung from the left margin), all
    /// small caps are small caps, and a play's verse in a cell of justified text is ragged.
    func testRulesABrowserReadsAreSetAsABrowserSetsThem() throws {
        let doc = try TypesetBooks.open("meant.epub")
        let words = try XCTUnwrap(doc.text(page: 0)).words
        let word = { (text: String) in try XCTUnwrap(words.first { $0.text == text }, text).box }
        XCTAssertFalse(words.contains { $0.text == "Hiddentitle" || $0.text == "Screenreader" }, "\(words.map(\.text))")
        XCTAssertTrue(words.contains { $0.text == "Unclipped" }, "a clip of the whole hides nothing")
        XCTAssertTrue(words.contains { $0.text == "Uncommented" }, "what is commented out hides nothing")
        let frame = try XCTUnwrap(doc.frame), left = try word("Above").x0, width = frame.block.width / frame.width
        XCTAssertEqual(try word("Middle").x0, left + 0.3 * width, accuracy: 0.03 * width, "centred in 40 %")
        XCTAssertEqual(try word("Alsoleft").x0, left, accuracy: 0.01, "a rule for pictures and paragraphs centres neither as a picture")
        let small = words.filter { $0.text == "Abc" }.map(\.box.width)
        XCTAssertEqual(small.count, 2)
        XCTAssertEqual(small.first ?? 0, small.last ?? 1, accuracy: 0.002, "all small caps as small caps")
        // The rule: the dark pixels between "Above" and "Below" span the middle half.
        let image = try doc.render(page: 0, fit: PixelSize(width: 600, height: 1000)).image
        let rows = Int(try word("Above").y1 * Double(image.height))..<Int(try word("Below").y0 * Double(image.height))
        let dark: [Int] = rows.flatMap { y in (0..<image.width).filter { x in image.pixel(x, y).r < 100 } }
        let (x0, x1) = (Double(dark.min() ?? 0) / Double(image.width), Double(dark.max() ?? 0) / Double(image.width))
        XCTAssertEqual(x0, left + 0.25 * width, accuracy: 0.03 * width, "the rule starts a quarter in")
        XCTAssertEqual(x1, left + 0.75 * width, accuracy: 0.03 * width, "and ends a quarter from the right")
        // A justified cell's first line reaches its right edge; the verse's stops short of it.
        let lineEnd = { (first: String) -> Double in
            let y = try word(first).y0
            return words.filter { abs($0.box.y0 - y) < 0.002 }.map(\.box.x1).max() ?? 0
        }
        XCTAssertGreaterThan(try lineEnd("Prose") - lineEnd("Verse"), 0.2 * width)
    }

    /// Contents whose links name their folder twice lead to the chapter of that file name, as
    /// other readers forgive them: each entry of EDRLab's large-tables.epub led nowhere, and its
    /// running heads named nothing.
    func testContentsLinksThatMissTheirFolderFindTheirChapter() throws {
        let doc = try TypesetBooks.open("misled.epub")
        let pages = try (0..<doc.pageCount).map { try XCTUnwrap(doc.text(page: $0)).words.map(\.text) }
        let starts = try (1...2).map { n in try XCTUnwrap(pages.firstIndex { zip($0, $0.dropFirst()).contains { $0 == ("Part", "\(n)") } }) }
        XCTAssertEqual(doc.outline.map(\.title), ["Part 1", "Part 2"])
        XCTAssertEqual(doc.outline.map(\.page), starts)
        let right = try XCTUnwrap((starts[1] + 1..<doc.pageCount).first { doc.furniture($0)?.right == true })
        XCTAssertEqual(doc.furniture(right)?.head, "Part 2")
    }

    /// A right-hand page's running head is the contents entry it lies under, though one file
    /// holds them all (it was the file's first entry on every page of it); a left-hand page's
    /// is the book's title. A page a part starts has none; one where a part starts below the
    /// end of another keeps it.
    func testARunningHeadNamesTheSectionThePageLiesUnder() throws {
        let doc = try TypesetBooks.open("sections.epub")
        let pages = try (0..<doc.pageCount).map { try XCTUnwrap(doc.text(page: $0)).words.map(\.text) }
        let starts = try (1...3).map { n in try XCTUnwrap(pages.firstIndex { zip($0, $0.dropFirst()).contains { $0 == ("Part", "\(n)") } }) }
        XCTAssertEqual(starts, starts.sorted())
        XCTAssertGreaterThan(starts[2], starts[0] + 2, "the parts lie pages apart")
        var checked = 0
        for index in 1..<doc.pageCount where !starts.contains(index) {
            let furniture = try XCTUnwrap(doc.furniture(index))
            let under = starts.lastIndex { $0 < index }.map { "Part \($0 + 1)" }
            XCTAssertEqual(furniture.head, furniture.right ? under ?? "Sections" : "Sections", "page \(index + 1)")
            checked += furniture.right ? 1 : 0
        }
        XCTAssertGreaterThan(checked, 1)
        // A part starting a few lines down a page, below the end of the one before it, keeps the
        // page's head; one starting it has none.
        // A section (parts 13 to 24 lie under part 12) starting a page is headed by itself.
        let parts = try TypesetBooks.open("parts.epub")
        var below = 0, sections = 0
        for page in 1..<parts.pageCount {
            let words = try XCTUnwrap(parts.text(page: page)).words
            guard let heading = words.firstIndex(where: { $0.text == "Part" }), words[heading].box.y0 < 0.25 else { continue }
            let section = Int(words[heading + 1].text).map { $0 > 12 } ?? false
            let furniture = try XCTUnwrap(parts.furniture(page))
            XCTAssertEqual(furniture.head.isEmpty, heading == 0 && !section, "page \(page + 1): \(words.prefix(4).map(\.text))")
            if heading == 0 && section {
                XCTAssertEqual(furniture.head, furniture.right ? "Part \(words[heading + 1].text)" : "Parts")
                sections += 1
            }
            below += heading > 0 ? 1 : 0
        }
        XCTAssertGreaterThan(below, 0, "a part starts a few lines down a page")
        XCTAssertGreaterThan(sections, 0, "a section starts a page")
    }

    /// A heading goes over to the page its text starts on, as a printed book sets it (and as
    /// stylesheets ask by `page-break-after: avoid`, which MuPDF does not read): at three sizes
    /// no page of forty sections ends with a heading (three and four did at 12 and 14 pt), a
    /// heading followed by a second stays with it, and each contents entry leads to the page its
    /// heading is printed on; in a MOBI too, whose contents MuPDF makes from its headings.
    func testAHeadingIsNeverLeftAtAPagesFoot() throws {
        let mobi = try EBooks.path("keep.mobi")
        for fontSize in [11.0, 12, 14] {
            try check(try TypesetBooks.open("keep.epub", fontSize: fontSize), fontSize)
            try check(try MuPDFDocument(path: mobi, fontSize: fontSize), fontSize)
        }
        func check(_ doc: MuPDFDocument, _ fontSize: Double) throws {
            var printed: [Int] = []
            for page in 0..<doc.pageCount {
                let lines = try XCTUnwrap(doc.text(page: page)).lines.map { $0.map(\.text).joined(separator: " ") }
                XCTAssertFalse(["Section", "Part"].contains { lines.last?.hasPrefix($0) ?? true },
                               "\(fontSize) pt, page \(page + 1) ends: \(lines.suffix(2))")
                printed += lines.filter { $0.hasPrefix("Section") }.map { _ in page }
            }
            XCTAssertEqual(printed.count, 40)
            XCTAssertEqual(doc.outline.map(\.page), printed.map { Optional($0) }, "\(fontSize) pt")
        }
    }

    /// A MOBI's contents made from its headings hold the first 2,000 of them, kept with their
    /// text or not (MuPDF resolves each through the whole book at every layout); the rest are
    /// set as paragraphs, their text kept.
    func testAMOBIsContentsHoldItsFirstTwoThousandHeadings() throws {
        let doc = try MuPDFDocument(path: try EBooks.path("headings.mobi"), fontSize: 11)
        XCTAssertEqual(doc.outline.count, 2000)
        XCTAssertEqual(doc.outline.last?.title, "Section 2000")
        let last = try XCTUnwrap(doc.text(page: doc.pageCount - 1)).lines.map { $0.map(\.text).joined(separator: " ") }
        XCTAssertTrue(last.contains("Section 2500"), "\(last.suffix(3))")
    }

    /// Text a stylesheet puts before and after elements is printed (MuPDF reads no `content`):
    /// a stage direction in parentheses, a marked paragraph after an em dash, a dash between
    /// keywords (`.kw + .kw::before`: an element just after a sibling of that class), text after
    /// an element in a cell (`td i::after`) and in a paragraph of a class (`p.par > b::after`);
    /// none for a rule of an empty string, of three parts or for print, nor a first keyword, one
    /// inside another or after a line break, or an element deeper than the paragraph; one text
    /// after an element several rules give one to, the most specific rule's (`b::after` and
    /// `p.par > b::after`); a space after an inline heading its rule gives room on its right
    /// (`padding-right`, which MuPDF does not lay out inline).
    func testGeneratedContentIsPrinted() throws {
        let doc = try TypesetBooks.open("generated.epub")
        let words = try XCTUnwrap(doc.text(page: 0)).words.map(\.text)
        XCTAssertEqual(words, ["Enter", "(Exit", "Ham?.)", "now.", "\u{2014}", "Marked", "cellNO", "A", "yZ", "b.",
                               "Keys", "one", "\u{2013}", "two", "\u{2013}", "in", "three", "Bold!", "deep?"], "\(words)")
        // A chapter's own style, for that chapter alone.
        XCTAssertEqual(try XCTUnwrap(doc.text(page: 1)).words.map(\.text), ["CUE", "Line"])
        XCTAssertEqual(try XCTUnwrap(doc.text(page: 2)).words.map(\.text), ["After"])
    }

    /// Entities a chapter declares in its DOCTYPE are read as declared (MuPDF printed "&O;poison,&C;"),
    /// once: an entity standing for others ten times over, eight deep, is written as it stands,
    /// not a hundred million times.
    func testEntitiesAChapterDeclaresAreRead() throws {
        let doc = try TypesetBooks.open("entities.epub")
        let words = try XCTUnwrap(doc.text(page: 0)).words.map(\.text)
        XCTAssertTrue(words.contains("\u{201C}poison,\u{201D}"), "\(words)")
        XCTAssertTrue(words.contains(String(repeating: "&b;", count: 10)), "\(words)")
        XCTAssertEqual(doc.pageCount, 1)
    }

    /// Rules by `epub:type` apply, as Standard Ebooks writes them for every book
    /// (`[epub|type~="noteref"]`, which MuPDF's CSS cannot read, and so dropped): a note reference
    /// is set small, not full-size into the text ("1659–6047"); a poem's lines, spans made blocks
    /// each followed by a line break the stylesheet hides, lie a line apart (MuPDF breaks at every
    /// break whatever its display: an empty line followed each), and its stanzas apart.
    func testRulesByEpubTypeApply() throws {
        let words = try XCTUnwrap(TypesetBooks.open("epubtype.epub").text(page: 0)).words
        func word(_ text: String) throws -> TextWord { try XCTUnwrap(words.first { $0.text == text }, text) }
        let body = try word("Blessed")
        for note in ["47", "48"] { XCTAssertLessThan(try word(note).box.height, body.box.height * 0.75, note) }
        let lines = try ["ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO"].map { try word($0).box.y0 }
        let line = lines[1] - lines[0]
        XCTAssertLessThan(line, body.box.height * 1.8, "no empty line between a poem's lines")
        XCTAssertEqual(lines[2] - lines[1], line, accuracy: 0.002)
        XCTAssertEqual(lines[4] - lines[3], line, accuracy: 0.002)
        XCTAssertGreaterThan(lines[3] - lines[2], line * 1.5, "the next stanza apart")
    }

    /// The cover an EPUB's package declares is its first page where its reading order starts
    /// elsewhere (Standard Ebooks' books start on their title page), so the shelf shows the cover,
    /// as Foliate and Apple Books do; not where the first page shows it already, nor a
    /// placeholder of a pixel.
    func testTheDeclaredCoverIsTheFirstPage() throws {
        let covered = try TypesetBooks.open("covered.epub")
        let image = try covered.render(page: 0, fit: PixelSize(width: 181, height: 284)).image
        XCTAssertColour(image.centre(), (230, 26, 26), tolerance: 30, "the cover")
        XCTAssertEqual(try covered.text(page: 0)?.words.count ?? 0, 0)
        XCTAssertEqual(try XCTUnwrap(covered.text(page: 1)).words.first?.text, "TITLEPAGE")
        for book in ["shown.epub", "placeholder.epub"] {
            XCTAssertEqual(try XCTUnwrap(TypesetBooks.open(book).text(page: 0)).words.first?.text, "TITLEPAGE", book)
        }
    }

    /// An SVG picture is drawn with the rules of its own stylesheet, which MuPDF does not read:
    /// Standard Ebooks' covers fill their lettering white by a rule, and it was drawn black on
    /// the black box it stands on.
    func testAnSVGsOwnStylesheetPaintsIt() throws {
        let image = try TypesetBooks.open("svgstyle.epub").render(page: 0, fit: PixelSize(width: 181, height: 284)).image
        // The black box's bounds, and the light (paper-coloured: the page is multiplied by its
        // paper) pixels inside them: the lettering.
        var box = (x0: image.width, y0: image.height, x1: 0, y1: 0)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x, y)
                if p.r < 40 && p.g < 40 && p.b < 40 { box = (min(box.x0, x), min(box.y0, y), max(box.x1, x), max(box.y1, y)) }
            }
        }
        XCTAssertGreaterThan(box.x1 - box.x0, image.width / 2, "the black box")
        var light = 0
        for y in box.y0...max(box.y0, box.y1) {
            for x in box.x0...max(box.x0, box.x1) where image.pixel(x, y).r > 200 { light += 1 }
        }
        XCTAssertGreaterThan(light, 1000, "the lettering, white by the rule, on its black box")
    }

    /// A play set as Standard Ebooks sets one: a table row a speech, the speaker's name in one
    /// cell and the verse in paragraphs in the other. MuPDF printed the paragraphs over the name;
    /// they lie in their column, apart from the name, a stanza's lines one under another and the
    /// next stanza on a line of its own.
    func testAPlaysSpeechesLieBesideTheirSpeakers() throws {
        let words = try XCTUnwrap(TypesetBooks.open("play.epub").text(page: 0)).words
        func word(_ text: String) throws -> TextWord { try XCTUnwrap(words.first { $0.text == text }, text) }
        let name = try word("Laertes"), dread = try word("DREAD"), leave = try word("LEAVE"), second = try word("SECOND")
        for line in [dread, leave, second, try word("PROSE")] {
            XCTAssertGreaterThan(line.box.x0 - name.box.x1, 0.004, "\(line.text) apart from the name: \(line.box) \(name.box)")
        }
        XCTAssertEqual(leave.box.x0, dread.box.x0, accuracy: 0.005)
        XCTAssertEqual(second.box.x0, dread.box.x0, accuracy: 0.005)
        XCTAssertGreaterThanOrEqual(leave.box.y0, dread.box.y1 - 0.002, "a line under the line before")
        XCTAssertGreaterThanOrEqual(second.box.y0, leave.box.y1 - 0.002, "the next stanza on a line of its own")
    }

    /// A table's columns take the room their content needs (MuPDF 1.21 gives every column the
    /// same width, and a play's names took half the page): the speech begins in the page's left
    /// two fifths; the names are set flush right, as a rule naming the body's `epub:type` says;
    /// the rule of lines spoken together stands between the columns.
    func testATablesColumnsTakeTheRoomTheirContentNeeds() throws {
        let book = try TypesetBooks.open("play.epub")
        let words = try XCTUnwrap(book.text(page: 0)).words
        func word(_ text: String) throws -> TextWord { try XCTUnwrap(words.first { $0.text == text }, text) }
        let laertes = try word("Laertes"), hamlet = try word("Hamlet"), both = try word("Both")
        let dread = try word("DREAD"), together = try word("TOGETHER")
        XCTAssertLessThan(dread.box.x0, 0.4, "the speech's column: \(dread.box)")
        XCTAssertEqual(together.box.x0, dread.box.x0, accuracy: 0.01, "the same column, past its rule")
        XCTAssertEqual(laertes.box.x1, hamlet.box.x1, accuracy: 0.005, "the names flush right")
        XCTAssertEqual(both.box.x1, hamlet.box.x1, accuracy: 0.005, "the names flush right")
        let image = try book.render(page: 0, fit: PixelSize(width: 600, height: 960)).image
        let row = PageRegion(x0: both.box.x1 + 0.002, y0: together.box.y0 + 0.002, x1: together.box.x0 - 0.002, y1: together.box.y1 - 0.002)
        XCTAssertGreaterThan(marked(image, row), 0, "the rule between the columns")
        // Twice the type: the names take the more of a shorter line, and none is broken.
        let large = try XCTUnwrap(TypesetBooks.open("play.epub", fontSize: 24).text(page: 0)).words
        for name in ["Laertes", "Hamlet"] { XCTAssertTrue(large.contains { $0.text == name }, "\(name) whole at 24 pt") }
    }

    /// A cell spanning rows keeps its column from the cells of the rows below it, and one
    /// spanning columns lies over them (MuPDF 1.21 lays out every cell as spanning none).
    func testCellsSpanningColumnsAndRowsLieWhereTheySpan() throws {
        let words = try XCTUnwrap(TypesetBooks.open("spans.epub").text(page: 0)).words
        func x(_ text: String) throws -> Double { try XCTUnwrap(words.first { $0.text == text }, text).box.x0 }
        XCTAssertEqual(try x("SECOND"), try x("FIRST"), accuracy: 0.005, "below the cell it follows, past the year's")
        XCTAssertEqual(try x("TWO"), try x("ONE"), accuracy: 0.005)
        XCTAssertEqual(try x("THREE"), try x("ONE"), accuracy: 0.005, "after a cell spanning two columns")
        XCTAssertEqual(try x("ACROSS"), try x("Year"), accuracy: 0.005)
        XCTAssertEqual(try x("SPANNING"), try x("Year"), accuracy: 0.005, "a heading across the table")
        // A table narrower than the line shares out its own width: the name stays whole. Its
        // cell's bare text is ragged, though Folio justifies the body.
        XCTAssertTrue(words.contains { $0.text == "Rosencrantz" }, "the name whole in a table of half the line")
        let below = try XCTUnwrap(words.first { $0.text == "THREE" }).box.y1, last = try XCTUnwrap(words.first { $0.text == "END" }).box.y0
        let cell = words.filter { $0.box.y0 > below && $0.box.y0 < last - 0.002 && $0.text != "Rosencrantz" }
        let lines = Dictionary(grouping: cell) { ($0.box.y0 * 200).rounded() }.values.map { $0.map(\.box.x1).max() ?? 0 }
        XCTAssertGreaterThan(lines.count, 2)
        XCTAssertGreaterThan((lines.max() ?? 0) - (lines.min() ?? 0), 0.01, "ragged: \(lines)")
    }

    /// An older book's presentational markup is set as a browser's own stylesheet sets it
    /// (MuPDF 1.21's reads none of it): sizes in points and pixels are in proportion to the
    /// reader's size (16 pixels, 12 points its size), so that a body of 10 points grows with the
    /// reader's type and a span of 12 pixels is nine tenths of its paragraph, inside a block of 24
    /// pixels too (sizes do not compound), as 1.2 rems of a root of 62.5 % are; an anchor that links nowhere is
    /// set as its text is, a link in blue; `align` and `<center>` place their lines. Its
    /// stylesheet opens with a named page as Word writes one (`@page WordSection1`), on which
    /// MuPDF dropped the whole stylesheet.
    func testAnOlderBooksPresentationalMarkupIsSetAsABrowserSetsIt() throws {
        let book = try TypesetBooks.open("legacy.epub")
        let words = try XCTUnwrap(book.text(page: 0)).words
        func word(_ text: String, in words: [TextWord]) throws -> TextWord { try XCTUnwrap(words.first { $0.text.hasPrefix(text) }, text) }
        let normal = try word("NORMALWORD", in: words).box
        // The body's 10 points are 13⅓ pixels.
        XCTAssertEqual(try word("SMALLWORD", in: words).box.height / normal.height, 0.9, accuracy: 0.05, "12 px in a paragraph of 10 pt")
        XCTAssertEqual(try word("[Pg", in: words).box.height / normal.height, 0.975, accuracy: 0.05, "the page number of 13 px")
        XCTAssertEqual(try word("QQQ", in: words).box.height / normal.height, 0.9, accuracy: 0.05, "12 px in a style attribute")
        XCTAssertEqual(try word("NESTEDWORD", in: words).box.height / normal.height, 0.9, accuracy: 0.05, "12 px inside 24 px, not compounded")
        XCTAssertEqual(try word("REMWORD", in: words).box.height / normal.height, 0.9, accuracy: 0.05, "1.2 rem of a root of 62.5 %")
        XCTAssertEqual(try word("PPP", in: words).box.height / normal.height, 1.2, accuracy: 0.08, "a percentage kept")
        let large = try XCTUnwrap(TypesetBooks.open("legacy.epub", fontSize: 22).text(page: 0)).words
        XCTAssertEqual(try word("NORMALWORD", in: large).box.height / normal.height, 2, accuracy: 0.15, "10 pt grows with the reader's type")
        // Blue: the link; the heading's anchor and the page number's in their own colours.
        let image = try book.render(page: 0, fit: PixelSize(width: 600, height: 960)).image
        func blueness(_ box: PageRegion) -> Double {
            var inked: [Double] = []
            for y in Int(box.y0 * Double(image.height))..<Int(box.y1 * Double(image.height)) {
                for x in Int(box.x0 * Double(image.width))..<Int(box.x1 * Double(image.width)) {
                    let p = image.pixel(x, y)
                    if Int(p.r) + Int(p.g) + Int(p.b) < 540 { inked.append(Double(p.b) - Double(p.r)) }
                }
            }
            return inked.isEmpty ? 0 : inked.reduce(0, +) / Double(inked.count)
        }
        XCTAssertGreaterThan(blueness(try word("LINKED", in: words).box), 60, "a link")
        XCTAssertGreaterThan(blueness(try word("UNQUOTED", in: words).box), 60, "a link written as in a MOBI")
        XCTAssertLessThan(blueness(try word("ANCHORED", in: words).box), 20, "a heading's anchor")
        XCTAssertLessThan(blueness(try word("[Pg", in: words).box), 20, "a page number's anchor")
        // `align` and `<center>` against the text block's middle and right edge.
        let frame = try XCTUnwrap(book.frame)
        let left = try word("ANCHORED", in: words).box.x0, right = left + frame.block.width / frame.width, middle = (left + right) / 2
        for centred in ["CENTRED", "DIVIDED", "OLDCENTRE"] {
            let box = try word(centred, in: words).box
            XCTAssertEqual((box.x0 + box.x1) / 2, middle, accuracy: 0.01, centred)
        }
        XCTAssertEqual(try word("RIGHTWARD", in: words).box.x1, right, accuracy: 0.01, "align=\"RIGHT\"")
        XCTAssertEqual(try word("BOMMED", in: words).box.x1, right, accuracy: 0.01, "the first rule of a stylesheet with a byte-order mark")
        XCTAssertEqual(try word("CALCED", in: words).box.x1, right, accuracy: 0.01, "a rule with a calc()")
        XCTAssertEqual(try word("NOTED", in: words).box.x1, right, accuracy: 0.01, "a rule with a comment before its brace")
        XCTAssertGreaterThan(try word("CELLRIGHT", in: words).box.x0, middle, "a cell's align")
    }

    /// A table shown `inline-table` keeps its rows: MuPDF 1.21 takes a display it does not know
    /// for `inline`, and dropped the table and all it holds (Project Gutenberg's `.xhtml_div_align
    /// table` lost 277 of Project Gutenberg's *Dao De Jing*'s 389 pages: its Chinese and notes).
    func testATableShownInlineKeepsItsRows() throws {
        let words = try XCTUnwrap(TypesetBooks.open("legacy.epub").text(page: 0)).words
        for text in ["RULETABLED", "CELLED", "STYLETABLED"] {
            XCTAssertTrue(words.contains { $0.text.hasPrefix(text) }, text)
        }
        let left = try XCTUnwrap(words.first { $0.text.hasPrefix("RULETABLED") }).box, right = try XCTUnwrap(words.first { $0.text.hasPrefix("CELLED") }).box
        XCTAssertGreaterThan(right.x0, left.x1, "the row's cells side by side")
        // A table shown as a block (pandoc 3's `table { display: block }`): its rows still a table.
        let head = try XCTUnwrap(words.first { $0.text == "PANDOCHEAD" }, "pandoc").box
        let side = try XCTUnwrap(words.first { $0.text == "PANDOCSIDE" }).box, cell = try XCTUnwrap(words.first { $0.text == "PANDOCCELL" }).box
        XCTAssertGreaterThan(side.x0, head.x1, "its cells side by side")
        XCTAssertGreaterThan(cell.y0, head.y1, "its rows one below the other")
        // A list whose items are a CSS table's rows (Springer's `.ListItem { display: table-row }`).
        let one = try XCTUnwrap(words.first { $0.text == "LISTONE" }, "the list's first item").box
        let two = try XCTUnwrap(words.first { $0.text == "LISTTWO" }, "the list's second item").box
        XCTAssertGreaterThan(two.y0, one.y0 + one.height / 2, "one item below the other, not drawn on one spot")
        // Its text set in past its number, not over it: MuPDF places a cell's blocks from the
        // table's left edge (columns.c, `fb_css_cell_indent`).
        let number = try XCTUnwrap(words.first { $0.text == "1." }, "the first item's number").box
        XCTAssertLessThan(number.x1, one.x0, "the item's text right of its number")
        XCTAssertEqual(number.y0, one.y0, accuracy: one.height / 2, "on its line")
        // Its text inline (Hindawi's `list-label` and `list-content` spans): after the number on
        // its line, not half the line away, and its next lines set in as far.
        let label = try XCTUnwrap(words.first { $0.text == "(1)" }, "the inline item's number").box
        let hang = try XCTUnwrap(words.first { $0.text == "HANGFIRST" }).box, last = try XCTUnwrap(words.first { $0.text == "HANGLAST" }).box
        XCTAssertGreaterThan(hang.x0, label.x1, "the text after its number")
        XCTAssertLessThan(hang.x0 - label.x0, 0.15, "near it, not in a column half the line away")
        XCTAssertEqual(hang.y0, label.y0, accuracy: hang.height / 2, "on its line")
        let lines = words.filter { $0.box.y0 > hang.y0 + hang.height / 2 && $0.box.y0 <= last.y0 + last.height / 2 }
        XCTAssertFalse(lines.isEmpty, "the item runs to more lines")
        XCTAssertEqual(try XCTUnwrap(lines.map(\.box.x0).min()), hang.x0, accuracy: 0.02, "its next lines set in as far as its text")
        // A table's own row and cells of those classes stay a table's (they were lost, the row
        // made a block).
        let kept = try XCTUnwrap(words.first { $0.text == "TABLEKEPT" }, "a table row of the list's classes").box
        let nine = try XCTUnwrap(words.first { $0.text == "9" }).box
        XCTAssertGreaterThan(kept.x0, nine.x1)
        XCTAssertEqual(kept.y0, nine.y0, accuracy: kept.height / 2)
        // A block wider than the page by a rule, a table by a style: their words on the page.
        let frame = try XCTUnwrap(TypesetBooks.open("legacy.epub").frame)
        let blockRight = try XCTUnwrap(words.first { $0.text.hasPrefix("ANCHORED") }).box.x0 + frame.block.width / frame.width
        for last in ["LETTERWIDE", "PIXELLAST"] {
            let right = try XCTUnwrap(words.filter { $0.text == last }.map(\.box.x1).max(), last)
            XCTAssertLessThanOrEqual(right, blockRight + 0.005, last)
        }
    }

    /// A ruby reading is set at half the size of its word: MuPDF 1.21 has no ruby and sets the
    /// reading after the word, inline, and set it as large ("擲銭法てき せんほう").
    func testARubyReadingIsSmall() throws {
        let words = try XCTUnwrap(TypesetBooks.open("ruby.epub").text(page: 0)).words
        let base = try XCTUnwrap(words.first { $0.text == "BASEWORD" }).box
        let reading = try XCTUnwrap(words.first { $0.text.contains("READING") }).box
        XCTAssertEqual(reading.height / base.height, 0.5, accuracy: 0.1)
    }

    /// A line of preformatted text longer than the page wraps, as readers wrap it, instead of
    /// running past the page's edge, ragged; its own line breaks stay.
    func testPreformattedTextWrapsAtThePagesEdge() throws {
        let book = try TypesetBooks.open("ruby.epub")
        let words = try XCTUnwrap(book.text(page: 0)).words, frame = try XCTUnwrap(book.frame)
        let right = try XCTUnwrap(words.first { $0.text == "Before" }).box.x0 + frame.block.width / frame.width
        XCTAssertLessThanOrEqual(try XCTUnwrap(words.map(\.box.x1).max()), right + 0.01)
        XCTAssertTrue(words.contains { $0.text.hasPrefix("LASTCODE") }, "the line's end on the page")
        let last = try XCTUnwrap(words.first { $0.text.hasPrefix("LASTCODE") }).box, short = try XCTUnwrap(words.first { $0.text == "short" }).box
        XCTAssertGreaterThan(short.y0, last.y0 + last.height / 2, "its own line break kept")
        // Ragged, not justified: the space between words on a wrapped line is the space on its last.
        let code = try XCTUnwrap(book.text(page: 0)).lines.filter { $0.contains { $0.text == "+" } && $0.count > 2 }
        func gap(_ line: [TextWord]) -> Double { line.count > 1 ? line[1].box.x0 - line[0].box.x1 : 0 }
        XCTAssertGreaterThan(code.count, 1)
        XCTAssertEqual(gap(try XCTUnwrap(code.first)), gap(try XCTUnwrap(code.last)), accuracy: 0.002)
    }

    /// A book whose archive names its chapters `OEBPS/./contents/c0.xhtml` (ebooklib's, from a
    /// manifest's `./contents/…`) opens whole: MuPDF looks each entry up by its name made plain,
    /// found none, and the book was a placeholder page.
    func testABookWhoseEntriesNamesAreNotPlainOpens() throws {
        let book = try TypesetBooks.open("dotted.epub")
        let text = try (0..<book.pageCount).map { try XCTUnwrap(book.text(page: $0)).string }.joined(separator: " ")
        XCTAssertTrue(text.contains("DOTTED first chapter.") && text.contains("DOTTED second chapter."), text)
        // Zipped on Windows with backslashes in every name, its container's too.
        XCTAssertEqual(try TypesetBooks.open("backslashed.epub").text(page: 0)?.string, "BACKSLASHED chapter.")
    }

    /// A line height in pixels or points grows with the reader's size, as its text does: MuPDF
    /// kept it in points, and at 22 points the lines of a Word document (`line-height: 18pt`
    /// round spans of 16 points) stood over one another.
    func testALineHeightInPixelsOrPointsGrowsWithTheText() throws {
        func pitches(fontSize: Double) throws -> [Double] {
            let book = try TypesetBooks.open("legacy.epub", fontSize: fontSize)
            let page = try XCTUnwrap((0..<book.pageCount).first { book.chapter(ofPage: $0) == 2 })
            let words = try XCTUnwrap(book.text(page: page)).words
            return try ["RULE", "STYLE"].map { name in
                let first = try XCTUnwrap(words.first { $0.text.hasPrefix(name + "FIRST") }, name).box
                let next = try XCTUnwrap(words.first { $0.text == "word" && $0.box.y0 > first.y0 + 0.005 }, name).box
                return next.y0 - first.y0
            }
        }
        let small = try pitches(fontSize: 11), large = try pitches(fontSize: 22)
        for (k, name) in ["a rule's 20 px", "a style's 15 pt"].enumerated() {
            XCTAssertEqual(large[k] / small[k], 2, accuracy: 0.15, name)
        }
    }

    /// A table `border="1"` rules its rows, and only where they lie: a row going on from the page
    /// before draws its rule neither over the running head nor anywhere above the text (MuPDF
    /// draws a box where it lies, and the rule of a row begun on the page before struck the head
    /// through).
    func testARuledTablesRowsAreRuledAndItsMarginsAreNot() throws {
        let book = try TypesetBooks.open("legacy.epub")
        let frame = PageFrame(width: 362, height: 568, margins: .normal)
        var continued = 0
        for index in 1..<book.pageCount {
            let words = try XCTUnwrap(book.text(page: index)).words
            guard let first = words.first, !first.text.hasPrefix("R"), book.chapter(ofPage: index) == 1 else { continue }
            continued += 1
            let image = try book.render(page: index, fit: size).image
            func inked(_ rows: Range<Int>) -> Int {
                rows.map { y in (0..<image.width).filter { x in image.pixel(x, y).r < 120 }.count }.max() ?? 0
            }
            XCTAssertLessThan(inked(0..<Int(frame.top / frame.height * Double(image.height))), image.width / 4, "page \(index + 1): a rule in the head margin")
            // The rule above the page's second row spans both columns.
            let rows = words.filter { $0.text.hasPrefix("R") && Int($0.text.dropFirst()) != nil }
            guard rows.count > 1, let before = words.last(where: { $0.box.y1 <= rows[1].box.y0 && $0.text.hasPrefix("END") }) else { continue }
            let between = Int(before.box.y1 * Double(image.height))..<Int(rows[1].box.y0 * Double(image.height)) + 1
            XCTAssertGreaterThan(Double(inked(between)), 0.6 * Double(image.width) * frame.block.width / frame.width, "page \(index + 1): the row's rule")
        }
        XCTAssertGreaterThan(continued, 0, "a row crossing pages")
    }

    /// Rules inside `@media` blocks that hold for a reader's page apply (MuPDF 1.21 skips every
    /// `@media` block): for screens, for portrait pages, for all but print, one inside another;
    /// those for print, for wide screens or a Kindle do not.
    func testRulesForAReadersPageApply() throws {
        let book = try TypesetBooks.open("media.epub")
        let words = try XCTUnwrap(book.text(page: 0)).words
        func x(_ text: String) throws -> Double { try XCTUnwrap(words.first { $0.text == text }, text).box.x0 }
        let left = try x("PRINT")
        for right in ["SCREEN", "PORTRAIT", "NOTPRINT", "NESTED"] { XCTAssertGreaterThan(try x(right) - left, 0.3, right) }
        XCTAssertEqual(try x("WIDE"), left, accuracy: 0.01, "a width is not known")
        XCTAssertTrue(words.contains { $0.text == "KINDLE" }, "a Kindle's rule hides nothing")
    }

    /// Words in small capitals in a family MuPDF's built-in fonts answer to are laid out in
    /// linear time: MuPDF 1.21 made that font again, and added it to the faces it searches, for
    /// every such word (quadratic: a dictionary of thousands took 59.5 s to open, 3.0 s now).
    /// The copy's small-caps faces of the family, from the same built-in fonts, are found at once.
    func testSmallCapitalsInABuiltInFamilyAreLookedUpOnce() throws {
        let book = try TypesetBooks.open("smallcaps.epub")
        XCTAssertGreaterThan(book.pageCount, 5)
        XCTAssertLessThan(book.builtinFontsMade, 10, "fonts made again for 400 words in small capitals")
        XCTAssertTrue(try XCTUnwrap(book.text(page: 0)).words.contains { $0.text == "Small0" })
    }

    /// A cell given a share of its table's width gives its column that share, as a browser does:
    /// by a rule naming it (the last part of its selector; a rule for generated text does not
    /// count), and by its own `width="40%"` in a table of short lines, whose other column takes
    /// the rest. By their content alone the names' column took a tenth, the short cell's a fifth.
    func testACellsWidthGivesItsColumnItsShare() throws {
        let book = try TypesetBooks.open("widths.epub")
        let words = try XCTUnwrap(book.text(page: 0)).words
        func x(_ text: String) throws -> Double { try XCTUnwrap(words.first { $0.text == text }, text).box.x0 }
        let frame = try XCTUnwrap(book.frame), left = try x("Ann"), width = frame.block.width / frame.width
        XCTAssertEqual((try x("NAMED") - left) / width, 0.25, accuracy: 0.03, "a quarter of the table")
        XCTAssertEqual((try x("SHORT") - left) / width, 0.4, accuracy: 0.03, "width=\"40%\"")
    }

    /// A stylesheet's `@import`s are read (MuPDF reads none): the face an imported stylesheet in
    /// another folder declares, by a path relative to itself, sets the words (a monospace face:
    /// eight i as wide as eight m); the stylesheet imported for print only is not.
    func testAStylesheetsImportsAreRead() throws {
        guard let folder = TypesetBooks.folder, FileManager.default.fileExists(atPath: folder + "/imports.epub") else {
            throw XCTSkip("fontconfig found no monospace face (Makefile's TEST_PACKAGES has fonts-dejavu-core)")
        }
        let words = try XCTUnwrap(TypesetBooks.open("imports.epub").text(page: 0)).words
        let narrow = try XCTUnwrap(words.first { $0.text == "iiiiiiii" }), wide = try XCTUnwrap(words.first { $0.text == "mmmmmmmm" })
        XCTAssertEqual(narrow.box.width / wide.box.width, 1, accuracy: 0.03, "\(narrow) \(wide)")
        // A face whose sources name local faces before the book's own file is set in that file.
        let thin = try XCTUnwrap(words.first { $0.text == "llllllll" }), broad = try XCTUnwrap(words.first { $0.text == "wwwwwwww" })
        XCTAssertEqual(thin.box.width / broad.box.width, 1, accuracy: 0.03, "local() first: \(thin) \(broad)")
    }

    /// A book's obfuscated fonts set it (MuPDF 1.21 refuses a book with encryption.xml, and Folio
    /// had left its fonts out): undone by the IDPF's algorithm and by Adobe's, the monospace face
    /// sets eight i as wide as eight m, eight l as wide as eight w, with no note. Obfuscated with
    /// another book's key, the fonts are left out (the i narrower than the m) with one note.
    func testAnObfuscatedFontSetsItsBook() throws {
        guard let folder = TypesetBooks.folder, FileManager.default.fileExists(atPath: folder + "/obfuscated.epub") else {
            throw XCTSkip("fontconfig found no monospace face (Makefile's TEST_PACKAGES has fonts-dejavu-core)")
        }
        func widths(_ book: MuPDFDocument) throws -> (idpf: Double, adobe: Double) {
            let words = try XCTUnwrap(book.text(page: 0)).words
            func width(_ text: String) throws -> Double { try XCTUnwrap(words.first { $0.text == text }, text).box.width }
            return (try width("iiiiiiii") / width("mmmmmmmm"), try width("llllllll") / width("wwwwwwww"))
        }
        let book = try TypesetBooks.open("obfuscated.epub"), undone = try widths(book)
        XCTAssertEqual(undone.idpf, 1, accuracy: 0.03, "the IDPF's obfuscation undone")
        XCTAssertEqual(undone.adobe, 1, accuracy: 0.03, "Adobe's obfuscation undone")
        XCTAssertEqual(book.notes, [])
        let other = try TypesetBooks.open("misobfuscated.epub"), left = try widths(other)
        XCTAssertLessThan(left.idpf, 0.8, "a font another book's key obfuscated is left out")
        XCTAssertLessThan(left.adobe, 0.8)
        XCTAssertEqual(other.notes, ["2 embedded fonts are obfuscated (META-INF/encryption.xml) and could not be undone; shown in other fonts"])
    }

    /// A transparent picture is printed on the paper: where it is transparent the paper shows,
    /// not the white MuPDF paints there (a white box on the page); its black stays black.
    func testATransparentPictureShowsThePaper() throws {
        let image = try TypesetBooks.open("transparent.epub").render(page: 0, fit: PixelSize(width: 300, height: 480)).image
        let picture = try XCTUnwrap(span(of: (0, 0, 0), in: image), "the picture's black square")
        // Its square is a tenth of the picture; the picture's middle is transparent.
        let side = (picture.2 - picture.0) * 10
        let middle = image.pixel(Int((picture.0 + side / 2) * Double(image.width)), Int((picture.1 + side / 2 * Double(image.width) / Double(image.height)) * Double(image.height)))
        XCTAssertTrue(paper(middle), "the paper behind the picture: \(middle)")
        XCTAssertColour(image.pixel(Int((picture.0 + picture.2) / 2 * Double(image.width)), Int((picture.1 + picture.3) / 2 * Double(image.height))),
                        (0, 0, 0), "the picture's black")
    }

    /// The reader's typography reaches the layout: wider spacing and margins make more pages; a
    /// relayout with another typography keeps the place by its text.
    func testTypographyChangesTheLayoutAndARelayoutKeepsThePlace() throws {
        let standard = try TypesetBooks.open("margin0.epub")
        let loose = try TypesetBooks.open("margin0.epub", typography: Typography(lineSpacing: 2, margins: .wide))
        XCTAssertGreaterThan(loose.pageCount, standard.pageCount)
        let before = MuPDF.typography
        defer { MuPDF.typography = before }
        MuPDF.typography = Typography(lineSpacing: 2, margins: .wide)
        let place = standard.textPlace(ofPage: standard.pageCount - 1)
        let (relaid, page) = try standard.relaid(fontSize: standard.fontSize, keeping: place)
        XCTAssertEqual(relaid.pageCount, loose.pageCount)
        XCTAssertGreaterThan(page, standard.pageCount - 1, "the same text lies further into the looser layout")
        XCTAssertEqual(relaid.textPosition(ofPage: page)?.chapter, place.text?.chapter)
    }

    /// A book opened before it is laid out whole (as the viewer opens one) estimates its pages
    /// within a tenth of the count, though its first chapters are front matter of little text.
    func testThePageEstimateIsWithinATenthThoughTheBookOpensWithFrontMatter() throws {
        for aspect in [Book.referencePageWidth / Book.referencePageHeight, 0.8] {
            guard let folder = TypesetBooks.folder else { throw XCTSkip("python3 missing: no test books") }
            let path = folder + "/front.epub"
            let opening = try MuPDFDocument(path: path, fontSize: 11, pageAspect: aspect, extent: .opening)
            let whole = try MuPDFDocument(path: path, fontSize: 11, pageAspect: aspect)
            XCTAssertTrue(opening.pagesEstimated)
            XCTAssertGreaterThan(whole.pageCount, 60)
            let ratio = Double(opening.pageCount) / Double(whole.pageCount)
            XCTAssertEqual(ratio, 1, accuracy: 0.1, "estimated \(opening.pageCount) of \(whole.pageCount) at \(aspect)")
        }
    }

    /// A footnote's reference and an endnote's are links to their notes' text (read where they
    /// are referred to), the mark leading back left out; a link to a chapter stays a page. A
    /// footnote's aside is left off the page it stands on. An untyped item of a list of endnotes
    /// is a note (Standard Ebooks' endnotes: "no notes are referred to on these pages").
    func testANoteReferenceCarriesItsNotesText() throws {
        let doc = try TypesetBooks.open("notes.epub")
        let targets = doc.links(page: 0).map(\.target)
        // Hyphenated like the book (soft hyphens let the card break its lines too).
        let notes = targets.compactMap { if case let .note(_, text, _) = $0 { text.replacingOccurrences(of: "\u{AD}", with: "") } else { nil } }
        XCTAssertEqual(Set(notes), ["The footnote says why.\nIt has a second paragraph.\nSee the next chapter, the endnote or the source.",
                                    "The endnote says more.", "The list holds this one."], "\(targets)")
        XCTAssertEqual(targets.filter { if case .page = $0 { true } else { false } }, [.page(1)], "\(targets)")
        // The footnote's aside is read on its card, not on the page (nor its links).
        let words = try XCTUnwrap(doc.text(page: 0)).words.map(\.text).joined(separator: " ")
        XCTAssert(words.contains("claim") && !words.contains("footnote") && !words.contains("source"), words)
        // The footnote's links go where the page's do; the endnote's way back (↩) is no link of it.
        let next = try XCTUnwrap(targets.first { if case .page = $0 { true } else { false } })
        let inside = targets.compactMap { if case let .note(_, text, links) = $0 { (text.hasPrefix("The foot") ? links : nil) } else { nil } }.first
        let links = try XCTUnwrap(inside)
        XCTAssertEqual(links.map(\.label), ["the next chapter", "the endnote", "the source"])
        XCTAssertEqual(links[0].target, next)
        guard case let .note(_, endnote, _) = links[1].target else { return XCTFail("\(links[1])") }
        XCTAssertEqual(endnote.replacingOccurrences(of: "\u{AD}", with: ""), "The endnote says more.")
        XCTAssertEqual(links[2].target, .uri("https://example.org/why"))
        let back = targets.compactMap { if case let .note(_, text, links) = $0 { (text.hasPrefix("The end") ? links : nil) } else { nil } }.first
        XCTAssertEqual(back, [])
    }

    /// An installed typeface chosen by name sets the book (its pages change, nothing noted); a
    /// name no installed face has is noted once and the book keeps its own.
    func testAnInstalledTypefaceByNameSetsTheBook() throws {
        let own = try TypesetBooks.open("margin0.epub")
        let mono = try TypesetBooks.open("margin0.epub", typography: Typography(family: "DejaVu Sans Mono"))
        // DejaVu Sans Mono is one of the test packages (fonts-dejavu-core).
        XCTAssertEqual(mono.notes, [])
        // A monospaced face's wide letters take more pages.
        XCTAssertGreaterThan(mono.pageCount, own.pageCount)
        let missing = try TypesetBooks.open("margin0.epub", typography: Typography(family: "No Such Face"))
        XCTAssertEqual(missing.notes, ["no installed typeface is called No Such Face; set in the book's own"])
        XCTAssertEqual(missing.pageCount, own.pageCount)
        XCTAssertNil(Typography(family: "a\nb").family, "a name is one line")
    }
}
