/// The contents panel's state: its rows (title, page label, depth), the one chosen with the
/// arrows, the current chapter's, and the first row shown of a list longer than the panel.
public struct ContentsList: Sendable, Hashable {
    public struct Row: Sendable, Hashable {
        public var title: String
        /// The page label shown on the right; nil for a heading that points nowhere.
        public var label: String?
        public var depth: Int
        /// The page image (0-based) it goes to; nil: nowhere in the book.
        public var target: Int?
        /// What the row stands for to its panel (a highlight's row in the store); nil: nothing more.
        public var tag: Int64?

        public init(title: String, label: String?, depth: Int, target: Int?, tag: Int64? = nil) {
            (self.title, self.label, self.depth, self.target, self.tag) = (title, label, depth, target, tag)
        }
    }

    public var rows: [Row]
    /// The chapter being read, marked; nil before the first.
    public var current: Int?
    public private(set) var selected: Int
    /// The first row shown.
    public private(set) var top = 0
    /// Rows the panel shows at once (the layout sets it to what fits).
    public var visible: Int {
        didSet { scrollToSelection() }
    }

    /// Opens on the current chapter (or the first row).
    public init(rows: [Row], current: Int?, visible: Int = 12) {
        self.rows = rows
        self.current = current.flatMap { rows.indices.contains($0) ? $0 : nil }
        selected = self.current ?? 0
        self.visible = max(visible, 1)
        scrollToSelection()
    }

    /// ↑ / ↓ (and Page Up / Down by `visible`): the selection moves, clamped, the list
    /// scrolling to keep it shown.
    public mutating func move(by n: Int) {
        guard !rows.isEmpty else { return }
        selected = min(max(selected + n, 0), rows.count - 1)
        scrollToSelection()
    }

    /// The wheel: the rows shown move, the selection stays.
    public mutating func scroll(by n: Int) {
        top = min(max(top + n, 0), max(rows.count - visible, 0))
    }

    /// The rows shown, with their indices.
    public var shown: ArraySlice<Row> { rows[min(top, rows.count)..<min(top + visible, rows.count)] }

    private mutating func scrollToSelection() {
        if selected < top { top = selected }
        if selected >= top + visible { top = selected - visible + 1 }
        top = min(max(top, 0), max(rows.count - visible, 0))
    }
}
