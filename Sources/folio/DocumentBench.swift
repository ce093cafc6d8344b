import FolioBook
import FolioMuPDF
import Foundation

/// `folio bench --documents FOLDER`: how fast each document of a folder (PDF, EPUB, any
/// registered format) opens and rasterises at the height a page is shown at, on one thread
/// and on workers; PDFs also through the other engine (MuPDF in-process) and `mutool draw` run
/// in the same run, for comparison.
struct DocumentResult: Codable {
    var file: String
    var format: String
    var pages: Int
    /// Opening the file and rasterising its first page (a fresh document, not a cached one).
    var firstPageMs: Double
    var pagesPerSecond: Double
    var workers: Int
    var pagesPerSecondWorkers: Double
    /// The same PDF through MuPDF in this process (Folio draws PDFs with poppler).
    var mupdf: Rates?
    /// `mutool draw` on the same pages at the same height (PDFs, when mutool is installed).
    var mutoolPagesPerSecond: Double?
    /// A reflowable book as the viewer opens it and lays it out again.
    var reflow: Reflow?

    struct Reflow: Codable {
        /// Opening it on its first chapters and rasterising its first page.
        var firstPageMs: Double
        var estimatedPages: Int
        /// Laying it out whole at the same size (in the background, in the viewer).
        var wholeLayoutMs: Double
        /// Laying it out 1 pt larger, keeping the middle page's text, and rasterising the page found.
        var largerTextMs: Double
        /// Laying it out for a wider page (a window of 1600 × 720), keeping the same text, and
        /// rasterising the page found.
        var widerPageMs: Double
        /// Frames per second the bench's page turn drew on the calling thread while the book was
        /// laid out 1 pt larger on another, as the viewer goes on drawing; and alone, before.
        var fpsDuringRelayout: Double?
        var fpsAlone: Double?

        enum CodingKeys: String, CodingKey {
            case firstPageMs = "first_page_ms", estimatedPages = "estimated_pages", wholeLayoutMs = "whole_layout_ms"
            case largerTextMs = "larger_text_ms", widerPageMs = "wider_page_ms"
            case fpsDuringRelayout = "fps_during_relayout", fpsAlone = "fps_alone"
        }
    }

    struct Rates: Codable {
        var firstPageMs: Double
        var pagesPerSecond: Double
        var pagesPerSecondWorkers: Double

        enum CodingKeys: String, CodingKey {
            case firstPageMs = "first_page_ms", pagesPerSecond = "pages_per_second", pagesPerSecondWorkers = "pages_per_second_workers"
        }
    }

    enum CodingKeys: String, CodingKey {
        case file, format, pages, workers, mupdf, reflow
        case firstPageMs = "first_page_ms", pagesPerSecond = "pages_per_second"
        case pagesPerSecondWorkers = "pages_per_second_workers", mutoolPagesPerSecond = "mutool_pages_per_second"
    }

    /// The frame rate drawn during a relayout, beside the rate alone.
    private func turning(_ r: Reflow) -> String {
        guard let during = r.fpsDuringRelayout, let alone = r.fpsAlone else { return "" }
        return String(format: ", turning at %.1f fps during the 1 pt relayout (%.1f alone)", during, alone)
    }

