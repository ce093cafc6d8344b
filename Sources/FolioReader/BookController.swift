import FolioLayout
import FolioMath

/// Supplies the pages around a page: the first page of the spread before or after the one
/// showing `page`, or nil at either end. Without one, the controller uses the book's bounds.
public protocol PageDataSource: AnyObject {
    func page(before page: Int) -> Int?
    func page(after page: Int) -> Int?
}

/// Hears what the controller did.
public protocol BookControllerDelegate: AnyObject {
    /// A turn (gesture-driven or programmatic) ended: `completed` false means it fell back.
    func controller(_ controller: BookController, didFinishTurnFrom from: Int, to: Int, completed: Bool)
    /// The phase, the open book or a style changed.
    func controllerDidChangeLayout(_ controller: BookController)
}

extension BookControllerDelegate {
    public func controller(_ controller: BookController, didFinishTurnFrom from: Int, to: Int, completed: Bool) {}
    public func controllerDidChangeLayout(_ controller: BookController) {}
}

/// What the user or a script can do. Positions are in view units (origin at the view
/// centre, y up, as the z = 0 plane of the scene); shelf distances in covers.
public enum Action: Sendable, Equatable {
    case shelfNext, shelfPrevious
    /// A mouse wheel step: glides by `by` covers and settles on a cover.
    case shelfScroll(by: Double)
    case shelfDragBegan, shelfDragMoved(by: Double), shelfDragEnded
    case select(Int)
    case open, close
    case nextPage, previousPage, firstPage, lastPage
    /// Turns to the spread showing layout page `page` (clamped to the book's pages).
    case goTo(page: Int)
    case pageDragBegan(Vec2), pageDragMoved(Vec2), pageDragEnded
    /// Scrubs open / close progress by `by` (positive opens).
    case scrub(by: Double)
    /// A pinch of scale `scale` (1 at its start), through the tutorial's mapping: it begins
    /// only as a spread (scale ≥ 1) on the shelf, which opens the centred book with progress
    /// |s − 1| / 5, or as a pinch (scale < 1) in an open book, which closes it with |1 − s|.
    case pinch(scale: Double)
    case scrubEnded
    /// The next page mode (`PageMode.next`): auto → one page → two pages → auto.
    case togglePages
    /// With one page shown: the page fits the view ↔ its width does, read by scrolling down it.
    case toggleFitWidth
    case toggleShelf, toggleDeform, toggleCone, toggleLayout, toggleDirection, toggleOrientation, togglePerspective, cycleViewpoint
    case zoomIn, zoomOut
    /// Opens book `index` from the shelf in one step: the shelf jumps to it and it opens.
    case openBook(Int)
    /// Shows book `index` open at once, with no opening (a document named on the command line).
    case showBook(Int)
    /// The view (layout units) the scene fills, as a window's aspect changes.
    case setViewSize(Vec2)
    /// Zooms by a factor keeping the view point given where it is (the pointer's).
    case zoom(by: Double, toward: Vec2)
    /// Moves the zoomed book by a vector, layout units.
    case pan(by: Vec2)
    /// Back to zoom 1, the spread centred.
    case fitSpread
    /// Replaces the settings (a script's style and tuning).
    case setSettings(BookController.Settings)
}

extension Action {
    /// Turns pages: asked for while a book opens, it waits until the book is open.
    public var turnsPage: Bool {
        switch self {
        case .nextPage, .previousPage, .firstPage, .lastPage, .goTo: true
        default: false
        }
    }
}

/// One page at a time or two: `auto` shows one in a view narrower than it is tall.
public enum PageMode: String, Sendable, CaseIterable, Codable {
    case auto
    case one = "1"
    case two = "2"

    /// Whether a view of `size` shows one page (the rule of `auto`: width < height).
    public func isSingle(viewSize size: Vec2) -> Bool {
        switch self {
        case .auto: size.x < size.y
        case .one: true
        case .two: false
        }
    }

    /// The mode E chooses next: auto → one → two → auto, so that auto can be had again.
    public var next: PageMode {
        switch self {
        case .auto: .one
        case .one: .two
        case .two: .auto
        }
    }
}

