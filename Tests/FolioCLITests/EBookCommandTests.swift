import Foundation
import Testing

/// `info` and `batch` on generated e-books (FolioDocumentsTests' make_ebooks.py): `info` says
/// "≈" for a book whose layout did not complete within its bound and an exact count otherwise;
/// `capture` lays a book out as far as its page; `batch` lays reflowable books out for each
/// job's page shape, as `capture` does.
@Suite(.serialized) struct EBookCommandTests {
    static let books: URL? = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-ebook-commands-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FolioDocumentsTests/Fixtures/make_ebooks.py")
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil,
              let made = try? FolioProcess.run("/usr/bin/python3", [script.path, dir.path], timeout: 60),
              made.status == 0 else { return nil }
        return dir
    }()

    /// `folio arguments` run in `dir`, keeping its layouts in `cache` (`XDG_CACHE_HOME`) when given.
    private func folio(_ arguments: [String], in dir: URL, cache: URL? = nil) throws -> FolioProcess.Result {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        var environment = ProcessInfo.processInfo.environment
        if let cache { environment["XDG_CACHE_HOME"] = cache.path }
        let r = try FolioProcess.run(binary.path, arguments, environment: environment, directory: dir.path, timeout: 120)
        #expect(!r.timedOut)
        return r
    }

    /// A folder of a quick book and one whose second chapter takes MuPDF seconds: with a bound of
    /// half a second the slow one is "≈" its estimated pages, with the pages laid out and a note;
    /// the quick one is exact.
    @Test func infoEstimatesTheBookItCouldNotLayOutInTime() throws {
        let books = try #require(Self.books, "python3 missing")
        let dir = books.appendingPathComponent("info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in ["slow-layout.epub", "reflow2.epub"] {
            try FileManager.default.copyItem(at: books.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        let r = try folio(["info", "--page-timeout", "0.5", dir.path], in: books)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let counts = lines.filter { $0.contains("EPUB, ") }
        #expect(counts.count == 2, "\(r.stdout)")
        #expect(counts.contains { $0.contains("EPUB, ≈") && $0.contains("laid out), left to right") }, "\(r.stdout)")
        #expect(counts.contains { !$0.contains("≈") && !$0.contains("laid out") && $0.contains(" pages, left to right") }, "\(r.stdout)")
        #expect(r.stdout.contains("laying out took over 0.5 s; showing the first 1 of 3 chapters"), "\(r.stdout)")
    }

    /// A book whose layout takes a while shows its chapters counted on a terminal while a search
    /// waits for it (a long book's first search lays it out whole), never when standard error is
    /// a file.
    @Test(.enabled(if: FolioProcess.available("script"), "needs script (apt-get install bsdutils)"))
    func aSearchShowsTheLayoutsProgressOnATerminal() throws {
        let books = try #require(Self.books, "python3 missing")
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let cache = books.appendingPathComponent("cache-\(UUID().uuidString)")
        let command = "XDG_CACHE_HOME=\(cache.path) \(binary.path) search \(books.appendingPathComponent("slow-layout.epub").path) slow"
        let terminal = try FolioProcess.run("/usr/bin/env", ["script", "-qec", command, "/dev/null"], timeout: 120)
        #expect(terminal.stdout.contains("\r\u{1B}[Kfolio search: laying out: "), "\(terminal.stdout)")
        #expect(terminal.stdout.contains(" chapters, "), "\(terminal.stdout)")
        let file = try folio(["search", "slow-layout.epub", "slow"], in: books, cache: cache)
        #expect(file.status == 0 && !file.stderr.contains("laying out"), "\(file.stderr)")
    }

    /// A capture lays a book out only as far as the page it shows, yet lands on a page past what
    /// its first chapters estimate (chapters of a line a page: about 20 pages estimated of 208);
    /// a page past the end is refused as before. Once a run has laid the book out whole, the
    /// next knows its pages at once (the layouts kept in `XDG_CACHE_HOME`).
    @Test func aCaptureLaysTheBookOutAsFarAsThePageItShows() throws {
        let books = try #require(Self.books, "python3 missing")
        let cache = books.appendingPathComponent("cache-\(UUID().uuidString)")
        let late = try folio(["capture", "page-breaks.epub", "--size", "320x180", "--page", "200", "-o", "late.png"], in: books)
        #expect(late.status == 0, "\(late.stderr)")
        let past = try folio(["capture", "page-breaks.epub", "--size", "320x180", "--page", "209", "-o", "past.png"], in: books)
        #expect(past.status == 64 && past.stderr.contains("not 209"), "\(past.stderr)")
        // At page 1 only the first chapters are laid out: the page blocks are the estimate's,
        // not those of the whole book, which a capture that searches lays out (finding nothing).
        let first = try folio(["capture", "page-breaks.epub", "--size", "320x180", "--page", "1", "-o", "first.png"], in: books, cache: cache)
        let whole = try folio(["capture", "page-breaks.epub", "--size", "320x180", "--page", "1", "--search", "zzq qqz", "-o", "whole.png"],
                              in: books, cache: cache)
        let again = try folio(["capture", "page-breaks.epub", "--size", "320x180", "--page", "1", "-o", "again.png"], in: books, cache: cache)
        try #require(first.status == 0 && whole.status == 0 && again.status == 0, "\(first.stderr) \(whole.stderr) \(again.stderr)")
        let png = { (name: String) in FileManager.default.contents(atPath: books.appendingPathComponent(name).path) }
        #expect(png("first.png") != png("whole.png"))
        #expect(png("again.png") == png("whole.png"))
    }

    /// A recording of a book that opens on its first chapters is the same, byte for byte, each
    /// time: frames wait for the whole layout started in the background, and for the sharper
    /// image of a page the opening brings closer, so neither lands in whichever frame it finishes.
    @Test func aRecordingOfABookLaidOutInTheBackgroundIsTheSameEachTime() throws {
        let books = try #require(Self.books, "python3 missing")
        let takes = try ["a", "b"].map { take in
            let dir = books.appendingPathComponent("record-\(take)-\(UUID().uuidString)")
            let r = try folio(["record", "slow-layout.epub", "--script", "open; next; curl 0.83,-0.44; next 3", "--fps", "10",
                               "--size", "320x180", "-q", "-o", dir.path], in: books, cache: books.appendingPathComponent("cache-\(UUID().uuidString)"))
            try #require(r.status == 0, "\(r.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            return try names.map { try Data(contentsOf: dir.appendingPathComponent($0)) }
        }
        #expect(takes[0].count == 54)
        let differing = zip(takes[0], takes[1]).enumerated().filter { $0.element.0 != $0.element.1 }.map { $0.offset + 1 }
        #expect(takes[0].count == takes[1].count && differing.isEmpty, "frames \(differing) differ")
    }

    /// Captures of an e-book in a tall and a wide picture, as jobs of one batch and one `capture`
    /// each: the same pictures, so the batch lays each job's book out for its own page shape.
    @Test func batchLaysBooksOutForEachJobsPageShape() throws {
        let books = try #require(Self.books, "python3 missing")
        let sizes = ["180x320", "320x180", "180x320"]
        let jobs = sizes.enumerated().map { i, size in
            "{\"source\":\"numbered.epub\",\"capture\":\"out-\(i).png\",\"size\":\"\(size)\",\"book\":0,\"page\":3}"
        }
        try Data((jobs.joined(separator: "\n") + "\n").utf8).write(to: books.appendingPathComponent("jobs.jsonl"))
        let run = try folio(["batch", "--force", "jobs.jsonl"], in: books)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        for (i, size) in sizes.enumerated() {
            let one = try folio(["capture", "numbered.epub", "--size", size, "--book", "0", "--page", "3", "-o", "one-\(i).png"], in: books)
            try #require(one.status == 0, "\(one.stderr)")
            let batched = FileManager.default.contents(atPath: books.appendingPathComponent("out-\(i).png").path)
            #expect(batched != nil && batched == FileManager.default.contents(atPath: books.appendingPathComponent("one-\(i).png").path),
                    "job \(i) at \(size) differs from its capture")
        }
        #expect(FileManager.default.contents(atPath: books.appendingPathComponent("one-0.png").path)
                != FileManager.default.contents(atPath: books.appendingPathComponent("one-1.png").path))
    }

    /// The typography options on a command: `text` shows lines ending in hyphens unless
    /// `--no-hyphenate`; wider margins make more pages; a spacing out of range is refused in one
    /// line before anything opens.
    @Test func typographyOptionsReachTheLayout() throws {
        let books = try #require(Self.books, "python3 missing")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FolioDocumentsTests/Fixtures/make_typeset_ebooks.py")
        let made = try FolioProcess.run("/usr/bin/python3", [script.path, books.path], timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")
        let hyphenated = try folio(["text", "margin0.epub", "--page", "2", "--margins", "wide"], in: books)
        let plain = try folio(["text", "margin0.epub", "--page", "2", "--margins", "wide", "--no-hyphenate"], in: books)
        try #require(hyphenated.status == 0 && plain.status == 0, "\(hyphenated.stderr) \(plain.stderr)")
        let ends = { (r: FolioProcess.Result) in r.stdout.split(separator: "\n").filter { $0.hasSuffix("-") }.count }
        #expect(ends(hyphenated) > 0 && ends(plain) == 0, "\(hyphenated.stdout)")
        let count = { (margins: String) throws -> String in
            try folio(["info", "margin0.epub", "--margins", margins], in: books).stdout.split(separator: "\n").first { $0.contains("EPUB, ") }.map(String.init) ?? ""
        }
        #expect(try count("narrow") != count("wide"))
        let refused = try folio(["info", "reflow2.epub", "--line-spacing", "9"], in: books)
        #expect(refused.status == 64 && refused.stderr.contains("--line-spacing must be 1.0…2.5"), "\(refused.stderr)")
    }
}
