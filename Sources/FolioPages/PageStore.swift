import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import Foundation

/// Where a face's image comes from: the rule of which face shows which image, written once.
/// Page numbering (docs/behaviour.md §3): page 0 is the cover, page 1 the inside of the cover
/// (a blank endpaper), page j + 2 the book's image j (`FaceContent.imageIndex`); pages past
/// the last image are blank paper.
public enum PageKey: Sendable, Hashable {
    /// A book's cover image: the closed book's cover and the open book's front cover show it.
    case cover(book: Int)
    /// Image `index` of a book's pages.
    case page(book: Int, index: Int)
    /// The crop of image `index` drawn over it while a zoomed view magnifies it (face
    /// `.detail`); its rows hold a `DetailCache.Raster` on the GPU.
    case crop(book: Int, index: Int)

    /// The image `face` shows in `library`; nil for faces without one (endpapers, blanks,
    /// pages past the last, a book with no image at all).
    public init?(_ face: FaceContent, in library: Library) {
        guard library.books.indices.contains(face.book) else { return nil }
        let book = library.books[face.book]
        switch face.kind {
        case .cover where book.coverImage != nil: self = .cover(book: face.book)
        case .page where face.page == 0 && book.coverImage != nil: self = .cover(book: face.book)
        case .page:
            guard let j = face.imageIndex, book.pages.indices.contains(j) else { return nil }
            self = .page(book: face.book, index: j)
        default: return nil
        }
    }

    public var book: Int {
        switch self {
        case let .cover(b), let .page(b, _), let .crop(b, _): b
        }
    }

    var isCrop: Bool {
        if case .crop = self { return true }
        return false
    }

    /// The faces that show it.
    public var faces: [FaceContent] {
        switch self {
        case let .cover(b): [.cover(b), .page(b, 0)]
        case let .page(b, j): [.page(b, j + 2)]
        case let .crop(b, j): [.detail(b, j + 2)]
        }
    }

    /// Its page image.
    func page(in library: Library) -> PageRef? {
        switch self {
        case let .cover(b): library.books[b].coverImage
        case let .page(b, j), let .crop(b, j): library.books[b].pages[j]
        }
    }
}

/// Where the store puts images for the GPU: implemented over GL textures by the frame
/// pipeline, by a recorder in tests. The store decides what goes up and what is freed.
public protocol PageTextures: AnyObject {
    /// Makes `image` the texture of `face` (replacing any); returns the bytes it holds.
    /// `mipmaps` false: it is shown at most a little smaller than it is (a crop).
    func upload(_ image: RGBAImage, for face: FaceContent, mipmaps: Bool) -> Int
    /// Frees the texture of `face`, if it has one.
    func remove(_ face: FaceContent)
    /// Gives `face`'s texture to `other` (freeing any `other` had): the same image is now
    /// another page (a book laid out again).
    func move(_ face: FaceContent, to other: FaceContent)
}

/// Supplies page images from memory for books that have no files (or whose files the host
/// reads itself): generated pages, a network source, a document decoder of the host's own.
public protocol PageContentSource: AnyObject {
    /// Whether the source supplies every image of book `book`: its files are then never read.
    func suppliesImages(ofBook book: Int) -> Bool
    /// The image `face` shows (`.cover(b)`, which the open book's front cover shows too, or
    /// `.page(b, n)` with image index `n − 2`), or nil to show paper for now. Called on the
    /// render thread when the face is on screen and has no texture: return an image already in
    /// memory, and call `FramePipeline.contentChanged()` when later ones are ready.
    func image(for face: FaceContent) -> RGBAImage?
}

/// One page image in the store: which image it holds (`version`, new with each decode), which
/// one its textures were made from, and the bytes it holds on each side, counted where they
/// are allocated.
public struct Residency: Sendable {
    public enum State: Sendable, Equatable {
        /// Decoded; no texture made from it yet.
        case decoded
        /// Its textures show the image decoded last.
        case uploaded
        /// Its textures show an earlier image (a preview, a rendering for a smaller display):
        /// drawn until the new one goes up.
        case stale
    }

