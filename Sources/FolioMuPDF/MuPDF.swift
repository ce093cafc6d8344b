import CMuPDFBridge
import FolioBook
import Foundation

/// EPUB (2 and 3: reflowable, fixed-layout, image-only), MOBI/AZW3, FB2, XHTML and XPS as page
/// sources, through MuPDF.
///
/// Reflowable books are laid out for the book's page (568 points high, as wide as `pageAspect`
/// says: the reference page, 362 × 568, unless the view it is shown in asks for another) at
/// `fontSize`, with Folio's stylesheet (margins, line height) over the publisher's. Pages are
/// rasterised at the size they are shown at, and a zoomed view gets crops at its own scale.
/// With `laysOutInBackground` a book opens once its first chapters are laid out, with its page
/// count estimated from them (`pagesEstimated`); `relaid` at the same size gives the whole count.
/// Does not: draw PDFs in `folio` (poppler does; `folio bench` compares, docs/documents.md),
/// or read DRM-encrypted books (it says so). A relayout (`relaid(fontSize:)`) opens the book anew.
///
/// Licence: MuPDF is AGPL-3.0, so a program that links this module is distributed under the
/// AGPL (docs/documents.md); FolioKit programs that do not register it do not link it.
public enum MuPDF {
    /// The text size (points) books are laid out at unless `--font-size` says otherwise.
    public static let defaultFontSize = 11.0
    /// Text sizes a book may be laid out at (points).
    public static let fontSizes = 4.0...72.0

    /// The text size reflowable books opened from now on are laid out at, within `fontSizes`.
    public static var fontSize: Double {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = min(max(newValue, fontSizes.lowerBound), fontSizes.upperBound) } }
    }
    private static let settings = Mutex(defaultFontSize)

    /// The shape (width / height) of the pages reflowable books opened from now on are laid out
    /// for, within `Book.reflowAspects` (the viewer follows its window: `Book.reflowAspect`).
    public static var pageAspect: Double {
        get { shape.withLock { $0 } }
        set {
            let bounds = Book.reflowAspects
            shape.withLock { $0 = newValue.isFinite ? min(max(newValue, bounds.lowerBound), bounds.upperBound) : Book.referencePageWidth / Book.referencePageHeight }
        }
    }
    private static let shape = Mutex(Book.referencePageWidth / Book.referencePageHeight)

    /// Whether reflowable books open before they are wholly laid out (the viewer: the first
    /// page shows at once and the rest is laid out in the background); otherwise (commands that
    /// print or capture) a book opens laid out to its last page, its page count exact.
    public static var laysOutInBackground: Bool {
        get { background.withLock { $0 } }
        set { background.withLock { $0 = newValue } }
    }
    private static let background = Mutex(false)

    /// Pages laid out before a book opens in the background mode: its first spreads, and enough
    /// chapters to estimate the rest from.
    static let firstPages = 12

    /// The kinds of document this module reads, each named for messages and `folio info`.
    public static let formats = [("EPUB", ["epub"]), ("MOBI", ["mobi", "azw", "azw3"]), ("FB2", ["fb2", "fbz"]),
                                 ("XHTML", ["xhtml"]), ("XPS", ["xps", "oxps"])].map { format($0, $1) }

    /// A format opened through MuPDF (any file MuPDF reads: `folio bench` gives it PDFs too).
    public static func format(_ name: String, _ extensions: [String]) -> PageSourceFormat {
        PageSourceFormat(name: name, extensions: extensions) { path, _ in
            try MuPDFDocument.open(path: path, fontSize: fontSize, pageAspect: pageAspect, wholeBook: !laysOutInBackground)
        }
    }

    /// Lets `Library.load` and page caches open e-books and XPS.
    public static func register() { formats.forEach(PageSources.register) }

    /// Folio's stylesheet over the publisher's: the page's margins and a readable line height.
    /// Sizes are bounded so that absurd publisher CSS (`font-size: 1e9px`) cannot make a page
    /// of one letter or a layout of millions of pages.
    static let readingCSS = """
        @page { margin: 2em 1.6em 2em 1.6em; }
        body { margin: 0 !important; line-height: 1.4; }
        p, li, blockquote { font-size: 1em !important; }
        h1 { font-size: 1.6em !important; } h2 { font-size: 1.35em !important; } h3, h4, h5, h6 { font-size: 1.15em !important; }
        """
    /// Fixed-layout pages fill their page: no margins of Folio's.
    static let fixedCSS = "@page { margin: 0; } body { margin: 0; }"

    /// Bytes MuPDF may allocate for one document (its images decoded included).
    static let memoryLimit = 512 << 20
}

