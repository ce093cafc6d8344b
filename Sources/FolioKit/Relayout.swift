import FolioBook
import FolioLayout
import FolioOverlay
import FolioPages
import FolioReader
import Foundation

/// A book laid out again at another text size, ready to be shown: `source` is the document
/// `document` in its new layout, `page` the page index holding the text that was shown first,
/// `mapping` where the old layout's pages went. Made on the relayout executor's thread
/// (`PipelineConfiguration.relayingOut`), applied on the pipeline's (`FramePipeline.apply`).
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

/// Why a relayout gave nothing, in words naming the file.
struct RelayoutFailure: Error {
    var message: String
}

/// The open reflowable book as a relayout sees it: the book, its document in the layout shown,
/// the spread shown and the document's page it starts with.
struct OpenReflowable {
    var book: Int
    var path: String
    var source: any ReflowableSource
    var spread: Int
    var shownPage: Int
}

/// The relayouts of a pipeline: the one running (on the executor it is given), the text size
/// and page shape asked for meanwhile, the place in the text they keep, and those finished,
/// waiting for a frame. Does not: look at the controller or the library (it is told what is
/// open), apply a relayout (the pipeline does), or read the clock.
final class Relayouts {
    /// Relayouts finished on the executor's threads, waiting for the next frame.
    private let inbox: Inbox<Result<DocumentRelaid, RelayoutFailure>>
    private let executor: any DecodeExecutor
    /// The text size asked for last, until the book shows it.
    private(set) var wantedTextSize: Double?
    private var running = false
    /// A frame waited `wait` for the running relayout in vain: later frames go on without it
    /// (a layout that never ends costs one wait, not one a frame).
    private var overdue = false
    /// The place in the text the last relayout kept, while the spread it landed on is shown:
    /// the next one keeps it too, not the spread's first page (which may come before it), so
    /// sizes stepped through one after another do not drift. `relayingFrom`: the running one's.
    private var landed: (book: Int, spread: Int, place: TextPlace)?
    private var relayingFrom: TextPlace?
    /// Documents whose whole layout was asked for (opened on their first chapters, the page
    /// count estimated), whether the running relayout is one, and one finished during a turn.
    private var wholeLayoutAsked: Set<String> = []
    private var layingOutWhole = false
    private var held: DocumentRelaid?
    /// The page shape the view asks of a reflowable book and since when, until the book is
    /// laid out for it: a resize settles before the book is laid out again.
    private var wantedPageShape: (aspect: Double, since: Double)?
    /// The typography books are laid out with (the host's engine reads it; a key steps it), and
    /// whether it changed while a relayout ran.
    var typography = Typography.standard
    private var restyled = false
    /// How long a frame waits for the relayout an earlier frame started
    /// (`PipelineConfiguration.waitsForLayouts`); nil: frames never wait.
    private let wait: TimeInterval?

    init(executor: any DecodeExecutor, wait: TimeInterval?, wake: @escaping @Sendable () -> Void) {
        (self.executor, self.wait) = (executor, wait)
        inbox = Inbox(wake: wake)
    }

    /// Asks for `open` laid out `step` points larger (smaller when negative) than asked last,
    /// within the sizes a reader has; returns the size asked for.
    func changeTextSize(by step: Double, of open: OpenReflowable) -> Double {
        let sizes = ReaderSettings.fontSizes
        let size = min(max((wantedTextSize ?? open.source.fontSize) + step, sizes.lowerBound), sizes.upperBound)
        wantedTextSize = size
        if !running { start(open, fontSize: size, pageAspect: open.source.pageAspect) }
        return size
    }

    /// Lays `open` out again at the size asked for last and its page shape: its typography
    /// changed (a relayout under way is followed by this one).
    func restyle(_ open: OpenReflowable) {
        if running { restyled = true } else { start(open, fontSize: wantedTextSize ?? open.source.fontSize, pageAspect: open.source.pageAspect) }
    }

    /// Whether the document at `path` may be laid out whole now: asked once, none running.
    func mayLayOutWhole(_ path: String) -> Bool { !running && !wholeLayoutAsked.contains(path) }

