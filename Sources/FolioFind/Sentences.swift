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