    public var version: Int
    /// The version the textures were made from; 0 while there are none.
    public var textureVersion = 0
    public var cpuBytes = 0
    public var gpuBytes = 0
    /// The decoded pixels, until they are let go after the upload (the viewer).
    public internal(set) var image: RGBAImage?
    /// The display height a scalable page was rendered for (a larger one renders it again).
    var renderedFor: Int?
    /// The height of the image its textures were made from.
    var textureHeight = 0
    /// A crop's raster (its pixels are the crop cache's).
    var raster: DetailCache.Raster?

    public var state: State {
        textureVersion == 0 ? .decoded : textureVersion == version ? .uploaded : .stale
    }

    public var bytes: Int { cpuBytes + gpuBytes }
}

/// The single owner of every page image's life: face → file → decode (in the background,
/// cancellable, through an injected `DecodeExecutor`) → image → texture (`PageTextures`) →
/// eviction, with one residency table and one call per frame (`prepare`).
///
/// What it holds: the images on screen, whatever the budget; around the reader's page,
/// `ahead` pages in the direction of travel and `behind` the other way; around the covers
/// shown, a few either way; all under `budgetBytes`, decoded and uploaded bytes alike. A page
/// not shown yet is first rendered small (`previewHeight`), then sharp; shown larger later, it
/// is rendered again, the old texture drawn until the new one goes up.
///
/// Crops of zoomed vector pages are rendered by a `DetailCache` the store holds and go up as
/// rows of the same table (`decorate`).
///
/// Threading: one thread (the render thread) calls it; decodes run on the executor and post
/// their results, which the next call takes. `onChange` is called on a worker when a decode
/// finishes (the viewer wakes its loop). Does not: draw, know GL, or decide what is shown.
public final class PageStore {
    public struct Settings: Sendable {
        /// Bytes of decoded and uploaded images kept at most. Images on screen are always
        /// loaded, even if they alone exceed it.
        public var budgetBytes = 256 << 20
        /// Pages larger than this (either side) are scaled down to fit: `GL_MAX_TEXTURE_SIZE`,
        /// or lower for a page-resolution limit.
        public var maxPageSize = 4096
        /// Pixel height pages are shown at (0: `maxPageSize`) until `setDisplayHeight`.
        public var displayHeight = 1080
        /// Vector pages are rasterised whole at most this high (0: `maxPageSize`); shown
        /// larger, crops of the part in view are drawn over them (`detail(for:)`).
        public var wholePageHeight = 0
        /// A vector page (or a large photo) not shown yet is first rendered this many pixels
        /// high (0: never), then sharp.
        public var previewHeight = 192
        /// Pages prefetched in the direction of reading, and kept behind it.
        public var ahead = 8
        public var behind = 4
        /// Decodes at once: two at least, so that one slow page does not hold back the rest.
        public var workers = max(2, min(4, ProcessInfo.processInfo.activeProcessorCount - 1))
        /// Header dimensions refused outright (before any allocation).
        public var maxPixels = PNG.defaultMaxPixels
        /// Decoded images are let go once their textures are made (the viewer); kept, a
        /// texture lost is made again without decoding (captures).
        public var releasesPixels = true
        /// Where pixels let go (uploaded or evicted) are kept for the next pages to be drawn
        /// into: the engines draw into `PixelPool.shared`.
        public var pixels = PixelPool.shared

        public init() {}
    }

    /// Counters for tests, benchmarks and `folio bench`.
    public struct Stats: Sendable, Equatable {
        /// Images in the table, and those with textures.
        public var resident = 0
        public var textures = 0
        public var cpuBytes = 0
        public var gpuBytes = 0
        /// Decodes in flight.
        public var loading = 0
        /// Page files read so far (a placeholder for a known-bad file is not a read).
        public var decoded = 0
        /// Pages whose file was missing or broken.
        public var failed = 0
    }

    /// The books, as laid out now (`relaid`).
    public private(set) var library: Library
    public let settings: Settings
    /// The height of the largest image a whole vector page gets: shown higher, it needs crops.
    public let largestWholePage: Int
    /// Images from memory for the books it supplies.
    public weak var contentSource: PageContentSource?

    private let textures: PageTextures
    /// Where documents are opened: the host's registry, with its password and failures.
    private let documents: DocumentRegistry
    private let executor: DecodeExecutor
    private let inbox: DecodeInbox
    private let crops: DetailCache

