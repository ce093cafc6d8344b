import FolioLayout
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
    /// Layout page: opens the spread that shows it.
    public var page: Int?
    /// Progress of turning the next page (or the previous one with a backward style).
    public var turn: Double?
    public var style = TurnStyle()
    public var deform: TurnDeform?
    /// Curl grab point, page units (a across from the spine, l along it from the centre).
    public var grab: Vec2?
    public var viewpoint: Viewpoint = .center
    public var zoom = 1.0
    /// Where the zoomed book is moved, layout units.
    public var pan = Vec2.zero

    public init() {}

    /// Whether any option asks for an open book.
    public var opensBook: Bool { book != nil || open != nil || spread != nil || page != nil || turn != nil }

    /// Checks the state against `library` and resolves it to numbers.
    public func resolve(library: [BookInfo]) throws(StillStateError) -> ViewState {
        try check(viewSize.x > 0 && viewSize.y > 0 && viewSize.x.isFinite && viewSize.y.isFinite, "the view size must be positive")
        try check(scroll.isFinite && velocity.isFinite, "--scroll and --velocity must be numbers")
        try check(zoom > 0 && zoom.isFinite, "the zoom must be positive")
        var v = ViewState(viewSize: viewSize, shelf: shelf, scroll: scroll, layout: layout, style: style,
                          deform: deform ?? (grab != nil ? .curl : .rigid), viewpoint: viewpoint, zoom: zoom)
        v.pan = pan
        guard opensBook else {
            if snap { v.rest = ShelfScroll.rest(from: scroll, velocity: velocity, count: library.count) }
            return v
        }
        try check(!library.isEmpty, "the library has no books to open")
        let b = book ?? Int(scroll.rounded())
        try check(library.indices.contains(b), "there is no book \(b): the library has \(library.count) (0…\(library.count - 1))")
        let info = library[b]
        v.book = b
        v.scroll = Double(b)
        v.openProgress = open ?? 1
        try check((0...1).contains(v.openProgress), "--open must be between 0 and 1")
        try check(spread == nil || page == nil, "give --spread or --page, not both")
        if let page {
            try check((0..<info.pageCount).contains(page), "book \(b) has pages 0…\(info.pageCount - 1), not \(page)")
            v.spread = Double(info.spread(containing: page))
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
                let size = style.orientation == .vertical ? Vec2(info.pageSize.y, info.pageSize.x) : info.pageSize
                try check(grab.x > 0 && grab.x <= size.x && abs(grab.y) <= size.y / 2,
                          "--curl must lie on the page: 0 < X ≤ \(size.x), |Y| ≤ \(size.y / 2)")
            }
            v.turn = TurnState(from: from, to: to, progress: turn, grab: grab)
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
