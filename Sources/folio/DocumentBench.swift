import FolioBook
import FolioImage
import FolioMuPDF
import Foundation

/// `folio bench --documents FOLDER`: how fast each document of a folder (PDF, EPUB, DjVu, any
/// registered format) opens and rasterises at the height a page is shown at, on one thread
/// and on workers, against the reference tool for its format run in the same run on the same
/// pages at the same height (`mutool draw` for what MuPDF reads, PDFs included; `ddjvu` for
/// DjVu); PDFs also through the other engine (MuPDF in-process). Figures, not pass/fail; in
/// JSON its keys are in snake case (`Report.json`).
struct DocumentResult: Codable {
    var file: String
    var format: String
    var pages: Int
    /// The height pages are rasterised at, in pixels.
    var height: Int
    /// Opening the file and rasterising its first page (a fresh document, not a cached one).
    var firstPageMs: Double
    var pagesPerSecond: Double
    /// CPU time per page on one thread: on a busy machine a steadier comparison than wall time.
    var cpuMsPerPage: Double
    var workers: Int
    var pagesPerSecondWorkers: Double
    /// The same PDF through MuPDF in this process (Folio draws PDFs with poppler).
    var mupdf: Rates?
    /// The reference tool on the same pages at the same height (nil when it is not installed).
    var tool: Tool?
    /// A reflowable book as the viewer opens it and lays it out again.
    var reflow: Reflow?

    struct Reflow: Codable {
        /// Opening it on its first chapters and rasterising its first page.
        var firstPageMs: Double
        var estimatedPages: Int
        /// Laying it out whole at the same size (in the background, in the viewer).
        var wholeLayoutMs: Double
        /// Laying it out 1 pt larger as far as the middle page's text (the count estimated beyond),
        /// and rasterising the page found: the time until the re-laid page shows.
        var largerTextMs: Double
        /// Then laying the rest out at that size (in the background, in the viewer).
        var largerTextWholeMs: Double
        /// Laying it out for a wider page (a window of 1600 × 720), keeping the same text, and
        /// rasterising the page found.
        var widerPageMs: Double
        /// Frames per second the bench's page turn drew on the calling thread while the book was
        /// laid out 1 pt larger on another, as the viewer goes on drawing: until the re-laid page,
        /// then while the rest was laid out; and alone, before.
        var fpsDuringRelayout: Double?
        var fpsDuringWholeLayout: Double?
        var fpsAlone: Double?

    }

    struct Rates: Codable {
        var firstPageMs: Double
        var pagesPerSecond: Double
        var cpuMsPerPage: Double
        var pagesPerSecondWorkers: Double
    }

    /// A command-line rasteriser run as a subprocess, its output thrown away: its first page
    /// (the process started, the file opened, page 1 drawn) and its rate over the pages Folio drew.
    struct Tool: Codable {
        var name: String
        var firstPageMs: Double
        var pagesPerSecond: Double
        var cpuMsPerPage: Double
    }

    /// Folio's rate over the tool's, on one thread and on the workers (nil without the tool).
    var ratios: (one: Double, workers: Double)? {
        tool.map { (pagesPerSecond / $0.pagesPerSecond, pagesPerSecondWorkers / $0.pagesPerSecond) }
    }

    /// The frame rate drawn during a relayout, beside the rate alone.
    private func turning(_ r: Reflow) -> String {
        guard let during = r.fpsDuringRelayout, let rest = r.fpsDuringWholeLayout, let alone = r.fpsAlone else { return "" }
        return String(format: ", turning at %.1f fps until the re-laid page and %.1f while the rest was laid out (%.1f alone)",
                      during, rest, alone)
    }

    var line: String {
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        func x(_ r: Double) -> String { String(format: "%.2f×", r) }
        let drawn = min(pages, DocumentBench.maxPages)
        return "\((file as NSString).lastPathComponent) (\(format), \(pages) pages, \(drawn) drawn \(height) px high): "
            + "first page \(f(firstPageMs)) ms, \(f(pagesPerSecond)) pages/s on 1 thread (\(f(cpuMsPerPage)) ms CPU a page), "
            + "\(f(pagesPerSecondWorkers)) on \(workers)"
            + (tool.map { "; \($0.name): first page \(f($0.firstPageMs)) ms, \(f($0.pagesPerSecond)) pages/s (\(f($0.cpuMsPerPage)) ms CPU a page)" }
                ?? "; no reference tool installed")
            + (ratios.map { "; Folio/\(tool?.name ?? ""): \(x($0.one)) on 1 thread, \(x($0.workers)) on \(workers)" } ?? "")
            + (mupdf.map { "; through MuPDF: first page \(f($0.firstPageMs)) ms, \(f($0.pagesPerSecond)) pages/s, \(f($0.pagesPerSecondWorkers)) on \(workers)" } ?? "")
            + (reflow.map { r in "; as the viewer opens it: first page \(f(r.firstPageMs)) ms (≈\(r.estimatedPages) pages), "
                + "whole layout \(f(r.wholeLayoutMs)) ms, 1 pt larger: the re-laid page in \(f(r.largerTextMs)) ms, "
                + "the rest \(f(r.largerTextWholeMs)) ms after, wider page \(f(r.widerPageMs)) ms"
                + turning(r) } ?? "")
    }
}

