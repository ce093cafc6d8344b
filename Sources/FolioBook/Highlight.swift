/// A passage the reader marked: its words, the colour they are painted in, and the note written
/// on them. Anchored to the text, not to one layout: in a reflowable book by the characters of a
/// chapter it covers (counted as `TextPosition` counts them), so it finds the same words at any
/// text size and page shape; on a fixed page by the boxes of its lines.
/// Does not: keep itself (the state store does), or find the words under the pointer.
public struct Highlight: Sendable, Hashable {
    public enum Anchor: Sendable, Hashable {
        /// Characters `start..<end` of chapter `chapter` of a reflowable book.
        case text(chapter: Int, start: Int, end: Int)
        /// Boxes (fractions of the paper) on page index `page` of a book whose pages are fixed.
        case page(Int, boxes: [PageRegion])
    }

    /// The colours a highlight is painted in, multiplied into the page (print stays dark).
    public enum Colour: String, Sendable, CaseIterable {
        case yellow, green, blue, pink

        public var rgb: (r: UInt8, g: UInt8, b: UInt8) {
            switch self {
            case .yellow: (255, 228, 110)
            case .green: (175, 232, 150)
            case .blue: (160, 205, 255)
            case .pink: (255, 175, 205)
            }
        }

        /// The colour after this one (a highlight's colour key steps through them).
        public var next: Colour { Self.allCases[(Self.allCases.firstIndex(of: self)! + 1) % Self.allCases.count] }
    }

    /// The store's row; nil before it is kept.
    public var id: Int64?
    public var anchor: Anchor
    /// The words as they read when marked.
    public var text: String
    public var note: String?
    public var colour: Colour

    public init(id: Int64? = nil, anchor: Anchor, text: String, note: String? = nil, colour: Colour = .yellow) {
        (self.id, self.anchor, self.text, self.note, self.colour) = (id, anchor, text, note, colour)
    }

    /// Whether `scalar` is counted in a `TextPosition` offset: white space and hyphens are not
    /// (they come and go as lines break).
    public static func counts(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x20 && !["\u{A0}", "\u{3000}", "-", "\u{AD}", "\u{2010}"].contains(scalar)
    }

    /// Characters of `word` a `TextPosition` counts.
    public static func counted(_ word: String) -> Int { word.unicodeScalars.reduce(0) { $0 + (counts($1) ? 1 : 0) } }

    /// The anchor of words `range` of `text`, page `page` of a document: the page's characters
    /// counted from `start` (where the page starts in its text, for a reflowable book) or the
    /// words' line boxes.
    public static func anchor(words range: Range<Int>, of text: PageText, page: Int, start: TextPosition?) -> Anchor {
        guard let start else { return .page(page, boxes: PageText(words: Array(text.words[range])).lineBoxes) }
        let before = text.words[..<range.lowerBound].reduce(0) { $0 + counted($1.text) }
        let within = text.words[range].reduce(0) { $0 + counted($1.text) }
        return .text(chapter: start.chapter, start: start.offset + before, end: start.offset + before + within)
    }

    /// The words of `text` (page `page`, starting at `start` in a reflowable book) this
    /// highlight covers; empty when none of them is on the page.
    public func words(of text: PageText, page: Int, start: TextPosition?) -> Range<Int> {
        guard case let .text(chapter, from, to) = anchor, let start, start.chapter == chapter else { return 0..<0 }
        var offset = start.offset, first: Int?, last = 0
        for (i, word) in text.words.enumerated() {
            let n = Self.counted(word.text)
            if offset + n > from, offset < to {
                first = first ?? i
                last = i
            }
            offset += n
            if offset >= to { break }
        }
        return first.map { $0..<last + 1 } ?? 0..<0
    }

    /// Where it is painted on page `page` (fractions of the paper): the line boxes of its words.
    public func boxes(on page: Int, text: PageText?, start: TextPosition?) -> [PageRegion] {
        switch anchor {
        case let .page(p, boxes): return p == page ? boxes : []
        case .text:
            guard let text else { return [] }
            let range = words(of: text, page: page, start: start)
            return range.isEmpty ? [] : PageText(words: Array(text.words[range])).lineBoxes
        }
    }
}
