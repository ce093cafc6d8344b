import FolioBook
import FolioInput
import FolioLayout
import FolioMath

/// A part of a reflowable book's typography a key steps through.
public enum TypographyChoice: String, Sendable, Equatable, CaseIterable {
    case face, margins, lineSpacing, justify, hyphenate, publisherStyles

    /// Line spacings a key steps through (ems).
    public static let lineSpacings = [1.2, 1.4, 1.7, 2.0]

    /// `typography` with this part at its next choice.
    public func next(after typography: Typography) -> Typography {
        var t = typography
        switch self {
        case .face: t.face = Self.following(t.face, in: Typography.Face.allCases)
        case .margins: t.margins = Self.following(t.margins, in: [.normal, .wide, .narrow])
        case .lineSpacing: t.lineSpacing = Self.lineSpacings.first { $0 > t.lineSpacing + 0.01 } ?? Self.lineSpacings[0]
        case .justify: t.justify.toggle()
        case .hyphenate: t.hyphenate.toggle()
        case .publisherStyles: t.publisherStyles.toggle()
        }
        return t
    }

    /// What the layer says of this part of `typography`: "typeface: serif".
    public func describe(_ t: Typography) -> String {
        switch self {
        case .face: "typeface: \(t.face == .publisher ? "the publisher's" : t.face.rawValue)"
        case .margins: "margins: \(t.margins.rawValue)"
        case .lineSpacing: "line spacing: \(t.lineSpacing)"
        case .justify: t.justify ? "justified" : "ragged right"
        case .hyphenate: t.hyphenate ? "hyphenated" : "not hyphenated"
        case .publisherStyles: t.publisherStyles ? "the publisher's styles" : "plain text, no publisher's styles"
        }
    }

    private static func following<T: Equatable>(_ value: T, in all: [T]) -> T {
        all[((all.firstIndex(of: value) ?? -1) + 1) % all.count]
    }
}

/// The keyboard of `folio view`: one table that both the viewer and its help text read, so
/// the two cannot disagree.
public enum KeyMap {
    /// Where a binding applies: on the shelf, while a book is open (opening, reading, turning,
    /// closing), or in both.
    public enum Context: String, Sendable, CaseIterable {
        case shelf, book, anywhere
    }

    /// What holding a key down does.
    public enum Repeat: Sendable {
        /// The command runs once per press (toggles, screenshots).
        case never
        /// Every auto-repeat runs it again (shelf steps, zoom).
        case always
        /// Auto-repeats turn pages back to back: one waits behind the turn under way, the rest
        /// are dropped, so a held key never piles up turns that play on after it is released.
        case whenQueueEmpty
    }

    /// A key (or keys), held with `modifiers`, and what it does in a context.
    public struct Binding: Sendable {
        public var keys: [Key]
        public var modifiers: Modifiers = []
        public var context: Context
        public var action: Action
        public var repeats: Repeat
        /// What it does, for the help text.
        public var summary: String
        /// Characters typed that do the same (/ comes as text, whatever the layout's key for it).
        public var typed: [String] = []

        init(keys: [Key], modifiers: Modifiers = [], typed: [String] = [], context: Context, action: Action, repeats: Repeat,
             summary: String) {
            (self.keys, self.modifiers, self.typed, self.context, self.action, self.repeats, self.summary)
                = (keys, modifiers, typed, context, action, repeats, summary)
        }

        /// The keys as a desktop writes them: "F, F11", "Shift+N", "/, Ctrl+F".
        public var label: String {
            let held = [(Modifiers.control, "Ctrl+"), (.alt, "Alt+"), (.shift, "Shift+")].filter { modifiers.contains($0.0) }.map(\.1).joined()
            return (typed + keys.map { held + $0.label(held: modifiers) }).joined(separator: ", ")
        }
    }

