/// The on-screen layer's model: what it shows in which state, where its parts lie in pixels,
/// which part a point hits, and how visible it is at a time passed in.
///
/// Does not: draw (FolioOverlayText paints its panels into images, the renderer draws those),
/// read the clock, or know what a book or a key is beyond the words it is handed. Pixels are the
/// framebuffer's, origin top left, y down.

/// A rectangle in pixels, origin top left.
public struct OverlayRect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    public func contains(x px: Double, y py: Double) -> Bool { px >= x && px < maxX && py >= y && py < maxY }
}

/// A colour, components 0…1, not premultiplied.
public struct OverlayColor: Sendable, Hashable {
    public var r, g, b, a: Double

    public init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        (self.r, self.g, self.b, self.a) = (r, g, b, a)
    }

    public static let clear = OverlayColor(0, 0, 0, 0)
    /// The panels' ground: dark enough under white text over any page or shelf.
    public static let panel = OverlayColor(0.08, 0.08, 0.10, 0.78)
    /// The ground of the help card and the contents: rows of small text over a page's print
    /// are read only on a solid card (any see-through lets the print show between the words).
    public static let card = OverlayColor(0.08, 0.08, 0.10)
    public static let text = OverlayColor(0.96, 0.96, 0.94)
    public static let dim = OverlayColor(0.72, 0.72, 0.70)
    public static let track = OverlayColor(1, 1, 1, 0.28)
    /// The part of the book read, and what a notice or a refused page number is written in.
    public static let accent = OverlayColor(0.96, 0.66, 0.24)
}

/// The colours of the solid cards (the help card, the contents): a card of the reader's theme,
/// as Foliate's and Apple Books' panels follow theirs — light paper on the paper theme, warm
/// on sepia, dark at night — each with text dark or light enough to read on it.
public struct CardTone: Sendable, Hashable {
    public var ground, text, dim, accent, chosen: OverlayColor

    public static let night = CardTone(ground: .card, text: .text, dim: .dim, accent: .accent, chosen: .track)
    public static let paper = CardTone(ground: OverlayColor(0.97, 0.96, 0.93), text: OverlayColor(0.11, 0.10, 0.09),
                                       dim: OverlayColor(0.36, 0.35, 0.33), accent: OverlayColor(0.66, 0.33, 0.02),
                                       chosen: OverlayColor(0, 0, 0, 0.10))
    public static let sepia = CardTone(ground: OverlayColor(0.93, 0.87, 0.76), text: OverlayColor(0.22, 0.15, 0.08),
                                       dim: OverlayColor(0.42, 0.33, 0.24), accent: OverlayColor(0.62, 0.28, 0.02),
                                       chosen: OverlayColor(0, 0, 0, 0.10))
}

/// A line of text in a panel: drawn in `frame` (panel pixels), centred vertically, cut with
/// an ellipsis where it is wider — or, `wraps`, broken into as many lines as the frame's
/// height was given for it (the layout estimates them: `OverlayLayout.lines`).
public struct OverlayText: Sendable, Hashable {
    public enum Align: Sendable, Hashable { case left, center, right }

    public var string: String
    public var frame: OverlayRect
    /// Font size in pixels.
    public var size: Double
    public var color: OverlayColor
    public var bold: Bool
    public var align: Align
    public var wraps: Bool

    public init(_ string: String, frame: OverlayRect, size: Double, color: OverlayColor = .text, bold: Bool = false,
                align: Align = .left, wraps: Bool = false) {
        self.string = string
        self.frame = frame
        self.size = size
        self.color = color
        self.bold = bold
        self.align = align
        self.wraps = wraps
    }
}

/// A filled rounded rectangle in a panel (panel pixels).
public struct OverlayBox: Sendable, Hashable {
    public var frame: OverlayRect
    public var color: OverlayColor
    public var radius: Double

    public init(_ frame: OverlayRect, color: OverlayColor, radius: Double) {
        self.frame = frame
        self.color = color
        self.radius = radius
    }
}

/// One part of the layer, painted into one image: boxes first, then texts.
public struct OverlayPanel: Sendable, Hashable {
    public enum Role: Sendable, Hashable { case bar, shelfTitle, help, entry, notice, contents, note, typography }

