import FolioBook
import FolioLayout
import FolioMath
import Foundation

/// The image each face shows, for every command: covers and pages are decoded on background
/// threads, so asking never blocks a frame.
///
/// Covers come from one `PageCache` over the library's cover images; the pages of a book from
/// a `PageCache` of its own, made when its pages are first shown (opening a book reads only
/// the pages shown) and dropped when none are shown any more. Each frame, `show(_:)` tells
/// the caches what is on screen and where the reader is, so they load those faces first and
/// prefetch ahead in the reading direction; `image(for:)` answers at once, nil while a face
/// is loading (the renderer draws paper and asks again next frame).
///
/// A zoomed view magnifying a vector page beyond the largest image a whole page gets asks for
/// the part it shows (`detail(for:)`), rasterised at the scale shown by a `DetailCache` over
/// every book (a quarter of the budget).
///
/// Threading: one thread (the render thread) uses it; only `onChange` is called from
/// decoding threads. The viewer wakes its event loop there; headless commands instead
/// `waitUntilReady(faces:timeout:)` before they draw.
public final class FaceImages {
    /// What happened since the last `drainChanges()`.
    public struct Changes: Sendable {
        /// Images of faces on screen (as last shown) became available: faces drawn as paper
        /// can now show them, or a crop of a zoomed page is ready. Prefetched pages arriving
        /// do not count.
        public var arrived = false
        /// Images were let go: free the textures of faces outside `residentFaces`.
        public var evicted = false
        /// Faces with a new image, on screen or not: a texture made from an earlier one (a
        /// preview, a rendering for a smaller display) is out of date.
        public var ready: Set<FaceContent> = []
    }

    public let library: Library
    /// Settings of each book's page cache (the covers' cache holds a quarter of the budget and
    /// prefetches at most 4 covers either way).
    public let settings: PageCache.Settings
    /// `settings.budgetBytes` over every book's pages and the covers together; the host adds
    /// the bytes of the textures it made from them (`MemoryBudget.setGPUBytes`).
    public let budget: MemoryBudget
    /// The height of the largest image a whole vector page gets: shown higher, it needs crops.
    public let largestWholePage: Int
    private let notifier: Notifier
    private let covers: PageCache
    private let crops: DetailCache
    /// Each book's slot in `covers.pages`, and the book of each slot; a book with no image at
    /// all has no slot.
    private let coverSlot: [Int: Int]
    private let coverBook: [Int]
    private var coversPosition = Position()
    private var readers: [Int: (cache: PageCache, position: Position)] = [:]
    /// Pixel height pages are shown at (`PageCache.setDisplayHeight`).
    private var displayHeight: Int
    /// The image sources of the faces last shown.
    private var onScreen: Set<Source> = []
    /// A book's cache was dropped since the last `drainChanges()`.
    private var dropped = false
    /// Problems already reported: a book without a cover shows its first page as the cover, and
    /// both caches may meet the same broken file.
    private var reported: Set<String> = []

    /// Images of `library`'s faces; nothing is read until a face is shown. Pages larger than
    /// `maxTextureSize` (GL_MAX_TEXTURE_SIZE; 0 for no limit) or `settings.maxPageSize` are
    /// scaled down. `onChange` is called on a decoding thread whenever new images are ready.
    public init(library: Library, maxTextureSize: Int = 0, settings: PageCache.Settings = .init(),
                onChange: (@Sendable () -> Void)? = nil) {
        var s = settings
        if maxTextureSize > 0 { s.maxPageSize = min(s.maxPageSize, maxTextureSize) }
        budget = MemoryBudget(limit: s.budgetBytes)
        s.shared = budget
        self.library = library
        self.settings = s
        displayHeight = s.displayHeight
        notifier = Notifier(onChange)
        var slots: [Int: Int] = [:], books: [Int] = [], paths: [String] = []
        for b in library.books.indices {
            guard let path = PageImages.path(for: .cover(b), in: library) else { continue }
            slots[b] = paths.count
            books.append(b)
            paths.append(path)
        }
        coverSlot = slots
        coverBook = books
        // The shelf scrolls both ways and shows few covers: a small, symmetric window (none when
        // the pages get none).
        var c = s
        c.budgetBytes = s.budgetBytes / 4
        c.ahead = min(s.ahead, 4)
        c.behind = c.ahead
        covers = PageCache(pages: paths, settings: c, onChange: notifier.callback)
        var d = DetailCache.Settings()
        d.budgetBytes = s.budgetBytes / 4
        d.shared = budget
        d.maxSide = s.maxPageSize
        largestWholePage = s.wholePageHeight > 0 ? min(s.wholePageHeight, s.maxPageSize) : s.maxPageSize
        crops = DetailCache(settings: d, onChange: notifier.callback)
    }

    /// The image of `face`, or nil while it loads, for a face not shown, and for faces without
    /// an image (endpapers, blanks, pages past the last). Never blocks.
    public func image(for face: FaceContent) -> RGBAImage? {
        switch source(of: face) {
        case let .cover(slot)?: covers.image(for: slot)
        case let .page(book, page)?: readers[book]?.cache.image(for: page)
        case nil: nil
        }
    }