/// The state machine shelf → opening → reading ⇄ turning → closing → shelf.
///
/// Driven only by actions and the times passed in (seconds, any origin, never decreasing):
/// the same calls give the same scenes. Between actions, call `update(to:)` once a frame
/// and draw `scene()`; when `isAnimating` is false nothing changes until the next action.
/// Impossible actions (turning past the last page, closing a closed book) return false and
/// change nothing.
public final class BookController {
    /// Settings that survive between books.
    public struct Settings: Sendable, Equatable {
        public var viewSize = Vec2(1280, 720)
        public var shelf: ShelfStyle = .carousel
        public var layout: BookLayout = .flat
        /// Orientation and perspective of the open book; a backward direction swaps what
        /// next and previous do.
        public var style = TurnStyle()
        public var deform: TurnDeform = .rigid
        /// One page or two (a wall calendar always shows two).
        public var pages: PageMode = .auto
        /// One page shown fits the view's width: next and previous scroll along it before turning.
        public var fitWidth = false
        public var viewpoint: Viewpoint = .center
        public var zoom = 1.0
        /// Where the zoomed book is moved (`ZoomPan.swift`).
        public var pan = Vec2.zero
        public var turnDuration = 0.8
        /// Timing of a turn that plays by itself (a drag follows the pointer instead).
        public var turnCurve: TurnCurve = .twoStage
        /// Strength of the page shadows (1: the reference's); see `ViewState.shadow`.
        public var shadow = 1.0
        /// Eye distance in layout units; nil: in proportion to the page width.
        public var eye: Double?
        public var openSpring = Spring.open
        public var closeDuration = 1.0
        /// Release speed (turn progress per second) that turns a page whatever its progress.
        public var flickVelocity = 1.5
        /// Seconds the turns asked for ahead of the one under way may take together: a burst
        /// of keys turns faster and faster and settles about this long after the last. Nil:
        /// every queued turn takes `turnDuration` (a script's, recorded at its pace).
        public var queueLag: Double? = 0.5

        public init() {}
    }

    /// Changed by actions only (`toggleLayout`, `setViewSize`, …), so the delegate hears of it.
    public internal(set) var settings: Settings
    /// Changed only by `relaid`.
    public private(set) var library: [BookInfo]
    public weak var dataSource: PageDataSource?
    public weak var delegate: BookControllerDelegate?

    public private(set) var phase: Scene.State = .shelf { didSet { if phase != oldValue { notifyLayout() } } }
    /// The latest time seen.
    public private(set) var time = 0.0
    /// Shelf position in covers.
    public private(set) var scroll = 0.0
    /// The open book, while opening, reading, turning or closing.
    public private(set) var book: Int?
    public private(set) var openProgress = 0.0
    /// The spread at rest (the one a turn started from, while it turns); in single-page mode,
    /// a spread of `laidOutBook`, which shows page image `spread` alone.
    public private(set) var spread = 0
    /// One page at a time (`Settings.pages`); it changes only at rest.
    public private(set) var singlePage = false

    private var scrollMotion: Motion?
    private var shelfTracker: VelocityTracker?
    private var openMotion: Motion?
    private var scrubTracker: VelocityTracker?
    private var turn: Turn?
    private var queue: [Pending] = []
    /// Styles changed (the shelf's, and the open book's while it is open): each of
    /// `StyleBlend.amounts` that differs moves from where it stood to the new style's (nil: at
    /// rest); empty when none moves (`moving`).
    private var styleMotions: [Motion?] = []
    private static func moving(_ motions: [Motion?]) -> [Motion?] { motions.allSatisfy { $0 == nil } ? [] : motions }
    /// Actions accepted that cannot be performed yet, played in order when they can: while a
    /// page turns, what cannot change a moving sheet (a new deformation, layout or orientation;
    /// closing the book) waits for it to land; while the book opens, page turns wait until it
    /// is open. The one place an action waits (turns asked mid-turn chain in `queue`).
    private var waiting: [Waiting] = []

    private struct Waiting {
        var action: Action
        /// Told when the action is performed (`handle(_:at:performed:)`).
        var performed: (() -> Void)?
    }

    private struct Turn {
        var from: Int
        var to: Int
        var progress = 0.0
        var motion: Motion?
        var grab: Vec2
        var pointer: Vec2?
        var releasePointer: Vec2?
        /// The let-go pointer's speed towards where it lands, in times its mean speed there.
        var releaseSpeed = 1.6
        /// For a drag: grabbed point on the page's outer edge minus the point pressed; the
        /// pointer plus it is where that edge point goes.
        var offset: Vec2?
        /// Where the motion heads: true to land on `to`, false to fall back.
        var completes = true
        /// No page there: the drag only rubber-bands.
        var rubber = false
        var side: Side
        var tracker = VelocityTracker()
        var completion: ((Bool) -> Void)?
    }

    private struct Pending {
        var target: Int
        var completion: ((Bool) -> Void)?
    }

    public init(library: [BookInfo], settings: Settings = Settings()) {
        self.library = library
        self.settings = settings
    }

    /// Whether anything moves without further input (a viewer may sleep when false).
    public var isAnimating: Bool {
        scrollMotion != nil || openMotion != nil || turn?.motion != nil || !queue.isEmpty || !styleMotions.isEmpty
    }

