import FolioBook

extension TextWord {
    /// Titles and abbreviations whose point ends no sentence.
    private static let abbreviations: Set<String> = ["mr.", "mrs.", "ms.", "dr.", "st.", "mt.", "no.", "vs.", "etc.", "e.g.", "i.e.", "cf.", "vol.", "ch."]

    /// Whether a sentence ends with this word: it ends in . ! ? or … (closing quotes and brackets
    /// after them allowed), and is not a title or an initial ("Mr.", "J.").
    public var endsSentence: Bool {
        let trimmed = text.reversed().drop { "\"'”’»)]".contains($0) }
        guard let last = trimmed.first, ".!?…。！？".contains(last) else { return false }
        guard last == "." else { return true }
        let word = String(trimmed.reversed()).lowercased()
        let letters = word.filter(\.isLetter)
        return !Self.abbreviations.contains(word) && !(letters.count == 1 && word.count == 2)
    }
}

/// A document's text read out a sentence at a time from a page on: each sentence's words and
/// where its lines lie, page by page (a sentence may run on to the next page; a page without
/// text ends one). What reading aloud speaks and marks.
public struct SentenceReader: Sendable {
    /// A sentence and where its words lie: (document page, the boxes of its lines there).
    public struct Sentence: Sendable {
        public var text: String
        public var parts: [(page: Int, boxes: [PageRegion])]
    }

    /// Where the next sentence starts: a document page and a word of it.
    public private(set) var next: (page: Int, word: Int)
    /// Words a sentence takes at most (a page of verse without a full stop is read in parts).
    public static let longest = 80

    public init(page: Int) { next = (page, 0) }

    /// The next sentence of `source`; nil at the end of the document.
    public mutating func read(_ source: any PageSource) -> Sentence? {
        var sentence = Sentence(text: "", parts: []), words = 0
        while next.page < source.pageCount {
            let (page, start) = next
            guard let text = (try? source.text(page: page)) ?? nil else {
                // A page without text (a picture) ends the sentence.
                next = (page + 1, 0)
                if words > 0 { break } else { continue }
            }
            guard start < text.words.count else {
                next = (page + 1, 0)
                continue
            }
            var end = start
            while end < text.words.count, words < Self.longest {
                words += 1
                end += 1
                if text.words[end - 1].endsSentence { break }
            }
            let part = Array(text.words[start..<end])
            sentence.text += (sentence.text.isEmpty ? "" : " ") + part.map(\.text).joined(separator: " ")
            sentence.parts.append((page, PageText(words: part).lineBoxes))
            next = (page, end)
            if part.last?.endsSentence == true || words >= Self.longest { break }
        }
        return words > 0 ? sentence : nil
    }
}
