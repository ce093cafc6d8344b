import FolioBook
import FolioLibrary
import FolioPages
import Foundation
import XCTest

final class PDFTests: XCTestCase {
    func testPortraitPDFIsABookWithTitleAndShape() throws {
        let lib = Library.load(from: try Fixtures.path("portrait.pdf"), documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.problems, [])
        XCTAssertEqual(lib.books.count, 1)
        let book = try XCTUnwrap(lib.books.first)
        XCTAssertEqual(book.title, "A Portrait Document")
        XCTAssertEqual(book.pages.count, 10)
        // 420 × 595 points at the reference height of 568.
        XCTAssertEqual(book.pageWidth, 401)
        XCTAssertEqual(book.pageHeight, 568)
        XCTAssertEqual(book.coverImage, book.pages[0])
    }

    /// A Perl reference a producer wrote for the title or author is no title or author: the
    /// shelf card read "ARRAY(0x2c7cf020)", as if Folio had slipped.
    func testMetadataAProgramSlippedIsNotShown() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("slipped.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.title, "slipped")
        XCTAssertNil(book.author)
        XCTAssertEqual(try XCTUnwrap(Library.load(from: try Fixtures.path("portrait.pdf"), documents: Fixtures.documents,
                                                  logProblems: false).books.first).title, "A Portrait Document")
    }

    func testLandscapePDFTakesItsTitleFromTheFileName() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("landscape.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.title, "landscape")
        XCTAssertEqual(book.pageWidth, 804)
    }

    func testEachPageRendersItselfAtTheSizeAsked() throws {
        let path = try Fixtures.path("portrait.pdf")
        for index in [0, 2, 9] {
            let r = try Fixtures.documents.render(PageRef.document(path, index: index), fit: PixelSize(width: 300, height: 600))
            XCTAssertTrue(r.scalable)
            XCTAssertEqual(r.image.width, 300)
            XCTAssertEqual(r.image.height, 425)  // 300 × 595 / 420
            XCTAssertColour(r.image.centre(), pageColours[index % 5], "page \(index + 1) centre")
            XCTAssertColour(r.image.pixel(150, 400), white, "page \(index + 1) bottom")
        }
    }

    func testAPageOfAnotherShapeSitsOnPaperOfTheFirstPagesShape() throws {
        let path = try Fixtures.path("mixed.pdf")
        let r = try Fixtures.documents.render(PageRef.document(path, index: 1), fit: PixelSize(width: 420, height: 595))
        XCTAssertEqual(Double(r.image.width) / Double(r.image.height), 420.0 / 595, accuracy: 0.01)
        // The landscape page, 420 wide and 296 high, centred: paper above and below it.
        XCTAssertColour(r.image.centre(), pageColours[1], "centre")
        XCTAssertColour(r.image.pixel(210, 100), white, "above the landscape page")
        XCTAssertColour(r.image.pixel(210, 500), white, "below the landscape page")
    }

