import FolioBook
import Foundation

/// Where one book was left: its page number and, for a reflowable document (an EPUB), the
/// layout it was laid out in (text size, page shape) and the place in its text (`TextPosition`),
/// which finds the same text again in any layout. Kept in the state store's columns; decoded
/// from the JSON files of older versions (`Migration`: a bare page number, or an object). A
/// position without a text place (written by older versions) finds its text by laying the book
/// out as it says.
public struct ReadingPosition: Sendable, Equatable, Decodable {
    public var page: Int
    public var fontSize: Double?
    public var pageAspect: Double?
    public var text: TextPosition?

    public init(page: Int, fontSize: Double? = nil, pageAspect: Double? = nil, text: TextPosition? = nil) {
        (self.page, self.fontSize, self.pageAspect, self.text) = (page, fontSize, pageAspect, text)
    }

    private enum CodingKeys: String, CodingKey { case page, fontSize, pageAspect, chapter, offset }

    public init(from decoder: Decoder) throws {
        if let page = try? decoder.singleValueContainer().decode(Int.self) {
            self.init(page: page)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let chapter = try c.decodeIfPresent(Int.self, forKey: .chapter), offset = try c.decodeIfPresent(Int.self, forKey: .offset)
        let text = chapter.flatMap { chapter in offset.map { TextPosition(chapter: chapter, offset: $0) } }
        try self.init(page: c.decode(Int.self, forKey: .page), fontSize: c.decodeIfPresent(Double.self, forKey: .fontSize),
                      pageAspect: c.decodeIfPresent(Double.self, forKey: .pageAspect), text: text)
    }

    /// The page number this position is at in `book` as laid out now: for a place in a
    /// reflowable document's text, the page holding it at the size and page shape shown
    /// (`source` is that document, nil for any other book).
    public func page(in source: (any ReflowableSource)?) -> Int {
        guard let fontSize, let source,
              let index = source.page(of: TextPlace(fontSize: fontSize, page: page - 1, pageAspect: pageAspect, text: text)) else { return page }
        return index + 1
    }

    /// Page number `page` of `book` as laid out now: for a reflowable document (found in
    /// `documents`) with its layout and its place in the text, so that any layout finds it. The
    /// place in the text is left out when finding it would draw more than `countedPages` pages
    /// (a jump deep into a book of one long chapter, as FB2 and MOBI books are); those are drawn,
    /// and the next position of that page goes on counting (the reading session saves it again,
    /// `countedPages` a frame, until it has its place).
    public init(page: Int, of book: Book, in documents: DocumentRegistry) {
        let place = Self.reflowable(book, in: documents)?.textPlace(ofPage: page - 1, drawingAtMost: Self.countedPages)
        self.init(page: page, fontSize: place?.fontSize, pageAspect: place?.pageAspect, text: place?.text)
    }

    /// Pages a position saved may draw to find its place in the text (on the viewer's thread):
    /// about a frame's time.
    public static let countedPages = 16
}

extension ReadingPosition {
    /// `book`'s document when the book is the whole of one reflowable document.
    public static func reflowable(_ book: Book, in documents: DocumentRegistry) -> (any ReflowableSource)? {
        guard let path = book.document, let source = documents.reflowable(path), source.pageCount == book.pages.count else { return nil }
        return source
    }
}