/// Locks a value (Swift's `Mutex` needs a newer platform than `.macOS(.v13)`).
final class Mutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}

/// A layout given up after the decode timeout: MuPDF was still laying out chapter `chapters`
/// (0-based) of `of`.
struct LayoutGivenUp: Error {
    var seconds: Double
    var chapters: Int
    var of: Int

    var message: String {
        "laying out took over \(seconds.formatted()) s; "
            + (chapters == 0 ? "no chapter was laid out" : "showing the first \(chapters) of \(of) chapters")
    }
}

/// One e-book or XPS file, open in MuPDF (the bridge serialises access to it).
final class MuPDFDocument: ReflowableSource, @unchecked Sendable {
    // @unchecked: `doc` is used only through the bridge, which locks it; `laidOut` under its lock.
    let path: String
    /// Keeps the MuPDF document open while anything uses it: this, and a layout given up on
    /// that still runs on its worker (MuPDF 1.21 cannot stop one part-way).
    private final class Handle: @unchecked Sendable {
        // @unchecked: the bridge locks the document for each call.
        let doc: OpaquePointer
        init(_ doc: OpaquePointer) { self.doc = doc }
        deinit { folio_mu_close(doc) }
    }
    private let handle: Handle
    private var doc: OpaquePointer { handle.doc }
    /// Laid out only as far as this many chapters: a layout given up (`LayoutGivenUp`).
    private let givenUp: LayoutGivenUp?
    private let info: folio_mu_info
    let title: String?
    let author: String?
    /// The page count, the shape of the pages and the text size of the current layout, and
    /// whether the count is an estimate (the book is not laid out to its end).
    private let laidOut: Mutex<(pages: Int, aspect: Double, fontSize: Double, estimated: Bool)>
    /// The shape of the page box a reflowable book is laid out for (width / height).
    private let layoutAspect: Mutex<Double>

    /// Opens the book laid out at `fontSize` for pages of `pageAspect`: to its end, or (not
    /// `wholeBook`) its first chapters only, the rest laid out when a page of it is drawn.
    /// `givenUp`: lay out only the chapters an earlier layout got through.
    init(path: String, fontSize: Double, pageAspect: Double = Book.referencePageWidth / Book.referencePageHeight,
         wholeBook: Bool = true, givenUp: LayoutGivenUp? = nil) throws {
        self.path = path
        self.givenUp = givenUp
        var error = folio_mu_error()
        var info = folio_mu_info()
        guard let doc = folio_mu_open(FileName.bytes(path), MuPDF.memoryLimit, &info, &error) else {
            throw PageError.invalid(path: path, message: "not a readable e-book: \(Self.words(error))")
        }
        if let refusal = Self.refusal(info) {
            folio_mu_close(doc)
            throw PageError.invalid(path: path, message: refusal)
        }
        handle = Handle(doc)
        self.info = info
        let mobi = (title: Self.string(info.mobi_title), author: Self.string(info.mobi_author))
        title = Self.metadata(doc, "info:Title") ?? (mobi.title.isEmpty ? nil : mobi.title)
        // "Unknown" is what converters write when they know no author.
        author = Self.metadata(doc, "info:Author") ?? (mobi.author.isEmpty || mobi.author == "Unknown" ? nil : mobi.author)
        laidOut = Mutex((0, Book.referencePageWidth / Book.referencePageHeight, fontSize, false))
        // Fixed-layout books keep Folio's page box.
        layoutAspect = Mutex(Self.shape(pageAspect, of: info))
        // Fully initialised: from here a throw lets the handle go, which closes the document
        // once no layout uses it.
        try layout(fontSize: fontSize, wholeBook: wholeBook)
    }

