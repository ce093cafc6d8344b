import CPoppler
import FolioBook
import FolioImage
import Foundation
import Synchronization

/// PDF documents as page sources, through poppler's GLib API rendering with cairo.
///
/// Pages are rasterised at the size asked for (the size they are shown at), and a zoomed view
/// gets the part of a page it shows at its own scale (a crop), so text stays sharp at any
/// zoom; nothing is rendered at open, which reads only the cross-reference table
/// and its first pages' sizes (`Book.paperSize`). Its outline, page labels, words and links are read on demand
/// (PDFNavigation.swift). Does not: search text (FolioFind does, over the words), open
/// links, or show forms and annotations beyond what poppler draws.
///
/// Licence: poppler is GPL-2.0-or-later (or GPL-3.0), so a program that links this module is
/// distributed under the GPL; Folio itself is GPL-3.0-or-later for that reason (README).
public enum PDF {
    public static let format = PageSourceFormat(name: "PDF", extensions: ["pdf"]) { path, password in
        try PDFDocument(path: path, password: password)
    }

    /// Lets `Library.load` and page caches open PDFs.
    public static func register() {
        PageSources.register(format)
        // poppler-glib's own warnings about a document's insides ("Invalid page 99 in Link
        // Destination") are not the reader's lines: what matters reaches them as one line.
        _ = quietPoppler
    }

    private static let quietPoppler: Void = {
        g_log_set_handler("Poppler", GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_CRITICAL.rawValue),
                          { _, _, _, _ in }, nil)
    }()
}

/// One PDF file. poppler's document objects are not thread-safe, so each use borrows a handle
/// on the same file (`HandlePool`): pages render in parallel, one per handle, and words are read
/// for search on handles of their own, so a search running through the book never keeps a page
/// the reader turns to waiting for a handle.
final class PDFDocument: PageSource, @unchecked Sendable {
    // @unchecked: the pools lock themselves; the size cache is guarded by `sizeLock`, the text pool by `textLock`.
    let path: String
    let pageCount: Int
    let title: String?
    private let password: String?
    private let uri: String
    private let renders: HandlePool<OpaquePointer>
    /// Handles for reading words, opened on the first text asked for (nil until then).
    private let textLock = NSLock()
    private var texts: HandlePool<OpaquePointer>?
    private let sizeLock = NSLock()
    private var sizes: [Int: (width: Double, height: Double)] = [:]
    /// A handle of its own for page labels, so that the on-screen layer never waits for pages
    /// being rendered, and the labels read so far (nil: the page has none); guarded by `info`.
    private let info = NSLock()
    private var infoHandle: OpaquePointer?
    private var labels: [Int: String?] = [:]
    let paperSize: (width: Double, height: Double)?
    /// The shape of every page of the book: its paper's, unless that is no page's shape.
    let aspect: Double
    /// Pages poppler must not be given: it would never finish them.
    private let hazards: PageHazards

    init(path: String, password: String?) throws {
        self.path = path
        hazards = PageHazards(path: path)
        self.password = password
        var error: UnsafeMutablePointer<GError>?
        // poppler opens a URI, which only an absolute path makes (the path typed may be relative).
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        guard let u = g_filename_to_uri(FileName.bytes(absolute), nil, &error) else { throw Self.failure(path, &error) }
        uri = String(cString: u)
        g_free(u)
        let doc = try Self.openHandle(path: path, uri: uri, password: password)
        let uri = uri
        renders = HandlePool(first: doc, limit: min(4, ProcessInfo.processInfo.activeProcessorCount - 1), open: {
            try Self.openHandle(path: path, uri: uri, password: password)
        }, close: Self.closeHandle)
        pageCount = Int(poppler_document_get_n_pages(doc))
        title = poppler_document_get_title(doc).flatMap { t in
            defer { g_free(t) }
            let s = String(cString: t).trimmingCharacters(in: .whitespacesAndNewlines)
            return s.isEmpty ? nil : s
        }
        var voters: [Int: (width: Double, height: Double)] = [:]
        paperSize = Book.paperSize(pageCount: pageCount) { index in
            let size = Self.size(of: doc, page: index)
            voters[index] = size
            return size
        }
        aspect = Book.paperAspect(paper: paperSize)
        sizes = voters
    }

