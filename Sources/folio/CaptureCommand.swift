import ArgumentParser
import FolioBook
import FolioKit
import FolioLayout
import FolioLibrary
import FolioMath
import FolioMuPDF
import FolioPlatform
import FolioReader
import FolioResources
import FolioScript
import Foundation

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render one still of any state to PNG, headless (no display needed).")

    @OptionGroup var render: RenderOptions

    @Option(name: .shortAndLong, help: "Output PNG path (a file, a link to one, a character device such as /dev/stdout, or a FIFO).")
    var output: String = "folio.png"

    @Flag(help: "Replace the output even if it is not a PNG image, or is a page of the library.")
    var force = false

    @OptionGroup var state: StateOptions
    @OptionGroup var tuning: TuningOptions
    @OptionGroup var layer: LayerOptions

    @Option(help: "Mark every place this phrase occurs on the pages of the library's documents (as folio search finds them).")
    var search: String?

    @Flag(help: "Draw the open book's overview (the viewer's G): its pages small, as spreads in rows, the spread shown on its cover board.")
    var overview = false

    @Option(help: ArgumentHelp("Select the words a Shift + drag across the region of page PAGE (1 for the first) of the book shown "
                               + "selects, from its top-left corner to its bottom-right one (fractions of the paper), and mark them "
                               + "as the viewer does.", valueName: "PAGE:x,y,w,h"))
    var select: String?

    func validate() throws {
        try checkPNGName(output, option: "-o")
    }

    func run() throws {
        // The output is checked before anything is drawn: a bad path fails at once.
        let file = OutputFile(output, replace: force ? .always : .onlyPNG, reads: render.reads)
        try file.prepare()
        Interrupt.catchSignals(notice: "interrupted; stopping before the image is written")
        try layOutReflowableBooks()
        layOutOnlyToThePagesShown()
        Timings.mark("start-up and arguments")
        // The library (its documents opened and laid out) loads on another thread while this
        // one makes the GL context; the library's failure comes first.
        let (source, password) = (render.source, render.password)
        HeadlessContext.prepareEnvironment()
        let loading = Worker { try loadLibrary(source, password: password) }
        let made = Result {
            let context = try HeadlessContext.make()
            Timings.mark("EGL context")
            return context
        }
        let library: Library, still: StillState
        do {
            library = try loading.wait().get()
            Timings.mark("library (documents opened and laid out)")
            still = try self.still(of: library)
        } catch {
            (try? made.get())?.destroy()
            throw error
        }
        let pipeline = try render.pipeline(library: library, context: try made.get())
        Timings.mark("renderer (shaders compiled) and page store")
        defer { pipeline.destroy() }
        try draw(still, of: library, with: pipeline, to: file)
        // On standard output the image is the output; its name would only corrupt it.
        if !file.isStandardOutput { print(FileName.printable(output)) }
    }

    /// Lays reflowable books opened from now on out for the pages this still shows: one page or
    /// two as the layout view (`--view`) shows them at the output's size.
    func layOutReflowableBooks() throws {
        let (width, height) = try parseSize(render.size)
        let view = try render.viewSize
        layOutBooks(forWidth: width, height: height, single: !state.vertical && state.pages.isSingle(viewSize: view))
    }

    /// Lays reflowable books out only as far as the pages this still shows, as the viewer opens
    /// them: the rest of the count estimated ("≈" in the layer, the page blocks drawn from it), so
    /// the first page does not wait for the last. What searches or shows every page (`--search`,
    /// `--select`, `--overview`) lays books out whole.
    func layOutOnlyToThePagesShown() {
        guard search == nil, layer.uiSearch == nil, select == nil, !overview else { return }
        MuPDF.laysOutInBackground = true
        // Page number n is the document's page n - 1; its facing page may follow. The spread is
        // checked later (`still(of:)`): one that is no number lays out from the start.
        let spread = state.spread.flatMap { $0.isFinite ? min(max($0, 0), 1e6) : nil } ?? 0
        MuPDF.pagesLaidOutFirst = max(min(state.page ?? 0, 1 << 30), 2 * Int(spread) + 1) + 2
    }

    /// The still these options ask of `library`, once the output is known not to be one of its
    /// pages. What `run` and a batch's captures share before drawing.
    func still(of library: Library) throws -> StillState {
        if !force, let page = Self.page(at: output, in: library) {
            throw Failure(.cannotCreate, "\(output) is \(page) of the library; not replaced (--force replaces it)")
        }
        var still = try state.stillState(view: render.viewSize)
        try tuning.apply(to: &still)
        still.show(library.namedPage)
        if let b = state.book, library.books.indices.contains(b) {
            paintKeptHighlights(of: library.books[b])
            Timings.mark("highlights (state store)")
        }
        if let search { try markHits(of: search, in: library) }
        if let phrase = layer.uiSearch { try markHits(of: phrase, in: library, option: "--ui-search") }
        if let select { try markSelection(select, in: library, book: try still.resolve(library: library.bookInfos).book ?? 0) }
        return still
    }

    /// Draws `still` of `library` with `pipeline` (on that library) and writes it to `file`.
    func draw(_ still: StillState, of library: Library, with pipeline: FramePipeline, to file: OutputFile) throws {
        // A state the library cannot show is a usage error (64), as Failure words it, but for a
        // library whose books have no pages at all (a PDF of none): that is the input's (65).
        do {
            pipeline.draw(try overview ? overviewScene(of: still, in: library) : still.scene(library: library.bookInfos))
        } catch let e as StillStateError where library.books.allSatisfy({ $0.pages.isEmpty }) {
            throw Failure(.data, e.message)
        }
        Timings.mark("frame (pages rasterised, programs linked, drawn)")
        if layer.isOn {
            let v = try still.resolve(library: library.bookInfos)
            layer.draw(on: pipeline, library: library, phase: v.phase, book: v.book, spread: Int(v.spread), singlePage: v.singlePage, scroll: v.scroll)
        }
        if Interrupt.requested { throw Failure(.interrupted, "interrupted; \(output) is not written") }
        // A program is linked when first drawn with: one that does not link fails here.
        if let failure = pipeline.renderer.programFailure { throw failure }
        let pixels = pipeline.target.readPixels()
        Timings.mark("read back")
        try PNG.write(pixels, to: file, compression: render.compression, bottomUp: true)
        Timings.mark("PNG written")
    }

    /// The overview of the book `still` shows open, scrolled to its spread.
    private func overviewScene(of still: StillState, in library: Library) throws -> Scene {
        let v = try still.resolve(library: library.bookInfos)
        guard let b = v.book, v.phase != .shelf else { throw Failure(.usage, "--overview draws an open book: name one with --book N") }
        let (grid, current) = Overview.around(spread: Int(v.spread), singlePage: v.singlePage, of: library.bookInfos[b], viewSize: v.viewSize)
        return grid.scene(index: b, current: current, selected: nil)
    }

    /// What `path` is in `library` ("page 3 of Alice", "the cover of Alice") if it is one of its
    /// images, through any links: a capture must not silently replace the book it shows.
    static func page(at path: String, in library: Library) -> String? {
        guard let target = realpath(FileName.bytes(path), nil).map({ p in defer { free(p) }; return String(cString: p) }) else { return nil }
        for book in library.books {
            for (i, page) in ([book.cover] + book.pages.map(Optional.some)).enumerated() {
                guard let page, let real = realpath(FileName.bytes(page.path), nil) else { continue }
                defer { free(real) }
                if String(cString: real) == target { return i == 0 ? "the cover of \(book.title)" : "page \(i) of \(book.title)" }
            }
        }
        return nil
    }
}

