import Dispatch
import Foundation

/// Decides which pages of a book are decoded and held in memory, decodes them on background
/// threads, and hands them to the render thread without ever blocking it.
///
/// The resident set is the pages the renderer asked for (`request(pages:)`: what is on screen)
/// plus a window around the current page, prefetched `ahead` pages in the direction the
/// reader is moving and `behind` pages the other way, all under `budgetBytes`. Resident
/// memory therefore depends on the window and the page size, never on the page count, and
/// nothing is read until a page is asked for.
///
/// Threading: every method may be called from any thread and returns at once, except
/// `waitUntilReady`. When the reader moves: `setCurrent(page:)`, then `request(pages:)` with
/// what is on screen (each call replans at once). The render thread, once per frame:
/// `drainChanges()` → upload `ready`, free `evicted`; draw `image(for:) == nil` pages as a
/// loading placeholder. A missing or broken file arrives as a `.broken` placeholder image
/// plus one `Problem` (`drainProblems()`). `onChange` tells an idle render loop to wake up.
public final class PageCache: @unchecked Sendable {
    // @unchecked: all mutable state below is guarded by `lock`; decoding runs outside it.

    /// Residency settings; the defaults suit a desktop with a GL 3.3 GPU.
    public struct Settings: Sendable {
        /// Bytes of decoded pages kept at most (RGBA8: width × height × 4 per page). Pages on
        /// screen are always loaded, even if they alone exceed it.
        public var budgetBytes = 256 << 20
        /// A limit shared with other caches and GPU textures; this cache keeps under both.
        public var shared: MemoryBudget?
        /// Pages larger than this (either side) are scaled down to fit: set it to
        /// `GL_MAX_TEXTURE_SIZE`, or lower for a page-resolution limit.
        public var maxPageSize = 4096
        /// Pixel height pages are shown at (0: `maxPageSize`): vector pages are rasterised
        /// for it and large photos decoded at a reduced scale (see `setDisplayHeight`). The
        /// default suits a 1080p screen until the caller says otherwise.
        public var displayHeight = 1080
        /// Vector pages (those that render crops, `PageSource.rendersCrops`) are rasterised
        /// whole at most this high (0: `maxPageSize`); whoever shows them larger draws crops of
        /// the part in view over them (`DetailCache`). A rendering so capped is not rendered
        /// again for any display.
        public var wholePageHeight = 0
        /// A vector page (or a large photo) not shown yet is first rendered this many pixels
        /// high (0: never), which takes a millisecond or two, then sharp: turning pages never
        /// shows blank paper for long. Headless commands that wait for the sharp page set it to 0.
        public var previewHeight = 192
        /// Pages prefetched in the direction of reading travel, and kept behind it.
        public var ahead = 8
        public var behind = 4
        /// Decoding threads: two at least, even on two cores, so that one page that takes long
        /// (a huge progressive JPEG, a PDF page that never finishes) does not hold back every
        /// page behind it.
        public var workers = max(2, min(4, ProcessInfo.processInfo.activeProcessorCount - 1))
        /// Header dimensions refused outright (before any allocation).
        public var maxPixels = PNG.defaultMaxPixels
        /// Size of the broken-page placeholder (the book's page aspect looks best).
        public var placeholderWidth = 362
        public var placeholderHeight = 568
        /// Width / height of the paper each page is put on: a page of another shape (a portrait
        /// photo in a landscape album, a manifest's page from another document) sits centred on
        /// white instead of being stretched onto the book's page. Nil: pages as they are.
        public var paperAspect: Double?

        public init() {}
    }

    /// What changed since the last `drainChanges()`: net state, so a page decoded and evicted
    /// in between appears only as evicted, one decoded again only as ready.
    public struct Changes: Sendable {
        /// Pages now resident with their (new) image: upload these.
        public var ready: [(page: Int, image: RGBAImage)] = []
        /// Pages no longer resident: free their textures, if any.
        public var evicted: [Int] = []
    }

