import FolioApp
import FolioBook
import FolioFind
import FolioInput
import FolioLayout
import FolioMath
import FolioOverlay
import FolioPlatform
import FolioRender
import Foundation

/// How a pipeline draws. The defaults suit the renderer in use (see `RenderSettings.defaults`).
public struct PipelineConfiguration: Sendable {
    /// Folder of the GLSL shaders (`ShaderFolder.locate` finds the bundled one).
    public var shaders: String
    /// Multisampling of the frames; nil: the renderer's default (4 on a GPU, off in software).
    public var samples: Int?
    /// Page texture filtering; nil: what suits the renderer (`TextureFiltering.forCurrentRenderer`).
    public var filtering: TextureFiltering?
    /// Frames wait for the images they show, never drawing paper in their place, and nothing
    /// is prefetched: captures, recordings and tests. Off, a frame never waits (a viewer), and
    /// a page's decoded pixels are let go once its texture is made.
    public var waitsForImages = false
    /// How long a waiting frame waits before it draws paper after all.
    public var imageTimeout: TimeInterval = 60
    /// Bytes of page images uploaded to the GPU per frame at most (the first always goes), so
    /// a burst of decoded pages never stalls a frame on a live surface.
    public var uploadBudgetBytes = 24 << 20
    /// The view in layout units that fits the surface (the scene scales with the window).
    public var baseView = Vec2(1280, 720)
    /// Where each book was left: it opens there again, and the place is kept as the reader
    /// moves (the viewer). Nil: nothing is remembered (captures, recordings, tests).
    public var positions: ReadingPositions?
    /// Pages a zoomed view magnifies beyond their image get the part shown rasterised at the
    /// scale shown, drawn over them (`PageStore.decorate`). Off: zoomed pages show their own
    /// texture magnified (for comparison).
    public var detailPages = true
    /// The on-screen layer (titles on the shelf, the progress bar, help, the page number typed,
    /// notices) is drawn over live frames, fading while reading (the viewer). Scripted frames
    /// draw it when asked (`drawLayer`).
    public var showsLayer = false
    /// Where the pipeline opens documents for their pages (the password, the documents open,
    /// those that failed): the command line's by default; a host or a test may give its own.
    public var documents = PageSources.documents
    /// Where page decodes run: worker threads; a test may run them itself (`ManualDecoding`).
    public var decoding: any DecodeExecutor = BackgroundDecoding()
    /// How a search typed in the window runs: on a thread of its own (the frame loop reads its
    /// progress); a test may run it to its end at once to see what follows deterministically.
    public var startsSearch: @Sendable (Search) -> Void = { $0.start() }

    public init(shaders: String) { self.shaders = shaders }
}

/// Where a page turn came from.
public enum TurnOrigin: Sendable, Equatable {
    /// A key of the key map.
    case key
    /// A click, drag or scroll of the pointer.
    case gesture
    /// The host program (`FramePipeline.perform`).
    case code
}

/// Hears what the pipeline did and asks for what only its host can do.
public protocol FramePipelineDelegate: AnyObject {
    /// A turn (or a page drag) started; `origin` says who asked for it.
    func pipeline(_ pipeline: FramePipeline, didStartTurn action: Action, origin: TurnOrigin)
    /// A key asked for a screenshot or the help text: the host writes files and prints.
    func pipeline(_ pipeline: FramePipeline, asksFor command: ViewerCommand, at time: Double)
    /// A page file could not be read, or a frame could not be drawn: one line for a person.
    func pipeline(_ pipeline: FramePipeline, problem: String)
    /// A click on a page at `point`: true when the host acted on it (followed a link), and the
    /// click then does not turn the page.
    func pipeline(_ pipeline: FramePipeline, clickedAt point: PagePoint, at time: Double) -> Bool
}

extension FramePipelineDelegate {
    public func pipeline(_ pipeline: FramePipeline, didStartTurn action: Action, origin: TurnOrigin) {}
    public func pipeline(_ pipeline: FramePipeline, asksFor command: ViewerCommand, at time: Double) {}
    public func pipeline(_ pipeline: FramePipeline, problem: String) { FramePipeline.printProblem(problem) }
    public func pipeline(_ pipeline: FramePipeline, clickedAt point: PagePoint, at time: Double) -> Bool { false }
}

