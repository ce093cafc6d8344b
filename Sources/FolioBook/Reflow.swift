/// Documents whose pages Folio lays out from their text (reflowable e-books): the page count
/// depends on the text size, and a place in the text outlives any one layout.
/// Does not: lay anything out itself (the engine does), or know which engine does it.

/// A place in a reflowable document's text that no layout moves: `offset` characters (white
/// space and hyphens not counted) into chapter `chapter` (the document's own parts, an EPUB's spine items,
/// counted from 0). Lines and pages break only at white space, so the same characters lie
/// before it at any text size and any page shape.
public struct TextPosition: Sendable, Hashable, Codable {
    public var chapter: Int
    public var offset: Int

    public init(chapter: Int, offset: Int) {
        (self.chapter, self.offset) = (chapter, offset)
    }
}

/// A place in a reflowable document's text: where page `page` (an index) starts when the
/// document is laid out at `fontSize` points for pages of `pageAspect` (width / height; nil: the
/// shape it is laid out for now, as places saved before pages followed the window mean it),
/// and, when known, that place as a `TextPosition`, which finds it in any layout at once.
/// Without one the same text is found in another layout by laying the document out as the
/// place says (`ReflowableSource.page(of:)`), so the place outlives any one layout, any one
/// open document and any one run.
public struct TextPlace: Sendable, Hashable {
    public var fontSize: Double
    public var page: Int
    public var pageAspect: Double?
    public var text: TextPosition?

    public init(fontSize: Double, page: Int, pageAspect: Double? = nil, text: TextPosition? = nil) {
        self.fontSize = fontSize
        self.page = page
        self.pageAspect = pageAspect
        self.text = text
    }
}

/// A document that may be laid out again at another text size.
public protocol ReflowableSource: PageSource {
    /// Whether its pages follow the text size (false for a fixed-layout book of the same format).
    var reflowable: Bool { get }
    /// The text size (points) it is laid out at.
    var fontSize: Double { get }
    /// The page holding `place` in the current layout; nil when `place` is not in the book.
    /// A place of another layout costs counting its chapter's pages (with its `TextPosition`),
    /// or laying the book out as far as the place as it says (without).
    func page(of place: TextPlace) -> Int?
    /// The page holding `text` in the current layout; nil when its chapter is not laid out.
    func page(at text: TextPosition) -> Int?
    /// The same document opened anew, laid out at `fontSize` points, and its page holding
    /// `place`. This one is left as it is, so its pages stay drawable meanwhile (any thread).
    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int)
    /// Width / height of the pages it is laid out for.
    var pageAspect: Double { get }
    /// `relaid(fontSize:keeping:)` for pages of `pageAspect` (width / height).
    func relaid(fontSize: Double, pageAspect: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int)
    /// Where `old`'s pages went in this layout of the same document (any thread): each to the
    /// page holding the text it started with, as exactly as the document can afford.
    func mapping(from old: any ReflowableSource) -> PageMapping
    /// Where page `index` starts in the text, in terms no layout changes; nil when the document
    /// cannot say (its pages are fixed, or the page is not there), or when that would cost
    /// drawing more than `limit` pages (the pages before it in its chapter not drawn for it yet):
    /// `limit` of those are drawn then, so that asking again goes further.
    func textPosition(ofPage index: Int, drawingAtMost limit: Int) -> TextPosition?
    /// The pages the whole book is estimated to have while its layout is not complete (laid out
    /// only as far as its first chapters, or given up at the layout's time bound); nil when
    /// `pageCount` is the whole book's.
    var estimatedPageCount: Int? { get }
}

/// A document laid out again, as what was there before needs to follow it: the new page
/// count, and for each old page the new page holding the text it started with and whether
/// that page shows the same content (a layout completed at the same size).
public struct PageMapping: Sendable, Equatable {
    public var pageCount: Int
    /// Indexed by old page index: the new page holding the text it started with (nil: gone).
    /// Text keeps its order: a later old page never maps before an earlier one.
    public var pages: [Int?]
    /// Old pages whose new page shows exactly what they showed.
    public var unchanged: Set<Int>

    public init(pageCount: Int, pages: [Int?], unchanged: Set<Int> = []) {
        (self.pageCount, self.pages, self.unchanged) = (pageCount, pages, unchanged)
    }

    /// The new page of old page `index`, if its text is still there.
    public func page(_ index: Int) -> Int? {
        pages.indices.contains(index) ? pages[index].flatMap { (0..<pageCount).contains($0) ? $0 : nil } : nil
    }