    /// Counters for tests, benchmarks and `folio info`.
    public struct Stats: Sendable, Equatable {
        public var residentCount = 0
        public var residentBytes = 0
        /// Decodes in flight.
        public var loading = 0
        /// Page files read so far (a placeholder for a known-bad file is not a read).
        public var decoded = 0
        /// Pages whose file was missing or broken.
        public var failed = 0
    }

    /// The page image paths, in reading order.
    public let pages: [String]
    public let settings: Settings
    /// Called on a decoding thread, without the lock held, each time a decoded page becomes
    /// resident: a sleeping render loop wakes up and drains the changes.
    private let onChange: (@Sendable () -> Void)?

    private let lock = NSCondition()
    private let queue = DispatchQueue(label: "folio.book.decode", qos: .userInitiated, attributes: .concurrent)

    private var resident: [Int: RGBAImage] = [:]
    /// Resident pages whose pixels were handed on and let go (`releasePixels`): not decoded
    /// again while they stay in the window, but with no image here.
    private var released: Set<Int> = []
    /// Stopped: no decode starts and none that finishes is kept.
    private var cancelled = false
    /// Resident pages that a larger display would show sharper: the display height each
    /// was rendered for.
    private var renderedFor: [Int: Int] = [:]
    private var displayHeight: Int
    private var residentBytes = 0
    private var inflight: Set<Int> = []
    /// Wanted pages in priority order, and each one's rank in that order.
    private var wanted: [Int] = []
    private var rank: [Int: Int] = [:]
    /// Pages on screen: loaded whatever the budget.
    private var onScreen: Set<Int> = []
    /// Wanted pages the budget cannot hold; not retried until the window moves.
    private var refused: Set<Int> = []
    private var current = 0
    private var forward = true
    private var requested: [Int] = []
    private var changed: Set<Int> = []
    private var problems: [Problem] = []
    private var brokenPaths: Set<String> = []
    private var placeholder: RGBAImage?
    private var stats = Stats()
    /// Mean decoded size, the estimate for pages not decoded yet.
    private var decodedBytesTotal = 0

    /// A cache over `pages`; nothing is read until a page is asked for.
    public init(pages: [String], settings: Settings = Settings(), onChange: (@Sendable () -> Void)? = nil) {
        self.pages = pages
        self.settings = settings
        displayHeight = settings.displayHeight
        self.onChange = onChange
    }

    /// A cache over a book's pages, with placeholders shaped like its pages.
    public convenience init(book: Book, settings: Settings = Settings(), onChange: (@Sendable () -> Void)? = nil) {
        var s = settings
        s.placeholderWidth = max(1, Int((Double(s.placeholderHeight) * book.pageWidth / book.pageHeight).rounded()))
        s.paperAspect = book.pageWidth / book.pageHeight
        self.init(pages: book.pages, settings: s, onChange: onChange)
    }

    /// Stops decoding: decodes in flight finish and are thrown away, none starts, and the
    /// pages held are let go. For a book that is closed or left.
    public func cancel() {
        lock.lock(); defer { lock.unlock() }
        cancelled = true
        wanted = []
        rank = [:]
        resident = [:]
        released = []
        residentBytes = 0
        settings.shared?.charge(0, to: ObjectIdentifier(self))
    }

    deinit { settings.shared?.charge(0, to: ObjectIdentifier(self)) }

    /// Frees the pixels of resident `page` once they live elsewhere (a GPU texture): the page
    /// stays resident (not decoded again, evicted as before) but `image(for:)` is nil.
    public func releasePixels(page: Int) {
        lock.lock(); defer { lock.unlock() }
        guard let img = resident.removeValue(forKey: page) else { return }
        released.insert(page)
        residentBytes -= img.byteCount
        chargeLocked()
    }

    /// Decodes again the pages whose pixels were released (their copies elsewhere were lost).
    public func reloadReleased() {
        lock.lock(); defer { lock.unlock() }
        changed.formUnion(released)
        released = []
        scheduleLocked()
    }

