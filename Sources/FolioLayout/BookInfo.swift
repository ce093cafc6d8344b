import FolioMath

/// What the layout needs to know about a book (FolioLayout does not read books itself).
public struct BookInfo: Sendable, Equatable {
    /// The order pages are read in; right to left mirrors the open book.
    public enum Direction: String, Sendable, Codable { case ltr, rtl }

    public var title: String
    /// Number of page images (the cover and the endpaper are not counted).
    public var imageCount: Int
    public var direction: Direction
    /// Page size in layout units (the reference is 362 × 568).
    public var pageSize: Vec2

    public static let referencePageSize = Vec2(362, 568)

    public init(title: String = "", imageCount: Int, direction: Direction = .ltr,
                pageSize: Vec2 = BookInfo.referencePageSize) {
        self.title = title
        self.imageCount = max(0, imageCount)
        self.direction = direction
        self.pageSize = pageSize
    }

    /// Layout pages: page 0 is the cover, page 1 the blank inside of the cover, page j + 2
    /// shows image j.
    public var pageCount: Int { 2 + imageCount }
    /// Sheets of paper (two faces each; a blank back when the page count is odd).
    public var sheetCount: Int { (pageCount + 1) / 2 }
    /// The last spread: the one showing the last page.
    public var lastSpread: Int { imageCount / 2 }

    /// The book as single-page mode lays it out: one page image a sheet, on its front, its back
    /// blank, so that a page turns over its own spine edge with the next one beneath it. Its
    /// spread s shows image s on the right; `makeScene` draws the book's own pages on it.
    public var onePagePerSheet: BookInfo {
        BookInfo(title: title, imageCount: max(2 * imageCount - 1, 0), direction: direction, pageSize: pageSize)
    }

    /// The last layout page (the last image's, or the endpaper in a book of none).
    public var lastPage: LayoutPage { LayoutPage(pageCount - 1) }

    /// Layout page `n` of the book as layout page of `onePagePerSheet` (the same before image 0).
    public static func onePagePerSheet(page n: LayoutPage) -> LayoutPage { n.index < 2 ? n : LayoutPage(2 * n.index - 2) }

    /// What layout page `n` of `onePagePerSheet` shows, as a layout page of the book: nil for
    /// the blank backs.
    public static func ownPage(onePagePerSheet n: LayoutPage) -> LayoutPage? {
        n.index < 2 ? n : n.isFront ? LayoutPage(n.index / 2 + 1) : nil
    }

    /// The spread showing layout page `n` (spread s shows pages 2s + 1 and 2s + 2).
    public func spread(containing n: LayoutPage) -> Int {
        clamp(n.index <= 0 ? 0 : (n.index - 1) / 2, 0, lastSpread)
    }

    /// What layout page `n` of book `book` shows.
    public func content(page n: LayoutPage, book: Int) -> FaceContent {
        switch n.index {
        case 0: return .cover(book)
        case 2..<pageCount: return .page(book, n)
        default: return FaceContent(kind: .blank, book: book, page: n)
        }
    }
}

extension BookInfo {
    /// A page as laid out in `orientation`: across × along the spine (a calendar's pages turn
    /// a quarter, so their sides swap).
    public func laidOutPageSize(_ orientation: TurnStyle.Orientation) -> Vec2 {
        orientation == .vertical ? Vec2(pageSize.y, pageSize.x) : pageSize
    }
}
