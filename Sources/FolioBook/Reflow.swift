/// Documents whose pages Folio lays out from their text (reflowable e-books): the page count
/// depends on the text size, and a place in the text outlives any one layout.
/// Does not: lay anything out itself (the engine does), or know which engine does it.

/// A place in a reflowable document's text: where page `page` (an index) starts when the
/// document is laid out at `fontSize` points. The same text is found at another size by laying
/// it out there and following the engine's bookmark (`ReflowableSource.page(of:)`), so the place
/// outlives any one layout, any one open document and any one run.
public struct TextPlace: Sendable, Hashable {
    public var fontSize: Double
    public var page: Int

    public init(fontSize: Double, page: Int) {
        self.fontSize = fontSize
        self.page = page
    }
}

/// A document that may be laid out again at another text size.
public protocol ReflowableSource: PageSource {
    /// Whether its pages follow the text size (false for a fixed-layout book of the same format).
    var reflowable: Bool { get }
    /// The text size (points) it is laid out at.
    var fontSize: Double { get }
    /// The page holding `place` in the current layout; nil when `place` is not in the book.
    /// A place of another size costs a layout of the book at that size.
    func page(of place: TextPlace) -> Int?
    /// The same document opened anew, laid out at `fontSize` points, and its page holding
    /// `place`. This one is left as it is, so its pages stay drawable meanwhile (any thread).
    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int)
}

extension ReflowableSource {
    /// Where page `index` starts in the text.
    public func place(ofPage index: Int) -> TextPlace { TextPlace(fontSize: fontSize, page: index) }
}

extension DocumentRegistry {
    /// The open document at `path`, if it reflows.
    public func reflowable(_ path: String) -> (any ReflowableSource)? {
        guard let source = (try? open(path)) as? any ReflowableSource, source.reflowable else { return nil }
        return source
    }
}