    var line: String {
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        return "\((file as NSString).lastPathComponent) (\(format), \(pages) pages): first page \(f(firstPageMs)) ms, "
            + "\(f(pagesPerSecond)) pages/s on 1 thread, \(f(pagesPerSecondWorkers)) on \(workers)"
            + (mupdf.map { "; through MuPDF: first page \(f($0.firstPageMs)) ms, \(f($0.pagesPerSecond)) pages/s, \(f($0.pagesPerSecondWorkers)) on \(workers)" } ?? "")
            + (mutoolPagesPerSecond.map { "; mutool draw \(f($0)) pages/s" } ?? "")
            + (reflow.map { r in "; as the viewer opens it: first page \(f(r.firstPageMs)) ms (≈\(r.estimatedPages) pages), "
                + "whole layout \(f(r.wholeLayoutMs)) ms, 1 pt larger \(f(r.largerTextMs)) ms, wider page \(f(r.widerPageMs)) ms"
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
        let (pages, rates) = try rates(path, format: format, height: height)
        let pdf = format.extensions.contains("pdf")
        let n = min(pages, maxPages)
        return DocumentResult(file: path, format: format.name, pages: pages, firstPageMs: rates.firstPageMs,
                              pagesPerSecond: rates.pagesPerSecond, workers: workers, pagesPerSecondWorkers: rates.pagesPerSecondWorkers,
                              mupdf: pdf ? try? Self.rates(path, format: MuPDF.format("PDF", ["pdf"]), height: height).1 : nil,
                              mutoolPagesPerSecond: pdf && n > 0 ? mutool(path, pages: n, height: height) : nil,
                              reflow: try reflow(path, format: format, height: height, frame: frame))
    }

    /// A reflowable book's times as the viewer has them: opened on its first chapters with its
    /// first page drawn, laid out whole, then laid out 1 pt larger with the page found drawn, then
    /// for a wider page with the page found drawn.
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
        let aspect = Book.reflowAspect(viewWidth: 1600, viewHeight: 720, pagesAcross: 2)
        let (wider, shown) = try larger.relaid(fontSize: larger.fontSize, pageAspect: aspect, keeping: larger.place(ofPage: page))
        _ = try wider.render(page: shown, fit: fit)
        let t4 = Date()
        return DocumentResult.Reflow(firstPageMs: t1.timeIntervalSince(t0) * 1000, estimatedPages: first.pageCount,
                                     wholeLayoutMs: t2.timeIntervalSince(t1) * 1000, largerTextMs: t3.timeIntervalSince(t2b) * 1000,
                                     widerPageMs: t4.timeIntervalSince(t3) * 1000, fpsDuringRelayout: during, fpsAlone: alone)
    }

    /// Frames drawn alone for the reference frame rate.
    private static let framesAlone = 20

    /// `work`'s result, run on a thread of its own while this one draws `frame` after frame until
    /// it is done (as the viewer's loop goes on while a book is laid out), and the frames per
    /// second drawn meanwhile (nil without `frame`: this thread just waits).
    private static func whileDrawing<T>(_ frame: (() -> Void)?, _ work: @escaping @Sendable () throws -> T) throws -> (T, Double?) {
        let outcome = WorkOutcome<T>()
        Thread.detachNewThread {
            outcome.value = Result { try work() }
            outcome.done.signal()
        }
        let t = Date()
        var frames = 0
        if let frame {
            while outcome.done.wait(timeout: DispatchTime.now()) != .success {
                frame()
                frames += 1
            }
        } else {
            outcome.done.wait()
        }
        let fps = frame.map { _ in Double(frames) / max(Date().timeIntervalSince(t), 1e-9) }
        return (try outcome.value!.get(), fps)
    }

    /// A fresh document's page count and rates: open + first page, then up to `maxPages`
    /// pages on one thread, then on `workers`.
    private static func rates(_ path: String, format: PageSourceFormat, height: Int) throws -> (Int, DocumentResult.Rates) {
        let fit = PixelSize(width: height * 4, height: height)
        let t0 = Date()
        let doc = try format.open(path, commandDocuments.password)
        if doc.pageCount > 0 { _ = try doc.render(page: 0, fit: fit) }
        let first = Date().timeIntervalSince(t0)
        let n = min(doc.pageCount, maxPages)
        let t1 = Date()
        for i in 0..<n { _ = try? doc.render(page: i, fit: fit) }
        let one = Double(n) / max(Date().timeIntervalSince(t1), 1e-9)
        let t2 = Date()
        DispatchQueue.concurrentPerform(iterations: n) { i in _ = try? doc.render(page: i, fit: fit) }
        let many = Double(n) / max(Date().timeIntervalSince(t2), 1e-9)
        return (doc.pageCount, DocumentResult.Rates(firstPageMs: first * 1000, pagesPerSecond: one, pagesPerSecondWorkers: many))
    }

    /// Pages per second of `mutool draw` rasterising (and discarding) pages 1…`pages`.
    private static func mutool(_ path: String, pages: Int, height: Int) -> Double? {
        guard let mutool = executable(named: "mutool") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: mutool)
        p.arguments = ["draw", "-q", "-h", String(height), path, "1-\(pages)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        let t0 = Date()
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return Double(pages) / max(Date().timeIntervalSince(t0), 1e-9)
    }
}

/// What a worker gave, read once it signalled `done`.
private final class WorkOutcome<T>: @unchecked Sendable {
    // @unchecked: `value` is written once by the worker before `done` is signalled.
    var value: Result<T, Error>?
    let done = DispatchSemaphore(value: 0)
}
