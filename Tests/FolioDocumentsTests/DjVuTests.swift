import FolioBook
@testable import FolioDjVu
import FolioLibrary
import Foundation
import XCTest

/// DjVu documents (Fixtures/make_djvu.py says what each page holds and where).
final class DjVuTests: XCTestCase {
    private let black = (0, 0, 0)
    private let red = (220, 30, 30), blue = (30, 30, 220)

    func testBundledBookHasItsPagesTitleAuthorAndPageTitles() throws {
        let path = try Fixtures.djvu("book.djvu")
        let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.problems, [])
        let book = try XCTUnwrap(lib.books.first)
        XCTAssertEqual(book.title, "A DjVu Book")
        XCTAssertEqual(book.pages.count, 3)
        // 400 × 600 pixels at the reference height of 568.
        XCTAssertEqual(book.pageWidth, 379, accuracy: 1)
        let doc = try Fixtures.documents.open(path)
        XCTAssertEqual(doc.author, "Ann Author")
        XCTAssertEqual(doc.label(ofPage: 0), "Cover")
        XCTAssertNil(doc.label(ofPage: 1), "a page titled by its file name has no label")
        XCTAssertEqual(PageSources.format(of: "Scan.DJV")?.name, "DjVu")
    }

    /// A scan's square cover does not shape the book: its portrait pages sat letterboxed on
    /// square paper. The book takes their shape; the cover sits centred on their paper.
    func testASquareCoverSitsOnThePagesPaper() throws {
        let path = try Fixtures.djvu("covered.djvu")
        let book = try XCTUnwrap(Library.load(from: path, documents: Fixtures.documents, logProblems: false).books.first)
        XCTAssertEqual(book.pageWidth, 379, accuracy: 1, "400 × 600 at the reference height")
        let fit = PixelSize(width: 300, height: 450)
        let page = try Fixtures.documents.render(book.pages[1], fit: fit).image
        XCTAssertEqual(page.width, 300)
        XCTAssertEqual(page.height, 450)
        XCTAssertColour(page.pixel(150, 10), red, tolerance: 24, "the photo fills its paper")
        let cover = try Fixtures.documents.render(book.pages[0], fit: fit).image
        XCTAssertEqual(cover.width, 300)
        XCTAssertEqual(cover.height, 450)
        // The square, 300 × 300, centred: y 75…375.
        XCTAssertColour(cover.pixel(150, 225), red, tolerance: 24, "the cover")
        XCTAssertColour(cover.pixel(150, 30), white, "paper above the cover")
    }

    /// Page 1 a colour photo, page 2 a bitonal bar, page 3 a square turned a quarter turn.
    func testEachPageShowsItsOwnPictureTheRightWayUp() throws {
        for name in ["book.djvu", "indirect/index.djvu"] {
            let path = try Fixtures.djvu(name)
            let fit = PixelSize(width: 300, height: 450)
            let photo = try Fixtures.documents.render(PageRef.document(path, index: 0), fit: fit)
            XCTAssertEqual(photo.image.width, 300)
            XCTAssertEqual(photo.image.height, 450)
            XCTAssertColour(photo.image.pixel(150, 100), red, tolerance: 24, "\(name) photo top")
            XCTAssertColour(photo.image.pixel(150, 350), blue, tolerance: 24, "\(name) photo bottom")
            let text = try Fixtures.documents.render(PageRef.document(path, index: 1), fit: fit)
            XCTAssertTrue(text.scalable, "300 of 1600 pixels: more detail to be had")
            // The bar: x 200…1400 and y 400…560 of 1600 × 2400, a 16th of that here.
            XCTAssertColour(text.image.pixel(150, 90), black, "\(name) bar")
            XCTAssertColour(text.image.pixel(150, 60), white, "\(name) above the bar")
            XCTAssertColour(text.image.pixel(20, 90), white, "\(name) left of the bar")
            // 600 × 400 shown, centred on the portrait paper (y 125…325): the square at the
            // bottom left.
            let turned = try Fixtures.documents.render(PageRef.document(path, index: 2), fit: fit).image
            XCTAssertColour(turned.pixel(25, 300), black, "\(name) square")
            XCTAssertColour(turned.pixel(25, 150), white, "\(name) the page's top left")
            XCTAssertColour(turned.pixel(275, 300), white, "\(name) bottom right")
        }
    }

    func testPagesRenderConcurrently() throws {
        let path = try Fixtures.djvu("book.djvu")
        final class Results: @unchecked Sendable {  // guarded by `lock`
            let lock = NSLock()
            var pixels: [Int: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)] = [:]
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            // Pages 1 and 2 in turn: red at the top of the photo, paper above the bar.
            guard let r = try? Fixtures.documents.render(PageRef.document(path, index: i % 2), fit: PixelSize(width: 200, height: 300))
            else { return }
            results.lock.withLock { results.pixels[i] = r.image.pixel(100, 20) }
        }
        XCTAssertEqual(results.pixels.count, 12)
        for (i, p) in results.pixels { XCTAssertColour(p, i % 2 == 0 ? red : white, tolerance: 24, "render \(i)") }
    }

    func testOutlineEntriesPointAtTheirPages() throws {
        let doc = try Fixtures.documents.open(try Fixtures.djvu("book.djvu"))
        XCTAssertEqual(doc.outline, [
            OutlineEntry(title: "Photo", page: 0),
            OutlineEntry(title: "Text", page: 1, children: [OutlineEntry(title: "Bar", page: 1)]),
            OutlineEntry(title: "Nowhere", page: nil),
        ])
    }

    func testTextWordsAndLinksLieWhereThePageShowsThem() throws {
        let doc = try Fixtures.documents.open(try Fixtures.djvu("book.djvu"))
        XCTAssertNil(try doc.text(page: 0))
        let text = try XCTUnwrap(try doc.text(page: 1))
        XCTAssertEqual(text.string, "Hello DjVu")
        let hello = text.words[0].box
        XCTAssertEqual(hello.x0, 200.0 / 1600, accuracy: 0.001)
        XCTAssertEqual(hello.x1, 700.0 / 1600, accuracy: 0.001)
        XCTAssertEqual(hello.y0, 400.0 / 2400, accuracy: 0.001)
        XCTAssertEqual(hello.y1, 560.0 / 2400, accuracy: 0.001)
        // On the turned page (600 × 400 on portrait paper: y 5/18…13/18) the square's word
        // lies where the square is shown, at the bottom left.
        let square = try XCTUnwrap(try doc.text(page: 2)?.words.first?.box)
        XCTAssertEqual(square.x0, 0, accuracy: 0.001)
        XCTAssertEqual(square.x1, 1.0 / 6, accuracy: 0.001)
        XCTAssertEqual(square.y0, 5.0 / 18 + 0.75 * 4 / 9, accuracy: 0.001)
        XCTAssertEqual(square.y1, 13.0 / 18, accuracy: 0.001)
        let links = doc.links(page: 1)
        XCTAssertEqual(links.map(\.target), [.page(0), .uri("https://example.org")])
        XCTAssertEqual(links.first?.box.x1 ?? 0, 800.0 / 1600, accuracy: 0.001)
        XCTAssertEqual(links.first?.box.y0 ?? 0, 400.0 / 2400, accuracy: 0.001)
    }

    /// The 1-pixel stripes merge to grey on the whole page shown small; a crop at the file's
    /// own resolution (5⅓× that) shows them black and white.
    func testAZoomedCropIsSharperThanTheWholePage() throws {
        let locator = PageRef.document(try Fixtures.djvu("book.djvu"), index: 1)
        XCTAssertTrue(Fixtures.documents.rendersCrops(locator))
        let whole = try Fixtures.documents.render(locator, fit: PixelSize(width: 300, height: 450)).image
        let grey = (155..<220).map { Int(whole.pixel($0, 340).r) }
        XCTAssertTrue(grey.allSatisfy { $0 > 40 && $0 < 215 }, "stripes merge: \(grey)")
        let full = PixelSize(width: 1600, height: 2400)
        let crop = try XCTUnwrap(Fixtures.documents.renderCrop(locator, crop: PageCrop(full: full, x: 800, y: 1700, width: 400, height: 4),
                                                        paperAspect: 400.0 / 600))
        let row = (0..<400).map { Int(crop.pixel($0, 2).r) }
        XCTAssertEqual(row.filter { $0 < 40 }.count, 200, "every odd column black")
        XCTAssertEqual(row.filter { $0 > 215 }.count, 200, "every even column white")
        // A page scaled beyond djvulibre's 32-bit coordinates is an error, not a crash.
        let vast = PixelSize(width: 1 << 32, height: 3 << 31)
        XCTAssertThrowsError(try Fixtures.documents.renderCrop(locator, crop: PageCrop(full: vast, x: 0, y: 0, width: 4, height: 4),
                                                        paperAspect: 400.0 / 600))
    }

    /// Damaged files are one problem each naming the file and a placeholder page; an indirect
    /// document naming a file outside its folder is refused, as are components that include
    /// each other in a cycle (djvulibre's recursion overflowed the stack) and a component that
    /// is a FIFO (djvulibre's read of it waited for a writer); the rest of the folder opens.
    func testBadDjVuIsOneProblemAndThePlaceholderPage() throws {
        let cases = [("garbage.djvu", "DjVu"), ("truncated.djvu", "ends early"), ("lying.djvu", "DjVu"),
                     ("escape/inner/index.djvu", "outside its folder"),
                     ("cycle/index.djvu", "in a cycle (p1.djvu → p1.djvu)"),
                     ("cycle2/index.djvu", "in a cycle (p1.djvu → shared.djvi → p1.djvu)"),
                     ("fifo/index.djvu", "component file \"p2.djvu\" is a FIFO (named pipe), not a file")]
        for (name, words) in cases {
            let path = try Fixtures.djvu(name)
            let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
            XCTAssertEqual(lib.books.count, 1, name)
            XCTAssertEqual(lib.problems.count, 1, "\(name): \(lib.problems)")
            XCTAssertEqual(lib.problems.first?.file, path)
            XCTAssertTrue(lib.problems.first?.message.contains(words) == true, "\(name): \(lib.problems)")
            let probe = PageProbe(lib.books[0])
            probe.show([0])
            XCTAssertNotNil(probe.image(0), name)
        }
    }

    /// A page whose annotations include the document without end: djvulibre posts messages all
    /// along, and a wait that timed out only when none came never ended (reading the page's
    /// links hung Folio). It gives up at the decode timeout. Run aside, so that a hang fails the
    /// test rather than stopping the suite.
    func testAPageIncludingItsDocumentWithoutEndGivesUpInTime() throws {
        let book = try DjVu.format(decodeTimeout: 2).open(try Fixtures.djvu("looping.djvu"), nil)
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        DispatchQueue.global().async {
            for page in 0..<book.pageCount { _ = book.links(page: page) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "links still read after 30 s")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1, "one page's annotations waited for (the loop reproduced)")
    }

    /// A file written again in place while it is shown keeps the pages it had when opened:
    /// djvulibre maps the file it reads, so a page read after the file was cut short could not
    /// be decoded, and one read while it was being written stopped Folio (SIGBUS, which no test
    /// can catch: without the copy the second half ended two runs of three within their first
    /// hundred pages). An indirect document reads its files where they lie, as before.
    func testAFileWrittenOverWhileShownKeepsItsPages() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-djvu-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/book.djvu", original = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.djvu("book.djvu")))
        try original.write(to: URL(fileURLWithPath: path))
        let book = try DjVu.format(decodeTimeout: 10).open(path, nil)
        let fit = PixelSize(width: 300, height: 450)
        XCTAssertColour(try book.render(page: 0, fit: fit).image.pixel(150, 100), red, tolerance: 24, "the photo")
        func writeOver(_ cut: Int, _ kept: Int) throws {
            let file = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            try file.truncate(atOffset: UInt64(cut))
            try file.write(contentsOf: original.prefix(kept))
            try file.close()
        }
        try writeOver(64, 0)
        XCTAssertColour(try book.render(page: 1, fit: fit).image.pixel(150, 90), black, "the bar, read after the file was cut")
        XCTAssertColour(try book.render(page: 2, fit: fit).image.pixel(25, 300), black, "the square")
        // Pages decoding while the file is written over and over (a download into it).
        let decoded = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for i in 0..<300 {
                _ = try? book.render(page: i % 3, crop: PageCrop(full: PixelSize(width: 300 + i, height: 450 + i), x: 0, y: 0, width: 100, height: 100), paperAspect: 0.66)
            }
            decoded.signal()
        }
        for i in 0..<2000 { try writeOver(i % 7 * 100, i % 5 * 1000) }
        decoded.wait()
        XCTAssertColour(try book.render(page: 1, fit: fit).image.pixel(150, 90), black, "the bar after all")
        // Pages of an indirect document are files of their own, read where they lie.
        let indirect = try DjVu.format(decodeTimeout: 10).open(try Fixtures.djvu("indirect/index.djvu"), nil)
        XCTAssertColour(try indirect.render(page: 1, fit: fit).image.pixel(150, 90), black, "an indirect document's bar")
    }

    /// Copies in memory are held to a budget together (sixteen documents stay open): a file past
    /// what is left of it is read in place, looked at without being read (sparse files, their
    /// heads a DjVu's); what a copy held is given back when it goes.
    func testCopiesInMemoryKeepToTheirBudget() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-djvu-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let book = try Fixtures.djvu("book.djvu")
        func sparse(_ bytes: Int) throws -> String {
            let path = folder + "/sparse-\(bytes).djvu"
            try Data(contentsOf: URL(fileURLWithPath: book)).prefix(64).write(to: URL(fileURLWithPath: path))
            let file = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            try file.truncate(atOffset: UInt64(bytes))
            try file.close()
            return path
        }
        let held = try XCTUnwrap(DjVuSnapshot(of: book), "a small book is copied")
        XCTAssertNil(DjVuSnapshot(of: try sparse(DjVuSnapshot.budget.bytes + 1)), "past the budget")
        withExtendedLifetime(held) {}
        let budget = DjVuSnapshot.Budget(bytes: 100)
        XCTAssertTrue(budget.reserve(60))
        XCTAssertFalse(budget.reserve(41), "past what is left")
        XCTAssertTrue(budget.reserve(40))
        budget.release(60)
        XCTAssertTrue(budget.reserve(60), "given back")
        XCTAssertFalse(budget.reserve(-1))
    }

    /// A DjVu file that fails to open leaves the next one whole: djvulibre keeps what it read by
    /// the name it opened, while anything of the file lives, and the copy of the next file, given
    /// the name the failed one had, was read as the failed one (every file after it failed).
    func testADjVuThatFailsToOpenLeavesTheNextWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-djvu-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let book = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.djvu("book.djvu")))
        for round in 0..<3 {
            // Its directory cut short: the open fails.
            try book.prefix(60).write(to: URL(fileURLWithPath: folder + "/cut-\(round).djvu"))
            XCTAssertThrowsError(try DjVu.format(decodeTimeout: 10).open(folder + "/cut-\(round).djvu", nil))
            try book.write(to: URL(fileURLWithPath: folder + "/whole-\(round).djvu"))
            let whole = try DjVu.format(decodeTimeout: 10).open(folder + "/whole-\(round).djvu", nil)
            XCTAssertEqual(whole.pageCount, 3, "round \(round)")
        }
    }

    /// A page claiming 65535 × 65535 pixels (its data is for 400 × 600): one error naming the
    /// file and the page, nothing allocated for the size it claims.
    func testAPageClaimingAnAbsurdSizeIsOneErrorNamingThePage() throws {
        let path = try Fixtures.djvu("huge.djvu")
        XCTAssertEqual(Fixtures.documents.naturalSize(PageRef.document(path, index: 0))?.width, 65535)
        XCTAssertThrowsError(try Fixtures.documents.render(PageRef.document(path, index: 0), fit: PixelSize(width: 200, height: 200))) {
            XCTAssertTrue("\($0)".hasPrefix(path + ": cannot be decoded"), "\($0)")
        }
    }

    func testAFolderMixingDjVuWithOtherDocumentsIsOneLibrary() throws {
        let dir = try Fixtures.djvu("mixed-library")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Fixtures.djvu("book.djvu"), toPath: dir + "/a.djvu")
        try FileManager.default.copyItem(atPath: try Fixtures.djvu("garbage.djvu"), toPath: dir + "/b.djv")
        try FileManager.default.copyItem(atPath: try Fixtures.path("portrait.pdf"), toPath: dir + "/c.pdf")
        let lib = Library.load(from: dir, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.books.map(\.pages.count), [3, 1, 10])
        XCTAssertEqual(lib.problems.map(\.file), [dir + "/b.djv"])
    }
}
