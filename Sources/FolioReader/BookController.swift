import FolioLayout
import FolioMath

/// Supplies the pages around a page: the first page of the spread before or after the one
/// showing `page`, or nil at either end. Without one, the controller uses the book's bounds.
public protocol PageDataSource: AnyObject {
    func page(before page: LayoutPage) -> LayoutPage?
    func page(after page: LayoutPage) -> LayoutPage?
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
    public internal(set) var library: [BookInfo]
    public weak var dataSource: PageDataSource?
    public weak var delegate: BookControllerDelegate?

    public internal(set) var phase: Scene.State = .shelf { didSet { if phase != oldValue { notifyLayout() } } }
    /// The latest time seen.
    public internal(set) var time = 0.0
    /// Shelf position in covers.
    public internal(set) var scroll = 0.0
    /// The open book, while opening, reading, turning or closing.
    public internal(set) var book: Int?
    public internal(set) var openProgress = 0.0
    /// The spread at rest (the one a turn started from, while it turns); in single-page mode,
    /// a spread of `laidOutBook`, which shows page image `spread` alone.
    public internal(set) var spread = 0
    /// One page at a time (`Settings.pages`); it changes only at rest.
    public internal(set) var singlePage = false

    var scrollMotion: Motion?
    var shelfTracker: VelocityTracker?
    var openMotion: Motion?
    var scrubTracker: VelocityTracker?
    var turn: Turn?
    var queue: [Pending] = []
    /// Styles changed (the shelf's, and the open book's while it is open): each of
    /// `StyleBlend.amounts` that differs moves from where it stood to the new style's (nil: at
    /// rest); empty when none moves (`moving`).
    var styleMotions: [Motion?] = []
    static func moving(_ motions: [Motion?]) -> [Motion?] { motions.allSatisfy { $0 == nil } ? [] : motions }
    /// Actions accepted that cannot be performed yet, played in order when they can: while a
    /// page turns, what cannot change a moving sheet (a new deformation, layout or orientation;
    /// closing the book) waits for it to land; while the book opens, page turns wait until it
    /// is open. The one place an action waits (turns asked mid-turn chain in `queue`).
    var waiting: [Waiting] = []

    struct Waiting {
        var action: Action
        /// Told when the action is performed (`handle(_:at:performed:)`).
        var performed: (() -> Void)?
    }

    struct Turn {
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

    struct Pending {
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
        guard action.isBookState else { return false }
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

    func mustWait(_ action: Action) -> Bool {
        (turn != nil && Self.waitsForTurn(action)) || (phase == .opening && action.turnsPage)
    }

    /// Performs the actions that waited, in order; one that must still wait waits again.
    func playWaiting() {
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
    static func waitsForTurn(_ action: Action) -> Bool {
        switch action {
        case .toggleDeform, .toggleCone, .toggleLayout, .toggleOrientation, .togglePages, .close: true
        default: false
        }
    }

    func dropQueuedTurns() {
        let dropped = queue
        queue = []
        for pending in dropped { pending.completion?(false) }
    }

    @discardableResult
    func perform(_ action: Action) -> Bool {
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
        case .firstPage: return go(to: .cover)
        case .lastPage: return go(to: currentBook?.lastPage ?? .cover)
        case let .goTo(image): return go(to: clamp(image.layoutPage, .cover, currentBook?.lastPage ?? .cover))
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
        // The tools' and the window's are not the controller's (`isBookState`).
        default: return false
        }
    }

    var currentBook: BookInfo? { book.map { library[$0] } }

    /// The open book as its pages are laid out: one page image a sheet in single-page mode.
    public var laidOutBook: BookInfo? { currentBook.map { singlePage ? $0.onePagePerSheet : $0 } }

    /// The page images on screen at rest: the one page of single-page mode, else the spread's
    /// two (one beside the cover and at the end).
    public var shownPages: [PageImage] {
        guard let info = currentBook else { return [] }
        return Self.shownPages(spread: spread, singlePage: singlePage, imageCount: info.imageCount)
    }

