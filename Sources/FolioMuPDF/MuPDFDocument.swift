import CMuPDFBridge
import FolioBook
import FolioImage
import Foundation
import Synchronization

/// One e-book or XPS file, open in MuPDF (the bridge serialises access to it).
final class MuPDFDocument: ReflowableSource, ChapterTextSource, @unchecked Sendable {
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
    var doc: OpaquePointer { handle.doc }
    /// Laid out only as far as this many chapters: a layout given up (`LayoutGivenUp`).
    let givenUp: LayoutGivenUp?
    let info: folio_mu_info
    let title: String?
    let author: String?
    /// The page count, the shape of the pages and the text size of the current layout, whether
    /// the count is an estimate (the book is not laid out to its end), and the chapters whose
    /// pages are counted in it (laid out; all of a reflowable book laid out whole).
    let laidOut: Mutex<(pages: Int, paper: (width: Double, height: Double)?, fontSize: Double, estimated: Bool, chapters: Int)>
    /// Characters drawn on each page of the current layout counted so far (`characters(_:)`).
    let characterCounts = Mutex([Int: Int]())
    /// The place this layout was made to keep (`relaid`) and where it is in the text: asked
    /// again, it is found without laying the book out as the place says.
    let kept = Mutex<(place: TextPlace, text: TextPosition)?>(nil)
    /// The shape of the page box a reflowable book is laid out for (width / height).
    let layoutAspect: Mutex<Double>
    /// How its text is set.
    let typography: Typography
    /// Where its layout's page counts are kept (`MuPDF.layoutCache`) and under what, or nil.
    let cache: LayoutCache?
    let cacheKey: String?

    /// Opens the book laid out at `fontSize` for pages of `pageAspect`: as far as `extent` says
    /// (its count estimated when chapters are left), the rest laid out when a page of it is drawn.
    /// `givenUp`: lay out only the chapters an earlier layout got through.
    init(path: String, fontSize: Double, pageAspect: Double = Book.referencePageWidth / Book.referencePageHeight,
         typography: Typography = MuPDF.typography, extent: LayoutExtent = .whole, givenUp: LayoutGivenUp? = nil,
         cache: LayoutCache? = MuPDF.layoutCache) throws {
        self.path = path
        self.givenUp = givenUp
        self.typography = typography
        var error = folio_mu_error()
        var info = folio_mu_info()
        let cacheKey = cache != nil ? LayoutCache.key(path: path, typography: typography, pageAspect: pageAspect, fontSize: fontSize) : nil
        let counts = cacheKey.flatMap { cache?.read($0) } ?? []
        // The setting's strings, alive for the call.
        let texts: [String] = [MuPDF.patternFolders, typography.family ?? "", MuPDF.readingCSS(typography),
                               MuPDF.readingCSS(typography, installedFace: true), MuPDF.fixedCSS]
        let strings = texts.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        let opened = counts.withUnsafeBufferPointer { counts in
            var setting = folio_mu_setting(hyphenate: typography.hyphenate ? 1 : 0, pattern_dirs: strings[0],
                                           family: typography.family == nil ? nil : UnsafePointer(strings[1]),
                                           counts: counts.isEmpty ? nil : counts.baseAddress, counts_length: counts.count,
                                           css: strings[2], css_with_face: strings[3], css_fixed: strings[4],
                                           use_document_css: typography.publisherStyles ? 1 : 0,
                                           line_characters: Self.lineCharacters(fontSize: fontSize, pageAspect: pageAspect, typography: typography),
                                           block_aspect: Self.blockAspect(pageAspect: pageAspect, typography: typography),
                                           font_size: fontSize)
            return folio_mu_open(FileName.bytes(path), MuPDF.memoryLimit, &setting, &info, &error)
        }
        guard let doc = opened else {
            throw PageError.invalid(path: path, message: "not a readable e-book: \(Self.words(error))")
        }
        if let refusal = Self.refusal(info) {
            folio_mu_close(doc)
            throw PageError.invalid(path: path, message: refusal)
        }
        handle = Handle(doc)
        self.info = info
        self.cacheKey = cacheKey
        self.cache = cache
        let mobi = (title: Self.string(info.mobi_title), author: Self.string(info.mobi_author))
        title = Self.metadata(doc, "info:Title") ?? (mobi.title.isEmpty ? nil : mobi.title)
        // "Unknown" is what converters write when they know no author.
        author = Self.metadata(doc, "info:Author") ?? (mobi.author.isEmpty || mobi.author == "Unknown" ? nil : mobi.author)
        laidOut = Mutex((0, nil, fontSize, false, 0))
        // Fixed-layout books keep Folio's page box.
        layoutAspect = Mutex(Self.shape(pageAspect, of: info))
        // Fully initialised: from here a throw lets the handle go, which closes the document
        // once no layout uses it.
        try layout(fontSize: fontSize, extent: extent)
    }

