import ArgumentParser
import FolioBook
import FolioFind
import FolioImage
import FolioKit
import FolioLayout
import FolioMuPDF
import FolioReader
import FolioRender
import FolioState
import FolioWindow
import Foundation

struct View: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a window on a library or a book: choose a book, read it, take screenshots.",
        discussion: KeyMap.help)

    @Argument(help: "A library (Library.json or its folder), a book manifest, a document (PDF, EPUB, MOBI, FB2, XPS, CBZ/CBT/CB7/CBR), a folder of images or documents, or one page image (the book of its folder, open at it). Default: the bundled library.")
    var source: String?

    @Option(help: "Password of protected PDFs (or set FOLIO_PASSWORD).")
    var password: String?

    @Option(help: "Folder for F12 screenshots (created if missing).")
    var screenshotDir = "."

    @Flag(help: "Start fullscreen on the primary monitor (F toggles).")
    var fullscreen = false

    @Option(help: "Window size, WxH (the scene scales with the window).")
    var size = "1280x720"

    @Option(help: "Folder of GLSL shaders (default: FOLIO_SHADERS, then folio/Shaders in PREFIX/share or the XDG data folders).")
    var shaders: String?

    @Option(help: "Multisample antialiasing samples (0: off; default off on a software renderer, 4 on a GPU).")
    var msaa: Int?

    @OptionGroup var tuning: TuningOptions

    @Option(help: "Search this phrase in each book as it opens, as if typed after /: its hits marked, the first turned to; N turns to the next hit, Shift+N to the previous.")
    var search: String?

    @Option(help: "How keys turn pages: rigid, curl or cone (default: as last chosen in the viewer, else curl; C and O switch).")
    var deform: TurnDeform?

    @Option(help: "One page or two: 1, 2 or auto (one in a window narrower than it is tall; default: as last chosen, E switches).")
    var pages: PageMode?

    @OptionGroup var look: ThemeOptions

    /// For `make run`: exit 0 when a window with a GL 3.3 core context opens, non-zero otherwise.
    @Flag(help: .hidden)
    var checkDisplay = false

    func validate() throws {
        _ = try parseSize(size)
        try DrawingOptions.checkMSAA(msaa)
    }

    func run() throws {
        let (width, height) = try parseSize(size)
        if checkDisplay {
            try openWindow(width: 64, height: 64, visible: false).destroy()
            return
        }
        var settings = BookController.Settings()
        try tuning.apply(to: &settings)
        // What the reader chose last time, then what the command line says for this run.
        let file = SettingsFile()
        let (remembered, problem) = file.load()
        if let problem { report(problem) }
        var reader = look.override(remembered)
        if let deform { reader.deform = deform }
        if let pages { reader.pages = pages }
        settings.deform = reader.deform
        settings.pages = reader.pages
        settings.fitWidth = reader.fitWidth
        // Reflowable books open at the size last chosen, unless --font-size says otherwise.
        if tuning.document.fontSize == nil { MuPDF.fontSize = reader.fontSize }
        MuPDF.typography = tuning.document.typography(over: reader.typography)
        // The first page shows before the rest is laid out (the page count fills in after).
        MuPDF.laysOutInBackground = true
        // Reflowable books are laid out for the window's page shape (and again when it changes).
        layOutBooks(forWidth: width, height: height, single: settings.style.orientation == .horizontal
                    && reader.pages.isSingle(viewSize: .init(Double(width), Double(height))))
        let library = try loadLibrary(source, password: password)
        if let search { _ = try parsePhrase(search, "--search: ") }
        let window = try openWindow(width: width, height: height, visible: true)
        var configuration: PipelineConfiguration
        do {
            configuration = PipelineConfiguration(shaders: try ShaderFolder.locate(explicit: shaders))
        } catch {
            window.destroy()
            throw error
        }
        configuration.samples = msaa
        configuration.documents = commandDocuments
        // Places and bookmarks: one line for a store set aside or unusable, and reading goes on.
        let state = StateStore.open()
        state.notices.forEach(report)
        configuration.positions = state.store.map { ReadingPositions(store: $0, documents: commandDocuments) }
        configuration.showsLayer = true
        configuration.followsPageShape = true
        let pipeline: FramePipeline
        do {
            pipeline = try FramePipeline(surface: window, library: library, configuration: configuration,
                                     settings: settings)
        } catch {
            window.destroy()
            throw error
        }
        defer { pipeline.destroy() }
        pipeline.renderer.settings.theme = reader.theme
        pipeline.renderer.settings.showThrough = reader.showThrough
        pipeline.typography = MuPDF.typography
        pipeline.searchEveryBook(for: search)
        let host = ViewerHost(screenshots: ScreenshotFolder(path: screenshotDir), bookmarks: state.store.map { Bookmarks(store: $0, documents: commandDocuments) },
                              settings: file, saved: remembered,
                              deform: reader.deform, pages: reader.pages, password: password)
        pipeline.delegate = host
        pipeline.controller.delegate = host
        // Problems met loading the library were printed; the window shows them too.
        let problems = Problem.summarised(library.problems)
        if let first = problems.first {
            pipeline.showNotice(problems.count > 1 ? "\(first.description) (and \(problems.count - 1) more)" : first.description)
        }
        host.show(library, in: pipeline, at: window.time)
        pipeline.run()
    }

    /// The window, or one clear message and a non-zero exit (never a crash) when there is none.
    private func openWindow(width: Int, height: Int, visible: Bool) throws -> Window {
        do {
            return try Window(title: "Folio", width: width, height: height, fullscreen: fullscreen && visible, visible: visible)
        } catch let e as WindowError {
            report(e.message)
            throw ExitCode.failure
        }
    }
}

