import FolioImage
import Foundation
import Synchronization

/// A width and height in pixels.
public struct PixelSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The largest size of `aspect` (width / height) inside this one, at least 1 × 1.
    public func fitting(aspect: Double) -> PixelSize {
        guard aspect.isFinite, aspect > 0 else { return self }
        let w = min(Double(width), Double(height) * aspect)
        return PixelSize(width: max(1, Int(w.rounded())), height: max(1, Int((w / aspect).rounded())))
    }
}

/// A part of a page: fractions of its paper from the top-left corner, x right and y down.
public struct PageRegion: Sendable, Hashable {
    public var x0, y0, x1, y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        (self.x0, self.y0, self.x1, self.y1) = (x0, y0, x1, y1)
    }

    public static let whole = PageRegion(x0: 0, y0: 0, x1: 1, y1: 1)

    public var width: Double { x1 - x0 }
    public var height: Double { y1 - y0 }
    public var isEmpty: Bool { !(x1 > x0 && y1 > y0) }

    public func contains(_ r: PageRegion) -> Bool { r.x0 >= x0 && r.y0 >= y0 && r.x1 <= x1 && r.y1 <= y1 }

    public func intersection(_ r: PageRegion) -> PageRegion {
        PageRegion(x0: max(x0, r.x0), y0: max(y0, r.y0), x1: min(x1, r.x1), y1: min(y1, r.y1))
    }

    /// `inner`, given in fractions of this region, in the fractions this region is given in.
    public func placing(_ inner: PageRegion) -> PageRegion {
        PageRegion(x0: x0 + inner.x0 * width, y0: y0 + inner.y0 * height, x1: x0 + inner.x1 * width, y1: y0 + inner.y1 * height)
    }
}

/// Whole pixels of a page rasterised at `full` size: the part of a page a zoomed view shows,
/// drawn at the scale it is shown at.
public struct PageCrop: Sendable, Hashable {
    public var full: PixelSize
    public var x, y, width, height: Int

