import CDjVu
import FolioBook
import FolioImage
import Foundation

/// DjVu documents (scanned books) as page sources, through djvulibre's ddjvuapi.
///
/// Pages are rasterised at the size they are shown at, and a zoomed view gets the part it
/// shows at its own scale, so a scan stays as sharp as the file allows. The outline, the text
/// layer (words with their boxes), hyperlinks, page titles and the title and author metadata
/// are read as the document gives them. Does not: edit documents, show annotations other than
/// links (highlights, notes), read old "indexed" documents (pages spread over URLs), or open a
/// component of an indirect document outside the document's own folder.
///
/// Licence: djvulibre is GPL-2.0-or-later, so a program that links this module is distributed
/// under the GPL (docs/djvu.md).
public enum DjVu {
    /// The format with pages that take longer than `decodeTimeout` seconds to decode given up
    /// (nil: `PageSources.decodeTimeout`, which the command sets).
    public static func format(decodeTimeout: TimeInterval? = nil) -> PageSourceFormat {
        PageSourceFormat(name: "DjVu", extensions: ["djvu", "djv"]) { path, _ in
            try DjVuDocument(path: path, timeout: decodeTimeout)
        }
    }

    /// Lets `Library.load` and page caches open DjVu documents.
    public static func register(decodeTimeout: TimeInterval? = nil) { PageSources.register(format(decodeTimeout: decodeTimeout)) }
}

/// Wakes a wait when djvulibre posts a message (its callback may run on any thread, and must
/// not call back into ddjvuapi).
private final class Mailbox: @unchecked Sendable {
    // @unchecked: `posted` is guarded by `condition`.
    let condition = NSCondition()
    var posted = false

    func post() {
        condition.withLock { posted = true }
        condition.broadcast()
    }

    /// Waits for a message posted since the last wait, until `deadline`; false if none came.
    func wait(until deadline: Date) -> Bool {
        condition.withLock {
            while !posted { if !condition.wait(until: deadline) { return false } }
            posted = false
            return true
        }
    }
}

/// The document open in a ddjvuapi context of its own, and the last errors its messages told.
/// Used by one thread at a time (the document's `HandlePool` lends it): contexts decode at once
/// in different threads (what they share of djvulibre locks itself), and one context's
/// messages are read by the one thread that waits on them.
final class DjVuHandle {
    let path: String
    /// The copy djvulibre reads (nil: the file itself), kept open while this handle is.
    let snapshot: DjVuSnapshot?
    let context: OpaquePointer
    private(set) var document: OpaquePointer
    /// A job of `document` was stopped at a deadline. djvulibre keeps that page's decoding
    /// stopped (a later job on it ends stopped, blank or waiting), so the document is opened
    /// again before this handle decodes another page (`reopenIfStopped`).
    private(set) var stopped = false
    private let mailbox: Mailbox
    private var errors: [String] = []

    /// `path` (read from `snapshot` where there is one) opened in a new context; its directory
    /// is read by `open(deadline:)`.
    private init(path: String, snapshot: DjVuSnapshot?) throws {
        (self.path, self.snapshot) = (path, snapshot)
        let mailbox = Mailbox()
        guard let context = ddjvu_context_create("folio") else { throw PageError.invalid(path: path, message: "djvulibre failed to start") }
        ddjvu_message_set_callback(context, { _, closure in
            closure.map { Unmanaged<Mailbox>.fromOpaque($0).takeUnretainedValue().post() }
        }, Unmanaged.passUnretained(mailbox).toOpaque())
        guard let document = ddjvu_document_create_by_filename_utf8(context, snapshot?.path ?? path, 1) else {
            Self.close(context: context, document: nil)
            throw PageError.invalid(path: path, message: "not a readable DjVu document")
        }
        (self.context, self.document, self.mailbox) = (context, document, mailbox)
    }

    deinit { Self.close(context: context, document: document) }

    private static func close(context: OpaquePointer, document: OpaquePointer?) {
        if let document { ddjvu_job_release(ddjvu_document_job(document)) }
        ddjvu_message_set_callback(context, nil, nil)
        ddjvu_context_release(context)
    }

