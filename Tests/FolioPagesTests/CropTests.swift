import FolioBook
import FolioImage
import FolioLayout
import FolioMath
@testable import FolioPages
import FolioReader
import FolioScript
import Foundation
import Synchronization
import Testing

/// A vector document of three pages that renders any crop in its page's grey, counting them;
/// with `emptyInTurns` (the second format) its crops come back empty (a page with nothing
/// sharper to give, as far as the store can tell) and grey in turns, empty first.
private final class CropSource: PageSource {
    static let format = PageSourceFormat(name: "crop test", extensions: ["croptest"]) { _, _ in CropSource(emptyInTurns: false) }
    static let emptyInTurnsFormat = PageSourceFormat(name: "crop test, empty in turns", extensions: ["cropempty"]) { _, _ in
        CropSource(emptyInTurns: true)
    }
    static let renders = Atomic<Int>(0)
    static let asked = Atomic<Int>(0)
    let emptyInTurns: Bool
    let pageCount = 3
    let title: String? = nil
    var rendersCrops: Bool { true }

    init(emptyInTurns: Bool) { self.emptyInTurns = emptyInTurns }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (100, 100) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        PageRender(image: RGBAImage(width: 10, height: 10, fill: (255, 255, 255, 255)), scalable: true)
    }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        if emptyInTurns, Self.asked.add(1, ordering: .relaxed).oldValue % 2 == 0 { return nil }
        Self.renders.add(1, ordering: .relaxed)
        let grey = UInt8(60 * index)
        return RGBAImage(width: crop.width, height: crop.height, fill: (grey, grey, grey, 255))
    }
}

/// The crops of zoomed pages, held in the page store's table: rendered on its executor, kept by
/// page and scale, and let go under its one budget, the least recently shown first.
@Suite(.serialized) struct CropTests {
    let folder = Folder()
    /// Runs the crops' renderings here, when a test says so.
    let renders = ManualDecoding()
    let documents = DocumentRegistry()

    /// A store over one book: the three pages of a crop-test document, or `pages`.
    func store(pages: [PageRef]? = nil, budget: Int = 256 << 20, maxSide: Int = 4096) -> PageStore {
        PageSources.register(CropSource.format)
        let doc = folder.bytes("doc-\(UUID().uuidString).croptest", [0])
        var settings = PageStore.Settings()
        (settings.budgetBytes, settings.maxPageSize) = (budget, maxSide)
        let book = Book(title: "C", pages: pages ?? (0..<3).map { PageRef.document(doc, index: $0) }, pageWidth: 100, pageHeight: 100)
        return PageStore(library: Library(title: "C", books: [book]), documents: documents, textures: Uploads(), settings: settings,
                         executor: renders)
    }

    /// Page image `image` magnified to `scale` pixels a side, `visible` of it in view.
    func want(image: Int = 0, scale: Int, _ visible: PageRegion) -> DetailWant {
        DetailWant(item: 0, face: .page(0, PageImage(index: image).layoutPage), visible: visible,
                   scale: PixelSize(width: scale, height: scale))
    }

    /// Renders every crop asked for so far, and takes them into the table.
    func settle(_ store: PageStore) {
        renders.runAll()
        _ = store.poll()
        #expect(store.statistics.cropsRendering == 0)
    }

    /// Shows `want` until its crop is there (rendered in the background the first time).
    func shown(_ store: PageStore, _ want: DetailWant) throws -> CropRenderings.Raster {
        if let r = store.detail(for: [want])[0] { return r }
        settle(store)
        return try #require(store.detail(for: [want])[0])
    }

    /// The crops held for page image `image`.
    func held(_ store: PageStore, image: Int = 0) -> [CropRenderings.Raster] {
        store.table[.crop(book: 0, image: PageImage(index: image))]?.crops ?? []
    }

    let centre = PageRegion(x0: 0.4, y0: 0.4, x1: 0.6, y1: 0.6)