/// The one way Folio makes frames, for every host: the viewer, capture, record, bench, the
/// render tests and embedding programs. It owns the controller (state machine), the page images
/// (decoded in the background), their textures and the renderer, takes input events stamped
/// with their time, and produces frames onto a `Surface`.
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
    public private(set) var controller: BookController
    /// The books shown. Setting another starts a new controller (on the shelf, the settings
    /// kept, without the old one's delegate and data source) and new page images.
    public var library: Library {
        didSet {
            guard library != oldValue else { return }
            endSearch()
            guard !relaying else { return }
            renderer.settings.themedBooks = library.printedBooks
            replaceImages()
            controller = BookController(library: library.bookInfos, settings: controller.settings)
            deferred = []
        }
    }
    public weak var delegate: FramePipelineDelegate?
    /// Page images from memory for the books it supplies (see `PageContentSource`).
    public weak var contentSource: PageContentSource? {
        didSet { replaceImages() }
    }
    public let configuration: PipelineConfiguration
    /// The frame drawn last.
    public private(set) var target: Framebuffer
    private var pages: PageStore
    private let textures: TextureStore
    private var samples: Int
    private var filtering: TextureFiltering
    // Live loop state.
    private var gestures: PointerGestures
    /// Page turns asked for while the book opens: they play once it is open.
    private var deferred: [(Action, TurnOrigin)] = []
    var needsRender = true
    private var needsPresent = true
    /// Decoded images (or crops) wait for the upload of a later frame.
    private var uploadsPending = false
    /// A page number being typed; the book whose place was restored since it opened; the page
    /// last saved for each book.
    private var pageEntry = PageNumberEntry()
    private var restored: Int?
    private var saved: [Int: Int] = [:]
    /// The page `open(at:)` asked for, shown once its book is open.
    private var namedPage: Library.PagePlace?
    /// False once the surface closed or a key quit.
    public private(set) var isRunning = true
    private var title = ""
    /// A note the application adds to the window title (a search's "3 of 17", a bookmark made).
    public var titleNote = ""
    /// The on-screen layer: its state, its textures (made when first drawn), the look it was
    /// last drawn with, and when it next changes by itself.
    public internal(set) var layer = LayerState()
    private var layerTextures: LayerTextures?
    /// Its shaders could not be built: said once, then frames go without it.
    private var layerUnavailable = false
    private var layerDrawn: (opacity: Double, content: OverlayContent)?
    private var layerWake: Double?
    /// Relayouts made in the background (`changeTextSize`), the text size asked for last (until
    /// the book shows it), and whether one runs.
    private lazy var relayouts = RelayoutInbox(wake: surface.wake)
    public private(set) var wantedTextSize: Double?
    private var relayoutRunning = false
    /// The place in the text the last relayout kept, while the spread it landed on is shown:
    /// the next one keeps it too, not the spread's first page (which may come before it), so
    /// sizes stepped through one after another do not drift. `relayingFrom`: the running one's.
    private var landed: (book: Int, spread: Int, place: TextPlace)?
    private var relayingFrom: TextPlace?
    /// Set while `apply` changes the library's pages in place (the controller stays).
    private var relaying = false
    /// The search typed in the window, while its hits are shown.
    var finding: WindowSearch?

    /// Makes the renderer and the first frame's target on `surface`, whose context must be
    /// current. The pipeline owns the surface from here: `destroy()` frees both.
    public init(surface: any Surface, library: Library, configuration: PipelineConfiguration,
                settings: BookController.Settings = .init()) throws {
        self.surface = surface
        self.library = library
        self.configuration = configuration
        renderer = try Renderer(shaders: configuration.shaders, settings: .defaults(software: GLInfo.isSoftware))
        renderer.settings.themedBooks = library.printedBooks
        samples = configuration.samples ?? renderer.settings.samples
        filtering = configuration.filtering ?? .forCurrentRenderer
        textures = TextureStore(descriptor: .pages(filtering))
        controller = BookController(library: library.bookInfos, settings: settings)
        let (w, h) = surface.framebufferSize
        gestures = PointerGestures(mapping: ViewMapping(width: w, height: h, viewSize: configuration.baseView))
        pages = Self.pageStore(library, textures: textures, configuration, height: h, wake: surface.wake)
        do {
            target = try Framebuffer(width: max(w, 1), height: max(h, 1), samples: samples)
        } catch {
            renderer.destroy()
            throw error
        }
        fitView(width: w, height: h)
    }

    /// Frees the GL objects, then the surface.
    public func destroy() {
        finding?.search.cancel()
        pages.close()
        layerTextures?.destroy()
        target.destroy()
        textures.destroy()
        renderer.destroy()
        surface.destroy()
    }

    /// Vector pages are rasterised for a surface `height` pixels high until frames say better.
    private static func pageStore(_ library: Library, textures: TextureStore, _ configuration: PipelineConfiguration, height: Int,
                                  wake: @escaping @Sendable () -> Void) -> PageStore {
        var settings = PageStore.Settings()
        settings.displayHeight = max(height, 1)
        if GLInfo.maxTextureSize > 0 { settings.maxPageSize = min(settings.maxPageSize, GLInfo.maxTextureSize) }
        // Shown larger, vector pages are drawn from crops of the part in view.
        if configuration.detailPages { settings.wholePageHeight = 2048 }
        // A waiting frame needs only its own pages (decoding others would take cores from it),
        // and the sharp ones: no preview first. Its images are kept: textures lost go up again.
        if configuration.waitsForImages {
            (settings.ahead, settings.behind) = (0, 0)
            settings.previewHeight = 0
            settings.releasesPixels = false
        }
        return PageStore(library: library, documents: configuration.documents, textures: textures, settings: settings,
                         executor: configuration.decoding, onChange: configuration.waitsForImages ? nil : wake)
    }

    /// The content source has new images: faces it supplies are asked again.
    public func contentChanged() {
        pages.contentChanged()
        needsRender = true
    }

    /// The marks on pages (`PageMarks`) changed: the pages are rasterised again to show them.
    public func marksChanged() { replaceImages() }

    /// A new page store over the library (decoding for the old one stops) and no textures.
    private func replaceImages() {
        pages.close()
        textures.removeAll()
        pages = Self.pageStore(library, textures: textures, configuration, height: target.height, wake: surface.wake)
        pages.contentSource = contentSource
        needsRender = true
    }

    // MARK: Scripted frames

    /// Draws `scene` into `target`. With `waitsForImages`, first waits for the images it shows.
    public func draw(_ scene: Scene) {
        if let shown = scene.displayHeight(width: target.width, height: target.height) { pages.setDisplayHeight(shown) }
        prepareImages(for: scene)
        renderer.draw(withDetail(scene).scene, into: target, textures: textures)
    }

    /// `scene` with the magnified parts of zoomed pages drawn sharp over them, and whether
    /// that changed the frame.
    private func withDetail(_ scene: Scene) -> (scene: Scene, changed: Bool) {
        guard configuration.detailPages else { return (scene, false) }
        return pages.decorate(scene, width: target.width, height: target.height,
                              wait: configuration.waitsForImages ? configuration.imageTimeout : nil)
    }

    /// Tells the page store what `scene` shows and uploads what is decoded: with
    /// `waitsForImages`, every face shown, waiting for them; otherwise faces shown first, then
    /// prefetched ones, within the upload budget. Returns the images shown that got a texture.
    @discardableResult
    private func prepareImages(for scene: Scene) -> Set<PageKey> {
        let waits = configuration.waitsForImages
        let prepared = pages.prepare(scene, uploadBudget: waits ? nil : configuration.uploadBudgetBytes,
                                     wait: waits ? configuration.imageTimeout : nil)
        // One deadline per page per run: later frames draw it as paper without waiting again
        // (a page that never finishes would otherwise hold every frame of a recording).
        if !prepared.late.isEmpty {
            report("page images still loading after \(Int(configuration.imageTimeout)) s are drawn as blank paper, "
                + "without waiting for them again")
        }
        reportProblems()
        uploadsPending = pages.pendingUploads
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
        if self.library == library { replaceImages() } else { self.library = library }
        controller = BookController(library: library.bookInfos, settings: settings)
        gestures = PointerGestures(mapping: gestures.mapping)
        (deferred, pageEntry, restored, saved, namedPage) = ([], PageNumberEntry(), nil, [:], nil)
        fitView(width: width, height: height)
        return true
    }

    /// Filters page textures as `filtering` says from now on (they are uploaded again).
    public func setFiltering(_ filtering: TextureFiltering) {
        guard filtering != self.filtering else { return }
        self.filtering = filtering
        textures.descriptor = .pages(filtering)
        textures.removeAll()
        pages.texturesLost()
        needsRender = true
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
            let timeout = [gestures.deadline, layerWake, searchWake].compactMap { $0 }.min().map { max($0 - surface.time, 0) }
            for event in surface.events(wait: isIdle, timeout: timeout) { handle(event) }
            frame(at: surface.time)
        }
    }

    /// Nothing to draw until the next event or decoded page.
    public var isIdle: Bool { !needsRender && !needsPresent && !uploadsPending && !controller.isAnimating }

    /// One event, at the time it happened.
    public func handle(_ timed: TimedInputEvent) {
        let now = timed.time
        switch timed.event {
        case let .key(key, modifiers, isRepeat):
            if contentsTakes(timed.event, at: now) || searchTakes(timed.event, at: now) { return }
            if layerTakes(key, at: now) { return }
            if controller.book != nil, let outcome = pageEntry.handle(key) {
                if case let .go(n) = outcome { goToPage(n, at: now) }
                typed(at: now)
                return
            }
            typed(at: now)
            let commands = KeyMap.commands(for: key, modifiers: modifiers, isRepeat: isRepeat,
                                           phase: controller.phase, queuedTurns: controller.queuedTurns,
                                           zoomed: controller.settings.zoom > 1)
            for command in commands { run(command, at: now) }
        case let .resize(width, height):
            fitView(width: width, height: height)
        case .refresh:
            needsPresent = true
        case .close:
            isRunning = false
        case .text:
            _ = contentsTakes(timed.event, at: now) || searchTakes(timed.event, at: now)
        case let .drop(paths):
            // One book at a time: the first file dropped.
            if let path = paths.first { delegate?.pipeline(self, asksFor: .open(path), at: now) }
        case .mouseDown, .mouseUp, .mouseMove, .scroll:
            if contentsTakes(timed.event, at: now) || layerTakes(timed.event, at: now) { return }
            var actions = gestures.handle(timed.event, controller: controller, at: now)
            // A click that would turn the page goes to the host first (a link under it).
            if case let .mouseUp(.left, x, y, _) = timed.event, actions == [.nextPage] || actions == [.previousPage],
               let point = PagePoint.under(gestures.mapping.layoutPoint(x: x, y: y), controller: controller),
               delegate?.pipeline(self, clickedAt: point, at: now) == true {
                actions = []
            }
            for action in actions { perform(action, at: now, origin: .gesture) }
        }
    }

    /// Performs `action` at `time`; false when it is impossible now. A page turn asked for
    /// while the book opens is kept and plays once it is open.
    @discardableResult
    public func perform(_ action: Action, at time: Double, origin: TurnOrigin = .code) -> Bool {
        if controller.handle(action, at: time) {
            needsRender = true
            if action.startsTurn { delegate?.pipeline(self, didStartTurn: action, origin: origin) }
            return true
        }
        if controller.phase == .opening, action.turnsPage {
            deferred.append((action, origin))
        }
        return false
    }

    /// Moves everything on to `now` and draws and presents the frame if anything changed.
    public func frame(at now: Double) {
        for action in gestures.tick(at: now) { perform(action, at: now, origin: .gesture) }
        takeRelayouts(at: now)
        advance(to: now)
        keepPosition(at: now)
        takeImageChanges()
        updateSearch(at: now)
        updateLayer(at: now)
        if needsRender || uploadsPending { render() }
        if needsPresent { present() }
        let t = pageTitle + (pageEntry.digits.isEmpty ? "" : " — go to page \(pageEntry.digits)…") + (titleNote.isEmpty ? "" : " — " + titleNote)
        if t != title {
            title = t
            surface.setTitle(t)
        }
    }

    private func run(_ command: ViewerCommand, at now: Double) {
        switch command {
        case let .action(action): perform(action, at: now, origin: .key)
        case .toggleFullscreen: surface.toggleFullscreen()
        case .quit: isRunning = false
        case .help where configuration.showsLayer:
            layer.helpShown.toggle()
            if layer.helpShown { delegate?.pipeline(self, asksFor: command, at: now) }
        case .nextHit where finding != nil, .previousHit where finding != nil: turnToHit(forward: command == .nextHit, at: now)
        case .screenshot, .help, .open, .nextHit, .previousHit, .toggleBookmark, .nextBookmark, .back:
            delegate?.pipeline(self, asksFor: command, at: now)
        case .textLarger, .textSmaller:
            // The host remembers the size started.
            if changeTextSize(by: command == .textLarger ? 1 : -1, at: now) != nil { delegate?.pipeline(self, asksFor: command, at: now) }
        case .cycleTheme, .toggleShowThrough:
            if command == .cycleTheme { renderer.settings.theme = renderer.settings.theme.next } else { renderer.settings.showThrough.toggle() }
            needsRender = true
            // The host may remember it.
            delegate?.pipeline(self, asksFor: command, at: now)
        }
    }

    /// Turns to page image `n` (1-based) of the open book, clamped to its pages: a turn like any
    /// key's (kept while the book opens, heard by the delegate).
    private func goToPage(_ n: Int, at now: Double) {
        guard let b = controller.book else { return }
        if configuration.showsLayer, let answer = ReaderLayer.missingPage(n, count: library.books[b].pages.count) {
            layer.answer(answer, at: now)
            return
        }
        perform(.goTo(page: BookInfo.layoutPage(number: clamp(n, 1, max(1, library.books[b].pages.count)))), at: now, origin: .key)
    }

    /// Shows the book of `place` open at its page at once (a page image named as the source):
    /// that page goes before the place the book was left at.
    public func open(at place: Library.PagePlace, time: Double) {
        guard library.books.indices.contains(place.book), perform(.showBook(place.book), at: time) else { return }
        namedPage = place
    }

    /// Opens a book where it was left (or at the page named), and remembers where the reader is now.
    private func keepPosition(at now: Double) {
        guard let b = controller.book else { restored = nil; return }
        guard controller.phase == .reading else { return }
        if let named = namedPage, named.book == b {
            namedPage = nil
            restored = b
            if controller.go(to: named.image + 2, animated: false, at: now) { needsRender = true }
        }
        guard let positions = configuration.positions else { return }
        let book = library.books[b]
        if restored != b {
            restored = b
            if controller.spread == 0, let page = positions.page(of: book), page > 1,
               controller.go(to: page + 1, animated: false, at: now) {
                needsRender = true
            }
        }
        let page = controller.shownPages.first ?? 1
        if saved[b] != page, positions.save(page: page, of: book) { saved[b] = page }
    }

    /// Moves every animation on to `now`; the frame that ends an animation is drawn too.
    private func advance(to now: Double) {
        let moving = controller.isAnimating
        controller.update(to: now)
        if moving { needsRender = true }
        if controller.phase == .reading, !deferred.isEmpty {
            let actions = deferred
            deferred = []
            for (action, origin) in actions { perform(action, at: now, origin: origin) }
        }
    }

    /// Keeps the scene's scale (the base view fits the surface) while the layout sees the whole
    /// surface, so covers and pages at the sides are laid out, not cut off.
    private func fitView(width: Int, height: Int) {
        gestures.mapping = ViewMapping(width: width, height: height, viewSize: configuration.baseView)
        controller.handle(.setViewSize(gestures.mapping.fittedViewSize), at: controller.time)
        needsRender = true
    }

    /// Draws the controller's scene if it changed or a face on screen got its image.
    private func render() {
        let changed = needsRender
        needsRender = false
        let (w, h) = surface.framebufferSize
        // Minimised: nothing to draw into; uploads wait for the next image or event.
        guard w > 0, h > 0, resizeTarget(width: w, height: h) else {
            uploadsPending = false
            return
        }
        let scene = controller.scene()
        // Vector pages are rasterised for the size they are shown at once it settles (not for
        // each size an opening or a turn passes through).
        if !controller.isAnimating, let shown = scene.displayHeight(width: w, height: h) { pages.setDisplayHeight(shown) }
        let uploaded = prepareImages(for: scene)
        let detailed = withDetail(scene)
        guard changed || !uploaded.isEmpty || detailed.changed else { return }
        renderer.draw(detailed.scene, into: target, textures: textures)
        if configuration.showsLayer, let shown = layerDrawn { drawLayer(shown.content, opacity: shown.opacity) }
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
        if pages.poll() || pages.cropArrived() { uploadsPending = true }
        reportProblems()
    }

    private func reportProblems() {
        for problem in pages.takeProblems() { report(problem.description) }
    }

    private func report(_ problem: String) {
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
    public var pageTitle: String {
        let books = library.books
        if let b = controller.book {
            return "Folio — \(books[b].title) — \(Self.pageLabel(shown: controller.shownPages, imageCount: books[b].pages.count))"
        }
        guard !books.isEmpty else { return "Folio — no books" }
        let i = clamp(Int(controller.scroll.rounded()), 0, books.count - 1)
        return "Folio — \(books[i].title) (\(i + 1)/\(books.count))"
    }

    /// The page images shown, numbered from 1 (`BookController.shownPages`).
    static func pageLabel(shown: [Int], imageCount n: Int) -> String {
        switch shown.count {
        case 2: return "pages \(shown[0])–\(shown[1]) of \(n)"
        case 1: return "page \(shown[0]) of \(n)"
        default: return "no pages"
        }
    }
}