    /// `path` opened with its directory read (within `timeout` seconds) from `snapshot` where
    /// there is one, and its component files checked (`DjVuExpressions.checkComponents`), and
    /// those files.
    static func open(_ path: String, snapshot: DjVuSnapshot?, timeout: TimeInterval) throws -> (DjVuHandle, [DjVuExpressions.Component]) {
        let handle = try DjVuHandle(path: path, snapshot: snapshot)
        let status = try handle.await(ddjvu_document_job(handle.document), deadline: Date(timeIntervalSinceNow: timeout)) {
            PageError.invalid(path: path, message: "took more than \(Int(timeout)) s to open")
        }
        guard status == DDJVU_JOB_OK else { throw PageError.invalid(path: path, message: "not a readable DjVu document\(handle.detail)") }
        return (handle, try DjVuExpressions.checkComponents(handle.document, path: path))
    }

    /// Waits for `job` to finish (handling messages), its status; past `deadline`, stops it
    /// and throws what `timedOut` gives.
    func await(_ job: OpaquePointer?, deadline: Date, timedOut: () -> Error) throws -> ddjvu_status_t {
        while true {
            drain()
            let status = ddjvu_job_status(job)
            if status.rawValue >= DDJVU_JOB_OK.rawValue {
                // The error that failed it may be posted just after.
                drain()
                return status
            }
            guard waitForMessage(until: deadline) else {
                ddjvu_job_stop(job)
                stopped = true
                throw timedOut()
            }
        }
    }

    /// Opens the document again in this context if a job of it was stopped (within `timeout`).
    func reopenIfStopped(timeout: TimeInterval) throws {
        guard stopped else { return }
        guard let fresh = ddjvu_document_create_by_filename_utf8(context, snapshot?.path ?? path, 1) else { throw failure("cannot be read") }
        ddjvu_job_release(ddjvu_document_job(document))
        (document, stopped) = (fresh, false)
        let status = try self.await(ddjvu_document_job(fresh), deadline: Date(timeIntervalSinceNow: timeout)) {
            failure("took more than \(Int(timeout)) s to open again")
        }
        guard status == DDJVU_JOB_OK else { throw failure("cannot be read") }
    }

    /// An expression ddjvuapi gives as `miniexp_dummy` until the data it needs has arrived.
    func expression(deadline: Date, late: @autoclosure () -> Error, _ read: () -> miniexp_t?) throws -> miniexp_t? {
        while true {
            let exp = read()
            drain()
            if folio_miniexp_is_dummy(exp) == 0 { return exp }
            guard waitForMessage(until: deadline) else { throw late() }
        }
    }

    /// Page `index`'s size and rotation, read without decoding the page.
    func pageInfo(_ index: Int, deadline: Date) throws -> DjVuDocument.PageInfo {
        var info = ddjvu_pageinfo_t()
        var status = folio_ddjvu_pageinfo(document, Int32(index), &info)
        while status.rawValue < DDJVU_JOB_OK.rawValue {
            drain()
            guard waitForMessage(until: deadline) else { throw DjVuDocument.PageTrouble.slow }
            status = folio_ddjvu_pageinfo(document, Int32(index), &info)
        }
        drain()
        guard status == DDJVU_JOB_OK else { throw DjVuDocument.PageTrouble.unreadable }
        // A page's sides are 16 bits in the file: no size needs refusing, and none is
        // allocated (pages are drawn at the size asked).
        guard info.width > 0, info.height > 0 else { throw DjVuDocument.PageTrouble.noSize }
        return DjVuDocument.PageInfo(width: Double(info.width), height: Double(info.height), rotation: Int(info.rotation) & 3)
    }

    /// Waits until djvulibre posts a message or `deadline` comes; false once it has come. The
    /// deadline is looked at whatever wakes the wait: a document that includes itself posts
    /// messages without end, and a wait that only timed out when none came never ended.
    private func waitForMessage(until deadline: Date) -> Bool {
        guard Date() < deadline else { return false }
        _ = mailbox.wait(until: deadline)
        return true
    }

