import FolioBook
import FolioFind
import FolioImage
import FolioInput
import FolioLayout
import FolioMath
import FolioOverlay
import FolioPages
import FolioPlatform
import FolioReader
import FolioRender
import Foundation

/// The one way Folio makes frames, for every host: the viewer, capture, record, bench, the
/// render tests and embedding programs. It takes input events stamped with their time and
/// produces frames onto a `Surface`, a thin loop over its parts, each owning its state: the
/// reading session (the books and the controller, `ReadingSession`), the input
/// (`InputRouter`: events to actions), the page images and their uploads (`PageImages`), the
/// on-screen layer (`OnScreenLayer`), the renderer, and the reader's tools (`WindowSearch`,
/// `PagePointer`, `PageHighlights`, `OverviewPart`, `ContentsPanel`, `LayerControls`,
/// `FormFilling`, `ReadAloud`, `ShelfSorter`, `Reflow`). Every action, whoever asks for it,
/// goes through `perform`: the book's state to the controller, the rest to its part.
///
/// Two ways to drive it. Live (a window): `run()`, or `handle(_:)` each event and `frame(at:)`
/// each turn of the host's own loop; frames are drawn only while something changes. Scripted
/// (captures, recordings, tests): `draw(_:)` any scene, then read `target`.
///
/// Images flow one way: the `PageStore` decodes pages, uploads them within `uploadBudgetBytes`
/// a frame (faces on screen first, then prefetched ones) through `PageTextures` and frees the
/// textures of the pages it lets go; the renderer only looks textures up.
///
/// Frames are drawn into an offscreen framebuffer and presented: the renderer's cached layer
/// and dirty rectangles need a target that keeps its content between frames, and screenshots
/// read it back. Does not: open windows, parse options or write files. Thread: the surface's.
public final class FramePipeline {
    public let surface: any Surface
    public let renderer: Renderer
    /// The books shown, the controller reading them and where each was left.
    public let session: ReadingSession
    public var controller: BookController { session.controller }
    /// The books shown (`replaceLibrary` shows others).
    public var library: Library { session.library }
    public weak var delegate: FramePipelineDelegate?
    /// Page images from memory for the books it supplies (see `PageContentSource`).
    public weak var contentSource: PageContentSource? {
        didSet { replaceImages() }
    }
    public let configuration: PipelineConfiguration
    /// The frame drawn last.
    public private(set) var target: Framebuffer
    /// The page store, its textures and the uploads waiting (`PageImages.swift`).
    let images: PageImages
    var pages: PageStore { images.store }
    private var samples: Int
    // Live loop state.
    /// Events on their way to actions (`PipelineInput.swift`).
    let input: InputRouter
    var needsRender = true
    var needsPresent = true
    /// False once the surface closed or a key quit.
    public internal(set) var isRunning = true
    private var title = ""
    /// A note the application adds to the window title (a search's "3 of 17", a bookmark made,
    /// "back to page 3"): it stays while the reader stays where the move it tells of landed,
    /// and goes when they move on (or close the book).
    public var titleNote = "" {
        didSet { noteLanding = nil }
    }
    /// The spread the note's move landed on, once it has.
    private var noteLanding: Int?
    /// The on-screen layer (`PipelineLayer.swift`).
    let screenLayer = OnScreenLayer()
    /// Relayouts of the open reflowable book (`Relayout.swift`).
    lazy var reflow = Reflow(self)
    /// The layer's cards, bar and page-number entry.
    lazy var layerControls = LayerControls(self)
    /// The contents panel.
    lazy var contents = ContentsPanel(self)
    /// The search typed in the window, while its hits are shown.
    lazy var search = WindowSearch(self)
    /// Links under the pointer, the words it selects.
    lazy var pointer = PagePointer(self)
    /// The reader's highlights and notes.
    lazy var highlights = PageHighlights(self)
    /// The book read aloud.
    lazy var readAloud = ReadAloud(self)
    /// The parts that move on with each frame, in order: relayouts applied first, so that the
    /// others see the book as it is now laid out.
    private lazy var frameParts: [PipelinePart] = [reflow, highlights, form, search, readAloud]
    /// The shelf's order, once Tab changed it.
    lazy var shelfSorter = ShelfSorter(self)
    /// The form of the open book, filled in.
    lazy var form = FormFilling(self)
    /// The overview of the open book.
    lazy var overview = OverviewPart(self)