extension Library {
    /// The books a theme recolours (`Book.isPrinted`), by index.
    var printedBooks: Set<Int> { Set(books.indices.filter { books[$0].isPrinted }) }
}

extension Action {
    /// Turns pages: asked for while a book opens, it waits until the book is open.
    var turnsPage: Bool {
        switch self {
        case .nextPage, .previousPage, .firstPage, .lastPage, .goTo: true
        default: false
        }
    }

    /// Starts a turn when it succeeds (a drag picks up a page).
    var startsTurn: Bool {
        if case .pageDragBegan = self { return true }
        return turnsPage
    }
}

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
        ReaderLayer.content(library: library, phase: controller.phase, book: controller.book, spread: controller.spread,
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
        if !relayoutRunning { startRelayout(book: b, document: path, from: source, fontSize: size) }
        return size
    }

    /// The open book when it is one whole reflowable document, with the document.
    private var openReflowable: (book: Int, path: String, source: any ReflowableSource)? {
        guard let b = controller.book, let first = library.books[b].pages.first,
              let (path, _) = PageSources.split(first), let source = configuration.documents.reflowable(path),
              library.books[b].pages.count == source.pageCount else { return nil }
        return (b, path, source)
    }

    private func startRelayout(book b: Int, document path: String, from source: any ReflowableSource, fontSize: Double) {
        let shown = (controller.shownPages.first ?? 1) - 1
        let pages = library.books[b].pages
        let index = pages.indices.contains(shown) ? PageSources.split(pages[shown])?.index ?? 0 : 0
        let place = landed.flatMap { $0.book == b && $0.spread == controller.spread ? $0.place : nil } ?? source.place(ofPage: index)
        let inbox = relayouts
        relayoutRunning = true
        relayingFrom = place
        Thread.detachNewThread {
            do {
                let (relaid, page) = try source.relaid(fontSize: fontSize, keeping: place)
                inbox.post(.success(DocumentRelaid(book: b, document: path, source: relaid, page: page)))
            } catch {
                inbox.post(.failure(RelayoutFailure(message: "\(error)")))
            }
        }
    }

    /// Applies the relayouts finished since the last frame; starts the next one when the text
    /// size asked for changed meanwhile.
    private func takeRelayouts(at now: Double) {
        for outcome in relayouts.take() {
            relayoutRunning = false
            switch outcome {
            case let .success(event):
                apply(event, at: now)
                if let wanted = wantedTextSize, wanted != event.source.fontSize, let (b, path, source) = openReflowable {
                    startRelayout(book: b, document: path, from: source, fontSize: wanted)
                } else {
                    wantedTextSize = nil
                }
            case let .failure(failure):
                (wantedTextSize, relayingFrom) = (nil, nil)
                report(failure.message)
            }
        }
    }

    /// Shows book `event.book` in its new layout: its document replaced by the new one, the
    /// page store told (the old layout's images go, the other books' stay), the controller
    /// told its page count and put on the page holding the same text without a turn, and a
    /// notice with the size and the page count. An event for a book no longer shown as that
    /// document is dropped.
    public func apply(_ event: DocumentRelaid, at now: Double) {
        guard library.books.indices.contains(event.book), let first = library.books[event.book].pages.first,
              PageSources.split(first)?.path == event.document else { return }
        configuration.documents.replace(event.document, with: event.source)
        let count = event.source.pageCount
        relaying = true
        library.books[event.book].pages = (0..<count).map { PageSources.locator(event.document, page: $0) }
        relaying = false
        pages.relaid(book: event.book, in: library)
        needsRender = true
        controller.relaid(book: event.book, as: library.bookInfos[event.book],
                          showing: BookInfo.layoutPage(number: event.page + 1), at: now)
        landed = (event.book, controller.spread, relayingFrom ?? event.source.place(ofPage: event.page))
        relayingFrom = nil
        saved[event.book] = nil
        let size = event.source.fontSize
        showNotice("text \(size.rounded() == size ? String(Int(size)) : String(size)) pt — \(count) page\(count == 1 ? "" : "s")")
    }
}
