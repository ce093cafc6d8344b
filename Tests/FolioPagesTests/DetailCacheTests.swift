import FolioBook
import FolioImage
@testable import FolioPages
import Foundation
import Synchronization
import XCTest

/// A vector document of three pages that renders any crop in its page's grey, counting them.
private final class CropSource: PageSource {
    static let renders = Atomic<Int>(0)
    let pageCount = 3
    let title: String? = nil
    var rendersCrops: Bool { true }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (100, 100) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        PageRender(image: RGBAImage(width: 10, height: 10, fill: (255, 255, 255, 255)), scalable: true)
    }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        Self.renders.add(1, ordering: .relaxed)
        let grey = UInt8(60 * index)
        return RGBAImage(width: crop.width, height: crop.height, fill: (grey, grey, grey, 255))
    }
}

final class DetailCacheTests: XCTestCase {
    static let format = PageSourceFormat(name: "crop test", extensions: ["croptest"]) { _, _ in CropSource() }

    /// A document file of the test format (its content is never read).
    private func document(in dir: Folder) -> String {
        PageSources.register(Self.format)
        return dir.bytes("doc-\(UUID().uuidString).croptest", [0])
    }

    private func want(_ doc: String, page: Int = 0, scale: Int, _ visible: PageRegion) -> DetailCache.Want {
        DetailCache.Want(key: .init(page: PageRef.document(doc, index: page), paper: 1, scale: PixelSize(width: scale, height: scale)),
                         visible: visible)
    }

    /// Runs the crops' renderings here, when a test says so.
    private let renders = ManualDecoding()

    /// Renders every crop asked for so far: none is left in flight.
    private func settle(_ cache: DetailCache) {
        renders.runAll()
        XCTAssertEqual(cache.statistics.loading, 0)
    }

    /// Shows `want` until its crop is there (rendered in the background the first time).
    private func shown(_ cache: DetailCache, _ want: DetailCache.Want) throws -> DetailCache.Raster {
        if let r = cache.show([want])[0] { return r }
        settle(cache)
        return try XCTUnwrap(cache.show([want])[0])
    }

    private let centre = PageRegion(x0: 0.4, y0: 0.4, x1: 0.6, y1: 0.6)

    func testACropIsKeptByPageAndScaleAndCoversAMarginAroundWhatShows() throws {
        let dir = Folder()
        let doc = document(in: dir)
        let cache = DetailCache(documents: DocumentRegistry(), executor: renders)
        let before = CropSource.renders.load(ordering: .relaxed)
        let a = want(doc, scale: 1000, centre)
        XCTAssertNil(cache.show([a])[0], "nothing is there before it is rendered")
        let r = try shown(cache, a)
        XCTAssertEqual(r.key, a.key)
        // The visible 200 pixels and an eighth of them beyond each side, in a transparent border.
        XCTAssertEqual(r.crop, PageCrop(full: PixelSize(width: 1000, height: 1000), x: 375, y: 375, width: 250, height: 250))
        XCTAssertEqual(r.image.width, 252)
        XCTAssertEqual(r.image.pixel(0, 0).a, 0)
        XCTAssertEqual(r.image.pixel(1, 1).a, 255)
        XCTAssertEqual(r.image.pixel(251, 100).a, 0)

        // A pan within the margin, the same page at the same scale: no rendering.
        let panned = want(doc, scale: 1000, PageRegion(x0: 0.42, y0: 0.39, x1: 0.62, y1: 0.59))
        XCTAssertEqual(cache.show([panned])[0]?.serial, r.serial)
        // Another scale, another page: each its own crop.
        let zoomed = try shown(cache, want(doc, scale: 1250, centre))
        let other = try shown(cache, want(doc, page: 1, scale: 1000, centre))
        XCTAssertNotEqual(zoomed.serial, r.serial)
        XCTAssertEqual(other.image.pixel(5, 5).r, 60)
        XCTAssertEqual(CropSource.renders.load(ordering: .relaxed) - before, 3)
        // Zooming back finds the first scale's crop again.
        XCTAssertEqual(cache.show([a])[0]?.serial, r.serial)
        XCTAssertEqual(CropSource.renders.load(ordering: .relaxed) - before, 3)
        XCTAssertEqual(cache.keys.last, a.key, "now the most recently used")
    }