    /// Handles the messages waiting: errors are kept (the last few) for the next failure.
    func drain() {
        while let message = ddjvu_message_peek(context) {
            if message.pointee.m_any.tag == DDJVU_ERROR, let text = message.pointee.m_error.message {
                errors.append(String(cString: text))
                if errors.count > 4 { errors.removeFirst() }
            }
            ddjvu_message_pop(context)
        }
    }

    /// ": what djvulibre said last" (its first line, without the message number), or nothing.
    var detail: String {
        guard var last = errors.last?.split(separator: "\n").first.map(String.init) else { return "" }
        if last.hasPrefix("["), let end = last.firstIndex(of: "]") { last = String(last[last.index(after: end)...]) }
        last = last.trimmingCharacters(in: .whitespacesAndNewlines)
        if last.hasSuffix(".") { last.removeLast() }
        return last.isEmpty ? "" : ": " + last
    }

    /// A failure of what this handle did, with what djvulibre said (then forgotten); the page is
    /// named by whoever reports it (`PageSources.problem`).
    func failure(_ what: String) -> PageError {
        defer { errors.removeAll() }
        return .invalid(path: path, message: "\(what)\(detail)")
    }
}

/// One DjVu file. Its pages decode in parallel, each on a handle of its own (a context with
/// the document open in it) lent by `handles`, as many as the page store has workers.
final class DjVuDocument: PageSource, @unchecked Sendable {
    // @unchecked: handles are lent to one thread at a time by their pools; `sizes` is guarded by
    // `sizeLock`, `texts` by `textLock`.
    let path: String
    let pageCount: Int
    let title: String?
    let author: String?
    let outline: [OutlineEntry]
    let damage: String?
    private let labels: [Int: String]
    private let pageIDs: [String: Int]
    let handles: HandlePool<DjVuHandle>
    /// The copy of the file every handle reads (`DjVuSnapshot`), nil when they read the file.
    private let snapshot: DjVuSnapshot?
    private let ownTimeout: TimeInterval?
    private var timeout: TimeInterval { ownTimeout ?? PageSources.decodeTimeout }
    private let sizeLock = NSLock()
    private var sizes: [Int: PageInfo] = [:]
    /// Handles of their own for the text layer and annotations, opened on the first asked for
    /// (nil until then), so a search through the book never keeps a page waiting for a handle.
    private let textLock = NSLock()
    private var texts: HandlePool<DjVuHandle>?
    let paperSize: (width: Double, height: Double)?
    /// The shape of every page of the book: its paper's, unless that is no page's shape.
    private let aspect: Double

    /// Handles at most by default: the page store's workers (`PageStore.Configuration.workers`).
    static var defaultWorkers: Int { max(2, min(4, ProcessInfo.processInfo.activeProcessorCount - 1)) }

    /// A page's size as shown (its initial rotation applied) and that rotation in quarter
    /// turns counter-clockwise (the text layer and links are given unrotated).
    struct PageInfo {
        var width: Double, height: Double
        var rotation: Int
    }