    /// Lays `open` out whole at its size and page shape (it opened on its first chapters).
    func layOutWhole(_ open: OpenReflowable) {
        wholeLayoutAsked.insert(open.path)
        layingOutWhole = true
        start(open, fontSize: open.source.fontSize, pageAspect: open.source.pageAspect)
    }

    /// When the next frame should come to lay the open book out for the view's page shape.
    var pageShapeWake: Double? { wantedPageShape.map { $0.since + FramePipeline.pageShapeSettles } }

    /// Lays `open` out for pages of `aspect` once the view has asked for it since
    /// `pageShapeSettles` before `now` (nil, either: nothing asked); a shape asked for while a
    /// relayout runs waits for it.
    func follow(pageAspect aspect: Double?, of open: OpenReflowable?, at now: Double) {
        guard let open, let aspect, !layingOutWhole else { wantedPageShape = nil; return }
        // Pages a unit or two wider or narrower are not worth a new layout.
        guard abs(aspect - open.source.pageAspect) * Book.referencePageHeight > 2 else { wantedPageShape = nil; return }
        if wantedPageShape?.aspect != aspect { wantedPageShape = (aspect, now) }
        guard let wanted = wantedPageShape, now >= wanted.since + FramePipeline.pageShapeSettles, !running else { return }
        wantedPageShape = nil
        start(open, fontSize: wantedTextSize ?? open.source.fontSize, pageAspect: aspect)
    }

    /// Hands the executor a layout of `open` at `fontSize` for pages of `pageAspect`, keeping
    /// the place landed on last while its spread is shown, else the first page shown.
    private func start(_ open: OpenReflowable, fontSize: Double, pageAspect: Double) {
        restyled = false
        let place = landed.flatMap { $0.book == open.book && $0.spread == open.spread ? $0.place : nil }
            ?? open.source.place(ofPage: open.shownPage)
        let (inbox, source, book, path) = (inbox, open.source, open.book, open.path)
        (running, overdue) = (true, false)
        relayingFrom = place
        executor.execute {
            do {
                let (relaid, page) = try source.relaid(fontSize: fontSize, pageAspect: pageAspect, keeping: place)
                inbox.post(.success(DocumentRelaid(book: book, document: path, source: relaid, page: page,
                                                   mapping: relaid.mapping(from: source))))
            } catch {
                inbox.post(.failure(RelayoutFailure(message: "\(error)")))
            }
        }
    }

    /// Hands over the relayouts finished since the last frame, in order: `apply` each (with
    /// whether it completes the layout of the same size), `fail` with a line for each that
    /// failed. A whole layout finished while `turning` is held until the turn is over. After
    /// each, starts the next when the text size asked for changed meanwhile (of `open`, as it
    /// is after the apply). With `wait`, the relayout started by an earlier frame is waited for,
    /// once: one that does not come within it is not waited for again.
    func take(turning: Bool, open: () -> OpenReflowable?, apply: (DocumentRelaid, _ completingLayout: Bool) -> Void,
              fail: (String) -> Void) {
        if let wait, running, !overdue {
            // In short waits, so that Ctrl-C (`Interrupt`) is heard.
            let deadline = Date(timeIntervalSinceNow: wait)
            while !inbox.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.25))) {
                if Interrupt.requested { break }
                if Date() >= deadline { overdue = true; break }
            }
        }
        if let held, !turning {
            self.held = nil
            apply(held, true)
        }
        for outcome in inbox.take() {
            running = false
            let whole = layingOutWhole
            layingOutWhole = false
            switch outcome {
            case let .success(event):
                // The pages already there stay the same: a turn under way plays on first.
                if whole, turning { held = event } else { apply(event, whole) }
                // Laid out again only as far as the place (another size or shape): the rest follows.
                if !whole { wholeLayoutAsked.remove(event.document) }
                if let wanted = wantedTextSize, wanted != event.source.fontSize, let open = open() {
                    start(open, fontSize: wanted, pageAspect: open.source.pageAspect)
                } else if restyled, let open = open() {
                    start(open, fontSize: event.source.fontSize, pageAspect: open.source.pageAspect)
                } else {
                    wantedTextSize = nil
                }
            case let .failure(failure):
                (wantedTextSize, relayingFrom) = (nil, nil)
                fail(failure.message)
            }
        }
    }

    /// `event` is shown, the reader on `spread`: the next relayout keeps the place this one
    /// kept while that spread is shown (not after a layout completed, which kept the page).
    func shown(_ event: DocumentRelaid, on spread: Int, completingLayout: Bool) {
        if !completingLayout { landed = (event.book, spread, relayingFrom ?? event.source.place(ofPage: event.page)) }
        relayingFrom = nil
    }
}