    /// Marks set on a page after its crop was rendered (a selection, search hits): `redraw`
    /// renders the crop again, the old one shown until the new one, marked, replaces it.
    func testACropIsRenderedAgainWithItsPagesMarksAndTheOldOneShowsMeanwhile() throws {
        let dir = Folder()
        let doc = document(in: dir)
        let documents = DocumentRegistry()
        let cache = DetailCache(documents: documents, executor: renders)
        let a = want(doc, page: 1, scale: 1000, centre)
        let plain = try shown(cache, a)
        XCTAssertEqual(plain.image.pixel(5, 5).b, 60)
        documents.marks.select([.whole], page: 1, of: doc)
        XCTAssertEqual(cache.show([a])[0]?.serial, plain.serial, "marks alone change nothing until the page is redrawn")
        cache.redraw(pages: [a.key.page])
        XCTAssertEqual(cache.show([a])[0]?.serial, plain.serial, "the old crop shows while the new one renders")
        settle(cache)
        let marked = try XCTUnwrap(cache.show([a])[0])
        XCTAssertNotEqual(marked.serial, plain.serial)
        XCTAssertLessThan(marked.image.pixel(5, 5).b, 20, "marker yellow takes the blue")
        XCTAssertEqual(cache.keys, [a.key], "the stale crop is let go")
    }

    func testTheLeastRecentlyUsedCropGoesFirstAndTheBudgetHolds() throws {
        let dir = Folder()
        let doc = document(in: dir)
        var settings = DetailCache.Settings()
        // Crops of 252², 277² and 302² pixels (RGBA): any two fit, not three.
        settings.budgetBytes = 700_000
        let cache = DetailCache(documents: DocumentRegistry(), executor: renders, settings: settings)
        let wants = [1000, 1100, 1200].map { want(doc, scale: $0, centre) }
        _ = try shown(cache, wants[0])
        _ = try shown(cache, wants[1])
        // The first is used again: the second is now the least recently used.
        XCTAssertNotNil(cache.show([wants[0]])[0])
        _ = try shown(cache, wants[2])
        XCTAssertEqual(cache.keys, [wants[0].key, wants[2].key])
        let stats = cache.statistics
        XCTAssertLessThanOrEqual(stats.bytes, settings.budgetBytes)
        XCTAssertEqual(stats.count, 2)
    }

    /// Two pages on screen over a budget too small for one crop: each keeps its crop, and
    /// neither is rendered again.
    func testCropsOnScreenStayWhateverTheBudget() throws {
        let dir = Folder()
        let doc = document(in: dir)
        var settings = DetailCache.Settings()
        settings.budgetBytes = 1000
        let cache = DetailCache(documents: DocumentRegistry(), executor: renders, settings: settings)
        let pages = [want(doc, page: 0, scale: 1000, centre), want(doc, page: 1, scale: 1000, centre)]
        XCTAssertEqual(cache.show(pages).compactMap { $0 }.count, 0)
        settle(cache)
        let first = cache.show(pages)
        XCTAssertEqual(first.compactMap { $0 }.count, 2)
        settle(cache)
        XCTAssertEqual(cache.show(pages).map { $0?.serial }, first.map { $0?.serial })
        XCTAssertEqual(cache.statistics.rendered, 2)
    }

    /// A visible part larger than a crop may be is cut down around its centre, and that crop
    /// serves it from then on (it is not rendered again and again).
    func testAPartLargerThanACropGetsTheLargestCropOnce() throws {
        let dir = Folder()
        let doc = document(in: dir)
        var settings = DetailCache.Settings()
        settings.maxSide = 100
        let cache = DetailCache(documents: DocumentRegistry(), executor: renders, settings: settings)
        let wide = want(doc, scale: 1000, PageRegion(x0: 0.3, y0: 0.45, x1: 0.7, y1: 0.5))
        let r = try shown(cache, wide)
        XCTAssertEqual(r.crop, PageCrop(full: PixelSize(width: 1000, height: 1000), x: 450, y: 443, width: 100, height: 64))
        XCTAssertEqual(cache.show([wide])[0]?.serial, r.serial)
        settle(cache)
        XCTAssertEqual(cache.statistics.rendered, 1)
    }

    func testBitmapPagesGetNoCrop() throws {
        let dir = Folder()
        let png = dir.png("page.png", width: 40, height: 60)
        let cache = DetailCache(documents: DocumentRegistry(), executor: renders)
        let w = DetailCache.Want(key: .init(page: .image(png), paper: 1, scale: PixelSize(width: 800, height: 1200)), visible: centre)
        XCTAssertNil(cache.show([w])[0])
        settle(cache)
        XCTAssertNil(cache.show([w])[0])
        settle(cache)
        XCTAssertEqual(cache.statistics.rendered, 0)
        XCTAssertEqual(cache.statistics.loading, 0)
    }
}
