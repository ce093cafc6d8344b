import FolioBook
import FolioImage
import Foundation

/// The parts of vector pages that a zoomed view shows larger than a whole page can be
/// rasterised (crops, `PageSource.render(page:crop:paperAspect:)`), rendered in the background
/// at the scale they are shown at and kept by (page, scale), least recently used evicted
/// first, within a budget: zooming out and back in, or panning back, finds them again.
///
/// A crop is rendered for the visible part grown by `margin` on each side, so a small pan is
/// still covered. One rendering per page runs at a time; a newer request for the page waits
/// behind it and replaces any request already waiting. Does not: decide what is visible, make
/// textures, or report bad pages (the page store that shows the whole page does).
///
/// Thread-safe; `show(_:)` never blocks.
public final class DetailCache: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`; rendering runs outside it.

    public struct Settings: Sendable {
        /// Bytes of crops kept at most (RGBA8); the crops shown now are kept regardless.
        public var budgetBytes = 64 << 20
        /// Crops larger than this (either side) are cut down around the visible part.
        public var maxSide = 4096
        /// Fraction of the visible part's size rendered beyond it on each side.
        public var margin = 0.125

        public init() {}
    }

    /// A page at one scale: the page, the width / height of the
    /// paper it is put on (its book's, as the store decodes it), the size of the whole paper
    /// at that scale, and the book's layout (a crop of another layout is another page's).
    public struct Key: Sendable, Hashable {
        public var page: PageRef
        public var paper: Double
        public var scale: PixelSize
        public var layout: Int

        public init(page: PageRef, paper: Double, scale: PixelSize, layout: Int = 0) {
            self.page = page
            self.paper = paper
            self.scale = scale
            self.layout = layout
        }
    }

    /// A part of a page to show: `visible` of page `key.page` rasterised at `key.scale`.
    public struct Want: Sendable, Equatable {
        public var key: Key
        public var visible: PageRegion

        public init(key: Key, visible: PageRegion) {
            self.key = key
            self.visible = visible
        }
    }

    /// A rendered crop. Its image has a one-pixel transparent border around the crop's pixels
    /// (copies of the edge colours): a texture of it fades into the page beneath at its edges
    /// instead of repeating its last row beyond them.
    public struct Raster: Sendable {
        public let key: Key
        public let crop: PageCrop
        public let image: RGBAImage
        /// Unique for each rendering: a texture made from another raster is out of date.
        public let serial: Int
        /// The page's marks at its rendering (`redraw`): an older one is shown until a newer comes.
        let generation: Int

        public var byteCount: Int { image.byteCount }
    }

    public struct Stats: Sendable, Equatable {
        public var count = 0
        public var bytes = 0
        /// Crops rendered so far.
        public var rendered = 0
        public var loading = 0
    }

    public let settings: Settings
    private let documents: DocumentRegistry
    private let onChange: (@Sendable () -> Void)?
    private let lock = NSCondition()
    /// Where crops are rendered: the store's executor (a test runs them itself).
    private let executor: any DecodeExecutor

    /// Least recently used first.
    private var entries: [Raster] = []
    private var bytes = 0
    /// The rasters the last `show` handed out, and the keys it asked for: kept whatever the
    /// budget, with the newest crop of each key (two pages on screen never evict each other's).
    private var shown: Set<Int> = []
    private var wanted: Set<Key> = []
    /// The page each rendering in flight is for (and its marks' generation), and the next
    /// request per page.
    private var inflight: [PageRef: Want] = [:]
    private var inflightGeneration: [PageRef: Int] = [:]
    private var waiting: [PageRef: Want] = [:]
    /// Pages with nothing sharper to give (bitmaps) or that failed: not asked again.
    private var refused: Set<PageRef> = []
    /// How many times each page's marks changed (`redraw`): crops rendered before are stale.
    private var generations: [PageRef: Int] = [:]
    private var serials = 0
    private var stats = Stats()
    private var arrived = false
    private var cancelled = false

    /// Crops of pages of `documents`, rendered by `executor`.
    public init(documents: DocumentRegistry, executor: any DecodeExecutor = BackgroundDecoding(), settings: Settings = Settings(),
                onChange: (@Sendable () -> Void)? = nil) {
        self.documents = documents
        self.executor = executor
        self.settings = settings
        self.onChange = onChange
    }

    /// For each of `wants` (the pages on screen), a cached raster of its key that covers its
    /// visible part, now the most recently used; nil while there is none, and one is rendered
    /// in the background (`onChange` is called when it is ready). A stale raster (its page's
    /// marks changed since) is handed out until the new one is ready.
    public func show(_ wants: [Want]) -> [Raster?] {
        lock.lock(); defer { lock.unlock() }
        shown = []
        wanted = Set(wants.map(\.key))
        return wants.map { want in
            if let i = entries.lastIndex(where: { serves($0.key, $0.crop, want) }) {
                let r = entries.remove(at: i)
                entries.append(r)
                shown.insert(r.serial)
                if isStale(r) { requestLocked(want) }
                return r
            }
            requestLocked(want)
            return nil
        }
    }

    /// The marks of `pages` (locators) changed (`PageMarks`): their crops are rendered again
    /// when next shown, the old ones shown until then.
    public func redraw(pages: Set<PageRef>) {
        lock.lock(); defer { lock.unlock() }
        for page in pages { generations[page, default: 0] += 1 }
    }

    /// Whether a raster became ready since the last call.
    public func drainArrived() -> Bool {
        lock.lock(); defer { lock.unlock() }
        defer { arrived = false }
        return arrived
    }

    /// Blocks until no rendering is in flight or waiting, or `timeout` passes; true if none is.
    /// For captures and tests, never for a frame.
    public func waitUntilIdle(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock(); defer { lock.unlock() }
        while !inflight.isEmpty {
            if !lock.wait(until: deadline) { return false }
        }
        return true
    }

    /// Stops: renderings in flight finish and are thrown away, and the crops are let go.
    public func cancel() {
        lock.lock(); defer { lock.unlock() }
        cancelled = true
        waiting = [:]
        entries = []
        bytes = 0
    }

    public var statistics: Stats {
        lock.lock(); defer { lock.unlock() }
        var s = stats
        (s.count, s.bytes, s.loading) = (entries.count, bytes, inflight.count)
        return s
    }

    /// The keys of the crops held, least recently used first.
    public var keys: [Key] {
        lock.lock(); defer { lock.unlock() }
        return entries.map(\.key)
    }

    // MARK: With `lock` held

    private func requestLocked(_ want: Want) {
        let page = want.key.page
        guard !cancelled, !refused.contains(page), !want.visible.isEmpty else { return }
        // What is rendering or waiting already will cover it (with the page's marks as they are).
        let covers = { (w: Want?) in w.map { self.serves($0.key, self.crop(for: $0), want) } ?? false }
        let current = inflightGeneration[page] == generations[page, default: 0]
        if covers(waiting[page]) || current && covers(inflight[page]) { return }
        if inflight[page] != nil {
            waiting[page] = want
            return
        }
        startLocked(want)
    }

    /// The part rendered for `want`: the visible part and the margin, inside the page, cut
    /// down around the visible part's centre to `maxSide` pixels a side.
    private func crop(for want: Want) -> PageCrop {
        let v = want.visible, m = settings.margin
        let grown = PageRegion(x0: v.x0 - m * v.width, y0: v.y0 - m * v.height, x1: v.x1 + m * v.width, y1: v.y1 + m * v.height)
            .intersection(.whole)
        var crop = PageCrop(covering: grown, of: want.key.scale)
        let side = max(1, settings.maxSide)
        let centre = PageCrop(covering: v, of: want.key.scale)
        if crop.width > side {
            crop.x = min(max(crop.x, centre.x + centre.width / 2 - side / 2), crop.x + crop.width - side)
            crop.width = side
        }
        if crop.height > side {
            crop.y = min(max(crop.y, centre.y + centre.height / 2 - side / 2), crop.y + crop.height - side)
            crop.height = side
        }
        return crop
    }

    /// Whether a crop of page and scale `key` serves `want`: it covers its visible part, or
    /// is all of it that one crop may hold (`maxSide`).
    private func serves(_ key: Key, _ crop: PageCrop, _ want: Want) -> Bool {
        key == want.key && (crop.region.contains(want.visible) || crop == self.crop(for: want))
    }

    private func startLocked(_ want: Want) {
        inflight[want.key.page] = want
        let generation = generations[want.key.page, default: 0]
        inflightGeneration[want.key.page] = generation
        let crop = crop(for: want)
        executor.execute { [self] in
            let image = crop.width > 0 && crop.height > 0
                ? (try? documents.renderCrop(want.key.page, crop: crop, paperAspect: want.key.paper)).flatMap { $0 } : nil
            let bordered = image.map(Self.bordered)
            lock.lock()
            finishLocked(want, crop: crop, image: bordered, generation: generation)
            lock.broadcast()
            let ready = bordered != nil && !cancelled
            lock.unlock()
            if ready { onChange?() }
        }
    }

    private func finishLocked(_ want: Want, crop: PageCrop, image: RGBAImage?, generation: Int) {
        let page = want.key.page
        inflight[page] = nil
        inflightGeneration[page] = nil
        guard !cancelled else { return }
        if let image {
            serials += 1
            stats.rendered += 1
            // A crop with the page's marks as they are now replaces the stale ones of the page.
            if generation == generations[page, default: 0] {
                entries.removeAll { r in
                    guard r.key.page == page, isStale(r) else { return false }
                    bytes -= r.byteCount
                    return true
                }
            }
            entries.append(Raster(key: want.key, crop: crop, image: image, serial: serials, generation: generation))
            bytes += image.byteCount
            arrived = true
            evictLocked()
        } else {
            refused.insert(page)
        }
        if let next = waiting.removeValue(forKey: page),
           !entries.contains(where: { serves($0.key, $0.crop, next) && !isStale($0) }) {
            startLocked(next)
        }
    }

    /// Whether `r` was rendered before its page's marks last changed.
    private func isStale(_ r: Raster) -> Bool { r.generation < generations[r.key.page, default: 0] }

    /// Evicts the least recently used crops not shown until the budget holds.
    private func evictLocked() {
        let budget = settings.budgetBytes
        var kept = shown
        for key in wanted { if let newest = entries.last(where: { $0.key == key }) { kept.insert(newest.serial) } }
        var i = 0
        while bytes > budget, i < entries.count {
            if kept.contains(entries[i].serial) {
                i += 1
                continue
            }
            bytes -= entries.remove(at: i).byteCount
        }
    }

    /// `image` inside a one-pixel border of its edge colours, transparent.
    static func bordered(_ image: RGBAImage) -> RGBAImage {
        let w = image.width, h = image.height, row = (w + 2) * 4
        var out = RGBAImage(width: w + 2, height: h + 2, fill: (0, 0, 0, 0))
        out.pixels.withUnsafeMutableBufferPointer { o in
            image.pixels.withUnsafeBufferPointer { src in
                for y in 0..<h {
                    let d = (y + 1) * row
                    (o.baseAddress! + d + 4).update(from: src.baseAddress! + y * w * 4, count: w * 4)
                    // Each side's border pixel takes the colour next to it, with no alpha.
                    for c in 0..<3 {
                        o[d + c] = src[y * w * 4 + c]
                        o[d + row - 4 + c] = src[(y * w + w - 1) * 4 + c]
                    }
                }
                for x in 0..<row where x % 4 != 3 {
                    o[x] = o[row + x]
                    o[(h + 1) * row + x] = o[h * row + x]
                }
            }
        }
        return out
    }
}
