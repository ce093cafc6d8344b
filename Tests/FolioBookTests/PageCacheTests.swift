import FolioLibrary
import XCTest
@testable import FolioBook

final class PageCacheTests: XCTestCase {
    var loadSeconds = 0.0

    /// A folder book of `count` pages: symlinks to one small PNG, as a huge scan would be.
    func makeBook(_ count: Int, in dir: TempDir, width: Int = 40, height: Int = 60) throws -> Book {
        let page = dir.write("page.png", TestPNG.page(width: width, height: height))
        let folder = dir.mkdir("book")
        for i in 1...count { guard symlink(page, "\(folder)/p\(i).png") == 0 else { throw POSIXError(.EIO) } }
        let start = Date()
        let lib = Library.load(from: folder)
        loadSeconds = Date().timeIntervalSince(start)
        XCTAssertEqual(lib.problems, [])
        return lib.books[0]
    }

    func testFiveThousandPagesOpenAtTheMiddleWithABoundedResidentSet() throws {
        let dir = TempDir()
        let book = try makeBook(5000, in: dir)
        let opened = Date()
        XCTAssertEqual(book.pages.count, 5000)
        XCTAssertEqual((book.pages[2499] as NSString).lastPathComponent, "p2500.png")

        var settings = PageCache.Settings()
        settings.budgetBytes = 1 << 20
        let cache = PageCache(book: book, settings: settings)
        XCTAssertEqual(cache.statistics.decoded, 0, "opening reads no page")
        // Current page first, so nothing is planned around page 0 in between.
        cache.setCurrent(page: 2500)
        cache.request(pages: [2499, 2500])  // the middle spread
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        let ready = Date()
        XCTAssertNotNil(cache.image(for: 2499))
        XCTAssertNotNil(cache.image(for: 2500))
        let stats = cache.statistics
        let window = 2 + settings.ahead + settings.behind + 1
        XCTAssertLessThanOrEqual(stats.residentCount, window)
        XCTAssertLessThanOrEqual(stats.residentBytes, settings.budgetBytes)
        XCTAssertEqual(stats.residentBytes, stats.residentCount * 40 * 60 * 4)
        XCTAssertLessThanOrEqual(stats.decoded, window + settings.workers)
        let total = loadSeconds + ready.timeIntervalSince(opened)
        print("5000-page book: opened in \(loadSeconds) s, middle spread ready \(ready.timeIntervalSince(opened)) s later")
        XCTAssertLessThan(total, 3, "a few seconds at most, even in a debug build")

        // The same window over a 50-page book holds exactly as much.
        let smallDir = TempDir()
        let small = PageCache(book: try makeBook(50, in: smallDir), settings: settings)
        small.setCurrent(page: 25)
        small.request(pages: [24, 25])
        XCTAssertTrue(small.waitUntilReady(timeout: 10))
        XCTAssertEqual(small.statistics.residentCount, stats.residentCount)
        XCTAssertEqual(small.statistics.residentBytes, stats.residentBytes)
    }

    /// Two books and the GPU share one budget: what one holds, the other cannot prefetch into.
    func testOneBudgetOverEveryCacheAndTheGPU() throws {
        let dir = TempDir()
        let book = try makeBook(100, in: dir)
        let pageBytes = 40 * 60 * 4
        var settings = PageCache.Settings()
        settings.shared = MemoryBudget(limit: 8 * pageBytes)
        let first = PageCache(book: book, settings: settings)
        first.setCurrent(page: 10)
        first.request(pages: [10, 11])
        XCTAssertTrue(first.waitUntilReady(timeout: 10))
        XCTAssertEqual(first.statistics.residentBytes, 8 * pageBytes, "alone, it fills the budget")
        XCTAssertEqual(settings.shared?.used, 8 * pageBytes)
        settings.shared?.setGPUBytes(2 * pageBytes)
        let second = PageCache(book: book, settings: settings)
        second.setCurrent(page: 50)
        second.request(pages: [50, 51])
        XCTAssertTrue(second.waitUntilReady(timeout: 10))
        // Its screen loads whatever the budget; nothing more fits beside the first and the GPU.
        XCTAssertEqual(second.statistics.residentCount, 2)
        first.cancel()
        XCTAssertEqual(settings.shared?.used, 4 * pageBytes, "a cancelled cache holds nothing")
    }