    deinit {
        if let infoHandle { g_object_unref(UnsafeMutableRawPointer(infoHandle)) }
    }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        guard (0..<pageCount).contains(index) else { return nil }
        if let s = sizeLock.withLock({ sizes[index] }) { return s }
        let s = withHandle { Self.size(of: $0, page: index) }
        sizeLock.withLock { sizes[index] = s }
        return s
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        try refuseHazards(index)
        let image = try withPage(index) { page, w, h in
            let size = fit.fitting(aspect: aspect).fitting(aspect: w / h)
            let scale = Double(size.width) / w
            return Self.rasterise(page, width: size.width, height: size.height, offset: (0, 0), scale: (scale, scale))
        }
        return PageRender(image: image.onPaper(aspect: aspect), scalable: true)
    }

    var rendersCrops: Bool { true }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        try refuseHazards(index)
        return try withPage(index) { page, w, h in
            // The page on this document's paper, that paper on the book's: where the page's
            // points land in the whole page's pixels.
            let onPaper = RGBAImage.placement(own: aspect, onPaper: paperAspect)
                .placing(RGBAImage.placement(own: w / h, onPaper: aspect))
            let fw = Double(crop.full.width), fh = Double(crop.full.height)
            return Self.rasterise(page, width: crop.width, height: crop.height,
                                  offset: (onPaper.x0 * fw - Double(crop.x), onPaper.y0 * fh - Double(crop.y)),
                                  scale: (onPaper.width * fw / w, onPaper.height * fh / h))
        }
    }

    /// Throws for a page poppler would never finish (`PageHazards`): the page shows a
    /// placeholder, the rest of the book is read.
    private func refuseHazards(_ index: Int) throws {
        guard let why = hazards.refusal(onPage: index) else { return }
        throw PageError.invalid(path: path, message: why)
    }

    /// Runs `body` with page `index` and its size in points, on a handle of its own (one lent
    /// for reading words with `forText`).
    func withPage<T>(_ index: Int, forText: Bool = false, _ body: (OpaquePointer, Double, Double) throws -> T) throws -> T {
        try withPage(index, forText: forText) { _, page, w, h in try body(page, w, h) }
    }

    /// Runs `body` with the handle, page `index` of it and the page's size in points.
    func withPage<T>(_ index: Int, forText: Bool = false, _ body: (OpaquePointer, OpaquePointer, Double, Double) throws -> T) throws -> T {
        guard (0..<pageCount).contains(index) else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
        return try (forText ? textHandles : renders).with { doc in
            guard let page = poppler_document_get_page(doc, Int32(index)) else {
                throw PageError.invalid(path: path, message: "page \(index + 1) cannot be read")
            }
            defer { g_object_unref(UnsafeMutableRawPointer(page)) }
            var w = 0.0, h = 0.0
            poppler_page_get_size(page, &w, &h)
            guard w > 0, h > 0, w.isFinite, h.isFinite else {
                throw PageError.invalid(path: path, message: "page \(index + 1) has no size")
            }
            // A page drawn shows what the reader filled in its form.
            if !forText { applyFilled(to: doc) }
            return try body(doc, page, w, h)
        }
    }

    // MARK: poppler

    /// Draws a page on white paper into a `width × height` cairo image, its points scaled by
    /// `scale` and moved by `offset` pixels (a crop of a larger rendering), as RGBA. Cairo draws
    /// straight into the image's own bytes, which are then reordered in place: one buffer a
    /// page, written twice, taken from the pool of page buffers (a fresh one costs the kernel
    /// its pages: a third of a page's time, measured).
    private static func rasterise(_ page: OpaquePointer, width: Int, height: Int, offset: (x: Double, y: Double),
                                  scale: (x: Double, y: Double)) -> RGBAImage {
        let count = width * height
        var pixels = PixelPool.shared.take(count: count * 4)
        pixels.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            let surface = cairo_image_surface_create_for_data(base, CAIRO_FORMAT_RGB24, Int32(width), Int32(height), Int32(width * 4))
            defer { cairo_surface_destroy(surface) }
            let cr = cairo_create(surface)
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_translate(cr, offset.x, offset.y)
            cairo_scale(cr, scale.x, scale.y)
            poppler_page_render(page, cr)
            cairo_destroy(cr)
            cairo_surface_flush(surface)
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                bytes.update(repeating: 255)
                return
            }
            // RGB24 is one native-endian (little-endian) 32-bit word per pixel, 0xXXRRGGBB:
            // bytes B, G, R, X; RGBA is the word 0xFFBBGGRR.
            UnsafeMutableRawPointer(base).withMemoryRebound(to: UInt32.self, capacity: count) { words in
                for i in 0..<count {
                    let w = words[i]
                    words[i] = 0xFF00_0000 | (w & 0xFF00) | (w >> 16 & 0xFF) | (w & 0xFF) << 16
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    private static func size(of doc: OpaquePointer, page index: Int) -> (width: Double, height: Double)? {
        guard let page = poppler_document_get_page(doc, Int32(index)) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        var w = 0.0, h = 0.0
        poppler_page_get_size(page, &w, &h)
        return w > 0 && h > 0 && w.isFinite && h.isFinite ? (w, h) : nil
    }

    private static func openHandle(path: String, uri: String, password: String?) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let doc = poppler_document_new_from_file(uri, password, &error) else { throw failure(path, &error) }
        return doc
    }

    private static func closeHandle(_ doc: OpaquePointer) { g_object_unref(UnsafeMutableRawPointer(doc)) }

    /// The error poppler gave, as a `PageError` (and freed).
    static func failure(_ path: String, _ error: inout UnsafeMutablePointer<GError>?) -> PageError {
        defer { g_clear_error(&error) }
        guard let e = error?.pointee else { return .invalid(path: path, message: "not a readable PDF") }
        if e.domain == poppler_error_quark(), e.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) { return .protected(path: path) }
        let message = e.message.map { String(cString: $0) } ?? "unknown error"
        return .invalid(path: path, message: "not a readable PDF: \(message)")
    }

    /// Runs `body` with a handle of its own.
    func withHandle<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try renders.with(body) }

    /// The handles words are read with: as many as there are cores (at most 4), so a search
    /// reads pages in parallel; the render handles when no other can be opened.
    private var textHandles: HandlePool<OpaquePointer> {
        textLock.withLock {
            if let texts { return texts }
            guard let first = try? Self.openHandle(path: path, uri: uri, password: password) else { return renders }
            let (path, uri, password) = (path, uri, password)
            let pool = HandlePool(first: first, limit: min(4, ProcessInfo.processInfo.activeProcessorCount), open: {
                try Self.openHandle(path: path, uri: uri, password: password)
            }, close: Self.closeHandle)
            texts = pool
            return pool
        }
    }
}