    /// Renders `pages` again (their marks changed, `PageMarks`) where they are held: the old
    /// image stays on screen until the new one replaces it.
    public func redraw(pages: Set<Int>) {
        lock.lock(); defer { lock.unlock() }
        for page in pages where resident[page] != nil || released.contains(page) { renderedFor[page] = 0 }
        scheduleLocked()
    }

    /// Moves the window to `page` (a page index). Moving to a lower page turns prefetching
    /// backwards, to a higher one forwards. Pages that leave the window are evicted.
    public func setCurrent(page: Int) {
        lock.lock(); defer { lock.unlock() }
        if page != current { forward = page > current }
        current = page
        replanLocked()
    }

    /// Pages are shown `height` pixels high now (the window grew, the reader zoomed): resident
    /// pages rendered for less than 90 % of it are rendered again in the background, the
    /// softer image staying on screen until the sharp one replaces it.
    public func setDisplayHeight(_ height: Int) {
        lock.lock(); defer { lock.unlock() }
        guard height != displayHeight else { return }
        displayHeight = height
        refused = []
        scheduleLocked()
    }

    /// The pages on screen now (the spread, a turning sheet's faces, the pages beneath), most
    /// important first; they load before any prefetch and regardless of the budget.
    /// Replaces the previous request.
    public func request(pages: [Int]) {
        lock.lock(); defer { lock.unlock() }
        requested = pages
        replanLocked()
    }

    /// The decoded image of `page`, or nil while it is not loaded (draw a loading placeholder).
    public func image(for page: Int) -> RGBAImage? {
        lock.lock(); defer { lock.unlock() }
        return resident[page]
    }

    /// The pages resident now, pixels released or not (for freeing the textures of the others).
    public var residentPages: Set<Int> {
        lock.lock(); defer { lock.unlock() }
        return Set(resident.keys).union(released)
    }

    /// What became resident or was evicted since the last call. Call it on the render thread.
    public func drainChanges() -> Changes {
        lock.lock(); defer { lock.unlock() }
        var c = Changes()
        for page in changed.sorted() where !released.contains(page) {
            if let img = resident[page] { c.ready.append((page, img)) } else { c.evicted.append(page) }
        }
        changed.removeAll()
        return c
    }

    /// Problems with page files met since the last call, one per bad file.
    public func drainProblems() -> [Problem] {
        lock.lock(); defer { lock.unlock() }
        defer { problems.removeAll() }
        return problems
    }

    /// The resident set and counters now.
    public var statistics: Stats {
        lock.lock(); defer { lock.unlock() }
        var s = stats
        s.residentCount = resident.count + released.count
        s.residentBytes = residentBytes
        s.loading = inflight.count
        return s
    }

    /// Blocks until the pages on screen and every prefetch the budget allows are resident, or
    /// `timeout` passes; true if it got there. For capture and tests, never for a frame.
    public func waitUntilReady(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock(); defer { lock.unlock() }
        // Every finished decode schedules the next job, so no decode in flight means no job
        // left that the budget allows.
        while !inflight.isEmpty {
            if !lock.wait(until: deadline) { return false }
        }
        return true
    }

    /// Blocks until every page of `pages` is resident, or `timeout` passes; true if they all
    /// are. Ask for them first (`request(pages:)`): only wanted pages load. Prefetches still
    /// running are not waited for.
    public func waitUntilResident(pages: [Int], timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock(); defer { lock.unlock() }
        while !pages.allSatisfy({ resident[$0] != nil || released.contains($0) }) {
            if !lock.wait(until: deadline) { return false }
        }
        return true
    }

    // MARK: Planning (all with `lock` held)