/// What only the executable does for the viewer: F12 writes a screenshot, H prints the keys,
/// M keeps bookmarks, a file dropped on the window opens, a setting
/// changed by a key is remembered. The loop itself (input, deferred turns, idle, resize,
/// images, title) is `FramePipeline.run`.
private final class ViewerHost: FramePipelineDelegate, BookControllerDelegate {
    let screenshots: ScreenshotFolder
    /// Nil when the state store cannot be used (said when the viewer started).
    private let bookmarks: Bookmarks?
    private var back = BackStack()
    let settingsFile: SettingsFile
    /// What the settings file holds: a key changes one field of it, so options given for this
    /// run only are not written.
    private var saved: ReaderSettings
    /// The turn style and page mode keys asked for last, to tell their changes from other
    /// layout changes.
    private var deform: TurnDeform
    private var pages: PageMode
    let password: String?

    init(screenshots: ScreenshotFolder, bookmarks: Bookmarks?, settings: SettingsFile, saved: ReaderSettings,
         deform: TurnDeform, pages: PageMode, password: String?) {
        (self.screenshots, self.bookmarks, settingsFile, self.saved, self.deform, self.pages, self.password) =
            (screenshots, bookmarks, settings, saved, deform, pages, password)
    }

    /// Shows `library`: a single book (a document, a folder of pages) or a page of one opens at
    /// once; the shelf is for libraries, and turns to the book read last.
    func show(_ library: Library, in pipeline: FramePipeline, at time: Double) {
        if let page = library.namedPage {
            pipeline.open(at: page, time: time)
        } else if library.books.count == 1 {
            pipeline.perform(.showBook(0), at: time)
        } else if let last = pipeline.session.lastRead, last > 0 {
            pipeline.perform(.select(last), at: time)
        }
    }

    private func remember(_ change: (inout ReaderSettings) -> Void) {
        var next = saved
        change(&next)
        guard next != saved else { return }
        do {
            try settingsFile.save(next)
            saved = next
        } catch {
            report("settings not remembered: \(Failure(error)?.message ?? "\(error)")")
        }
    }

    func controllerDidChangeLayout(_ controller: BookController) {
        if controller.settings.deform != deform {
            deform = controller.settings.deform
            remember { [deform] in $0.deform = deform }
        }
        if controller.settings.pages != pages {
            pages = controller.settings.pages
            remember { [pages] in $0.pages = pages }
        }
        // Keys change it one at a time: the file follows.
        if controller.settings.fitWidth != saved.fitWidth {
            remember { [fit = controller.settings.fitWidth] in $0.fitWidth = fit }
        }
    }

    /// The open book, its pages, and the page image (0-based) its spread starts at.
    private func reading(_ pipeline: FramePipeline) -> (book: Book, image: Int)? {
        guard let b = pipeline.controller.book else { return nil }
        return (pipeline.library.books[b], pipeline.controller.shownPages.first?.index ?? 0)
    }