// What the document says about itself (PageNavigation.swift): its author and its page labels.
extension PDFDocument {
    /// Read as the library loads (nothing renders yet), with the first handle.
    var author: String? {
        withHandle { doc in
            poppler_document_get_author(doc).flatMap { a in
                defer { g_free(a) }
                let s = String(cString: a).trimmingCharacters(in: .whitespacesAndNewlines)
                return s.isEmpty ? nil : s
            }
        }
    }

    /// The label the document gives page `index` (its /PageLabels: "iv", "17"); poppler numbers
    /// pages from 1 where the document has none.
    func label(ofPage index: Int) -> String? {
        guard (0..<pageCount).contains(index) else { return nil }
        return withInfoHandle { doc in
            if let known = labels[index] { return known }
            let label: String? = poppler_document_get_page(doc, Int32(index)).flatMap { page in
                defer { g_object_unref(UnsafeMutableRawPointer(page)) }
                return poppler_page_get_label(page).flatMap { l in
                    defer { g_free(l) }
                    // poppler numbers the pages of a document that labels none: that says nothing
                    // (`search` gave "39" for a page printed "9").
                    let s = String(cString: l)
                    return s.isEmpty || s == String(index + 1) ? nil : s
                }
            }
            labels[index] = .some(label)
            return label
        } ?? nil
    }