    /// Pages are shown `height` pixels high now (the window was resized, the reader zoomed):
    /// vector pages are rendered again for it in the background.
    public func setDisplayHeight(_ height: Int) {
        guard height != displayHeight else { return }
        displayHeight = height
        covers.setDisplayHeight(height)
        for reader in readers.values { reader.cache.setDisplayHeight(height) }
    }

    /// Tells the caches what `scene` shows: those faces load first, the reader's position steers
    /// prefetching, and the caches of books no longer shown are dropped. Call it before drawing.
    public func show(_ scene: Scene) {
        let faces = scene.shownFaces
        onScreen = Set(faces.compactMap(source))
        let wanted = group(faces)
        // A book no longer shown (closed, or left for another) stops decoding at once.
        for book in readers.keys where wanted.pages[book] == nil {
            readers.removeValue(forKey: book)?.cache.cancel()
            dropped = true
        }
        for (book, pages) in wanted.pages {
            let cache = readers[book]?.cache ?? newCache(book)
            var position = readers[book]?.position ?? Position()
            // The lowest page shown: it rises as the reader goes forward and falls going back.
            position.move(cache, to: pages.min()!, showing: pages)
            readers[book] = (cache, position)
        }
        // With no cover shown (reading) the covers stay as they were, ready for the return to
        // the shelf; a capture of a page reads no cover at all.
        guard !wanted.covers.isEmpty else { return }
        coversPosition.move(covers, to: wanted.covers.sorted()[wanted.covers.count / 2], showing: wanted.covers)
    }

    private func newCache(_ book: Int) -> PageCache {
        var s = settings
        s.displayHeight = displayHeight
        return PageCache(book: library.books[book], settings: s, onChange: notifier.callback)
    }

    /// For each of `wants`, the crop of its page ready to draw over it (`SceneItem.detail`):
    /// a crop of its scale covering its visible part; nil while none does (one is rendered in
    /// the background) and for pages that have nothing sharper to give (bitmaps). Never blocks.
    public func detail(for wants: [DetailWant]) -> [DetailCache.Raster?] {
        var asked: [DetailCache.Want] = [], index: [Int?] = []
        for want in wants {
            guard let path = PageImages.path(for: want.face, in: library), PageSources.rendersCrops(path) else {
                index.append(nil)
                continue
            }
            index.append(asked.count)
            // A page lies on its book's paper, as its page cache puts it there.
            let book = library.books[want.face.book]
            asked.append(DetailCache.Want(key: .init(page: path, paper: book.pageWidth / book.pageHeight, scale: want.scale),
                                          visible: want.visible))
        }
        let rasters = crops.show(asked)
        return index.map { $0.flatMap { rasters[$0] } }
    }

    /// Blocks until no crop is rendering, or `timeout` passes; true if none is. For headless
    /// commands, after `detail(for:)`.
    public func waitForDetail(timeout: TimeInterval) -> Bool { crops.waitUntilIdle(timeout: timeout) }

    /// Blocks until every face of `faces` that has an image is loaded (shown first with
    /// `show(_:)`), or `timeout` passes; true if they all are. For headless commands: capture
    /// draws real pages, never placeholders. Never call it for a frame on screen.
    public func waitUntilReady(faces: [FaceContent], timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        let wanted = group(faces)
        var ready = covers.waitUntilResident(pages: wanted.covers, timeout: deadline.timeIntervalSinceNow)
        for (book, pages) in wanted.pages {
            guard let cache = readers[book]?.cache else { return false }
            ready = cache.waitUntilResident(pages: pages, timeout: deadline.timeIntervalSinceNow) && ready
        }
        return ready
    }

    /// Whether images arrived or were let go since the last call. Call it once per frame.
    public func drainChanges() -> Changes {
        var changes = Changes(arrived: crops.drainArrived(), evicted: dropped)
        dropped = false
        // Each cache with the source and the faces of its pages.
        let coverFaces = { [coverBook] (slot: Int) -> [FaceContent] in [.cover(coverBook[slot]), .page(coverBook[slot], 0)] }
        let caches = [(covers, Source.cover, coverFaces)]
            + readers.map { book, reader in (reader.cache, { Source.page(book: book, page: $0) }, { [FaceContent.page(book, $0 + 2)] }) }
        for (cache, source, faces) in caches {
            let c = cache.drainChanges()
            changes.arrived = changes.arrived || c.ready.contains { onScreen.contains(source($0.page)) }
            changes.evicted = changes.evicted || !c.evicted.isEmpty
            for r in c.ready { changes.ready.formUnion(faces(r.page)) }
        }
        return changes
    }

    /// The faces whose images are held now: textures of other faces can be freed.
    public var residentFaces: Set<FaceContent> {
        var faces: Set<FaceContent> = []
        for slot in covers.residentPages {
            // The closed book's cover and its front cover when open show the same image.
            faces.insert(.cover(coverBook[slot]))
            faces.insert(.page(coverBook[slot], 0))
        }
        for (book, reader) in readers {
            for page in reader.cache.residentPages { faces.insert(.page(book, page + 2)) }
        }
        return faces
    }

