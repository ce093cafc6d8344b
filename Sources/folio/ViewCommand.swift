import ArgumentParser
import FolioApp
import FolioBook
import FolioKit
import FolioRender
import FolioWindow
import Foundation

struct View: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a window on a library or a book: choose a book, read it, take screenshots.",
        discussion: KeyMap.help)

    @Argument(help: "A library (Library.json or its folder), a book manifest, a document (PDF, CBZ/CBT/CB7/CBR), a folder of images or documents, or one page image (the book of its folder, open at it). Default: the bundled library.")
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
        let library = try loadLibrary(source, password: password)
        let window = try openWindow(width: width, height: height, visible: true)
        var configuration: PipelineConfiguration
        do {
            configuration = PipelineConfiguration(shaders: try ShaderFolder.locate(explicit: shaders))
        } catch {
            window.destroy()
            throw error
        }
        configuration.samples = msaa
        configuration.positions = ReadingPositions()
        configuration.showsLayer = true
        let pipeline: FramePipeline
        do {
            pipeline = try FramePipeline(surface: window, library: library, configuration: configuration,
                                     settings: settings)
        } catch {
            window.destroy()
            throw error
        }
        defer { pipeline.destroy() }
        let host = ViewerHost(screenshots: ScreenshotFolder(path: screenshotDir))
        pipeline.delegate = host
        // Problems met loading the library were printed; the window shows them too.
        let problems = Problem.summarised(library.problems)
        if let first = problems.first {
            pipeline.showNotice(problems.count > 1 ? "\(first.description) (and \(problems.count - 1) more)" : first.description)
        }
        if let page = library.namedPage { pipeline.open(at: page, time: window.time) }
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

/// What only the executable does for the viewer: F12 writes a screenshot, H prints the keys.
/// The loop itself (input, deferred turns, idle, resize, images, title) is `FramePipeline.run`.
private final class ViewerHost: FramePipelineDelegate {
    let screenshots: ScreenshotFolder

    init(screenshots: ScreenshotFolder) { self.screenshots = screenshots }

    func pipeline(_ pipeline: FramePipeline, asksFor command: ViewerCommand, at time: Double) {
        switch command {
        case .screenshot:
            do {
                say(try screenshots.save(pipeline.snapshot(at: time)))
            } catch {
                report("cannot write the screenshot: \(Failure(error)?.message ?? "\(error)")")
            }
        case .help: say(KeyMap.help)
        default: break
        }
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