    /// The still state right now.
    public func viewState() -> ViewState {
        let s = settings
        var v = ViewState(viewSize: s.viewSize, phase: phase, shelf: s.shelf, scroll: scroll, book: book,
                          openProgress: openProgress, layout: s.layout, spread: Double(spread),
                          style: s.style, deform: s.deform, viewpoint: s.viewpoint, zoom: s.zoom)
        v.eye = s.eye
        v.shadow = s.shadow
        v.pan = s.pan
        v.singlePage = singlePage
        v.fitWidth = singlePage && s.fitWidth
        v.blend = styleBlend
        if let t = turn {
            // A drag curls (a rigid flip cannot follow the hand); a cone stays a cone.
            if t.offset != nil, v.deform == .rigid { v.deform = .curl }
            // A rubber band pulls at the (missing) sheet beyond the end; its faces are blank.
            v.turn = TurnState(from: t.from, to: t.rubber ? t.from + (t.side == .right ? 1 : -1) : t.to,
                               progress: t.progress, grab: t.grab, pointer: t.rubber ? nil : t.pointer)
        }
        return v
    }

    /// The scene to draw right now.
    public func scene() -> Scene { makeScene(viewState(), books: library) }

    // MARK: Time

    /// Advances every animation to `time`.
    public func update(to time: Double) {
        defer { updatePageMode() }
        self.time = max(self.time, time)
        let t = self.time
        if let m = scrollMotion {
            scroll = m.value(at: t)
            if m.isDone(at: t) { scrollMotion = nil; settleShelf() }
        }
        if let m = openMotion {
            openProgress = m.value(at: t)
            if m.isDone(at: t) { openMotion = nil; finishOpenClose(open: m.to >= 1) }
        }
        styleMotions = Self.moving(styleMotions.map { $0?.isDone(at: t) == true ? nil : $0 })
        advanceTurn(t)
    }

    /// Performs `action` at `time`; false when it is impossible now (nothing changes then).
    /// While a page turns, a new deformation, layout or orientation, and closing, are accepted
    /// and wait for the sheet to land (closing drops the turns queued behind it); while the
    /// book opens, page turns are accepted and wait until it is open: no key pressed during a
    /// turn or an opening is lost. `performed` is told when the action is performed, at once
    /// or when its wait ends (never for one refused then).
    @discardableResult
    public func handle(_ action: Action, at time: Double, performed: (() -> Void)? = nil) -> Bool {
        update(to: time)
        defer { updatePageMode() }
        if mustWait(action) {
            // Closing drops the turns still waiting: the reader asked to leave the book.
            if action == .close { dropQueuedTurns() }
            waiting.append(Waiting(action: action, performed: performed))
            return true
        }
        guard perform(action) else { return false }
        performed?()
        return true
    }

    private func mustWait(_ action: Action) -> Bool {
        (turn != nil && Self.waitsForTurn(action)) || (phase == .opening && action.turnsPage)
    }

    /// Performs the actions that waited, in order; one that must still wait waits again.
    private func playWaiting() {
        let actions = waiting
        waiting = []
        for w in actions {
            if mustWait(w.action) {
                waiting.append(w)
            } else if perform(w.action) {
                w.performed?()
            }
        }
    }

    /// Actions that change what a moving sheet is made of, or end the book, so they wait for it.
    private static func waitsForTurn(_ action: Action) -> Bool {
        switch action {
        case .toggleDeform, .toggleCone, .toggleLayout, .toggleOrientation, .togglePages, .close: true
        default: false
        }
    }

    private func dropQueuedTurns() {
        let dropped = queue
        queue = []
        for pending in dropped { pending.completion?(false) }
    }