    /// The residency table: every image held, decoded or uploaded.
    public private(set) var table: [PageKey: Residency] = [:]
    /// Decodes handed to the executor and not yet taken back.
    private var jobs: [PageKey: DecodeJob] = [:]
    /// Images whose marks changed while they were being decoded (`redraw`): rendered again.
    private var remarked: Set<PageKey> = []
    /// Wanted images in priority order, and each one's rank in it.
    private var wanted: [PageKey] = []
    private var rank: [PageKey: Int] = [:]
    private var onScreen: [PageKey] = []
    private var onScreenSet: Set<PageKey> = []
    /// Wanted images the budget cannot hold: not retried until the window moves.
    private var refused: Set<PageKey> = []
    /// Images that did not come within a wait: later waits do not wait for them again.
    private var overdue: Set<PageKey> = []
    /// Where the reader is in each book shown, and among the covers.
    private var windows: [Int: Window] = [:]
    private var coverWindow = Window()
    /// The covers shown last: kept while a book is read, for the return to the shelf.
    private var coversShown: [PageKey] = []
    private var displayHeight: Int
    /// Each book's layout generation: what was decoded for another is never shown.
    private var layouts: [Int: Int] = [:]
    private var brokenPages: Set<PageRef> = []
    private var problems: [Problem] = []
    private var reported: Set<String> = []
    private var stats = Stats()
    /// Bytes of every image decoded so far: the mean is the estimate for pages not decoded.
    private var decodedBytesTotal = 0
    private var versions = 0
    private var serials = 0
    private var closed = false

    /// Images of `library`'s faces, its documents opened through `documents`, uploaded to
    /// `textures`; nothing is read until a face is shown. `onChange` is called on a worker
    /// whenever a decode finishes.
    public init(library: Library, documents: DocumentRegistry, textures: PageTextures, settings: Settings = .init(),
                executor: DecodeExecutor = BackgroundDecoding(), onChange: (@Sendable () -> Void)? = nil) {
        self.library = library
        self.documents = documents
        self.textures = textures
        self.settings = settings
        self.executor = executor
        displayHeight = settings.displayHeight
        inbox = DecodeInbox(onChange: onChange)
        largestWholePage = settings.wholePageHeight > 0 ? min(settings.wholePageHeight, settings.maxPageSize) : settings.maxPageSize
        var d = DetailCache.Settings()
        d.budgetBytes = settings.budgetBytes / 4
        d.maxSide = settings.maxPageSize
        crops = DetailCache(documents: documents, executor: executor, settings: d, onChange: onChange)
    }

    // MARK: Each frame

    /// What a `prepare` did.
    public struct Prepared {
        /// Images on screen that got a texture (the frame shows more than before).
        public var uploaded: Set<PageKey> = []
        /// Images on screen still missing after a wait: drawn as paper, not waited for again.
        public var late: [PageKey] = []
    }

    /// The one call per frame, before drawing `scene`: takes finished decodes, plans what to
    /// hold around what the scene shows (decodes start, images no longer wanted are evicted
    /// with their textures), waits up to `wait` for the images on screen (captures; in short
    /// steps, so that Ctrl-C is heard), and uploads: images on screen first, then prefetched
    /// ones, while `uploadBudget` bytes last (nil: no limit; the first always goes).
    @discardableResult
    public func prepare(_ scene: Scene, uploadBudget: Int?, wait: TimeInterval? = nil) -> Prepared {
        prepare(showing: scene.shownFaces, uploadBudget: uploadBudget, wait: wait)
    }

    /// `prepare` for a frame that shows `faces`, most important first.
    @discardableResult
    public func prepare(showing faces: [FaceContent], uploadBudget: Int?, wait: TimeInterval? = nil) -> Prepared {
        var prepared = Prepared()
        show(faces)
        if let wait { prepared.late = waitForScreen(timeout: wait) }
        takeArrivals()
        let rest = wanted.filter { !onScreenSet.contains($0) && table[$0] != nil }
        prepared.uploaded = upload(onScreen + rest, budget: uploadBudget).intersection(onScreenSet)
        return prepared
    }

    /// Takes the decodes finished since the last call and starts the next ones; true when an
    /// image waits for its upload (a frame should `prepare`). For a frame that draws nothing.
    public func poll() -> Bool {
        takeArrivals()
        return pendingUploads
    }

    /// An image in the window waits for its upload.
    public var pendingUploads: Bool {
        table.contains { $0.value.image != nil && $0.value.textureVersion != $0.value.version && rank[$0.key] != nil }
    }