    public static let bindings: [Binding] = [
        Binding(keys: [.left], context: .shelf, action: .shelfPrevious, repeats: .always, summary: "previous book"),
        Binding(keys: [.right], context: .shelf, action: .shelfNext, repeats: .always, summary: "next book"),
        Binding(keys: [.enter], context: .shelf, action: .open, repeats: .never, summary: "open the centred book"),
        Binding(keys: [.w], context: .shelf, action: .toggleShelf, repeats: .never, summary: "carousel ↔ wheel"),
        Binding(keys: [.tab], context: .shelf, action: .sortShelf, repeats: .never, summary: "order: as found → read last → title → author"),

        Binding(keys: [.right, .space, .pageDown], context: .book, action: .nextPage, repeats: .whenQueueEmpty,
                summary: "next page"),
        Binding(keys: [.left, .backspace, .pageUp], context: .book, action: .previousPage, repeats: .whenQueueEmpty,
                summary: "previous page"),
        Binding(keys: [.home], context: .book, action: .firstPage, repeats: .never, summary: "first page"),
        Binding(keys: [.end], context: .book, action: .lastPage, repeats: .never, summary: "last page"),
        Binding(keys: [.escape], context: .book, action: .close, repeats: .never,
                summary: "close a panel, else the selection or search, else full screen, else the book"),
        Binding(keys: [.c], context: .book, action: .toggleDeform, repeats: .never, summary: "rigid flip ↔ curl"),
        Binding(keys: [.o], context: .book, action: .toggleCone, repeats: .never, summary: "rigid flip ↔ cone"),
        Binding(keys: [.l], context: .book, action: .toggleLayout, repeats: .never, summary: "fan ↔ flat layout"),
        Binding(keys: [.e], context: .book, action: .togglePages, repeats: .never, summary: "pages: auto → one → two"),
        Binding(keys: [.a], context: .book, action: .toggleFitWidth, repeats: .never, summary: "one page: fit page ↔ fit width (→ scrolls, then turns)"),
        Binding(keys: [.d], context: .book, action: .toggleDirection, repeats: .never, summary: "turn direction forward ↔ backward"),
        Binding(keys: [.v], context: .book, action: .toggleOrientation, repeats: .never,
                summary: "horizontal ↔ vertical (wall calendar)"),
        Binding(keys: [.p], context: .book, action: .togglePerspective, repeats: .never, summary: "normal ↔ reverse perspective"),
        Binding(keys: [.b], context: .book, action: .cycleViewpoint, repeats: .never, summary: "viewpoint above / centred / below"),
        Binding(keys: [.plus], context: .book, action: .zoomIn, repeats: .always, summary: "zoom in"),
        Binding(keys: [.minus], context: .book, action: .zoomOut, repeats: .always, summary: "zoom out"),
        Binding(keys: [.z], context: .book, action: .fitSpread, repeats: .never, summary: "fit the spread (zoom 1)"),
        Binding(keys: [.f], modifiers: .control, typed: ["/"], context: .book, action: .find, repeats: .never,
                summary: "search the book (Enter searches, Esc closes)"),
        Binding(keys: [.n], context: .book, action: .nextHit, repeats: .whenQueueEmpty, summary: "next search hit"),
        Binding(keys: [.n], modifiers: .shift, context: .book, action: .previousHit, repeats: .whenQueueEmpty, summary: "previous search hit"),
        Binding(keys: [.tab], context: .book, action: .contents, repeats: .never, summary: "contents (↑ ↓ Enter, Esc)"),
        Binding(keys: [.c], modifiers: .control, context: .book, action: .copy, repeats: .never,
                summary: "copy the words selected (Shift + drag selects)"),
        Binding(keys: [.m], context: .book, action: .toggleBookmark, repeats: .never, summary: "bookmark the spread, or unmark it"),
        Binding(keys: [.m], modifiers: .shift, context: .book, action: .nextBookmark, repeats: .never, summary: "next bookmark"),
        Binding(keys: [.left], modifiers: .alt, context: .book, action: .back, repeats: .never, summary: "back after following a link"),
        Binding(keys: [.g], context: .book, action: .overview, repeats: .never,
                summary: "overview: the pages small (Enter or a click goes)"),
        // Ctrl++ is Ctrl+Shift+= on most layouts. Held, it steps on: sizes asked for during a
        // relayout wait for it and merge.
        Binding(keys: [.plus], modifiers: .control, context: .book, action: .textLarger, repeats: .always,
                summary: "larger text (EPUB, FB2, MOBI)"),
        Binding(keys: [.minus], modifiers: .control, context: .book, action: .textSmaller, repeats: .always,
                summary: "smaller text (EPUB, FB2, MOBI)"),
        Binding(keys: [.y], context: .book, action: .typography(.face), repeats: .never, summary: "typeface"),
        Binding(keys: [.y], modifiers: .shift, context: .book, action: .typography(.margins), repeats: .never, summary: "margins"),
        Binding(keys: [.k], context: .book, action: .typography(.lineSpacing), repeats: .never, summary: "line spacing"),
        Binding(keys: [.k], modifiers: .shift, context: .book, action: .typography(.publisherStyles), repeats: .never,
                summary: "publisher's styles on ↔ off"),
        Binding(keys: [.j], context: .book, action: .typography(.justify), repeats: .never, summary: "justified ↔ ragged right"),
        Binding(keys: [.j], modifiers: .shift, context: .book, action: .typography(.hyphenate), repeats: .never, summary: "hyphenation on ↔ off"),

        Binding(keys: [.h], modifiers: .shift, context: .book, action: .highlight, repeats: .never,
                summary: "highlight the words selected (again: next colour)"),
        Binding(keys: [], typed: ["i"], context: .book, action: .annotate, repeats: .never, summary: "a note on the words selected"),
        Binding(keys: [.delete], context: .book, action: .removeHighlight, repeats: .never, summary: "take the highlights selected away"),
        Binding(keys: [.x], context: .book, action: .notes, repeats: .never, summary: "highlights, notes, bookmarks"),
        Binding(keys: [.d], modifiers: .shift, context: .book, action: .lookUp, repeats: .never, summary: "look the word selected up"),
        Binding(keys: [.s], modifiers: .control, context: .book, action: .saveFilled, repeats: .never, summary: "save a copy with the form filled"),
        Binding(keys: [.r], context: .book, action: .readAloud, repeats: .never, summary: "read aloud (again: pause)"),
        Binding(keys: [.r], modifiers: .shift, context: .book, action: .stopReading, repeats: .never, summary: "stop reading"),
        Binding(keys: [.u], context: .book, action: .speechFaster, repeats: .always, summary: "speech faster"),
        Binding(keys: [.u], modifiers: .shift, context: .book, action: .speechSlower, repeats: .always, summary: "speech slower"),
        Binding(keys: [.f12], context: .anywhere, action: .screenshot, repeats: .never, summary: "screenshot (PNG into the screenshot folder)"),
        Binding(keys: [.f, .f11], context: .anywhere, action: .toggleFullscreen, repeats: .never, summary: "fullscreen ↔ window"),
        Binding(keys: [.t], context: .anywhere, action: .cycleTheme, repeats: .never, summary: "theme paper → sepia → night"),
        Binding(keys: [.s], context: .anywhere, action: .toggleShowThrough, repeats: .never, summary: "show-through of the other side on ↔ off"),
        Binding(keys: [.h, .question], context: .anywhere, action: .help, repeats: .never, summary: "these keys (on screen and printed)"),
        Binding(keys: [.q], context: .anywhere, action: .quit, repeats: .never, summary: "quit"),
    ]

