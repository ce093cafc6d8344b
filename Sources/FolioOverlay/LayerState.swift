/// How visible the layer is at a time passed in: it fades in when the reader does something
/// (moves the pointer, presses a key) and out a few seconds after the last thing they did.
public struct OverlayFade: Sendable, Equatable {
    /// Seconds to appear, to stay after the last activity, and to fade away.
    public var fadeIn = 0.15
    public var hold = 3.0
    public var fadeOut = 0.6
    /// When the current appearance began (back-dated when it rises from part way) and the last
    /// activity; nil: never woken.
    private var start: Double?
    private var last: Double?

    public init() {}

    /// Something happened at `time`: the layer shows (rising from where it is) and stays.
    public mutating func wake(at time: Double) {
        let now = opacity(at: time)
        if now < 1 || start == nil { start = time - now * fadeIn }
        last = max(last ?? time, time)
    }

    /// A key was pressed at `time`: the layer shows at once (what the key did is seen in the
    /// same frame) and stays.
    public mutating func show(at time: Double) {
        last = max(last ?? time, time)
        // Back-dated by twice the fade: fully risen whatever the rounding.
        if opacity(at: time) < 1 { start = time - 2 * fadeIn }
    }

    /// 0 (hidden) … 1 at `time`.
    public func opacity(at time: Double) -> Double {
        guard let start, let last else { return 0 }
        let risen = time - start, since = time - last
        let rising = risen >= fadeIn ? 1 : max(risen / fadeIn, 0)
        let falling = since <= hold ? 1 : since >= hold + fadeOut ? 0 : 1 - (since - hold) / fadeOut
        return min(rising, falling)
    }

    /// The next time after `time` at which the opacity starts to change, `time` itself while it
    /// is changing, nil once it rests at 0 for good.
    public func nextChange(after time: Double) -> Double? {
        guard let start, let last else { return nil }
        if time < start + fadeIn || (time >= last + hold && time < last + hold + fadeOut) { return time }
        if time < last + hold { return last + hold }
        return nil
    }
}

/// What the layer holds between frames of a live reader: its fade, the help card, the page
/// number typed or its answer, a notice and a drag of the progress bar. Lines that answer or
/// warn stay a few seconds, then go.
public struct LayerState: Sendable, Equatable {
    public var fade = OverlayFade()
    public var helpShown = false
    /// The page number being typed ("Go to page 12"), or nil.
    public var typing: String?
    /// Where a drag of the progress bar is (fraction of the book), nil when none.
    public var dragFraction: Double?
    /// What the entry field is typed for: a phrase to find, a note on words selected, or a form's
    /// text field.
    public enum FieldPurpose: Sendable, Equatable { case find, note, form }
    /// The text being typed in the entry field, nil while the field is closed.
    public private(set) var field: String?
    public private(set) var fieldPurpose = FieldPurpose.find
    /// What the last search says ("“zebra” 3 of 17", "no hits for “zebra”"), shown on the
    /// entry line while the field is closed; nil when there was none.
    public var searchLine: String?
    /// The contents panel, while open.
    public var contents: ContentsList?
    /// The text of a note shown over the page (a footnote's reference clicked, a word looked
    /// up), while open, and the paragraphs of it scrolled past (the wheel over it).
    public var note: String? {
        didSet { if note != oldValue { noteSkip = 0 } }
    }
    public var noteSkip = 0
    /// The words of the links the note holds, a row each under its text (a click follows one).
    public var noteLinks: [String] = []

    /// The note as shown: from the first paragraph not scrolled past, "…" before it when some are.
    public var noteShown: String? {
        guard let note else { return nil }
        let paragraphs = note.split(separator: "\n", omittingEmptySubsequences: true)
        let skip = min(noteSkip, max(paragraphs.count - 1, 0))
        return skip == 0 ? note : (["…"] + paragraphs.dropFirst(skip)).joined(separator: "\n")
    }

    /// The wheel over the note: `by` paragraphs further (back when negative), within the note.
    public mutating func scrollNote(by n: Int) {
        let count = note?.split(separator: "\n", omittingEmptySubsequences: true).count ?? 0
        noteSkip = min(max(noteSkip + n, 0), max(count - 1, 0))
    }
    /// The typography card's rows, while open (a typography key pressed).
    public var typography: [HelpRow]?
    /// What the reading state says beside the books: how far the centred book on the shelf is
    /// read (0…1), and the time left in the open one ("12 min left in the chapter · …").
    public var shelfRead: Double?
    public var timeLeft: String?
    /// Characters the search field takes at most (a longer phrase is not searched for).
    public static let searchLimit = 10_000
    public private(set) var answer: String?
    public private(set) var notice: String?
    private var answerUntil = 0.0
    private var noticeUntil = 0.0
    /// Seconds an answer and a notice stay.
    public static let answerSeconds = 3.0
    public static let noticeSeconds = 6.0

    public init() {}

    /// Shows `text` for a few seconds on the entry line: the answer to a page number (it
    /// replaces what was typed), or what a key did that shows nowhere else (the page mode
    /// chosen, a book without contents).
    public mutating func answer(_ text: String, at time: Double) {
        answer = text
        answerUntil = time + Self.answerSeconds
        typing = nil
        fade.wake(at: time)
    }

    /// Shows a one-line notice of a problem.
    public mutating func notice(_ text: String, at time: Double) {
        notice = text
        noticeUntil = time + Self.noticeSeconds
        fade.wake(at: time)
    }

    /// Opens the entry field for `purpose` with `text` to edit (the last phrase searched, the
    /// note written before).
    public mutating func openField(_ purpose: FieldPurpose, with text: String = "") {
        (field, fieldPurpose) = (String(text.prefix(Self.searchLimit)), purpose)
    }

    /// Closes the entry field; what a search found stays shown.
    public mutating func closeField() { field = nil }

    /// Adds typed `text` to the open field: control characters are dropped, and the field
    /// stops at `searchLimit` characters.
    public mutating func typeInField(_ text: String) {
        guard let field else { return }
        let typed = text.filter { !$0.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        self.field = String((field + typed).prefix(Self.searchLimit))
    }

    /// Backspace in the open field: the last character goes.
    public mutating func eraseInField() {
        if field?.isEmpty == false { field?.removeLast() }
    }

    /// Drops the answer and the notice whose time is over; true when that changed something.
    public mutating func expire(at time: Double) -> Bool {
        var changed = false
        if answer != nil, time >= answerUntil { answer = nil; changed = true }
        if notice != nil, time >= noticeUntil { notice = nil; changed = true }
        return changed
    }

    /// The layer stays fully shown while something in it waits for the reader.
    public var isPinned: Bool {
        helpShown || typing != nil || answer != nil || notice != nil || dragFraction != nil || field != nil || contents != nil
            || note != nil || typography != nil
    }

    /// What the entry line shows: the page number typed, else its answer, else the search
    /// field (its last 60 characters, a bar where typing goes), else what the search found.
    public var entry: String? {
        typing ?? answer ?? field.map { "\(fieldPurpose == .find ? "Find" : fieldPurpose == .note ? "Note" : "Field"): \($0.count > 60 ? "…" + $0.suffix(60) : $0)▏" } ?? searchLine
    }

    /// The next time anything of the layer changes by itself after `time` (`time` itself while it
    /// fades), nil when nothing will.
    public func nextChange(after time: Double) -> Double? {
        let ends = [answer == nil ? nil : answerUntil, notice == nil ? nil : noticeUntil].compactMap { $0 }
        return ([fade.nextChange(after: time)].compactMap { $0 } + ends).min()
    }
}