    private func replanLocked() {
        let valid = pages.indices
        var order = requested.filter(valid.contains)
        onScreen = Set(order)
        // Ahead pages at distance d rank with behind pages at distance 2d: prefetch favours the
        // direction of travel two to one.
        let step = forward ? 1 : -1
        var window: [(key: Int, page: Int)] = []
        for d in 0...settings.ahead { window.append((2 * d, current + step * d)) }
        for d in stride(from: 1, through: settings.behind, by: 1) { window.append((4 * d + 1, current - step * d)) }
        order += window.sorted { $0.key < $1.key }.map(\.page).filter(valid.contains)
        wanted = []
        rank = [:]
        for p in order where rank[p] == nil {
            rank[p] = wanted.count
            wanted.append(p)
        }
        refused = []
        for p in Set(resident.keys).union(released) where rank[p] == nil { evictLocked(p) }
        scheduleLocked()
    }

    private var estimateLocked: Int { stats.decoded > 0 ? decodedBytesTotal / stats.decoded : 0 }

    /// The best-ranked wanted page that is not loaded, has room, and is not refused; making room
    /// by evicting lower-ranked pages when that suffices.
    private func nextJobLocked() -> Int? {
        // Pages on screen with nothing to show come first (their previews, if any).
        if let page = wanted.first(where: { onScreen.contains($0) && resident[$0] == nil && !released.contains($0) && !inflight.contains($0) }) {
            return page
        }
        for page in wanted where ((resident[page] == nil && !released.contains(page)) || isSoftLocked(page)) && !inflight.contains(page) && !refused.contains(page) {
            let need = estimateLocked * (inflight.count + 1)
            if onScreen.contains(page) || makeRoomLocked(need, below: rank[page]!) { return page }
            return nil
        }
        return nil
    }

    /// The size a page is rendered for now.
    private var fitLocked: PixelSize {
        let side = settings.maxPageSize
        return PixelSize(width: side, height: displayHeight > 0 ? min(side, displayHeight) : side)
    }

    /// A resident page that the display now shows larger than it was rendered for.
    private func isSoftLocked(_ page: Int) -> Bool {
        guard let h = renderedFor[page] else { return false }
        return Double(h) < 0.9 * Double(fitLocked.height)
    }

    /// Evicts resident pages ranked below `limit` (worst first) until `extra` more bytes fit
    /// in the budget; evicts nothing and returns false if even all of them would not do.
    private func makeRoomLocked(_ extra: Int, below limit: Int) -> Bool {
        var budget = settings.budgetBytes
        if let shared = settings.shared { budget = min(budget, shared.limit - shared.held(byOthersThan: ObjectIdentifier(self))) }
        guard residentBytes + extra > budget else { return true }
        let victims = resident.keys.filter { !onScreen.contains($0) && (rank[$0] ?? .max) > limit }
            .sorted { (rank[$0] ?? .max) > (rank[$1] ?? .max) }
        guard residentBytes - victims.reduce(0, { $0 + resident[$1]!.byteCount }) + extra <= budget else { return false }
        for v in victims where residentBytes + extra > budget {
            evictLocked(v)
            refused.insert(v)
        }
        return true
    }

    private func evictLocked(_ page: Int) {
        if released.remove(page) != nil { changed.insert(page) }
        renderedFor[page] = nil
        guard let img = resident.removeValue(forKey: page) else { return }
        residentBytes -= img.byteCount
        changed.insert(page)
        chargeLocked()
    }

    private func chargeLocked() { settings.shared?.charge(residentBytes, to: ObjectIdentifier(self)) }

    private func scheduleLocked() {
        while !cancelled, inflight.count < settings.workers, let page = nextJobLocked() {
            inflight.insert(page)
            let path = pages[page]
            let known = brokenPaths.contains(path)
            var fit = fitLocked
            // A bitmap decodes the same whatever the size (a large JPEG at a reduced scale).
            // A page shown before (its pixels released after upload) goes straight to the sharp
            // rendering: a preview would replace its sharp texture for a moment.
            if resident[page] == nil, !released.contains(page), settings.previewHeight > 0 {
                fit.height = min(fit.height, settings.previewHeight)
            }
            queue.async { [self, fit] in
                let result = decode(path, fit: fit, knownBroken: known)
                lock.lock()
                let arrived = finishLocked(page, result)
                scheduleLocked()
                lock.broadcast()
                lock.unlock()
                if arrived { onChange?() }
            }
        }
    }