/// The open reflowable book laid out again as the reader asks: at another text size or
/// typography, whole once it opened on its first chapters, for the view's page shape; each
/// relayout applied by a frame, on the page holding the text shown. Does not: lay out (the
/// executor does, through `Relayouts`), or draw.
final class Reflow: PipelinePart {
    private let relayouts: Relayouts
    private var configuration: PipelineConfiguration { p.configuration }

    override init(_ pipeline: FramePipeline) {
        let configuration = pipeline.configuration
        relayouts = Relayouts(executor: configuration.relayingOut, wait: configuration.waitsForLayouts ? configuration.imageTimeout : nil,
                              wake: pipeline.surface.wake)
        super.init(pipeline)
    }

    /// Lays the open book out again `step` points larger (smaller when negative) in the
    /// background; the pages shown stay until the new layout is applied by a later frame, which
    /// lands on the page holding the text shown first now. Returns the text size asked for,
    /// or nil (with a notice) when the open book has fixed pages.
    @discardableResult
    func changeTextSize(by step: Double, at now: Double) -> Double? {
        guard let open = openReflowable else {
            if controller.book != nil, configuration.showsLayer { layer.answer("this book has fixed pages", at: now) }
            return nil
        }
        let size = relayouts.changeTextSize(by: step, of: open)
        if layer.typography != nil { layer.typography = ReaderLayer.typographyRows(typography, fontSize: size) }
        return size
    }

    /// Steps one part of the typography and lays the open book out with it, once `host` has
    /// set its engine's; a book of fixed pages says it has none.
    func changeTypography(_ choice: TypographyChoice, at now: Double, host: () -> Void) {
        guard let open = openReflowable else {
            if controller.book != nil, configuration.showsLayer { layer.answer("this book has fixed pages", at: now) }
            return
        }
        typography = choice.next(after: typography)
        host()
        relayouts.restyle(open)
        // The card shows every choice, the page laid out anew beside it.
        if configuration.showsLayer {
            layer.typography = ReaderLayer.typographyRows(typography, fontSize: wantedTextSize ?? open.source.fontSize)
            layer.fade.show(at: now)
        }
    }

    /// The text size asked for last, until the book shows it.
    var wantedTextSize: Double? { relayouts.wantedTextSize }

    /// The typography reflowable books are laid out with: the host sets its engine's to it when
    /// a key steps it (`Action.typography`).
    var typography: Typography {
        get { relayouts.typography }
        set { relayouts.typography = newValue }
    }

    /// The open book when it is one whole reflowable document, with the document and the page
    /// of it shown first.
    private var openReflowable: OpenReflowable? {
        guard let b = controller.book, let path = library.books[b].document, let source = configuration.documents.reflowable(path),
              library.books[b].pages.count == source.pageCount else { return nil }
        let shown = p.shownImage
        let pages = library.books[b].pages
        let index = pages.indices.contains(shown) ? pages[shown].documentPage?.index ?? 0 : 0
        return OpenReflowable(book: b, path: path, source: source, spread: controller.spread, shownPage: index)
    }

    /// Applies the relayouts finished, and starts those the open book needs now: laid out whole,
    /// or for the view's page shape. Called each frame.
    override func update(at now: Double) {
        takeRelayouts(at: now)
        layOutWhole()
        followPageShape(at: now)
    }

    /// Lays the open book out whole in the background when it opened on its first chapters:
    /// its page count, an estimate until then, is exact once that is applied. Called each
    /// frame, so it asks only a document already open (`opened`) and opens none.
    private func layOutWhole() {
        guard let b = controller.book, let path = library.books[b].document, relayouts.mayLayOutWhole(path),
              configuration.documents.opened(path)?.pagesEstimated == true, let open = openReflowable else { return }
        relayouts.layOutWhole(open)
    }