    @discardableResult
    private func perform(_ action: Action) -> Bool {
        switch action {
        case .shelfNext: return moveShelf(to: (scrollMotion?.to ?? scroll).rounded() + 1)
        case .shelfPrevious: return moveShelf(to: (scrollMotion?.to ?? scroll).rounded() - 1)
        case let .shelfScroll(by: d): return glideShelf(by: d)
        case .shelfDragBegan: return beginShelfDrag()
        case let .shelfDragMoved(by: d): return moveShelfDrag(by: d)
        case .shelfDragEnded: return endShelfDrag()
        case let .select(i): return moveShelf(to: Double(i))
        case .open: return open()
        case .close: return close()
        case .nextPage: return step(settings.style.direction == .forward ? 1 : -1)
        case .previousPage: return step(settings.style.direction == .forward ? -1 : 1)
        case .firstPage: return go(to: 0)
        case .lastPage: return go(to: (currentBook?.pageCount ?? 1) - 1)
        case let .goTo(page: n): return go(to: clamp(n, 0, (currentBook?.pageCount ?? 1) - 1))
        case let .pageDragBegan(p): return beginPageDrag(at: p)
        case let .pageDragMoved(p): return movePageDrag(to: p)
        case .pageDragEnded: return endPageDrag()
        case let .scrub(by: d): return scrub { $0 + d }
        case let .pinch(scale: s):
            if scrubTracker == nil, (phase == .shelf) != (s >= 1) { return false }
            return scrub { [phase] _ in phase == .closing || phase == .reading ? 1 - ClosedBook.closingProgress(pinch: s) : ClosedBook.openingProgress(pinch: s) }
        case .scrubEnded: return endScrub()
        case .togglePages: return restyle(turn == nil) { $0.pages = $0.pages.next }
        case .toggleFitWidth:
            guard singlePage, turn == nil else { return false }
            settings.fitWidth.toggle()
            settings.fitSpread()
            scrollPage(toTop: true)
            notifyLayout()
            return true
        case .toggleShelf: return restyle(phase == .shelf) { $0.shelf = $0.shelf == .carousel ? .wheel : .carousel }
        case .toggleDeform: return restyle(turn == nil) { $0.deform = $0.deform == .rigid ? .curl : .rigid }
        case .toggleCone: return restyle(turn == nil) { $0.deform = $0.deform == .cone ? .rigid : .cone }
        case .toggleLayout: return restyle(turn == nil) { $0.layout = $0.layout == .flat ? .fan : .flat }
        case .toggleDirection: return restyle(true) { $0.style.direction = $0.style.direction == .forward ? .backward : .forward }
        case .toggleOrientation: return restyle(turn == nil) { $0.style.orientation = $0.style.orientation == .horizontal ? .vertical : .horizontal }
        case .togglePerspective: return restyle(true) { $0.style.perspective = $0.style.perspective == .normal ? .reverse : .normal }
        case .cycleViewpoint: return restyle(true) { $0.viewpoint = $0.viewpoint.next }
        case .zoomIn: return restyle(book != nil) { $0.zoom(by: 1.25, toward: .zero) }
        case .zoomOut: return restyle(book != nil) { $0.zoom(by: 1 / 1.25, toward: .zero) }
        case let .zoom(by: f, toward: p): return restyle(book != nil) { $0.zoom(by: f, toward: p) }
        case let .pan(by: d): return restyle(book != nil && settings.zoom > 1) { $0.pan(by: d) }
        case .fitSpread: return restyle(book != nil) { $0.fitSpread() }
        case let .openBook(i): return open(book: i)
        case let .showBook(i):
            guard open(book: i) else { return false }
            openMotion = nil
            finishOpenClose(open: true)
            return true
        case let .setViewSize(v):
            return restyle(v.x > 0 && v.y > 0 && v.x.isFinite && v.y.isFinite) { $0.viewSize = v }
        case let .setSettings(s):
            return restyle(true) { $0 = s }
        }
    }

    private var currentBook: BookInfo? { book.map { library[$0] } }

    /// The open book as its pages are laid out: one page image a sheet in single-page mode.
    public var laidOutBook: BookInfo? { currentBook.map { singlePage ? $0.onePagePerSheet : $0 } }

    /// The page images on screen at rest, numbered from 1 as a reader counts them: the one page
    /// of single-page mode, else the spread's two (one beside the cover and at the end).
    public var shownPages: [Int] {
        guard let info = currentBook else { return [] }
        return Self.shownPages(spread: spread, singlePage: singlePage, imageCount: info.imageCount)
    }

    /// The one rule of where a reader is, for the title, the bar, go-to, search, the contents and
    /// positions alike: the page images spread `s` shows in a book of `imageCount` images,
    /// numbered from 1 — in single-page mode image `s`, else images 2`s` − 1 and 2`s` (0-based).
    public static func shownPages(spread s: Int, singlePage: Bool, imageCount: Int) -> [Int] {
        (singlePage ? [s + 1] : [2 * s, 2 * s + 1]).filter { $0 >= 1 && $0 <= imageCount }
    }

    /// The layout page of `book` (the go-to action's argument) that spread `s` of its layout in
    /// the page mode `singlePage` shows.
    public static func layoutPage(spread s: Int, singlePage: Bool) -> Int { singlePage ? s + 2 : 2 * s + 1 }

    /// Single-page mode follows `Settings.pages` and the view's shape; it changes at rest only,
    /// keeping the page read on screen: two pages → the right-hand one, one → its spread.
    private func updatePageMode() {
        let single = settings.style.orientation == .horizontal && settings.pages.isSingle(viewSize: settings.viewSize)
        guard single != singlePage, turn == nil, queue.isEmpty else { return }
        if let info = currentBook {
            spread = single ? clamp(2 * spread, 0, max(info.imageCount - 1, 0)) : info.spread(containing: spread + 2)
        }
        singlePage = single
        // A page fitted to the width opens at its top; two pages are never scrolled.
        settings.fitSpread()
        scrollPage(toTop: true)
        notifyLayout()
    }

    /// How far the page fitted to the width runs past the view (`fitWidthTravel`).
    private var travel: Double {
        guard let info = laidOutBook else { return 0 }
        return fitWidthTravel(viewState(), book: info)
    }

    /// Shows the top (or the bottom) of the page fitted to the width.
    private func scrollPage(toTop top: Bool) {
        let t = travel
        if t > 0 { settings.pan = Vec2(0, top ? -t : t) }
    }

    /// With the page fitted to the width and at rest, `delta` scrolls along it by most of a
    /// view; false at its end (the page turns then).
    private func scrollsWithinPage(_ delta: Int) -> Bool {
        let t = travel
        guard t > 0, turn == nil, queue.isEmpty else { return false }
        let y = settings.pan.y, step = 0.85 * settings.viewSize.y * Double(delta)
        guard delta > 0 ? y < t - 1e-6 : y > -t + 1e-6 else { return false }
        settings.pan = Vec2(0, clamp(y + step, -t, t))
        notifyLayout()
        return true
    }

