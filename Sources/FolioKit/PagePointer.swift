import FolioReader
import FolioBook
import FolioFind
import FolioInput
import FolioPlatform

/// The pointer over the open book's pages, besides turning them: over a link it becomes a hand
/// (a click follows it: `FramePipelineDelegate.pipeline(_:clickedAt:at:)`); Shift + drag selects
/// words, marked on the paper as search hits are, and Ctrl+C copies them to the clipboard.
struct PagePointer {
    /// The links of the page looked at last: a document call per page, not per move.
    var links: (page: PageRef, links: [PageLink])?
    var shape: PointerShape = .arrow
    /// A drag selecting words: the point it began at, the page's document, index and words.
    var drag: (anchor: PagePoint, path: String, page: Int, text: PageText)?
    /// The words selected last, on page image `image` of document `path`.
    var selection: (path: String, image: Int, words: Selection)?
}

extension FramePipeline {
    /// The document page image `image` of the open book shows; nil for an image file.
    private func documentPage(_ image: Int) -> (path: String, index: Int)? {
        guard let b = controller.book, library.books[b].pages.indices.contains(image) else { return nil }
        return library.books[b].pages[image].documentPage
    }

    private func pagePoint(x: Double, y: Double) -> PagePoint? {
        PagePoint.under(gestures.mapping.layoutPoint(x: x, y: y), controller: controller)
    }

    /// The link at `point` of the open book; nil where there is none.
    public func link(at point: PagePoint) -> PageLink? {
        guard let b = controller.book, let (path, page) = documentPage(point.image) else { return nil }
        let shown = library.books[b].pages[point.image]
        if pointer.links?.page != shown {
            pointer.links = (shown, (try? configuration.documents.open(path))?.links(page: page) ?? [])
        }
        return pointer.links?.links.link(atX: point.x, y: point.y)
    }

    /// The words selected in the open book as Ctrl+C copies them; nil when none are.
    public var selectedText: String? { pointer.selection.map(\.words.text) }

    /// Shift + drag, Ctrl+C, and the pointer's shape over links: true when the event was used up.
    func pointerTakes(_ event: InputEvent, at now: Double) -> Bool {
        switch event {
        case let .mouseDown(.left, x, y, modifiers):
            // A plain click lets the selection go (and turns the page as ever).
            clearSelection()
            guard modifiers.contains(.shift), let point = pagePoint(x: x, y: y), let (path, page) = documentPage(point.image) else {
                return false
            }
            guard let text = (try? configuration.documents.open(path).text(page: page)) ?? nil else {
                showNotice("this page has no text to select")
                return true
            }
            pointer.drag = (point, path, page, text)
            setPointer(.text)
            return true
        case let .mouseMove(x, y):
            if pointer.drag != nil {
                select(to: pagePoint(x: x, y: y))
                return true
            }
            if !gestures.isPressed { setPointer(pagePoint(x: x, y: y).flatMap(link(at:)) == nil ? .arrow : .hand) }
            return false
        case let .mouseUp(.left, x, y, _) where pointer.drag != nil:
            select(to: pagePoint(x: x, y: y))
            pointer.drag = nil
            setPointer(.arrow)
            return true
        case let .key(.c, modifiers, _) where modifiers.contains(.control) && controller.book != nil:
            if let text = selectedText {
                surface.copyToClipboard(text)
                let words = pointer.selection?.words.words.count ?? 0
                titleNote = "copied \(words) word\(words == 1 ? "" : "s")"
            } else {
                showNotice("nothing selected: Shift + drag across a page selects its words")
            }
            return true
        default:
            return false
        }
    }

    /// The words from the drag's start to `point` (on the same page) selected and marked.
    private func select(to point: PagePoint?) {
        guard let drag = pointer.drag, let point, point.image == drag.anchor.image else { return }
        let words = Selection(page: drag.page, text: drag.text, from: (drag.anchor.x, drag.anchor.y), to: (point.x, point.y))
        guard words != pointer.selection?.words else { return }
        pointer.selection = (drag.path, point.image, words)
        PageMarks.select(words.boxes, page: drag.page, of: drag.path)
        marksChanged(image: point.image)
    }

    /// Takes the selection away, and its marks off the page.
    func clearSelection() {
        guard let old = pointer.selection else { return }
        pointer.selection = nil
        PageMarks.select([], page: old.words.page, of: old.path)
        marksChanged(image: old.image)
    }

    private func setPointer(_ shape: PointerShape) {
        guard shape != pointer.shape else { return }
        pointer.shape = shape
        surface.setPointer(shape)
    }
}