    /// When the next frame should come to lay the open book out for the view's page shape.
    override var wake: Double? { relayouts.pageShapeWake }

    /// Lays the open reflowable book out again, in the background, for the page shape its view
    /// asks (`Book.reflowAspect`: one page or two across the view) once the view has kept its
    /// size for `pageShapeSettles`; the pages shown stay meanwhile and the place is kept.
    /// Called each frame.
    private func followPageShape(at now: Double) {
        let open = configuration.followsPageShape ? openReflowable : nil
        let view = controller.settings.viewSize
        let single = controller.settings.style.orientation == .horizontal && controller.settings.pages.isSingle(viewSize: view)
        let aspect = open.map { _ in Book.reflowAspect(viewWidth: view.x, viewHeight: view.y, pagesAcross: single ? 1 : 2) }
        relayouts.follow(pageAspect: aspect, of: open, at: now)
    }

    /// Applies the relayouts finished since the last frame; starts the next one when the text
    /// size asked for changed meanwhile.
    private func takeRelayouts(at now: Double) {
        relayouts.take(turning: controller.phase == .turning, open: { openReflowable },
                       apply: { apply($0, at: now, completingLayout: $1) }, fail: { p.report($0) })
    }

    /// Shows book `event.book` in its new layout: its document replaced by the new one, its
    /// page caches replaced, the controller told its page count and put on the page holding
    /// the same text without a turn, and a notice with the size and the page count. An event
    /// for a book no longer shown as that document is dropped.
    func apply(_ event: DocumentRelaid, at now: Double) { apply(event, at: now, completingLayout: false) }

    /// `apply`; `completingLayout` when the book was laid out whole at the same size (its first
    /// pages unchanged): it stays on the page shown, its textures too, and says nothing.
    private func apply(_ event: DocumentRelaid, at now: Double, completingLayout: Bool) {
        guard library.books.indices.contains(event.book), library.books[event.book].document == event.document else { return }
        let sizeBefore = (configuration.documents.opened(event.document) as? any ReflowableSource)?.fontSize
        configuration.documents.replace(event.document, with: event.source)
        let count = event.source.pageCount
        let pages = (0..<count).map { PageRef.document(event.document, index: $0) }
        // Hits found in the old pages point at pages no longer there: the search is run again
        // on the new ones, the reader left where they are.
        let searchAgain = p.search.finding.flatMap { $0.book == event.book && pages != library.books[event.book].pages ? $0.search.phrase.text : nil }
        if pages != library.books[event.book].pages { p.search.end() }
        p.session.library.books[event.book].pages = pages
        // Laid out for another page shape: the book takes it.
        if let width = Book.pageWidth(paper: event.source.pageAspect, 1) {
            p.session.library.books[event.book].pageWidth = width
            p.session.library.books[event.book].pageHeight = Book.referencePageHeight
        }
        // Images of pages whose content stayed (a layout completed) stay.
        p.pages.relaid(book: event.book, in: library, mapping: event.mapping)
        p.needsRender = true
        let shown = completingLayout ? p.shownImage : event.page
        controller.relaid(book: event.book, as: library.bookInfos[event.book],
                          showing: PageImage(index: shown).layoutPage, at: now, mapping: event.mapping.page)
        p.session.forgetSaved(book: event.book)
        // Bookmarks are pages of a layout: their ribbons move with it.
        if controller.book == event.book { p.highlights.show(of: library.books[event.book]) }
        if let phrase = searchAgain, controller.book == event.book { p.search.start(phrase, at: now, turnsToFirstHit: false) }
        relayouts.shown(event, on: controller.spread, completingLayout: completingLayout)
        guard !completingLayout else { return }
        let size = event.source.fontSize
        let what = size == sizeBefore ? "laid out for the window" : "text \(size.rounded() == size ? String(Int(size)) : String(size)) pt"
        p.showNotice("\(what) — \(event.source.pagesEstimated ? "≈" : "")\(count) page\(count == 1 ? "" : "s")")
    }
}
