import FolioBook
import FolioInput
import FolioLayout
import FolioOverlay
import FolioReader
import FolioRender

/// The pipeline's on-screen layer: its state, its textures (made when first drawn), the look it
/// was last drawn with and when it next changes by itself. Does not: take input, or know the
/// reading state (it is told what to show).
final class OnScreenLayer {
    var state = LayerState()
    /// Where the links of the note shown go (`state.noteLinks` their words).
    var noteTargets: [LinkTarget] = []
    private var textures: LayerTextures?
    /// Its shaders could not be built: said once, then frames go without it.
    private var unavailable = false
    private(set) var drawn: (opacity: Double, content: OverlayContent)?
    private(set) var wake: Double?
    /// The page mode seen last: a change is named on the layer.
    var pageMode: PageMode?

    /// Draws `panels` over `target` at `opacity`, its shaders from `shaders` built first; false
    /// when they could not be (thrown the first time, then said no more).
    func draw(_ panels: [OverlayPanel], opacity: Double, into target: Framebuffer, renderer: Renderer, shaders: String) throws -> Bool {
        if textures == nil {
            guard !unavailable else { return false }
            do {
                textures = try LayerTextures(shaders: shaders)
            } catch {
                unavailable = true
                throw error
            }
        }
        textures?.draw(panels, opacity: opacity, into: target, renderer: renderer)
        return true
    }

    /// Steps a second a fade is drawn in: each step draws the whole frame again (on a software
    /// renderer most of a core for a fade at the screen's rate), and a fading bar needs no more.
    static let fadeSteps = 20.0

    /// Moves the layer on to `now`: it stays while something in it waits for the reader (and
    /// on the shelf, `stays`), lines past their time go; `content` is what it shows then. True
    /// when its look changed. A fade changes its look once a step, and wakes the loop for the
    /// next step rather than each frame.
    func update(at now: Double, stays: Bool, content: (LayerState) -> OverlayContent) -> Bool {
        _ = state.expire(at: now)
        if state.isPinned || stays { state.fade.wake(at: now) }
        let step = (now * Self.fadeSteps).rounded(.down) / Self.fadeSteps
        let shown = (opacity: state.fade.opacity(at: step), content: content(state))
        let changed = drawn.map { $0.opacity != shown.opacity || $0.content != shown.content } ?? true
        drawn = shown
        wake = state.nextChange(after: now).map { $0 > now ? $0 : step + 1 / Self.fadeSteps }
        return changed
    }

    func destroy() { textures?.destroy() }
}

/// The layer's answers to the reader: keys and clicks on its cards and its progress bar, the
/// page number being typed, a note shown over the page. Does not: draw the layer
/// (`OnScreenLayer`), or decide what it shows of the reading state (`ReaderLayer`).
final class LayerControls: PipelinePart {
    /// A key shows the layer; with the help card up, Escape, H and ? close it (used up), other
    /// keys do what they do under it (F12 takes a screenshot with it). True when the key was used up.
    func takes(_ key: Key, at now: Double) -> Bool {
        guard p.configuration.showsLayer else { return false }
        layer.fade.show(at: now)
        if layer.note != nil || layer.typography != nil, key == .escape {
            (layer.note, layer.typography) = (nil, nil)
            return true
        }
        guard layer.helpShown, [.escape, .h, .question].contains(key) else { return false }
        layer.helpShown = false
        return true
    }

    /// Shows a note's text over the page (a note's reference clicked), a row for each link it
    /// holds: Escape or a click closes it; a click on a link's row follows it
    /// (`FramePipelineDelegate.pipeline(_:follows:from:at:)`).
    func showNote(_ text: String, links: [NoteLink] = [], at now: Double) {
        guard p.configuration.showsLayer else { return }
        layer.note = text
        layer.noteLinks = links.map(\.label)
        p.screenLayer.noteTargets = links.map(\.target)
        layer.fade.show(at: now)
        p.needsRender = true
    }

    /// Shows the page number typed so far.
    func typed(_ digits: String) {
        guard p.configuration.showsLayer else { return }
        layer.typing = digits.isEmpty ? nil : "Go to page \(digits)"
    }

    /// Pointer events for the layer: moving shows it; a click with the help card up closes it
    /// and does nothing else; a press on the progress bar (shown, in an open book) drags along
    /// it, and letting go turns to the spread it points at through the goto action. True when
    /// the event was used up.
    func takes(_ event: InputEvent, at now: Double) -> Bool {
        guard p.configuration.showsLayer else { return false }
        switch event {
        case let .mouseDown(.left, x, y, _) where layer.typography != nil:
            // A click on a row of the typography card steps that choice, as its key does (the
            // text row: its left half smaller, its right half larger); elsewhere it closes the card.
            guard let rows = layer.typography, let hit = p.layerLayout.typographyRow(x: x, y: y, rows: rows.count) else {
                layer.typography = nil
                break
            }
            p.perform(hit.row == 0 ? (hit.left ? .textSmaller : .textLarger) : .typography(ReaderLayer.typographyChoices[hit.row - 1]), at: now, origin: .gesture)
        case let .mouseDown(.left, x, y, _) where layer.note != nil:
            // A click on a link's row follows it; elsewhere it closes the note and does nothing else.
            let hit = layer.noteShown.flatMap { p.layerLayout.noteLink(x: x, y: y, note: $0, links: layer.noteLinks) }
            let targets = p.screenLayer.noteTargets
            layer.note = nil
            if let hit, targets.indices.contains(hit) {
                _ = p.delegate?.pipeline(p, follows: targets[hit], from: p.shownImage, at: now)
            }
        case .mouseDown where layer.helpShown || layer.typography != nil:
            // A click closes the card and does nothing else.
            (layer.helpShown, layer.typography) = (false, nil)
        case let .scroll(_, dy, _) where layer.note != nil:
            // The wheel reads on through a note longer than its card (and turns no page).
            layer.scrollNote(by: dy > 0 ? -1 : 1)
        case let .mouseDown(.left, x, y, _):
            guard controller.phase == .reading, layer.fade.opacity(at: now) > 0,
                  let f = p.layerLayout.barFraction(x: x, y: y) else { return false }
            layer.dragFraction = f
        case let .mouseMove(x, y):
            layer.fade.wake(at: now)
            guard layer.dragFraction != nil else { return false }
            layer.dragFraction = p.layerLayout.barFraction(x: x, y: y, dragging: true)
        case let .mouseUp(.left, x, y, _):
            guard let f = layer.dragFraction else { return false }
            layer.dragFraction = nil
            let end = p.layerLayout.barFraction(x: x, y: y, dragging: true) ?? f
            if let info = controller.laidOutBook, let b = controller.book {
                let s = ReaderLayer.spread(at: end, lastSpread: info.lastSpread)
                if s != controller.spread {
                    // The spread's first image: the turn lands on the spread showing it.
                    let shown = BookController.shownPages(spread: s, singlePage: controller.singlePage, imageCount: controller.library[b].imageCount)
                    p.perform(.goTo(shown.first ?? PageImage(index: 0)), at: now, origin: .gesture)
                }
            }
        default:
            return false
        }
        layer.fade.wake(at: now)
        p.needsRender = true
        return true
    }
}
