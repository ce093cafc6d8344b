import FolioLayout
import FolioMath

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
