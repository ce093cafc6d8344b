
/// A note over the page: its card and where a click on it falls.
extension OverlayLayout {
    /// A note over the page: a card of the theme, centred above the bar, as wide as a
    /// comfortable line (about 60 characters), as tall as its paragraphs wrapped take up to the
    /// room above the bar (a longer note is cut at its last whole line), then a row for each
    /// link it holds ("→ the next chapter", in the accent: a click follows it).
    func noteCard(_ note: String, links: [String], tone: CardTone) -> OverlayPanel {
        let layout = noteCardLayout(note, links: links)
        let w = layout.frame.width, h = layout.frame.height
        var texts = layout.paragraphs.map { OverlayText($0.text, frame: $0.frame, size: layout.size, color: tone.text, wraps: true) }
        texts += zip(links, layout.links).map { OverlayText("→ " + $0, frame: $1, size: layout.size, color: tone.accent) }
        // A rim of the tone's own shade sets the card off from paper of its colour.
        let rim = max((2 * unit).rounded(), 1)
        return OverlayPanel(role: .note, frame: layout.frame,
                            boxes: [OverlayBox(OverlayRect(x: 0, y: 0, width: w, height: h), color: tone.chosen, radius: 12 * unit),
                                    OverlayBox(OverlayRect(x: rim, y: rim, width: w - 2 * rim, height: h - 2 * rim), color: tone.ground,
                                               radius: 12 * unit - rim)], texts: texts)
    }

    /// Where a note card's parts lie: its frame, its paragraphs and its links' rows (within the
    /// card), and its text size. Links take their rows first; the paragraphs the room left.
    private func noteCardLayout(_ note: String, links: [String]) -> (frame: OverlayRect, paragraphs: [(text: String, frame: OverlayRect)],
                                                                    links: [OverlayRect], size: Double) {
        let size = 15 * unit, line = (22 * unit).rounded(), pad = (18 * unit).rounded(), gap = (line / 3).rounded()
        let w = min(width - 2 * margin, (560 * unit).rounded()), inner = w - 2 * pad
        let room = max(barFrame.y - 2 * margin - 2 * pad, line)
        let linkRows = min(links.count, max(Int(room / line) - 1, 0))
        let textRoom = room - (linkRows > 0 ? Double(linkRows) * line + gap : 0)
        var paragraphs: [(text: String, frame: OverlayRect)] = [], y = pad
        for paragraph in note.split(separator: "\n").map(String.init) {
            let lines = min(Self.lines(paragraph, size: size, width: inner), Int((textRoom - (y - pad)) / line))
            guard lines > 0 else { break }
            paragraphs.append((paragraph, OverlayRect(x: pad, y: y, width: inner, height: Double(lines) * line)))
            y += Double(lines) * line + gap
        }
        let rows = (0..<linkRows).map { OverlayRect(x: pad, y: y + Double($0) * line, width: inner, height: line) }
        y += Double(linkRows) * line + (linkRows > 0 ? gap : 0)
        let h = (y - gap + pad).rounded(.up)
        let frame = OverlayRect(x: ((width - w) / 2).rounded(), y: max(((barFrame.y - margin - h) / 2).rounded(), margin), width: w, height: h)
        return (frame, paragraphs, rows, size)
    }

    /// The link row of the note card showing `note` and `links` at pixel (`x`, `y`), or nil.
    public func noteLink(x: Double, y: Double, note: String, links: [String]) -> Int? {
        let layout = noteCardLayout(note, links: links)
        return layout.links.firstIndex { $0.contains(x: x - layout.frame.x, y: y - layout.frame.y) }
    }
}
