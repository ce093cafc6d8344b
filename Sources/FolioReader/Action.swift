import FolioLayout
import FolioMath

/// What a reader, a script or a program embedding Folio can do: the one type keys, gestures,
/// scripts, the reading session and embedders all speak. The first part is the book's state,
/// which `BookController.handle` reduces (`isBookState`); the rest are the reader's tools and
/// the window, which the frame pipeline's parts carry out. Positions are in view units (origin
/// at the view centre, y up, as the z = 0 plane of the scene); shelf distances in covers.
public enum Action: Sendable, Equatable {
    // MARK: The book's state (the controller's)

    case shelfNext, shelfPrevious
    /// A mouse wheel step: glides by `by` covers and settles on a cover.
    case shelfScroll(by: Double)
    case shelfDragBegan, shelfDragMoved(by: Double), shelfDragEnded
    case select(Int)
    case open, close
    case nextPage, previousPage, firstPage, lastPage
    /// Turns to the spread showing page image `image` (clamped to the book's pages).
    case goTo(PageImage)
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

    // MARK: The reader's tools and the window (the pipeline's and its host's)

    /// Writes the current frame to a PNG in the screenshot folder.
    case screenshot
    case toggleFullscreen
    /// Paper → sepia → night (`Theme`), and the other side's print showing through or not.
    case cycleTheme, toggleShowThrough
    /// Opens a file (dropped on the window) in place of the books shown.
    case openFile(String)
    /// Prints the key map.
    case help
    case quit
    /// Turns to the next (previous) hit of the search (`folio view --search`).
    case nextHit, previousHit
    /// Bookmarks the spread shown, or takes its bookmark away; turns to the next bookmark.
    case toggleBookmark, nextBookmark
    /// Alt+←: back to the page a followed link left.
    case back
    /// The book's pages small, many at once, to jump by sight (`Overview`); again closes it.
    case overview
    /// Ctrl+= (Ctrl++) and Ctrl+−: lay a reflowable book out with larger or smaller text.
    case textLarger, textSmaller
    /// / or Ctrl+F: the search field; Tab: the contents panel; Ctrl+C: copy the words selected.
    case find, contents, copy
    /// Lay reflowable books out with the next choice of one part of their typography.
    case typography(TypographyChoice)
    /// The words selected highlighted (again: in the next colour); a note written on them;
    /// the highlights they touch taken away; the panel of the book's highlights and notes.
    case highlight, annotate, removeHighlight, notes
    /// The word selected looked up in the installed dictionaries.
    case lookUp
    /// A copy of the book with its form filled, saved beside it.
    case saveFilled
    /// The shelf in the next order: as found, read last first, by title, by author.
    case sortShelf
    /// The book read aloud from the page shown (again: pause, resume); stopped; its voice
    /// faster or slower.
    case readAloud, stopReading, speechFaster, speechSlower
}

extension Action {
    /// The controller's (the book's state), not a tool's or the window's.
    public var isBookState: Bool {
        switch self {
        case .screenshot, .toggleFullscreen, .cycleTheme, .toggleShowThrough, .openFile, .help, .quit, .nextHit, .previousHit,
             .toggleBookmark, .nextBookmark, .back, .overview, .textLarger, .textSmaller, .find, .contents, .copy, .typography,
             .highlight, .annotate, .removeHighlight, .notes, .lookUp, .saveFilled, .sortShelf, .readAloud, .stopReading,
             .speechFaster, .speechSlower: false
        default: true
        }
    }

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