    /// Makes the renderer and the first frame's target on `surface`, whose context must be
    /// current. The pipeline owns the surface from here: `destroy()` frees both.
    public init(surface: any Surface, library: Library, configuration: PipelineConfiguration,
                settings: BookController.Settings = .init()) throws {
        self.surface = surface
        session = ReadingSession(library: library, settings: settings, positions: configuration.positions, documents: configuration.documents)
        self.configuration = configuration
        renderer = try Renderer(shaders: configuration.shaders, settings: .defaults(software: GLInfo.isSoftware))
        renderer.settings.printedBooks = library.printedBooks
        samples = configuration.samples ?? renderer.settings.samples
        let (w, h) = surface.framebufferSize
        input = InputRouter(mapping: ViewMapping(width: w, height: h, viewSize: configuration.baseView))
        images = PageImages(library: library, configuration: configuration, filtering: configuration.filtering ?? .forCurrentRenderer,
                            height: h, wake: surface.wake)
        do {
            target = try Framebuffer(width: max(w, 1), height: max(h, 1), samples: samples)
        } catch {
            renderer.destroy()
            throw error
        }
        fitView(width: w, height: h)
    }

    /// Shows `library` instead: new page images and a new controller on the shelf, with the
    /// settings, the delegate and the data source of the one before.
    public func replaceLibrary(_ library: Library) {
        guard library != self.library else { return }
        shelfSorter.forget()
        startOver(library) { session.replace(library: library) }
    }

    /// `begin` makes `library` the session's; then it gets its own page images (and the search
    /// of other books ends).
    private func startOver(_ library: Library, _ begin: () -> Void) {
        if library != self.library { search.end() }
        begin()
        renderer.settings.printedBooks = library.printedBooks
        replaceImages()
    }

    /// Frees the GL objects, then the surface.
    public func destroy() {
        search.cancel()
        images.destroy()
        screenLayer.destroy()
        target.destroy()
        renderer.destroy()
        surface.destroy()
    }

    /// The content source has new images: faces it supplies are asked again.
    public func contentChanged() {
        pages.contentChanged()
        needsRender = true
    }

    /// The marks on pages (`PageMarks`) changed: the pages are rasterised again to show them.
    public func marksChanged() { replaceImages() }

    /// The marks on page image `image` of the open book changed: it is rendered again, its old
    /// image shown until then.
    func marksChanged(image: Int) {
        guard let b = controller.book else { return }
        pages.redraw(book: b, images: [PageImage(index: image)])
        needsRender = true
    }

    /// The page image the open spread starts at.
    var shownImage: Int { controller.shownPages.first?.index ?? 0 }

    /// The marks on pages `documentPages` of the document at `path` changed: those of book
    /// `book`'s images held are rendered again (crops of zoomed pages included), nothing else.
    func marksChanged(pages documentPages: Set<Int>, of path: String, book: Int) {
        guard !documentPages.isEmpty, library.books.indices.contains(book) else { return }
        let refs = Set(documentPages.map { PageRef.document(path, index: $0) })
        let images = library.books[book].pages
        pages.redraw(book: book, images: Set(images.indices.filter { refs.contains(images[$0]) }.map(PageImage.init(index:))))
        needsRender = true
    }

    /// A new page store over the library (decoding for the old one stops) and no textures.
    func replaceImages() {
        images.replace(library: library, height: target.height, contentSource: contentSource)
        needsRender = true
    }

    // MARK: Scripted frames

    /// Draws `scene` into `target`. With `waitsForImages`, first waits for the images it shows.
    public func draw(_ scene: Scene) {
        if let shown = scene.displayHeight(width: target.width, height: target.height) { pages.setDisplayHeight(shown) }
        prepareImages(for: scene)
        renderer.draw(images.decorate(scene, width: target.width, height: target.height).scene, into: target, textures: images.textures)
    }

