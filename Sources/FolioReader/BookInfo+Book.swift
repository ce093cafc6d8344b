import FolioBook
import FolioLayout
import FolioMath

extension BookInfo {
    /// The layout's view of a loaded book.
    public init(_ book: Book) {
        self.init(title: book.title, imageCount: book.pages.count,
                  direction: book.direction == .rtl ? .rtl : .ltr,
                  pageSize: Vec2(book.pageWidth, book.pageHeight))
    }
}

extension Library {
    /// The layout's view of every book, in shelf order.
    public var bookInfos: [BookInfo] { books.map(BookInfo.init) }
}