    /// Opens the book as `init` does; when laying it out takes longer than the decode timeout,
    /// the chapters laid out by then, in a document of their own (the first one's layout
    /// finishes on its own), with a note saying so.
    static func open(path: String, fontSize: Double, pageAspect: Double, wholeBook: Bool = true) throws -> MuPDFDocument {
        do {
            return try MuPDFDocument(path: path, fontSize: fontSize, pageAspect: pageAspect, wholeBook: wholeBook)
        } catch let given as LayoutGivenUp {
            guard given.chapters > 0 else { throw PageError.invalid(path: path, message: given.message) }
            do {
                return try MuPDFDocument(path: path, fontSize: fontSize, pageAspect: pageAspect, givenUp: given)
            } catch let again as LayoutGivenUp {
                throw PageError.invalid(path: path, message: again.message)
            }
        }
    }

    /// An EPUB whose fonts are obfuscated is shown in MuPDF's fonts instead; a layout given up
    /// shows its first chapters.
    var notes: [String] {
        (info.obfuscated_fonts != 0 ? ["its embedded fonts are obfuscated (META-INF/encryption.xml); shown in other fonts"] : [])
            + (givenUp.map { [$0.message] } ?? [])
    }

    /// Why a book is not given to MuPDF at all, in words.
    private static func refusal(_ info: folio_mu_info) -> String? {
        if info.encrypted != 0 { return "the book is DRM-encrypted (META-INF/encryption.xml or rights.xml); Folio cannot read it" }
        let deep = string(info.too_deep)
        return deep.isEmpty ? nil : "\(deep): elements nested more than \(folio_mu_max_depth) deep; not laid out"
    }

    private static func words(_ error: folio_mu_error) -> String {
        let s = string(error.message)
        return s.isEmpty ? "unknown error" : s
    }

