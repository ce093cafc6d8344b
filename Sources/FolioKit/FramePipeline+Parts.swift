import FolioBook
import FolioInput
import FolioLayout
import FolioMath
import FolioOverlay
import FolioReader

// The pipeline's side that its parts and its host see: the actions that are not the
// controller's, carried out by the part they belong to, what the parts show of themselves,
// and the on-screen layer they all write to.
extension FramePipeline {
    /// One event, at the time it happened.
    public func handle(_ timed: TimedInputEvent) { input.route(timed, to: self) }

    /// Carries out an action that is not the controller's (`Action.isBookState`).
    func carryOut(_ action: Action, at now: Double) {
        switch action {
        case .toggleFullscreen: surface.toggleFullscreen()
        case .quit: isRunning = false
        case .help where configuration.showsLayer:
            layer.helpShown.toggle()
            if layer.helpShown { delegate?.pipeline(self, asksFor: action, at: now) }
        case .overview: overview.toggle()
        case .find: search.openField(at: now)
        case .contents: contents.show(at: now)
        case .sortShelf: shelfSorter.sortNext(at: now)
        case .copy: pointer.copy()
        case .highlight: highlights.highlight(at: now)
        case .annotate: highlights.annotate(at: now)
        case .removeHighlight: highlights.removeSelected(at: now)
        case .notes: highlights.showPanel(at: now)
        case .lookUp: highlights.lookUp(at: now)
        case .saveFilled: form.saveCopy()
        case .readAloud: readAloud.toggle(at: now)
        case .stopReading: readAloud.stop()
        case .speechFaster, .speechSlower: readAloud.changeRate(by: action == .speechFaster ? 1 : -1)
        case .nextHit, .previousHit: search.turnToHit(forward: action == .nextHit, at: now)
        case .screenshot, .help, .openFile, .toggleBookmark, .nextBookmark, .back:
            delegate?.pipeline(self, asksFor: action, at: now)
        case .textLarger, .textSmaller:
            // The host remembers the size started.
            if reflow.changeTextSize(by: action == .textLarger ? 1 : -1, at: now) != nil { delegate?.pipeline(self, asksFor: action, at: now) }
        case let .typography(choice):
            // The host sets its engine's typography before the book is laid out with it.
            reflow.changeTypography(choice, at: now) { delegate?.pipeline(self, asksFor: action, at: now) }
        case .cycleTheme, .toggleShowThrough:
            if action == .cycleTheme { renderer.settings.theme = renderer.settings.theme.next } else { renderer.settings.showThrough.toggle() }
            needsRender = true
            // The host may remember it.
            delegate?.pipeline(self, asksFor: action, at: now)
        default: break
        }
    }

    /// Escape, once the panels, popups and fields before it have had their turn: it clears a
    /// selection, else the search and its marks, else leaves full screen; only then does the key
    /// map's Escape close the book. True when used up.
    func escapeTakes() -> Bool {
        if pointer.selection != nil {
            pointer.clear()
        } else if search.finding != nil || layer.searchLine != nil {
            search.end()
            layer.searchLine = nil
            needsRender = true
        } else if surface.isFullscreen {
            surface.toggleFullscreen()
        } else {
            return false
        }
        return true
    }

    /// Turns to page image `n` (1-based) of the open book, clamped to its pages: a turn like any
    /// key's (kept while the book opens, heard by the delegate).
    func goToPage(_ n: Int, at now: Double) {
        guard let b = controller.book else { return }
        if configuration.showsLayer, let answer = ReaderLayer.missingPage(n, count: library.books[b].pages.count) {
            layer.answer(answer, at: now)
            return
        }
        perform(.goTo(PageImage(number: clamp(n, 1, max(1, library.books[b].pages.count)))), at: now, origin: .key)
    }

    /// What the reader marked on the pages of the documents this pipeline opens.
    var marks: PageMarks { configuration.documents.marks }

    /// Whether the overview of the open book is shown.
    public var overviewShown: Bool { overview.isShown }

    /// The overview as it is drawn now, scrolled as it is (nil when not shown, or no book is open).
    public var shownOverview: Overview? { overview.shown }

    /// The link at `point` of the open book; nil where there is none.
    public func link(at point: PagePoint) -> PageLink? { pointer.link(at: point) }

    /// The words selected in the open book as Ctrl+C copies them; nil when none are.
    public var selectedText: String? { pointer.selectedText }

    /// The open book's bookmarks changed or were gone through (M, Shift+M): every mark's ribbon
    /// painted, on the pages shown at once.
    public func bookmarksChanged() { highlights.bookmarksChanged() }

    /// Lays the open book out again `step` points larger (smaller when negative) in the
    /// background; the pages shown stay until the new layout is applied by a later frame, which
    /// lands on the page holding the text shown first now. Returns the text size asked for,
    /// or nil (with a notice) when the open book has fixed pages.
    @discardableResult
    public func changeTextSize(by step: Double, at now: Double) -> Double? { reflow.changeTextSize(by: step, at: now) }

    /// The text size asked for last, until the book shows it.
    public var wantedTextSize: Double? { reflow.wantedTextSize }

