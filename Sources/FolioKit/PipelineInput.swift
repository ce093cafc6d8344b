import FolioInput
import FolioLayout
import FolioMath
import FolioReader

/// The pipeline's input: the pointer gestures under way, the page number being typed, and the
/// order an event is offered in — the overview, the contents panel, the search field, the
/// layer, the pointer on a page, page-number entry, then the key map and pointer gestures — on
/// its way to the controller's actions (`FramePipeline.perform`) and the host's commands. Does
/// not: draw, or change the reading state but through the pipeline.
final class InputRouter {
    var gestures: PointerGestures
    /// A page number being typed.
    var pageEntry = PageNumberEntry()

    init(mapping: ViewMapping) { gestures = PointerGestures(mapping: mapping) }

    /// No gesture under way, no number typed (a pipeline started over).
    func reset() {
        gestures = PointerGestures(mapping: gestures.mapping)
        pageEntry = PageNumberEntry()
    }

    /// Offers `timed` to `p`'s parts in order, until one uses it up.
    func route(_ timed: TimedInputEvent, to p: FramePipeline) {
        let now = timed.time
        switch timed.event {
        case let .key(key, modifiers, isRepeat):
            if p.overviewTakes(timed.event, at: now) { return }
            if p.contentsTakes(timed.event, at: now) || p.searchTakes(timed.event, at: now) { return }
            if p.layerTakes(key, at: now) || p.pointerTakes(timed.event, at: now) { return }
            if p.controller.book != nil, let outcome = pageEntry.handle(key) {
                if case let .go(n) = outcome { p.goToPage(n, at: now) }
                p.typed(pageEntry.digits)
                return
            }
            p.typed(pageEntry.digits)
            if key == .escape, modifiers.isDisjoint(with: [.control, .alt]), p.escapeTakes() { return }
            let actions = KeyMap.actions(for: key, modifiers: modifiers, isRepeat: isRepeat,
                                           phase: p.controller.phase, queuedTurns: p.controller.queuedTurns,
                                           zoomed: p.controller.settings.zoom > 1)
            for action in actions { p.perform(action, at: now, origin: .key) }
        case let .resize(width, height):
            p.fitView(width: width, height: height)
        case .refresh:
            p.needsPresent = true
        case .close:
            p.isRunning = false
        case .text:
            _ = p.contentsTakes(timed.event, at: now) || p.searchTakes(timed.event, at: now)
        case let .drop(paths):
            // One book at a time: the first file dropped.
            if let path = paths.first { p.perform(.openFile(path), at: now, origin: .gesture) }
        case .mouseDown, .mouseUp, .mouseMove, .scroll:
            if p.overviewTakes(timed.event, at: now) { return }
            if p.contentsTakes(timed.event, at: now) || p.layerTakes(timed.event, at: now) || p.pointerTakes(timed.event, at: now) { return }
            var actions = gestures.handle(timed.event, controller: p.controller, at: now)
            // A click that would turn the page goes to the host first (a link under it).
            if case let .mouseUp(.left, x, y, _) = timed.event, actions == [.nextPage] || actions == [.previousPage],
               let point = PagePoint.under(gestures.mapping.layoutPoint(x: x, y: y), controller: p.controller),
               p.fieldClicked(point, at: now) || p.delegate?.pipeline(p, clickedAt: point, at: now) == true {
                actions = []
            }
            for action in actions { p.perform(action, at: now, origin: .gesture) }
        }
    }
}

// The tools' and the window's actions, carried out by the pipeline's parts.
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
        case .overview: toggleOverview()
        case .find: openSearchField(at: now)
        case .contents: showContents(at: now)
        case .sortShelf: sortShelf(at: now)
        case .copy: copySelection()
        case .highlight: highlightSelection(at: now)
        case .annotate: annotateSelection(at: now)
        case .removeHighlight: removeSelectedHighlights(at: now)
        case .notes: showNotesPanel(at: now)
        case .lookUp: lookUpSelection(at: now)
        case .saveFilled: saveFilledCopy()
        case .readAloud: toggleReadingAloud(at: now)
        case .stopReading: stopReadingAloud()
        case .speechFaster, .speechSlower: changeSpeechRate(by: action == .speechFaster ? 1 : -1)
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
            clearSelection()
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
}