    public var role: Role
    /// Where the panel lies in the framebuffer (whole pixels).
    public var frame: OverlayRect
    public var boxes: [OverlayBox]
    public var texts: [OverlayText]

    public init(role: Role, frame: OverlayRect, boxes: [OverlayBox], texts: [OverlayText]) {
        self.role = role
        self.frame = frame
        self.boxes = boxes
        self.texts = texts
    }
}

/// Where the reader is, for the progress bar.
public struct OverlayProgress: Sendable, Hashable {
    /// The spread's page labels and the page count: "17–18 · 36".
    public var label: String
    /// How far into the book the spread is, 0 (first) … 1 (last).
    public var fraction: Double
    /// The time left ("12 min left in the chapter · 3 h in the book"), under the track; nil: none.
    public var detail: String?

    public init(label: String, fraction: Double, detail: String? = nil) {
        (self.label, self.fraction, self.detail) = (label, fraction, detail)
    }
}

/// A line of the help card: keys and what they do.
public struct HelpRow: Sendable, Hashable {
    public var keys: String
    public var summary: String

    public init(keys: String, summary: String) {
        self.keys = keys
        self.summary = summary
    }
}

/// A group of the help card: a title and its keys.
public struct HelpSection: Sendable, Hashable {
    public var title: String
    public var rows: [HelpRow]

    public init(title: String, rows: [HelpRow]) {
        self.title = title
        self.rows = rows
    }
}

/// What the layer shows now; nil parts are not shown.
public struct OverlayContent: Sendable, Hashable {
    /// On the shelf: the centred book's title and author.
    public var shelfTitle: String?
    public var shelfAuthor: String?
    /// How far the centred book is read, 0…1: a thin bar under its title; nil: never opened.
    public var shelfRead: Double?
    /// In an open book: the progress bar.
    public var progress: OverlayProgress?
    /// The help card's sections, laid out in two columns.
    public var help: [HelpSection]?
    /// The page number being typed, or the answer to one that does not exist.
    public var entry: String?
    /// A one-line notice of a problem.
    public var notice: String?
    /// The contents panel.
    public var contents: ContentsList?
    /// A note's text, on a card over the page, and the words of the links it holds (a row each).
    public var note: String?
    public var noteLinks: [String] = []
    /// The typography of a reflowable book, a row a choice (its keys, what it is now), on a card
    /// beside the page it sets.
    public var typography: [HelpRow]?
    /// The colours of the solid cards (the paper theme's, Folio's first).
    public var cards = CardTone.paper

    public init(shelfTitle: String? = nil, shelfAuthor: String? = nil, progress: OverlayProgress? = nil,
                help: [HelpSection]? = nil, entry: String? = nil, notice: String? = nil, contents: ContentsList? = nil) {
        self.shelfTitle = shelfTitle
        self.shelfAuthor = shelfAuthor
        self.progress = progress
        self.help = help
        self.entry = entry
        self.notice = notice
        self.contents = contents
    }
}

/// Where the layer's parts go in a framebuffer of `width × height` pixels, `scale` pixels per
/// point of the screen (2 on a HiDPI screen): sizes follow the window (a small one gets smaller
/// type, down to a legible floor) and the pixel density, so text is drawn at the density shown.
public struct OverlayLayout: Sendable {
    public var width: Double
    public var height: Double
    /// Pixels of one layout unit: type and margins are multiples of it.
    public let unit: Double
    /// The lines a wrapping text takes in its frame's width, as the painter breaks it (this
    /// module draws no text); nil: estimated (`lines(_:size:width:bold:)`), never short.
    public var measure: (@Sendable (OverlayText) -> Int)?

    public init(width: Int, height: Int, scale: Double = 1) {
        self.width = Double(max(width, 1))
        self.height = Double(max(height, 1))
        let s = scale.isFinite && scale > 0 ? scale : 1
        // 1 at 1280×720 on a normal screen; between 0.75 and 2 of the density otherwise.
        unit = s * min(max(min(self.width / s / 1280, self.height / s / 720), 0.75), 2)
    }