    /// The one rule of where a reader is, for the title, the bar, go-to, search, the contents and
    /// positions alike: the page images spread `s` shows in a book of `imageCount` images —
    /// in single-page mode image `s`, else images 2`s` − 1 and 2`s` (0-based).
    public static func shownPages(spread s: Int, singlePage: Bool, imageCount: Int) -> [PageImage] {
        (singlePage ? [s] : [2 * s - 1, 2 * s]).filter { $0 >= 0 && $0 < imageCount }.map(PageImage.init(index:))
    }

    /// Single-page mode follows `Settings.pages` and the view's shape; it changes at rest only,
    /// keeping the page read on screen: two pages → the right-hand one, one → its spread.
    func updatePageMode() {
        let single = settings.style.orientation == .horizontal && settings.pages.isSingle(viewSize: settings.viewSize)
        guard single != singlePage, turn == nil, queue.isEmpty else { return }
        if let info = currentBook {
            spread = single ? clamp(2 * spread, 0, max(info.imageCount - 1, 0)) : info.spread(containing: PageImage(index: spread).layoutPage)
        }
        singlePage = single
        // A page fitted to the width opens at its top; two pages are never scrolled.
        settings.fitSpread()
        scrollPage(toTop: true)
        notifyLayout()
    }

    /// How far the page fitted to the width runs past the view (`fitWidthTravel`).
    var travel: Double {
        guard let info = laidOutBook else { return 0 }
        return fitWidthTravel(viewState(), book: info)
    }

    /// Shows the top (or the bottom) of the page fitted to the width.
    func scrollPage(toTop top: Bool) {
        let t = travel
        if t > 0 { settings.pan = Vec2(0, top ? -t : t) }
    }

    /// With the page fitted to the width and at rest, `delta` scrolls along it by most of a
    /// view; false at its end (the page turns then).
    func scrollsWithinPage(_ delta: Int) -> Bool {
        let t = travel
        guard t > 0, turn == nil, queue.isEmpty else { return false }
        let y = settings.pan.y, step = 0.85 * settings.viewSize.y * Double(delta)
        guard delta > 0 ? y < t - 1e-6 : y > -t + 1e-6 else { return false }
        settings.pan = Vec2(0, clamp(y + step, -t, t))
        notifyLayout()
        return true
    }

    func notifyLayout() { delegate?.controllerDidChangeLayout(self) }

    func restyle(_ allowed: Bool, _ change: (inout Settings) -> Void) -> Bool {
        guard allowed else { return false }
        let before = styleBlend ?? restingStyles
        change(&settings)
        // The camera, the layout and the shelf move to new styles (a script's `style fan` cut
        // them in one frame), each from where it stands and at the speed it has, also when it
        // was on its way to another; with no book open only the shelf has anything to move.
        let from = before.amounts, to = restingStyles.amounts
        var motions = styleMotions.isEmpty ? Array(repeating: nil, count: to.count) : styleMotions
        for i in to.indices where (book != nil || i == StyleBlend.shelfAmount) && motions[i]?.to ?? from[i] != to[i] {
            let speed = motions[i].map { $0.isDone(at: time) ? 0 : $0.rate(at: time) } ?? 0
            motions[i] = from[i] == to[i] && speed == 0 ? nil
                : Motion(from: from[i], to: to[i], start: time, duration: StyleBlend.duration, curve: .timing(.easeInOut), velocity: speed)
        }
        styleMotions = Self.moving(motions)
        notifyLayout()
        return true
    }

    /// The amounts of the styles set.
    var restingStyles: StyleBlend {
        StyleBlend(viewpoint: settings.viewpoint, style: settings.style, layout: settings.layout, shelf: settings.shelf)
    }

    /// Where the styles stand while they change; nil at rest.
    var styleBlend: StyleBlend? {
        guard !styleMotions.isEmpty else { return nil }
        var b = restingStyles
        let moving = zip(b.amounts, styleMotions)
        (b.amounts, b.from, b.to) = (moving.map { $1?.value(at: time) ?? $0 }, moving.map { $1?.from ?? $0 }, moving.map { $1?.to ?? $0 })
        return b
    }
}