func parseSize(_ text: String) throws -> (Int, Int) {
    let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, (1...16384).contains(parts[0]), (1...16384).contains(parts[1]) else {
        throw ValidationError("--size must be WxH with each side 1…16384, e.g. 1280x720 (got \"\(text)\")")
    }
    // Each frame is held a few times over (target, readback, encoder): 64 Mpx is 256 MB each.
    guard parts[0] * parts[1] <= 8192 * 8192 else {
        throw ValidationError("--size \(text) is \(parts[0] * parts[1] / 1_000_000) megapixels; at most 67 (8192x8192) are drawn")
    }
    return (parts[0], parts[1])
}

/// The documents the commands open (the viewer, capture and the others): one registry, given
/// to every part that opens them, so that each document opens once and a password given once
/// holds for all.
let commandDocuments = DocumentRegistry()

/// The library `source` names; `password` (else FOLIO_PASSWORD) opens protected documents.
func loadLibrary(_ source: String?, password: String? = nil) throws -> Library {
    let path = try resolveSource(source, password: password)
    let library = Library.load(from: path, documents: commandDocuments, logProblems: false)
    try stopIfInterrupted(reading: path)
    report(library.problems)
    try requireBooks(library, source: path)
    UnusableInput.check(library)
    return library
}

/// The source to load (`source`, else the bundled library), once it is known to be there
/// (66 otherwise); `password` (else FOLIO_PASSWORD) will open protected documents.
func resolveSource(_ source: String?, password: String?) throws -> String {
    commandDocuments.password = password ?? ProcessInfo.processInfo.environment["FOLIO_PASSWORD"]
    guard let path = source ?? Resources.textures() else {
        throw Failure(.noInput, "no SOURCE given and the bundled Textures/ folder was not found")
    }
    var st = stat()
    guard stat(FileName.bytes(path), &st) == 0 else { throw Failure(.noInput, "\(path): \(FileError.reason())") }
    return path
}

/// Fails (130) once Ctrl-C or SIGTERM has stopped the walk of the library at `source` (what
/// it found so far is not shown: nothing is drawn or written from half a library).
func stopIfInterrupted(reading source: String) throws {
    if Interrupt.requested { throw Failure(.interrupted, "interrupted while reading \(source); nothing written") }
}

/// Fails (65) when a library has no book (the problems printed before say why; the line names
/// the cause too when there was one, for a batch's one-line reason).
func requireBooks(_ library: Library, source: String) throws {
    guard library.books.isEmpty else { return }
    let errors = library.problems.filter { $0.severity == .error }
    let cause = errors.count == 1 ? " (\(errors[0].message))" : ""
    throw Failure(.data, "\(source): no book could be opened" + cause)
}
