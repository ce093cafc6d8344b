import Foundation

/// A book laid out again at another text size, ready to be shown: `source` is the document
/// `document` in its new layout, `page` the page index holding the text that was shown first,
/// `mapping` where the old layout's pages went. Made on a background thread, applied on the
/// pipeline's (`FramePipeline.apply`).
public struct DocumentRelaid: Sendable {
    public var book: Int
    public var document: String
    public var source: any ReflowableSource
    public var page: Int
    public var mapping: PageMapping

    public init(book: Int, document: String, source: any ReflowableSource, page: Int, mapping: PageMapping) {
        (self.book, self.document, self.source, self.page, self.mapping) = (book, document, source, page, mapping)
    }
}

/// Relayouts finished on other threads, waiting for the next frame; posting one wakes the
/// viewer's loop. Thread-safe. Does not: lay anything out, or apply what it holds.
final class RelayoutInbox: @unchecked Sendable {
    // @unchecked: `waiting` is only touched under `lock`.
    private let lock = NSLock()
    private var waiting: [Result<DocumentRelaid, RelayoutFailure>] = []
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    func post(_ outcome: Result<DocumentRelaid, RelayoutFailure>) {
        lock.withLock { waiting.append(outcome) }
        wake()
    }

    func take() -> [Result<DocumentRelaid, RelayoutFailure>] {
        lock.withLock {
            defer { waiting = [] }
            return waiting
        }
    }
}

/// Why a relayout gave nothing, in words naming the file.
struct RelayoutFailure: Error {
    var message: String
}

// MARK: Relayout

extension FramePipeline {
    /// Lays the open book out again `step` points larger (smaller when negative) in the
    /// background; the pages shown stay until the new layout is applied by a later frame, which
    /// lands on the page holding the text shown first now. Returns the text size asked for,
    /// or nil (with a notice) when the open book has fixed pages.
    @discardableResult
    public func changeTextSize(by step: Double, at now: Double) -> Double? {
        guard let (b, path, source) = openReflowable else {
            if controller.book != nil, configuration.showsLayer { layer.answer("this book has fixed pages", at: now) }
            return nil
        }
        let sizes = ReaderSettings.fontSizes
        let size = min(max((wantedTextSize ?? source.fontSize) + step, sizes.lowerBound), sizes.upperBound)
        wantedTextSize = size
        if !relayoutRunning { startRelayout(book: b, document: path, from: source, fontSize: size, pageAspect: source.pageAspect) }
        return size
    }

    /// The open book when it is one whole reflowable document, with the document.
    private var openReflowable: (book: Int, path: String, source: any ReflowableSource)? {
        guard let b = controller.book, let path = library.books[b].document, let source = configuration.documents.reflowable(path),
              library.books[b].pages.count == source.pageCount else { return nil }
        return (b, path, source)
    }

    /// Lays the open book out whole in the background when it opened on its first chapters:
    /// its page count, an estimate until then, is exact once that is applied. Called each
    /// frame, so it asks only a document already open (`opened`) and opens none.
    func layOutWhole() {
        guard !relayoutRunning, let b = controller.book, let path = library.books[b].document, !wholeLayoutAsked.contains(path),
              configuration.documents.opened(path)?.pagesEstimated == true,
              let (_, _, source) = openReflowable else { return }
        wholeLayoutAsked.insert(path)
        layingOutWhole = true
        startRelayout(book: b, document: path, from: source, fontSize: source.fontSize, pageAspect: source.pageAspect)
    }

    /// Seconds a view keeps its size before the book is laid out for it: a window dragged to a
    /// new size is laid out once, for the size it ends at.
    public static let pageShapeSettles = 0.4

    /// When the next frame should come to lay the open book out for the view's page shape.
    public var pageShapeWake: Double? { wantedPageShape.map { $0.since + Self.pageShapeSettles } }

    /// Lays the open reflowable book out again, in the background, for the page shape its view
    /// asks (`Book.reflowAspect`: one page or two across the view) once the view has kept its
    /// size for `pageShapeSettles`; the pages shown stay meanwhile and the place is kept.
    /// Called each frame; a shape asked for while a relayout runs waits for it.
    func followPageShape(at now: Double) {
        guard configuration.followsPageShape, let (b, path, source) = openReflowable, !layingOutWhole else { wantedPageShape = nil; return }
        let view = controller.settings.viewSize
        let single = controller.settings.style.orientation == .horizontal && controller.settings.pages.isSingle(viewSize: view)
        let aspect = Book.reflowAspect(viewWidth: view.x, viewHeight: view.y, pagesAcross: single ? 1 : 2)
        // Pages a unit or two wider or narrower are not worth a new layout.
        guard abs(aspect - source.pageAspect) * Book.referencePageHeight > 2 else { wantedPageShape = nil; return }
        if wantedPageShape?.aspect != aspect { wantedPageShape = (aspect, now) }
        guard let wanted = wantedPageShape, now >= wanted.since + Self.pageShapeSettles, !relayoutRunning else { return }
        wantedPageShape = nil
        startRelayout(book: b, document: path, from: source, fontSize: wantedTextSize ?? source.fontSize, pageAspect: aspect)
    }