    init(path: String, timeout: TimeInterval?, workers: Int = DjVuDocument.defaultWorkers) throws {
        self.path = path
        ownTimeout = timeout
        let limit = timeout ?? PageSources.decodeTimeout
        let (first, files) = try DjVuHandle.open(path, snapshot: DjVuSnapshot(of: path), timeout: limit)
        let deadline = Date(timeIntervalSinceNow: limit)
        let late = PageError.invalid(path: path, message: "took more than \(Int(limit)) s to open")
        let document = first.document
        damage = Self.shortfall(path)
        pageCount = Int(ddjvu_document_get_pagenum(document))
        guard pageCount > 0 else { throw PageError.invalid(path: path, message: "has no pages") }
        labels = DjVuExpressions.labels(files)
        pageIDs = DjVuExpressions.pageIDs(files)
        let anno = try first.expression(deadline: deadline, late: late) { ddjvu_document_get_anno(document, 1) }
        title = DjVuExpressions.metadata(anno, "title")
        author = DjVuExpressions.metadata(anno, "author")
        ddjvu_miniexp_release(document, anno)
        let outlineExp = try first.expression(deadline: deadline, late: late) { ddjvu_document_get_outline(document) }
        outline = DjVuExpressions.outline(outlineExp, pageCount: pageCount, ids: pageIDs)
        ddjvu_miniexp_release(document, outlineExp)
        var voters: [Int: PageInfo] = [:]
        paperSize = Book.paperSize(pageCount: pageCount) { index in
            let info = try? first.pageInfo(index, deadline: deadline)
            voters[index] = info
            return info.map { ($0.width, $0.height) }
        }
        aspect = Book.paperAspect(paper: paperSize)
        sizes = voters
        let (own, shared) = (timeout, first.snapshot)
        snapshot = shared
        handles = HandlePool(first: first, limit: workers, open: { try DjVuHandle.open(path, snapshot: shared, timeout: own ?? PageSources.decodeTimeout).0 })
    }