    public init(full: PixelSize, x: Int, y: Int, width: Int, height: Int) {
        self.full = full
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The pixels of `full` that cover `region`, rounded outwards, inside the page.
    public init(covering region: PageRegion, of full: PixelSize) {
        let w = Double(full.width), h = Double(full.height)
        let x0 = clampInt((region.x0 * w).rounded(.down), full.width), y0 = clampInt((region.y0 * h).rounded(.down), full.height)
        let x1 = clampInt((region.x1 * w).rounded(.up), full.width), y1 = clampInt((region.y1 * h).rounded(.up), full.height)
        self.init(full: full, x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// What it covers, in fractions of the page.
    public var region: PageRegion {
        let w = Double(full.width), h = Double(full.height)
        return PageRegion(x0: Double(x) / w, y0: Double(y) / h, x1: Double(x + width) / w, y1: Double(y + height) / h)
    }

    public var byteCount: Int { width * height * 4 }
}

/// `value` (finite or not) as an index in 0…`limit`.
private func clampInt(_ value: Double, _ limit: Int) -> Int {
    value.isFinite ? Int(min(max(value, 0), Double(limit))) : 0
}

/// Why a page or a document cannot be shown, in words for a person (the path is the file's).
public enum PageError: Error, Equatable, CustomStringConvertible {
    /// The file is missing, unreadable, or not what its name says; `message` says which.
    case invalid(path: String, message: String)
    /// The document needs a password (none given, or a wrong one).
    case protected(path: String)
    /// The document failed to open before and that failure was reported then: a page of it
    /// shows a placeholder without another message.
    case reportedBefore(path: String)

    /// The reason without the path, for a `Problem` that names the file itself.
    public var reason: String {
        switch self {
        case let .invalid(_, message): message
        case .protected: "the document is password-protected; give its password with --password"
        case .reportedBefore: "could not be opened (reported above)"
        }
    }

    public var description: String {
        switch self {
        case let .invalid(path, _), let .protected(path), let .reportedBefore(path): "\(FileName.printable(path)): \(reason)"
        }
    }
}

/// A page rasterised for the screen.
public struct PageRender: Sendable {
    public var image: RGBAImage
    /// True for a vector page (or a photo decoded at reduced scale): asking again with a
    /// larger `fit` gives a sharper image. False when this is all the file holds.
    public var scalable: Bool
    /// Something wrong that still left an image (a JPEG that ends early), in words.
    public var warning: String?

    public init(image: RGBAImage, scalable: Bool, warning: String? = nil) {
        self.image = image
        self.scalable = scalable
        self.warning = warning
    }
}

/// A file that holds a book's pages: a PDF, a comic archive. Format modules (FolioPDF,
/// FolioArchive) implement it and register a `PageSourceFormat`, so FolioBook links none of
/// their libraries and a program that registers none still reads folders of images.
///
/// Every method may be called from any thread, concurrently.
public protocol PageSource: AnyObject, Sendable {
    /// Pages in reading order.
    var pageCount: Int { get }
    /// Whether `pageCount` is an estimate: a book still being laid out (its first pages are
    /// there; the count is found by laying it out again whole, `ReflowableSource.relaid`).
    var pagesEstimated: Bool { get }
    /// The title the document's metadata gives, if any.
    var title: String? { get }
    /// Damage met while opening that did not stop it (pages after it lost), in words.
    var damage: String? { get }
    /// What was seen while opening that loses nothing but is worth knowing (entries of one name
    /// in an archive, entries passed over), in words: `info` lists them as notes.
    var notes: [String] { get }
    /// Page `index`'s natural size (points for a PDF, pixels for an image); nil when it
    /// cannot be told without decoding.
    func pageSize(_ index: Int) -> (width: Double, height: Double)?
    /// The natural size of the paper every page is put on (`Book.paperSize`: the shape most of
    /// its first pages have); nil when no page's size can be told.
    var paperSize: (width: Double, height: Double)? { get }
    /// Page `index` as large as fits in `fit`, on paper of `paperSize`'s shape (a page of
    /// another shape is centred on it), so all pages of a book share one aspect.
    func render(page index: Int, fit: PixelSize) throws -> PageRender
    /// Whether `render(page:crop:paperAspect:)` gives pages sharper than `render(page:fit:)`
    /// can (vector pages): a zoomed view then asks for the part it shows.
    var rendersCrops: Bool { get }
    /// The pixels `crop` of page `index` rasterised as if the whole page were `crop.full`, on
    /// paper of `paperAspect` placed as `render` and `RGBAImage.onPaper` place it; nil for
    /// pages with no more detail than `render` gives.
    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage?

    // What the document says about itself (PageNavigation.swift; defaults: nothing).
    /// The author the document's metadata gives, if any.
    var author: String? { get }
    /// Which way its pages turn.
    var direction: ReadingDirection { get }
    /// The label printed on page `index` ("iv", "17"), if the document has labels.
    func label(ofPage index: Int) -> String?
    /// Its contents, in document order.
    var outline: [OutlineEntry] { get }
    /// Page `index`'s text with word boxes; nil when the page has no text layer.
    func text(page index: Int) throws -> PageText?
    /// Page `index`'s links.
    func links(page index: Int) -> [PageLink]
}

extension PageSource {
    public var damage: String? { nil }
    public var pagesEstimated: Bool { false }
    public var notes: [String] { [] }
    public var rendersCrops: Bool { false }
    public func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? { nil }
    /// Asked of its pages each time: a source that puts pages on this paper keeps it.
    public var paperSize: (width: Double, height: Double)? { Book.paperSize(pageCount: pageCount, pageSize: pageSize) }
}

/// A kind of document a module can open.
public struct PageSourceFormat: Sendable {
    /// For messages: "PDF", "comic archive".
    public var name: String
    /// File name extensions, lower case, without the dot.
    public var extensions: [String]
    /// Opens a regular file (checked before); `password` for protected documents.
    public var open: @Sendable (_ path: String, _ password: String?) throws -> PageSource
    /// Print on paper, which a reader's theme recolours (`Theme`); false for pictures
    /// (comics, photographs), shown as they are.
    public var printed: Bool

    public init(name: String, extensions: [String], printed: Bool = true,
                open: @escaping @Sendable (String, String?) throws -> PageSource) {
        self.name = name
        self.extensions = extensions
        self.printed = printed
        self.open = open
    }
}

/// The documents a program (or a test) has open: the password tried on protected ones, the
/// open-document LRU and the documents that failed to open. Each owner makes its own (a
/// failure in one is not a failure in another), and gives it to every part that opens documents.
///
/// Thread-safe: every method may be called from any thread. Does not: know formats (those
/// are registered with `PageSources`) or decide what is shown.
public final class DocumentRegistry: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var passwordTried: String?
    private var open: [String: PageSource] = [:]
    /// Open documents, least recently used first.
    private var recent: [String] = []
    private var failed: Set<String> = []

    /// Documents kept open at most: a shelf of hundreds of PDFs holds only the ones in use.
    public static let maxOpen = 16

    /// What the reader marked on these documents' pages, painted as they are rasterised.
    public let marks = PageMarks()

    public init(password: String? = nil) { passwordTried = password }

    /// The password tried on protected documents. A new one retries the documents that failed.
    public var password: String? {
        get { lock.withLock { passwordTried } }
        set {
            lock.withLock {
                guard newValue != passwordTried else { return }
                passwordTried = newValue
                failed = []
            }
        }
    }

    /// `path`'s document, now the most recently used.
    private func use(_ path: String) -> PageSource? {
        guard let source = open[path] else { return nil }
        recent.removeAll { $0 == path }
        recent.append(path)
        return source
    }

    /// Keeps `source` open, closing the least recently used beyond `maxOpen` (a render in
    /// flight keeps its own reference: it finishes, then the document closes).
    private func keep(_ source: PageSource, for path: String) -> PageSource {
        if let s = use(path) { return s }
        open[path] = source
        recent.append(path)
        while recent.count > Self.maxOpen { open[recent.removeFirst()] = nil }
        return source
    }

    /// The document at `path`, opened once and kept (the `maxOpen` most recently used stay
    /// open; others are opened again when needed); a document that failed to open throws
    /// `.reportedBefore` from then on (its first error was reported by whoever opened it),
    /// until a new password is given.
    public func open(_ path: String) throws -> PageSource {
        if let s = lock.withLock({ use(path) }) { return s }
        if lock.withLock({ failed.contains(path) }) { throw PageError.reportedBefore(path: path) }
        do {
            guard let format = PageSources.format(of: path) else { throw PageError.invalid(path: path, message: "not a known document kind") }
            try PageSources.requireRegularFile(path)
            let source = try format.open(path, password)
            return lock.withLock { keep(source, for: path) }
        } catch {
            lock.withLock { _ = failed.insert(path) }
            throw error
        }
    }

    /// The document at `path` if it is open now; never opens it.
    public func opened(_ path: String) -> PageSource? { lock.withLock { open[path] } }

    /// Closes every document open (each opens again when asked for next): a command laying
    /// reflowable books out for other pages from now on.
    public func closeAll() { lock.withLock { (open, recent) = ([:], []) } }

    /// Puts `source` in place of the document open at `path` (a relayout of it): pages asked
    /// for from now on come from `source`.
    public func replace(_ path: String, with source: PageSource) {
        lock.withLock {
            failed.remove(path)
            open[path] = nil
            recent.removeAll { $0 == path }
            _ = keep(source, for: path)
        }
    }
}

/// The registered document formats (a page is named by a `PageRef`).
public enum PageSources {
    private static let formats = Mutex<[PageSourceFormat]>([])
    private static let timeout = Mutex<TimeInterval>(60)

    /// Seconds one page may take to decode (the image timeout of the command). Engines that can
    /// stop a page part-way (JPEG, MuPDF) give it up then with an error ("still decoding after
    /// … s; abandoned"), so its worker is free again; the PDF engine, which cannot, stops
    /// counting it, so that other pages do not wait behind it.
    public static var decodeTimeout: TimeInterval {
        get { timeout.withLock { $0 } }
        set { timeout.withLock { $0 = newValue } }
    }

    /// Uses of a document past the decode timeout that its other pages pass by (`HandlePool`:
    /// each holds a handle and a busy thread); beyond them its pages wait for one to end.
    public static let maxOverdue = 4

    /// The words for a page given up after `seconds` (`decodeTimeout`).
    public static func abandoned(after seconds: TimeInterval) -> String {
        "still decoding after \(seconds.formatted()) s; abandoned"
    }

    /// Makes a format known (a second registration of an extension replaces the first).
    public static func register(_ format: PageSourceFormat) {
        formats.withLock {
            $0.removeAll { !Set($0.extensions).isDisjoint(with: format.extensions) }
            $0.append(format)
        }
    }

    /// The format a file name's extension says, if one is registered.
    public static func format(of name: String) -> PageSourceFormat? {
        let ext = (name as NSString).pathExtension.lowercased()
        guard !ext.isEmpty else { return nil }
        return formats.withLock { $0.first { $0.extensions.contains(ext) } }
    }

    /// Whether a file name is a page image Folio decodes itself.
    public static func isImage(_ name: String) -> Bool {
        ["png", "jpg", "jpeg", "webp"].contains((name as NSString).pathExtension.lowercased())
    }

    /// Refuses what is not a regular file (a FIFO would block the reader forever).
    static func requireRegularFile(_ path: String) throws {
        var st = stat()
        guard stat(FileName.bytes(path), &st) == 0 else {
            throw PageError.invalid(path: path, message: "cannot read: \(FileError.reason())")
        }
        let type = FileType(mode: st.st_mode)
        guard type == .regular else { throw PageError.invalid(path: path, message: "cannot read: is \(type.phrase), not a file") }
    }

    /// The pixel size in a PNG's or a JPEG's header (told by its content, not its name).
    public static func imageSize(of bytes: [UInt8], path: String = "<memory>") throws -> (width: Int, height: Int) {
        if JPEG.sniff(bytes) { return try JPEG.size(of: bytes, path: path) }
        if WebP.sniff(bytes) { return try WebP.size(of: bytes, path: path) }
        let h = try PNG.header(of: bytes, path: path)
        return (h.width, h.height)
    }

    /// A problem with `page`, naming the file (and the page of a document).
    public static func problem(_ page: PageRef, _ reason: String) -> Problem {
        guard let (path, index) = page.documentPage else { return Problem(file: page.path, message: reason) }
        // Engines whose words name the page already ("page 2: …", "page 2 cannot be read") are not named it twice.
        let place = "page \(index + 1)"
        return Problem(file: path, message: reason.hasPrefix(place + ":") || reason.hasPrefix(place + " ") ? reason : "\(place): \(reason)")
    }

    /// A PNG, JPEG or WebP in memory (told by its content, not its name), decoded for `fit`.
    public static func decode(_ bytes: [UInt8], path: String, fit: PixelSize, maxPixels: Int = PNG.defaultMaxPixels) throws -> PageRender {
        if WebP.sniff(bytes) {
            let image = try WebP.decode(bytes, path: path, fit: fit, maxPixels: maxPixels)
            let (w, h) = try WebP.size(of: bytes, path: path, maxPixels: maxPixels)
            return PageRender(image: image, scalable: image.width < w || image.height < h)
        }
        if JPEG.sniff(bytes) {
            let (image, warning) = try JPEG.decode(bytes, path: path, fit: fit, maxPixels: maxPixels)
            let (w, h) = try JPEG.size(of: bytes, path: path, maxPixels: maxPixels)
            return PageRender(image: image, scalable: image.width < w || image.height < h, warning: warning)
        }
        let head = try PNG.header(of: bytes, path: path, maxPixels: maxPixels)
        return PageRender(image: try PNG.decode(bytes, path: path, maxPixels: maxPixels, fit: fit),
                          scalable: PNG.isScaled(head, maxSide: PNG.defaultMaxSide, fit: fit))
    }
}

extension DocumentRegistry {
    /// The natural size of the paper a book whose first page is `page` is shaped by: its
    /// document's (`PageSource.paperSize`), or an image's own; nil if unknown.
    public func paperSize(_ page: PageRef) -> (width: Double, height: Double)? {
        guard let (path, _) = page.documentPage else { return naturalSize(page) }
        return (try? open(path))?.paperSize
    }

    /// A page's natural size (points or pixels), read without decoding it; nil if unknown.
    public func naturalSize(_ page: PageRef) -> (width: Double, height: Double)? {
        guard case let .image(file) = page else { return page.documentPage.flatMap { try? open($0.path).pageSize($0.index) } }
        guard let bytes = try? PNG.readBytes(path: file, limit: 1 << 20),
              let size = try? PageSources.imageSize(of: bytes, path: file) else { return nil }
        return (Double(size.width), Double(size.height))
    }

    /// Checks a page without decoding it: an image file's header (PNG, JPEG or WebP), a document
    /// page's existence. Throws what is wrong.
    public func check(_ page: PageRef) throws {
        if let (path, index) = page.documentPage {
            guard try open(path).pageCount > index else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
            return
        }
        // Read only as a regular file: the type is checked on the open file.
        _ = try PageSources.imageSize(of: PNG.readBytes(path: page.path, limit: 1 << 20), path: page.path)
    }

    /// `page`'s image for a page shown at most `fit` large.
    public func render(_ page: PageRef, fit: PixelSize, maxPixels: Int = PNG.defaultMaxPixels,
                              maxSide: Int = PNG.defaultMaxSide) throws -> PageRender {
        if let (path, index) = page.documentPage {
            let source = try open(path)
            guard source.pageCount > index else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
            var page = try source.render(page: index, fit: fit)
            marks.paintReadersMarks(&page.image, path: path, page: index, of: source)
            PageMarks.mark(&page.image, boxes: marks.boxes(path, page: index), current: marks.currentBoxes(path, page: index))
            return page
        }
        // Plain files are opened as regular files only (`InputFile`). A large PNG is read a row
        // at a time and scaled to `fit` as the rows arrive, so its memory follows the size it
        // is shown at, whatever its header claims; shown larger later, it is read again.
        let file = page.path
        if try PNG.readBytes(path: file, limit: 8) == PNG.signature {
            let head = try PNG.header(path: file, maxPixels: maxPixels)
            return PageRender(image: try PNG.read(path: file, maxPixels: maxPixels, maxSide: maxSide, fit: fit),
                              scalable: PNG.isScaled(head, maxSide: maxSide, fit: fit))
        }
        return try PageSources.decode(PNG.readBytes(path: file), path: file, fit: fit, maxPixels: maxPixels)
    }

    /// Whether `page` is a vector page that `renderCrop` draws sharper than `render`.
    public func rendersCrops(_ page: PageRef) -> Bool {
        guard let (path, _) = page.documentPage else { return false }
        return (try? open(path).rendersCrops) ?? false
    }

    /// The pixels `crop` of `page` on paper of `paperAspect` (see
    /// `PageSource.render(page:crop:paperAspect:)`); nil for a bitmap page.
    public func renderCrop(_ page: PageRef, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        guard let (path, index) = page.documentPage else { return nil }
        let source = try open(path)
        guard source.pageCount > index else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
        guard var image = try source.render(page: index, crop: crop, paperAspect: paperAspect) else { return nil }
        // Marks are on the document's paper, which sits on the book's as `onPaper` puts it.
        let paper = RGBAImage.placement(own: Book.paperAspect(paper: source.paperSize), onPaper: paperAspect)
        marks.paintReadersMarks(&image, path: path, page: index, of: source, placing: paper.placing, shown: crop.region)
        PageMarks.mark(&image, boxes: marks.boxes(path, page: index).map(paper.placing),
                       current: marks.currentBoxes(path, page: index).map(paper.placing), shown: crop.region)
        return image
    }
}

extension RGBAImage {
    /// The image centred on paper of `aspect` (width / height); itself when within 2 %. Paper
    /// far from the image's shape is mostly white: the image shrinks so that no side of the
    /// paper exceeds `maxSide` (a 150 × 200 page on a 1:2000 sheet is not 150 × 300,000).
    public func onPaper(aspect: Double, maxSide: Int = 16384) -> RGBAImage {
        guard width > 0, height > 0, aspect.isFinite, aspect > 0 else { return self }
        let own = Double(width) / Double(height)
        guard !Self.fillsPaper(own: own, aspect: aspect) else { return self }
        let paper = own > aspect ? (Double(width), Double(width) / aspect) : (Double(height) * aspect, Double(height))
        let scale = min(1, Double(max(1, maxSide)) / max(paper.0, paper.1))
        let image = scale < 1 ? scaledToFit(maxWidth: Int(Double(width) * scale), maxHeight: Int(Double(height) * scale)) : self
        let w = max(image.width, Int((paper.0 * scale).rounded())), h = max(image.height, Int((paper.1 * scale).rounded()))
        var out = RGBAImage(width: w, height: h, fill: (255, 255, 255, 255))
        let (x0, y0) = ((w - image.width) / 2, (h - image.height) / 2)
        for y in 0..<image.height {
            out.pixels.replaceSubrange(((y0 + y) * w + x0) * 4..<((y0 + y) * w + x0 + image.width) * 4,
                                       with: image.pixels[(y * image.width) * 4..<(y * image.width + image.width) * 4])
        }
        return out
    }

    /// Where `onPaper(aspect:)` puts an image of aspect `own` (width / height), in fractions
    /// of the paper: centred, or the whole paper when the shapes are within 2 %.
    public static func placement(own: Double, onPaper aspect: Double) -> PageRegion {
        guard own.isFinite, own > 0, aspect.isFinite, aspect > 0, !fillsPaper(own: own, aspect: aspect) else { return .whole }
        if own > aspect {
            let h = aspect / own
            return PageRegion(x0: 0, y0: (1 - h) / 2, x1: 1, y1: (1 + h) / 2)
        }
        let w = own / aspect
        return PageRegion(x0: (1 - w) / 2, y0: 0, x1: (1 + w) / 2, y1: 1)
    }

    /// An image this close to the paper's shape is stretched onto it rather than centred.
    private static func fillsPaper(own: Double, aspect: Double) -> Bool { abs(own / aspect - 1) <= 0.02 }
}