enum DocumentBench {
    /// Pages rasterised per document and figure.
    static let maxPages = 100

    /// The documents of `folder` (or the one document `folder` names), each measured at
    /// pages `height` pixels high; `frame` (drawing one frame) is drawn while a book is laid out
    /// again, to measure the frame rate meanwhile.
    static func measure(_ folder: String, height: Int, frame: (() -> Void)? = nil) throws -> [DocumentResult] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw Failure(.noInput, "\(folder): no such file or folder")
        }
        let files = isFolder.boolValue
            ? try FileName.list(folder).sorted(by: naturalLess).map { folder + "/" + $0 }
            : [folder]
        return try files.compactMap { path in
            guard let format = PageSources.format(of: path) else { return nil }
            return try measure(path, format: format, height: height, frame: frame)
        }
    }

    private static let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)

    private static func measure(_ path: String, format: PageSourceFormat, height: Int, frame: (() -> Void)?) throws -> DocumentResult {
        let (doc, rates) = try rates(path, format: format, height: height)
        let pdf = format.extensions.contains("pdf")
        let n = min(doc.pageCount, maxPages)
        return DocumentResult(file: path, format: format.name, pages: doc.pageCount, height: height, firstPageMs: rates.firstPageMs,
                              pagesPerSecond: rates.pagesPerSecond, cpuMsPerPage: rates.cpuMsPerPage, workers: workers,
                              pagesPerSecondWorkers: rates.pagesPerSecondWorkers,
                              mupdf: pdf ? try? Self.rates(path, format: MuPDF.format("PDF", ["pdf"]), height: height).1 : nil,
                              tool: n > 0 ? tool(path, doc, format: format, pages: n, height: height) : nil,
                              reflow: try reflow(path, format: format, height: height, frame: frame))
    }

    /// A reflowable book's times as the viewer has them: opened on its first chapters with its
    /// first page drawn, laid out whole, then laid out 1 pt larger as far as the place with the
    /// page found drawn and the rest laid out after, then for a wider page with the page found drawn.
    private static func reflow(_ path: String, format: PageSourceFormat, height: Int, frame: (() -> Void)?) throws -> DocumentResult.Reflow? {
        let fit = PixelSize(width: height * 4, height: height)
        MuPDF.laysOutInBackground = true
        defer { MuPDF.laysOutInBackground = false }
        let t0 = Date()
        guard let first = try format.open(path, commandDocuments.password) as? any ReflowableSource, first.reflowable else { return nil }
        if first.pageCount > 0 { _ = try first.render(page: 0, fit: fit) }
        let t1 = Date()
        let (whole, _) = try first.relaid(fontSize: first.fontSize, keeping: first.place(ofPage: 0))
        let t2 = Date()
        let alone = frame.map { frame in
            let t = Date()
            for _ in 0..<framesAlone { frame() }
            return Double(framesAlone) / max(Date().timeIntervalSince(t), 1e-9)
        }
        let t2b = Date()
        let ((larger, page), during) = try whileDrawing(frame) {
            let (larger, page) = try whole.relaid(fontSize: whole.fontSize + 1, keeping: whole.place(ofPage: whole.pageCount / 2))
            _ = try larger.render(page: page, fit: fit)
            return (larger, page)
        }
        let t3 = Date()
        let (rest, duringRest) = try whileDrawing(frame) { try larger.relaid(fontSize: larger.fontSize, keeping: larger.place(ofPage: page)).source }
        let t3b = Date()
        let aspect = Book.reflowAspect(viewWidth: 1600, viewHeight: 720, pagesAcross: 2)
        let (wider, shown) = try rest.relaid(fontSize: rest.fontSize, pageAspect: aspect, keeping: rest.place(ofPage: page))
        _ = try wider.render(page: shown, fit: fit)
        let t4 = Date()
        return DocumentResult.Reflow(firstPageMs: t1.timeIntervalSince(t0) * 1000, estimatedPages: first.pageCount,
                                     wholeLayoutMs: t2.timeIntervalSince(t1) * 1000, largerTextMs: t3.timeIntervalSince(t2b) * 1000,
                                     largerTextWholeMs: t3b.timeIntervalSince(t3) * 1000, widerPageMs: t4.timeIntervalSince(t3b) * 1000,
                                     fpsDuringRelayout: during, fpsDuringWholeLayout: duringRest, fpsAlone: alone)
    }

    /// Frames drawn alone for the reference frame rate.
    private static let framesAlone = 20

    /// `work`'s result, run on a thread of its own while this one draws `frame` after frame until
    /// it is done (as the viewer's loop goes on while a book is laid out), and the frames per
    /// second drawn meanwhile (nil without `frame`: this thread just waits).
    private static func whileDrawing<T>(_ frame: (() -> Void)?, _ work: @escaping @Sendable () throws -> T) throws -> (T, Double?) {
        let worker = Worker(work)
        let t = Date()
        var frames = 0
        if let frame {
            while worker.wait(until: .now()) == nil {
                frame()
                frames += 1
            }
        }
        let fps = frame.map { _ in Double(frames) / max(Date().timeIntervalSince(t), 1e-9) }
        return (try worker.wait().get(), fps)
    }

    /// A fresh document (laid out whole) and its rates: open + first page, then up to
    /// `maxPages` pages on one thread, then on `workers` on a document opened anew (so that no
    /// engine's cache of decoded pages serves the second pass).
    private static func rates(_ path: String, format: PageSourceFormat, height: Int) throws -> (any PageSource, DocumentResult.Rates) {
        let fit = PixelSize(width: height * 4, height: height)
        let t0 = Date()
        let doc = try format.open(path, commandDocuments.password)
        if doc.pageCount > 0 { _ = try doc.render(page: 0, fit: fit) }
        let first = Date().timeIntervalSince(t0)
        let n = min(doc.pageCount, maxPages)
        let t1 = Date(), cpu1 = processCPUSeconds()
        // Each page's pixels go back to the pool once drawn, as the page store gives them back
        // once uploaded: the next page is drawn into them.
        for i in 0..<n { PixelPool.shared.giveBack(try? doc.render(page: i, fit: fit).image) }
        let one = Double(n) / max(Date().timeIntervalSince(t1), 1e-9), cpu = (processCPUSeconds() - cpu1) * 1000 / Double(max(n, 1))
        let fresh = try format.open(path, commandDocuments.password)
        let t2 = Date()
        DispatchQueue.concurrentPerform(iterations: n) { i in PixelPool.shared.giveBack(try? fresh.render(page: i, fit: fit).image) }
        let many = Double(n) / max(Date().timeIntervalSince(t2), 1e-9)
        return (doc, DocumentResult.Rates(firstPageMs: first * 1000, pagesPerSecond: one, cpuMsPerPage: cpu, pagesPerSecondWorkers: many))
    }

    /// The reference rasteriser for the format of `doc` (opened from `path`) on pages 1…`pages` at `height` pixels high:
    /// `ddjvu` for DjVu, `mutool draw` for what MuPDF reads (a reflowable book laid out on
    /// Folio's page box at Folio's text size); nil for other formats or when it is missing.
    private static func tool(_ path: String, _ doc: any PageSource, format: PageSourceFormat, pages: Int, height: Int) -> DocumentResult.Tool? {
        if format.name == "DjVu" {
            // Width to spare: the height sets the scale, as on a page shown that high.
            return run("ddjvu", pages: pages) { ["-format=ppm", "-size=\(height * 4)x\(height)", "-page=1-\($0)", path, "/dev/null"] }
        }
        guard format.extensions.contains("pdf") || MuPDF.formats.contains(where: { $0.name == format.name }) else { return nil }
        var layout: [String] = []
        if let book = doc as? any ReflowableSource, book.reflowable, let size = doc.pageSize(0) {
            layout = ["-W", String(format: "%.2f", size.width), "-H", String(format: "%.2f", size.height), "-S", String(book.fontSize)]
        }
        return run("mutool", pages: pages) { ["draw", "-q", "-h", String(height)] + layout + [path, "1-\($0)"] }
    }

    /// `tool` run on page 1, then on pages 1…`pages` (`arguments` given the last page): its
    /// first page, pages/s and CPU per page; nil when it is not installed or fails.
    private static func run(_ tool: String, pages: Int, arguments: (Int) -> [String]) -> DocumentResult.Tool? {
        guard let executable = executable(named: tool) else { return nil }
        func time(_ last: Int) -> (wall: Double, cpu: Double)? {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = arguments(last)
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            let t0 = Date(), cpu0 = children()
            guard (try? p.run()) != nil else { return nil }
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { return nil }
            return (Date().timeIntervalSince(t0), children() - cpu0)
        }
        guard let first = time(1), let all = time(pages) else { return nil }
        return DocumentResult.Tool(name: tool == "mutool" ? "mutool draw" : tool, firstPageMs: first.wall * 1000,
                                   pagesPerSecond: Double(pages) / max(all.wall, 1e-9), cpuMsPerPage: all.cpu * 1000 / Double(pages))
    }

    /// CPU seconds of this process's children that have ended.
    private static func children() -> Double { processCPUSeconds(children: true) - processCPUSeconds() }
}