    private func notifyLayout() { delegate?.controllerDidChangeLayout(self) }

    private func restyle(_ allowed: Bool, _ change: (inout Settings) -> Void) -> Bool {
        guard allowed else { return false }
        let before = styleBlend ?? restingStyles
        change(&settings)
        // The camera, the layout and the shelf move to new styles (a script's `style fan` cut
        // them in one frame), each from where it stands, also when it was on its way to another;
        // with no book open only the shelf has anything to move.
        let from = before.amounts, to = restingStyles.amounts
        var motions = styleMotions.isEmpty ? Array(repeating: nil, count: to.count) : styleMotions
        for i in to.indices where (book != nil || i == StyleBlend.shelfAmount) && motions[i]?.to ?? from[i] != to[i] {
            motions[i] = from[i] == to[i] ? nil
                : Motion(from: from[i], to: to[i], start: time, duration: StyleBlend.duration, curve: .timing(.easeInOut))
        }
        styleMotions = Self.moving(motions)
        notifyLayout()
        return true
    }

    /// The amounts of the styles set.
    private var restingStyles: StyleBlend {
        StyleBlend(viewpoint: settings.viewpoint, style: settings.style, layout: settings.layout, shelf: settings.shelf)
    }

    /// Where the styles stand while they change; nil at rest.
    private var styleBlend: StyleBlend? {
        guard !styleMotions.isEmpty else { return nil }
        var b = restingStyles
        let rest = b.amounts
        b.amounts = zip(rest, styleMotions).map { $1?.value(at: time) ?? $0 }
        (b.from, b.to) = (zip(rest, styleMotions).map { $1?.from ?? $0 }, zip(rest, styleMotions).map { $1?.to ?? $0 })
        return b
    }

    // MARK: Shelf

    private var lastCover: Double { Double(max(library.count - 1, 0)) }

    private func moveShelf(to target: Double) -> Bool {
        guard phase == .shelf, shelfTracker == nil, !library.isEmpty, (0...lastCover).contains(target) else { return false }
        scrollMotion = Motion(from: scroll, to: target, start: time, duration: 0.35, curve: shelfCurve)
        return true
    }

    /// A step from rest eases in; one that joins a step under way keeps its speed.
    private var shelfCurve: Motion.Curve { .timing(scrollMotion == nil ? .easeInOut : .easeOut) }

    private func glideShelf(by d: Double) -> Bool {
        guard phase == .shelf, shelfTracker == nil, !library.isEmpty, d != 0 else { return false }
        let target = clamp((scrollMotion?.to ?? scroll) + d, 0, lastCover)
        scrollMotion = Motion(from: scroll, to: target, start: time, duration: 0.25, curve: shelfCurve)
        return true
    }

    /// After a glide, come to rest on the nearest cover.
    private func settleShelf() {
        let rest = clamp(scroll.rounded(), 0, lastCover)
        if shelfTracker == nil, abs(rest - scroll) > 1e-9 {
            scrollMotion = Motion(from: scroll, to: rest, start: time, duration: 0.2, curve: .timing(.easeOut))
        }
    }

    private func beginShelfDrag() -> Bool {
        guard phase == .shelf, !library.isEmpty else { return false }
        scrollMotion = nil
        shelfTracker = VelocityTracker()
        shelfTracker?.add(scroll, at: time)
        return true
    }

    private func moveShelfDrag(by d: Double) -> Bool {
        guard shelfTracker != nil else { return false }
        // Past either end the shelf follows at half speed, a quarter cover at most.
        let raw = scroll + d
        scroll = raw < 0 ? max(raw / 2, -0.25) : raw > lastCover ? min(lastCover + (raw - lastCover) / 2, lastCover + 0.25) : raw
        shelfTracker?.add(scroll, at: time)
        return true
    }

    private func endShelfDrag() -> Bool {
        guard let tracker = shelfTracker else { return false }
        shelfTracker = nil
        let v = tracker.velocity(at: time)
        let rest = ShelfScroll.rest(from: scroll, velocity: v, count: library.count)
        scrollMotion = Motion(from: scroll, to: rest, start: time, duration: clamp(0.25 + 0.1 * abs(rest - scroll), 0.25, 0.8),
                              curve: .timing(.easeOut))
        return true
    }

    // MARK: Open and close

    private func open() -> Bool {
        guard phase == .shelf, shelfTracker == nil, !library.isEmpty else { return false }
        startOpening()
        openMotion = Motion(from: 0, to: 1, start: time, duration: settings.openSpring.duration, curve: .spring(settings.openSpring))
        return true
    }

    private func open(book index: Int) -> Bool {
        guard phase == .shelf, shelfTracker == nil, library.indices.contains(index) else { return false }
        scrollMotion = nil
        scroll = Double(index)
        return open()
    }