    func pipeline(_ pipeline: FramePipeline, asksFor action: Action, at time: Double) {
        switch action {
        case .screenshot:
            do {
                say(try screenshots.save(pipeline.snapshot(at: time)))
            } catch {
                report("cannot write the screenshot: \(Failure(error)?.message ?? "\(error)")")
            }
        case .help: say(KeyMap.help)
        case .toggleBookmark:
            guard let (book, image) = reading(pipeline) else { return }
            pipeline.titleNote = bookmarks?.toggle(page: PageImage(index: image), of: book) ?? "bookmarks are not remembered (the state store cannot be used)"
            pipeline.bookmarksChanged()
        case .nextBookmark:
            guard let (book, image) = reading(pipeline) else { return }
            guard let page = Bookmarks.next(after: PageImage(index: image), in: bookmarks?.pages(of: book) ?? []) else {
                pipeline.titleNote = "no bookmarks in this book (M marks the spread)"
                return
            }
            pipeline.titleNote = "bookmark: page \(page.number)"
            pipeline.perform(.goTo(page), at: time, origin: .key)
            // Every mark is placed now (counted for Shift+M): each wears its ribbon.
            pipeline.bookmarksChanged()
        case .back:
            guard let image = back.back() else { return }
            pipeline.titleNote = "back to page \(PageImage(index: image).number)"
            pipeline.perform(.goTo(PageImage(index: image)), at: time, origin: .key)
        case .cycleTheme: remember { [theme = pipeline.renderer.settings.theme] in $0.theme = theme }
        case .toggleShowThrough: remember { [on = pipeline.renderer.settings.showThrough] in $0.showThrough = on }
        case .typography:
            MuPDF.typography = pipeline.typography
            remember { [typography = pipeline.typography] in $0.typography = typography }
        case .textLarger, .textSmaller:
            // Books opened from now on are laid out at it too (a library's others, the next run).
            guard let size = pipeline.wantedTextSize else { return }
            MuPDF.fontSize = size
            remember { $0.fontSize = size }
        case let .openFile(path):
            // A file that cannot be opened leaves what is shown as it is.
            let library: Library
            do {
                library = try loadLibrary(path, password: password)
            } catch {
                report("\(Failure(error)?.message ?? "\(error)"); still showing what was open")
                return
            }
            pipeline.replaceLibrary(library)
            show(library, in: pipeline, at: time)
        default: break
        }
    }

    /// Follows the link under a click: a page of the same document turns there (Alt+← comes
    /// back), an address opens with `xdg-open` if `LinkPolicy` lets it.
    func pipeline(_ pipeline: FramePipeline, clickedAt point: PagePoint, at time: Double) -> Bool {
        guard let link = pipeline.link(at: point) else { return false }
        // The page clicked (mid-turn, on the spread the turn lands on) is the one to come back to.
        return self.pipeline(pipeline, follows: link.target, from: point.image, at: time)
    }

    /// Follows a link of page image `image`'s document: a page of it turns there (Alt+← comes
    /// back to `image`), a note shows over the page, an address opens as `LinkPolicy` lets it.
    func pipeline(_ pipeline: FramePipeline, follows target: LinkTarget, from image: Int, at time: Double) -> Bool {
        guard let (book, _) = reading(pipeline), book.pages.indices.contains(image),
              let path = book.pages[image].documentPage?.path else { return false }
        switch target {
        case let .page(target):
            guard let to = book.pages.firstIndex(of: .document(path, index: target)) else { return false }
            back.leave(image)
            let page = PageImage(index: to)
            pipeline.titleNote = "link to page \(page.number) (Alt+← back)"
            pipeline.perform(.goTo(page), at: time, origin: .key)
        case let .note(_, text, links):
            // Read where it is referred to, as Foliate, KOReader and Apple Books show notes.
            pipeline.showNote(text, links: links, at: time)
        case let .uri(address):
            let notice = LinkPolicy.open(address)
            pipeline.titleNote = notice ?? "opening \(FileName.printable(String(address.prefix(60))))"
            if let notice { report(notice) }
        }
        return true
    }

    func pipeline(_ pipeline: FramePipeline, problem: String) { report(problem) }
}

/// Where F12 writes: timestamped names made unique, each file appearing whole (written aside,
/// then renamed) so a watcher never reads half a PNG.
private struct ScreenshotFolder {
    var path: String

    /// Writes `image` (rows bottom to top, as read back from GL) and returns its path.
    func save(_ image: RGBAImage) throws -> String {
        try OutputFile.makeFolder(path)
        let url = uniqueURL()
        // .never: a name taken in the meantime is not overwritten.
        try PNG.write(image, to: OutputFile(url.path, replace: .never), compression: 1, bottomUp: true)
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

/// A line on stdout, flushed at once (a script may be waiting for it).
private func say(_ line: String) {
    print(line)
    fflush(nil)
}

