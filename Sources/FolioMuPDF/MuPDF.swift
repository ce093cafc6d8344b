import CMuPDFBridge
import FolioBook
import FolioImage
import Foundation
import Synchronization

/// EPUB (2 and 3: reflowable, fixed-layout, image-only), MOBI/AZW3, FB2, XHTML and XPS as page
/// sources, through MuPDF.
///
/// Reflowable books are laid out for the book's page (568 points high, as wide as `pageAspect`
/// says: the reference page, 362 × 568, unless the view it is shown in asks for another) at
/// `fontSize`, with Folio's stylesheet (margins, line height) over the publisher's. Pages are
/// rasterised at the size they are shown at, and a zoomed view gets crops at its own scale.
/// With `laysOutInBackground` a book opens once its first chapters are laid out (as far as
/// `pagesLaidOutFirst`), with its page count estimated from them (`pagesEstimated`); `relaid` at
/// another size lays out as far as the place kept, and at the same size gives the whole count.
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

    /// Where EPUBs' page counts are kept between runs (`LayoutCache`), or nil: none kept. The
    /// `folio` program keeps them in `LayoutCache.standard()`.
    public static var layoutCache: LayoutCache? {
        get { cache.withLock { $0 } }
        set { cache.withLock { $0 = newValue } }
    }
    private static let cache = Mutex<LayoutCache?>(nil)

    /// Pages laid out before a book opens in the background mode: its first spreads, and enough
    /// chapters to estimate the rest from.
    static let firstPages = 12

    /// Pages a book opening in the background mode is laid out to at least (`firstPages` or
    /// more): a capture of page 600 lays the chapters up to it out, and no further.
    public static var pagesLaidOutFirst: Int {
        get { laidOutFirst.withLock { $0 } }
        set { laidOutFirst.withLock { $0 = max(newValue, firstPages) } }
    }
    private static let laidOutFirst = Mutex(firstPages)

    /// The kinds of document this module reads, each named for messages and `folio info`.
    public static let formats = [("EPUB", ["epub"]), ("MOBI", ["mobi", "azw", "azw3"]), ("FB2", ["fb2", "fbz"]),
                                 ("XHTML", ["xhtml"]), ("XPS", ["xps", "oxps"])].map { format($0, $1) }

    /// A format opened through MuPDF (any file MuPDF reads: `folio bench` gives it PDFs too).
    public static func format(_ name: String, _ extensions: [String]) -> PageSourceFormat {
        PageSourceFormat(name: name, extensions: extensions) { path, _ in
            try MuPDFDocument.open(path: path, fontSize: fontSize, pageAspect: pageAspect, typography: typography,
                                   extent: laysOutInBackground ? LayoutExtent(pages: pagesLaidOutFirst) : .whole)
        }
    }

    /// Lets `Library.load` and page caches open e-books and XPS.
    public static func register() { formats.forEach(PageSources.register) }

    /// How reflowable books opened from now on are set (the viewer's typography panel and
    /// every command's `--font`, `--line-spacing`, `--margins`, `--justify`, `--hyphenate`,
    /// `--publisher-styles`).
    public static var typography: Typography {
        get { setting.withLock { $0 } }
        set { setting.withLock { $0 = newValue } }
    }
    private static let setting = Mutex(Typography.standard)

    /// Where libhyphen's pattern files (`hyph_LANG.dic`, Debian's `hyphen-*` packages) are
    /// looked for: `hyphen` in each XDG data folder.
    static var patternFolders: String {
        let data = ProcessInfo.processInfo.environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        return data.split(separator: ":").map { "\($0)/hyphen" }.joined(separator: ":")
    }

    /// Folio's stylesheet over the publisher's. Right-to-left paragraphs are set flush to their
    /// start, not justified: MuPDF sets a justified paragraph's last line to the left whatever
    /// its direction (and a `left` in right-to-left text is its start, the right). The page's
    /// margins are Folio's (the text block
    /// is laid out as MuPDF's page; `PageFrame` puts it on the paper), so the publisher's page
    /// and body margins and the backgrounds of `html`, `body` and the boxes wrapping a chapter
    /// are taken away: the paper and the theme colour the page. Sizes are bounded so that absurd
    /// publisher CSS (`font-size: 1e9px`) cannot make a page of one letter or a layout of
    /// millions of pages.
    static func readingCSS(_ typography: Typography, installedFace: Bool = false) -> String {
        var face: String? = switch typography.face {
        case .publisher: nil
        case .serif: "serif"
        case .sans: "sans-serif"
        case .mono: "monospace"
        }
        // The reader's installed face: its files are in the prepared copy, where MuPDF looks a
        // user stylesheet's sources up.
        var faces = ""
        if installedFace {
            face = "folio-face"
            for (file, weight, style) in [("r", "normal", "normal"), ("b", "bold", "normal"), ("i", "normal", "italic"), ("bi", "bold", "italic")] {
                faces += "@font-face { font-family: folio-face; font-weight: \(weight); font-style: \(style); src: url(folio-face-\(file).ttf); }\n"
            }
        }
        let text = "body, p, div, li, blockquote, dd, dt, td, th"
        return faces + """
            @page { margin: 0 !important; }
            html, body { margin: 0 !important; padding: 0 !important; background-color: transparent !important; }
            body > div, body > section, body > article, body > main { background-color: transparent !important; }
            body { text-align: \(typography.justify ? "justify" : "left"); }
            [dir="rtl"] p, [dir="rtl"] li, [dir="rtl"] blockquote, [dir="rtl"] div, p[dir="rtl"] { text-align: left !important; }
            \(typography.justify ? "" : "p { text-align: left; }")
            \(text) { line-height: \((typography.lineSpacing * 100).rounded() / 100) !important; }
            p, li, blockquote { font-size: 1em !important; }
            h1 { font-size: 1.6em !important; } h2 { font-size: 1.35em !important; } h3, h4, h5, h6 { font-size: 1.15em !important; }
            \(face.map { "\(text), span, a, em, i, b, strong, h1, h2, h3, h4, h5, h6 { font-family: \($0) !important; }" } ?? "")
            """
    }
    /// Fixed-layout pages fill their page: no margins of Folio's.
    static let fixedCSS = "@page { margin: 0; } body { margin: 0; }"

    /// Bytes MuPDF may allocate for one document (its images decoded included): a sixteenth of
    /// the machine's memory, from 512 MiB to 1 GiB. MuPDF holds a chapter's boxes whole, about
    /// twenty times its markup: a chapter of 25 MB takes 490 MB, one of 50 MB is what 1 GiB
    /// allows; a book beyond it is refused with one line that says so, not the machine's memory.
    static let memoryLimit = min(max(Int(ProcessInfo.processInfo.physicalMemory / 16), 512 << 20), 1 << 30)
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