    /// Tells the page store what `scene` shows and uploads what is decoded (`PageImages.prepare`);
    /// reports what went wrong. Returns the images shown that got a texture.
    @discardableResult
    private func prepareImages(for scene: Scene) -> Set<PageKey> {
        let prepared = images.prepare(scene)
        // One deadline per page per run: later frames draw it as paper without waiting again
        // (a page that never finishes would otherwise hold every frame of a recording).
        if prepared.late {
            report("page images still loading after \(Int(configuration.imageTimeout)) s are drawn as blank paper, "
                + "without waiting for them again")
        }
        reportProblems()
        return prepared.uploaded
    }

    /// Makes the target `width × height` with `samples` (nil: as configured); false, with a
    /// problem reported, when no such framebuffer can be made (the old one stays).
    @discardableResult
    public func resizeTarget(width: Int, height: Int, samples: Int? = nil) -> Bool {
        let s = samples ?? self.samples
        guard target.width != width || target.height != height || s != self.samples else { return true }
        do {
            let resized = try Framebuffer(width: width, height: height, samples: s)
            target.destroy()
            target = resized
            self.samples = s
            needsRender = true
            return true
        } catch {
            report("cannot draw at \(width)×\(height): \(error)")
            return false
        }
    }

    /// Starts over as a new pipeline on `library` would — new page images, no textures, a new
    /// controller with `settings`, frames `width × height` — keeping the context, the compiled
    /// shaders and the renderer, so that one pipeline draws document after document (a batch).
    /// False when no such framebuffer can be made (reported).
    public func reset(library: Library, settings: BookController.Settings, width: Int, height: Int) -> Bool {
        guard resizeTarget(width: width, height: height) else { return false }
        // The same library is started over too: its page store holds pages of the size shown last.
        startOver(library) { session.start(library, settings: settings) }
        input.reset()
        fitView(width: width, height: height)
        return true
    }

    /// Filters page textures as `filtering` says from now on (they are uploaded again).
    public func setFiltering(_ filtering: TextureFiltering) {
        if images.setFiltering(filtering) { needsRender = true }
    }

    /// The frame of the state at `time`, rows bottom to top (GL's order).
    public func snapshot(at time: Double) -> RGBAImage {
        controller.update(to: time)
        updateLayer(at: time)
        needsRender = true
        render()
        return target.readPixels()
    }

    /// Page images with textures now and the textures' bytes (mipmaps counted), for tests and
    /// benchmarks.
    public var textureCount: Int { pages.statistics.textures }
    public var textureBytes: Int { pages.statistics.gpuBytes }

    // MARK: Live frames

    /// Runs until the surface closes or a key quits: sleeps while nothing moves, wakes for
    /// input and for decoded pages.
    public func run() {
        while isRunning {
            let timeout = ([input.gestures.deadline, screenLayer.wake] + frameParts.map(\.wake)).compactMap { $0 }.min().map { max($0 - surface.time, 0) }
            for event in surface.events(wait: isIdle, timeout: timeout) { handle(event) }
            frame(at: surface.time)
        }
    }

    /// Nothing to draw until the next event or decoded page.
    public var isIdle: Bool { !needsRender && !needsPresent && !images.pending && !controller.isAnimating && !session.countsPosition }

    /// The one door for actions, from keys, gestures, the parts and the host alike: the book's
    /// state goes to the controller, the rest to the part that carries it out. False when it is
    /// impossible now. One the controller keeps for later (a page turn asked for while the book
    /// opens) is accepted, and the delegate hears of its turn when it starts.
    @discardableResult
    public func perform(_ action: Action, at time: Double, origin: TurnOrigin = .code) -> Bool {
        guard action.isBookState else {
            carryOut(action, at: time)
            return true
        }
        return controller.handle(action, at: time) { [weak self] in
            guard let self else { return }
            needsRender = true
            if action.startsTurn { delegate?.pipeline(self, didStartTurn: action, origin: origin) }
        }
    }

    /// Moves everything on to `now` and draws and presents the frame if anything changed.
    public func frame(at now: Double) {
        for action in input.gestures.tick(at: now) { perform(action, at: now, origin: .gesture) }
        advance(to: now)
        if session.keepPosition(at: now) { needsRender = true }
        takeImageChanges()
        for part in frameParts { part.update(at: now) }
        updateLayer(at: now)
        if needsRender || images.pending { render() }
        if needsPresent { present() }
        updateTitle()
    }