    /// Pages are shown `height` pixels high now (the window was resized, the reader zoomed):
    /// vector pages are rendered again for it in the background.
    public func setDisplayHeight(_ height: Int) {
        guard height != displayHeight else { return }
        displayHeight = height
        refused = []
        schedule()
    }

    /// The textures were freed by their owner (filtering changed): images still held go up
    /// again, those let go are decoded again.
    public func texturesLost() {
        for (key, var e) in table {
            e.textureVersion = 0
            e.gpuBytes = 0
            table[key] = e.image == nil && e.raster == nil ? nil : e
        }
        schedule()
    }

    /// Frees the textures of the books `contentSource` supplies: they are asked again.
    public func contentChanged() {
        guard let source = contentSource else { return }
        for key in table.keys where source.suppliesImages(ofBook: key.book) { evict(key) }
    }

    /// Book `book` was laid out again (a reflowable document at another text size, or laid out
    /// further): `library` holds its new pages, `mapping` where the old ones went. Images of
    /// pages that show the same content are kept, moved to their new page (textures too);
    /// every other image of the old layout goes, and decodes of it still running are called
    /// off and dropped when they arrive, so a page of the old layout is never shown as a page
    /// of the new one. The next `prepare` loads the new pages around the reader's place.
    public func relaid(book: Int, in library: Library, mapping: PageMapping) {
        let old = self.library.books.indices.contains(book) ? self.library.books[book] : nil
        self.library = library
        layouts[book, default: 0] += 1
        for (key, job) in jobs where key.book == book { job.cancel() }
        let cover = library.books.indices.contains(book) ? library.books[book].cover : nil
        var moves: [(from: Int, to: Int)] = []
        for key in table.keys where key.book == book {
            switch key {
            case .cover where cover != nil && cover == old?.cover: continue
            case .cover where cover == nil && mapping.same(0) == 0: continue
            case let .page(_, j):
                if let to = mapping.same(j) { moves.append((j, to)); continue }
            default: break
            }
            evict(key)
        }
        // Text keeps its order: moved up from the last, down from the first, no image is
        // moved onto one not moved yet.
        let up = moves.filter { $0.to > $0.from }.sorted { $0.from > $1.from }
        let down = moves.filter { $0.to < $0.from }.sorted { $0.from < $1.from }
        for (from, to) in up + down {
            let (was, now) = (PageKey.page(book: book, index: from), PageKey.page(book: book, index: to))
            guard let e = table.removeValue(forKey: was) else { continue }
            if e.textureVersion > 0 { textures.move(was.faces[0], to: now.faces[0]) }
            table[now] = e
        }
        windows[book] = nil
        // What the next frame shows is planned afresh, even if its faces look the same; no
        // decode starts for a page of the old layout meanwhile.
        onScreen = []
        onScreenSet = []
        wanted.removeAll { $0.book == book }
        rank = Dictionary(uniqueKeysWithValues: wanted.enumerated().map { ($1, $0) })
    }

    /// Images `indices` of book `book` are rendered again where they are held (their marks
    /// changed, `PageMarks`), and so are the crops of them a zoomed view shows: their textures
    /// are drawn until the new images go up.
    public func redraw(book: Int, images indices: Set<Int>) {
        let pages = library.books[book].pages
        crops.redraw(pages: Set(indices.compactMap { pages.indices.contains($0) ? pages[$0] : nil }))
        for j in indices {
            let key = PageKey.page(book: book, index: j)
            // A decode under way began before the marks changed: what it brings is rendered again.
            if jobs[key] != nil { remarked.insert(key) }
            guard var e = table[key] else { continue }
            e.renderedFor = 0
            table[key] = e
        }
        schedule()
    }

    /// `redraw`, the images on screen rendered at once on this thread: marks the reader made (a
    /// highlight) show in the next frame, for a page's render in this one, not after a decode's
    /// turn in the background.
    public func redrawNow(book: Int, images indices: Set<Int>) {
        redraw(book: book, images: indices)
        for j in indices.sorted() {
            let key = PageKey.page(book: book, index: j)
            guard !closed, onScreenSet.contains(key), let page = key.page(in: library) else { continue }
            // A decode in flight is left to arrive unheeded (its serial is no longer the job's).
            jobs[key]?.cancel()
            remarked.remove(key)
            serials += 1
            let job = DecodeJob(serial: serials, layout: layouts[book, default: 0])
            jobs[key] = job
            take(.init(key: key, serial: job.serial, decoded: order(key, page: page, fit: fit).run()))
        }
        schedule()
    }

