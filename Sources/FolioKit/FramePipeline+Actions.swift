import FolioBook
import FolioInput
import FolioLayout
import FolioMath
import FolioReader

// The pipeline's side that its parts and its host see: the actions that are not the
// controller's, carried out by the part they belong to, and what the parts show of themselves.
extension FramePipeline {
    /// One event, at the time it happened.
    public func handle(_ timed: TimedInputEvent) { input.route(timed, to: self) }

    /// Carries out an action that is not the controller's (`Action.isBookState`).
    func carryOut(_ action: Action, at now: Double) {
        switch action {
        case .toggleFullscreen: surface.toggleFullscreen()
        case .quit: isRunning = false
        case .help where configuration.showsLayer:
            layer.helpShown.toggle()
            if layer.helpShown { delegate?.pipeline(self, asksFor: action, at: now) }
        case .overview: overview.toggle()
        case .find: openSearchField(at: now)
        case .contents: contents.show(at: now)
        case .sortShelf: shelfSorter.sortNext(at: now)
        case .copy: pointer.copy()
        case .highlight: highlights.highlight(at: now)
        case .annotate: highlights.annotate(at: now)
        case .removeHighlight: highlights.removeSelected(at: now)
        case .notes: highlights.showPanel(at: now)
        case .lookUp: highlights.lookUp(at: now)
        case .saveFilled: form.saveCopy()
        case .readAloud: readAloud.toggle(at: now)
        case .stopReading: readAloud.stop()
        case .speechFaster, .speechSlower: readAloud.changeRate(by: action == .speechFaster ? 1 : -1)
        case .nextHit, .previousHit: turnToHit(forward: action == .nextHit, at: now)
        case .screenshot, .help, .openFile, .toggleBookmark, .nextBookmark, .back:
            delegate?.pipeline(self, asksFor: action, at: now)
        case .textLarger, .textSmaller:
            // The host remembers the size started.
            if changeTextSize(by: action == .textLarger ? 1 : -1, at: now) != nil { delegate?.pipeline(self, asksFor: action, at: now) }
        case let .typography(choice):
            // The host sets its engine's typography before the book is laid out with it.
            changeTypography(choice, at: now) { delegate?.pipeline(self, asksFor: action, at: now) }
        case .cycleTheme, .toggleShowThrough:
            if action == .cycleTheme { renderer.settings.theme = renderer.settings.theme.next } else { renderer.settings.showThrough.toggle() }
            needsRender = true
            // The host may remember it.
            delegate?.pipeline(self, asksFor: action, at: now)
        default: break
        }
    }

    /// Escape, once the panels, popups and fields before it have had their turn: it clears a
    /// selection, else the search and its marks, else leaves full screen; only then does the key
    /// map's Escape close the book. True when used up.
    func escapeTakes() -> Bool {
        if pointer.selection != nil {
            pointer.clear()
        } else if finding != nil || layer.searchLine != nil {
            endSearch()
            layer.searchLine = nil
            needsRender = true
        } else if surface.isFullscreen {
            surface.toggleFullscreen()
        } else {
            return false
        }
        return true
    }

    /// Turns to page image `n` (1-based) of the open book, clamped to its pages: a turn like any
    /// key's (kept while the book opens, heard by the delegate).
    func goToPage(_ n: Int, at now: Double) {
        guard let b = controller.book else { return }
        if configuration.showsLayer, let answer = ReaderLayer.missingPage(n, count: library.books[b].pages.count) {
            layer.answer(answer, at: now)
            return
        }
        perform(.goTo(page: BookInfo.layoutPage(number: clamp(n, 1, max(1, library.books[b].pages.count)))), at: now, origin: .key)
    }

    /// Whether the overview of the open book is shown.
    public var overviewShown: Bool { overview.isShown }

    /// The overview as it is drawn now, scrolled as it is (nil when not shown, or no book is open).
    public var shownOverview: Overview? { overview.shown }

    /// The link at `point` of the open book; nil where there is none.
    public func link(at point: PagePoint) -> PageLink? { pointer.link(at: point) }

    /// The words selected in the open book as Ctrl+C copies them; nil when none are.
    public var selectedText: String? { pointer.selectedText }

    /// The open book's bookmarks changed or were gone through (M, Shift+M): every mark's ribbon
    /// painted, on the pages shown at once.
    public func bookmarksChanged() { highlights.bookmarksChanged() }
}