    /// Gives the surface the title of what is shown, when it changed.
    private func updateTitle() {
        if !titleNote.isEmpty, controller.phase == .reading || controller.phase == .shelf, !controller.isAnimating {
            if controller.phase == .shelf || noteLanding.map({ $0 != controller.spread }) == true {
                titleNote = ""
            } else {
                noteLanding = controller.spread
            }
        }
        let t = pageTitle + (overview.isShown ? " — overview" : "") + (input.pageEntry.digits.isEmpty ? "" : " — go to page \(input.pageEntry.digits)…") + (titleNote.isEmpty ? "" : " — " + titleNote)
        if t != title {
            title = t
            surface.setTitle(t)
        }
    }

    /// Shows the book of `place` open at its page at once (a page image named as the source):
    /// that page goes before the place the book was left at.
    public func open(at place: Library.PagePlace, time: Double) {
        guard library.books.indices.contains(place.book), perform(.showBook(place.book), at: time) else { return }
        session.name(place)
    }

    /// Moves every animation on to `now`; the frame that ends an animation is drawn too.
    private func advance(to now: Double) {
        let moving = controller.isAnimating
        controller.update(to: now)
        if moving { needsRender = true }
    }

    /// Keeps the scene's scale (the base view fits the surface) while the layout sees the whole
    /// surface, so covers and pages at the sides are laid out, not cut off.
    func fitView(width: Int, height: Int) {
        input.gestures.mapping = ViewMapping(width: width, height: height, viewSize: configuration.baseView)
        controller.handle(.setViewSize(input.gestures.mapping.fittedViewSize), at: controller.time)
        needsRender = true
    }

    /// Draws the controller's scene if it changed or a face on screen got its image.
    private func render() {
        let changed = needsRender
        needsRender = false
        let (w, h) = surface.framebufferSize
        // Minimised: nothing to draw into; uploads wait for the next image or event.
        guard w > 0, h > 0, resizeTarget(width: w, height: h) else {
            images.holdUploads()
            return
        }
        let scene = overview.scene ?? controller.scene()
        // Vector pages are rasterised for the size they are shown at once it settles (not for
        // each size an opening or a turn passes through).
        if !controller.isAnimating, let shown = scene.displayHeight(width: w, height: h) { pages.setDisplayHeight(shown) }
        let uploaded = prepareImages(for: scene)
        let detailed = images.decorate(scene, width: w, height: h)
        guard changed || !uploaded.isEmpty || detailed.changed else { return }
        let failed = renderer.programFailure
        renderer.draw(detailed.scene, into: target, textures: images.textures)
        // A program is linked when first drawn with; one that does not link is said once.
        if failed == nil, let failure = renderer.programFailure { report(failure.description) }
        if configuration.showsLayer, let shown = screenLayer.drawn { drawLayer(shown.content, opacity: shown.opacity) }
        needsPresent = true
    }

    private func present() {
        needsPresent = false
        surface.present(target)
        GLErrors.check("presenting a frame")
    }

    // MARK: Images

    /// Takes the decodes finished since the last frame (the store starts the next ones) and
    /// reports bad files; notes that images or crops wait for upload.
    private func takeImageChanges() {
        images.poll()
        reportProblems()
    }

    private func reportProblems() {
        for problem in images.takeProblems() { report(problem) }
    }

    func report(_ problem: String) {
        if configuration.showsLayer {
            layer.notice(problem, at: surface.time)
            needsRender = true
        }
        if let delegate { delegate.pipeline(self, problem: problem) } else { Self.printProblem(problem) }
    }

    /// One line on standard error: what a pipeline without a delegate does with a problem.
    static func printProblem(_ problem: String) {
        FileHandle.standardError.write(Data("folio: \(problem)\n".utf8))
    }

    // MARK: Title

    /// "Folio — Book — pages 2–3 of 40" while reading, "Folio — Book (1/3)" on the shelf.
    public var pageTitle: String { session.title }
}

extension Library {
    /// The books a theme recolours (`Book.isPrinted`), by index.
    var printedBooks: Set<Int> { Set(books.indices.filter { books[$0].isPrinted }) }
}

extension Action {
    /// Starts a turn when it succeeds (a drag picks up a page).
    var startsTurn: Bool {
        if case .pageDragBegan = self { return true }
        return turnsPage
    }
}