    /// Only the centred cover opens: the shelf stops on it.
    private func startOpening() {
        scrollMotion = nil
        scroll = clamp(scroll.rounded(), 0, lastCover)
        book = Int(scroll)
        spread = 0
        openProgress = 0
        phase = .opening
    }

    private func close() -> Bool {
        guard phase == .reading || phase == .opening, scrubTracker == nil else { return false }
        phase = .closing
        openMotion = Motion(from: openProgress, to: 0, start: time, duration: settings.closeDuration * clamp(openProgress, 0.2, 1),
                            curve: .timing(.easeInOut))
        return true
    }

    private func finishOpenClose(open: Bool) {
        openProgress = open ? 1 : 0
        if open {
            phase = .reading
            playWaiting()
        } else {
            // The next book opens fitted, not at this one's zoom and place.
            settings.fitSpread()
            book = nil
            // The open book's styles have nothing left to move; the shelf's may still.
            styleMotions = Self.moving(styleMotions.indices.map { $0 == StyleBlend.shelfAmount ? styleMotions[$0] : nil })
            // Turns that waited for the book to open go with it.
            waiting = []
            phase = .shelf
        }
    }

    private func scrub(_ progress: (Double) -> Double) -> Bool {
        switch phase {
        case .shelf where scrubTracker == nil:
            guard shelfTracker == nil, !library.isEmpty else { return false }
            startOpening()
        case .reading where scrubTracker == nil:
            phase = .closing
        case .opening, .closing:
            guard scrubTracker != nil else { return false }
        default:
            return false
        }
        if scrubTracker == nil { scrubTracker = VelocityTracker() }
        openMotion = nil
        openProgress = clamp(progress(openProgress), 0, 1)
        scrubTracker?.add(openProgress, at: time)
        return true
    }

    /// Completes or reverts by progress and speed; never jumps.
    private func endScrub() -> Bool {
        guard let tracker = scrubTracker else { return false }
        scrubTracker = nil
        let v = tracker.velocity(at: time)
        let opens = abs(v) > 0.5 ? v > 0 : openProgress > 0.5
        let target = opens ? 1.0 : 0.0
        phase = opens ? .opening : .closing
        openMotion = Motion(from: openProgress, to: target, start: time, duration: max(0.15, abs(target - openProgress)),
                            curve: .timing(.landing))
        return true
    }

    // MARK: Turning

    /// The spread `delta` away from `s`, through the data source when there is one.
    private func neighbour(of s: Int, _ delta: Int) -> Int? {
        guard let info = laidOutBook else { return nil }
        let target: Int?
        // A data source names pages of spreads; one page at a time steps one image.
        if let source = dataSource, !singlePage {
            let anchor = 2 * s + 1
            target = (delta > 0 ? source.page(after: anchor) : source.page(before: anchor)).map(info.spread(containing:))
        } else {
            target = s + delta
        }
        return target.flatMap { (0...info.lastSpread).contains($0) && $0 != s ? $0 : nil }
    }

    /// Where the spread will be once the current turn and the queue have played.
    private var plannedSpread: Int {
        queue.last?.target ?? turn.map { $0.completes && !$0.rubber ? $0.to : $0.from } ?? spread
    }

    private func step(_ delta: Int) -> Bool {
        guard phase == .reading || phase == .turning else { return false }
        if scrollsWithinPage(delta) { return true }
        guard let target = neighbour(of: plannedSpread, delta) else { return false }
        // The next page is read from its top, the previous one back from its bottom.
        if travel > 0 { scrollPage(toTop: delta > 0) }
        return request(target, completion: nil)
    }

    /// Turns to the spread showing layout page `n`. `direction` nil follows the page; a
    /// direction that contradicts it is refused. Not animated: the spread changes at once.
    /// A request made mid-turn waits for the turn under way and replaces the turns queued
    /// behind it (they are answered false): the reader asked to be elsewhere. `completion`
    /// gets true once it is shown.
    @discardableResult
    public func go(to n: Int, direction: TurnStyle.Direction? = nil, animated: Bool = true, at time: Double,
                   completion: ((Bool) -> Void)? = nil) -> Bool {
        update(to: time)
        guard let info = laidOutBook, let own = currentBook, phase == .reading || phase == .turning, (0..<own.pageCount).contains(n) else { return false }
        if animated { dropQueuedTurns() }
        let target = info.spread(containing: singlePage ? BookInfo.onePagePerSheet(page: n) : n), from = plannedSpread
        if let direction, target != from, (target > from) != (direction == .forward) { return false }
        guard animated else {
            guard turn == nil else { return false }
            spread = target
            notifyLayout()
            completion?(true)
            return true
        }
        if target == from, turn == nil {
            completion?(true)
            return true
        }
        // A jump of many spreads riffles: a few sheets turn in quick succession through the
        // pages between (a burst, at the queue's pace), never one sheet for hundreds of pages
        // and never a cut. Scripts (no queue lag) keep one full turn.
        let sheets = settings.queueLag == nil ? 1 : min(Self.riffleSheets, abs(target - from))
        for k in 1..<max(sheets, 1) { _ = request(from + (target - from) * k / sheets, completion: nil) }
        return request(target, completion: completion)
    }

