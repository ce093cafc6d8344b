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

extension FramePipeline {
    /// Tab on the shelf: the books in the next order, the book centred staying centred.
    func sortShelf(at now: Double) {
        let found = shelfOrder?.found ?? library
        let order = (shelfOrder?.order ?? .found).next
        let centred = library.books.indices.contains(Int(controller.scroll.rounded())) ? library.books[Int(controller.scroll.rounded())] : nil
        var sorted = found
        sorted.books = order.indices(of: found.books, store: configuration.positions?.store).map { found.books[$0] }
        // Pages named for a book follow it to its new place.
        sorted.namedPage = nil
        replaceLibrary(sorted)
        shelfOrder = (order, found)
        if let centred, let i = sorted.books.firstIndex(of: centred) { perform(.select(i), at: now, origin: .key) }
        layer.answer("shelf \(order.rawValue)", at: now)
        needsRender = true
    }
}
