import FolioReader
import FolioBook
import FolioFind
import FolioInput
import FolioPlatform

/// The pointer over the open book's pages, besides turning them: over a link it becomes a hand
/// (a click follows it: `FramePipelineDelegate.pipeline(_:clickedAt:at:)`); Shift + drag selects
/// words, on one page or across the two of a spread, marked on the paper as search hits are,
/// and Ctrl+C copies them to the clipboard.
final class PagePointer: PipelinePart {
    /// The links of the page looked at last: a document call per page, not per move.
    private var links: (page: PageRef, links: [PageLink])?
    private var shape: PointerShape = .arrow
    /// A drag selecting words: the point it began at, the page's document, index and words.
    private var drag: (anchor: PagePoint, path: String, page: Int, text: PageText)?
    /// The other page of the spread once the drag has reached it: its image and words (nil:
    /// none, or not of the same document), read once a drag.
    private var dragOther: (image: Int, page: Int, text: PageText?)?
    /// The words selected last in document `path`, a part per page image `images`, in page order.
    private(set) var selection: (path: String, images: [Int], words: [Selection])?

    /// The document page image `image` of the open book shows; nil for an image file.
    private func documentPage(_ image: Int) -> (path: String, index: Int)? {
        guard let b = controller.book, p.library.books[b].pages.indices.contains(image) else { return nil }
        return p.library.books[b].pages[image].documentPage
    }

    private func pagePoint(x: Double, y: Double) -> PagePoint? {
        PagePoint.under(p.input.gestures.mapping.layoutPoint(x: x, y: y), controller: controller)
    }

    /// The link at `point` of the open book; nil where there is none.
    func link(at point: PagePoint) -> PageLink? {
        guard let b = controller.book, let (path, page) = documentPage(point.image) else { return nil }
        let shown = p.library.books[b].pages[point.image]
        if links?.page != shown {
            links = (shown, (try? p.configuration.documents.open(path))?.links(page: page) ?? [])
        }
        return links?.links.link(atX: point.x, y: point.y)
    }

    /// The words selected in the open book as Ctrl+C copies them; nil when none are.
    var selectedText: String? {
        selection.map { $0.words.map(\.text).filter { !$0.isEmpty }.joined(separator: "\n") }
    }

    /// Shift + drag, and the pointer's shape over links: true when the event was used up.
    func takes(_ event: InputEvent, at now: Double) -> Bool {
        switch event {
        case let .mouseDown(.left, x, y, modifiers):
            // A plain click lets the selection go and does nothing else (it turns no page).
            if !modifiers.contains(.shift), selection != nil {
                clear()
                return true
            }
            clear()
            guard modifiers.contains(.shift), let point = pagePoint(x: x, y: y), let (path, page) = documentPage(point.image) else {
                return false
            }
            guard let text = (try? p.configuration.documents.open(path).text(page: page)) ?? nil else {
                p.showNotice("this page has no text to select")
                return true
            }
            drag = (point, path, page, text)
            dragOther = nil
            setPointer(.text)
            return true
        case let .mouseMove(x, y):
            if drag != nil {
                select(to: pagePoint(x: x, y: y))
                return true
            }
            if !p.input.gestures.isPressed { setPointer(pagePoint(x: x, y: y).flatMap(link(at:)) == nil ? .arrow : .hand) }
            return false
        case let .mouseUp(.left, x, y, _) where drag != nil:
            select(to: pagePoint(x: x, y: y))
            drag = nil
            setPointer(.arrow)
            return true
        default:
            return false
        }
    }

    /// Ctrl+C (the key map's copy): the words selected onto the clipboard.
    func copy() {
        guard controller.book != nil else { return }
        if let text = selectedText {
            p.surface.copyToClipboard(text)
            let words = selection?.words.reduce(0) { $0 + $1.words.count } ?? 0
            p.titleNote = "copied \(words) word\(words == 1 ? "" : "s")"
        } else {
            p.showNotice("nothing selected: Shift + drag across a page selects its words")
        }
    }

    /// The words from the drag's start to `point` selected and marked: on the page it began
    /// on, or across to the other page of the spread (of the same document).
    private func select(to point: PagePoint?) {
        guard let drag = drag, let point else { return }
        let anchor = (drag.anchor.x, drag.anchor.y), images: [Int], words: [Selection]
        if point.image == drag.anchor.image {
            (images, words) = ([point.image], [Selection(page: drag.page, text: drag.text, from: anchor, to: (point.x, point.y))])
        } else {
            // Only the other page of the spread shown is ever under the pointer beside this one.
            guard abs(point.image - drag.anchor.image) == 1, let other = otherPage(point.image, of: drag.path), let text = other.text else { return }
            images = [min(point.image, drag.anchor.image), max(point.image, drag.anchor.image)]
            words = Selection.across(page: drag.page, text: drag.text, from: anchor, to: other.page, text: text, at: (point.x, point.y))
        }
        guard words != selection?.words else { return }
        let before = selection?.images ?? []
        selection = (drag.path, images, words)
        p.marks.select(Dictionary(words.map { ($0.page, $0.boxes) }, uniquingKeysWith: +), of: drag.path)
        for image in Set(before + images) { p.marksChanged(image: image) }
    }

    /// Page image `image`'s page of document `path` and its words, read once a drag; nil when
    /// the image is not a page of that document.
    private func otherPage(_ image: Int, of path: String) -> (image: Int, page: Int, text: PageText?)? {
        if let known = dragOther, known.image == image { return known }
        guard let (other, page) = documentPage(image), other == path else { return nil }
        dragOther = (image, page, (try? p.configuration.documents.open(path).text(page: page)) ?? nil)
        return dragOther
    }

    /// Takes the selection away, and its marks off the pages.
    func clear() {
        guard let old = selection else { return }
        selection = nil
        p.marks.select([:], of: old.path)
        for image in old.images { p.marksChanged(image: image) }
    }

    private func setPointer(_ shape: PointerShape) {
        guard shape != self.shape else { return }
        self.shape = shape
        p.surface.setPointer(shape)
    }
}