    /// Opens the book as `init` does; when laying it out takes longer than the decode timeout,
    /// the chapters laid out by then, in a document of their own (the first one's layout
    /// finishes on its own), with a note saying so.
    static func open(path: String, fontSize: Double, pageAspect: Double, typography: Typography,
                     extent: LayoutExtent = .whole) throws -> MuPDFDocument {
        do {
            return try MuPDFDocument(path: path, fontSize: fontSize, pageAspect: pageAspect, typography: typography, extent: extent)
        } catch let given as LayoutGivenUp {
            guard given.chapters > 0 else { throw PageError.invalid(path: path, message: given.message) }
            do {
                return try MuPDFDocument(path: path, fontSize: fontSize, pageAspect: pageAspect, typography: typography, givenUp: given)
            } catch let again as LayoutGivenUp {
                throw PageError.invalid(path: path, message: again.message)
            }
        }
    }

    /// What the reader is told of how the book is shown: obfuscated fonts shown in MuPDF's, text
    /// set vertically shown across, no patterns for its language, no such installed typeface,
    /// a layout given up (its first chapters shown), chapters missing from the book.
    /// Fonts MuPDF has made from its built-in ones while laying this book out: one a face, not
    /// one a small-caps element (the copy's small-caps faces, epubcopy.c).
    var builtinFontsMade: Int { Int(folio_mu_builtin_fonts(doc)) }

    var notes: [String] {
        var notes: [String] = []
        if info.unread_fonts != 0 {
            notes.append("\(info.unread_fonts == 1 ? "an embedded font is" : "\(info.unread_fonts) embedded fonts are") obfuscated (META-INF/encryption.xml) and could not be undone; shown in other fonts")
        }
        if info.vertical != 0, reflowable { notes.append("its text is set vertically (writing-mode); Folio shows it horizontally") }
        if let language = missingPatterns { notes.append("no hyphenation patterns for its language (\(language)) are installed; not hyphenated") }
        if let family = typography.family, info.face == 0, reflowable, info.epub != 0 {
            notes.append("no installed typeface is called \(family); set in the book's own")
        }
        if let givenUp { notes.append(givenUp.message) }
        var missing: Int32 = 0
        if let first = folio_mu_missing(doc, &missing) {
            let others = missing > 1 ? " (nor \(missing - 1) other\(missing > 2 ? "s" : ""))" : ""
            notes.append("its chapter \(FileName.string(UnsafeRawBufferPointer(start: first, count: strlen(first)))) is not in the book\(others); a page in its place says so")
        }
        if let outside = folio_mu_outside(doc) {
            notes.append("not opened: \(FileName.string(UnsafeRawBufferPointer(start: outside, count: strlen(outside)))): the book names it but does not hold it, and Folio opens nothing outside the book")
        }
        return notes
    }

    /// The book's language when the reader asked for hyphenation and no patterns for it were
    /// found (a language written in a script that patterns hyphenate).
    var missingPatterns: String? {
        let language = Self.string(info.language)
        let primary = language.prefix { $0 != "-" && $0 != "_" }.lowercased()
        // "jp" is how some books miswrite Japanese (ja).
        let unbroken: Set = ["ar", "fa", "he", "ur", "yi", "ja", "jp", "zh", "ko", "th", "lo", "km", "my", "bo"]
        guard typography.hyphenate, reflowable, !language.isEmpty, Self.string(info.hyphenated).isEmpty,
              !unbroken.contains(primary) else { return nil }
        return language
    }

    /// The language whose patterns hyphenate the text, or nil.
    var hyphenationLanguage: String? {
        let language = Self.string(info.hyphenated)
        return language.isEmpty ? nil : language
    }

