import FolioInput
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
            if p.overview.takes(timed.event, at: now) { return }
            if p.contents.takes(timed.event, at: now) || p.search.takes(timed.event, at: now) { return }
            if p.layerControls.takes(key, at: now) || p.pointer.takes(timed.event, at: now) { return }
            if p.controller.book != nil, let outcome = pageEntry.handle(key) {
                if case let .go(n) = outcome { p.goToPage(n, at: now) }
                p.layerControls.typed(pageEntry.digits)
                return
            }
            p.layerControls.typed(pageEntry.digits)
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
            _ = p.contents.takes(timed.event, at: now) || p.search.takes(timed.event, at: now)
        case let .drop(paths):
            // One book at a time: the first file dropped.
            if let path = paths.first { p.perform(.openFile(path), at: now, origin: .gesture) }
        case .mouseDown, .mouseUp, .mouseMove, .scroll:
            if p.overview.takes(timed.event, at: now) { return }
            if p.contents.takes(timed.event, at: now) || p.layerControls.takes(timed.event, at: now) || p.pointer.takes(timed.event, at: now) { return }
            var actions = gestures.handle(timed.event, controller: p.controller, at: now)
            // A click that would turn the page goes to the host first (a link under it).
            if case let .mouseUp(.left, x, y, _) = timed.event, actions == [.nextPage] || actions == [.previousPage],
               let point = PagePoint.under(gestures.mapping.layoutPoint(x: x, y: y), controller: p.controller),
               p.form.clicked(point, at: now) || p.delegate?.pipeline(p, clickedAt: point, at: now) == true {
                actions = []
            }
            for action in actions { p.perform(action, at: now, origin: .gesture) }
        }
    }
}