    private func startRelayout(book b: Int, document path: String, from source: any ReflowableSource, fontSize: Double, pageAspect: Double) {
        let shown = (controller.shownPages.first ?? 1) - 1
        let pages = library.books[b].pages
        let index = pages.indices.contains(shown) ? pages[shown].documentPage?.index ?? 0 : 0
        let place = landed.flatMap { $0.book == b && $0.spread == controller.spread ? $0.place : nil } ?? source.place(ofPage: index)
        let inbox = relayouts
        relayoutRunning = true
        relayingFrom = place
        Thread.detachNewThread {
            do {
                let (relaid, page) = try source.relaid(fontSize: fontSize, pageAspect: pageAspect, keeping: place)
                inbox.post(.success(DocumentRelaid(book: b, document: path, source: relaid, page: page,
                                                   mapping: relaid.mapping(from: source))))
            } catch {
                inbox.post(.failure(RelayoutFailure(message: "\(error)")))
            }
        }
    }

    /// Applies the relayouts finished since the last frame; starts the next one when the text
    /// size asked for changed meanwhile.
    func takeRelayouts(at now: Double) {
        if let held = heldWholeLayout, controller.phase != .turning {
            heldWholeLayout = nil
            apply(held, at: now, completingLayout: true)
        }
        for outcome in relayouts.take() {
            relayoutRunning = false
            let whole = layingOutWhole
            layingOutWhole = false
            switch outcome {
            case let .success(event):
                // The pages already there stay the same: a turn under way plays on first.
                if whole, controller.phase == .turning { heldWholeLayout = event } else { apply(event, at: now, completingLayout: whole) }
                if let wanted = wantedTextSize, wanted != event.source.fontSize, let (b, path, source) = openReflowable {
                    startRelayout(book: b, document: path, from: source, fontSize: wanted, pageAspect: source.pageAspect)
                } else {
                    wantedTextSize = nil
                }
            case let .failure(failure):
                (wantedTextSize, relayingFrom) = (nil, nil)
                report(failure.message)
            }
        }
    }

    /// Shows book `event.book` in its new layout: its document replaced by the new one, its
    /// page caches replaced, the controller told its page count and put on the page holding
    /// the same text without a turn, and a notice with the size and the page count. An event
    /// for a book no longer shown as that document is dropped.
    public func apply(_ event: DocumentRelaid, at now: Double) { apply(event, at: now, completingLayout: false) }

    /// `apply`; `completingLayout` when the book was laid out whole at the same size (its first
    /// pages unchanged): it stays on the page shown, its textures too, and says nothing.
    private func apply(_ event: DocumentRelaid, at now: Double, completingLayout: Bool) {
        guard library.books.indices.contains(event.book), library.books[event.book].document == event.document else { return }
        let sizeBefore = (configuration.documents.opened(event.document) as? any ReflowableSource)?.fontSize
        configuration.documents.replace(event.document, with: event.source)
        let count = event.source.pageCount
        let pages = (0..<count).map { PageRef.document(event.document, index: $0) }
        // Hits found in the old pages point at pages no longer there.
        if pages != library.books[event.book].pages { endSearch() }
        session.library.books[event.book].pages = pages
        // Laid out for another page shape: the book takes it.
        if let width = Book.pageWidth(firstPage: event.source.pageAspect, 1) {
            session.library.books[event.book].pageWidth = width
            session.library.books[event.book].pageHeight = Book.referencePageHeight
        }
        // Images of pages whose content stayed (a layout completed) stay.
        self.pages.relaid(book: event.book, in: library, mapping: event.mapping)
        needsRender = true
        let shown = completingLayout ? (controller.shownPages.first ?? 1) - 1 : event.page
        controller.relaid(book: event.book, as: library.bookInfos[event.book],
                          showing: BookInfo.layoutPage(number: shown + 1), at: now, mapping: event.mapping.page)
        session.forgetSaved(book: event.book)
        guard !completingLayout else { relayingFrom = nil; return }
        landed = (event.book, controller.spread, relayingFrom ?? event.source.place(ofPage: event.page))
        relayingFrom = nil
        let size = event.source.fontSize
        let what = size == sizeBefore ? "laid out for the window" : "text \(size.rounded() == size ? String(Int(size)) : String(size)) pt"
        showNotice("\(what) — \(count) page\(count == 1 ? "" : "s")")
    }
}