    /// Sheets a long jump turns, the last landing on the target.
    public static let riffleSheets = 4

    private func go(to n: Int) -> Bool { go(to: n, at: time) }

    /// Book `b` was laid out again (another text size): it now has `info`'s pages, and while it
    /// is open it shows layout page `n` at once. `mapping` says which page image (an index)
    /// holds the text an old one started with: a turn under way, whose sheet shows old pages,
    /// is cut, and it and the turns queued behind it go on to their mapped spreads (one whose
    /// text is gone is answered false). False when there is no such book.
    @discardableResult
    public func relaid(book b: Int, as info: BookInfo, showing n: Int, at time: Double,
                       mapping: (Int) -> Int? = { _ in nil }) -> Bool {
        update(to: time)
        guard library.indices.contains(b) else { return false }
        let before = library[b]
        library[b] = info
        guard book == b else { return true }
        // The spreads the turn under way and those queued head for, in the new layout.
        var planned: [(target: Int?, completion: ((Bool) -> Void)?)] = []
        if let current = turn {
            let heads = current.completes && !current.rubber ? [Pending(target: current.to, completion: current.completion)] : []
            if heads.isEmpty { current.completion?(false) }
            planned = (heads + queue).map { (image(shownFirstOn: $0.target, in: before).flatMap(mapping).map(spread(showingImage:)), $0.completion) }
            turn = nil
            queue = []
            phase = .reading
        }
        let last = info.pageCount - 1
        spread = min(spread, laidOutBook?.lastSpread ?? 0)
        if !go(to: min(max(n, 0), last), animated: false, at: time) { notifyLayout() }
        for (target, completion) in planned {
            guard let target else { completion?(false); continue }
            if target == plannedSpread { completion?(true) } else { _ = request(target, completion: completion) }
        }
        if turn == nil { playWaiting() }
        return true
    }

    /// The page image (an index) spread `s` shows first in `book` as the current page mode
    /// lays it out; nil for none.
    private func image(shownFirstOn s: Int, in book: BookInfo) -> Int? {
        let j = singlePage ? s : max(2 * s - 1, 0)
        return j < book.imageCount ? j : nil
    }

    /// The spread that shows page image `j` (an index) of the open book.
    private func spread(showingImage j: Int) -> Int {
        min(singlePage ? j : (j + 1) / 2, laidOutBook?.lastSpread ?? 0)
    }

    private func request(_ target: Int, completion: ((Bool) -> Void)?) -> Bool {
        if turn != nil {
            queue.append(Pending(target: target, completion: completion))
            hurry()
        } else {
            startTurn(to: target, at: time, completion: completion)
        }
        return true
    }

    /// The shortest turn of a burst: a few frames, still seen as a turn.
    private static let shortestTurn = 0.12

    /// A turn's share of `queueLag` while others wait behind it (the current one and one more
    /// press counted: keys keep coming in a burst).
    private var burstDuration: Double {
        guard let lag = settings.queueLag else { return settings.turnDuration }
        return clamp(lag / Double(queue.count + 2), Self.shortestTurn, settings.turnDuration)
    }

    /// A turn asked for while another plays: the one under way speeds up to its share of the
    /// lag allowed, so the keys are never more than `queueLag` ahead of the pages.
    private func hurry() {
        guard settings.queueLag != nil, var current = turn, let m = current.motion, current.releasePointer == nil, current.completes else { return }
        let share = burstDuration
        guard m.start + m.duration - time > share else { return }
        // From where the sheet is, at the speed it has, easing into its landing.
        current.motion = Motion(from: current.progress, to: 1, start: time, duration: share, curve: .timing(.landing))
        turn = current
    }

    /// `burst`: the turn follows one that ended into the queue, and takes its share of the lag.
    private func startTurn(to target: Int, at start: Double, burst: Bool = false, completion: ((Bool) -> Void)?) {
        let size = pageSize
        let side: Side = target > spread ? .right : .left
        let duration = burst ? burstDuration : settings.turnDuration
        turn = Turn(from: spread, to: target,
                    motion: Motion(from: 0, to: 1, start: start, duration: duration, curve: .turn(settings.turnCurve)),
                    grab: Vec2(size.x, -size.y / 2), side: side, completion: completion)
        phase = .turning
    }

    private var pageSize: Vec2 {
        (currentBook ?? BookInfo(imageCount: 0)).laidOutPageSize(settings.style.orientation)
    }