    var margin: Double { (16 * unit).rounded() }

    /// The panels of `content`, bottom first.
    public func panels(_ content: OverlayContent) -> [OverlayPanel] {
        var out: [OverlayPanel] = []
        if let progress = content.progress { out.append(bar(progress)) }
        if let title = content.shelfTitle { out.append(shelfTitle(title, author: content.shelfAuthor, read: content.shelfRead)) }
        var top = margin
        if let entry = content.entry {
            let p = line(entry, role: .entry, top: top, size: 20, color: .text)
            top = p.frame.maxY + margin / 2
            out.append(p)
        }
        if let notice = content.notice { out.append(line(notice, role: .notice, top: top, size: 15, color: .accent)) }
        if let contents = content.contents { out.append(contentsPanel(contents, tone: content.cards)) }
        if let note = content.note { out.append(noteCard(note, links: content.noteLinks, tone: content.cards)) }
        if let rows = content.typography { out.append(typographyCard(rows, tone: content.cards)) }
        if let help = content.help { out.append(helpCard(help, tone: content.cards)) }
        return out
    }

    // MARK: The progress bar

    /// The bar's panel: across the bottom, at most 960 units wide.
    public var barFrame: OverlayRect {
        let w = min(width - 2 * margin, (960 * unit).rounded()), h = (44 * unit).rounded()
        return OverlayRect(x: ((width - w) / 2).rounded(), y: height - margin - h, width: w, height: h)
    }

    private var labelWidth: Double { (150 * unit).rounded() }

    /// The track in the bar's panel: the left part, the label on its right.
    private var track: OverlayRect {
        let f = barFrame, pad = (18 * unit).rounded(), h = max(2, (4 * unit).rounded())
        return OverlayRect(x: pad, y: ((f.height - h) / 2).rounded(), width: max(f.width - 2 * pad - labelWidth, 1), height: h)
    }

    private func bar(_ progress: OverlayProgress) -> OverlayPanel {
        let f = barFrame, t = track, fraction = min(max(progress.fraction, 0), 1)
        let knob = (14 * unit).rounded()
        let fill = OverlayRect(x: t.x, y: t.y, width: max(t.width * fraction, t.height), height: t.height)
        let knobFrame = OverlayRect(x: t.x + t.width * fraction - knob / 2, y: (f.height - knob) / 2, width: knob, height: knob)
        let label = OverlayRect(x: t.maxX + (12 * unit).rounded(), y: 0, width: labelWidth - (12 * unit).rounded(), height: f.height)
        var texts = [OverlayText(progress.label, frame: label, size: 15 * unit, align: .center)]
        if let detail = progress.detail {
            texts.append(OverlayText(detail, frame: OverlayRect(x: t.x, y: t.maxY + (5 * unit).rounded(), width: t.width, height: (13 * unit).rounded()),
                                     size: 11 * unit, color: .dim, align: .center))
        }
        return OverlayPanel(role: .bar, frame: f,
                            boxes: [OverlayBox(OverlayRect(x: 0, y: 0, width: f.width, height: f.height), color: .panel, radius: f.height / 2),
                                    OverlayBox(t, color: .track, radius: t.height / 2),
                                    OverlayBox(fill, color: .accent, radius: t.height / 2),
                                    OverlayBox(knobFrame, color: .text, radius: knob / 2)],
                            texts: texts)
    }

    /// The fraction of the book at pixel (`x`, `y`) if it lies on the bar (its whole panel is
    /// the target); with `dragging`, anywhere: the pointer's x along the track, clamped.
    public func barFraction(x: Double, y: Double, dragging: Bool = false) -> Double? {
        let f = barFrame
        guard dragging || f.contains(x: x, y: y) else { return nil }
        let t = track
        return min(max((x - f.x - t.x) / t.width, 0), 1)
    }

    // MARK: Texts

