import FolioLayout
import FolioReader
import FolioMath

/// A still picture described the way a person asks for it (`folio layout`, `folio capture`):
/// a shelf position, or a book open at a spread or page, maybe mid-turn. `resolve` checks it
/// against a library and turns it into the layout's `ViewState`.
public struct StillState: Sendable, Equatable {
    public var viewSize = Vec2(1280, 720)
    public var shelf: ShelfStyle = .carousel
    /// Shelf position in covers (0 = the first cover centred).
    public var scroll = 0.0
    /// Release velocity of the shelf, covers per second (with `snap`).
    public var velocity = 0.0
    /// Report where the shelf comes to rest.
    public var snap = false
    /// The open book; nil opens the centred one when any book option is given.
    public var book: Int?
    /// Open / close progress, 0 … 1.
    public var open: Double?
    public var layout: BookLayout = .flat
    /// Spread (fractional in the fan layout).
    public var spread: Double?
    /// Layout page: opens the spread that shows it (the commands take page numbers as a reader
    /// counts them: `PageImage(number:).layoutPage`).
    public var page: LayoutPage?
    /// Progress of turning the next page (or the previous one with a backward style).
    public var turn: Double?
    public var style = TurnStyle()
    public var deform: TurnDeform?
    /// Curl grab point in fractions of the page: x across from the spine (0 < x ≤ 1), y along
    /// it from the page centre (-0.5 … 0.5), whatever the book's page size.
    public var grab: Vec2?
    public var viewpoint: Viewpoint = .center
    public var zoom = 1.0
    /// Eye distance, layout units; nil: in proportion to the page width.
    public var eye: Double?
    /// Strength of the page shadows (1: the reference's).
    public var shadow = 1.0
    /// With a curve, `turn` is the fraction of the turn's time and the curve gives its progress.
    public var curve: TurnCurve?
    /// Where the zoomed book is moved, layout units.
    public var pan = Vec2.zero
    /// One page or two (`auto`: one in a view narrower than it is tall).
    public var pages: PageMode = .auto

    public init() {}

    /// View sizes accepted, layout units each side.
    public static let viewSides = 1.0...100_000
    /// Shelf release speeds accepted, covers per second (a fling of a few dozen is fast).
    public static let maxVelocity = 1000.0

    /// Whether any option asks for an open book.
    public var opensBook: Bool { book != nil || open != nil || spread != nil || page != nil || turn != nil }