    private func advanceTurn(_ t: Double) {
        guard var current = turn, let m = current.motion else { return }
        current.progress = m.value(at: t)
        if let from = current.releasePointer {
            let end = current.completes ? Vec2(-current.grab.x, current.grab.y) : current.grab
            let f = CurlTurn.settling(m.fraction(at: t), leaving: current.releaseSpeed)
            current.pointer = from + (end - from) * f
        }
        turn = current
        guard m.isDone(at: t) else { return }
        turn = nil
        let completed = current.completes && !current.rubber
        if completed { spread = current.to }
        phase = .reading
        if !current.rubber { delegate?.controller(self, didFinishTurnFrom: current.from, to: current.to, completed: completed) }
        current.completion?(completed)
        playWaiting()
        if !queue.isEmpty {
            var next = queue.removeFirst()
            // A burst too long to play within the lag allowed turns straight to where it ends,
            // riffling through the pages between; every request it stands for is answered.
            if let lag = settings.queueLag, Double(queue.count + 1) * Self.shortestTurn > lag {
                let merged = [next] + queue
                queue = []
                next = Pending(target: merged[merged.count - 1].target) { done in merged.forEach { $0.completion?(done) } }
            }
            if next.target == spread {
                next.completion?(true)
            } else {
                // The next turn starts when this one ended, however late the update came.
                startTurn(to: next.target, at: m.start + m.duration, burst: true, completion: next.completion)
                advanceTurn(t)
            }
        }
    }

    /// View point → the book's own frame (undoing zoom, right-to-left mirror and calendar turn).
    private func bookPoint(_ p: Vec2) -> Vec2 {
        guard let info = laidOutBook, let inv = bookFrame(viewState(), book: info).inverse else { return p }
        let local = inv.project(Vec3(p.x, p.y, 0))
        return Vec2(local.x, local.y)
    }

    private func beginPageDrag(at p: Vec2) -> Bool {
        guard phase == .reading, queue.isEmpty else { return false }
        let local = bookPoint(p)
        let size = pageSize
        // One page shown: its half by the spine holds the sheet before it (lying beyond the
        // spine), dragged back over the page.
        let side: Side = local.x >= (singlePage ? size.x / 2 : 0) ? .right : .left
        // The page is held by its outer edge (by the corner near the head or tail) and that
        // point follows the pointer: pressing inside the page never folds a strip over at once.
        let pressed = Vec2(side == .right ? local.x : -local.x, clamp(local.y, -size.y / 2, size.y / 2))
        let nearEnd = abs(pressed.y) > 0.35 * size.y
        let grab = Vec2(size.x, nearEnd ? (pressed.y < 0 ? -size.y / 2 : size.y / 2) : pressed.y)
        let target = neighbour(of: spread, side == .right ? 1 : -1)
        turn = Turn(from: spread, to: target ?? spread, grab: grab, pointer: grab, offset: grab - pressed,
                    rubber: target == nil, side: side)
        turn?.tracker.add(0, at: time)
        phase = .turning
        return true
    }

    private func movePageDrag(to p: Vec2) -> Bool {
        guard var current = turn, current.motion == nil else { return false }
        let local = bookPoint(p)
        let pointer = CurlTurn.reachable(Vec2(current.side == .right ? local.x : -local.x, local.y) + (current.offset ?? .zero),
                                         grab: current.grab, size: pageSize)
        let raw = CurlTurn.progress(grab: current.grab, pointer: pointer)
        // Past the first or last page the sheet only gives a little and always comes back.
        current.progress = current.rubber ? 0.1 * raw / (raw + 0.25) : raw
        current.pointer = pointer
        current.tracker.add(current.progress, at: time)
        turn = current
        return true
    }

    /// Completes past halfway or on a fast flick, else falls back.
    private func endPageDrag() -> Bool {
        guard var current = turn, current.motion == nil else { return false }
        let v = current.tracker.velocity(at: time)
        current.completes = !current.rubber && (abs(v) > settings.flickVelocity ? v > 0 : current.progress > 0.5)
        let target = current.completes ? 1.0 : 0.0
        // The landing takes the time the sheet's own way left takes a turn: a dragged sheet curls
        // (`viewState`) and lags the pointer; timed by the pointer's way it fell from upright in
        // four frames.
        let sheet = settings.deform != .cone && !current.rubber
            ? CurlTurn.turned(grab: current.grab, pointer: current.pointer ?? current.grab, size: pageSize) : current.progress
        let duration = max(0.15, settings.turnDuration * abs(target - sheet))
        current.motion = Motion(from: current.progress, to: target, start: time, duration: duration,
                                curve: .timing(.landing))
        current.releasePointer = current.pointer
        // The pointer goes on at the hand's speed (progress is the pointer's way across).
        let left = abs(target - current.progress)
        current.releaseSpeed = left > 1e-9 ? (current.completes ? v : -v) * duration / left : 0
        turn = current
        return true
    }

    /// Whether the turn under way (if any) is heading to land.
    public var turnCompletes: Bool? { turn.map { $0.completes && !$0.rubber } }
    /// Turns waiting behind the current one.
    public var queuedTurns: Int { queue.count }
    /// Actions accepted that wait: for the turn under way to land, or for the book to open.
    public var actionsWaiting: [Action] { waiting.map(\.action) }
}
