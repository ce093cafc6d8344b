import ArgumentParser
import Foundation
import FolioReader
import FolioScript
import FolioBook
import FolioLayout
import FolioMath

extension ShelfStyle: ExpressibleByArgument {}
extension BookLayout: ExpressibleByArgument {}
extension TurnDeform: ExpressibleByArgument {}
extension Viewpoint: ExpressibleByArgument {}
extension TurnStyle.Direction: ExpressibleByArgument {}
extension PageMode: ExpressibleByArgument {}

/// The options that describe a still state, shared by `folio layout` and `folio capture`.
struct StateOptions: ParsableArguments {
    @Option(help: "Shelf style: carousel or wheel.")
    var shelf: ShelfStyle = .carousel
    @Option(parsing: .unconditional, help: "Shelf position in covers (0 = first cover centred; fractional allowed).")
    var scroll: Double = 0
    @Option(parsing: .unconditional, help: "Shelf release velocity, covers per second (with --snap).")
    var velocity: Double = 0
    @Flag(help: "Report where the shelf comes to rest.")
    var snap = false
    @Option(parsing: .unconditional, help: "Open book N (0-based).")
    var book: Int?
    @Option(parsing: .unconditional, help: "Open / close progress, 0…1.")
    var open: Double?
    @Option(help: "Open book layout: flat or fan.")
    var layout: BookLayout = .flat
    @Option(help: "One page or two: 1, 2 or auto (one when the view is narrower than it is tall; a spread is then one page).")
    var pages: PageMode = .auto
    @Option(parsing: .unconditional, help: "Spread (fan: fractional allowed).")
    var spread: Double?
    @Option(parsing: .unconditional, help: "Show the spread with page N, numbered as the viewer's title and go-to-page: 1 is the first page (docs/reading.md).")
    var page: Int?
    @Option(parsing: .unconditional, help: "Progress of turning the next page, 0…1.")
    var turn: Double?
    @Option(help: "Turn direction: forward or backward.")
    var style: TurnStyle.Direction = .forward
    @Flag(help: "Vertical orientation (horizontal spine, a wall calendar).")
    var vertical = false
    @Flag(help: "Reverse perspective.")
    var reverse = false
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Curl grab point in fractions of the page: X across from the spine (0 < X ≤ 1), Y along it from the page centre (-0.5 … 0.5), e.g. 1,-0.5 for the bottom corner.", valueName: "x,y"))
    var curl: String?
    @Flag(help: "Turn on a cone (same as --deform cone).")
    var cone = false
    @Option(help: "Viewpoint: above, center or below.")
    var viewpoint: Viewpoint = .center
    @Option(help: "Turn deformation: rigid, curl or cone.")
    var deform: TurnDeform?
    @Option(help: "Zoom of the open book (1: the spread fits; 0.1…10).")
    var zoom: Double = 1
    @Option(help: ArgumentHelp("Move the zoomed book by X,Y layout units (-X shows more of the right).", valueName: "x,y"))
    var pan: String?

    /// The still state these options describe, with the view size of the command.
    func stillState(view: Vec2) throws -> StillState {
        var s = StillState()
        s.viewSize = view
        s.shelf = shelf
        s.scroll = scroll
        s.velocity = velocity
        s.snap = snap
        s.book = book
        s.open = open
        s.layout = layout
        s.pages = pages
        s.spread = spread
        // Past every book, it is refused here: the book's own check counts in its pages.
        if let page, !(Int(Int32.min)...Int(Int32.max)).contains(page) { throw ValidationError("--page \(page): no book has that page") }
        s.page = page.map { PageImage(number: $0).layoutPage }
        s.turn = turn
        s.style = TurnStyle(direction: style, orientation: vertical ? .vertical : .horizontal,
                            perspective: reverse ? .reverse : .normal)
        s.viewpoint = viewpoint
        if cone, let deform, deform != .cone { throw ValidationError("--cone contradicts --deform \(deform.rawValue)") }
        s.deform = cone ? .cone : deform
        if let curl { s.grab = try Self.point(curl, option: "--curl") }
        guard zoom.isFinite, (0.1...10).contains(zoom) else { throw ValidationError("--zoom must be 0.1…10 (got \(zoom))") }
        s.zoom = zoom
        if let pan { s.pan = try Self.point(pan, option: "--pan") }
        return s
    }

    /// Parses "X,Y".
    static func point(_ text: String, option: String) throws -> Vec2 {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
            throw ValidationError("\(option) wants two numbers X,Y, not '\(text)'")
        }
        return Vec2(x, y)
    }

    /// Parses "WxH".
    static func size(_ text: String, option: String) throws -> Vec2 {
        let parts = text.lowercased().split(separator: "x").map { Double($0) }
        guard parts.count == 2, let w = parts[0], let h = parts[1], w > 0, h > 0, w.isFinite, h.isFinite else {
            throw ValidationError("\(option) wants a size WxH such as 1280x720, not '\(text)'")
        }
        return Vec2(w, h)
    }
}

extension StillState {
    /// A page image named as SOURCE opens its book at it, as the viewer does, unless the options
    /// name a page or spread themselves, or another book.
    mutating func show(_ named: Library.PagePlace?) {
        guard let named, page == nil, spread == nil, book == nil || book == named.book else { return }
        book = named.book
        page = PageImage(index: named.image).layoutPage
    }
}