    /// Checks the state against `library` and resolves it to numbers.
    public func resolve(library: [BookInfo]) throws(StillStateError) -> ViewState {
        // Every number is checked here, where it enters, so the layout never meets one it cannot
        // turn into an index (a scroll of 1e19 has no cover) or a finite size.
        try check(Self.viewSides.contains(viewSize.x) && Self.viewSides.contains(viewSize.y),
                  "the view size must be \(Int(Self.viewSides.lowerBound))…\(Int(Self.viewSides.upperBound)) units each side, not \(viewSize.x)×\(viewSize.y)")
        let shelfEnd = Double(max(library.count, 1))
        try check((-1...shelfEnd).contains(scroll),
                  "--scroll must be between -1 and \(Int(shelfEnd)) (covers; the library has \(library.count)), not \(scroll)")
        try check((-Self.maxVelocity...Self.maxVelocity).contains(velocity),
                  "--velocity must be between -\(Int(Self.maxVelocity)) and \(Int(Self.maxVelocity)) covers per second, not \(velocity)")
        try check((0.1...10).contains(zoom), "the zoom must be 0.1…10, not \(zoom)")
        // As in the viewer, the spread's centre stays within the zoomed view: a pan beyond it
        // shows nothing, and one of 1e308 has no finite place.
        let panLimit = viewSize * (max(zoom, 1) / 2)
        try check(abs(pan.x) <= panLimit.x && abs(pan.y) <= panLimit.y,
                  "--pan must keep the book in view: at most ±\(Int(panLimit.x)),±\(Int(panLimit.y)) layout units at zoom \(zoom), not \(pan.x),\(pan.y)")
        try check(eye.map(Tune.eyes.contains) ?? true, "the eye distance must be \(Tune.eyes.lowerBound)…\(Tune.eyes.upperBound)")
        try check(Tune.shadows.contains(shadow), "the shadow strength must be \(Tune.shadows.lowerBound)…\(Tune.shadows.upperBound)")
        var v = ViewState(viewSize: viewSize, shelf: shelf, scroll: scroll, layout: layout, style: style,
                          deform: deform ?? (grab != nil ? .curl : .rigid), viewpoint: viewpoint, zoom: zoom)
        v.eye = eye
        v.shadow = shadow
        v.pan = pan
        guard opensBook else {
            if snap { v.rest = ShelfScroll.rest(from: scroll, velocity: velocity, count: library.count) }
            return v
        }
        try check(!library.isEmpty, "the library has no books to open")
        let b = book ?? Int(scroll.rounded())
        try check(library.indices.contains(b), "there is no book \(b): the library has \(library.count) (0…\(library.count - 1))")
        let own = library[b]
        v.singlePage = style.orientation == .horizontal && pages.isSingle(viewSize: viewSize)
        // Spreads and turns are the laid-out book's: one page image a sheet in single-page mode.
        let info = v.singlePage ? own.onePagePerSheet : own
        v.book = b
        v.scroll = Double(b)
        v.openProgress = open ?? 1
        try check((0...1).contains(v.openProgress), "--open must be between 0 and 1")
        try check(spread == nil || page == nil, "give --spread or --page, not both")
        if let page {
            // Said in page numbers, as `--page` takes them.
            try check((1..<own.pageCount).contains(page.index),
                      "book \(b) has pages 1…\(own.imageCount) (0: the inside of the cover), not \(page.index - 1)")
            v.spread = Double(info.spread(containing: v.singlePage ? BookInfo.onePagePerSheet(page: page) : page))
        } else {
            v.spread = spread ?? 0
        }
        try check(v.spread >= 0 && v.spread <= Double(info.lastSpread),
                  "book \(b) has spreads 0…\(info.lastSpread), not \(v.spread)")
        if layout == .flat { v.spread.round(.down) }
        try check(grab == nil || deform == nil || deform == .curl, "--curl needs the curl deformation")
        try check(grab == nil || turn != nil, "--curl needs --turn")
        v.phase = v.openProgress < 1 ? .opening : .reading
        if let turn {
            try check((0...1).contains(turn), "--turn must be between 0 and 1")
            try check(v.openProgress == 1, "a page turns only in an open book (--open 1)")
            let from = Int(v.spread.rounded(.down))
            let to = from + (style.direction == .forward ? 1 : -1)
            try check((0...info.lastSpread).contains(to),
                      style.direction == .forward ? "spread \(from) is the last: there is no page to turn" : "spread \(from) is the first: there is no page to turn back")
            if let grab {
                try check(grab.x > 0 && grab.x <= 1 && abs(grab.y) <= 0.5,
                          "--curl must lie on the turning page, in fractions of it: 0 < X ≤ 1 from the spine, -0.5 ≤ Y ≤ 0.5 "
                          + "from the centre (got \(grab.x),\(grab.y)); to grab a left page, turn back with --style backward")
            }
            let size = info.laidOutPageSize(style.orientation)
            v.turn = TurnState(from: from, to: to, progress: curve.map { $0(turn) } ?? turn, grab: grab.map { Vec2($0.x * size.x, $0.y * size.y) })
            v.phase = .turning
        }
        return v
    }

    /// The scene of this still: what `folio layout` prints and `folio capture` draws.
    public func scene(library: [BookInfo]) throws(StillStateError) -> Scene {
        makeScene(try resolve(library: library), books: library)
    }

    private func check(_ ok: Bool, _ message: @autoclosure () -> String) throws(StillStateError) {
        if !ok { throw StillStateError(message: message()) }
    }
}

/// A still state that cannot be shown, worded for the person who asked for it.
public struct StillStateError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