    /// The title and author under the centred cover on the shelf.
    private func shelfTitle(_ title: String, author: String?, read: Double?) -> OverlayPanel {
        let w = min(width - 2 * margin, (720 * unit).rounded())
        let titleHeight = (30 * unit).rounded(), authorHeight = author == nil ? 0 : (24 * unit).rounded()
        let barHeight = max(2, (3 * unit).rounded()), barRoom = read == nil ? 0 : barHeight + (8 * unit).rounded()
        let h = titleHeight + authorHeight + barRoom
        // The centred cover's foot lies at about 78% of the height (the carousel's and the wheel's).
        let y = min((height * 0.8).rounded(), height - margin - h)
        var texts = [OverlayText(title, frame: OverlayRect(x: 0, y: 0, width: w, height: titleHeight), size: 22 * unit, bold: true,
                                 align: .center)]
        if let author {
            texts.append(OverlayText(author, frame: OverlayRect(x: 0, y: titleHeight, width: w, height: authorHeight), size: 16 * unit,
                                     color: .dim, align: .center))
        }
        var boxes: [OverlayBox] = []
        if let read {
            // How far it is read: a short track under the lines, filled as far.
            let track = OverlayRect(x: ((w - 160 * unit) / 2).rounded(), y: h - barHeight, width: (160 * unit).rounded(), height: barHeight)
            boxes = [OverlayBox(track, color: .track, radius: barHeight / 2),
                     OverlayBox(OverlayRect(x: track.x, y: track.y, width: max(track.width * min(max(read, 0), 1), barHeight), height: barHeight),
                                color: .accent, radius: barHeight / 2)]
        }
        return OverlayPanel(role: .shelfTitle, frame: OverlayRect(x: ((width - w) / 2).rounded(), y: y, width: w, height: h),
                            boxes: boxes, texts: texts)
    }

    /// A one-line pill centred at the top, as wide as its text needs (estimated: the painter
    /// cuts what is wider).
    private func line(_ text: String, role: OverlayPanel.Role, top: Double, size: Double, color: OverlayColor) -> OverlayPanel {
        let s = size * unit, h = (s * 2).rounded(), pad = (s * 0.9).rounded()
        let w = min(width - 2 * margin, (Double(text.count) * s * 0.64 + 2 * pad).rounded())
        let frame = OverlayRect(x: ((width - w) / 2).rounded(), y: top, width: w, height: h)
        return OverlayPanel(role: role, frame: frame,
                            boxes: [OverlayBox(OverlayRect(x: 0, y: 0, width: w, height: h), color: .panel, radius: h / 2)],
                            texts: [OverlayText(text, frame: OverlayRect(x: pad, y: 0, width: w - 2 * pad, height: h), size: s,
                                                color: color, align: .center)])
    }

    // MARK: The contents panel

    private var contentsRow: Double { (26 * unit).rounded() }

    /// Where the contents panel lies: on the left, from under the entry line to above the bar.
    public var contentsFrame: OverlayRect {
        let top = (72 * unit).rounded(), w = min(width - 2 * margin, (520 * unit).rounded())
        return OverlayRect(x: margin, y: top, width: w, height: max(barFrame.y - margin - top, contentsRow + 2 * margin))
    }

    /// Rows the panel has room for.
    public var contentsRows: Int { max(Int((contentsFrame.height - 2 * margin) / contentsRow), 1) }

    /// The index of the row at pixel (`x`, `y`) of the panel showing `list`, nil off its rows.
    public func contentsRow(x: Double, y: Double, in list: ContentsList) -> Int? {
        let f = contentsFrame
        guard f.contains(x: x, y: y) else { return nil }
        let i = list.top + Int(((y - f.y - margin) / contentsRow).rounded(.down))
        return y >= f.y + margin && i < min(list.top + list.visible, list.rows.count) ? i : nil
    }

