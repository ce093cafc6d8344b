import FolioReader
import FolioBook
import FolioFind
import FolioInput
import FolioPlatform

/// The pointer over the open book's pages, besides turning them: over a link it becomes a hand
/// (a click follows it: `FramePipelineDelegate.pipeline(_:clickedAt:at:)`); Shift + drag selects
/// words, on one page or across the two of a spread, marked on the paper as search hits are,
/// and Ctrl+C copies them to the clipboard.
struct PagePointer {
    /// The links of the page looked at last: a document call per page, not per move.
    var links: (page: PageRef, links: [PageLink])?
    var shape: PointerShape = .arrow
    /// A drag selecting words: the point it began at, the page's document, index and words.
    var drag: (anchor: PagePoint, path: String, page: Int, text: PageText)?
    /// The other page of the spread once the drag has reached it: its image and words (nil:
    /// none, or not of the same document), read once a drag.
    var dragOther: (image: Int, page: Int, text: PageText?)?
    /// The words selected last in document `path`, a part per page image `images`, in page order.
    var selection: (path: String, images: [Int], words: [Selection])?
}

extension FramePipeline {
    /// The document page image `image` of the open book shows; nil for an image file.
    private func documentPage(_ image: Int) -> (path: String, index: Int)? {
        guard let b = controller.book, library.books[b].pages.indices.contains(image) else { return nil }
        return library.books[b].pages[image].documentPage
    }

    private func pagePoint(x: Double, y: Double) -> PagePoint? {
        PagePoint.under(input.gestures.mapping.layoutPoint(x: x, y: y), controller: controller)
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
    public var selectedText: String? {
        pointer.selection.map { $0.words.map(\.text).filter { !$0.isEmpty }.joined(separator: "\n") }
    }

    /// Shift + drag, and the pointer's shape over links: true when the event was used up.
    func pointerTakes(_ event: InputEvent, at now: Double) -> Bool {
        switch event {
        case let .mouseDown(.left, x, y, modifiers):
            // A plain click lets the selection go and does nothing else (it turns no page).
            if !modifiers.contains(.shift), pointer.selection != nil {
                clearSelection()
                return true
            }
            clearSelection()
            guard modifiers.contains(.shift), let point = pagePoint(x: x, y: y), let (path, page) = documentPage(point.image) else {
                return false
            }
            guard let text = (try? configuration.documents.open(path).text(page: page)) ?? nil else {
                showNotice("this page has no text to select")
                return true
            }
            pointer.drag = (point, path, page, text)
            pointer.dragOther = nil
            setPointer(.text)
            return true
        case let .mouseMove(x, y):
            if pointer.drag != nil {
                select(to: pagePoint(x: x, y: y))
                return true
            }
            if !input.gestures.isPressed { setPointer(pagePoint(x: x, y: y).flatMap(link(at:)) == nil ? .arrow : .hand) }
            return false
        case let .mouseUp(.left, x, y, _) where pointer.drag != nil:
            select(to: pagePoint(x: x, y: y))
            pointer.drag = nil
            setPointer(.arrow)
            return true
        default:
            return false
        }
    }

    /// Ctrl+C (the key map's copy): the words selected onto the clipboard.
    func copySelection() {
        guard controller.book != nil else { return }
        if let text = selectedText {
            surface.copyToClipboard(text)
            let words = pointer.selection?.words.reduce(0) { $0 + $1.words.count } ?? 0
            titleNote = "copied \(words) word\(words == 1 ? "" : "s")"
        } else {
            showNotice("nothing selected: Shift + drag across a page selects its words")
        }
    }

    /// The words from the drag's start to `point` selected and marked: on the page it began
    /// on, or across to the other page of the spread (of the same document).
    private func select(to point: PagePoint?) {
        guard let drag = pointer.drag, let point else { return }
        let anchor = (drag.anchor.x, drag.anchor.y), images: [Int], words: [Selection]
        if point.image == drag.anchor.image {
            (images, words) = ([point.image], [Selection(page: drag.page, text: drag.text, from: anchor, to: (point.x, point.y))])
        } else {
            // Only the other page of the spread shown is ever under the pointer beside this one.
            guard abs(point.image - drag.anchor.image) == 1, let other = otherPage(point.image, of: drag.path), let text = other.text else { return }
            images = [min(point.image, drag.anchor.image), max(point.image, drag.anchor.image)]
            words = Selection.across(page: drag.page, text: drag.text, from: anchor, to: other.page, text: text, at: (point.x, point.y))
        }
        guard words != pointer.selection?.words else { return }
        let before = pointer.selection?.images ?? []
        pointer.selection = (drag.path, images, words)
        PageMarks.select(Dictionary(words.map { ($0.page, $0.boxes) }, uniquingKeysWith: +), of: drag.path)
        for image in Set(before + images) { marksChanged(image: image) }
    }

    /// Page image `image`'s page of document `path` and its words, read once a drag; nil when
    /// the image is not a page of that document.
    private func otherPage(_ image: Int, of path: String) -> (image: Int, page: Int, text: PageText?)? {
        if let known = pointer.dragOther, known.image == image { return known }
        guard let (p, page) = documentPage(image), p == path else { return nil }
        pointer.dragOther = (image, page, (try? configuration.documents.open(path).text(page: page)) ?? nil)
        return pointer.dragOther
    }

    /// Takes the selection away, and its marks off the pages.
    func clearSelection() {
        guard let old = pointer.selection else { return }
        pointer.selection = nil
        PageMarks.select([:], of: old.path)
        for image in old.images { marksChanged(image: image) }
    }

    private func setPointer(_ shape: PointerShape) {
        guard shape != pointer.shape else { return }
        pointer.shape = shape
        surface.setPointer(shape)
    }
}