    /// Makes a decoded page resident if it is still wanted; true if it is resident now.
    private func finishLocked(_ page: Int, _ result: Decoded) -> Bool {
        inflight.remove(page)
        if result.read {
            stats.decoded += 1
            decodedBytesTotal += result.image.byteCount
        }
        // A warning (a JPEG that ends early) comes with an image: reported, not marked broken.
        if let p = result.problem, result.broken ? brokenPaths.insert(pages[page]).inserted : true {
            problems.append(p)
            if result.broken { stats.failed += 1 }
        }
        // The window may have moved on while this page decoded.
        guard let r = rank[page] else { return false }
        if let old = resident.updateValue(result.image, forKey: page) { residentBytes -= old.byteCount }
        released.remove(page)
        renderedFor[page] = result.renderedFor
        residentBytes += result.image.byteCount
        changed.insert(page)
        chargeLocked()
        if !makeRoomLocked(0, below: r) && !onScreen.contains(page) {
            evictLocked(page)
            refused.insert(page)
            return false
        }
        return true
    }

    // MARK: Decoding (no lock)

    /// A decoded page: its image, what went wrong, whether a file was read, and the display
    /// height it was rendered for when a larger one would render it sharper.
    private typealias Decoded = (image: RGBAImage, problem: Problem?, broken: Bool, read: Bool, renderedFor: Int?)

    private func decode(_ path: String, fit: PixelSize, knownBroken: Bool) -> Decoded {
        let s = settings
        if knownBroken { return (brokenPlaceholder(), nil, true, false, nil) }
        do {
            var whole = fit
            if s.wholePageHeight > 0, fit.height > s.wholePageHeight, PageSources.rendersCrops(path) { whole.height = s.wholePageHeight }
            let r = try PageSources.render(path, fit: whole, maxPixels: s.maxPixels, maxSide: s.maxPageSize)
            let problem = r.warning.map { PageSources.problem(path, $0) }
            let image = s.paperAspect.map { r.image.onPaper(aspect: $0, maxSide: s.maxPageSize) } ?? r.image
            // Capped, it is as large as the page is ever rendered whole: no display renders it again.
            return (image.scaledToFit(maxWidth: s.maxPageSize, maxHeight: s.maxPageSize), problem, false, true,
                    r.scalable && whole == fit ? fit.height : nil)
        } catch PageError.reportedBefore {
            return (brokenPlaceholder(), nil, true, false, nil)
        } catch {
            // Reported once, by whoever drains the problems: no log line here to repeat it.
            let problem = PageSources.problem(path, PNGError.reason(of: error) + "; showing a placeholder page")
            return (brokenPlaceholder(), problem, true, true, nil)
        }
    }

    /// One placeholder image for all broken pages, made on first use (outside the lock: a
    /// frame must never wait for it; two threads may both make it, which is harmless).
    private func brokenPlaceholder() -> RGBAImage {
        if let img = lock.withLock({ placeholder }) { return img }
        let img = RGBAImage.placeholder(width: settings.placeholderWidth, height: settings.placeholderHeight, kind: .broken)
        lock.withLock { placeholder = img }
        return img
    }
}

extension PNGError {
    /// The error's words without the path, for a `Problem` that names the file itself.
    public static func reason(of error: Error) -> String {
        if let e = error as? PageError { return e.reason }
        guard let e = error as? PNGError else { return "\(error)" }
        switch e {
        case let .unreadable(_, reason): return "cannot read: \(reason)"
        case let .invalid(_, message): return "not a valid PNG: \(message)"
        case let .tooLarge(_, w, h, limit): return "image is \(w)×\(h), more than the \(limit)-pixel limit"
        case let .writeFailed(_, message): return "cannot write: \(message)"
        }
    }
}