    /// A C char array's text up to its first zero.
    private static func string<T>(_ chars: T) -> String {
        var c = chars
        return withUnsafeBytes(of: &c) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func metadata(_ doc: OpaquePointer, _ key: String) -> String? {
        guard let value = folio_mu_metadata(doc, key) else { return nil }
        defer { free(value) }
        let s = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    /// Lays a reflowable book out for its page box at `fontSize` points (fixed pages keep
    /// theirs): to its end, or (not `wholeBook`) its first chapters, the count estimated.
    func layout(fontSize: Double, wholeBook: Bool = true) throws {
        var error = folio_mu_error()
        var count: (pages: Int32, estimated: Bool) = (-1, false)
        if info.reflowable != 0 {
            folio_mu_set_user_css(doc, info.pre_paginated != 0 ? MuPDF.fixedCSS : MuPDF.readingCSS)
            let box = pageBox
            if folio_mu_layout(doc, Float(box.width), Float(box.height), Float(fontSize), &error) == 0 {
                count = try chapters(wholeBook: wholeBook, fontSize: fontSize, &error)
            }
        } else {
            count = (folio_mu_count_pages(doc, &error), false)
        }
        let n = count.pages
        guard n >= 0 else { throw PageError.invalid(path: path, message: "cannot be laid out: \(Self.words(error))") }
        var box: [Float] = [0, 0, 0, 0]
        let first = n > 0 && folio_mu_bounds(doc, 0, &box, &error) == 0 ? (Double(box[2] - box[0]), Double(box[3] - box[1])) : nil
        let aspect = Book.paperAspect(firstPage: first)
        laidOut.withLock { $0 = (Int(n), aspect, fontSize, count.estimated) }
    }

    /// The page box laid out for, in points: a fixed-layout book's viewport (CSS pixels of
    /// 0.75 pt, so that a picture of the viewport's pixels, which MuPDF sizes at 96 dpi, fills
    /// it, as a comic's picture fills its page), else Folio's page of `pageAspect`.
    private var pageBox: (width: Double, height: Double) {
        let height = Book.referencePageHeight
        let viewport = (Double(info.viewport_width), Double(info.viewport_height))
        guard info.pre_paginated != 0, viewport.0 > 0, viewport.1 > 0,
              Book.pageWidth(firstPage: viewport.0, viewport.1) != nil else { return (height * pageAspect, height) }
        return (viewport.0 * 0.75, viewport.1 * 0.75)
    }

    /// What the workers laying chapters out have counted, read by the thread waiting for them.
    private final class Counting: @unchecked Sendable {
        // @unchecked: every field is touched under `lock`.
        let lock = NSLock()
        /// Each chapter's pages, once counted.
        var pages: [Int?]
        /// The next chapter a worker takes.
        var next = 0
        var error = folio_mu_error()
        var failed = false
        let done = DispatchSemaphore(value: 0)
        init(chapters: Int) { pages = Array(repeating: nil, count: chapters) }

        /// The chapters counted from the first, up to the first one not counted yet.
        var prefix: [Int] { Array(pages.prefix { $0 != nil }.map { $0! }) }

        /// The next chapter to count, or nil when all are taken, one failed, or `enough`
        /// pages are counted in the chapters from the first.
        func take(enough: Int) -> Int? {
            lock.withLock {
                guard !failed, next < pages.count, enough == .max || prefix.reduce(0, +) < enough else { return nil }
                next += 1
                return next - 1
            }
        }
    }

    /// Lays chapters out from the first: all of them (`wholeBook`; those of `givenUp`), or until
    /// `MuPDF.firstPages` pages are counted. On workers, waited for `PageSources.decodeTimeout`
    /// at most: a chapter still being laid out then is left to finish on its own and
    /// `LayoutGivenUp` says how far it got. The page count, estimated from the pages a chapter had
    /// so far when chapters are left (-1 on error).
    ///
    /// A whole book of several chapters is counted on two workers, each with a document of its
    /// own (MuPDF lays one document out on one thread at a time): a chapter's pages do not depend
    /// on the others', and this document lays out the chapters the other counted when a page of
    /// them is first drawn. Laying a book out is most of a command's start-up (docs/performance.md).
    private func chapters(wholeBook: Bool, fontSize: Double, _ error: inout folio_mu_error) throws -> (pages: Int32, estimated: Bool) {
        let chapters = Int(folio_mu_count_chapters(doc, &error))
        guard chapters >= 0 else { return (-1, false) }
        let last = min(givenUp?.chapters ?? chapters, chapters)
        let whole = wholeBook || givenUp != nil
        let counting = Counting(chapters: last), enough = whole ? Int.max : MuPDF.firstPages
        var handles = [handle]
        if whole, last > 1, ProcessInfo.processInfo.activeProcessorCount > 1, let other = helper(fontSize: fontSize) { handles.append(other) }
        let workers = DispatchGroup()
        for handle in handles {
            workers.enter()
            Thread.detachNewThread {
                var error = folio_mu_error()
                while let chapter = counting.take(enough: enough) {
                    let n = Int(folio_mu_count_chapter_pages(handle.doc, Int32(chapter), &error))
                    counting.lock.withLock {
                        if n >= 0 { counting.pages[chapter] = n } else if !counting.failed { (counting.failed, counting.error) = (true, error) }
                    }
                }
                workers.leave()
            }
        }
        workers.notify(queue: .global()) { counting.done.signal() }
        let seconds = PageSources.decodeTimeout
        let finished = counting.done.wait(timeout: seconds > 0 ? .now() + seconds : .distantFuture) == .success
        let (counts, failed) = counting.lock.withLock { (counting.prefix, counting.failed) }
        guard finished else { throw LayoutGivenUp(seconds: seconds, chapters: counts.count, of: chapters) }
        guard !failed else {
            error = counting.lock.withLock { counting.error }
            return (-1, false)
        }
        let pages = counts.reduce(0, +), laid = counts.count
        guard laid < last, givenUp == nil else { return (Int32(min(pages, Int(Int32.max))), false) }
        let estimate = pages + estimatedPages(of: laid..<chapters, from: counts)
        return (Int32(min(estimate, Int(Int32.max))), true)
    }

    /// The same book opened again and set up for this layout, for a second worker to count
    /// chapters in; nil if it cannot be (this document then counts them all).
    private func helper(fontSize: Double) -> Handle? {
        var error = folio_mu_error()
        var info = folio_mu_info()
        guard let other = folio_mu_open(FileName.bytes(path), MuPDF.memoryLimit, &info, &error) else { return nil }
        let handle = Handle(other)
        folio_mu_set_user_css(other, self.info.pre_paginated != 0 ? MuPDF.fixedCSS : MuPDF.readingCSS)
        let box = pageBox
        return folio_mu_layout(other, Float(box.width), Float(box.height), Float(fontSize), &error) == 0 ? handle : nil
    }

    /// The pages chapters `rest` will have, from the pages the first chapters had (`counts`).
    /// By their bytes when the spine's are known: a chapter of b bytes fills b / r pages, r the
    /// bytes a full page of the laid-out chapters held (a chapter's last page is half full on
    /// the whole; the fullest one-page chapter when none had more), and has a page at least. So
    /// short front matter (a cover, a title page) does not make a book of long chapters look
    /// short. Else pages per chapter so far, times the chapters left.
    private func estimatedPages(of rest: Range<Int>, from counts: [Int]) -> Int {
        let bytes = (0..<Int(folio_mu_spine_count(doc))).map { Double(folio_mu_chapter_bytes(doc, Int32($0))) }
        let laid = counts.indices
        guard bytes.count == rest.upperBound, !laid.isEmpty else {
            return max(rest.count, Int((Double(counts.reduce(0, +)) * Double(rest.count) / Double(max(counts.count, 1))).rounded()))
        }
        let long = laid.filter { counts[$0] > 1 }
        let perPage = long.isEmpty ? laid.map { bytes[$0] }.max() ?? 0
            : long.map { bytes[$0] }.reduce(0, +) / long.map { Double(counts[$0]) - 0.5 }.reduce(0, +)
        guard perPage > 0 else { return rest.count }
        return rest.map { max(1, Int((bytes[$0] / perPage + 0.5).rounded())) }.reduce(0, +)
    }

    var pageCount: Int { laidOut.withLock { $0.pages } }
    var pagesEstimated: Bool { laidOut.withLock { $0.estimated } }
    private var aspect: Double { laidOut.withLock { $0.aspect } }
    var fontSize: Double { laidOut.withLock { $0.fontSize } }
    var pageAspect: Double { layoutAspect.withLock { $0 } }

    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        try relaid(fontSize: fontSize, pageAspect: pageAspect, keeping: place)
    }

    func relaid(fontSize: Double, pageAspect: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        let from = place.pageAspect ?? self.pageAspect
        let relaid = try Self.open(path: path, fontSize: place.fontSize, pageAspect: from)
        guard place.fontSize != fontSize || relaid.pageAspect != MuPDFDocument.shape(pageAspect, of: info) else {
            return (relaid, min(place.page, max(relaid.pageCount - 1, 0)))
        }
        do {
            return (relaid, try relaid.follow(place.page, to: fontSize, pageAspect: pageAspect) ?? 0)
        } catch is LayoutGivenUp {
            // The new layout took too long: its first chapters, the place as far as they go.
            let first = try Self.open(path: path, fontSize: fontSize, pageAspect: pageAspect)
            return (first, min(place.page, max(first.pageCount - 1, 0)))
        }
    }

    /// The page box a book of `info` is laid out for when `pageAspect` is asked: fixed-layout
    /// books keep Folio's.
    private static func shape(_ pageAspect: Double, of info: folio_mu_info) -> Double {
        info.reflowable != 0 && info.pre_paginated == 0 ? pageAspect : Book.referencePageWidth / Book.referencePageHeight
    }

    var direction: ReadingDirection { info.right_to_left != 0 ? .rtl : .ltr }

    /// Whether the book is laid out by Folio (its page count depends on the text size).
    var reflowable: Bool { info.reflowable != 0 && info.pre_paginated == 0 }

    func page(of place: TextPlace) -> Int? {
        let aspect = place.pageAspect ?? pageAspect
        guard place.fontSize != fontSize || aspect != pageAspect, reflowable else {
            return (0..<pageCount).contains(place.page) || pagesEstimated && place.page >= 0 ? place.page : nil
        }
        // MuPDF's bookmarks point into one document's own layout: the place is found in a
        // copy laid out at its size, then followed to this one's.
        // Only the chapters up to the place are laid out, at either size.
        return try? MuPDFDocument(path: path, fontSize: place.fontSize, pageAspect: aspect, wholeBook: false)
            .follow(place.page, to: fontSize, pageAspect: pageAspect, wholeBook: false)
    }

    /// Lays this document out at `fontSize` for pages of `pageAspect`; the page that then holds
    /// the text page `index` started with: MuPDF's bookmark of it looked up in the new layout,
    /// when it is found in the same chapter. A bookmark points at MuPDF's laid-out chapter, which
    /// it may have let go and parsed again meanwhile: then the page as far through the same chapter.
    private func follow(_ index: Int, to fontSize: Double, pageAspect: Double, wholeBook: Bool = true) throws -> Int? {
        guard index >= 0, index < pageCount || pagesEstimated else { return nil }
        let mark = folio_mu_bookmark(doc, Int32(index))
        var inChapter: Int32 = 0, chapterPages: Int32 = 0
        let chapter = folio_mu_chapter_of(doc, Int32(index), &inChapter, &chapterPages)
        layoutAspect.withLock { $0 = Self.shape(pageAspect, of: info) }
        try layout(fontSize: fontSize, wholeBook: wholeBook)
        guard chapter >= 0 else { return nil }
        let found = folio_mu_lookup_bookmark(doc, mark)
        var at: Int32 = 0, newPages: Int32 = 0
        if found >= 0, folio_mu_chapter_of(doc, found, &at, &newPages) == chapter { return Int(found) }
        _ = folio_mu_chapter_of(doc, folio_mu_chapter_page(doc, chapter, 0), &at, &newPages)
        let p = folio_mu_chapter_page(doc, chapter, Int32(Double(inChapter) * Double(newPages) / Double(max(chapterPages, 1))))
        return p >= 0 ? Int(p) : nil
    }

    /// Page `index`'s box in points, or why it has none.
    private func bounds(_ index: Int) throws -> (x0: Double, y0: Double, width: Double, height: Double) {
        guard (0..<pageCount).contains(index) else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
        var error = folio_mu_error()
        var box: [Float] = [0, 0, 0, 0]
        guard folio_mu_bounds(doc, Int32(index), &box, &error) == 0 else {
            throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))")
        }
        let w = Double(box[2] - box[0]), h = Double(box[3] - box[1])
        guard w > 0, h > 0, w.isFinite, h.isFinite else { throw PageError.invalid(path: path, message: "page \(index + 1) has no size") }
        return (Double(box[0]), Double(box[1]), w, h)
    }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        (try? bounds(index)).map { ($0.width, $0.height) }
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let b: (x0: Double, y0: Double, width: Double, height: Double)
        do { b = try bounds(index) } catch where pagesEstimated {
            // Past the end of a book whose count was estimated too high: paper until the
            // whole layout gives the count.
            return PageRender(image: RGBAImage(width: 1, height: 1, fill: (255, 255, 255, 255)).onPaper(aspect: aspect), scalable: true)
        }
        let aspect = aspect
        let size = fit.fitting(aspect: aspect).fitting(aspect: b.width / b.height)
        let scale = Double(size.width) / b.width
        let image = try rasterise(index, width: size.width, height: size.height, offset: (0, 0), scale: (scale, scale))
        return PageRender(image: image.onPaper(aspect: aspect), scalable: true)
    }

    var rendersCrops: Bool { true }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        let b = try bounds(index)
        let onPaper = placement(b, paperAspect: paperAspect)
        let fw = Double(crop.full.width), fh = Double(crop.full.height)
        return try rasterise(index, width: crop.width, height: crop.height,
                             offset: (onPaper.x0 * fw - Double(crop.x), onPaper.y0 * fh - Double(crop.y)),
                             scale: (onPaper.width * fw / b.width, onPaper.height * fh / b.height))
    }

    /// Where page `index`'s box lies on paper of `paperAspect`, as `render` places it.
    private func placement(_ b: (x0: Double, y0: Double, width: Double, height: Double), paperAspect: Double) -> PageRegion {
        RGBAImage.placement(own: aspect, onPaper: paperAspect).placing(RGBAImage.placement(own: b.width / b.height, onPaper: aspect))
    }

    /// A render's stop flag, freed once neither the render nor its timer holds it.
    private final class Stop: @unchecked Sendable {
        // @unchecked: the cookie is MuPDF's, made to be aborted from another thread.
        let cookie = folio_mu_new_cookie()
        deinit { folio_mu_drop_cookie(cookie) }
    }

    private func rasterise(_ index: Int, width: Int, height: Int, offset: (x: Double, y: Double), scale: (x: Double, y: Double)) throws -> RGBAImage {
        var error = folio_mu_error()
        // A page still drawing after the decode timeout is stopped, so its thread is free again.
        let stop = Stop(), seconds = PageSources.decodeTimeout
        let timer = DispatchWorkItem { folio_mu_abort(stop.cookie) }
        if seconds > 0 { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer) } else { timer.perform() }
        defer { timer.cancel() }
        var status: Int32 = 0
        // Not filled here: the bridge paints the paper (one pass over a fresh buffer, not two).
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { bytes, initialised in
            status = folio_mu_render(doc, Int32(index), Float(scale.x), Float(scale.y), Float(offset.x), Float(offset.y),
                                     Int32(width), Int32(height), bytes.baseAddress, stop.cookie, &error)
            initialised = width * height * 4
        }
        guard status != -2 else { throw PageError.invalid(path: path, message: PageSources.abandoned(after: seconds)) }
        guard status == 0 else { throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))") }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    // MARK: What the book says about itself

    /// A box in points as fractions of the page's paper.
    private func region(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float,
                        in b: (x0: Double, y0: Double, width: Double, height: Double)) -> PageRegion {
        let onPaper = placement(b, paperAspect: aspect)
        return onPaper.placing(PageRegion(x0: (Double(x0) - b.x0) / b.width, y0: (Double(y0) - b.y0) / b.height,
                                          x1: (Double(x1) - b.x0) / b.width, y1: (Double(y1) - b.y0) / b.height))
    }

    func text(page index: Int) throws -> PageText? {
        let b = try bounds(index)
        var error = folio_mu_error()
        var words: UnsafeMutablePointer<folio_mu_word>?
        let n = Int(folio_mu_words(doc, Int32(index), &words, &error))
        guard n >= 0 else { throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))") }
        defer { folio_mu_free_words(words, Int32(n)) }
        guard n > 0, let words else { return nil }
        return PageText(words: (0..<n).map { i in
            let w = words[i]
            return TextWord(text: String(cString: w.text), box: region(w.x0, w.y0, w.x1, w.y1, in: b))
        })
    }

    func links(page index: Int) -> [PageLink] {
        guard let b = try? bounds(index) else { return [] }
        var error = folio_mu_error()
        var links: UnsafeMutablePointer<folio_mu_link>?
        let n = Int(folio_mu_links(doc, Int32(index), &links, &error))
        defer { folio_mu_free_links(links, Int32(max(n, 0))) }
        guard n > 0, let links else { return [] }
        return (0..<n).compactMap { i in
            let l = links[i]
            let target: LinkTarget
            if let uri = l.uri { target = .uri(String(cString: uri)) } else if l.page >= 0 { target = .page(Int(l.page)) } else { return nil }
            return PageLink(box: region(l.x0, l.y0, l.x1, l.y1, in: b), target: target)
        }
    }

    var outline: [OutlineEntry] {
        var error = folio_mu_error()
        var entries: UnsafeMutablePointer<folio_mu_outline>?
        let n = Int(folio_mu_outline_entries(doc, &entries, &error))
        defer { folio_mu_free_outline(entries, Int32(max(n, 0))) }
        guard n > 0, let entries else { return [] }
        let flat = (0..<n).map { i in
            (depth: Int(entries[i].depth), entry: OutlineEntry(title: String(cString: entries[i].title), page: entries[i].page >= 0 ? Int(entries[i].page) : nil))
        }
        var i = 0
        return Self.tree(flat, depth: 0, at: &i)
    }

    /// The entries from `i` on at `depth`, each with the deeper ones after it as children.
    private static func tree(_ flat: [(depth: Int, entry: OutlineEntry)], depth: Int, at i: inout Int) -> [OutlineEntry] {
        var level: [OutlineEntry] = []
        while i < flat.count, flat[i].depth >= depth {
            if flat[i].depth > depth, !level.isEmpty {
                level[level.count - 1].children = tree(flat, depth: flat[i].depth, at: &i)
            } else {
                level.append(flat[i].entry)
                i += 1
            }
        }
        return level
    }
}