    /// The typography reflowable books are laid out with: the host sets its engine's to it when
    /// a key steps it (`Action.typography`).
    public var typography: Typography {
        get { reflow.typography }
        set { reflow.typography = newValue }
    }

    /// Seconds a view keeps its size before the book is laid out for it: a window dragged to a
    /// new size is laid out once, for the size it ends at.
    public static let pageShapeSettles = 0.4

    /// When the next frame should come to lay the open book out for the view's page shape.
    public var pageShapeWake: Double? { reflow.wake }

    /// Shows book `event.book` in its new layout: its document replaced by the new one, its
    /// page caches replaced, the controller told its page count and put on the page holding
    /// the same text without a turn, and a notice with the size and the page count. An event
    /// for a book no longer shown as that document is dropped.
    public func apply(_ event: DocumentRelaid, at now: Double) { reflow.apply(event, at: now) }

    /// Searches `phrase` in every book as it opens, as if typed in its search field
    /// (`folio view --search`); nil stops.
    public func searchEveryBook(for phrase: String?) { search.searchEveryBook(for: phrase) }

    /// Shows a note's text over the page (a note's reference clicked), a row for each link it
    /// holds: Escape or a click closes it; a click on a link's row follows it
    /// (`FramePipelineDelegate.pipeline(_:follows:from:at:)`).
    public func showNote(_ text: String, links: [NoteLink] = [], at now: Double) { layerControls.showNote(text, links: links, at: now) }
}

// MARK: On-screen layer

extension FramePipeline {
    /// The on-screen layer's state: what it shows in which state, its fades.
    public internal(set) var layer: LayerState {
        get { screenLayer.state }
        set { screenLayer.state = newValue }
    }

    /// Draws `content` over the frame in `target` at `opacity` (scripted frames: captures with
    /// `--ui`, tests), at the surface's pixel density. False, with a problem reported, when the
    /// layer's shaders cannot be built.
    @discardableResult
    public func drawLayer(_ content: OverlayContent, opacity: Double = 1) -> Bool {
        do {
            return try screenLayer.draw(layerLayout.panels(content), opacity: opacity, into: target, renderer: renderer,
                                        shaders: configuration.shaders)
        } catch {
            report("the on-screen layer cannot be drawn: \(error)")
            return false
        }
    }

    /// Shows `line` as a notice on the layer for a few seconds: a problem the host met and
    /// reported itself (a document of the library that could not be opened).
    public func showNotice(_ line: String) {
        guard configuration.showsLayer else { return }
        layer.notice(line, at: surface.time)
        needsRender = true
    }

    /// What the layer shows now in the live reader.
    public var layerContent: OverlayContent { content(layer) }

    /// What the layer shows in `state` now in the live reader.
    private func content(_ state: LayerState) -> OverlayContent {
        ReaderLayer.content(library: library, documents: configuration.documents, phase: controller.phase, book: controller.book, spread: controller.spread,
                            singlePage: controller.singlePage, scroll: controller.scroll, state: state, theme: renderer.settings.theme)
    }

    var layerLayout: OverlayLayout {
        ReaderLayer.layout(width: target.width, height: target.height, scale: surface.contentScale)
    }

    /// Moves the layer on to `now`: it stays while something in it waits for the reader (and on
    /// the shelf), lines past their time go, and a changed look asks for a frame.
    func updateLayer(at now: Double) {
        guard configuration.showsLayer else { return }
        let mode = controller.settings.pages
        if let seen = screenLayer.pageMode, seen != mode, controller.book != nil {
            layer.answer(ReaderLayer.pageModeLine(mode, singlePage: controller.singlePage), at: now)
        }
        screenLayer.pageMode = mode
        if let b = controller.book {
            layer.timeLeft = session.timeLeft(book: b, last: controller.shownPages.last)
        } else if !library.books.isEmpty {
            layer.shelfRead = session.readFraction(ofBook: min(max(Int(controller.scroll.rounded()), 0), library.books.count - 1))
        }
        if screenLayer.update(at: now, stays: controller.phase == .shelf, content: content) { needsRender = true }
    }
}

/// A part of the pipeline: a reader's tool that owns its state and reaches the rest through
/// the pipeline it belongs to — its door for actions (`perform`), its layer, its page images.
/// Each frame the pipeline moves its parts on (`update`) and sleeps no later than the earliest
/// `wake` they ask for. Does not: outlive its pipeline (which holds it).
class PipelinePart {
    unowned let p: FramePipeline
    var controller: BookController { p.controller }
    var library: Library { p.library }
    var layer: LayerState {
        get { p.layer }
        set { p.layer = newValue }
    }

    init(_ pipeline: FramePipeline) { p = pipeline }

    /// Moves on to `now` (each frame): what finished in the background is taken, what the
    /// reading state changed is followed.
    func update(at now: Double) {}

    /// When the loop should wake for this part with no event; nil: only for events.
    var wake: Double? { nil }

    /// The book open when `whenABookOpens` last looked.
    private var seenBook: Int?

    /// Calls `body` with the open book once each time another one opens (not when it closes).
    func whenABookOpens(_ body: (Book) -> Void) {
        guard controller.book != seenBook else { return }
        seenBook = controller.book
        if let b = controller.book { body(library.books[b]) }
    }
}
