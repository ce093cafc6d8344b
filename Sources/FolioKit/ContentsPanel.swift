import FolioBook
import FolioFind
import FolioInput
import FolioLayout
import FolioOverlay
import FolioReader
import Foundation

/// The contents panel of the open book (Tab): its rows, chosen by keys, wheel or click, turn
/// to their page. Its state is the layer's (`LayerState.contents`), which the notes panel
/// shares. Does not: read the contents (`ReaderLayer.contents`), or draw.
final class ContentsPanel: PipelinePart {
    /// Shows the contents panel of the open book (the key map's Tab), or for a book without
    /// contents says so in one line (no empty panel over the page).
    func show(at now: Double) {
        guard p.configuration.showsLayer, let b = controller.book, controller.phase == .reading else { return }
        var list = ReaderLayer.contents(of: p.library.books[b], shown: controller.shownPages.last?.index ?? 0, in: p.configuration.documents)
        if list.rows.isEmpty {
            layer.answer(ReaderLayer.noContents, at: now)
        } else {
            list.visible = p.layerLayout.contentsRows
            layer.contents = list
        }
        layer.fade.show(at: now)
        p.needsRender = true
    }

    /// While the contents panel is shown (Tab again or Escape closes it) ↑ ↓ Page Up/Down choose a row, Enter or a click on a row goes there through the
    /// goto action, the wheel scrolls it, a click beside it closes it, and other keys do
    /// nothing. True when used up.
    func takes(_ event: InputEvent, at now: Double) -> Bool {
        guard p.configuration.showsLayer, controller.book != nil, controller.phase == .reading, var list = layer.contents else { return false }
        switch event {
        case let .key(key, _, _):
            switch key {
            case .up: list.move(by: -1)
            case .down: list.move(by: 1)
            case .pageUp: list.move(by: -list.visible)
            case .pageDown: list.move(by: list.visible)
            case .enter: return goTo(row: list.selected, at: now)
            case .escape, .tab, .x: layer.contents = nil
            case .delete: p.highlights.remove(row: list.selected, at: now); return true
            // Fullscreen and a screenshot work over the panel.
            case .f11, .f12: return false
            default: break
            }
        case let .mouseDown(.left, x, y, _):
            if let row = p.layerLayout.contentsRow(x: x, y: y, in: list) { return goTo(row: row, at: now) }
            // A click beside the panel closes it.
            if !p.layerLayout.contentsFrame.contains(x: x, y: y) { layer.contents = nil }
        case let .scroll(_, dy, _):
            list.scroll(by: dy > 0 ? -3 : 3)
        case .text, .mouseUp: break
        default: return false
        }
        if layer.contents != nil { layer.contents = list }
        layer.fade.show(at: now)
        p.needsRender = true
        return true
    }

    /// Closes the panel and turns to the page of row `row` (nothing for a heading with none).
    private func goTo(row: Int, at now: Double) -> Bool {
        guard let list = layer.contents, list.rows.indices.contains(row) else { return true }
        layer.contents = nil
        p.needsRender = true
        if let image = list.rows[row].target { p.perform(.goTo(PageImage(index: image)), at: now, origin: .key) }
        return true
    }
}
