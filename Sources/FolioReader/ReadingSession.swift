import FolioBook
import FolioMath

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
    private var saved: [Int: Int] = [:]
    private var namedPage: Library.PagePlace?

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
        (restored, saved, namedPage) = (nil, [:], nil)
    }

    /// The open book shows `place` once it is open, before the place it was left at.
    public func name(_ place: Library.PagePlace) { namedPage = place }

    /// The page saved for book `b` is saved again at the next move (its pages changed).
    public func forgetSaved(book b: Int) { saved[b] = nil }

    /// Opens a book where it was left (or at the page named), and remembers where the reader
    /// is now. True when the spread changed.
    public func keepPosition(at now: Double) -> Bool {
        guard let b = controller.book else { restored = nil; return false }
        guard controller.phase == .reading else { return false }
        var moved = false
        if let named = namedPage, named.book == b {
            namedPage = nil
            restored = b
            moved = controller.go(to: named.image + 2, animated: false, at: now)
        }
        guard let positions else { return moved }
        let book = library.books[b]
        // A place saved in a book still being laid out may lie past its estimated end.
        guard !book.pagesEstimated(in: documents) else { return moved }
        if restored != b {
            restored = b
            if controller.spread == 0, let page = positions.page(of: book), page > 1,
               controller.go(to: page + 1, animated: false, at: now) {
                moved = true
            }
        }
        let page = controller.shownPages.first ?? 1
        if saved[b] != page, positions.save(page: page, of: book) { saved[b] = page }
        return moved
    }

    /// "Folio — Book — pages 2–3 of 40" while reading, "Folio — Book (1/3)" on the shelf.
    public var title: String {
        let books = library.books
        if let b = controller.book {
            return "Folio — \(books[b].title) — \(Self.pageLabel(shown: controller.shownPages, of: books[b].pageCountLabel(in: documents)))"
        }
        guard !books.isEmpty else { return "Folio — no books" }
        let i = clamp(Int(controller.scroll.rounded()), 0, books.count - 1)
        return "Folio — \(books[i].title) (\(i + 1)/\(books.count))"
    }

    /// The page images shown, numbered from 1 (`BookController.shownPages`).
    static func pageLabel(shown: [Int], of n: String) -> String {
        switch shown.count {
        case 2: return "pages \(shown[0])–\(shown[1]) of \(n)"
        case 1: return "page \(shown[0]) of \(n)"
        default: return "no pages"
        }
    }
}
