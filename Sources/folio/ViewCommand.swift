import ArgumentParser
import FolioApp
import FolioBook
import FolioLayout
import FolioMath
import FolioPlatform
import FolioRender
import Foundation

struct View: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a window on a library or a book: choose a book, read it, take screenshots.",
        discussion: KeyMap.help)

    @Argument(help: "A library (Library.json or its folder), a book manifest, a document (PDF, CBZ/CBT/CB7/CBR), or a folder of images or documents. Default: the bundled library.")
    var source: String?

    @Option(help: "Password of protected PDFs (or set FOLIO_PASSWORD).")
    var password: String?

    @Option(help: "Folder for F12 screenshots (created if missing).")
    var screenshotDir = "."

    @Flag(help: "Start fullscreen on the primary monitor (F toggles).")
    var fullscreen = false

    @Option(help: "Window size, WxH (the scene scales with the window).")
    var size = "1280x720"

    @Option(help: "Folder of GLSL shaders (default: FOLIO_SHADERS, beside the binary, the package root).")
    var shaders: String?

    @Option(help: "Multisample antialiasing samples (0: off; default off on a software renderer, 4 on a GPU).")
    var msaa: Int?

    /// For `make run`: exit 0 when a window with a GL 3.3 core context opens, non-zero otherwise.
    @Flag(help: .hidden)
    var checkDisplay = false

    func run() throws {
        let (width, height) = try parseSize(size)
        if checkDisplay {
            try openWindow(width: 64, height: 64, visible: false).destroy()
            return
        }
        let library = try loadLibrary(source, password: password)
        let window = try openWindow(width: width, height: height, visible: true)
        defer { window.destroy() }
        let viewer = try Viewer(window: window, library: library, shaders: ShaderFolder.locate(explicit: shaders),
                                samples: msaa, screenshots: ScreenshotFolder(path: screenshotDir))
        defer { viewer.destroy() }
        viewer.run()
    }

    /// The window, or one clear message and a non-zero exit (never a crash) when there is none.
    private func openWindow(width: Int, height: Int, visible: Bool) throws -> Window {
        do {
            return try Window(title: "Folio", width: width, height: height, fullscreen: fullscreen && visible, visible: visible)
        } catch let e as WindowError {
            FileHandle.standardError.write(Data("folio: \(e.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// The viewer's loop: window events → key map and pointer gestures → the state machine →
/// renderer → window. Draws only while something moves; otherwise it sleeps in
/// `waitEvents`, so an idle viewer costs no CPU. Page images decode in the background and
/// wake the loop when they are ready; a frame never waits for one.
///
/// Frames are drawn into an offscreen framebuffer and copied to the window: the renderer's
/// cached layer and dirty rectangles need a target that keeps its content between frames,
/// and screenshots read it back.
private final class Viewer {
    private let window: Window
    private let library: Library
    private let controller: BookController
    private let renderer: Renderer
    private let images: FaceImages
    private let textures: TextureStore
    private let screenshots: ScreenshotFolder
    private let samples: Int
    /// The scene's view before it is fitted to the window's aspect (capture's default view).
    private let baseView = Vec2(1280, 720)
    private var target: Framebuffer
    private var gestures: PointerGestures
    /// Page turns asked for while the book opens: they play once it is open.
    private var deferred: [Action] = []
    private var needsRender = true
    private var needsPresent = true
    private var running = true
    private var title = ""
    /// A page number being typed, and where each book was left (restored once per opening).
    private var pageEntry = PageNumberEntry()
    private let positions = ReadingPositions()
    private var restored: Int?
    private var saved: [Int: Int] = [:]

    init(window: Window, library: Library, shaders: String, samples: Int?, screenshots: ScreenshotFolder) throws {
        self.window = window
        self.library = library
        self.screenshots = screenshots
        controller = BookController(library: library.bookInfos)
        renderer = try Renderer(shaders: shaders, settings: .defaults(software: GLInfo.isSoftware))
        self.samples = samples ?? renderer.settings.samples
        let images = FaceImages(library: library, maxTextureSize: GLInfo.maxTextureSize) { Window.wake() }
        textures = TextureStore { images.image(for: $0) }
        self.images = images
        let (w, h) = window.framebufferSize
        target = try Framebuffer(width: max(w, 1), height: max(h, 1), samples: self.samples)
        gestures = PointerGestures(mapping: ViewMapping(width: w, height: h, viewSize: baseView))
        fitView(width: w, height: h)
    }

    /// Frees the GL objects while the window's context is current.
    func destroy() {
        images.close()
        target.destroy()
        textures.destroy()
        renderer.destroy()
    }

    func run() {
        while running {
            let events = isIdle ? window.waitEvents(timeout: gestures.deadline.map { max($0 - window.time, 0) }) : window.pollEvents()
            let now = window.time
            for event in events { handle(event, at: now) }
            for action in gestures.tick(at: now) { perform(action, at: now) }
            advance(to: now)
            keepPosition(at: now)
            if needsRender { render() }
            takeImageChanges()
            if needsPresent { present() }
            showTitle()
        }
    }

    private var isIdle: Bool { !needsRender && !needsPresent && !controller.isAnimating }

    // MARK: Input

    private func handle(_ event: InputEvent, at now: Double) {
        switch event {
        case let .key(key, modifiers, isRepeat):
            if controller.book != nil, let outcome = pageEntry.handle(key) {
                if case let .go(n) = outcome { goToPage(n, at: now) }
                return
            }
            let commands = KeyMap.commands(for: key, modifiers: modifiers, isRepeat: isRepeat,
                                           phase: controller.phase, queuedTurns: controller.queuedTurns,
                                           zoomed: controller.settings.zoom > 1)
            for command in commands { run(command, at: now) }
        case let .resize(width, height):
            fitView(width: width, height: height)
        case .refresh:
            needsPresent = true
        case .close:
            running = false
        case .mouseDown, .mouseUp, .mouseMove, .scroll:
            for action in gestures.handle(event, controller: controller, at: now) { perform(action, at: now) }
        }
    }

    private func run(_ command: ViewerCommand, at now: Double) {
        switch command {
        case let .action(action): perform(action, at: now)
        case .screenshot: screenshot(at: now)
        case .toggleFullscreen: window.toggleFullscreen()
        case .help: say(KeyMap.help)
        case .quit: running = false
        }
    }

    private func perform(_ action: Action, at now: Double) {
        if controller.handle(action, at: now) {
            needsRender = true
        } else if controller.phase == .opening, action.turnsPage {
            deferred.append(action)
        }
    }

    /// Turns to page image `n` (1-based) of the open book, clamped to its pages.
    private func goToPage(_ n: Int, at now: Double) {
        guard let b = controller.book else { return }
        if controller.go(to: clamp(n, 1, max(1, library.books[b].pages.count)) + 1, at: now) { needsRender = true }
    }

    /// Opens a book where it was left, and remembers where the reader is now.
    private func keepPosition(at now: Double) {
        guard let b = controller.book else { restored = nil; return }
        guard controller.phase == .reading else { return }
        let book = library.books[b]
        if restored != b {
            restored = b
            if controller.spread == 0, let page = positions.page(of: book), page > 1,
               controller.go(to: page + 1, animated: false, at: now) {
                needsRender = true
            }
        }
        let page = max(1, 2 * controller.spread)
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
            for action in actions { perform(action, at: now) }
        }
    }

    /// Keeps the scene's scale (the base view fits the window) while the layout sees the whole
    /// window, so covers and pages at the sides are laid out, not cut off.
    private func fitView(width: Int, height: Int) {
        gestures.mapping = ViewMapping(width: width, height: height, viewSize: baseView)
        controller.settings.viewSize = gestures.mapping.fittedViewSize
        needsRender = true
    }

    // MARK: Output

    private func render() {
        needsRender = false
        let (w, h) = window.framebufferSize
        // Minimised: nothing to draw into.
        guard w > 0, h > 0, resizeTarget(width: w, height: h) else { return }
        let scene = controller.scene()
        // Vector pages are rasterised for the size they are shown at once it settles (not for
        // each size an opening or a turn passes through).
        if !controller.isAnimating, let shown = scene.displayHeight(width: w, height: h) { images.setDisplayHeight(shown) }
        images.show(scene)
        renderer.draw(scene, into: target, textures: textures)
        needsPresent = true
    }

    /// Redraws when images arrived (faces drawn as paper get them), and frees the textures of
    /// faces whose images the page caches let go: GPU memory follows the caches' budget.
    private func takeImageChanges() {
        let changes = images.drainChanges()
        if changes.arrived { needsRender = true }
        if changes.evicted { textures.evict(keeping: images.residentFaces) }
        for problem in images.drainProblems() { complain(problem.description) }
    }

    /// False when no framebuffer of that size can be made (the old one stays).
    private func resizeTarget(width: Int, height: Int) -> Bool {
        guard target.width != width || target.height != height else { return true }
        do {
            let resized = try Framebuffer(width: width, height: height, samples: samples)
            target.destroy()
            target = resized
            return true
        } catch {
            complain("cannot draw at \(width)×\(height): \(error)")
            return false
        }
    }

    private func present() {
        needsPresent = false
        target.blit(width: target.width, height: target.height)
        window.swapBuffers()
    }

    /// Writes the frame of the state right now and prints its path.
    private func screenshot(at now: Double) {
        controller.update(to: now)
        render()
        do {
            say(try screenshots.save(target.readPixels()))
        } catch {
            complain("cannot write the screenshot: \(error)")
        }
    }

    private func showTitle() {
        let t = windowTitle() + (pageEntry.digits.isEmpty ? "" : " — go to page \(pageEntry.digits)…")
        guard t != title else { return }
        title = t
        window.setTitle(t)
    }

    /// "Folio — Book — pages 2–3 of 40" while reading, "Folio — Book (1/3)" on the shelf.
    private func windowTitle() -> String {
        let books = library.books
        if let b = controller.book {
            return "Folio — \(books[b].title) — \(Self.pageLabel(spread: controller.spread, imageCount: books[b].pages.count))"
        }
        guard !books.isEmpty else { return "Folio — no books" }
        let i = clamp(Int(controller.scroll.rounded()), 0, books.count - 1)
        return "Folio — \(books[i].title) (\(i + 1)/\(books.count))"
    }

    /// The page images a spread shows, numbered from 1: spread s shows images 2s and 2s + 1
    /// (spread 0 opens on the endpaper and image 1).
    private static func pageLabel(spread s: Int, imageCount n: Int) -> String {
        let shown = [2 * s, 2 * s + 1].filter { $0 >= 1 && $0 <= n }
        switch shown.count {
        case 2: return "pages \(shown[0])–\(shown[1]) of \(n)"
        case 1: return "page \(shown[0]) of \(n)"
        default: return "no pages"
        }
    }
}

private extension Action {
    var turnsPage: Bool {
        switch self {
        case .nextPage, .previousPage, .firstPage, .lastPage: true
        default: false
        }
    }
}

/// Where F12 writes: timestamped names made unique, each file appearing whole (written aside,
/// then renamed) so a watcher never reads half a PNG.
private struct ScreenshotFolder {
    var path: String

    /// Writes `image` (rows bottom to top, as read back from GL) and returns its path.
    func save(_ image: RGBAImage) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let url = uniqueURL()
        try Data(PNG.encode(image, compression: 1, bottomUp: true)).write(to: url, options: .atomic)
        return url.path
    }

    private func uniqueURL() -> URL {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stem = "folio-" + formatter.string(from: Date())
        let folder = URL(fileURLWithPath: path)
        var url = folder.appendingPathComponent(stem + ".png")
        var n = 2
        while FileManager.default.fileExists(atPath: url.path) {
            url = folder.appendingPathComponent("\(stem)-\(n).png")
            n += 1
        }
        return url
    }
}

/// A line on stdout, unbuffered (a script may be waiting for it).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

private func complain(_ line: String) {
    FileHandle.standardError.write(Data("folio: \(line)\n".utf8))
}
