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

    struct Rates: Codable {
        var firstPageMs: Double
        var pagesPerSecond: Double
        var pagesPerSecondWorkers: Double

        enum CodingKeys: String, CodingKey {
            case firstPageMs = "first_page_ms", pagesPerSecond = "pages_per_second", pagesPerSecondWorkers = "pages_per_second_workers"
        }
    }

    enum CodingKeys: String, CodingKey {
        case file, format, pages, workers, mupdf
        case firstPageMs = "first_page_ms", pagesPerSecond = "pages_per_second"
        case pagesPerSecondWorkers = "pages_per_second_workers", mutoolPagesPerSecond = "mutool_pages_per_second"
    }

    var line: String {
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        return "\((file as NSString).lastPathComponent) (\(format), \(pages) pages): first page \(f(firstPageMs)) ms, "
            + "\(f(pagesPerSecond)) pages/s on 1 thread, \(f(pagesPerSecondWorkers)) on \(workers)"
            + (mupdf.map { "; through MuPDF: first page \(f($0.firstPageMs)) ms, \(f($0.pagesPerSecond)) pages/s, \(f($0.pagesPerSecondWorkers)) on \(workers)" } ?? "")
            + (mutoolPagesPerSecond.map { "; mutool draw \(f($0)) pages/s" } ?? "")
    }
}

enum DocumentBench {
    /// Pages rasterised per document and figure.
    static let maxPages = 100

    /// The documents of `folder` (or the one document `folder` names), each measured at
    /// pages `height` pixels high.
    static func measure(_ folder: String, height: Int) throws -> [DocumentResult] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw Failure(.noInput, "\(folder): no such file or folder")
        }
        let files = isFolder.boolValue
            ? try FileName.list(folder).sorted(by: naturalLess).map { folder + "/" + $0 }
            : [folder]
        return try files.compactMap { path in
            guard let format = PageSources.format(of: path) else { return nil }
            return try measure(path, format: format, height: height)
        }
    }

    private static let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)

    private static func measure(_ path: String, format: PageSourceFormat, height: Int) throws -> DocumentResult {
        let (pages, rates) = try rates(path, format: format, height: height)
        let pdf = format.extensions.contains("pdf")
        let n = min(pages, maxPages)
        return DocumentResult(file: path, format: format.name, pages: pages, firstPageMs: rates.firstPageMs,
                              pagesPerSecond: rates.pagesPerSecond, workers: workers, pagesPerSecondWorkers: rates.pagesPerSecondWorkers,
                              mupdf: pdf ? try? Self.rates(path, format: MuPDF.format("PDF", ["pdf"]), height: height).1 : nil,
                              mutoolPagesPerSecond: pdf && n > 0 ? mutool(path, pages: n, height: height) : nil)
    }

    /// A fresh document's page count and rates: open + first page, then up to `maxPages`
    /// pages on one thread, then on `workers`.
    private static func rates(_ path: String, format: PageSourceFormat, height: Int) throws -> (Int, DocumentResult.Rates) {
        let fit = PixelSize(width: height * 4, height: height)
        let t0 = Date()
        let doc = try format.open(path, PageSources.documents.password)
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