    /// A cancelled cache holds nothing, keeps no decode that finishes and starts none.
    func testCancelStopsDecoding() throws {
        let dir = TempDir()
        let book = try makeBook(200, in: dir)
        var settings = PageCache.Settings()
        settings.ahead = 50
        let cache = PageCache(book: book, settings: settings)
        cache.setCurrent(page: 0)
        cache.request(pages: [0])
        cache.cancel()
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        let decoded = cache.statistics.decoded
        XCTAssertEqual(cache.statistics.residentCount, 0)
        cache.setCurrent(page: 100)
        cache.request(pages: [100])
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        XCTAssertEqual(cache.statistics.decoded, decoded)
        XCTAssertNil(cache.image(for: 100))
    }

    /// A page whose pixels were handed on stays resident without them, and is not decoded again.
    func testReleasedPixelsStayResidentUntilEvicted() throws {
        let dir = TempDir()
        let book = try makeBook(20, in: dir)
        var settings = PageCache.Settings()
        (settings.ahead, settings.behind) = (0, 0)
        let cache = PageCache(book: book, settings: settings)
        cache.setCurrent(page: 3)
        cache.request(pages: [3])
        XCTAssertTrue(cache.waitUntilResident(pages: [3], timeout: 10))
        _ = cache.drainChanges()
        cache.releasePixels(page: 3)
        XCTAssertNil(cache.image(for: 3))
        XCTAssertEqual(cache.residentPages, [3])
        XCTAssertEqual(cache.statistics.residentBytes, 0)
        XCTAssertEqual(cache.statistics.decoded, 1)
        cache.setCurrent(page: 4)
        cache.request(pages: [4])
        XCTAssertTrue(cache.waitUntilResident(pages: [4], timeout: 10))
        XCTAssertEqual(cache.drainChanges().evicted, [3], "its texture is to be freed")
        cache.setCurrent(page: 3)
        cache.request(pages: [3])
        XCTAssertTrue(cache.waitUntilResident(pages: [3], timeout: 10))
        XCTAssertNotNil(cache.image(for: 3), "decoded again once it came back")
    }

    func testBudgetLimitsPrefetchButNeverThePagesOnScreen() throws {
        let dir = TempDir()
        let book = try makeBook(100, in: dir)
        let pageBytes = 40 * 60 * 4
        var settings = PageCache.Settings()
        settings.budgetBytes = 5 * pageBytes
        settings.workers = 2
        let cache = PageCache(book: book, settings: settings)
        cache.setCurrent(page: 51)
        cache.request(pages: [50, 51])
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        XCTAssertEqual(cache.statistics.residentCount, 5)
        XCTAssertEqual(cache.statistics.residentBytes, 5 * pageBytes)
        // Forward travel: the next pages come first (51 is current, 52, 53 ahead).
        XCTAssertEqual(Set((40..<60).filter { cache.image(for: $0) != nil }), [50, 51, 52, 53, 54])

        // A budget smaller than the screen still shows the screen.
        settings.budgetBytes = pageBytes
        let tight = PageCache(book: book, settings: settings)
        tight.request(pages: [10, 11])
        XCTAssertTrue(tight.waitUntilReady(timeout: 10))
        XCTAssertNotNil(tight.image(for: 10))
        XCTAssertNotNil(tight.image(for: 11))
    }

    func testPrefetchFollowsTheDirectionOfTravelAndEvicts() throws {
        let dir = TempDir()
        let book = try makeBook(200, in: dir)
        var settings = PageCache.Settings()
        settings.ahead = 6
        settings.behind = 2
        let cache = PageCache(book: book, settings: settings)
        cache.setCurrent(page: 100)
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        XCTAssertEqual(Set(cache.drainChanges().ready.map(\.page)), Set(98...106))

        cache.setCurrent(page: 90)  // moving backwards: prefetch below
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        let resident = Set((0..<200).filter { cache.image(for: $0) != nil })
        XCTAssertEqual(resident, Set(84...92))
        let changes = cache.drainChanges()
        XCTAssertEqual(Set(changes.evicted), Set(98...106))
        XCTAssertEqual(Set(changes.ready.map(\.page)), Set(84...92))
        XCTAssertTrue(cache.drainChanges().ready.isEmpty, "drained changes are gone")
    }