    @Test func aCropIsKeptByPageAndScaleAndCoversAMarginAroundWhatShows() throws {
        let store = store()
        let before = CropSource.renders.load(ordering: .relaxed)
        let a = want(scale: 1000, centre)
        #expect(store.detail(for: [a])[0] == nil, "nothing is there before it is rendered")
        renders.runAll()
        #expect(store.poll(), "a crop that arrived asks for a frame")
        #expect(!store.poll(), "once")
        let r = try shown(store, a)
        #expect(r.key.scale == a.scale && r.key.paper == 1)
        // The visible 200 pixels and an eighth of them beyond each side, in a transparent border.
        #expect(r.crop == PageCrop(full: PixelSize(width: 1000, height: 1000), x: 375, y: 375, width: 250, height: 250))
        #expect(r.image.width == 252)
        #expect(r.image.pixel(0, 0).a == 0 && r.image.pixel(1, 1).a == 255 && r.image.pixel(251, 100).a == 0)

        // A pan within the margin, the same page at the same scale: no rendering.
        let panned = want(scale: 1000, PageRegion(x0: 0.42, y0: 0.39, x1: 0.62, y1: 0.59))
        #expect(store.detail(for: [panned])[0]?.serial == r.serial)
        // Another scale, another page: each its own crop.
        let zoomed = try shown(store, want(scale: 1250, centre))
        let other = try shown(store, want(image: 1, scale: 1000, centre))
        #expect(zoomed.serial != r.serial)
        #expect(other.image.pixel(5, 5).r == 60)
        #expect(CropSource.renders.load(ordering: .relaxed) - before == 3)
        // Zooming back finds the first scale's crop again, now the most recently shown.
        #expect(store.detail(for: [a])[0]?.serial == r.serial)
        #expect(CropSource.renders.load(ordering: .relaxed) - before == 3)
        #expect(held(store).max { $0.used < $1.used }?.serial == r.serial)
        #expect(held(store).count == 2 && held(store, image: 1).count == 1)
        // The crops are the rows' CPU bytes: counted in the store's one budget.
        #expect(store.statistics.cpuBytes == r.byteCount + zoomed.byteCount + other.byteCount)
    }

    /// Marks set on a page after its crop was rendered (a selection, search hits): `redraw`
    /// renders the crop again, the old one shown until the new one, marked, replaces it.
    @Test func aCropIsRenderedAgainWithItsPagesMarksAndTheOldOneShowsMeanwhile() throws {
        let store = store()
        let a = want(image: 1, scale: 1000, centre)
        let plain = try shown(store, a)
        #expect(plain.image.pixel(5, 5).b == 60)
        documents.marks.select([.whole], page: 1, of: store.library.books[0].pages[1].path)
        #expect(store.detail(for: [a])[0]?.serial == plain.serial, "marks alone change nothing until the page is redrawn")
        store.redraw(book: 0, images: [PageImage(index: 1)])
        #expect(store.detail(for: [a])[0]?.serial == plain.serial, "the old crop shows while the new one renders")
        settle(store)
        let marked = try #require(store.detail(for: [a])[0])
        #expect(marked.serial != plain.serial)
        #expect(marked.image.pixel(5, 5).b < 20, "marker yellow takes the blue")
        #expect(held(store, image: 1).map(\.serial) == [marked.serial], "the stale crop is let go")
    }

    /// A rendering under way when the marks change brings a stale crop: it is shown, and
    /// rendered again.
    @Test func aCropRenderingWhenTheMarksChangeIsRenderedAgain() throws {
        let store = store()
        let a = want(image: 1, scale: 1000, centre)
        #expect(store.detail(for: [a])[0] == nil)
        store.redraw(book: 0, images: [PageImage(index: 1)])
        settle(store)
        let first = try #require(store.detail(for: [a])[0])
        #expect(first.stale)
        settle(store)
        let second = try #require(store.detail(for: [a])[0])
        #expect(!second.stale && second.serial != first.serial)
        #expect(store.statistics.cropsRendered == 2)
    }

    @Test func theLeastRecentlyShownCropGoesFirstAndTheBudgetHolds() throws {
        // Crops of 252², 277² and 302² pixels (RGBA): any two fit, not three.
        let store = store(budget: 700_000)
        let wants = [1000, 1100, 1200].map { want(scale: $0, centre) }
        let first = try shown(store, wants[0])
        let second = try shown(store, wants[1])
        // The first is shown again: the second is now the least recently shown.
        #expect(store.detail(for: [wants[0]])[0] != nil)
        let third = try shown(store, wants[2])
        #expect(held(store).map(\.serial) == [first.serial, third.serial])
        #expect(!held(store).contains { $0.serial == second.serial })
        #expect(store.statistics.cpuBytes <= 700_000 && store.statistics.crops == 2)
    }