    /// Stops: no call to `onChange` from now on, decodes in flight are thrown away when they
    /// finish, and the images are let go (their textures are the owner's to free).
    public func close() {
        closed = true
        inbox.stop()
        crops.cancel()
        for job in jobs.values { job.cancel() }
        table = [:]
        wanted = []
        rank = [:]
    }

    /// Bad image files met since the last call, one problem per file; each shows as a
    /// broken-page placeholder.
    public func takeProblems() -> [Problem] {
        defer { problems = [] }
        return problems.filter { reported.insert($0.description).inserted }
    }

    public var statistics: Stats {
        var s = stats
        s.resident = table.count
        s.textures = table.values.filter { $0.textureVersion > 0 }.count
        s.cpuBytes = table.values.reduce(0) { $0 + $1.cpuBytes }
        s.gpuBytes = table.values.reduce(0) { $0 + $1.gpuBytes }
        s.loading = jobs.count
        return s
    }

    // MARK: Crops of zoomed pages

    /// `scene` with an item over each page a `width` × `height` frame magnifies beyond its
    /// image, showing the part in view rasterised at the scale shown (`SceneItem.detail`), so
    /// text stays sharp at any zoom; true when a crop went up or was let go (the frame
    /// changed). Until a crop for the view is ready, the one shown before stays where it still
    /// applies, the page's own texture around it: never blank. `wait`: first waits up to that
    /// long for the crops the view asks for (captures). Draws nothing over turning or
    /// opening pages, nor over bitmap pages (their image is all there is).
    public func decorate(_ scene: Scene, width: Int, height: Int, wait: TimeInterval?) -> (scene: Scene, changed: Bool) {
        let wants = scene.detailWants(width: width, height: height, sharperThan: largestWholePage)
        var rasters = detail(for: wants)
        if let wait, rasters.contains(where: { $0 == nil }) {
            // In short waits, so that Ctrl-C (`Interrupt`) is heard; past `wait`, the page
            // image is drawn as it is.
            let deadline = Date(timeIntervalSinceNow: wait)
            while !crops.waitUntilIdle(timeout: 0.25), !Interrupt.requested, Date() < deadline {}
            rasters = detail(for: wants)
        }
        var decorated = scene, changed = false
        let pages = wants.map { PageKey($0.face, in: library) }
        let shown = Set(pages.compactMap { page -> PageKey? in
            guard case let .page(b, j)? = page else { return nil }
            return .crop(book: b, index: j)
        })
        for key in table.keys where key.isCrop && !shown.contains(key) {
            evict(key)
            changed = true
        }
        for ((want, raster), page) in zip(zip(wants, rasters), pages) {
            guard let page, case let .page(b, j) = page else { continue }
            let key = PageKey.crop(book: b, index: j)
            if let r = raster, r.serial != table[key]?.version { table[key] = Residency(version: r.serial, raster: r) }
            // A newer crop, or its texture was lost: it goes up (no mipmaps to make, the largest
            // cost of the upload in software, or hold).
            if var row = table[key], row.textureVersion != row.version, let r = row.raster {
                row.gpuBytes = key.faces.reduce(0) { $0 + textures.upload(r.image, for: $1, mipmaps: false) }
                row.textureVersion = row.version
                table[key] = row
                changed = true
            }
            // A crop of a page at another size still lies on it; one coarser than the page's
            // own texture is not drawn.
            guard let r = table[key]?.raster, r.key.scale.height > table[page]?.textureHeight ?? 0 else { continue }
            decorated.items.append(scene.items[want.item].detail(key.faces[0], crop: r.crop))
        }
        return (decorated, changed)
    }

