import FolioBook
import FolioLayout
import FolioState
import Foundation

/// Marked pages of each book, kept in the state store (`StateStore`) beside the reading
/// positions, each mark stored as a position is (a page number, or for a reflowable book its
/// layout and place in the text), so that a mark made in one layout lands on the same text in
/// another. A mark is added or taken away in one transaction with reading the marks it is
/// decided on: two viewers marking the same book at once lose nothing.
public struct Bookmarks: Sendable {
    public let store: StateStore
    /// Where a reflowable book's document is found to place marks made in another layout.
    public let documents: DocumentRegistry

    public init(store: StateStore, documents: DocumentRegistry = DocumentRegistry()) {
        (self.store, self.documents) = (store, documents)
    }

    /// The pages marked in `book` as it is laid out now, ascending.
    public func pages(of book: Book) -> [PageImage] {
        Set(landing(store.bookmarks(of: book), in: book)).sorted()
    }

    /// The document pages of `book` marked, as indices (the pages a ribbon is painted on).
    /// With `atHand`, only the marks made in the layout shown: found with no page counted, what
    /// a book opening or laid out again paints at once (the others are found when the reader
    /// marks or goes to a mark, M and Shift+M, which count them anyway).
    public func documentPages(of book: Book, atHand: Bool = false) -> Set<Int> {
        let source = atHand ? ReadingPosition.reflowable(book, in: documents) : nil
        let marks = store.bookmarks(of: book).filter { mark in
            guard atHand, let size = mark.fontSize, let source else { return true }
            return size == source.fontSize && (mark.pageAspect ?? source.pageAspect) == source.pageAspect
        }
        return Set(landing(marks, in: book).compactMap { book.pages.indices.contains($0.index) ? book.pages[$0.index].documentPage?.index : nil })
    }

    /// The page each of `marks` is at in `book` as laid out now (a mark made in another layout
    /// costs counting the characters of its chapter's pages; one without its place in the text,
    /// a layout as it says).
    private func landing(_ marks: [ReadingPosition], in book: Book) -> [PageImage] {
        let source = marks.contains { $0.fontSize != nil } ? ReadingPosition.reflowable(book, in: documents) : nil
        return marks.map { PageImage(number: $0.page(in: source)) }
    }

    /// What a toggle did.
    public enum Change: Sendable, Equatable {
        case marked, removed
    }

    /// Marks `page` of `book`, or takes the mark away when it is there; nil when the store
    /// cannot be written (or the book's file read).
    public func change(page: PageImage, of book: Book) -> Change? {
        store.updateBookmarks(of: book) { marks in
            // A mark made at another text size is the one on this page when it lands here now.
            let landing = landing(marks, in: book)
            guard landing.contains(page) else { return (marks + [ReadingPosition(page: page.number, of: book, in: documents)], Change.marked) }
            return (zip(marks, landing).filter { $0.1 != page }.map(\.0), Change.removed)
        }
    }

    /// Marks `page` of `book`, or takes the mark away when it is there. Returns what the reader
    /// is told: "bookmarked page 12", "bookmark on page 12 removed", or why it was not saved.
    @discardableResult
    public func toggle(page: PageImage, of book: Book) -> String { notice(change(page: page, of: book), page: page) }

    /// What the reader is told of `change` to `page`.
    public func notice(_ change: Change?, page: PageImage) -> String {
        switch change {
        case .marked?: "bookmarked page \(page.number)"
        case .removed?: "bookmark on page \(page.number) removed"
        case nil: "bookmark not saved: \(FileName.printable(store.path)) cannot be written"
        }
    }

    /// The marked page after `page` (round to the first), nil when none is marked.
    public static func next(after page: PageImage, in pages: [PageImage]) -> PageImage? {
        pages.first { $0 > page } ?? pages.first
    }
}