    // MARK: Pages

    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        (try? pageInfo(index)).map { ($0.width, $0.height) }
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let info = try pageInfo(index)
        let size = fit.fitting(aspect: aspect).fitting(aspect: info.width / info.height)
        let image = try withPage(index) { page, handle in
            try rasterise(page, handle, page: (0, 0, size.width, size.height), crop: (0, 0, size.width, size.height))
        }
        return PageRender(image: image.onPaper(aspect: aspect), scalable: Double(size.width) < info.width)
    }

    var rendersCrops: Bool { true }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        let info = try pageInfo(index)
        // The page on this document's paper, that paper on the book's: where the page's
        // pixels land in the whole page's pixels.
        let onPaper = RGBAImage.placement(own: aspect, onPaper: paperAspect)
            .placing(RGBAImage.placement(own: info.width / info.height, onPaper: aspect))
        let fw = Double(crop.full.width), fh = Double(crop.full.height)
        let px = Int((onPaper.x0 * fw).rounded()), py = Int((onPaper.y0 * fh).rounded())
        let pageRect = (px, py, max(1, Int((onPaper.x1 * fw).rounded()) - px), max(1, Int((onPaper.y1 * fh).rounded()) - py))
        return try withPage(index) { page, handle in
            try rasterise(page, handle, page: pageRect, crop: (crop.x, crop.y, crop.width, crop.height))
        }
    }

    /// Page `index`'s size and rotation, read from the document (without decoding the page) on
    /// a handle of `pool` (the render handles unless told).
    func pageInfo(_ index: Int, on pool: HandlePool<DjVuHandle>? = nil) throws -> PageInfo {
        guard (0..<pageCount).contains(index) else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
        if let s = sizeLock.withLock({ sizes[index] }) { return s }
        let s = try (pool ?? handles).with { handle in
            try handle.reopenIfStopped(timeout: timeout)
            do {
                return try handle.pageInfo(index, deadline: Date(timeIntervalSinceNow: timeout))
            } catch let what as PageTrouble {
                throw handle.failure(what.rawValue)
            }
        }
        sizeLock.withLock { sizes[index] = s }
        return s
    }

    /// What went wrong reading a page, before the message names the file.
    enum PageTrouble: String, Error {
        case unreadable = "cannot be read", noSize = "has no size", slow = "took too long to read"
    }

    /// Runs `body` with page `index` decoded (within the timeout) on a handle of its own.
    private func withPage<T>(_ index: Int, _ body: (OpaquePointer, DjVuHandle) throws -> T) throws -> T {
        guard (0..<pageCount).contains(index) else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
        return try handles.with { handle in
            try handle.reopenIfStopped(timeout: timeout)
            guard let page = ddjvu_page_create_by_pageno(handle.document, Int32(index)) else { throw handle.failure("cannot be read") }
            let job = ddjvu_page_job(page)
            defer { ddjvu_job_release(job) }
            let status = try handle.await(job, deadline: Date(timeIntervalSinceNow: timeout)) {
                handle.failure("took more than \(Int(timeout)) s to decode")
            }
            guard status == DDJVU_JOB_OK else { throw handle.failure("cannot be decoded") }
            return try body(page, handle)
        }
    }

    /// The pixels `crop` of the page drawn into `page` (both x, y, width, height in the
    /// output's pixels, y down), on white where the page is not.
    private func rasterise(_ p: OpaquePointer, _ handle: DjVuHandle, page: (Int, Int, Int, Int), crop: (Int, Int, Int, Int)) throws -> RGBAImage {
        // A buffer from the pool of page buffers, painted white paper (every byte 255) unless
        // the page covers all of it.
        let w = max(0, crop.2), h = max(0, crop.3)
        var out = RGBAImage(width: w, height: h, pixels: PixelPool.shared.take(count: w * h * 4))
        let x0 = max(page.0, crop.0), y0 = max(page.1, crop.1)
        let x1 = min(page.0 + page.2, crop.0 + crop.2), y1 = min(page.1 + page.3, crop.1 + crop.3)
        let paper: (inout RGBAImage) -> Void = { $0.pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 255) } }
        guard x1 > x0, y1 > y0 else {
            paper(&out)
            return out
        }
        if (x0, y0, x1, y1) != (crop.0, crop.1, crop.0 + crop.2, crop.1 + crop.3) { paper(&out) }
        // ddjvuapi takes 32-bit coordinates: a page scaled beyond them is not drawn (not trapped on).
        guard [page.0, page.1, page.0 + page.2, page.1 + page.3].allSatisfy({ abs($0) < Int(Int32.max) }) else {
            throw handle.failure("cannot be drawn that large")
        }
        // R, G, B and A in memory (a little-endian word), alpha set by the xor.
        var masks: [UInt32] = [0x0000_00ff, 0x0000_ff00, 0x00ff_0000, 0xff00_0000]
        guard let format = ddjvu_format_create(DDJVU_FORMAT_RGBMASK32, 4, &masks) else { throw handle.failure("cannot be drawn") }
        defer { ddjvu_format_release(format) }
        ddjvu_format_set_row_order(format, 1)
        ddjvu_format_set_y_direction(format, 1)
        var pageRect = ddjvu_rect_t(x: Int32(page.0), y: Int32(page.1), w: UInt32(page.2), h: UInt32(page.3))
        var renderRect = ddjvu_rect_t(x: Int32(x0), y: Int32(y0), w: UInt32(x1 - x0), h: UInt32(y1 - y0))
        let offset = ((y0 - crop.1) * out.width + (x0 - crop.0)) * 4
        let drawn = out.pixels.withUnsafeMutableBytes { bytes in
            ddjvu_page_render(p, DDJVU_RENDER_COLOR, &pageRect, &renderRect, format, UInt(w * 4),
                              bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self))
        }
        // Nothing drawn (a page with no image layer) is blank paper.
        if drawn == 0 { paper(&out) }
        handle.drain()
        return out
    }

    // MARK: What the document says about itself

    func label(ofPage index: Int) -> String? { labels[index] }

    func text(page index: Int) throws -> PageText? {
        let info = try pageInfo(index, on: textHandles)
        return try annotation(page: index, { ddjvu_document_get_pagetext($0, Int32(index), "word") }) { exp in
            var words: [TextWord] = []
            DjVuExpressions.collectWords(exp, into: &words) { region(of: $0, info) }
            return words.isEmpty ? nil : PageText(words: words)
        }
    }

    func links(page index: Int) -> [PageLink] {
        guard let info = try? pageInfo(index, on: textHandles) else { return [] }
        let links = try? annotation(page: index, { ddjvu_document_get_pageanno($0, Int32(index)) }) { anno -> [PageLink] in
            guard let areas = ddjvu_anno_get_hyperlinks(anno) else { return [] }
            defer { free(areas) }
            var links: [PageLink] = []
            var i = 0
            while let area = areas[i] {
                i += 1
                if let link = link(area, info) { links.append(link) }
            }
            return links
        }
        return links ?? []
    }

    /// `read`'s expression for page `index` (waited for), given to `body` and released.
    private func annotation<T>(page index: Int, _ read: @escaping (OpaquePointer) -> miniexp_t?, _ body: (miniexp_t?) throws -> T) throws -> T {
        try textHandles.with { handle in
            let document = handle.document
            let exp = try handle.expression(deadline: Date(timeIntervalSinceNow: timeout),
                                            late: handle.failure("took more than \(Int(timeout)) s to read")) { read(document) }
            defer { ddjvu_miniexp_release(document, exp) }
            return try body(exp)
        }
    }

    /// The handles text and annotations are read with: two, opened on first use; the render
    /// handles when no other can be opened.
    private var textHandles: HandlePool<DjVuHandle> {
        textLock.withLock {
            if let texts { return texts }
            let (path, own, snapshot) = (path, ownTimeout, snapshot)
            let open = { try DjVuHandle.open(path, snapshot: snapshot, timeout: own ?? PageSources.decodeTimeout).0 }
            guard let first = try? open() else { return handles }
            let pool = HandlePool(first: first, limit: 2, open: open)
            texts = pool
            return pool
        }
    }

    /// A box in page pixels (x right, y up, the page unrotated) as fractions of the paper.
    private func region(of box: (x0: Double, y0: Double, x1: Double, y1: Double), _ info: PageInfo) -> PageRegion {
        let (w, h) = info.rotation & 1 == 1 ? (info.height, info.width) : (info.width, info.height)
        // y down, then each quarter turn counter-clockwise: (x, y) → (y, 1 − x).
        var r = PageRegion(x0: box.x0 / w, y0: 1 - box.y1 / h, x1: box.x1 / w, y1: 1 - box.y0 / h)
        for _ in 0..<info.rotation { r = PageRegion(x0: r.y0, y0: 1 - r.x1, x1: r.y1, y1: 1 - r.x0) }
        return RGBAImage.placement(own: info.width / info.height, onPaper: aspect).placing(r)
    }

    /// A `(maparea url comment area …)` as a link; nil for shapes without a box or no target.
    private func link(_ area: miniexp_t?, _ info: PageInfo) -> PageLink? {
        var url = miniexp_nth(1, area)
        if miniexp_consp(url) != 0 { url = miniexp_nth(1, url) }  // (url "target" "frame")
        guard let target = DjVuExpressions.string(url), !target.isEmpty else { return nil }
        let shape = miniexp_nth(3, area)
        let numbers = DjVuExpressions.list(miniexp_cdr(shape)).compactMap { miniexp_numberp($0) != 0 ? Double(miniexp_to_int($0)) : nil }
        let box: (Double, Double, Double, Double)
        switch DjVuExpressions.symbol(miniexp_car(shape)) {
        case "rect", "oval", "text":
            guard numbers.count >= 4 else { return nil }
            box = (numbers[0], numbers[1], numbers[0] + numbers[2], numbers[1] + numbers[3])
        case "poly", "line":
            let xs = stride(from: 0, to: numbers.count - 1, by: 2).map { numbers[$0] }
            let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
            guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return nil }
            box = (x0, y0, x1, y1)
        default: return nil
        }
        let place = region(of: box, info)
        guard target.hasPrefix("#") else { return PageLink(box: place, target: .uri(target)) }
        return DjVuExpressions.page(of: target, pageCount: pageCount, ids: pageIDs).map { PageLink(box: place, target: .page($0)) }
    }

    // MARK: The file

    /// Damage in words when the file is shorter than its outer chunk says (a download cut
    /// short: the pages whose data is missing fail on their own).
    private static func shortfall(_ path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let head = try? file.read(upToCount: 12), head.count == 12, head.starts(with: Array("AT&TFORM".utf8)),
              let size = try? file.seekToEnd() else { return nil }
        let claimed = 12 + head[8..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return size < claimed ? "the file ends early (\(size) of \(claimed) bytes): pages past the end are lost" : nil
    }
}
