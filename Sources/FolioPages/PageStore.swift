import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import Foundation

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
/// Crops of zoomed vector pages are rendered on the same executor (`CropRenderings`), and held
/// and uploaded as rows of the same table under the same budget (`decorate`): a `.crop` row
/// holds the crops of its page, the least recently shown let go first.
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
        /// Crops of zoomed pages held, rendered so far, and rendering.
        public var crops = 0
        public var cropsRendered = 0
        public var cropsRendering = 0
    }

    /// The books, as laid out now (`relaid`).
    public private(set) var library: Library
    public let settings: Settings
    /// The height of the largest image a whole vector page gets: shown higher, it needs crops.
    public let largestWholePage: Int
    /// Images from memory for the books it supplies.
    public weak var contentSource: PageContentSource?

    let textures: PageTextures
    /// Where documents are opened: the host's registry, with its password and failures.
    let documents: DocumentRegistry
    let executor: DecodeExecutor
    let inbox: Inbox<Arrival>
    var cropRenderings: CropRenderings

    /// The residency table: every image held, decoded or uploaded.
    public internal(set) var table: [PageKey: Residency] = [:]
    /// Decodes handed to the executor and not yet taken back.
    var jobs: [PageKey: DecodeJob] = [:]
    /// Images whose marks changed while they were being decoded (`redraw`): rendered again.
    var remarked: Set<PageKey> = []
    /// Wanted images in priority order, and each one's rank in it.
    var wanted: [PageKey] = []
    var rank: [PageKey: Int] = [:]
    var onScreen: [PageKey] = []
    var onScreenSet: Set<PageKey> = []
    /// Wanted images the budget cannot hold: not retried until the window moves.
    var refused: Set<PageKey> = []
    /// Images that did not come within a wait: later waits do not wait for them again.
    var overdue: Set<PageKey> = []
    /// Where the reader is in each book shown, and among the covers.
    var windows: [Int: Window] = [:]
    var coverWindow = Window()
    /// The covers shown last: kept while a book is read, for the return to the shelf.
    var coversShown: [PageKey] = []
    var displayHeight: Int
    /// Each book's layout generation: what was decoded for another is never shown.
    var layouts: [Int: Int] = [:]
    var brokenPages: Set<PageRef> = []
    var problems: [Problem] = []
    var reported: Set<String> = []
    var stats = Stats()
    /// Bytes of every image decoded so far: the mean is the estimate for pages not decoded.
    var decodedBytesTotal = 0
    var versions = 0
    var serials = 0
    var closed = false
    /// A crop arrived since `poll` last asked.
    var cropsArrived = false
    /// Counts the calls to `detail`: when each crop was last shown.
    var cropClock = 0
    /// The crops the last `detail` showed (or that their rows show until one does), and the
    /// scale it asked each row for: these, and the newest crop of each row at that scale, are
    /// kept whatever the budget (two pages on screen never evict each other's).
    var keptCrops: Set<Int> = []
    var askedCrops: [PageKey: CropRenderings.Key] = [:]

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
        inbox = Inbox(wake: onChange)
        largestWholePage = settings.wholePageHeight > 0 ? min(settings.wholePageHeight, settings.maxPageSize) : settings.maxPageSize
        cropRenderings = CropRenderings(maxSide: settings.maxPageSize)
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

    /// Takes the decodes and crops finished since the last call and starts the next ones; true
    /// when an image waits for its upload or a crop arrived (a frame should `prepare` and
    /// `decorate`). For a frame that draws nothing.
    public func poll() -> Bool {
        takeArrivals()
        defer { cropsArrived = false }
        return pendingUploads || cropsArrived
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
            table[key] = e.image == nil && e.crops.isEmpty ? nil : e
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
        cropRenderings.relaid(book: book)
        for (key, job) in jobs where key.book == book { job.cancel() }
        let cover = library.books.indices.contains(book) ? library.books[book].cover : nil
        var moves: [(from: Int, to: Int)] = []
        for key in table.keys where key.book == book {
            switch key {
            case .cover where cover != nil && cover == old?.cover: continue
            case .cover where cover == nil && mapping.same(0) == 0: continue
            case let .page(_, image):
                if let to = mapping.same(image.index) { moves.append((image.index, to)); continue }
            default: break
            }
            evict(key)
        }
        // Text keeps its order: moved up from the last, down from the first, no image is
        // moved onto one not moved yet.
        let up = moves.filter { $0.to > $0.from }.sorted { $0.from > $1.from }
        let down = moves.filter { $0.to < $0.from }.sorted { $0.from < $1.from }
        for (from, to) in up + down {
            let (was, now) = (PageKey.page(book: book, image: PageImage(index: from)), PageKey.page(book: book, image: PageImage(index: to)))
            guard let e = table.removeValue(forKey: was) else { continue }
            if e.textureVersion > 0 { textures.move(was, to: now) }
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

    /// Page images `images` of book `book` are rendered again where they are held (their marks
    /// changed, `PageMarks`), and so are the crops of them a zoomed view shows: their textures
    /// are drawn until the new images go up.
    public func redraw(book: Int, images: Set<PageImage>) {
        let rows = Set(images.map { PageKey.crop(book: book, image: $0) })
        cropRenderings.remark(rows)
        for row in rows {
            guard var e = table[row] else { continue }
            for i in e.crops.indices { e.crops[i].stale = true }
            table[row] = e
        }
        for image in images {
            let key = PageKey.page(book: book, image: image)
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
    public func redrawNow(book: Int, images: Set<PageImage>) {
        redraw(book: book, images: images)
        for image in images.sorted() {
            let key = PageKey.page(book: book, image: image)
            guard !closed, onScreenSet.contains(key), let page = key.page(in: library) else { continue }
            // A decode in flight is left to arrive unheeded (its serial is no longer the job's).
            jobs[key]?.cancel()
            remarked.remove(key)
            serials += 1
            let job = DecodeJob(serial: serials, layout: layouts[book, default: 0])
            jobs[key] = job
            take(key, serial: job.serial, decoded: order(key, page: page, fit: fit).run())
        }
        schedule()
    }

    /// Stops: no call to `onChange` from now on, decodes in flight are thrown away when they
    /// finish, and the images are let go (their textures are the owner's to free).
    public func close() {
        closed = true
        inbox.stop()
        cropRenderings.cancel()
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
        s.crops = table.values.reduce(0) { $0 + $1.crops.count }
        s.cropsRendered = cropRenderings.rendered
        s.cropsRendering = cropRenderings.rendering
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
            while cropRenderings.rendering > 0, !closed, !Interrupt.requested, Date() < deadline {
                _ = inbox.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
                takeArrivals()
            }
            rasters = detail(for: wants)
        }
        var decorated = scene, changed = false
        let pages = wants.map { PageKey($0.face, in: library) }
        let rows = pages.map { page -> PageKey? in
            guard case let .page(b, image)? = page else { return nil }
            return .crop(book: b, image: image)
        }
        // Pages no longer magnified let their crops' textures go; the crops stay for a return.
        for (key, var row) in table where key.isCrop && row.textureVersion > 0 && !rows.contains(key) {
            textures.remove(key)
            (row.textureVersion, row.gpuBytes) = (0, 0)
            table[key] = row
            changed = true
        }
        for ((want, raster), (page, row)) in zip(zip(wants, rasters), zip(pages, rows)) {
            guard let page, let row, var e = table[row] else { continue }
            if let raster { e.version = raster.serial }
            // A crop of a page at another size still lies on it; one coarser than the page's
            // own texture is not drawn.
            guard let r = e.crops.first(where: { $0.serial == e.version }), r.key.scale.height > table[page]?.textureHeight ?? 0 else {
                table[row] = e
                continue
            }
            // A newer crop, or its texture was lost: it goes up (no mipmaps to make, the largest
            // cost of the upload in software, or hold).
            if e.textureVersion != e.version {
                e.gpuBytes = textures.upload(r.image, for: row, mipmaps: false)
                e.textureVersion = e.version
                changed = true
            }
            table[row] = e
            decorated.items.append(scene.items[want.item].detail(row.faces[0], crop: r.crop))
        }
        return (decorated, changed)
    }

    /// For each of `wants`, the crop of its page ready to draw over it, now the most recently
    /// shown: a crop of its scale covering its visible part; nil while none does (one is
    /// rendered in the background, and one rendered before the page's marks changed is
    /// handed out meanwhile) and for pages that have nothing sharper to give (bitmaps).
    /// Never blocks.
    func detail(for wants: [DetailWant]) -> [CropRenderings.Raster?] {
        cropClock += 1
        keptCrops = []
        askedCrops = [:]
        return wants.map { want in
            guard let key = PageKey(want.face, in: library), case let .page(b, image) = key, let page = key.page(in: library),
                  documents.rendersCrops(page) else { return nil }
            // A page lies on its book's paper, as its decode puts it there.
            let book = library.books[b]
            return show(CropRenderings.Want(row: .crop(book: b, image: image),
                                            key: .init(page: page, paper: book.pageWidth / book.pageHeight, scale: want.scale,
                                                       layout: layouts[b, default: 0]),
                                            visible: want.visible))
        }
    }

    /// The crop held that serves `want`, if any; one is asked for when none does or it is stale.
    private func show(_ want: CropRenderings.Want) -> CropRenderings.Raster? {
        askedCrops[want.row] = want.key
        guard var row = table[want.row] else {
            requestCrop(want)
            return nil
        }
        // What the row shows until a crop serves (`decorate`).
        keptCrops.insert(row.version)
        let serving = row.crops.indices.filter { cropRenderings.serves(row.crops[$0].key, row.crops[$0].crop, want) }
        // The newest of those with the page's marks as they are, else the newest.
        let fresh = serving.filter { !row.crops[$0].stale }
        guard let i = (fresh.isEmpty ? serving : fresh).max(by: { row.crops[$0].serial < row.crops[$1].serial }) else {
            requestCrop(want)
            return nil
        }
        row.crops[i].used = cropClock
        let raster = row.crops[i]
        if raster.stale {
            requestCrop(want)
        } else if row.crops.contains(where: \.stale) {
            // Shown with the page's marks as they are: the stale crops of the page go.
            row.crops.removeAll(where: \.stale)
        }
        table[want.row] = row
        keptCrops.insert(raster.serial)
        return raster
    }
}
