import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import Foundation

/// What the store plans each frame: which images it keeps, decodes and uploads.
extension PageStore {
    /// Tells the store what is on screen: those images load first, the reader's place steers
    /// prefetching, and the images of books no longer shown are let go.
    func show(_ faces: [FaceContent]) {
        var keys: [PageKey] = [], seen: Set<PageKey> = []
        for face in faces {
            if let key = PageKey(face, in: library), seen.insert(key).inserted { keys.append(key) }
        }
        var pages: [Int: [Int]] = [:], covers: [Int] = []
        for key in keys {
            switch key {
            case let .cover(b): covers.append(b)
            case let .page(b, image): pages[b, default: []].append(image.index)
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

    func plan() {
        // Ahead pages at distance d rank with behind pages at distance 2d: prefetch favours the
        // direction of travel two to one. The shelf scrolls both ways and shows few covers: a
        // small, symmetric window.
        var around: [(rank: Int, key: PageKey)] = []
        for (b, window) in windows.sorted(by: { $0.key < $1.key }) {
            let count = library.books[b].pages.count
            around += window.around(ahead: settings.ahead, behind: settings.behind).filter { (0..<count).contains($0.page) }
                .map { ($0.rank, .page(book: b, image: PageImage(index: $0.page))) }
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
    func askContentSource() {
        guard let source = contentSource else { return }
        for key in onScreen where table[key] == nil && source.suppliesImages(ofBook: key.book) {
            guard let image = source.image(for: key.faces[0]) else { continue }
            versions += 1
            table[key] = Residency(version: versions, cpuBytes: image.byteCount, image: image)
        }
    }

    func supplied(_ key: PageKey) -> Bool { contentSource?.suppliesImages(ofBook: key.book) ?? false }

    /// The size a page is rendered for now.
    var fit: PixelSize {
        let side = settings.maxPageSize
        return PixelSize(width: side, height: displayHeight > 0 ? min(side, displayHeight) : side)
    }

    /// A held image that the display now shows larger than it was rendered for.
    func isSoft(_ key: PageKey) -> Bool {
        guard let h = table[key]?.renderedFor else { return false }
        return Double(h) < 0.9 * Double(fit.height)
    }

    var estimate: Int { stats.decoded > 0 ? decodedBytesTotal / stats.decoded : 0 }

    /// The best-ranked wanted image to decode next that has room and is not refused, making
    /// room by evicting lower-ranked images when that suffices.
    func nextJob() -> PageKey? {
        // Images on screen with nothing to show come first (their previews, if any).
        if let key = onScreen.first(where: { table[$0] == nil && jobs[$0] == nil && !supplied($0) }) { return key }
        for key in wanted where (table[key] == nil || isSoft(key)) && jobs[key] == nil && !refused.contains(key) && !supplied(key) {
            if onScreenSet.contains(key) || makeRoom(estimate * (jobs.count + 1), below: rank[key]!) { return key }
            return nil
        }
        return nil
    }

    /// Evicts crops no view shows (the least recently shown first), then images ranked below
    /// `limit` (worst first), until `extra` more bytes fit in the budget; evicts nothing and
    /// returns false if even all of them would not do.
    func makeRoom(_ extra: Int, below limit: Int) -> Bool {
        let held = heldBytes
        let budget = settings.budgetBytes
        guard held + extra > budget else { return true }
        let victims = table.keys.filter { !onScreenSet.contains($0) && !$0.isCrop && (rank[$0] ?? .max) > limit }
            .sorted { (rank[$0] ?? .max) > (rank[$1] ?? .max) }
        let spare = spareCrops.reduce(0) { $0 + $1.raster.byteCount }
        guard held - spare - victims.reduce(0, { $0 + table[$1]!.bytes }) + extra <= budget else { return false }
        var left = trimCrops(to: budget - extra)
        for v in victims where left + extra > budget {
            left -= table[v]!.bytes
            evict(v)
            refused.insert(v)
        }
        return true
    }

    var heldBytes: Int { table.values.reduce(0) { $0 + $1.bytes } }

    /// The crops held that no view keeps (`keptCrops`, `askedCrops`), the least recently shown
    /// first.
    var spareCrops: [(row: PageKey, raster: CropRenderings.Raster)] {
        table.filter(\.key.isCrop)
            .flatMap { key, row -> [(row: PageKey, raster: CropRenderings.Raster)] in
                let newest = askedCrops[key].flatMap { asked in row.crops.last { $0.key == asked }?.serial }
                return row.crops.filter { !keptCrops.contains($0.serial) && $0.serial != newest }.map { (key, $0) }
            }
            .sorted { ($0.raster.used, $0.raster.serial) < ($1.raster.used, $1.raster.serial) }
    }

    /// Lets spare crops go until the table holds at most `limit` bytes, or none is left;
    /// returns the bytes held then.
    @discardableResult
    func trimCrops(to limit: Int) -> Int {
        var held = heldBytes
        guard held > limit else { return held }
        for (key, r) in spareCrops where held > limit {
            guard var row = table[key] else { continue }
            row.crops.removeAll { $0.serial == r.serial }
            held -= r.byteCount
            if row.crops.isEmpty {
                held -= row.gpuBytes
                evict(key)
            } else {
                table[key] = row
            }
        }
        return held
    }

    func evict(_ key: PageKey) {
        guard let e = table.removeValue(forKey: key) else { return }
        if e.textureVersion > 0 { textures.remove(key) }
        settings.pixels.giveBack(e.image)
    }

    func schedule() {
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
                let decoded = job.isCancelled ? nil : order.run()
                inbox.post(.page(key: key, serial: job.serial, decoded: decoded), wakes: decoded != nil)
            }
        }
    }

    /// The decode of `page` (image `key`) at `fit`.
    func order(_ key: PageKey, page: PageRef, fit size: PixelSize) -> DecodeOrder {
        DecodeOrder(documents: documents, page: page, fit: size, knownBroken: brokenPages.contains(page),
                    paperAspect: paperAspect(of: key), placeholder: placeholderSize(of: key),
                    maxPixels: settings.maxPixels, maxSide: settings.maxPageSize, wholePageHeight: settings.wholePageHeight)
    }

    /// A book's pages lie on paper of its page shape, centred; covers are shown as they are.
    func paperAspect(of key: PageKey) -> Double? {
        guard case let .page(b, _) = key else { return nil }
        return library.books[b].pageWidth / library.books[b].pageHeight
    }

    /// The broken-page placeholder: a book's pages get its page shape.
    func placeholderSize(of key: PageKey) -> PixelSize {
        let height = 568
        guard let aspect = paperAspect(of: key) else { return PixelSize(width: 362, height: height) }
        return PixelSize(width: max(1, Int((Double(height) * aspect).rounded())), height: height)
    }

    /// Puts finished decodes and crops in the table, if still wanted, and starts the next ones.
    func takeArrivals() {
        let arrivals = inbox.take()
        guard !arrivals.isEmpty, !closed else { return }
        for arrival in arrivals {
            switch arrival {
            case let .page(key, serial, decoded): take(key, serial: serial, decoded: decoded)
            case let .crop(want, crop, image): take(want, crop: crop, image: image)
            }
        }
        schedule()
    }

    func take(_ key: PageKey, serial: Int, decoded: Decoded?) {
        guard let job = jobs[key], job.serial == serial else { return }
        jobs[key] = nil
        guard let result = decoded, job.layout == layouts[key.book, default: 0] else { return }
        if result.read {
            stats.decoded += 1
            decodedBytesTotal += result.image.byteCount
        }
        // A warning (a JPEG that ends early) comes with an image: reported, not marked broken.
        let firstTime = !result.broken || (key.page(in: library).map { brokenPages.insert($0).inserted } ?? true)
        if let p = result.problem, firstTime {
            problems.append(p)
            if result.broken { stats.failed += 1 }
        }
        // The reader may have moved on while it decoded.
        guard let r = rank[key] else { return }
        versions += 1
        var e = table[key] ?? Residency(version: versions)
        e.version = versions
        settings.pixels.giveBack(e.image.take())
        e.image = result.image
        e.cpuBytes = result.image.byteCount
        e.renderedFor = remarked.remove(key) == nil ? result.renderedFor : 0
        table[key] = e
        if !makeRoom(0, below: r) && !onScreenSet.contains(key) {
            evict(key)
            refused.insert(key)
        }
    }

    /// Starts rendering the crop `want` asks for, unless what renders or waits covers it.
    func requestCrop(_ want: CropRenderings.Want) {
        guard !closed, let (want, crop) = cropRenderings.request(want) else { return }
        let documents = documents, inbox = inbox
        executor.execute {
            let image = crop.width > 0 && crop.height > 0
                ? (try? documents.renderCrop(want.key.page, crop: crop, paperAspect: want.key.paper)).flatMap { $0 } : nil
            let bordered = image.map(CropRenderings.bordered)
            inbox.post(.crop(want: want, crop: crop, image: bordered), wakes: bordered != nil)
        }
    }

    /// A crop rendered: held in its page's row (a crop with the page's marks as they are lets
    /// the stale ones go) unless its book was laid out again meanwhile, and the request that
    /// waited behind it started if no crop held serves it.
    func take(_ want: CropRenderings.Want, crop: PageCrop, image: RGBAImage?) {
        let layout = layouts[want.row.book, default: 0]
        let (raster, next) = cropRenderings.finish(want, crop: crop, image: image, current: want.key.layout == layout)
        if let raster, raster.key.layout == layout {
            var row = table[want.row] ?? Residency(version: 0)
            // The stale crop drawn now stays until one serving the view comes.
            let shown = row.version
            if !raster.stale { row.crops.removeAll { $0.stale && $0.serial != shown && !keptCrops.contains($0.serial) } }
            row.crops.append(raster)
            table[want.row] = row
            cropsArrived = true
            trimCrops(to: settings.budgetBytes)
        }
        if let next, next.key.layout == layout,
           !(table[next.row]?.crops.contains { !$0.stale && cropRenderings.serves($0.key, $0.crop, next) } ?? false) {
            requestCrop(next)
        }
    }

    /// Waits until every image on screen is held, as sharp as the display asks (a soft one is
    /// rendered again: the frame that shows it sharp is the same however long that takes), or
    /// `timeout` passes; returns those still missing then (neither they nor the soft ones are
    /// waited for again while they stay on screen).
    func waitForScreen(timeout: TimeInterval) -> [PageKey] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            takeArrivals()
            let missing = onScreen.filter { (table[$0] == nil || isSoft($0)) && !overdue.contains($0) && !supplied($0) }
            guard !missing.isEmpty, !Interrupt.requested else { return [] }
            if Date() >= deadline {
                overdue.formUnion(missing)
                // A soft one is drawn as it is: only those with nothing to show are late.
                return missing.filter { table[$0] == nil }
            }
            _ = inbox.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
        }
    }

    /// Uploads the held images of `keys` whose textures are missing or stale, in order, until
    /// `budget` bytes are spent (nil: no limit); returns the keys uploaded.
    func upload(_ keys: [PageKey], budget: Int?) -> Set<PageKey> {
        var spent = 0, done: Set<PageKey> = []
        for key in keys {
            guard var e = table[key], let image = e.image, e.textureVersion != e.version else { continue }
            if let budget, spent > 0, spent + image.byteCount > budget { break }
            e.gpuBytes = textures.upload(image, for: key, mipmaps: true)
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
struct Window {
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
