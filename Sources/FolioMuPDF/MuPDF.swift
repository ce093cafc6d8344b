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

    /// Keeps hyphenation patterns as libhyphen compiles them in `folder` between runs, or none
    /// where nil (keptpatterns.c, which holds the folder: German patterns take 2.5 s to compile,
    /// and are read back in 0.1 s). The `folio` program keeps them in
    /// `LayoutCache.folder("patterns")`. What a writer killed there left is removed.
    public static func keepCompiledPatterns(in folder: String?) {
        folio_keep_patterns_in(folder)
        if let folder { OutputFile.removeLeftovers(in: folder) }
    }

    /// Told, on the thread laying a book out, each time a chapter is counted: how many are and
    /// of how many (a command's progress line while a long book is laid out), or nil.
    public static var layoutProgress: (@Sendable (_ laid: Int, _ of: Int) -> Void)? {
        get { progress.withLock { $0 } }
        set { progress.withLock { $0 = newValue } }
    }
    private static let progress = Mutex<(@Sendable (Int, Int) -> Void)?>(nil)

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
                                 ("XHTML", ["xhtml"]), ("XPS", ["xps", "oxps"]), ("Text", ["txt"])].map { format($0, $1) }

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
    /// millions of pages. A quotation inside another is indented half an em more, not 40 points
    /// each side: Kindle books nest ten `<blockquote>`s round a poem, which pushed it off the page.
    /// A table cell's content is inline, where MuPDF places it in its column (its blocks it
    /// places over the first: typeset.c, `cell_state`); a table's text is set ragged unless the
    /// book says otherwise, as a browser sets it (justified from the body, a narrow column's
    /// words stood apart), and a cell of verse is set ragged whatever it says, as its
    /// paragraphs were (a play's verse was justified across its cell). An FB2's notes follow one another, where
    /// MuPDF's stylesheet starts a page at every section's title (a page a note). An epigraph in
    /// a heading's header is centred: Standard Ebooks shrink it to its lines and centre that
    /// (`display: inline-block; margin: auto; text-align: initial`), which MuPDF cannot (it set
    /// the lines at the block's left).
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
            \(bodyWidth)
            body > div, body > section, body > article, body > main { background-color: transparent !important; }
            blockquote blockquote { margin-left: 0.5em !important; margin-right: 0 !important; }
            td *, th * { display: inline !important; }
            td[folio-cell], th[folio-cell] { width: auto !important; margin-left: 0 !important; margin-right: 0 !important; \
            padding-left: 0 !important; padding-right: 0 !important; visibility: hidden !important; }
            td > .folio-cell, th > .folio-cell { display: block !important; visibility: visible !important; \
            margin-top: 0 !important; margin-bottom: 0 !important; padding-left: 0.25em; padding-right: 0.25em; \
            padding-top: inherit !important; padding-bottom: inherit !important; background-color: inherit !important; \
            \(cellRules) }
            td[epub-type~="z3998:verse"], td[epub-type~="z3998:song"] { text-align: left !important; }
            body[name="notes"] section > title, body[name="comments"] section > title { page-break-before: auto !important; }
            header [epub-type~="epigraph"], header [epub-type~="epigraph"] * { text-align: center !important; }
            body { text-align: \(typography.justify ? "justify" : "left"); }
            table { text-align: left; }
            rt { font-size: 0.5em; }
            pre { white-space: pre-wrap !important; text-align: left; }
            [dir="rtl"] p, [dir="rtl"] li, [dir="rtl"] blockquote, [dir="rtl"] div, p[dir="rtl"] { text-align: left !important; }
            \(typography.justify ? "" : "p { text-align: left; }")
            \(text) { line-height: \((typography.lineSpacing * 100).rounded() / 100) !important; }
            p, li, blockquote { font-size: 1em !important; }
            h1 { font-size: 1.6em !important; } h2 { font-size: 1.35em !important; } h3, h4, h5, h6 { font-size: 1.15em !important; }
            \(face.map { "\(text), span, a, em, i, b, strong, h1, h2, h3, h4, h5, h6 { font-family: \($0) !important; }" } ?? "")
            """
    }
    /// Fixed-layout pages fill their page: no margins of Folio's.
    static let fixedCSS = "@page { margin: 0; } body { margin: 0; } \(bodyWidth)"
    /// MuPDF takes a CSS pixel for a point (and a picture's pixel for 0.75 of one), so a body the
    /// publisher sizes in pixels (a fixed-layout page's viewport, `width: 1474px`) is a third
    /// wider than its page: what it holds is cut off at the page's edge, and a picture sized to
    /// it is not shrunk to fit. The body spans its page instead, as readers' stylesheets make it.
    static let bodyWidth = "html, body { width: auto !important; }"
    /// A cell of a table whose columns Folio sizes (CMuPDFBridge's columns.c) is hidden, with no
    /// width or sides of its own, and the block holding its content draws its rules where its
    /// column lies (`readingCSS`).
    static let cellRules = ["top", "right", "bottom", "left"].flatMap { side in
        ["style", "color", "width"].map { "border-\(side)-\($0): inherit !important;" }
    }.joined(separator: " ")

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