    func testRapidPagingFromAnotherThreadKeepsTheInvariants() throws {
        let dir = TempDir()
        let book = try makeBook(300, in: dir)
        var settings = PageCache.Settings()
        settings.budgetBytes = 7 * 40 * 60 * 4
        let cache = PageCache(book: book, settings: settings)
        // Flip through pages much faster than they decode, from two threads at once.
        DispatchQueue.concurrentPerform(iterations: 2) { t in
            var page = 150
            for i in 0..<400 {
                page = max(0, min(299, page + (i % 7 < 5 ? 2 : -3) * (t == 0 ? 1 : -1)))
                cache.request(pages: [page, page + 1])
                cache.setCurrent(page: page)
                _ = cache.image(for: page)
                if i % 10 == 0 { _ = cache.drainChanges() }
            }
        }
        cache.request(pages: [100, 101])
        cache.setCurrent(page: 101)
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        let stats = cache.statistics
        XCTAssertLessThanOrEqual(stats.residentBytes, settings.budgetBytes)
        XCTAssertEqual(stats.loading, 0)
        let resident = Set((0..<300).filter { cache.image(for: $0) != nil })
        XCTAssertTrue(resident.isSuperset(of: [100, 101]))
        XCTAssertTrue(resident.allSatisfy { (97...109).contains($0) }, "\(resident.sorted())")
    }

    func testBrokenAndMissingPagesBecomePlaceholdersWithOneProblemEach() throws {
        let dir = TempDir()
        let good = dir.write("b/1.png", TestPNG.page())
        let corrupt = dir.write("b/2.png", Array(TestPNG.page().prefix(50)))
        let empty = dir.write("b/3.png", [])
        let missing = dir.path + "/b/4.png"
        var settings = PageCache.Settings()
        settings.ahead = 0
        settings.behind = 0
        (settings.placeholderWidth, settings.placeholderHeight) = (60, 90)
        let cache = PageCache(pages: [good, corrupt, empty, missing], settings: settings)
        cache.request(pages: [0, 1, 2, 3])
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        XCTAssertEqual(cache.image(for: 0)?.width, 16)
        let placeholder = RGBAImage.placeholder(width: settings.placeholderWidth, height: settings.placeholderHeight, kind: .broken)
        for page in 1...3 { XCTAssertEqual(cache.image(for: page), placeholder) }
        let problems = cache.drainProblems()
        XCTAssertEqual(problems.map(\.file).sorted(), [corrupt, empty, missing])
        XCTAssertTrue(problems.allSatisfy { $0.message.hasSuffix("showing a placeholder page") })
        XCTAssertTrue(problems.contains { $0.file == empty && $0.message.contains("empty") })
        XCTAssertTrue(problems.contains { $0.file == missing && $0.message.contains("No such file") })

        // Evicted and shown again: still the placeholder, no second message, no second read.
        cache.request(pages: [0])
        cache.request(pages: [0, 1, 2, 3])
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        XCTAssertEqual(cache.image(for: 2), placeholder)
        XCTAssertEqual(cache.drainProblems(), [])
        XCTAssertEqual(cache.statistics.failed, 3)
        XCTAssertEqual(cache.statistics.decoded, 4)
    }

    /// A portrait photo in a landscape album was stretched onto the album's page: it sits on
    /// white paper of the book's shape, its own shape kept.
    func testAPageOfAnotherShapeSitsOnPaperOfTheBooksShape() throws {
        let dir = TempDir()
        let folder = dir.mkdir("album")
        dir.write("album/1.png", TestPNG.page(width: 60, height: 40))
        dir.write("album/2.png", TestPNG.page(width: 20, height: 40, shade: 10))
        let book = try XCTUnwrap(Library.load(from: folder).books.first)
        XCTAssertEqual(book.pageWidth / book.pageHeight, 1.5, accuracy: 0.01)
        let cache = PageCache(book: book)
        cache.request(pages: [0, 1])
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        XCTAssertEqual(try XCTUnwrap(cache.image(for: 0)).width, 60)
        let portrait = try XCTUnwrap(cache.image(for: 1))
        XCTAssertEqual([portrait.width, portrait.height], [60, 40])
        XCTAssertEqual(portrait.pixel(30, 20).r, 10, "the photo, centred")
        XCTAssertEqual(portrait.pixel(5, 20).r, 255, "white paper beside it")
    }

    /// A book shaped 1:2000 (flip of a one-pixel-wide image) padded a 150 × 200 page to
    /// 150 × 300,000 and spent seconds scaling it back: the page shrinks before it is padded.
    func testPaperFarFromThePagesShapeStaysWithinTheMaximumSize() {
        let page = RGBAImage(width: 150, height: 200, fill: (0, 0, 255, 255))
        let start = Date()
        let paper = page.onPaper(aspect: 0.0005, maxSide: 4096)
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        XCTAssertEqual(paper.height, 4096)
        XCTAssertLessThanOrEqual(paper.width, 3)
        XCTAssertEqual(page.onPaper(aspect: 1e-300).height, 16384, "no overflow")
    }