    /// For each of `wants`, the crop of its page ready to draw over it: a crop of its scale
    /// covering its visible part; nil while none does (one is rendered in the background) and
    /// for pages that have nothing sharper to give (bitmaps). Never blocks.
    private func detail(for wants: [DetailWant]) -> [DetailCache.Raster?] {
        var asked: [DetailCache.Want] = [], index: [Int?] = []
        for want in wants {
            guard let key = PageKey(want.face, in: library), let page = key.page(in: library), documents.rendersCrops(page) else {
                index.append(nil)
                continue
            }
            index.append(asked.count)
            // A page lies on its book's paper, as its decode puts it there.
            let book = library.books[want.face.book]
            asked.append(DetailCache.Want(key: .init(page: page, paper: book.pageWidth / book.pageHeight, scale: want.scale,
                                                     layout: layouts[want.face.book, default: 0]),
                                          visible: want.visible))
        }
        let rasters = crops.show(asked)
        return index.map { $0.flatMap { rasters[$0] } }
    }

    /// Whether a crop became ready since the last call.
    public func cropArrived() -> Bool { crops.drainArrived() }

    // MARK: Planning

    /// Tells the store what is on screen: those images load first, the reader's place steers
    /// prefetching, and the images of books no longer shown are let go.
    private func show(_ faces: [FaceContent]) {
        var keys: [PageKey] = [], seen: Set<PageKey> = []
        for face in faces {
            if let key = PageKey(face, in: library), seen.insert(key).inserted { keys.append(key) }
        }
        var pages: [Int: [Int]] = [:], covers: [Int] = []
        for key in keys {
            switch key {
            case let .cover(b): covers.append(b)
            case let .page(b, j): pages[b, default: []].append(j)
            case .crop: break
            }
        }
        var moved = keys != onScreen
        onScreen = keys
        onScreenSet = seen
        // A book no longer shown (closed, or left for another) stops at once.
        for b in windows.keys where pages[b] == nil {
            windows[b] = nil
            moved = true
        }
        for (b, shown) in pages {
            // The lowest page shown: it rises as the reader goes forward and falls going back.
            moved = windows[b, default: Window()].move(to: shown.min()!) || moved
        }
        // With no cover shown (reading) the covers stay as they were, ready for the return to
        // the shelf; a capture of a page reads no cover at all.
        if !covers.isEmpty {
            coversShown = covers.map { .cover(book: $0) }
            moved = coverWindow.move(to: covers.sorted()[covers.count / 2]) || moved
        }
        // An unchanged scene plans nothing: planning retries what the budget refused.
        if moved { plan() }
        askContentSource()
    }

