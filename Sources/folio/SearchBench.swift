import FolioBook
import FolioFind
import Foundation

/// `folio bench --search DOC PHRASE`: how long a search of one document takes: opening it (a
/// reflowable book is laid out), then from the open document to the first hit and through the
/// whole book, pages per second, on one thread and on the machine's cores.
struct SearchResult: Codable {
    var file: String
    var phrase: String
    var pages: Int
    var hits: Int
    var openMs: Double
    /// From the search's start (the document open, as in the viewer) to its first hit; nil when
    /// none was found.
    var firstHitMs: Double?
    /// The search of every page, the document open.
    var wholeMs: Double
    /// The CPU time of that search, all threads: what it costs on a busy machine.
    var cpuMs: Double
    var pagesPerSecond: Double
    var workers: Int

    enum CodingKeys: String, CodingKey {
        case file, phrase, pages, hits, workers
        case openMs = "open_ms", firstHitMs = "first_hit_ms", wholeMs = "whole_ms", cpuMs = "cpu_ms", pagesPerSecond = "pages_per_second"
    }

    var line: String {
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        return "search \((file as NSString).lastPathComponent) (\(pages) pages) for \"\(phrase)\" on \(workers) thread\(workers == 1 ? "" : "s"): "
            + "\(hits) hits, opened in \(f(openMs)) ms, first hit \(firstHitMs.map { f($0) + " ms" } ?? "none"), "
            + "whole book \(f(wholeMs)) ms (CPU \(f(cpuMs)) ms), \(f(pagesPerSecond)) pages/s"
    }
}

enum SearchBench {
    /// Searches `path` for `text` on one thread, then on `cores` threads, each time with the
    /// document opened afresh (nothing of the first run's text is kept for the second).
    static func measure(_ path: String, phrase text: String, password: String?, cores: Int) throws -> [SearchResult] {
        let phrase = try parsePhrase(text, "--search: ")
        let resolved = try resolveSource(path, password: password)
        guard let format = PageSources.format(of: resolved) else { throw Failure(.data, "\(path): not a document Folio reads") }
        return try Set([1, cores]).sorted().map { workers in
            let start = ContinuousClock.now
            // Opened here, not through the documents kept open, so each run starts cold.
            let source: PageSource
            do { source = try format.open(resolved, commandDocuments.password) } catch { throw Failure(.data, "\(error)") }
            let opened = ContinuousClock.now, cpu = processCPUSeconds()
            var first: ContinuousClock.Instant?
            let search = Search(phrase, in: PageTextCache(source: source))
            search.run(workers: workers) { _, _ in if first == nil { first = .now } }
            let end = ContinuousClock.now, cpuMs = (processCPUSeconds() - cpu) * 1000
            let progress = search.progress
            if progress.noText { throw Failure(.data, "\(path): this book has no text to search") }
            let whole = ms(end - opened)
            return SearchResult(file: path, phrase: phrase.text, pages: progress.pageCount, hits: progress.hits.count,
                                openMs: ms(opened - start), firstHitMs: first.map { ms($0 - opened) }, wholeMs: whole, cpuMs: cpuMs,
                                pagesPerSecond: Double(progress.pageCount) / max(whole / 1000, 1e-9), workers: workers)
        }
    }

    private static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) * 1e-15
    }
}