    /// Runs `body` with the metadata handle (opened on first use), nil when it cannot be opened.
    private func withInfoHandle<T>(_ body: (OpaquePointer) -> T) -> T? {
        info.lock()
        defer { info.unlock() }
        if infoHandle == nil { infoHandle = try? Self.openHandle(path: path, uri: uri, password: password) }
        return infoHandle.map(body)
    }
}

/// A PDF's form fields read and filled through poppler's form API. The values a reader filled
/// are kept by document (its handles are separate poppler documents: each is given the values
/// before it draws a page) and written only into a copy (`poppler_document_save` to a new file).
extension PDFDocument: FillableSource {
    /// The values filled so far, by document path.
    private static let filled = Mutex<[String: [Int: FormValue]]>([:])

    func fields(page index: Int) -> [FormField] {
        (try? withPage(index) { _, page, w, h in
            guard let mapping = poppler_page_get_form_field_mapping(page) else { return [] }
            defer { poppler_page_free_form_field_mapping(mapping) }
            let place = paperPlace(w, h)
            let fields = Self.items(of: mapping, as: PopplerFormFieldMapping.self).compactMap { m -> FormField? in
                guard let field = m.field, let kind = Self.kind(of: field) else { return nil }
                return FormField(id: Int(poppler_form_field_get_id(field)), name: Self.string(poppler_form_field_get_partial_name(field)) ?? "",
                                 box: place(Self.box(m.area, pageHeight: h)), kind: kind, readOnly: poppler_form_field_is_read_only(field) != 0)
            }
            // In reading order (poppler lists them last first).
            return fields.sorted { ($0.box.y0, $0.box.x0) < ($1.box.y0, $1.box.x0) }
        }) ?? []
    }

    /// What `field` holds, nil for a kind a reader does not fill (a push button, a signature).
    private static func kind(of field: OpaquePointer) -> FormField.Kind? {
        switch poppler_form_field_get_field_type(field) {
        case POPPLER_FORM_FIELD_TEXT:
            return .text(string(poppler_form_field_text_get_text(field)) ?? "")
        case POPPLER_FORM_FIELD_BUTTON where poppler_form_field_button_get_button_type(field) != POPPLER_FORM_BUTTON_PUSH:
            return .check(poppler_form_field_button_get_state(field) != 0)
        case POPPLER_FORM_FIELD_CHOICE:
            let n = min(Int(poppler_form_field_choice_get_n_items(field)), 1000)
            let items = (0..<max(n, 0)).map { string(poppler_form_field_choice_get_item(field, Int32($0))) ?? "" }
            return .choice(items, chosen: items.indices.first { poppler_form_field_choice_is_item_selected(field, Int32($0)) != 0 })
        default:
            return nil
        }
    }

    func fill(_ id: Int, with value: FormValue) {
        Self.filled.withLock { $0[path, default: [:]][id] = value }
    }

    /// Gives `doc` (a handle on this document) the values filled, before it draws a page.
    func applyFilled(to doc: OpaquePointer) {
        guard let values = Self.filled.withLock({ $0[path] }) else { return }
        for (id, value) in values {
            guard let field = poppler_document_get_form_field(doc, Int32(id)) else { continue }
            defer { g_object_unref(UnsafeMutableRawPointer(field)) }
            switch value {
            case let .text(text):
                let current = poppler_form_field_text_get_text(field).map { t in
                    defer { g_free(t) }
                    return String(cString: t)
                }
                if current != text { poppler_form_field_text_set_text(field, text) }
            case let .check(on):
                if (poppler_form_field_button_get_state(field) != 0) != on { poppler_form_field_button_set_state(field, on ? 1 : 0) }
            case let .choice(i):
                guard i < Int(poppler_form_field_choice_get_n_items(field)), poppler_form_field_choice_is_item_selected(field, Int32(i)) == 0 else { continue }
                poppler_form_field_choice_unselect_all(field)
                poppler_form_field_choice_select_item(field, Int32(i))
            }
        }
    }

    func saveFilled(to output: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let u = g_filename_to_uri(FileName.bytes(output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output), nil, &error) else {
            throw Self.failure(output, &error)
        }
        defer { g_free(u) }
        try withHandle { doc in
            applyFilled(to: doc)
            guard poppler_document_save(doc, u, &error) != 0 else { throw Self.failure(output, &error) }
        }
    }
}