    /// The binding context of a state-machine phase.
    public static func context(of phase: Scene.State) -> Context {
        phase == .shelf ? .shelf : .book
    }

    /// What a key press does in `phase`: the binding held with exactly these modifiers, else
    /// the one without Shift (Shift+→ still turns, ? is typed with Shift, Ctrl++ is
    /// Ctrl+Shift+=). Other keys held with Ctrl or Alt do nothing: those belong to the desktop.
    /// `queuedTurns` (the controller's) throttles held keys. While `zoomed` the arrows pan the
    /// book instead of turning pages.
    public static func actions(for key: Key, modifiers: Modifiers = [], isRepeat: Bool = false,
                                phase: Scene.State, queuedTurns: Int = 0, zoomed: Bool = false) -> [Action] {
        let context = context(of: phase)
        let held = modifiers.intersection([.control, .alt, .shift])
        if zoomed, context == .book, held.isDisjoint(with: [.control, .alt]), let step = panSteps[key] { return [.pan(by: step)] }
        let candidates = bindings.filter { $0.keys.contains(key) && ($0.context == context || $0.context == .anywhere) }
        let binding = candidates.first { $0.modifiers == held } ?? candidates.first { $0.modifiers == held.subtracting(.shift) }
        guard let binding, !isRepeat || repeats(binding.repeats, queuedTurns: queuedTurns) else { return [] }
        return [binding.action]
    }

