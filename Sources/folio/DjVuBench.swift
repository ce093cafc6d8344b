import FolioBook
import Foundation

/// DjVu rasterisation speed at the size pages are shown at: Folio (djvulibre through
/// FolioDjVu, one document, one thread) against djvulibre's own `ddjvu` run as a subprocess
/// on the same pages in the same run. Figures, not pass/fail.
struct DjVuBench: Codable {
    var pages: Int
    var height: Int
    var folioPagesPerSecond: Double
    var folioFirstPageMs: Double
    /// CPU time per page (all threads): on a busy machine a steadier comparison than wall time.
    var folioCPUMsPerPage: Double
    /// Nil when `ddjvu` (djvulibre-bin) is not installed.
    var ddjvuPagesPerSecond: Double?
    var ddjvuCPUMsPerPage: Double?

    /// Renders the first `maxPages` pages of `path` at `height` pixels high with Folio, then
    /// with `ddjvu -format=ppm -size=…` (its output thrown away).
    static func measure(path: String, height: Int = 931, maxPages: Int = 100) throws -> DjVuBench {
        guard let format = PageSources.format(of: path), format.name == "DjVu" else {
            throw Failure(.usage, "\(path): not a DjVu document (.djvu, .djv)")
        }
        let start = Date(), cpu0 = processCPUSeconds()
        let document = try format.open(path, nil)
        let pages = min(maxPages, document.pageCount)
        // Width to spare: the height sets the scale, as on a page shown that high.
        let fit = PixelSize(width: height * 8, height: height)
        var first = 0.0
        for i in 0..<pages {
            _ = try document.render(page: i, fit: fit)
            if i == 0 { first = Date().timeIntervalSince(start) }
        }
        let folio = Date().timeIntervalSince(start), folioCPU = processCPUSeconds() - cpu0
        var ddjvu: (wall: Double, cpu: Double)?
        if let tool = executable(named: "ddjvu") {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = ["-format=ppm", "-size=\(fit.width)x\(height)", "-page=1-\(pages)", path, "/dev/null"]
            p.standardError = FileHandle.nullDevice
            let t0 = Date(), children0 = processCPUSeconds(children: true) - processCPUSeconds()
            try p.run()
            p.waitUntilExit()
            let cpu = processCPUSeconds(children: true) - processCPUSeconds() - children0
            if p.terminationStatus == 0 { ddjvu = (Date().timeIntervalSince(t0), cpu) }
        }
        let n = Double(pages)
        return DjVuBench(pages: pages, height: height, folioPagesPerSecond: n / folio, folioFirstPageMs: first * 1000,
                         folioCPUMsPerPage: folioCPU * 1000 / n, ddjvuPagesPerSecond: ddjvu.map { n / $0.wall },
                         ddjvuCPUMsPerPage: ddjvu.map { $0.cpu * 1000 / n })
    }

    var line: String {
        let vs = ddjvuPagesPerSecond.map { String(format: ", ddjvu %.1f pages/s (%.1f ms CPU a page)", $0, ddjvuCPUMsPerPage ?? 0) }
        return String(format: "DjVu at %d px high, %d pages: Folio %.1f pages/s (%.1f ms CPU a page, first page %.0f ms)", height, pages,
                      folioPagesPerSecond, folioCPUMsPerPage, folioFirstPageMs) + (vs ?? " (ddjvu not installed)")
    }

    var json: String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? e.encode(self)) ?? Data(), as: UTF8.self)
    }
}