    /// Why a book is not given to MuPDF at all, in words.
    static func refusal(_ info: folio_mu_info) -> String? {
        if info.encrypted != 0 { return "the book is DRM-encrypted (META-INF/encryption.xml or rights.xml); Folio cannot read it" }
        let refused = string(info.refused)
        if !refused.isEmpty { return refused }
        let deep = string(info.too_deep)
        return deep.isEmpty ? nil : "\(deep): elements nested more than \(folio_mu_max_depth) deep; not laid out"
    }

    static func words(_ error: folio_mu_error) -> String { words(string(error.message)) }

    /// MuPDF's message for a person: an allocation past the document's memory limit (MuPDF says
    /// "calloc (25000000 x 24 bytes) failed") says which limit.
    static func words(_ message: String) -> String {
        guard !message.isEmpty else { return "unknown error" }
        let allocation = ["malloc of ", "calloc (", "realloc ("].contains { message.hasPrefix($0) } && message.contains(" failed")
        guard allocation || message == "out of memory" else { return message }
        return "needs more than the \(MuPDF.memoryLimit >> 20) MiB of memory one document may use (\(message))"
    }

    /// A C char array's text up to its first zero.
    static func string<T>(_ chars: T) -> String {
        var c = chars
        return withUnsafeBytes(of: &c) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func metadata(_ doc: OpaquePointer, _ key: String) -> String? {
        guard let value = folio_mu_metadata(doc, key) else { return nil }
        defer { free(value) }
        let s = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    /// Lays a reflowable book out for its page box at `fontSize` points (fixed pages keep
    /// theirs): as far as `extent` says, the count estimated when chapters are left.
    func layout(fontSize: Double, extent: LayoutExtent = .whole) throws {
        var error = folio_mu_error()
        var count: (pages: Int32, estimated: Bool, chapters: Int) = (-1, false, 0)
        if info.reflowable != 0 {
            let fixed = info.pre_paginated != 0
            folio_mu_set_user_css(doc, fixed ? MuPDF.fixedCSS : MuPDF.readingCSS(typography, installedFace: info.face != 0),
                                  fixed || typography.publisherStyles ? 1 : 0)
            let box = frame?.block ?? pageBox
            if folio_mu_layout(doc, Float(box.width), Float(box.height), Float(fontSize), &error) == 0 {
                // Counts kept from an earlier run for this layout count the whole book at once.
                let kept = keptCounts()
                count = try chapters(extent: kept.whole ? .whole : extent, &error)
                if let cacheKey, !kept.whole, !count.estimated, givenUp == nil, count.pages >= 0 {
                    let counts = keptCounts()
                    if counts.whole { cache?.write(counts.bytes, for: cacheKey) }
                }
            }
        } else {
            count = (folio_mu_count_pages(doc, &error), false, 0)
        }
        let n = count.pages
        guard n >= 0 else { throw PageError.invalid(path: path, message: "cannot be laid out: \(Self.words(error))") }
        var box: [Float] = [0, 0, 0, 0]
        // A reflowable page's paper is the text block and Folio's margins about it.
        let paper = frame.map { ($0.width, $0.height) } ?? Book.paperSize(pageCount: Int(n)) { index in
            folio_mu_bounds(doc, Int32(index), &box, &error) == 0 ? (Double(box[2] - box[0]), Double(box[3] - box[1])) : nil
        }
        laidOut.withLock { $0 = (Int(n), paper, fontSize, count.estimated, count.chapters) }
        characterCounts.withLock { $0 = [:] }
    }

    func chapter(ofPage index: Int) -> Int? {
        var inChapter: Int32 = 0, chapterPages: Int32 = 0
        let chapter = folio_mu_chapter_of(doc, Int32(index), &inChapter, &chapterPages)
        return chapter >= 0 ? Int(chapter) : nil
    }

    func chapterText(_ chapter: Int) -> String? {
        var length = 0
        guard let text = folio_mu_chapter_markup_text(doc, Int32(clamping: chapter), &length) else { return nil }
        defer { free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// The page counts of this layout as MuPDF keeps them (`folio_mu_layout_counts`), and
    /// whether every chapter's is counted.
    func keptCounts() -> (bytes: [UInt8], whole: Bool) {
        var length = 0
        guard cacheKey != nil, let raw = folio_mu_layout_counts(doc, &length) else { return ([], false) }
        defer { free(raw) }
        let bytes = Array(UnsafeBufferPointer(start: raw, count: length))
        // Nine numbers of four bytes, the ninth the chapters', then each chapter's pages (-1: not counted).
        func number(_ at: Int) -> Int32 { Int32(bitPattern: bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }) }
        var error = folio_mu_error()
        let chapters = Int(folio_mu_count_chapters(doc, &error))
        guard bytes.count >= 36, chapters > 0, Int(number(32)) == chapters, bytes.count == 36 + 4 * chapters else { return (bytes, false) }
        return (bytes, (0..<chapters).allSatisfy { number(36 + 4 * $0) >= 0 })
    }

    /// The page box laid out for, in points: a fixed-layout book's viewport (CSS pixels of
    /// 0.75 pt, so that a picture of the viewport's pixels, which MuPDF sizes at 96 dpi, fills
    /// it, as a comic's picture fills its page), else Folio's page of `pageAspect`.
    var pageBox: (width: Double, height: Double) {
        let height = Book.referencePageHeight
        let viewport = (Double(info.viewport_width), Double(info.viewport_height))
        guard info.pre_paginated != 0, viewport.0 > 0, viewport.1 > 0,
              Book.pageWidth(paper: viewport.0, viewport.1) != nil else { return (height * pageAspect, height) }
        return (viewport.0 * 0.75, viewport.1 * 0.75)
    }

    /// About how many characters a line of a reflowable page's text block holds (a character
    /// half the type size wide): the room a table's columns share.
    static func lineCharacters(fontSize: Double, pageAspect: Double, typography: Typography) -> Double {
        referenceFrame(pageAspect: pageAspect, typography: typography).block.width / (fontSize * 0.5)
    }

    /// A reflowable page's text block's height over its width: where a picture page's picture
    /// is centred.
    static func blockAspect(pageAspect: Double, typography: Typography) -> Double {
        let block = referenceFrame(pageAspect: pageAspect, typography: typography).block
        return block.height / block.width
    }

    /// A reflowable page's frame at the reference page height.
    private static func referenceFrame(pageAspect: Double, typography: Typography) -> PageFrame {
        let height = Book.referencePageHeight
        return PageFrame(width: height * pageAspect, height: height, margins: typography.margins)
    }

    /// Where a reflowable page's text block and furniture lie on its paper; nil for fixed pages.
    var frame: PageFrame? {
        guard reflowable else { return nil }
        let box = pageBox
        return PageFrame(width: box.width, height: box.height, margins: typography.margins)
    }

    /// Whether page `index` lies on the right of the spine (its inner margin on its left): a
    /// book's first page does, or, in a right-to-left book, on the left.
    func onRight(_ index: Int) -> Bool { (index % 2 == 0) != (direction == .rtl) }

    /// Page `index`'s running head and folio: the book's title over a page on the left, the
    /// title of the contents entry the page lies under over one on the right (the book's where
    /// none comes before it), the page number at the outer corner of the foot; no head on a
    /// chapter's first page, or where a contents entry starts at its top, as printed books leave
    /// them off their chapter openings. The number is the printed page's where the book lists
    /// its print edition's pages (a `page-list`, `folio_mu_printed_label`; none before the
    /// first), else the page's own.
    func furniture(_ index: Int) -> (head: String, foot: String, right: Bool)? {
        guard let frame, frame.block.width > 0 else { return nil }
        var inChapter: Int32 = 0, chapterPages: Int32 = 0
        guard folio_mu_chapter_of(doc, Int32(index), &inChapter, &chapterPages) >= 0, inChapter > 0 else { return nil }
        let right = onRight(index)
        var running = [CChar](repeating: 0, count: 256)
        let under = folio_mu_running_head(doc, Int32(index), &running, running.count)
        let chapter = under == 1 ? running.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
        let head = under == 2 ? "" : right ? chapter ?? title ?? "" : title ?? chapter ?? ""
        var printed = [CChar](repeating: 0, count: 64)
        let found = folio_mu_printed_label(doc, Int32(index), &printed, printed.count)
        return (head, found == 1 ? printed.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : found == 0 ? "" : "\(index + 1)", right)
    }

    /// What a worker laying chapters out has counted, read by the thread waiting for it.
    private final class Counting: @unchecked Sendable {
        // @unchecked: every field is touched under `lock`.
        let lock = NSLock()
        var pages: [Int] = []
        var error = folio_mu_error()
        var failed = false
        let done = DispatchSemaphore(value: 0)
    }

    /// Lays chapters out from the first: all of them (`.whole`; those of `givenUp`), or as far as
    /// `extent` says. On a worker, waited for `PageSources.decodeTimeout`
    /// at most: a chapter still being laid out then is left to finish on its own and
    /// `LayoutGivenUp` says how far it got. The page count, estimated from the pages a chapter had
    /// so far when chapters are left (-1 on error), and the chapters laid out.
    func chapters(extent: LayoutExtent, _ error: inout folio_mu_error) throws -> (pages: Int32, estimated: Bool, chapters: Int) {
        let chapters = Int(folio_mu_count_chapters(doc, &error))
        guard chapters >= 0 else { return (-1, false, 0) }
        let last = min(givenUp?.chapters ?? chapters, chapters)
        let counting = Counting(), handle = handle, extent = givenUp != nil ? .whole : extent, told = MuPDF.layoutProgress
        Thread.detachNewThread {
            var laid = 0, pages = 0, through = 0, error = folio_mu_error()
            // Ctrl-C stops it between chapters (a book of thousands of them took seconds to stop).
            while laid < last, !Interrupt.requested, !extent.reached(laid: laid, pages: pages, after: pages - through) {
                let n = Int(folio_mu_count_chapter_pages(handle.doc, Int32(laid), &error))
                guard n >= 0 else { counting.lock.withLock { (counting.failed, counting.error) = (true, error) }; break }
                counting.lock.withLock { counting.pages.append(n) }
                pages += n
                laid += 1
                told?(laid, last)
                if laid <= extent.chapter + 1 { through = pages }
            }
            counting.done.signal()
        }
        let seconds = PageSources.decodeTimeout
        let finished = counting.done.wait(timeout: seconds > 0 ? .now() + seconds : .distantFuture) == .success
        let (counts, failed) = counting.lock.withLock { (counting.pages, counting.failed) }
        guard finished else { throw LayoutGivenUp(seconds: seconds, chapters: counts.count, of: chapters) }
        guard !failed else {
            error = counting.lock.withLock { counting.error }
            return (-1, false, 0)
        }
        let pages = counts.reduce(0, +), laid = counts.count
        guard laid < last, givenUp == nil else { return (Int32(min(pages, Int(Int32.max))), false, laid) }
        let estimate = pages + estimatedPages(of: laid..<chapters, from: counts)
        return (Int32(min(estimate, Int(Int32.max))), true, laid)
    }

    /// The pages chapters `rest` will have, from the pages the first chapters had (`counts`).
    /// By their text when the spine's is known: a chapter of t characters (its markup not
    /// counted: a book may wrap every word in a tag) fills t / r pages, r the characters a full
    /// page of the laid-out chapters held (a chapter's last page is half full on the whole; the
    /// fullest one-page chapter when none had more), and has a page at least. So short front
    /// matter (a cover, a title page) does not make a book of long chapters look short. Else
    /// pages per chapter so far, times the chapters left.
    func estimatedPages(of rest: Range<Int>, from counts: [Int]) -> Int {
        let text = (0..<Int(folio_mu_spine_count(doc))).map { Double(folio_mu_chapter_text(doc, Int32($0))) }
        let laid = counts.indices
        guard text.count == rest.upperBound, !laid.isEmpty else {
            return max(rest.count, Int((Double(counts.reduce(0, +)) * Double(rest.count) / Double(max(counts.count, 1))).rounded()))
        }
        // Samples from the rest too: its two chapters with the most text below a bound (a few
        // dozen pages, laid out in a few milliseconds each). The first chapters alone are often
        // front matter (a title page, epigraphs, a contents list) that fills pages with little text.
        var error = folio_mu_error()
        let samples = rest.filter { text[$0] <= Self.sampleText }.sorted { text[$0] > text[$1] }.prefix(2).compactMap { chapter -> (text: Double, pages: Int)? in
            let n = Int(folio_mu_count_chapter_pages(doc, Int32(chapter), &error))
            return n > 0 && text[chapter] > 0 ? (text[chapter], n) : nil
        }
        let first: [(text: Double, pages: Int)] = laid.map { (text[$0], counts[$0]) }
        let measured = first + samples
        // The samples' pages when they have full ones: the rest is like them, not like the start.
        let sampled = samples.filter { $0.pages > 1 }
        let long = sampled.isEmpty ? measured.filter { $0.pages > 1 } : sampled
        let fullest = measured.map(\.text).max() ?? 0
        let chars = long.reduce(0.0) { $0 + $1.text }, pages = long.reduce(0.0) { $0 + Double($1.pages) - 0.5 }
        let perPage = long.isEmpty ? fullest : chars / pages
        guard perPage > 0 else { return rest.count }
        return rest.map { max(1, Int((text[$0] / perPage + 0.5).rounded())) }.reduce(0, +)
    }

    /// The most text a chapter laid out to sample the rest's pages may hold (about 25 pages).
    static let sampleText = 50_000.0

    var pageCount: Int { laidOut.withLock { $0.pages } }
    var pagesEstimated: Bool { laidOut.withLock { $0.estimated } }

    /// The count while it is an estimate; for a layout given up, the pages of the chapters laid
    /// out and those the others are estimated to fill.
    var estimatedPageCount: Int? {
        if pagesEstimated { return pageCount }
        guard let givenUp, reflowable else { return nil }
        var error = folio_mu_error()
        let counts = (0..<givenUp.chapters).map { Int(folio_mu_count_chapter_pages(doc, Int32($0), &error)) }
        guard !counts.contains(where: { $0 < 0 }) else { return nil }
        return counts.reduce(0, +) + estimatedPages(of: givenUp.chapters..<givenUp.of, from: counts)
    }
    var paperSize: (width: Double, height: Double)? { laidOut.withLock { $0.paper } }
    /// The shape of every page's paper.
    var aspect: Double { Book.paperAspect(paper: paperSize) }
    var fontSize: Double { laidOut.withLock { $0.fontSize } }
    var pageAspect: Double { layoutAspect.withLock { $0 } }

    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        try relaid(fontSize: fontSize, pageAspect: pageAspect, keeping: place)
    }

    /// The book opened anew at `fontSize` for pages of `pageAspect`, and its page holding
    /// `place`'s text: the same page when the place is of that layout, else the page holding the
    /// place's `TextPosition`. At this layout's size and shape it is laid out whole (the count
    /// made exact); at another, like a book first opened, only as far as the place and a few
    /// spreads after it, the count estimated (relaid again at its own size, it is laid out whole).
    func relaid(fontSize: Double, pageAspect: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        let target = TextPlace(fontSize: fontSize, page: 0, pageAspect: Self.shape(pageAspect, of: info))
        // Set anew (another typeface, spacing, margins…): the place is found by its text.
        let restyled = reflowable && typography != MuPDF.typography
        let own = !reflowable || !restyled && place.fontSize == target.fontSize && place.pageAspect.map { $0 == target.pageAspect } ?? true
        // Where the place is in the text, found in this layout before the new one is made.
        let text = own ? nil : position(of: place)
        let extent: LayoutExtent = holds(target) && !restyled ? .whole
            : own ? LayoutExtent(pages: place.page + 1 + MuPDF.firstPages)
            // A place not found in the text lands on its page number: laid out whole.
            : text.map { LayoutExtent(pages: MuPDF.firstPages, chapter: $0.chapter) } ?? .whole
        let relaid = try Self.open(path: path, fontSize: fontSize, pageAspect: pageAspect, typography: MuPDF.typography, extent: extent)
        let same = min(place.page, max(relaid.pageCount - 1, 0))
        if own {
            // Back in the place's own layout from another: its position maps the pages about it.
            if !holds(place), let text = relaid.textPosition(ofPage: same) { relaid.kept.withLock { $0 = (place, text) } }
            return (relaid, same)
        }
        guard let text, let page = relaid.page(at: text) else { return (relaid, same) }
        relaid.kept.withLock { $0 = (place, text) }
        return (relaid, page)
    }

    /// The page box a book of `info` is laid out for when `pageAspect` is asked: fixed-layout
    /// books keep Folio's.
    static func shape(_ pageAspect: Double, of info: folio_mu_info) -> Double {
        info.reflowable != 0 && info.pre_paginated == 0 ? pageAspect : Book.referencePageWidth / Book.referencePageHeight
    }
}