    /// Two pages on screen over a budget too small for one crop: each keeps its crop, and
    /// neither is rendered again.
    @Test func cropsOnScreenStayWhateverTheBudget() throws {
        let store = store(budget: 1000)
        let pages = [want(image: 0, scale: 1000, centre), want(image: 1, scale: 1000, centre)]
        #expect(store.detail(for: pages).compactMap { $0 }.isEmpty)
        settle(store)
        let first = store.detail(for: pages)
        #expect(first.compactMap { $0 }.count == 2)
        settle(store)
        #expect(store.detail(for: pages).map { $0?.serial } == first.map { $0?.serial })
        #expect(store.statistics.cropsRendered == 2)
    }

    /// Room for pages is made from the crops no view shows first; a crop shown stays.
    @Test func pagesMakeRoomFromTheCropsNoViewShows() throws {
        let store = store()
        let a = try shown(store, want(image: 0, scale: 1000, centre))
        let b = try shown(store, want(image: 1, scale: 1000, centre))
        // Only page image 1 is magnified now: its crop is kept, page image 0's is spare.
        #expect(store.detail(for: [want(image: 1, scale: 1000, centre)])[0]?.serial == b.serial)
        let budget = store.settings.budgetBytes
        #expect(!store.makeRoom(budget - a.byteCount + 1, below: 0), "evicting every spare crop would not do")
        #expect(held(store).count == 1, "so none is let go")
        #expect(store.makeRoom(budget - b.byteCount, below: 0))
        #expect(held(store).isEmpty && store.table[.crop(book: 0, image: PageImage(index: 0))] == nil)
        #expect(held(store, image: 1).map(\.serial) == [b.serial])
    }

    /// A visible part larger than a crop may be is cut down around its centre, and that crop
    /// serves it from then on (it is not rendered again and again).
    @Test func aPartLargerThanACropGetsTheLargestCropOnce() throws {
        let store = store(maxSide: 100)
        let wide = want(scale: 1000, PageRegion(x0: 0.3, y0: 0.45, x1: 0.7, y1: 0.5))
        let r = try shown(store, wide)
        #expect(r.crop == PageCrop(full: PixelSize(width: 1000, height: 1000), x: 450, y: 443, width: 100, height: 64))
        #expect(store.detail(for: [wide])[0]?.serial == r.serial)
        settle(store)
        #expect(store.statistics.cropsRendered == 1)
    }

    // MARK: Through `decorate`, as a frame asks

    /// A store over a book of ten pages of the crop-test document (its three, again and again),
    /// shaped as A5.
    func zoomedStore() -> PageStore {
        PageSources.register(CropSource.format)
        let doc = folder.bytes("doc-\(UUID().uuidString).croptest", [0])
        let book = Book(title: "C", pages: (0..<10).map { PageRef.document(doc, index: $0 % 3) }, pageWidth: 100, pageHeight: 141)
        return PageStore(library: Library(title: "C", books: [book]), documents: documents, textures: Uploads(), executor: renders)
    }

    /// The book open at layout page 4, zoomed `zoom` times and panned by `pan` layout units.
    func zoomed(_ zoom: Double, pan: Vec2 = Vec2(-1400, 0)) throws -> Scene {
        var still = StillState()
        (still.book, still.page, still.zoom, still.pan) = (0, 4, zoom, pan)
        return try still.scene(library: [BookInfo(title: "C", imageCount: 10)])
    }

    /// How many crops `decorate` draws over `scene`.
    func drawn(_ store: PageStore, _ scene: Scene) -> Int {
        store.decorate(scene, width: 1920, height: 1080, wait: nil).scene.items.count - scene.items.count
    }

    func step(_ store: PageStore) {
        renders.runAll()
        _ = store.poll()
    }

