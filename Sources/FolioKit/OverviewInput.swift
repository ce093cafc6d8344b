import FolioInput
import FolioLayout
import FolioMath
import FolioReader

/// The overview of the open book (G): the pages small, many at once, to jump by sight. While
/// it is shown it takes the keys and the pointer, and is drawn in place of the book. Does not:
/// lay the pages out (`Overview`), or draw them.
final class OverviewPart: PipelinePart {
    /// How far its rows are scrolled and the page chosen (the keys move it, the pointer raises
    /// the page under it).
    private struct Shown {
        var scroll: Double
        var selected: Int
    }

    private var overview: Shown?

    /// Whether the overview of the open book is shown.
    var isShown: Bool { overview != nil }

    /// The overview as it is drawn now, scrolled as it is (nil when not shown, or no book is open).
    var shown: Overview? {
        guard let state = overview, let b = controller.book, controller.library.indices.contains(b) else { return nil }
        return Overview(book: controller.library[b], viewSize: controller.settings.viewSize, scroll: state.scroll)
    }

    /// The scene of the overview, when it is shown: drawn in place of the book.
    var scene: Scene? {
        guard let grid = shown, let b = controller.book else { return nil }
        let current = Overview.shown(spread: controller.spread, singlePage: controller.singlePage, in: grid.book)
        return grid.scene(index: b, current: current, selected: overview?.selected)
    }

    /// Shows the overview of the open book, at rest, scrolled to the spread read and with its
    /// first page chosen; or closes it. False when no book lies open.
    @discardableResult
    func toggle() -> Bool {
        p.needsRender = true
        guard overview == nil else {
            overview = nil
            return true
        }
        guard let b = controller.book, controller.phase == .reading, controller.library.indices.contains(b) else { return false }
        let book = controller.library[b]
        let (grid, current) = Overview.around(spread: controller.spread, singlePage: controller.singlePage, of: book,
                                              viewSize: controller.settings.viewSize)
        overview = Shown(scroll: grid.scroll, selected: current.min() ?? 0)
        return true
    }

    /// While the overview is shown it takes the keys and the pointer: G or Escape closes it,
    /// the arrows, Page Up/Down, Home and End choose a page (the rows scroll to it), Enter or
    /// a click on a page closes it and turns there (the goto action: a riffle for a long way),
    /// the wheel scrolls the rows, the pointer raises the page under it. F11, F12 and Q still
    /// work. True when used up.
    func takes(_ event: InputEvent, at now: Double) -> Bool {
        guard var state = overview, let grid = shown else {
            overview = nil
            return false
        }
        var chosen: Int?
        switch event {
        case let .key(key, _, _):
            let rowsShown = Int(Overview.rowsShown)
            switch key {
            case .escape, .g:
                overview = nil
                p.needsRender = true
                return true
            case .enter: return go(to: state.selected, at: now)
            case .left: chosen = grid.image(from: state.selected, columns: -1, rows: 0)
            case .right: chosen = grid.image(from: state.selected, columns: 1, rows: 0)
            case .up: chosen = grid.image(from: state.selected, columns: 0, rows: -1)
            case .down: chosen = grid.image(from: state.selected, columns: 0, rows: 1)
            case .pageUp: chosen = grid.image(from: state.selected, columns: 0, rows: -rowsShown)
            case .pageDown: chosen = grid.image(from: state.selected, columns: 0, rows: rowsShown)
            case .home: chosen = 0
            case .end: chosen = grid.book.imageCount - 1
            case .f11, .f12, .q: return false
            default: return true
            }
        case let .mouseDown(.left, x, y, _):
            if let image = grid.image(at: p.input.gestures.mapping.layoutPoint(x: x, y: y)) { return go(to: image, at: now) }
            return true
        case let .mouseMove(x, y):
            if let image = grid.image(at: p.input.gestures.mapping.layoutPoint(x: x, y: y)), image != state.selected {
                state.selected = image
                p.needsRender = true
            }
        case let .scroll(_, dy, _):
            var moved = grid
            moved.scroll(to: grid.scroll - dy * grid.pageSize.y / 2)
            state.scroll = moved.scroll
            p.needsRender = true
        case .mouseUp, .text: break
        default: return false
        }
        if let chosen, chosen >= 0 {
            state.selected = chosen
            state.scroll = grid.scroll(showing: chosen)
            p.needsRender = true
        }
        overview = state
        return true
    }

    /// Closes the overview and turns to the spread of page image `image`.
    private func go(to image: Int, at now: Double) -> Bool {
        overview = nil
        p.needsRender = true
        p.perform(.goTo(PageImage(index: image)), at: now, origin: .key)
        return true
    }
}