    /// Lets go of the pixels of `face`'s page once they are uploaded: the page stays resident
    /// (its texture is kept) but `image(for:)` is nil. Covers keep theirs: two faces (the
    /// closed book's and the open book's front cover) show one image.
    public func releasePixels(of face: FaceContent) {
        guard case let .page(book, page)? = source(of: face) else { return }
        readers[book]?.cache.releasePixels(page: page)
    }

    /// Renders images `pages` of `book` again where they are held (their marks changed), the
    /// old images shown until the new ones come.
    public func redraw(book: Int, pages: Set<Int>) {
        readers[book]?.cache.redraw(pages: pages)
    }

    /// Decodes again the pages whose pixels were released (their textures were lost).
    public func reloadReleased() {
        for reader in readers.values { reader.cache.reloadReleased() }
    }

    /// Bad image files met since the last call, one problem per file; each shows as a
    /// broken-page placeholder.
    public func drainProblems() -> [Problem] {
        ([covers] + readers.values.map(\.cache)).flatMap { $0.drainProblems() }
            .filter { reported.insert($0.description).inserted }
    }

    /// Stops calling `onChange` (before whatever it wakes goes away) and stops decoding: decodes
    /// in flight finish unannounced and are thrown away.
    public func close() {
        notifier.stop()
        for reader in readers.values { reader.cache.cancel() }
        covers.cancel()
        crops.cancel()
    }

    // MARK: Faces to cache slots

    private enum Source: Hashable {
        /// A slot of the covers' cache.
        case cover(Int)
        /// A book's page image index.
        case page(book: Int, page: Int)
    }

    /// Where a face's image comes from; nil for faces without one. `PageImages` decides which
    /// faces have an image: a page's is its image index, any other is the book's cover.
    private func source(of face: FaceContent) -> Source? {
        guard PageImages.path(for: face, in: library) != nil else { return nil }
        if let page = face.imageIndex { return .page(book: face.book, page: page) }
        return coverSlot[face.book].map(Source.cover)
    }

    /// `faces` as cover slots and page indices per book, each once, in the order given.
    private func group(_ faces: [FaceContent]) -> (covers: [Int], pages: [Int: [Int]]) {
        var covers: [Int] = [], pages: [Int: [Int]] = [:], seen: Set<Source> = []
        for face in faces {
            guard let s = source(of: face), seen.insert(s).inserted else { continue }
            switch s {
            case let .cover(slot): covers.append(slot)
            case let .page(book, page): pages[book, default: []].append(page)
            }
        }
        return (covers, pages)
    }
}

extension Scene {
    /// The faces drawn with an image: those of visible items other than page blocks and desk
    /// shadows (a cover board shows its cover's colour), in scene
    /// order, each once.
    public var shownFaces: [FaceContent] {
        var seen: Set<FaceContent> = []
        return items.filter(\.showsImage)
            .flatMap(\.faces)
            .filter { seen.insert($0).inserted }
    }
}

/// What a cache was last told. A cache replans on every call, and replanning retries the pages
/// its budget refused: an unchanged scene must not tell it again each frame.
private struct Position {
    private var current: Int?
    private var pages: [Int] = []

    mutating func move(_ cache: PageCache, to current: Int, showing pages: [Int]) {
        guard current != self.current || pages != self.pages else { return }
        (self.current, self.pages) = (current, pages)
        cache.setCurrent(page: current)
        cache.request(pages: pages)
    }
}

/// `onChange`, until stopped. Called under its lock, so once `stop()` returns no call is
/// running or will start.
private final class Notifier: @unchecked Sendable {
    // @unchecked: `onChange` is guarded by `lock`.
    private let lock = NSLock()
    private var onChange: (@Sendable () -> Void)?

    init(_ onChange: (@Sendable () -> Void)?) { self.onChange = onChange }

    var callback: @Sendable () -> Void {
        { [self] in lock.withLock { onChange?() } }
    }

    func stop() { lock.withLock { onChange = nil } }
}

extension Scene {
    /// The height in pixels of the tallest face drawn with an image in a `width` × `height`
    /// frame (zoom and perspective included), rounded up to a step of a geometric series
    /// (×1.25) so that an animation does not re-render pages at every frame: the height
    /// `FaceImages.setDisplayHeight` wants. Nil when no such face shows.
    public func displayHeight(width: Int, height: Int) -> Int? {
        let camera = camera.fitted(width: width, height: height)
        let pixelsPerUnit = Double(height) / camera.viewSize.y
        var tallest = 0.0
        for item in items where item.showsImage {
            for x in [0, item.size.x] {
                let top = camera.projectToView(item.model.project(Vec3(x, item.size.y / 2, 0)))
                let bottom = camera.projectToView(item.model.project(Vec3(x, -item.size.y / 2, 0)))
                let h = ((top - bottom) * (top - bottom)).sum().squareRoot() * pixelsPerUnit
                if h.isFinite { tallest = max(tallest, h) }
            }
        }
        guard tallest >= 1 else { return nil }
        return geometricStep(tallest)
    }
}
