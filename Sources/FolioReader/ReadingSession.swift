import FolioBook
import FolioLayout
import FolioMath
import FolioState

/// The reading under way: the books shown, the controller reading them, and where each book
/// was left (a book opens there again, and the place is kept as the reader moves). Replacing
/// the books keeps the controller's settings, delegate and data source. Does not: map input,
/// load images or draw.
public final class ReadingSession {
    public private(set) var controller: BookController
    /// The books shown; a relayout changes a book's pages in place (the controller stays).
    public var library: Library
    /// Where books were left; nil: nothing is remembered (captures, recordings, tests).
    public let positions: ReadingPositions?
    /// Where the books' documents are open (whether a page count is still an estimate).
    public let documents: DocumentRegistry
    /// The book whose place was restored since it opened, the page last saved for each book,
    /// and the page `name(_:)` asked for, shown once its book is open.
    private var restored: Int?
    private var saved: [Int: PageImage] = [:]
    private var namedPage: Library.PagePlace?
    /// A page of a reflowable book saved without its place in the text (more pages before it in
    /// its chapter than a frame may count) and the frames left to count them: each frame counts
    /// `ReadingPosition.countedPages` more, and the position is saved again once its place is known.
    private var counting: (book: Int, page: PageImage, frames: Int)?
    /// The book and the time its page was last saved: the time until the next page of the same
    /// book is reading time (`longestPage` at most, so a window left open does not count).
    private var lastSaved: (book: Int, time: Double)?

    /// The longest a page counts as read, in seconds.
    public static let longestPage = 300.0
    /// How far into each book its reader is (`StateStore.progress`), as last read from the store.
    private var progress: [Int: Double?] = [:]
    /// Each book's pace (seconds a page, once enough pages were read to tell: read again after a
    /// page is saved) and the page images its chapters start at (read again after a relayout).
    private var paces: [Int: Double?] = [:]
    private var chapterStarts: [Int: [Int]] = [:]
    /// Pages read before a pace is told.
    public static let pagesForPace = 5

    /// Whether a reading position is still being counted: frames are wanted until it is saved.
    public var countsPosition: Bool { counting != nil }

    public init(library: Library, settings: BookController.Settings, positions: ReadingPositions?, documents: DocumentRegistry) {
        self.library = library
        self.positions = positions
        self.documents = documents
        controller = BookController(library: library.bookInfos, settings: settings)
    }

    /// Shows `library` instead: a new controller on the shelf, with the settings, the delegate
    /// and the data source of the one before.
    public func replace(library: Library) {
        let old = controller
        start(library, settings: old.settings)
        controller.delegate = old.delegate
        controller.dataSource = old.dataSource
    }

    /// Starts over on `library` with `settings`, as a new session would.
    public func start(_ library: Library, settings: BookController.Settings) {
        self.library = library
        controller = BookController(library: library.bookInfos, settings: settings)
        (restored, saved, namedPage, counting, lastSaved, progress, paces, chapterStarts) = (nil, [:], nil, nil, nil, [:], [:], [:])
    }

    /// The open book shows `place` once it is open, before the place it was left at.
    public func name(_ place: Library.PagePlace) { namedPage = place }

    /// The page saved for book `b` is saved again at the next move (its pages changed).
    public func forgetSaved(book b: Int) { (saved[b], chapterStarts[b]) = (nil, nil) }

    /// Opens a book where it was left (or at the page named), and remembers where the reader
    /// is now. True when the spread changed.
    public func keepPosition(at now: Double) -> Bool {
        guard let b = controller.book else { restored = nil; return false }
        guard controller.phase == .reading else { return false }
        var moved = false
        if let named = namedPage, named.book == b {
            namedPage = nil
            restored = b
            moved = controller.go(to: PageImage(index: named.image).layoutPage, animated: false, at: now)
        }
        guard let positions else { return moved }
        let book = library.books[b]
        // A place saved in a book still being laid out may lie past its estimated end.
        guard !book.pagesEstimated(in: documents) else { return moved }
        if restored != b {
            restored = b
            if controller.spread == 0, let page = positions.page(of: book).map(PageImage.init(number:)), page.index > 0,
               controller.go(to: page.layoutPage, animated: false, at: now) {
                moved = true
            }
        }
        let page = controller.shownPages.first ?? PageImage(index: 0)
        if saved[b] != page {
            let seconds = lastSaved.map { $0.book == b ? min(max(0, now - $0.time), Self.longestPage) : 0 } ?? 0
            if positions.save(page: page.number, of: book, readingSeconds: seconds) { (saved[b], lastSaved, progress[b], paces[b]) = (page, (b, now), nil, nil) }
            counting = uncounted(page, of: book).map { (b, page, $0) }
        } else if let c = counting, c.book == b, c.page == page {
            let source = ReadingPosition.reflowable(book, in: documents)
            let found = source?.textPosition(ofPage: page.index, drawingAtMost: ReadingPosition.countedPages) != nil
            counting = found || c.frames <= 1 ? nil : (b, page, c.frames - 1)
            if found { positions.save(page: page.number, of: book) }
        } else {
            counting = nil
        }
        return moved
    }