    /// The new page of old page `index` when it shows the same content.
    public func same(_ index: Int) -> Int? { unchanged.contains(index) ? page(index) : nil }

    /// The same pages, `pageCount` of them now (a layout completed: the first ones unchanged).
    public static func extended(from old: Int, to pageCount: Int) -> PageMapping {
        let kept = min(old, pageCount)
        return PageMapping(pageCount: pageCount, pages: (0..<old).map { $0 < kept ? $0 : nil }, unchanged: Set(0..<kept))
    }

    /// Old pages spread over the new ones in proportion, none unchanged: the text of a book
    /// laid out evenly, when its engine gives no better.
    public static func proportional(from old: Int, to pageCount: Int) -> PageMapping {
        PageMapping(pageCount: pageCount, pages: (0..<old).map { $0 * pageCount / max(old, 1) })
    }
}

extension ReflowableSource {
    /// Where page `index` starts in the text, as this layout's page (no cost).
    public func place(ofPage index: Int) -> TextPlace { TextPlace(fontSize: fontSize, page: index, pageAspect: pageAspect) }

    /// `place(ofPage:)` with its `TextPosition` when that costs drawing `limit` pages at most
    /// (any layout finds such a place at once; one without, by laying the book out as it says).
    public func textPlace(ofPage index: Int, drawingAtMost limit: Int = .max) -> TextPlace {
        TextPlace(fontSize: fontSize, page: index, pageAspect: pageAspect, text: textPosition(ofPage: index, drawingAtMost: limit))
    }

    /// Where page `index` starts in the text, whatever it costs.
    public func textPosition(ofPage index: Int) -> TextPosition? { textPosition(ofPage: index, drawingAtMost: .max) }

    /// A document that cannot find a place in its text.
    public func page(at text: TextPosition) -> Int? { nil }

    /// A document that cannot say where its pages start in the text.
    public func textPosition(ofPage index: Int, drawingAtMost limit: Int) -> TextPosition? { nil }

    /// Its page count while that is an estimate.
    public var estimatedPageCount: Int? { pagesEstimated ? pageCount : nil }

    /// The shape of its paper: a document whose page shape is its own.
    public var pageAspect: Double { Book.paperAspect(paper: paperSize) }

    /// A document whose page shape is its own keeps it.
    public func relaid(fontSize: Double, pageAspect: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        try relaid(fontSize: fontSize, keeping: place)
    }

    /// At the same size and page shape the pages are the same (the layout only went further);
    /// at another, in proportion: following every page's place would lay the book out once a page.
    public func mapping(from old: any ReflowableSource) -> PageMapping {
        old.fontSize == fontSize && old.pageAspect == pageAspect
            ? .extended(from: old.pageCount, to: pageCount) : .proportional(from: old.pageCount, to: pageCount)
    }
}

extension Book {
    /// The page shape (width / height) a reflowable book is laid out for in a view of
    /// `width` × `height` showing `pagesAcross` pages side by side: the pages' share of the view,
    /// as the reference page shares a 16:9 view, so a 16:9 view gets the reference page and
    /// other views pages of their own shape, within `reflowAspects` (no strip, no square).
    public static func reflowAspect(viewWidth width: Double, viewHeight height: Double, pagesAcross: Int) -> Double {
        let reference = referencePageWidth / referencePageHeight
        guard width > 0, height > 0, width.isFinite, height.isFinite else { return reference }
        let share = width / Double(max(pagesAcross, 1)) / height
        let aspect = share * reference / (16.0 / 9 / 2)
        let bounded = min(max(aspect, reflowAspects.lowerBound), reflowAspects.upperBound)
        // Whole layout units wide at the reference height, as `pageWidth` gives them.
        return (bounded * referencePageHeight).rounded() / referencePageHeight
    }

    /// Shapes a reflowable book's pages may take: from a tall paperback to a wide one.
    public static let reflowAspects = 0.5...0.8
}

extension DocumentRegistry {
    /// The open document at `path`, if it reflows.
    public func reflowable(_ path: String) -> (any ReflowableSource)? {
        guard let source = (try? open(path)) as? any ReflowableSource, source.reflowable else { return nil }
        return source
    }
}

/// A document whose pages fall in chapters whose text can be read without laying them out:
/// a search passes over the chapters that cannot hold a phrase without drawing their pages.
public protocol ChapterTextSource: PageSource {
    /// The chapter page `index` lies in, or nil.
    func chapter(ofPage index: Int) -> Int?
    /// Chapter `chapter`'s text as its file holds it (markup taken away), or nil when not known.
    func chapterText(_ chapter: Int) -> String?
}