    /// The rows shown, indented by depth, page labels on the right; the chosen row on a light
    /// ground, the current chapter's title in the accent colour.
    private func contentsPanel(_ list: ContentsList, tone: CardTone) -> OverlayPanel {
        let f = contentsFrame, row = contentsRow, labelWidth = (80 * unit).rounded()
        var boxes = [OverlayBox(OverlayRect(x: 0, y: 0, width: f.width, height: f.height), color: tone.ground, radius: 12 * unit)]
        var texts: [OverlayText] = []
        for (i, r) in zip(list.shown.indices, list.shown) {
            let y = margin + Double(i - list.top) * row
            if i == list.selected {
                boxes.append(OverlayBox(OverlayRect(x: margin / 2, y: y, width: f.width - margin, height: row), color: tone.chosen, radius: 6 * unit))
            }
            let indent = margin + Double(min(r.depth, 8)) * 18 * unit
            texts.append(OverlayText(r.title, frame: OverlayRect(x: indent, y: y, width: max(f.width - indent - labelWidth - margin, 1), height: row),
                                     size: 15 * unit, color: i == list.current ? tone.accent : tone.text, bold: i == list.current))
            if let label = r.label {
                texts.append(OverlayText(label, frame: OverlayRect(x: f.width - margin - labelWidth, y: y, width: labelWidth, height: row),
                                         size: 14 * unit, color: tone.dim, align: .right))
            }
        }
        return OverlayPanel(role: .contents, frame: f, boxes: boxes, texts: texts)
    }

    // MARK: Typography

    /// The typography card: in the top right corner, so the page laid out anew shows beside it;
    /// a title, then a row a choice, its keys on the left and what it is now on the right.
    /// The typography card's frame for `rows` rows, a row's height and the card's padding.
    private func typographyCardFrame(rows: Int) -> (frame: OverlayRect, line: Double, pad: Double) {
        let line = (22 * unit).rounded(), pad = (16 * unit).rounded(), w = min(width - 2 * margin, (400 * unit).rounded())
        let h = min(pad * 2 + line * Double(rows + 1), barFrame.y - 2 * margin)
        return (OverlayRect(x: width - margin - w, y: margin, width: w, height: h), line, pad)
    }

    /// The row of a typography card of `rows` rows at pixel (`x`, `y`), and whether the point is
    /// on the row's left half; nil off its rows.
    public func typographyRow(x: Double, y: Double, rows: Int) -> (row: Int, left: Bool)? {
        let (f, line, pad) = typographyCardFrame(rows: rows)
        guard f.contains(x: x, y: y) else { return nil }
        let i = Int(((y - f.y - pad) / line).rounded(.down)) - 1
        return (0..<rows).contains(i) ? (i, x < f.x + f.width / 2) : nil
    }

    private func typographyCard(_ rows: [HelpRow], tone: CardTone) -> OverlayPanel {
        let size = 14 * unit, keys = (130 * unit).rounded()
        let (frame, line, pad) = typographyCardFrame(rows: rows.count)
        let w = frame.width, h = frame.height
        var texts = [OverlayText("Typography", frame: OverlayRect(x: pad, y: pad, width: w - 2 * pad, height: line), size: size,
                                 color: tone.accent, bold: true)]
        for (i, row) in rows.enumerated() where pad + line * Double(i + 2) <= h {
            let y = pad + line * Double(i + 1)
            texts.append(OverlayText(row.keys, frame: OverlayRect(x: pad, y: y, width: keys - 8 * unit, height: line), size: size,
                                     color: tone.text, bold: true))
            texts.append(OverlayText(row.summary, frame: OverlayRect(x: pad + keys, y: y, width: w - 2 * pad - keys, height: line),
                                     size: size, color: tone.dim))
        }
        return OverlayPanel(role: .typography, frame: frame,
                            boxes: [OverlayBox(OverlayRect(x: 0, y: 0, width: w, height: h), color: tone.ground, radius: 12 * unit)], texts: texts)
    }

    // MARK: The help card

    /// Lines a text of `string` at `size` pixels takes in `width` pixels when it wraps: a
    /// generous estimate of the sans-serif face's advance (0.62 of the size a character, 0.68
    /// bold, most lines losing a word's room at their end), so the frame is never short.
    public static func lines(_ string: String, size: Double, width: Double, bold: Bool = false) -> Int {
        let advance = Double(string.count) * size * (bold ? 0.68 : 0.62)
        return max(1, Int((advance / max(width * 0.85, 1)).rounded(.up)))
    }

