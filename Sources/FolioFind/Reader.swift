import FolioBook

/// The reader's ways about a book as plain values, for the viewer to keep and its on-screen
/// layer to show: the chapter being read, the link under the pointer, the words selected, the
/// places to go back to. None of them draws or reads a document.

extension Array where Element == OutlineEntry {
    /// The entries leading to the chapter `page` is in: the last entry at each level that starts
    /// on or before it (empty before the first chapter).
    public func chapter(at page: Int) -> [OutlineEntry] {
        guard let entry = last(where: { ($0.page ?? Int.max) <= page }) else { return [] }
        return [entry] + entry.children.chapter(at: page)
    }

    /// Every entry with its depth, in reading order: the rows of a contents panel.
    public var rows: [(depth: Int, entry: OutlineEntry)] {
        flatMap { e in [(0, e)] + e.children.rows.map { ($0.depth + 1, $0.entry) } }
    }
}

extension PageRegion {
    /// Whether the point (`x`, `y`, fractions of the paper) is inside.
    public func contains(x: Double, y: Double) -> Bool { x >= x0 && x < x1 && y >= y0 && y < y1 }
}

extension Array where Element == PageLink {
    /// The link under a point of the page (fractions of its paper): the smallest box holding it.
    public func link(atX x: Double, y: Double) -> PageLink? {
        filter { $0.box.contains(x: x, y: y) }.min { $0.box.width * $0.box.height < $1.box.width * $1.box.height }
    }
}

/// Words chosen by dragging across a page: from the word nearest where the drag began to the
/// one nearest where it is now, in reading order, as text does when selected.
public struct Selection: Sendable, Equatable {
    public var page: Int
    public var words: [TextWord]
    /// Where the words are in the page's text (indices of its words).
    public var range: Range<Int>

    /// The words of `text` from the drag's start to its end (fractions of the paper).
    public init(page: Int, text: PageText, from a: (x: Double, y: Double), to b: (x: Double, y: Double)) {
        self.page = page
        guard let i = Self.nearest(text, a), let j = Self.nearest(text, b) else { (words, range) = ([], 0..<0); return }
        range = Swift.min(i, j)..<Swift.max(i, j) + 1
        words = Array(text.words[range])
    }

    /// The words of `text` from the word nearest `a` to the page's last word (`toEnd`), or from
    /// its first word to that one: the part of a drag across two pages on one of them.
    public init(page: Int, text: PageText, from a: (x: Double, y: Double), toEnd: Bool) {
        self.page = page
        guard let i = Self.nearest(text, a) else { (words, range) = ([], 0..<0); return }
        range = toEnd ? i..<text.words.count : 0..<i + 1
        words = Array(text.words[range])
    }

    /// A drag from `a` on page `page` (words `text`) to `b` on the next or the previous page
    /// (`otherPage`, words `otherText`): the words between them in reading order, each page's
    /// part in page order.
    public static func across(page: Int, text: PageText, from a: (x: Double, y: Double),
                              to otherPage: Int, text otherText: PageText, at b: (x: Double, y: Double)) -> [Selection] {
        let forward = otherPage > page
        let parts = [Selection(page: page, text: text, from: a, toEnd: forward),
                     Selection(page: otherPage, text: otherText, from: b, toEnd: !forward)]
        return forward ? parts : parts.reversed()
    }

    /// The text to copy: the words, a line break where their lines break.
    public var text: String {
        PageText(words: words).lines.map { $0.map(\.text).joined(separator: " ") }.joined(separator: "\n")
    }

    /// Boxes to mark, one per line: its words' boxes and the spaces between them.
    public var boxes: [PageRegion] { PageText(words: words).lineBoxes }

    private static func nearest(_ text: PageText, _ p: (x: Double, y: Double)) -> Int? {
        func distance(_ b: PageRegion) -> Double {
            let dx = Swift.max(b.x0 - p.x, 0, p.x - b.x1), dy = Swift.max(b.y0 - p.y, 0, p.y - b.y1)
            return dx * dx + dy * dy * 4  // another line is farther than a word along the line
        }
        return text.words.indices.min { distance(text.words[$0].box) < distance(text.words[$1].box) }
    }
}

/// Pages left by following links, to come back to (Alt+←): the last one first, at most `limit`.
public struct BackStack: Sendable, Equatable {
    public private(set) var pages: [Int] = []
    public let limit: Int

    public init(limit: Int = 100) { self.limit = limit }

    /// Remembers `page`, left for a link's target.
    public mutating func leave(_ page: Int) {
        if pages.last != page { pages.append(page) }
        if pages.count > limit { pages.removeFirst() }
    }

    /// The page to go back to, forgotten from here.
    public mutating func back() -> Int? { pages.popLast() }
}