    private static func repeats(_ policy: Repeat, queuedTurns: Int) -> Bool {
        switch policy {
        case .never: false
        case .always: true
        case .whenQueueEmpty: queuedTurns == 0
        }
    }

    /// The titles of the contexts, for the help text and the help card.
    public static let titles: [Context: String] = [.shelf: "On the shelf", .book: "In a book", .anywhere: "Anywhere"]

    /// The key map as printed by `folio view --help` and the H key (and so the manual page's
    /// table, made from `--help`), grouped by context.
    public static var help: String {
        let width = bindings.map(\.label.count).max() ?? 0
        let groups = Context.allCases.map { context in
            let lines = bindings.filter { $0.context == context }.map { b in
                "  " + b.label + String(repeating: " ", count: width + 2 - b.label.count) + b.summary
            }
            return ([titles[context, default: context.rawValue] + ":"] + lines).joined(separator: "\n")
        }
        return (["Keys"] + groups + [zoomHelp, pageNumberHelp, mouseHelp]).joined(separator: "\n\n")
    }

    /// Layout units an arrow moves the zoomed book: it moves the way the arrow points to show
    /// more of that side.
    static let panSteps: [Key: Vec2] = [.left: Vec2(80, 0), .right: Vec2(-80, 0), .up: Vec2(0, -80), .down: Vec2(0, 80)]

    private static let zoomHelp = """
        Zoomed in (+, Shift + wheel towards the pointer, up to 8×):
          ← → ↑ ↓, drag             pan; Z fits the spread again
        """

    private static let pageNumberHelp = """
        Going to a page (PageNumberEntry):
          digits, then Enter or G   go to that page (the window title shows the digits)
          click a link              follow it (Alt+← comes back); a web or mail
                                    address opens in its application
        """

    private static let mouseHelp = """
        Mouse:
          drag a page by its edge   curl it; let go to turn it or let it fall back
          click a page              turn it
          Shift + drag on a page    select its words; Ctrl+C copies them
          wheel                     scroll the shelf, or turn pages
          drag the shelf            scroll it (it glides and settles on a cover)
          click a cover             centre it; click the centred one to open it
          right-drag up / down      pinch: spread the centred book open, or pinch it
                                    closed; let go to finish or fall back (middle
                                    button too)
          Ctrl + wheel              the same pinch in steps
        """

}

extension Key {
    /// The key's name as a desktop writes it held with `modifiers`: = with Ctrl (Ctrl+= sizes
    /// text), + alone (zoom).
    public func label(held modifiers: Modifiers) -> String {
        self == .plus && modifiers.contains(.control) ? "=" : label
    }

    /// The key's name as printed on a keyboard.
    public var label: String {
        switch self {
        case .left: "←"
        case .right: "→"
        case .up: "↑"
        case .down: "↓"
        case .enter: "Enter"
        case .space: "Space"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .escape: "Esc"
        case .pageUp: "PageUp"
        case .pageDown: "PageDown"
        case .home: "Home"
        case .end: "End"
        case .tab: "Tab"
        case .plus: "+"
        case .minus: "−"
        case .f11: "F11"
        case .f12: "F12"
        case .question: "?"
        default: digit.map(String.init) ?? rawValue.uppercased()
        }
    }
}
