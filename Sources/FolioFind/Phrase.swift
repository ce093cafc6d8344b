import FolioBook
import Foundation

/// Finding a phrase in a book's text: matching that ignores case, accents, the kind of quote
/// and line breaks, hits as boxes on the paper, and a search that runs beside the reader
/// (Search.swift).
///
/// Does not: read documents (a `PageSource` gives the words), draw highlights, or understand
/// patterns: the phrase is plain text, whatever characters it holds.

/// A phrase folded for matching: lower case, marks (accents, combining characters) dropped,
/// typographic quotes the keyboard's, runs of white space one space.
public struct Phrase: Sendable, Hashable {
    /// The longest phrase searched for, in characters.
    public static let maxCharacters = 10_000

    public let text: String
    let scalars: [Unicode.Scalar]

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong(Int)

        public var description: String {
            switch self {
            case .empty: "nothing to search for: the phrase is empty"
            case let .tooLong(n): "the phrase is \(n) characters long; at most \(Phrase.maxCharacters) are searched for"
            }
        }
    }

    public init(_ text: String) throws(Problem) {
        let count = text.count
        guard count <= Self.maxCharacters else { throw .tooLong(count) }
        let words = text.split(whereSeparator: { $0.isWhitespace }).map { Self.fold(String($0)) }.filter { !$0.isEmpty }
        guard !words.isEmpty else { throw .empty }
        self.text = text
        scalars = Array(words.joined(separator: [" "]))
    }

    /// `s` in lower case without marks, its typographic quotes the keyboard's: "Éte\u{301}" and
    /// "ete" fold alike, and "friend’s" and "friend's" (a keyboard types ', a set book prints ’).
    static func fold(_ s: String) -> [Unicode.Scalar] {
        // Most words of most books are ASCII: lower-cased here without Unicode tables.
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return s.utf8.map { Unicode.Scalar((0x41...0x5A).contains($0) ? $0 + 0x20 : $0) }
        }
        return s.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars.compactMap {
            switch $0.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .spacingMark, .format: return nil
            default: return quotes[$0] ?? $0
            }
        }
    }

    /// Typographic apostrophes and quotation marks, and what a keyboard types for them.
    private static let quotes: [Unicode.Scalar: Unicode.Scalar] = [
        "\u{2018}": "'", "\u{2019}": "'", "\u{201B}": "'", "\u{02BC}": "'", "\u{2032}": "'", "\u{FF07}": "'",
        "\u{201C}": "\"", "\u{201D}": "\"", "\u{201E}": "\"", "\u{201F}": "\"", "\u{2033}": "\"", "\u{FF02}": "\"",
    ]
}

/// One place a phrase was found.
public struct SearchHit: Sendable, Hashable {
    public var page: Int
    /// Where it lies on the paper, one box per line it spans.
    public var boxes: [PageRegion]
    /// The words around it, for a list of hits.
    public var snippet: String

    /// The page's words it covers (indices of the page's text).
    public var words: Range<Int>

    public init(page: Int, boxes: [PageRegion], snippet: String, words: Range<Int> = 0..<0) {
        (self.page, self.boxes, self.snippet, self.words) = (page, boxes, snippet, words)
    }
}

extension PageText {
    /// Every place `phrase` occurs, in reading order (a phrase may span words and lines).
    public func hits(of phrase: Phrase, page: Int) -> [SearchHit] {
        // The words folded and joined by single spaces; each scalar remembers its word. A word
        // broken by a hyphen at a line's end is joined to its rest ("artifi-" "cial" reads
        // "artificial"), as a reader reads it; so is Chinese, Japanese or Korean text a line's
        // end breaks, which has no space there ("雑誌に" "メ…" reads "雑誌にメ…").
        var folded: [Unicode.Scalar] = [], owner: [Int] = [], starts: [Int] = [], lengths: [Int] = []
        folded.reserveCapacity(words.count * 6)
        var broken = false
        for (i, w) in words.enumerated() {
            var f = Phrase.fold(w.text)
            let breaks = f.count > 1 && f.last == "-" && i + 1 < words.count && startsLine(words[i + 1], after: w)
            if breaks { f.removeLast() }
            lengths.append(f.count)
            guard !f.isEmpty else { starts.append(folded.count); continue }
            let unspaced = broken || (i > 0 && folded.last.map(Self.spacelessScript) == true && Self.spacelessScript(f[0])
                                      && startsLine(w, after: words[i - 1]))
            if !folded.isEmpty, !unspaced { folded.append(" "); owner.append(i) }
            broken = breaks
            starts.append(folded.count)
            folded += f
            owner += repeatElement(i, count: f.count)
        }
        let p = phrase.scalars
        guard !p.isEmpty, p.count <= folded.count else { return [] }
        var hits: [SearchHit] = []
        var at = 0
        while at + p.count <= folded.count {
            guard folded[at] == p[0], folded[at..<at + p.count].elementsEqual(p) else { at += 1; continue }
            let end = at + p.count - 1
            hits.append(hit(page: page, first: owner[at], last: owner[end], from: at - starts[owner[at]],
                            to: end - starts[owner[end]] + 1, folded: { folded[starts[$0]..<starts[$0] + lengths[$0]] }))
            at = end + 1
        }
        return hits
    }

    /// Whether `c` is of a script written without spaces between words (Han, kana, Hangul; their
    /// punctuation and full-width forms).
    static func spacelessScript(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x1100...0x11FF, 0x2E80...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF00...0xFFEF, 0x20000...0x3FFFF: true
        default: false
        }
    }

    /// The hit covering words `first…last`, from scalar `from` of the first word's folded text
    /// to scalar `to` of the last's: the boxes cut to the letters found, one box per line. A
    /// word's box gives no letter's place, so the cut is in proportion — and made only where
    /// letters or digits lie beyond it: "database." is marked whole with its point, not cut
    /// into its "e" (a point counted as wide as a letter); inside a word a cut leaves a quarter
    /// of a letter's room, so the last letter found is never clipped.
    private func hit(page: Int, first: Int, last: Int, from: Int, to: Int, folded: (Int) -> ArraySlice<Unicode.Scalar>) -> SearchHit {
        func wordLike(_ s: ArraySlice<Unicode.Scalar>) -> Bool { s.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil } }
        var boxes: [PageRegion] = []
        for i in first...last {
            var b = words[i].box
            let f = folded(i), n = Double(max(1, f.count))
            let x0 = b.x0, w = b.width
            if i == last, to < f.count, wordLike(f.dropFirst(to)) { b.x1 = x0 + w * min(Double(to) + 0.25, n) / n }
            if i == first, from > 0, wordLike(f.prefix(from)) { b.x0 = x0 + w * max(Double(from) - 0.25, 0) / n }
            // The next word on the same line (its middle within this box's height) extends the box.
            if let prev = boxes.last, abs((prev.y0 + prev.y1) / 2 - (b.y0 + b.y1) / 2) < prev.height / 2, b.x0 >= prev.x0 {
                boxes[boxes.count - 1] = PageRegion(x0: prev.x0, y0: min(prev.y0, b.y0), x1: max(prev.x1, b.x1), y1: max(prev.y1, b.y1))
            } else {
                boxes.append(b)
            }
        }
        let around = words[max(0, first - 5)...min(words.count - 1, last + 5)].map(\.text).joined(separator: " ")
        return SearchHit(page: page, boxes: boxes, snippet: around, words: first..<last + 1)
    }
}
