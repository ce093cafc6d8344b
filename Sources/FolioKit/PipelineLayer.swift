import FolioInput
import FolioOverlay
import FolioReader

// MARK: On-screen layer

extension FramePipeline {
    /// Draws `content` over the frame in `target` at `opacity` (scripted frames: captures with
    /// `--ui`, tests), at the surface's pixel density. False, with a problem reported, when the
    /// layer's shaders cannot be built.
    @discardableResult
    public func drawLayer(_ content: OverlayContent, opacity: Double = 1) -> Bool {
        if layerTextures == nil {
            guard !layerUnavailable else { return false }
            do {
                layerTextures = try LayerTextures(shaders: configuration.shaders)
            } catch {
                layerUnavailable = true
                report("the on-screen layer cannot be drawn: \(error)")
                return false
            }
        }
        let panels = OverlayLayout(width: target.width, height: target.height, scale: surface.contentScale).panels(content)
        layerTextures?.draw(panels, opacity: opacity, into: target, renderer: renderer)
        return true
    }

    /// Shows `line` as a notice on the layer for a few seconds: a problem the host met and
    /// reported itself (a document of the library that could not be opened).
    public func showNotice(_ line: String) {
        guard configuration.showsLayer else { return }
        layer.notice(line, at: surface.time)
        needsRender = true
    }

    /// What the layer shows now in the live reader.
    public var layerContent: OverlayContent {
        ReaderLayer.content(library: library, documents: configuration.documents, phase: controller.phase, book: controller.book, spread: controller.spread,
                            scroll: controller.scroll, state: layer)
    }

    private var layerLayout: OverlayLayout {
        OverlayLayout(width: target.width, height: target.height, scale: surface.contentScale)
    }

    /// Moves the layer on to `now`: it stays while something in it waits for the reader (and on
    /// the shelf), lines past their time go, and a changed look asks for a frame.
    func updateLayer(at now: Double) {
        guard configuration.showsLayer else { return }
        _ = layer.expire(at: now)
        if layer.isPinned || controller.phase == .shelf { layer.fade.wake(at: now) }
        let shown = (opacity: layer.fade.opacity(at: now), content: layerContent)
        if layerDrawn.map({ $0.opacity != shown.opacity || $0.content != shown.content }) ?? true { needsRender = true }
        layerDrawn = shown
        layerWake = layer.nextChange(after: now)
    }

    /// A key shows the layer; with the help card up, Escape, H and ? close it (used up), other
    /// keys do what they do under it (F12 takes a screenshot with it). True when the key was used up.
    func layerTakes(_ key: Key, at now: Double) -> Bool {
        guard configuration.showsLayer else { return false }
        layer.fade.show(at: now)
        guard layer.helpShown, [.escape, .h, .question].contains(key) else { return false }
        layer.helpShown = false
        return true
    }

    /// Shows the page number typed so far.
    func typed(at now: Double) {
        guard configuration.showsLayer else { return }
        layer.typing = pageEntry.digits.isEmpty ? nil : "Go to page \(pageEntry.digits)"
    }

    /// Pointer events for the layer: moving shows it; a press on the progress bar (shown, in an
    /// open book) drags along it, and letting go turns to the spread it points at through the
    /// goto action. True when the event was used up.
    func layerTakes(_ event: InputEvent, at now: Double) -> Bool {
        guard configuration.showsLayer else { return false }
        switch event {
        case let .mouseDown(.left, x, y, _):
            guard controller.phase == .reading, layer.fade.opacity(at: now) > 0,
                  let f = layerLayout.barFraction(x: x, y: y) else { return false }
            layer.dragFraction = f
        case let .mouseMove(x, y):
            layer.fade.wake(at: now)
            guard layer.dragFraction != nil else { return false }
            layer.dragFraction = layerLayout.barFraction(x: x, y: y, dragging: true)
        case let .mouseUp(.left, x, y, _):
            guard let f = layer.dragFraction else { return false }
            layer.dragFraction = nil
            let end = layerLayout.barFraction(x: x, y: y, dragging: true) ?? f
            if let b = controller.book {
                let s = ReaderLayer.spread(at: end, lastSpread: library.bookInfos[b].lastSpread)
                // Layout page 2s + 1 lies in spread s (`BookInfo.spread(containing:)`).
                if s != controller.spread { perform(.goTo(page: 2 * s + 1), at: now, origin: .gesture) }
            }
        default:
            return false
        }
        layer.fade.wake(at: now)
        needsRender = true
        return true
    }
}