    /// The frames counting `page`'s place in the text may take, when the position
    /// just saved lacks it (a frame each `countedPages` pages of its chapter, and one to spare:
    /// a page that cannot be counted stops it); nil when it has it or cannot have one.
    private func uncounted(_ page: PageImage, of book: Book) -> Int? {
        guard let source = ReadingPosition.reflowable(book, in: documents), source.reflowable,
              source.textPosition(ofPage: page.index, drawingAtMost: 0) == nil,
              source.textPosition(ofPage: 0) != nil else { return nil }
        return page.number / ReadingPosition.countedPages + 2
    }

    /// How far into book `i` its reader is, 0…1, as the store last said; nil when never read.
    public func readFraction(ofBook i: Int) -> Double? {
        guard library.books.indices.contains(i) else { return nil }
        if progress[i] == nil { progress[i] = .some(positions?.store.progress(of: library.books[i])) }
        return progress[i] ?? nil
    }

    /// "12 min left in the chapter · 3 h 40 min in the book" for book `b` showing page images up
    /// to `last` (nil: none, the cover), from the reader's own pace in it
    /// (`StateStore.readingTime`); nil until `pagesForPace` pages were read.
    public func timeLeft(book b: Int, last: PageImage?) -> String? {
        guard library.books.indices.contains(b) else { return nil }
        let book = library.books[b]
        if paces[b] == nil {
            let time = positions?.store.readingTime(of: book)
            paces[b] = .some(time.flatMap { $0.pages >= Self.pagesForPace ? $0.seconds / Double($0.pages) : nil })
        }
        guard let pace = paces[b] ?? nil else { return nil }
        if chapterStarts[b] == nil {
            var starts: [Int] = []
            if let path = book.document, let source = try? documents.open(path) {
                let images = Dictionary(book.pages.enumerated().compactMap { i, p in p.documentPage.map { ($0.index, i) } }, uniquingKeysWith: min)
                // The outline's top entries: its chapters.
                starts = source.outline.compactMap { $0.page.flatMap { images[$0] } }.sorted()
            }
            chapterStarts[b] = starts
        }
        let chapters = chapterStarts[b] ?? []
        // The first image not read yet, and the images from there to the end and to the next chapter.
        let next = last.map { $0.index + 1 } ?? 0
        let inBook = max(book.pages.count - next, 0), inChapter = (chapters.first { $0 >= next } ?? book.pages.count) - next
        let whole = Self.duration(Double(inBook) * pace)
        return chapters.isEmpty || inChapter >= inBook ? "\(whole) left in the book"
            : "\(Self.duration(Double(max(inChapter, 0)) * pace)) left in the chapter · \(whole) in the book"
    }

    /// "under a minute", "12 min", "3 h 40 min".
    public static func duration(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        if minutes < 1 { return "under a minute" }
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h" + (minutes % 60 == 0 ? "" : " \(minutes % 60) min")
    }

    /// The book of the library read last, where the shelf starts; nil when none was read.
    public var lastRead: Int? { positions?.store.lastRead(among: library.books) }

    /// "Folio — Book — pages 2–3 of 40" while reading, "Folio — Book (1/3)" on the shelf, with
    /// " — 42%" when the book was read that far.
    public var title: String {
        let books = library.books
        if let b = controller.book {
            return "Folio — \(books[b].title) — \(Self.pageLabel(shown: controller.shownPages, of: books[b].pageCountLabel(in: documents)))"
        }
        guard !books.isEmpty else { return "Folio — no books" }
        let i = clamp(Int(controller.scroll.rounded()), 0, books.count - 1)
        let read = readFraction(ofBook: i).map { " — \(Int(($0 * 100).rounded()))%" } ?? ""
        return "Folio — \(books[i].title) (\(i + 1)/\(books.count))" + read
    }

    /// The page images shown (`BookController.shownPages`), as a reader numbers them.
    static func pageLabel(shown: [PageImage], of n: String) -> String {
        switch shown.count {
        case 2: return "pages \(shown[0].number)–\(shown[1].number) of \(n)"
        case 1: return "page \(shown[0].number) of \(n)"
        default: return "no pages"
        }
    }
}