    private func plan() {
        // Ahead pages at distance d rank with behind pages at distance 2d: prefetch favours the
        // direction of travel two to one. The shelf scrolls both ways and shows few covers: a
        // small, symmetric window.
        var around: [(rank: Int, key: PageKey)] = []
        for (b, window) in windows.sorted(by: { $0.key < $1.key }) {
            let count = library.books[b].pages.count
            around += window.around(ahead: settings.ahead, behind: settings.behind).filter { (0..<count).contains($0.page) }
                .map { ($0.rank, .page(book: b, index: $0.page)) }
        }
        if coverWindow.current != nil {
            let n = min(settings.ahead, 4)
            around += coverWindow.around(ahead: n, behind: n)
                .filter { library.books.indices.contains($0.page) && library.books[$0.page].coverImage != nil }
                .map { ($0.rank, .cover(book: $0.page)) }
        }
        let order = onScreen + coversShown + around.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element.key)
        wanted = []
        rank = [:]
        for key in order where rank[key] == nil {
            rank[key] = wanted.count
            wanted.append(key)
        }
        refused = []
        overdue = overdue.intersection(onScreenSet)
        for key in table.keys where rank[key] == nil && !key.isCrop { evict(key) }
        // Decodes of images no longer wanted are called off; wanted again, they go on.
        for (key, job) in jobs { if rank[key] == nil { job.cancel() } else { job.resume() } }
        schedule()
    }

    /// The images on screen from the content source, asked once each until it says it changed.
    private func askContentSource() {
        guard let source = contentSource else { return }
        for key in onScreen where table[key] == nil && source.suppliesImages(ofBook: key.book) {
            guard let image = source.image(for: key.faces[0]) else { continue }
            versions += 1
            table[key] = Residency(version: versions, cpuBytes: image.byteCount, image: image)
        }
    }

    private func supplied(_ key: PageKey) -> Bool { contentSource?.suppliesImages(ofBook: key.book) ?? false }

    /// The size a page is rendered for now.
    private var fit: PixelSize {
        let side = settings.maxPageSize
        return PixelSize(width: side, height: displayHeight > 0 ? min(side, displayHeight) : side)
    }

    /// A held image that the display now shows larger than it was rendered for.
    private func isSoft(_ key: PageKey) -> Bool {
        guard let h = table[key]?.renderedFor else { return false }
        return Double(h) < 0.9 * Double(fit.height)
    }

    private var estimate: Int { stats.decoded > 0 ? decodedBytesTotal / stats.decoded : 0 }

    /// The best-ranked wanted image to decode next that has room and is not refused, making
    /// room by evicting lower-ranked images when that suffices.
    private func nextJob() -> PageKey? {
        // Images on screen with nothing to show come first (their previews, if any).
        if let key = onScreen.first(where: { table[$0] == nil && jobs[$0] == nil && !supplied($0) }) { return key }
        for key in wanted where (table[key] == nil || isSoft(key)) && jobs[key] == nil && !refused.contains(key) && !supplied(key) {
            if onScreenSet.contains(key) || makeRoom(estimate * (jobs.count + 1), below: rank[key]!) { return key }
            return nil
        }
        return nil
    }

    /// Evicts images ranked below `limit` (worst first) until `extra` more bytes fit in the
    /// budget; evicts nothing and returns false if even all of them would not do.
    private func makeRoom(_ extra: Int, below limit: Int) -> Bool {
        let held = table.values.reduce(0) { $0 + $1.bytes } + crops.statistics.bytes
        let budget = settings.budgetBytes
        guard held + extra > budget else { return true }
        let victims = table.keys.filter { !onScreenSet.contains($0) && !$0.isCrop && (rank[$0] ?? .max) > limit }
            .sorted { (rank[$0] ?? .max) > (rank[$1] ?? .max) }
        guard held - victims.reduce(0, { $0 + table[$1]!.bytes }) + extra <= budget else { return false }
        var left = held
        for v in victims where left + extra > budget {
            left -= table[v]!.bytes
            evict(v)
            refused.insert(v)
        }
        return true
    }

    private func evict(_ key: PageKey) {
        guard let e = table.removeValue(forKey: key) else { return }
        if e.textureVersion > 0 { for face in key.faces { textures.remove(face) } }
        settings.pixels.giveBack(e.image)
    }

    private func schedule() {
        while !closed, jobs.count < settings.workers, let key = nextJob(), let page = key.page(in: library) {
            serials += 1
            let job = DecodeJob(serial: serials, layout: layouts[key.book, default: 0])
            jobs[key] = job
            var size = fit
            // A page shown before (its pixels let go after upload) goes straight to the sharp
            // rendering: a preview would replace its sharp texture for a moment.
            if table[key] == nil, settings.previewHeight > 0 { size.height = min(size.height, settings.previewHeight) }
            let order = self.order(key, page: page, fit: size)
            let inbox = inbox
            executor.execute {
                inbox.post(.init(key: key, serial: job.serial, decoded: job.isCancelled ? nil : order.run()))
            }
        }
    }

    /// The decode of `page` (image `key`) at `fit`.
    private func order(_ key: PageKey, page: PageRef, fit size: PixelSize) -> DecodeOrder {
        DecodeOrder(documents: documents, page: page, fit: size, knownBroken: brokenPages.contains(page),
                    paperAspect: paperAspect(of: key), placeholder: placeholderSize(of: key),
                    maxPixels: settings.maxPixels, maxSide: settings.maxPageSize, wholePageHeight: settings.wholePageHeight)
    }

    /// A book's pages lie on paper of its page shape, centred; covers are shown as they are.
    private func paperAspect(of key: PageKey) -> Double? {
        guard case let .page(b, _) = key else { return nil }
        return library.books[b].pageWidth / library.books[b].pageHeight
    }

    /// The broken-page placeholder: a book's pages get its page shape.
    private func placeholderSize(of key: PageKey) -> PixelSize {
        let height = 568
        guard let aspect = paperAspect(of: key) else { return PixelSize(width: 362, height: height) }
        return PixelSize(width: max(1, Int((Double(height) * aspect).rounded())), height: height)
    }

    /// Puts finished decodes in the table, if still wanted, and starts the next ones.
    private func takeArrivals() {
        let arrivals = inbox.take()
        guard !arrivals.isEmpty, !closed else { return }
        for arrival in arrivals { take(arrival) }
        schedule()
    }

    private func take(_ arrival: DecodeInbox.Arrival) {
        guard let job = jobs[arrival.key], job.serial == arrival.serial else { return }
        jobs[arrival.key] = nil
        guard let result = arrival.decoded, job.layout == layouts[arrival.key.book, default: 0] else { return }
        if result.read {
            stats.decoded += 1
            decodedBytesTotal += result.image.byteCount
        }
        // A warning (a JPEG that ends early) comes with an image: reported, not marked broken.
        let firstTime = !result.broken || (arrival.key.page(in: library).map { brokenPages.insert($0).inserted } ?? true)
        if let p = result.problem, firstTime {
            problems.append(p)
            if result.broken { stats.failed += 1 }
        }
        // The reader may have moved on while it decoded.
        guard let r = rank[arrival.key] else { return }
        versions += 1
        var e = table[arrival.key] ?? Residency(version: versions)
        e.version = versions
        settings.pixels.giveBack(e.image.take())
        e.image = result.image
        e.cpuBytes = result.image.byteCount
        e.renderedFor = remarked.remove(arrival.key) == nil ? result.renderedFor : 0
        table[arrival.key] = e
        if !makeRoom(0, below: r) && !onScreenSet.contains(arrival.key) {
            evict(arrival.key)
            refused.insert(arrival.key)
        }
    }

    /// Waits until every image on screen is held, or `timeout` passes; returns those still
    /// missing then (not waited for again while they stay on screen).
    private func waitForScreen(timeout: TimeInterval) -> [PageKey] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            takeArrivals()
            let missing = onScreen.filter { table[$0] == nil && !overdue.contains($0) && !supplied($0) }
            guard !missing.isEmpty, !Interrupt.requested else { return [] }
            if Date() >= deadline {
                overdue.formUnion(missing)
                return missing
            }
            _ = inbox.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
        }
    }

    /// Uploads the held images of `keys` whose textures are missing or stale, in order, until
    /// `budget` bytes are spent (nil: no limit); returns the keys uploaded.
    private func upload(_ keys: [PageKey], budget: Int?) -> Set<PageKey> {
        var spent = 0, done: Set<PageKey> = []
        for key in keys {
            guard var e = table[key], let image = e.image, e.textureVersion != e.version else { continue }
            if let budget, spent > 0, spent + image.byteCount > budget { break }
            e.gpuBytes = key.faces.reduce(0) { $0 + textures.upload(image, for: $1, mipmaps: true) }
            e.textureVersion = e.version
            e.textureHeight = image.height
            if settings.releasesPixels {
                settings.pixels.giveBack(e.image.take())
                e.cpuBytes = 0
            }
            table[key] = e
            spent += image.byteCount
            done.insert(key)
        }
        return done
    }
}