    /// A square cover does not shape the book: every other page sat letterboxed on its square
    /// paper. The book takes the shape most of its first pages have, and the cover sits centred
    /// on that paper, as any page of another shape does.
    func testAnOddFirstPageSitsOnTheOtherPagesPaper() throws {
        let path = try Fixtures.path("covered.pdf")
        let book = try XCTUnwrap(Library.load(from: path, documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.pageWidth, 401, "420 × 595 at the reference height")
        let fit = PixelSize(width: 420, height: 595)
        let page = try Fixtures.documents.render(book.pages[1], fit: fit).image
        XCTAssertEqual(page.width, 420)
        XCTAssertEqual(page.height, 595)
        // The page's band fills its width: not a square centred on the page.
        XCTAssertColour(page.pixel(5, 297), pageColours[1], "the band reaches the page's edge")
        let cover = try Fixtures.documents.render(book.pages[0], fit: fit).image
        XCTAssertEqual(Double(cover.width) / Double(cover.height), 420.0 / 595, accuracy: 0.01)
        // The square, 420 × 420, centred: its band y 192…402, paper above and below it.
        XCTAssertColour(cover.centre(), pageColours[0], "the cover's band")
        XCTAssertColour(cover.pixel(210, 150), white, "the cover's own paper")
        XCTAssertColour(cover.pixel(210, 40), white, "paper above the cover")
        let source = try Fixtures.documents.open(path)
        XCTAssertEqual(Book.paperAspect(paper: source.paperSize), 420.0 / 595, accuracy: 0.002)
    }

    /// A crop is the same pixels as that part of the whole page rendered at the crop's scale,
    /// on the paper the page cache puts it on (a page of another shape centred).
    func testACropIsThatPartOfTheWholePage() throws {
        for (name, index) in [("portrait.pdf", 2), ("mixed.pdf", 1)] {
            let locator = PageRef.document(try Fixtures.path(name), index: index)
            XCTAssertTrue(Fixtures.documents.rendersCrops(locator))
            let whole = try Fixtures.documents.render(locator, fit: PixelSize(width: 300, height: 425)).image
            let full = PixelSize(width: whole.width, height: whole.height)
            let all = try XCTUnwrap(Fixtures.documents.renderCrop(locator, crop: PageCrop(covering: .whole, of: full), paperAspect: 420.0 / 595))
            var same = 0
            for i in stride(from: 0, to: whole.pixels.count, by: 4) {
                let d = (0..<3).map { abs(Int(whole.pixels[i + $0]) - Int(all.pixels[i + $0])) }.max()!
                if d <= 2 { same += 1 }
            }
            // A page on paper of another shape may sit a pixel apart (the paper is whole pixels).
            XCTAssertGreaterThan(Double(same) / Double(whole.width * whole.height), 0.98, "\(name): the whole page as a crop")
            let crop = PageCrop(full: full, x: 50, y: 100, width: 120, height: 150)
            let part = try XCTUnwrap(Fixtures.documents.renderCrop(locator, crop: crop, paperAspect: 420.0 / 595))
            XCTAssertEqual(part.width, 120)
            XCTAssertEqual(part.height, 150)
            for (x, y) in [(0, 0), (60, 75), (119, 149), (10, 140)] {
                XCTAssertEqual(part.pixel(x, y).r, all.pixel(50 + x, 100 + y).r, "\(name) at \(x),\(y)")
                XCTAssertEqual(part.pixel(x, y).b, all.pixel(50 + x, 100 + y).b, "\(name) at \(x),\(y)")
            }
        }
        let photo = try Fixtures.path("baseline.jpg")
        XCTAssertFalse(Fixtures.documents.rendersCrops(.image(photo)))
        XCTAssertNil(try Fixtures.documents.renderCrop(.image(photo), crop: PageCrop(covering: .whole, of: PixelSize(width: 10, height: 10)), paperAspect: 1))
    }

    /// Pages sat on paper of the refused first page's shape (200:1), then were stretched onto
    /// the book's reference-shaped page: a sliver of the second page in a white page.
    func testPagesOfABookWithAStripFirstPageSitOnThePaperTheBookHas() throws {
        let path = try Fixtures.path("strip.pdf")
        let book = try XCTUnwrap(Library.load(from: path, documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.pageWidth, Book.referencePageWidth)
        let r = try Fixtures.documents.render(book.pages[1], fit: PixelSize(width: 362, height: 568))
        XCTAssertEqual(Double(r.image.width) / Double(r.image.height), Book.referencePageWidth / Book.referencePageHeight, accuracy: 0.01)
        XCTAssertColour(r.image.centre(), pageColours[1], "centre")
        XCTAssertColour(r.image.pixel(r.image.width / 8, r.image.height / 2), pageColours[1], "the band reaches across the page")
    }

    func testLongPDFOpensQuicklyAndRendersItsMiddlePage() throws {
        let path = try Fixtures.path("long.pdf")
        let start = Date()
        let book = try XCTUnwrap(Library.load(from: path, documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.pages.count, Fixtures.longPages)
        let r = try Fixtures.documents.render(book.pages[400], fit: PixelSize(width: 200, height: 300))
        XCTAssertColour(r.image.centre(), pageColours[400 % 5])
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testPagesRenderInParallel() throws {
        let path = try Fixtures.path("long.pdf")
        let failures = NSLock()
        nonisolated(unsafe) var wrong: [Int] = []
        DispatchQueue.concurrentPerform(iterations: 48) { i in
            let index = (i * 37) % Fixtures.longPages
            let image = try? Fixtures.documents.render(PageRef.document(path, index: index), fit: PixelSize(width: 60, height: 90)).image
            let ok = image.map { abs(Int($0.centre().r) - pageColours[index % 5].0) < 20 } ?? false
            if !ok { failures.withLock { wrong.append(index) } }
        }
        XCTAssertEqual(wrong, [])
    }

    func testThinLinesAreSharpWhenRenderedLarge() throws {
        let locator = PageRef.document(try Fixtures.path("lines.pdf"), index: 0)
        // 10 pixels a point: 0.25-point lines 2 points apart are 2.5 pixels of black, 17.5 of white.
        let large = try Fixtures.documents.render(locator, fit: PixelSize(width: 4000, height: 4000)).image
        XCTAssertEqual(large.width, 4000)
        let row = (1000..<1800).map { Int(large.pixel($0, 2000).r) }
        XCTAssertLessThan(row.min()!, 40, "a line is black")
        XCTAssertGreaterThan(row.max()!, 250, "between lines is white")
        XCTAssertGreaterThanOrEqual(row.filter { $0 < 128 }.count, 80, "40 lines, 2 or 3 dark pixels each")
        XCTAssertGreaterThan(row.filter { $0 > 250 }.count, 500, "white between them")
        // Shown small, the same lines merge: no white is left between them.
        let small = try Fixtures.documents.render(locator, fit: PixelSize(width: 100, height: 100)).image
        XCTAssertLessThan((26..<44).map { Int(small.pixel($0, 50).r) }.max()!, 200)
    }

    func testDamagedPDFsAreOneProblemAndAPlaceholderPage() throws {
        for (name, words) in [("garbage.pdf", "damaged"), ("truncated.pdf", "damaged"), ("encrypted.pdf", "password-protected")] {
            let path = try Fixtures.path(name)
            let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
            XCTAssertEqual(lib.books.count, 1, name)
            XCTAssertEqual(lib.books.first?.pages.count, 1, name)
            XCTAssertEqual(lib.problems.count, 1, name)
            XCTAssertEqual(lib.problems.first?.file, path)
            XCTAssertTrue(lib.problems.first?.message.contains(words) == true, "\(name): \(lib.problems)")
            // The page shows the broken-page placeholder, without a second message.
            let probe = PageProbe(lib.books[0])
            probe.show([0])
            XCTAssertNotNil(probe.image(0))
            XCTAssertEqual(probe.store.takeProblems(), [])
        }
    }

    func testPasswordOpensAProtectedPDF() throws {
        let path = try Fixtures.copy("encrypted.pdf", as: "encrypted-with-password.pdf")
        let documents = DocumentRegistry()
        let refused = Library.load(from: path, documents: documents, logProblems: false)
        XCTAssertTrue(refused.problems.first?.message.contains("password-protected") == true, "\(refused.problems)")
        XCTAssertThrowsError(try documents.open(path)) { XCTAssertEqual($0 as? PageError, .reportedBefore(path: path)) }
        // The failure is this registry's: another one opens the document with its password.
        XCTAssertNoThrow(try DocumentRegistry(password: "secret").open(path))
        // A new password retries it here too.
        documents.password = "secret"
        let lib = Library.load(from: path, documents: documents, logProblems: false)
        XCTAssertEqual(lib.problems, [])
        XCTAssertEqual(lib.books.first?.pages.count, 1)
        XCTAssertEqual(lib.books.first?.pageWidth, 568)
        XCTAssertGreaterThan(try documents.render(lib.books[0].pages[0], fit: PixelSize(width: 60, height: 60)).image.width, 0)
    }

    func testThePageStoreRendersAgainWhenTheDisplayGrows() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("portrait.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        let probe = PageProbe(book) { $0.displayHeight = 100 }
        probe.show([3])
        XCTAssertEqual(probe.image(3)?.height, 100)
        probe.store.setDisplayHeight(800)
        // The soft image stays until the sharp one replaces it.
        XCTAssertEqual(probe.image(3)?.height, 100)
        probe.show([3])
        XCTAssertEqual(probe.image(3)?.height, 800)
    }

    /// What a PDF says about itself for the on-screen layer: its author on the shelf, and the
    /// labels printed on its pages (poppler numbers pages from 1 where a PDF has none).
    func testAuthorAndPageLabels() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("labelled.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.author, "A. Writer")
        XCTAssertEqual((0..<5).map { book.pageLabel(image: $0, in: Fixtures.documents) }, ["i", "ii", "iii", "1", "2"])
        let plain = try XCTUnwrap(Library.load(from: try Fixtures.path("portrait.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertNil(plain.author)
        XCTAssertEqual(plain.pageLabel(image: 3, in: Fixtures.documents), "4")
        XCTAssertEqual(plain.pageLabel(image: 99, in: Fixtures.documents), "100", "past the pages: the number")
    }

    /// Vector pages are rasterised whole up to `wholePageHeight` (crops show them larger):
    /// a display that grows beyond it renders nothing again. Bitmap pages are not capped.
    func testVectorPagesStopAtTheWholePageHeight() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("portrait.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        let configure = { (s: inout PageStore.Settings) in (s.displayHeight, s.wholePageHeight, s.previewHeight) = (200, 300, 0) }
        let probe = PageProbe(book, configure: configure)
        probe.show([3])
        XCTAssertEqual(probe.image(3)?.height, 200)
        probe.store.setDisplayHeight(900)
        probe.show([3])
        XCTAssertEqual(probe.image(3)?.height, 300)
        let decoded = probe.store.statistics.decoded
        probe.store.setDisplayHeight(1200)
        probe.show([3])
        XCTAssertEqual(probe.store.statistics.decoded, decoded, "not rendered again for a larger display")

        let photos = PageProbe(image: try Fixtures.path("large.jpg"))
        photos.store.setDisplayHeight(1200)
        photos.show([0])
        XCTAssertGreaterThan(photos.image(0)?.height ?? 0, 300, "a photo keeps its resolution")
    }

    func testAPagePreviewsSmallThenSharp() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("portrait.pdf"), documents: Fixtures.documents, logProblems: false).books.first)
        for (preview, renders) in [(40, 2), (0, 1)] {
            let probe = PageProbe(book) { ($0.displayHeight, $0.previewHeight) = (400, preview) }
            probe.show([5])
            XCTAssertEqual(probe.image(5)?.height, 400)
            XCTAssertEqual(probe.store.statistics.decoded, renders, "preview \(preview)")
        }
    }
}

final class JPEGTests: XCTestCase {
    func testEveryKindDecodesToTheSamePicture() throws {
        // Red over blue; greyscale gives their luma.
        let expected = ["baseline.jpg": ((220, 30, 30), (30, 30, 220)), "progressive.jpg": ((220, 30, 30), (30, 30, 220)),
                        "cmyk.jpg": ((220, 30, 30), (30, 30, 220)), "grey.jpg": ((86, 86, 86), (55, 55, 55))]
        for (name, (top, bottom)) in expected {
            let r = try Fixtures.documents.render(.image(try Fixtures.path(name)), fit: PixelSize(width: 4096, height: 4096))
            XCTAssertEqual(r.image.width, 64, name)
            XCTAssertEqual(r.image.height, 48, name)
            XCTAssertNil(r.warning, name)
            XCTAssertFalse(r.scalable, name)
            XCTAssertColour(r.image.pixel(32, 6), top, tolerance: 12, "\(name) top")
            XCTAssertColour(r.image.pixel(32, 42), bottom, tolerance: 12, "\(name) bottom")
        }
    }

    func testALargePhotoIsDecodedAtTheScaleTheScreenNeeds() throws {
        let r = try Fixtures.documents.render(.image(try Fixtures.path("large.jpg")), fit: PixelSize(width: 400, height: 300))
        XCTAssertEqual(r.image.width, 400)  // 1600 × 1200 at 1/4
        XCTAssertEqual(r.image.height, 300)
        XCTAssertTrue(r.scalable)
        XCTAssertColour(r.image.centre(), (30, 160, 60), tolerance: 8)
        let full = try Fixtures.documents.render(.image(try Fixtures.path("large.jpg")), fit: PixelSize(width: 1000, height: 1000))
        XCTAssertEqual(full.image.width, 1600)
        // A page's box is as wide as textures go and as high as the screen shows it.
        let tall = try Fixtures.documents.render(.image(try Fixtures.path("large.jpg")), fit: PixelSize(width: 4096, height: 290))
        XCTAssertEqual(tall.image.height, 300)
    }

    func testAJPEGThatEndsEarlyShowsWhatItHasAndSaysSo() throws {
        let path = try Fixtures.path("ends-early.jpg")
        let probe = PageProbe(image: path)
        probe.show([0])
        XCTAssertEqual(probe.image(0)?.width, 64)
        let problems = probe.store.takeProblems()
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.file, path)
    }

    func testGarbageNamedJPEGIsAProblemNotACrash() throws {
        let path = try Fixtures.path("garbage.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try Fixtures.documents.render(.image(path), fit: PixelSize(width: 100, height: 100)))
    }
}

final class ArchiveTests: XCTestCase {
    func testComicPagesAreTheImagesInNaturalOrder() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("comic.cbz"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.title, "comic")
        XCTAssertEqual(book.pages.count, 3)  // p1.png, p2.jpg, p10.png; the text and the resource fork are not pages
        XCTAssertEqual(book.pageWidth, 379)  // 60 × 90
        let fit = PixelSize(width: 600, height: 900)
        let images = try book.pages.map { try Fixtures.documents.render($0, fit: fit).image }
        XCTAssertColour(images[0].centre(), (255, 0, 0))
        XCTAssertColour(images[2].centre(), (0, 0, 255))
        // The square JPEG on portrait paper.
        XCTAssertEqual(images[1].width * 90, images[1].height * 60)
        XCTAssertColour(images[1].pixel(32, 1), white)
        XCTAssertColour(images[1].pixel(32, images[1].height / 2 - 6), (220, 30, 30), tolerance: 12)
    }

    /// WebP pages are pages, decoded at the size shown: a comic's WebP pages were left out of
    /// it without a word (an archive of them was a book of no pages). A picture in a format
    /// Folio does not read is left out with a note; an animated WebP is a page that says why it
    /// shows nothing.
    func testWebPPagesArePagesAndUnreadPicturesAreNamed() throws {
        let path = try Fixtures.path("webp.cbz")
        let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
        let book = try XCTUnwrap(lib.books.first)
        XCTAssertEqual(book.pages.count, 4, "1.png, 2.webp, 4.webp, 5.webp; not 3.gif")
        guard book.pages.count == 4 else { return }
        XCTAssertEqual(book.pageWidth, 379, "60 × 90")
        XCTAssertTrue(lib.problems.contains { $0.severity == .note && $0.message.contains("an entry is a picture in a format Folio does not read (3.gif)") },
                      "\(lib.problems)")
        let green = try Fixtures.documents.render(book.pages[1], fit: PixelSize(width: 60, height: 90))
        XCTAssertEqual([green.image.width, green.image.height], [60, 90])
        XCTAssertColour(green.image.centre(), (0, 255, 0), tolerance: 2)
        XCTAssertFalse(green.scalable, "all the picture there is")
        // Scaled inside the decoder: a tenth of the 600 × 900 picture, and more to be had.
        let blue = try Fixtures.documents.render(book.pages[2], fit: PixelSize(width: 60, height: 90))
        XCTAssertEqual([blue.image.width, blue.image.height], [60, 90])
        XCTAssertColour(blue.image.centre(), (0, 0, 255), tolerance: 12)
        XCTAssertTrue(blue.scalable)
        XCTAssertThrowsError(try Fixtures.documents.render(book.pages[3], fit: PixelSize(width: 60, height: 90))) {
            XCTAssertTrue("\($0)".contains("an animated WebP picture; not shown"), "\($0)")
        }
    }

    /// A comic's ComicInfo.xml names it and says which way it reads: a manga marked
    /// `YesAndRightToLeft` turned left to right, under its file's name.
    func testAComicsInfoNamesItAndSaysWhichWayItReads() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("manga.cbz"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.title, "Captain & Science #1: The Beginning")
        XCTAssertEqual(book.author, "A. Writer \u{2014} B. Writer")
        XCTAssertEqual(book.direction, .rtl)
        XCTAssertEqual(book.pages.count, 2, "the info is no page")
        let plain = try XCTUnwrap(Library.load(from: try Fixtures.path("comic.cbz"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(plain.direction, .ltr)
    }

    func testTarComic() throws {
        let book = try XCTUnwrap(Library.load(from: try Fixtures.path("comic.cbt"), documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.pages.count, 2)
        XCTAssertColour(try Fixtures.documents.render(book.pages[1], fit: PixelSize(width: 60, height: 90)).image.centre(), (0, 0, 255))
    }

    func testABrokenEntryIsOnePlaceholderPageTheOthersShow() throws {
        let path = try Fixtures.path("broken.cbz")
        let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
        let book = try XCTUnwrap(lib.books.first)
        XCTAssertEqual(book.pages.count, 3)
        let probe = PageProbe(book)
        probe.show([0, 1, 2])
        XCTAssertColour(try XCTUnwrap(probe.image(0)).centre(), (255, 0, 0))
        XCTAssertColour(try XCTUnwrap(probe.image(2)).centre(), (0, 0, 255))
        let problems = probe.store.takeProblems()
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.file, path)
        XCTAssertTrue(problems.first?.message.hasPrefix("page 2: entry b.png is damaged") == true, "\(problems)")
    }
}

extension ArchiveTests {
    /// Fixture `name` loaded: the library and its first book.
    private func load(_ name: String) throws -> (lib: Library, book: Book) {
        let lib = Library.load(from: try Fixtures.path(name), documents: Fixtures.documents, logProblems: false)
        return (lib, try XCTUnwrap(lib.books.first))
    }

    /// A picture twice as wide as a comic's pages is a double-page spread: its halves are two
    /// pages, the first on the left of the spine (a blank page put in where the page before
    /// would put it on the right), the right half first in a manga; a book of wide pages is not
    /// cut up; ComicInfo's `DoublePage` marks, where a book has them, say which are spreads.
    func testADoublePageSpreadLiesOverTwoPages() throws {
        let fit = PixelSize(width: 60, height: 90)
        func colours(_ book: Book) throws -> [String] {
            try book.pages.map { page in
                let image = try Fixtures.documents.render(page, fit: fit).image
                XCTAssertEqual(image.width * 90, image.height * 60, "a page's shape")
                let (r, g, b, _) = image.centre()
                return [r, g, b].map { $0 > 128 ? "1" : "0" }.joined()
            }
        }
        let (lib, book) = try load("spreads.cbz")
        // Cover (red); 2.png: blue | yellow; green; blank; 4.png: magenta | cyan; black.
        XCTAssertEqual(try colours(book), ["100", "001", "110", "010", "111", "101", "011", "000"])
        XCTAssertEqual(book.pageWidth, Book.pageWidth(paper: 60, 90), "the pages' shape, not the spreads'")
        XCTAssertTrue(lib.problems.contains { $0.severity == .note && $0.message.contains("2 pictures are double-page spreads") && $0.message.contains("a blank page put in") },
                      "\(lib.problems)")
        let outline = try XCTUnwrap(Fixtures.documents.open(try Fixtures.path("spreads.cbz")).outline)
        XCTAssertEqual(outline.map(\.page), [0, 1, 3, 5, 7], "each picture at its first page, the blank none's")
        let (_, manga) = try load("spreads-rtl.cbz")
        XCTAssertEqual(try colours(manga), ["100", "110", "001", "010", "111", "011", "101", "000"])
        let (_, wide) = try load("landscape.cbz")
        XCTAssertEqual(wide.pages.count, 2)
        // Where ComicInfo marks the double pages, they are the spreads: a picture as wide but
        // unmarked is a page scanned sideways, shown whole.
        let (_, marked) = try load("spreads-marked.cbz")
        XCTAssertEqual(try colours(marked), ["100", "010", "111", "001", "110", "000", "101"])
    }

    func testAnArchiveCutShortKeepsThePagesBeforeTheDamage() throws {
        let (lib, book) = try load("cut.cbt")
        XCTAssertEqual(book.pages.count, 3)
        XCTAssertEqual(lib.problems.count, 1)
        XCTAssertTrue(lib.problems.first?.message.contains("pages found before it are kept") == true, "\(lib.problems)")
        XCTAssertColour(try Fixtures.documents.render(book.pages[1], fit: PixelSize(width: 300, height: 300)).image.centre(), (0, 255, 0))
        XCTAssertThrowsError(try Fixtures.documents.render(book.pages[2], fit: PixelSize(width: 300, height: 300)))
    }

    /// A file named as an archive that libarchive does not recognise is refused in one line (its
    /// reader was freed twice: a file of text named .cbz crashed Folio).
    func testAFileThatIsNoArchiveIsRefusedInOneLine() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("folio-not-an-archive-\(UUID().uuidString).cbz")
        try Data(String(repeating: "words of a letter, not an archive\n", count: 40).utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        _ = Fixtures.folder  // registers the formats
        XCTAssertThrowsError(try Fixtures.documents.open(file.path)) { error in
            XCTAssertTrue("\(error)".contains("not a readable archive"), "\(error)")
        }
    }

    /// An encrypted entry was called "damaged", and --password was not tried on archives.
    func testEncryptedEntriesSaySoAndOpenWithThePassword() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else { throw XCTSkip("needs zip (apt-get install zip)") }
        let dir = try Fixtures.path("sealed")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/bin/sh")
        zip.arguments = ["-c", "cd \"$0\" && /usr/bin/python3 -c \"from PIL import Image; Image.new('RGB', (30, 30), (255, 0, 0)).save('1.png'); "
                         + "Image.new('RGB', (30, 30), (0, 255, 0)).save('2.png')\" && zip -q -P opensesame sealed.cbz 1.png 2.png", dir]
        try zip.run()
        zip.waitUntilExit()
        XCTAssertEqual(zip.terminationStatus, 0)
        let locked = try XCTUnwrap(Library.load(from: dir + "/sealed.cbz", documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertThrowsError(try Fixtures.documents.render(locked.pages[0], fit: PixelSize(width: 30, height: 30))) { error in
            XCTAssertTrue(PNGError.reason(of: error).hasPrefix("entry 1.png is encrypted (--password gives the password)"), "\(error)")
        }
        try FileManager.default.copyItem(atPath: dir + "/sealed.cbz", toPath: dir + "/opened.cbz")
        let documents = DocumentRegistry(password: "opensesame")
        let book = try XCTUnwrap(Library.load(from: dir + "/opened.cbz", documents: documents, logProblems: false).books.first)
        XCTAssertColour(try documents.render(book.pages[1], fit: PixelSize(width: 30, height: 30)).image.centre(), (0, 255, 0))
    }

    /// Three entries called leaf.png all showed the first, and nothing said so.
    func testEntriesOfOneNameAreSeparatePagesInArchiveOrder() throws {
        let (lib, book) = try load("twins.cbz")
        XCTAssertEqual(book.pages.count, 4)
        let fit = PixelSize(width: 60, height: 90)
        let colours = try book.pages.map { try Fixtures.documents.render($0, fit: fit).image.centre() }
        for (colour, expected) in zip(colours, [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]) {
            XCTAssertColour(colour, expected)
        }
        let note = lib.problems.first { $0.message.contains("given to more than one entry (leaf.png)") }
        XCTAssertEqual(note?.severity, .note, "a note, not a problem: nothing is lost (\(lib.problems))")
    }

    /// Entries named `../up.png` and `/abs.png` were pages (or dropped) without a word, and a
    /// sparse tar entry of 10 GiB was read for 256 MiB before it was refused.
    func testEntriesLeavingTheArchiveAreNotedAndAHugeOneIsRefusedUnread() throws {
        let (lib, book) = try load("strays.cbt")
        XCTAssertEqual(book.pages.count, 3, "./././d.png, 1.png, 2.png")
        guard book.pages.count == 3 else { return }
        XCTAssertColour(try Fixtures.documents.render(book.pages[0], fit: PixelSize(width: 60, height: 90)).image.centre(), (255, 255, 0))
        XCTAssertColour(try Fixtures.documents.render(book.pages[1], fit: PixelSize(width: 60, height: 90)).image.centre(), (255, 0, 0))
        let note = lib.problems.first { $0.message.hasSuffix("2 image entries' paths leave the archive (../up.png, /abs.png); not pages") }
        XCTAssertEqual(note?.severity, .note, "\(lib.problems)")
        XCTAssertThrowsError(try Fixtures.documents.render(book.pages[2], fit: PixelSize(width: 60, height: 90))) { error in
            XCTAssertEqual(PNGError.reason(of: error), "entry 2.png is 10240 MiB, larger than 256 MiB; not read")
        }
    }

    /// libarchive 3.6 reads a 7-Zip or zip that is a program (self-extracting) through the
    /// program's headers, and crashes on malformed ones: a program is refused before it opens.
    func testAProgramNamedAsAComicIsRefusedUnopened() throws {
        for (name, magic) in [("elf.cb7", [0x7F, 0x45, 0x4C, 0x46] as [UInt8]), ("dos.cbz", [0x4D, 0x5A])] {
            let path = try Fixtures.path(name)
            try Data(magic + [UInt8](repeating: 0, count: 600)).write(to: URL(fileURLWithPath: path))
            let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
            XCTAssertEqual(lib.problems.map(\.message), ["is a program (a self-extracting archive?), not a comic archive; not opened; showing a placeholder page"], name)
        }
    }

    /// An empty file named as a comic is refused as an empty PDF or EPUB is, not shown as a book
    /// of no pages.
    func testAnEmptyFileNamedAsAComicIsRefused() throws {
        for name in ["empty.cbz", "empty.cbt", "empty.cb7"] {
            let path = try Fixtures.path(name)
            try Data().write(to: URL(fileURLWithPath: path))
            let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
            XCTAssertEqual(lib.problems.map(\.message), ["the file is empty (0 bytes), not a comic archive; showing a placeholder page"], name)
        }
    }

    /// Each page reopened the archive and skipped to its entry: 2,400 pages read in order took
    /// minutes (quadratic); one forward pass takes about a second.
    func testPagesReadInOrderCostOnePass() throws {
        let book = try load("wide.cbt").book
        XCTAssertEqual(book.pages.count, 2400)
        let start = ContinuousClock.now
        let fit = PixelSize(width: 8, height: 12)
        for page in book.pages { _ = try Fixtures.documents.render(page, fit: fit) }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(20))
    }
}

final class JPEGLimitTests: XCTestCase {
    /// Photos taken sideways or upside down showed so: each of the 8 EXIF orientations is
    /// turned back (red top left, blue bottom right, landscape).
    func testEXIFOrientationIsHonoured() throws {
        for o in 1...8 {
            let path = try Fixtures.path("turned-\(o).jpg")
            let size = try XCTUnwrap(Fixtures.documents.naturalSize(.image(path)))
            XCTAssertEqual(size.width, 60, "orientation \(o)")
            XCTAssertEqual(size.height, 40, "orientation \(o)")
            let image = try Fixtures.documents.render(.image(path), fit: PixelSize(width: 60, height: 40)).image
            XCTAssertEqual(image.width, 60)
            XCTAssertColour(image.pixel(8, 6), (255, 0, 0), "orientation \(o) top left")
            XCTAssertColour(image.pixel(50, 33), (0, 0, 255), "orientation \(o) bottom right")
            XCTAssertColour(image.pixel(50, 6), (255, 255, 255), "orientation \(o) top right")
        }
    }

    /// A progressive 16000² JPEG took 3.1 GB although it was shown at 1/8 scale: libjpeg holds
    /// every coefficient. Past the budget it was refused; now its DC scans alone give it at 1/8
    /// scale (a line says so when the screen wanted it larger).
    func testAProgressiveJPEGOverTheCoefficientBudgetIsShownAtOneEighth() throws {
        let path = try Fixtures.path("huge-progressive.jpg")
        let page = try Fixtures.documents.render(.image(path), fit: PixelSize(width: 500, height: 500))
        XCTAssertEqual(page.image.width, 1250)
        XCTAssertEqual(page.image.height, 1250)
        XCTAssertNil(page.warning)
        for (x, y, colour) in [(300, 300, (255, 0, 0)), (950, 300, (0, 255, 0)), (300, 950, (0, 0, 255)), (950, 950, (255, 255, 255))] {
            XCTAssertColour(page.image.pixel(x, y), colour, "at \(x), \(y)")
        }
        let larger = try Fixtures.documents.render(.image(path), fit: PixelSize(width: 4000, height: 4000))
        XCTAssertEqual(larger.image.width, 1250)
        XCTAssertEqual(larger.warning, "progressive JPEG of 10000×10000 shown at 1/8 scale (in full it needs more than 256 MiB to decode)")
    }

    /// A progressive JPEG of 20,000 scans decoded for minutes: more than 500 are refused.
    func testAJPEGOfTooManyScansIsRefused() throws {
        let path = try Fixtures.path("many-scans.jpg")
        XCTAssertThrowsError(try Fixtures.documents.render(.image(path), fit: PixelSize(width: 64, height: 48))) { error in
            XCTAssertEqual(PNGError.reason(of: error), "progressive JPEG of more than 500 scans; not shown")
        }
    }
}

final class DocumentLibraryTests: XCTestCase {
    func testAFolderOfDocumentsAndImageFoldersIsALibrary() throws {
        let root = try Fixtures.path("shelf")
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root + "/Album", withIntermediateDirectories: true)
        for (name, target) in [("portrait.pdf", "b.pdf"), ("comic.cbz", "a.cbz"), ("garbage.pdf", "c.pdf"),
                               ("baseline.jpg", "Album/1.jpg"), ("cmyk.jpg", "Album/2.jpg")] {
            try FileManager.default.copyItem(atPath: try Fixtures.path(name), toPath: root + "/" + target)
        }
        let lib = Library.load(from: root, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.books.map(\.title), ["a", "Album", "A Portrait Document", "c"])
        XCTAssertEqual(lib.books.map(\.pages.count), [3, 2, 10, 1])
        XCTAssertEqual(lib.problems.map(\.file), [root + "/c.pdf"])
        // A photo album takes its shape from the first photo (64 × 48).
        XCTAssertEqual(lib.books[1].pageWidth, 757)
    }

    func testAManifestNamesDocumentsAndSinglePages() throws {
        let root = try Fixtures.path("manifest")
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Fixtures.path("portrait.pdf"), toPath: root + "/doc.pdf")
        try FileManager.default.copyItem(atPath: try Fixtures.path("comic.cbz"), toPath: root + "/comic.cbz")
        try Data(#"{"title": "Mixed", "pages": ["doc.pdf", "comic.cbz#page=3"]}"#.utf8).write(to: URL(fileURLWithPath: root + "/Book.json"))
        let book = try XCTUnwrap(Library.load(from: root, documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.title, "Mixed")
        XCTAssertEqual(book.pages.count, 11)
        XCTAssertColour(try Fixtures.documents.render(book.pages[10], fit: PixelSize(width: 60, height: 90)).image.centre(), (0, 0, 255))
    }

    /// Documents whose names are not UTF-8 (Latin-1 "café", a stray 0xFF) did not open: poppler
    /// and libarchive were given the name's private-use stand-ins instead of its bytes.
    func testDocumentsWithNamesThatAreNotUTF8Open() throws {
        let root = try Fixtures.path("latin1")
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (name, bytes) in [("portrait.pdf", Array("caf".utf8) + [0xE9] + Array(".pdf".utf8)),
                              ("comic.cbz", Array("b".utf8) + [0xFF] + Array("d.cbz".utf8))] {
            let target = root + "/" + FileName.string(bytes)
            XCTAssertEqual(link(FileName.bytes(try Fixtures.path(name)), FileName.bytes(target)), 0)
        }
        let lib = Library.load(from: root, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.problems, [])
        XCTAssertEqual(lib.books.map(\.pages.count).sorted(), [3, 10])
        for book in lib.books {
            XCTAssertNoThrow(try Fixtures.documents.render(book.pages[0], fit: PixelSize(width: 60, height: 90)))
        }
    }

    func testMoreDocumentsThanStayOpenStillRender() throws {
        let root = try Fixtures.path("many")
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let count = DocumentRegistry.maxOpen + 4
        for i in 1...count { try FileManager.default.copyItem(atPath: try Fixtures.path("landscape.pdf"), toPath: "\(root)/d\(i).pdf") }
        let lib = Library.load(from: root, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.books.count, count)
        // The first documents were closed as the later ones opened: they open again.
        for book in lib.books {
            let image = try Fixtures.documents.render(book.pages[2], fit: PixelSize(width: 84, height: 60)).image
            XCTAssertColour(image.centre(), pageColours[2])
        }
    }

    func testAFIFOIsRefusedNotWaitedOn() throws {
        let path = try Fixtures.path("fifo.pdf")
        try? FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.problems.first?.message.contains("is a FIFO (named pipe), not a file"), true, "\(lib.problems)")
    }
}