    func testLargePagesAreScaledToTheMaximumSize() throws {
        let dir = TempDir()
        let path = dir.write("big.png", TestPNG.page(width: 300, height: 200))
        var settings = PageCache.Settings()
        settings.maxPageSize = 64
        let cache = PageCache(pages: [path], settings: settings)
        cache.request(pages: [0])
        XCTAssertTrue(cache.waitUntilReady(timeout: 10))
        let img = try XCTUnwrap(cache.image(for: 0))
        XCTAssertEqual([img.width, img.height], [64, 43])
    }
}

final class ImageOpsTests: XCTestCase {
    func testDownscaleKeepsAspectAndAverages() {
        // Black and white columns average to mid grey.
        var img = RGBAImage(width: 400, height: 200, fill: (0, 0, 0, 255))
        for y in 0..<200 { for x in stride(from: 0, to: 400, by: 2) { img.setPixel(x, y, (255, 255, 255, 255)) } }
        let small = img.scaledToFit(maxWidth: 100, maxHeight: 100)
        XCTAssertEqual([small.width, small.height], [100, 50])
        for (x, y) in [(0, 0), (50, 25), (99, 49)] {
            let p = small.pixel(x, y)
            XCTAssertEqual(Int(p.r), 128, accuracy: 1)
            XCTAssertEqual(p.a, 255)
        }
        XCTAssertEqual(img.scaledToFit(maxWidth: 400, maxHeight: 400), img, "fits already")
        // Non-integer ratio: a uniform image stays uniform.
        let odd = RGBAImage(width: 7, height: 5, fill: (10, 200, 30, 255)).scaledToFit(maxWidth: 3, maxHeight: 3)
        XCTAssertEqual([odd.width, odd.height], [3, 2])
        XCTAssertTrue(stride(from: 0, to: odd.pixels.count, by: 4).allSatisfy { Array(odd.pixels[$0..<$0 + 4]) == [10, 200, 30, 255] })
    }

    func testDownscaleDoesNotDarkenNextToTransparency() {
        var img = RGBAImage(width: 2, height: 1, fill: (0, 0, 0, 0))
        img.setPixel(0, 0, (255, 0, 0, 255))
        let p = img.scaledToFit(maxWidth: 1, maxHeight: 1).pixel(0, 0)
        XCTAssertEqual([p.r, p.g, p.b], [255, 0, 0])
        XCTAssertEqual(Int(p.a), 128, accuracy: 1)
    }

    func testRoundedCornersAreTransparentWithBlendedEdges() {
        let img = RGBAImage(width: 40, height: 30, fill: (200, 100, 50, 255)).roundingCorners(radius: 10)
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29), (1, 1)] { XCTAssertEqual(img.pixel(x, y).a, 0, "(\(x), \(y))") }
        for (x, y) in [(20, 15), (10, 0), (0, 10), (39, 15)] { XCTAssertEqual(img.pixel(x, y).a, 255, "(\(x), \(y))") }
        // Along the arc some pixels are partly covered: antialiased.
        let edge = (0..<10).map { img.pixel($0, 10 - $0 - 1).a }
        XCTAssertTrue(edge.contains { $0 > 0 && $0 < 255 }, "\(edge)")
        XCTAssertEqual(img.pixel(3, 2).r, 200, "colour is kept, only alpha changes")
        // Symmetric corners.
        XCTAssertEqual(img.pixel(2, 3).a, img.pixel(37, 26).a)
    }

    func testPlaceholdersAreRecognisable() {
        let broken = RGBAImage.placeholder(width: 120, height: 180, kind: .broken)
        let loading = RGBAImage.placeholder(width: 120, height: 180, kind: .loading)
        let centre = broken.pixel(60, 90)
        XCTAssertGreaterThan(Int(centre.r), Int(centre.g) + 60, "a red cross at the centre")
        XCTAssertEqual([loading.pixel(60, 90).r, loading.pixel(60, 90).g], [RGBAImage.paper.0, RGBAImage.paper.1])
        XCTAssertEqual(broken.pixel(0, 0).r, RGBAImage.paper.0, "paper around the frame")
        XCTAssertTrue(broken.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 }, "opaque")
    }
}