    /// The help card, centred: its sections flow down two columns (a long section goes on in
    /// the next), each row's keys and summary wrapped rather than cut; the type shrinks only
    /// where the window is too short for it.
    private func helpCard(_ sections: [HelpSection], tone: CardTone) -> OverlayPanel {
        // Rows of 17 units a line, a title row of 32, padding of 20 around.
        func layout(_ u: Double, columns: Int) -> (w: Double, h: Double, texts: [OverlayText]) {
            let pad = (20 * u).rounded(), line = 17 * u
            let w = min(width - 2 * margin, (Double(columns) * 460 * u).rounded() + pad)
            let columnWidth = (w - pad * Double(columns + 1)) / Double(columns)
            let keyWidth = min(170 * u, columnWidth * 0.38)
            // Each section's title and rows: the lines each takes, and its texts at (x, y).
            var items: [(lines: Int, title: Bool, texts: (Double, Double) -> [OverlayText])] = []
            for section in sections {
                items.append((1, true, { x, y in
                    [OverlayText(section.title, frame: OverlayRect(x: x, y: y, width: columnWidth, height: line), size: 13 * u, color: tone.accent, bold: true)]
                }))
                for r in section.rows {
                    func texts(x: Double, y: Double, lines n: Int) -> [OverlayText] {
                        [OverlayText(r.keys, frame: OverlayRect(x: x, y: y, width: keyWidth - 8 * u, height: Double(n) * line), size: 13 * u,
                                     color: tone.text, bold: true, wraps: true),
                         OverlayText(r.summary, frame: OverlayRect(x: x + keyWidth, y: y, width: columnWidth - keyWidth, height: Double(n) * line),
                                     size: 13 * u, color: tone.dim, wraps: true)]
                    }
                    let n = texts(x: 0, y: 0, lines: 1).map { t in measure?(t) ?? Self.lines(t.string, size: t.size, width: t.frame.width, bold: t.bold) }.max() ?? 1
                    items.append((n, false, { x, y in texts(x: x, y: y, lines: n) }))
                }
            }
            // A blank line before each title but the first of a column.
            let share = (items.reduce(0) { $0 + $1.lines + ($1.title ? 1 : 0) } + columns - 1) / columns
            var texts = [OverlayText("Keys", frame: OverlayRect(x: pad, y: pad, width: w - 2 * pad, height: 28 * u), size: 18 * u, color: tone.text, bold: true)]
            var column = 0, used = 0, tallest = 0
            for (k, item) in items.enumerated() {
                // The next column starts about its share on, never below a title left alone at the foot of one.
                let needs = item.title ? 2 + (k + 1 < items.count ? items[k + 1].lines : 0) : item.lines
                if column < columns - 1, used > 0, used + needs > share { (column, used) = (column + 1, 0) }
                if item.title && used > 0 { used += 1 }
                let x = pad + Double(column) * (columnWidth + pad)
                texts += item.texts(x, pad + 32 * u + Double(used) * line)
                used += item.lines
                tallest = max(tallest, used)
            }
            return (w, (Double(tallest) * line + 32 * u + 2 * pad).rounded(.up), texts)
        }
        // Too tall for the window: smaller type until it fits, in two columns or, where that
        // leaves larger type (a wide window), three.
        func fitted(columns: Int) -> (u: Double, card: (w: Double, h: Double, texts: [OverlayText])) {
            var u = unit, card = layout(u, columns: columns)
            while card.h > height - 2 * margin, u > 0.3 {
                u *= max(min((height - 2 * margin) / card.h, 0.97), 0.8)
                card = layout(u, columns: columns)
            }
            return (u, card)
        }
        let two = fitted(columns: 2), three = fitted(columns: 3)
        let (u, card) = three.u > two.u * 1.05 ? three : two
        let frame = OverlayRect(x: ((width - card.w) / 2).rounded(), y: max(((height - card.h) / 2).rounded(), 0), width: card.w, height: min(card.h, height))
        return OverlayPanel(role: .help, frame: frame,
                            boxes: [OverlayBox(OverlayRect(x: 0, y: 0, width: card.w, height: frame.height), color: tone.ground, radius: 14 * u)], texts: card.texts)
    }
}