/// Where the reader is among a book's pages (or the covers), and which way they go.
private struct Window {
    var current: Int?
    var forward = true

    /// Moves to `page`; true if it moved. Moving to a lower page turns prefetching backwards.
    mutating func move(to page: Int) -> Bool {
        guard page != current else { return false }
        if let c = current { forward = page > c }
        current = page
        return true
    }

    /// The pages around the current one with their rank: ahead at distance d ranks 2d, behind 4d + 1.
    func around(ahead: Int, behind: Int) -> [(rank: Int, page: Int)] {
        guard let current else { return [] }
        let step = forward ? 1 : -1
        var pages: [(rank: Int, page: Int)] = []
        for d in 0...max(0, ahead) { pages.append((2 * d, current + step * d)) }
        for d in stride(from: 1, through: behind, by: 1) { pages.append((4 * d + 1, current - step * d)) }
        return pages
    }
}

extension Scene {
    /// The faces drawn with an image: those of visible items other than page blocks and desk
    /// shadows (a cover board shows its cover's colour), in scene order, each once.
    public var shownFaces: [FaceContent] {
        var seen: Set<FaceContent> = []
        return items.filter(\.showsImage)
            .flatMap(\.faces)
            .filter { seen.insert($0).inserted }
    }

    /// The height in pixels of the tallest face drawn with an image in a `width` × `height`
    /// frame (zoom and perspective included), rounded up to a step of a geometric series
    /// (×1.25) so that an animation does not re-render pages at every frame: the height
    /// `PageStore.setDisplayHeight` wants. Nil when no such face shows.
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
