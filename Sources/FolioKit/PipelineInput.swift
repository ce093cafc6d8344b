import FolioInput
import FolioLayout
import FolioMath
import FolioReader

// The pipeline's input: events from the surface, through the contents panel, the search field,
// the layer, page-number entry, the key map and pointer gestures, to the controller's actions
// (`FramePipeline.perform`) and the host's commands.
extension FramePipeline {
    /// One event, at the time it happened.
    public func handle(_ timed: TimedInputEvent) {
        let now = timed.time
        switch timed.event {
        case let .key(key, modifiers, isRepeat):
            if overviewTakes(timed.event, at: now) { return }
            if contentsTakes(timed.event, at: now) || searchTakes(timed.event, at: now) { return }
            if layerTakes(key, at: now) || pointerTakes(timed.event, at: now) { return }
            if controller.book != nil, let outcome = pageEntry.handle(key) {
                if case let .go(n) = outcome { goToPage(n, at: now) }
                typed(at: now)
                return
            }
            typed(at: now)
            let commands = KeyMap.commands(for: key, modifiers: modifiers, isRepeat: isRepeat,
                                           phase: controller.phase, queuedTurns: controller.queuedTurns,
                                           zoomed: controller.settings.zoom > 1)
            for command in commands { run(command, at: now) }
        case let .resize(width, height):
            fitView(width: width, height: height)
        case .refresh:
            needsPresent = true
        case .close:
            isRunning = false
        case .text:
            _ = contentsTakes(timed.event, at: now) || searchTakes(timed.event, at: now)
        case let .drop(paths):
            // One book at a time: the first file dropped.
            if let path = paths.first { delegate?.pipeline(self, asksFor: .open(path), at: now) }
        case .mouseDown, .mouseUp, .mouseMove, .scroll:
            if overviewTakes(timed.event, at: now) { return }
            if contentsTakes(timed.event, at: now) || layerTakes(timed.event, at: now) || pointerTakes(timed.event, at: now) { return }
            var actions = gestures.handle(timed.event, controller: controller, at: now)
            // A click that would turn the page goes to the host first (a link under it).
            if case let .mouseUp(.left, x, y, _) = timed.event, actions == [.nextPage] || actions == [.previousPage],
               let point = PagePoint.under(gestures.mapping.layoutPoint(x: x, y: y), controller: controller),
               delegate?.pipeline(self, clickedAt: point, at: now) == true {
                actions = []
            }
            for action in actions { perform(action, at: now, origin: .gesture) }
        }
    }

    func run(_ command: ViewerCommand, at now: Double) {
        switch command {
        case let .action(action): perform(action, at: now, origin: .key)
        case .toggleFullscreen: surface.toggleFullscreen()
        case .quit: isRunning = false
        case .help where configuration.showsLayer:
            layer.helpShown.toggle()
            if layer.helpShown { delegate?.pipeline(self, asksFor: command, at: now) }
        case .overview: toggleOverview()
        case .nextHit, .previousHit: turnToHit(forward: command == .nextHit, at: now)
        case .screenshot, .help, .open, .toggleBookmark, .nextBookmark, .back:
            delegate?.pipeline(self, asksFor: command, at: now)
        case .textLarger, .textSmaller:
            // The host remembers the size started.
            if changeTextSize(by: command == .textLarger ? 1 : -1, at: now) != nil { delegate?.pipeline(self, asksFor: command, at: now) }
        case .cycleTheme, .toggleShowThrough:
            if command == .cycleTheme { renderer.settings.theme = renderer.settings.theme.next } else { renderer.settings.showThrough.toggle() }
            needsRender = true
            // The host may remember it.
            delegate?.pipeline(self, asksFor: command, at: now)
        }
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