/// How far a reflowable book is laid out before it opens (MuPDF lays the chapters after out when
/// a page of them is first drawn or counted): chapters from the first until `pages` pages are
/// counted and chapter `chapter` (0-based) is laid out with `MuPDF.firstPages` after it.
struct LayoutExtent: Sendable {
    var pages: Int
    var chapter = -1

    /// To its last page: the count exact.
    static let whole = LayoutExtent(pages: .max)
    /// Its first spreads: what the viewer opens on.
    static let opening = LayoutExtent(pages: MuPDF.firstPages)

    /// Whether chapters laid out so far (`laid` of them, holding `pages`, of which `after` come
    /// after chapter `chapter`) are enough.
    func reached(laid: Int, pages: Int, after: Int) -> Bool {
        pages >= self.pages && laid > chapter && (chapter < 0 || after >= MuPDF.firstPages)
    }
}

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
    private var doc: OpaquePointer { handle.doc }
    /// Laid out only as far as this many chapters: a layout given up (`LayoutGivenUp`).
    private let givenUp: LayoutGivenUp?
    private let info: folio_mu_info
    let title: String?
    let author: String?
    /// The page count, the shape of the pages and the text size of the current layout, whether
    /// the count is an estimate (the book is not laid out to its end), and the chapters whose
    /// pages are counted in it (laid out; all of a reflowable book laid out whole).
    private let laidOut: Mutex<(pages: Int, aspect: Double, fontSize: Double, estimated: Bool, chapters: Int)>
    /// Characters drawn on each page of the current layout counted so far (`characters(_:)`).
    private let characterCounts = Mutex([Int: Int]())
    /// The place this layout was made to keep (`relaid`) and where it is in the text: asked
    /// again, it is found without laying the book out as the place says.
    private let kept = Mutex<(place: TextPlace, text: TextPosition)?>(nil)
    /// The shape of the page box a reflowable book is laid out for (width / height).
    private let layoutAspect: Mutex<Double>
    /// How its text is set.
    let typography: Typography
    /// Where its layout's page counts are kept (`MuPDF.layoutCache`) and under what, or nil.
    private let cache: LayoutCache?
    private let cacheKey: String?
    /// Its chapters' titles for the running heads (nil where the outline names none), read once.
    private let heads = Mutex<[String?]?>(nil)

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
                                           css: strings[2], css_with_face: strings[3], css_fixed: strings[4])
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
        laidOut = Mutex((0, Book.referencePageWidth / Book.referencePageHeight, fontSize, false, 0))
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
    /// a layout given up (its first chapters shown).
    var notes: [String] {
        var notes: [String] = []
        if info.obfuscated_fonts != 0 { notes.append("its embedded fonts are obfuscated (META-INF/encryption.xml); shown in other fonts") }
        if info.vertical != 0, reflowable { notes.append("its text is set vertically (writing-mode); Folio shows it horizontally") }
        if let language = missingPatterns { notes.append("no hyphenation patterns for its language (\(language)) are installed; not hyphenated") }
        if let family = typography.family, info.face == 0, reflowable, info.epub != 0 {
            notes.append("no installed typeface is called \(family); set in the book's own")
        }
        if let givenUp { notes.append(givenUp.message) }
        if let outside = folio_mu_outside(doc) {
            notes.append("not opened: \(FileName.string(UnsafeRawBufferPointer(start: outside, count: strlen(outside)))), outside the book")
        }
        return notes
    }

    /// The book's language when the reader asked for hyphenation and no patterns for it were
    /// found (a language written in a script that patterns hyphenate).
    private var missingPatterns: String? {
        let language = Self.string(info.language)
        let primary = language.prefix { $0 != "-" && $0 != "_" }.lowercased()
        let unbroken: Set = ["ar", "fa", "he", "ur", "yi", "ja", "zh", "ko", "th", "lo", "km", "my", "bo"]
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
    private static func refusal(_ info: folio_mu_info) -> String? {
        if info.encrypted != 0 { return "the book is DRM-encrypted (META-INF/encryption.xml or rights.xml); Folio cannot read it" }
        let refused = string(info.refused)
        if !refused.isEmpty { return refused }
        let deep = string(info.too_deep)
        return deep.isEmpty ? nil : "\(deep): elements nested more than \(folio_mu_max_depth) deep; not laid out"
    }

    private static func words(_ error: folio_mu_error) -> String { words(string(error.message)) }

    /// MuPDF's message for a person: an allocation past the document's memory limit (MuPDF says
    /// "calloc (25000000 x 24 bytes) failed") says which limit.
    static func words(_ message: String) -> String {
        guard !message.isEmpty else { return "unknown error" }
        let allocation = ["malloc of ", "calloc (", "realloc ("].contains { message.hasPrefix($0) } && message.contains(" failed")
        guard allocation || message == "out of memory" else { return message }
        return "needs more than the \(MuPDF.memoryLimit >> 20) MiB of memory one document may use (\(message))"
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
        let first = frame.map { ($0.width, $0.height) }
            ?? (n > 0 && folio_mu_bounds(doc, 0, &box, &error) == 0 ? (Double(box[2] - box[0]), Double(box[3] - box[1])) : nil)
        let aspect = Book.paperAspect(firstPage: first)
        laidOut.withLock { $0 = (Int(n), aspect, fontSize, count.estimated, count.chapters) }
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
    private func keptCounts() -> (bytes: [UInt8], whole: Bool) {
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
    private var pageBox: (width: Double, height: Double) {
        let height = Book.referencePageHeight
        let viewport = (Double(info.viewport_width), Double(info.viewport_height))
        guard info.pre_paginated != 0, viewport.0 > 0, viewport.1 > 0,
              Book.pageWidth(firstPage: viewport.0, viewport.1) != nil else { return (height * pageAspect, height) }
        return (viewport.0 * 0.75, viewport.1 * 0.75)
    }

    /// Where a reflowable page's text block and furniture lie on its paper; nil for fixed pages.
    private var frame: PageFrame? {
        guard reflowable else { return nil }
        let box = pageBox
        return PageFrame(width: box.width, height: box.height, margins: typography.margins)
    }

    /// Whether page `index` lies on the right of the spine (its inner margin on its left): a
    /// book's first page does, or, in a right-to-left book, on the left.
    private func onRight(_ index: Int) -> Bool { (index % 2 == 0) != (direction == .rtl) }

    /// Page `index`'s running head and folio: the book's title over a page on the left, the
    /// chapter's over one on the right, the page number at the outer corner of the foot; none
    /// on a chapter's first page, as printed books leave them off their chapter openings. The
    /// number is the printed page's where the book lists its print edition's pages (a `page-list`,
    /// `folio_mu_printed_label`; none before the first), else the page's own.
    func furniture(_ index: Int) -> (head: String, foot: String, right: Bool)? {
        guard let frame, frame.block.width > 0 else { return nil }
        var inChapter: Int32 = 0, chapterPages: Int32 = 0
        let number = Int(folio_mu_chapter_of(doc, Int32(index), &inChapter, &chapterPages))
        guard number >= 0, inChapter > 0 else { return nil }
        let right = onRight(index)
        let titles = chapterTitles
        let chapter = titles.indices.contains(number) ? titles[number] : nil
        let head = right ? chapter ?? title ?? "" : title ?? chapter ?? ""
        var printed = [CChar](repeating: 0, count: 64)
        let found = folio_mu_printed_label(doc, Int32(index), &printed, printed.count)
        return (head, found == 1 ? String(cString: printed) : found == 0 ? "" : "\(index + 1)", right)
    }

    /// Each chapter's title from the outline (read without laying the book out).
    private var chapterTitles: [String?] {
        if let known = heads.withLock({ $0 }) { return known }
        var error = folio_mu_error()
        var titles: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let n = Int(folio_mu_chapter_titles(doc, &titles, &error))
        defer { folio_mu_free_titles(titles, Int32(max(n, 0))) }
        let found: [String?] = n > 0 && titles != nil ? (0..<n).map { i in titles![i].map { String(cString: $0) } } : []
        heads.withLock { $0 = found }
        return found
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
    private func chapters(extent: LayoutExtent, _ error: inout folio_mu_error) throws -> (pages: Int32, estimated: Bool, chapters: Int) {
        let chapters = Int(folio_mu_count_chapters(doc, &error))
        guard chapters >= 0 else { return (-1, false, 0) }
        let last = min(givenUp?.chapters ?? chapters, chapters)
        let counting = Counting(), handle = handle, extent = givenUp != nil ? .whole : extent
        Thread.detachNewThread {
            var laid = 0, pages = 0, through = 0, error = folio_mu_error()
            while laid < last, !extent.reached(laid: laid, pages: pages, after: pages - through) {
                let n = Int(folio_mu_count_chapter_pages(handle.doc, Int32(laid), &error))
                guard n >= 0 else { counting.lock.withLock { (counting.failed, counting.error) = (true, error) }; break }
                counting.lock.withLock { counting.pages.append(n) }
                pages += n
                laid += 1
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
    private func estimatedPages(of rest: Range<Int>, from counts: [Int]) -> Int {
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
    private var aspect: Double { laidOut.withLock { $0.aspect } }
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
    private static func shape(_ pageAspect: Double, of info: folio_mu_info) -> Double {
        info.reflowable != 0 && info.pre_paginated == 0 ? pageAspect : Book.referencePageWidth / Book.referencePageHeight
    }

    var direction: ReadingDirection { info.right_to_left != 0 ? .rtl : .ltr }

    /// Whether the book is laid out by Folio (its page count depends on the text size).
    var reflowable: Bool { info.reflowable != 0 && info.pre_paginated == 0 }

    /// Whether `place` is a page of this layout: its text size and page shape (a book with fixed
    /// pages holds every place of its own).
    private func holds(_ place: TextPlace) -> Bool {
        !reflowable || place.fontSize == fontSize && (place.pageAspect ?? pageAspect) == pageAspect
    }

    func page(of place: TextPlace) -> Int? {
        guard !holds(place) else {
            return (0..<pageCount).contains(place.page) || pagesEstimated && place.page >= 0 ? place.page : nil
        }
        return position(of: place).flatMap(page(at:))
    }

    /// Where `place` is in the text: its own `TextPosition`, the one this layout was made to keep,
    /// or that of its page in a copy of the book laid out as it says (only as far as the place).
    private func position(of place: TextPlace) -> TextPosition? {
        if let text = place.text { return text }
        if let kept = kept.withLock({ $0 }), kept.place == place { return kept.text }
        if holds(place) { return textPosition(ofPage: place.page) }
        return try? MuPDFDocument(path: path, fontSize: place.fontSize, pageAspect: place.pageAspect ?? pageAspect, typography: typography,
                                  extent: LayoutExtent(pages: place.page + 1))
            .textPosition(ofPage: place.page)
    }

    func textPosition(ofPage index: Int, drawingAtMost limit: Int) -> TextPosition? {
        guard reflowable, index >= 0, index < pageCount || pagesEstimated else { return nil }
        var inChapter: Int32 = 0, chapterPages: Int32 = 0
        let chapter = Int(folio_mu_chapter_of(doc, Int32(index), &inChapter, &chapterPages))
        guard chapter >= 0 else { return nil }
        let before = index - Int(inChapter)..<index
        let uncounted = limit < before.count ? characterCounts.withLock { counts in before.filter { counts[$0] == nil } } : []
        if uncounted.count > limit {
            // As many as allowed are counted now: asked again, it goes on from there.
            for page in uncounted.prefix(limit) { guard characters(page) != nil else { break } }
            return nil
        }
        var offset = 0
        for page in before {
            guard let n = characters(page) else { return nil }
            offset += n
        }
        return TextPosition(chapter: chapter, offset: offset)
    }

    /// The page holding `text` in this layout: the page of its chapter whose characters include
    /// it (the chapter's last page for a place past its end); nil when the chapter is not laid out.
    func page(at text: TextPosition) -> Int? {
        guard reflowable, let pages = chapterPages(text.chapter) else { return nil }
        var before = 0
        for page in pages {
            guard let n = characters(page) else { return nil }
            if before + n > text.offset { return page }
            before += n
        }
        return pages.last
    }

    /// The pages of chapter `chapter` in this layout; nil when there is no such chapter or it is
    /// not counted in this layout (a layout given up, or estimated, before it).
    private func chapterPages(_ chapter: Int) -> Range<Int>? {
        guard chapter >= 0, chapter < laidOut.withLock({ $0.chapters }) else { return nil }
        var error = folio_mu_error()
        let n = Int(folio_mu_count_chapter_pages(doc, Int32(chapter), &error)), first = Int(folio_mu_chapter_page(doc, Int32(chapter), 0))
        return n > 0 && first >= 0 ? first..<first + n : nil
    }

    /// Characters drawn on page `index` (white space and hyphens not counted), counted once per layout.
    private func characters(_ index: Int) -> Int? {
        if let n = characterCounts.withLock({ $0[index] }) { return n }
        var error = folio_mu_error()
        let n = Int(folio_mu_page_characters(doc, Int32(index), &error))
        guard n >= 0 else { return nil }
        characterCounts.withLock { $0[index] = n }
        return n
    }

    /// Where `old`'s pages went in this layout: unchanged at the same size and shape (the layout
    /// went further); else each old page to the new page holding its first character, counted
    /// for the pages about the place this layout kept, and elsewhere as far through the same
    /// chapter (counting every page would cost drawing the whole book twice).
    func mapping(from old: any ReflowableSource) -> PageMapping {
        guard let old = old as? MuPDFDocument, old.path == path else { return .proportional(from: old.pageCount, to: pageCount) }
        // Fixed pages stay what they are, however far the layout went.
        guard reflowable, !holds(old.place(ofPage: 0)) || old.typography != typography else {
            return .extended(from: old.pageCount, to: pageCount)
        }
        var pages = [Int?](repeating: nil, count: old.pageCount)
        var ends = (old: 0, new: 0)
        for chapter in 0..<min(old.laidOut.withLock { $0.chapters }, laidOut.withLock { $0.chapters }) {
            guard let from = old.chapterPages(chapter), let to = chapterPages(chapter) else { continue }
            for page in from where page < pages.count {
                pages[page] = to.lowerBound + (page - from.lowerBound) * to.count / from.count
            }
            ends = (from.upperBound, to.upperBound)
        }
        // Chapters not laid out in both (an estimated layout's): the pages after in proportion.
        for page in ends.old..<max(pages.count, ends.old) {
            pages[page] = ends.new + (page - ends.old) * max(pageCount - ends.new, 0) / max(pages.count - ends.old, 1)
        }
        if let kept = kept.withLock({ $0 }), let shown = old.page(at: kept.text) {
            let band = max(shown - Self.mappedExactly, 0)..<min(shown + Self.mappedExactly + 1, pages.count)
            for page in band {
                if let text = old.textPosition(ofPage: page), let at = self.page(at: text) { pages[page] = at }
            }
            // Pages placed as far through their chapter keep the text's order with those counted.
            for page in (0..<band.lowerBound).reversed() { pages[page] = pages[page].map { min($0, pages[page + 1] ?? $0) } }
            for page in band.upperBound..<pages.count where page > 0 { pages[page] = pages[page].map { max($0, pages[page - 1] ?? $0) } }
        }
        return PageMapping(pageCount: pageCount, pages: pages)
    }

    /// Old pages either side of the kept place whose new page is found by their characters:
    /// those a turn under way or queued when the layout lands is likely to head for.
    static let mappedExactly = 8

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

    /// A reflowable page's size is its paper's (the text block and Folio's margins).
    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        guard let b = try? bounds(index) else { return nil }
        return frame.map { ($0.width, $0.height) } ?? (b.width, b.height)
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let b: (x0: Double, y0: Double, width: Double, height: Double)
        do { b = try bounds(index) } catch where pagesEstimated {
            // Past the end of a book whose count was estimated too high: paper until the
            // whole layout gives the count.
            return PageRender(image: RGBAImage(width: 1, height: 1, fill: paper).onPaper(aspect: aspect), scalable: true)
        }
        let aspect = aspect
        if let frame {
            // The paper whole: the text block at its place in Folio's margins.
            let size = fit.fitting(aspect: aspect)
            let scale = Double(size.width) / frame.width
            let image = try rasterise(index, width: size.width, height: size.height,
                                      offset: (frame.blockLeft(onRight: onRight(index)) * scale, frame.top * scale), scale: (scale, scale))
            return PageRender(image: image, scalable: true)
        }
        let size = fit.fitting(aspect: aspect).fitting(aspect: b.width / b.height)
        let scale = Double(size.width) / b.width
        let image = try rasterise(index, width: size.width, height: size.height, offset: (0, 0), scale: (scale, scale))
        return PageRender(image: image.onPaper(aspect: aspect), scalable: true)
    }

    var rendersCrops: Bool { true }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        let b = try bounds(index)
        let onPaper = placement(b, index, paperAspect: paperAspect)
        let fw = Double(crop.full.width), fh = Double(crop.full.height)
        return try rasterise(index, width: crop.width, height: crop.height,
                             offset: (onPaper.x0 * fw - Double(crop.x), onPaper.y0 * fh - Double(crop.y)),
                             scale: (onPaper.width * fw / b.width, onPaper.height * fh / b.height))
    }

    /// Where page `index`'s box (`b`) lies on paper of `paperAspect`, as `render` places it: a
    /// reflowable page's text block in its margins.
    private func placement(_ b: (x0: Double, y0: Double, width: Double, height: Double), _ index: Int, paperAspect: Double) -> PageRegion {
        let inner = frame?.blockRegion(onRight: onRight(index)) ?? RGBAImage.placement(own: b.width / b.height, onPaper: aspect)
        return RGBAImage.placement(own: aspect, onPaper: paperAspect).placing(inner)
    }

    /// What a page is printed on: a reflowable book's text on Folio's blank paper, as the book's
    /// blank faces are (the theme recolours both alike); pages of their own (XPS, fixed layout)
    /// on white, as they were made.
    private var paper: (UInt8, UInt8, UInt8, UInt8) { reflowable ? RGBAImage.blankPaper : (255, 255, 255, 255) }

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
        // Not filled here: the bridge paints the paper over the pool's buffer (one pass, not two).
        let rgb = UInt32(paper.0) << 16 | UInt32(paper.1) << 8 | UInt32(paper.2)
        var pixels = PixelPool.shared.take(count: width * height * 4)
        let lines = furniture(index)
        func draw(_ furniture: UnsafePointer<folio_mu_furniture>?) {
            pixels.withUnsafeMutableBufferPointer { bytes in
                status = folio_mu_render(doc, Int32(index), Float(scale.x), Float(scale.y), Float(offset.x), Float(offset.y),
                                         Int32(width), Int32(height), bytes.baseAddress, rgb, furniture, stop.cookie, &error)
            }
        }
        if let lines, let frame {
            // Both lines at the page's outer corners, in a grey between the ink and the paper.
            let align: Int32 = lines.right ? 2 : 0
            lines.head.withCString { head in
                lines.foot.withCString { foot in
                    var furniture = folio_mu_furniture(
                        head: head, head_align: align, foot: foot, foot_align: align, left: 0, right: Float(frame.block.width),
                        head_y: Float(frame.headBaseline(fontSize: fontSize)), foot_y: Float(frame.footBaseline(fontSize: fontSize)),
                        size: Float(frame.furnitureSize(fontSize: fontSize)), ink: 0x5A5550)
                    draw(&furniture)
                }
            }
        } else {
            draw(nil)
        }
        guard status != -2 else { throw PageError.invalid(path: path, message: PageSources.abandoned(after: seconds)) }
        guard status == 0 else { throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))") }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    // MARK: What the book says about itself

    /// A box in points as fractions of the page's paper.
    private func region(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float,
                        in b: (x0: Double, y0: Double, width: Double, height: Double), page index: Int) -> PageRegion {
        let onPaper = placement(b, index, paperAspect: aspect)
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
            return TextWord(text: String(cString: w.text), box: region(w.x0, w.y0, w.x1, w.y1, in: b, page: index))
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
            if let uri = l.uri {
                target = .uri(String(cString: uri))
            } else if l.page >= 0 || l.note != nil {
                // A note hidden from its page (a footnote's aside) is on none: the page referring to it.
                let page = l.page >= 0 ? Int(l.page) : index
                let inside = (0..<Int(l.note_link_count)).compactMap { k -> NoteLink? in
                    let n = l.note_links[k]
                    let target: LinkTarget? = if let uri = n.uri { .uri(String(cString: uri)) }
                        else if n.page < 0 { nil }
                        else { n.note.map { .note(page: Int(n.page), text: String(cString: $0)) } ?? .page(Int(n.page)) }
                    return target.map { NoteLink(label: String(cString: n.label), target: $0) }
                }
                target = l.note.map { .note(page: page, text: String(cString: $0), links: inside) } ?? .page(page)
            } else {
                return nil
            }
            return PageLink(box: region(l.x0, l.y0, l.x1, l.y1, in: b, page: index), target: target)
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
