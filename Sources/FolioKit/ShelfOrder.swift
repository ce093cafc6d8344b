import FolioBook
import FolioReader
import FolioState

/// The orders the shelf steps through (Tab on the shelf): the books as found, the one read last
/// first, by title, by author (then title).
public enum ShelfOrder: String, Sendable, CaseIterable {
    case found = "as found", recent = "read last first", title = "by title", author = "by author"

    var next: ShelfOrder { Self.allCases[(Self.allCases.firstIndex(of: self)! + 1) % Self.allCases.count] }

    /// `books`' indices in this order (`store` tells which were read last; without one, recent
    /// is as found).
    func indices(of books: [Book], store: StateStore?) -> [Int] {
        func key(_ s: String?) -> String { (s ?? "").folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        switch self {
        case .found: return Array(books.indices)
        case .recent: return store?.readOrder(of: books) ?? Array(books.indices)
        case .title: return books.indices.sorted { (key(books[$0].title), $0) < (key(books[$1].title), $1) }
        case .author: return books.indices.sorted { (key(books[$0].author), key(books[$0].title), $0) < (key(books[$1].author), key(books[$1].title), $1) }
        }
    }
}

/// The shelf put in order by the reader: the order chosen and the library as found. Does not:
/// show the books (the pipeline does, `FramePipeline.replaceLibrary`).
final class ShelfSorter: PipelinePart {
    /// The order chosen and the library as found, once Tab changed it.
    private var sorted: (order: ShelfOrder, found: Library)?

    /// Another library is shown: it is as found.
    func forget() { sorted = nil }

    /// Tab on the shelf: the books in the next order, the book centred staying centred.
    func sortNext(at now: Double) {
        let library = p.library, scroll = Int(p.controller.scroll.rounded())
        let found = sorted?.found ?? library
        let order = (sorted?.order ?? .found).next
        let centred = library.books.indices.contains(scroll) ? library.books[scroll] : nil
        var books = found
        books.books = order.indices(of: found.books, store: p.configuration.positions?.store).map { found.books[$0] }
        // Pages named for a book follow it to its new place.
        books.namedPage = nil
        p.replaceLibrary(books)
        sorted = (order, found)
        if let centred, let i = books.books.firstIndex(of: centred) { p.perform(.select(i), at: now, origin: .key) }
        p.layer.answer("shelf \(order.rawValue)", at: now)
        p.needsRender = true
    }
}