    /// Marks change while a crop is drawn, and the view moves on before its fresh crop comes:
    /// the stale crop is drawn until one serving the new view comes, never the page alone.
    @Test func theStaleCropDrawnStaysUntilOneServingTheViewComes() throws {
        let store = zoomedStore()
        let near = try zoomed(8), nearer = try zoomed(10)
        #expect(drawn(store, near) == 0)
        step(store)
        #expect(drawn(store, near) == 1)
        let image = try #require(store.table.keys.first { $0.isCrop }.flatMap { key -> PageImage? in
            guard case let .crop(_, image) = key else { return nil }
            return image
        })
        store.redraw(book: 0, images: [image])
        #expect(drawn(store, near) == 1, "the stale crop is drawn while the fresh one renders")
        #expect(drawn(store, nearer) == 1, "and while the new view's waits behind it")
        step(store)
        #expect(drawn(store, nearer) == 1, "the fresh crop of the view before does not take it away")
        step(store)
        #expect(drawn(store, nearer) == 1)
        #expect(store.statistics.cropsRendered == 3)
    }

    /// Zoomed out, a page's crop lets its texture go and keeps its pixels: zoomed in again, it
    /// goes up again without being rendered again, as it does after the textures are lost.
    @Test func aCropOutOfViewKeepsItsPixelsNotItsTexture() throws {
        let store = zoomedStore()
        let near = try zoomed(8)
        _ = drawn(store, near)
        step(store)
        #expect(drawn(store, near) == 1)
        let row = try #require(store.table.keys.first { $0.isCrop })
        #expect(store.table[row]!.gpuBytes > 0)
        let whole = try zoomed(1, pan: .zero)
        #expect(drawn(store, whole) == 0)
        #expect(store.table[row]!.gpuBytes == 0 && store.table[row]!.textureVersion == 0)
        #expect(drawn(store, near) == 1)
        store.texturesLost()
        #expect(drawn(store, near) == 1)
        #expect(store.table[row]!.gpuBytes > 0 && store.statistics.cropsRendered == 1)
        #expect(store.statistics.cpuBytes == store.table[row]!.crops.reduce(0) { $0 + $1.byteCount })
    }

    /// A book laid out again while its crop renders: that crop is dropped, and the new layout's
    /// is drawn.
    @Test func aCropOfTheLayoutBeforeIsNeverDrawn() throws {
        let store = zoomedStore()
        let near = try zoomed(8)
        _ = drawn(store, near)
        store.relaid(book: 0, in: store.library, mapping: PageMapping(pageCount: 10, pages: Array(0..<10)))
        #expect(drawn(store, near) == 0)
        step(store)
        #expect(store.table.keys.filter(\.isCrop).isEmpty, "the crop of the layout before is dropped")
        #expect(store.statistics.cropsRendering == 1, "the new layout's renders")
        step(store)
        #expect(drawn(store, near) == 1)
    }

    /// A page that gave no crop is not asked again in its layout; one whose crop of the layout
    /// before came back empty is asked again in the new one.
    @Test func aPageThatGaveNoCropIsNotAskedAgainInItsLayout() throws {
        PageSources.register(CropSource.emptyInTurnsFormat)
        let doc = folder.bytes("doc-\(UUID().uuidString).cropempty", [0])
        let store = store(pages: (0..<3).map { PageRef.document(doc, index: $0) })
        let w = want(scale: 1000, centre)
        #expect(store.detail(for: [w])[0] == nil)
        store.relaid(book: 0, in: store.library, mapping: PageMapping(pageCount: 3, pages: Array(0..<3)))
        settle(store)
        #expect(store.detail(for: [w])[0] == nil && renders.count == 1, "empty in the layout before: asked again")
        settle(store)
        #expect(store.detail(for: [w])[0] != nil)
        let other = want(image: 1, scale: 1000, centre)
        #expect(store.detail(for: [other])[0] == nil)
        settle(store)
        #expect(store.detail(for: [other])[0] == nil && renders.count == 0, "empty in this layout: not asked again")
    }

    @Test func bitmapPagesGetNoCrop() throws {
        let png = folder.png("page.png", width: 40, height: 60)
        let store = store(pages: [.image(png)])
        let w = want(scale: 1200, centre)
        #expect(store.detail(for: [w])[0] == nil)
        settle(store)
        #expect(store.detail(for: [w])[0] == nil)
        #expect(store.statistics.cropsRendered == 0 && renders.count == 0)
    }
}
