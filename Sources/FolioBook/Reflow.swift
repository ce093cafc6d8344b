/// Documents whose pages Folio lays out from their text (reflowable e-books): the page count
/// depends on the text size, and a place in the text outlives any one layout.
/// Does not: lay anything out itself (the engine does), or know which engine does it.

/// A place in a reflowable document's text, independent of its layout (for MuPDF, its
/// bookmark): after a relayout at another text size, the page holding it holds the same text.
public struct TextPlace: Sendable, Hashable, Codable {
    public var mark: Int64

    public init(mark: Int64) { self.mark = mark }
}

/// A document that may be laid out again at another text size.
public protocol ReflowableSource: PageSource {
    /// Whether its pages follow the text size (false for a fixed-layout book of the same format).
    var reflowable: Bool { get }
    /// The text size (points) it is laid out at.
    var fontSize: Double { get }
    /// The place in the text where page `index` starts.
    func place(ofPage index: Int) -> TextPlace
    /// The page holding `place` in the current layout.
    func page(of place: TextPlace) -> Int?
    /// The same document opened anew and laid out at `fontSize` points. This one is left as it
    /// is, so its pages stay drawable while the new layout is made (on any thread).
    func relaid(fontSize: Double) throws -> ReflowableSource
}

extension PageSources {
    /// The open document at `path`, if it reflows.
    public static func reflowable(_ path: String) -> ReflowableSource? {
        guard let source = (try? open(path)) as? ReflowableSource, source.reflowable else { return nil }
        return source
    }
}
