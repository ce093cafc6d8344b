import FolioBook
import FolioImage
import FolioState
import Foundation
import Testing

/// `folio notes`, and the state store under two `folio` processes at once or one killed mid-write.
@Suite(.serialized) struct NotesCommandTests {
    /// A folder with a PDF of `pages` pages, and the environment that keeps the store in it.
    private struct Home {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("folio-notes-\(UUID().uuidString)").path
        var book: String { path + "/books/pages.pdf" }
        var store: String { path + "/data/folio/state.sqlite" }
        var environment: [String: String] {
            ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": path + "/data", "XDG_STATE_HOME": path + "/state"]) { $1 }
        }

        init(pages: Int) throws {
            try FileManager.default.createDirectory(atPath: path + "/books", withIntermediateDirectories: true)
            let kids = (0..<pages).map { "\($0 + 3) 0 R" }.joined(separator: " ")
            try TestPDF.document(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>"]
                                 + (0..<pages).map { _ in "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >>" })
                .write(to: URL(fileURLWithPath: book))
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }

        /// `folio notes` with `arguments`, started.
        func start(_ arguments: [String], stdout: String) throws -> Process {
            let process = Process()
            process.executableURL = FolioProcess.binary
            process.arguments = ["notes"] + arguments
            process.environment = environment
            FileManager.default.createFile(atPath: stdout, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }

        /// The bookmarks the store holds for the book, as `notes --json` prints them.
        func marks(_ book: String? = nil) throws -> [Int] {
            let result = try FolioProcess.run(FolioProcess.binary!.path, ["notes", book ?? self.book, "--json"], environment: environment, timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            struct Export: Decodable { struct Mark: Decodable { var page: Int }; var bookmarks: [Mark] }
            return try JSONDecoder().decode(Export.self, from: Data(result.stdout.utf8)).bookmarks.map(\.page)
        }
    }

    private static func wait(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    /// Two viewers marking one book at once kept 49–53 of 60 marks: each read the file, added
    /// its mark and wrote the whole back over the other's. Two processes marking 60 pages each
    /// at once now keep all 120.
    @Test(.enabled(if: FolioProcess.binary != nil)) func twoProcessesMarkingOneBookLoseNothing() throws {
        let home = try Home(pages: 120)
        defer { home.remove() }
        let processes = try [1...60, 61...120].enumerated().map { i, pages in
            try home.start([home.book] + pages.flatMap { ["--mark", "\($0)"] }, stdout: home.path + "/out\(i)")
        }
        for process in processes {
            #expect(Self.wait(process, seconds: 120))
            #expect(process.terminationStatus == 0)
        }
        #expect(try home.marks() == Array(1...120))
    }

    /// Killed with SIGKILL while it writes, a process leaves a store that opens as it is, with
    /// every mark it said was made.
    @Test(.enabled(if: FolioProcess.binary != nil)) func aProcessKilledMidWriteLeavesWhatWasCommitted() throws {
        let home = try Home(pages: 400)
        defer { home.remove() }
        let out = home.path + "/out"
        let process = try home.start([home.book] + (1...400).flatMap { ["--mark", "\($0)"] }, stdout: out)
        // Killed once it has said 30 marks were made, while it goes on making more.
        var said = 0
        let deadline = Date().addingTimeInterval(60)
        while said < 30 && process.isRunning && Date() < deadline {
            usleep(2_000)
            said = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "killed before it finished")
        said = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count
        let opened = StateStore.open(path: home.store)
        #expect(opened.notices.isEmpty, "not damaged: \(opened.notices)")
        #expect(opened.store != nil)
        let marks = try home.marks()
        #expect(marks.count >= said && marks == Array(1...marks.count), "\(said) said, \(marks.count) kept")
    }

    /// The book moved and a copy of it show the marks made in it; the export formats.
    @Test(.enabled(if: FolioProcess.binary != nil)) func marksFollowTheBookAndExport() throws {
        let home = try Home(pages: 9)
        defer { home.remove() }
        let marked = try FolioProcess.run(FolioProcess.binary!.path, ["notes", home.book, "--mark", "4", "--mark", "2"], environment: home.environment, timeout: 60)
        #expect(marked.stdout == "bookmarked page 4\nbookmarked page 2\n")
        let moved = home.path + "/moved.pdf", copy = home.path + "/copy of it.pdf"
        try FileManager.default.moveItem(atPath: home.book, toPath: moved)
        try FileManager.default.copyItem(atPath: moved, toPath: copy)
        #expect(try home.marks(moved) == [2, 4] && home.marks(copy) == [2, 4])
        let markdown = try FolioProcess.run(FolioProcess.binary!.path, ["notes", copy, "--markdown"], environment: home.environment, timeout: 60)
        #expect(markdown.stdout.hasSuffix("## Bookmarks\n\n- Page 2\n- Page 4\n"), "\(markdown.stdout)")
        let plain = try FolioProcess.run(FolioProcess.binary!.path, ["notes", copy], environment: home.environment, timeout: 60)
        #expect(plain.stdout == "page 2: bookmark\npage 4: bookmark\n")
    }

    /// No store to keep them in (a FIFO in its place): one line, status 73, the FIFO left alone.
    @Test(.enabled(if: FolioProcess.binary != nil)) func withoutAStoreNothingIsMarked() throws {
        let home = try Home(pages: 3)
        defer { home.remove() }
        try FileManager.default.createDirectory(atPath: home.path + "/data/folio", withIntermediateDirectories: true)
        #expect(mkfifo(home.store, 0o600) == 0)
        let result = try FolioProcess.run(FolioProcess.binary!.path, ["notes", home.book, "--mark", "1"], environment: home.environment, timeout: 60)
        #expect(result.status == 73 && result.stdout.isEmpty)
        #expect(result.stderr == "folio: \(home.store): not a file; places and bookmarks are not remembered\n", "\(result.stderr)")
        var st = stat()
        #expect(lstat(home.store, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
    }

    /// A damaged store is set aside with one line on standard error, and the command goes on.
    @Test(.enabled(if: FolioProcess.binary != nil)) func aDamagedStoreIsReportedInOneLine() throws {
        let home = try Home(pages: 3)
        defer { home.remove() }
        try FileManager.default.createDirectory(atPath: home.path + "/data/folio", withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: home.store))
        let result = try FolioProcess.run(FolioProcess.binary!.path, ["notes", home.book, "--mark", "1"], environment: home.environment, timeout: 60)
        #expect(result.status == 0 && result.stdout == "bookmarked page 1\n")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("kept as \(home.store).damaged"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.store + ".damaged")) == Data(repeating: 0x41, count: 8192))
    }

    /// `--highlight` marks a phrase of a real layout; the exports carry its words, colour and
    /// note (HTML escaped); `--import` reads the JSON back into another store, twice without
    /// doubling; a capture paints it; a file that is no export gets one line and status 65.
    @Test(.enabled(if: FolioProcess.binary != nil)) func highlightsAreMadeExportedImportedAndDrawn() throws {
        let books = try #require(EBookCommandTests.books, "python3 missing")
        let home = try Home(pages: 1), other = try Home(pages: 1)
        defer { home.remove(); other.remove() }
        let epub = books.appendingPathComponent("numbered.epub").path
        func notes(_ arguments: [String], in h: Home = home) throws -> FolioProcess.Result {
            try FolioProcess.run(FolioProcess.binary!.path, ["notes", epub] + arguments, environment: h.environment, timeout: 60)
        }
        let made = try notes(["--highlight", "w30 w31 w32", "--colour", "green", "--note", "three <b>words</b>"])
        #expect(made.status == 0, "\(made.stderr)")
        let page = try #require(made.stdout.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, "\(made.stdout)")
        #expect(made.stdout.hasPrefix("highlighted “w30 w31 w32” on page"))
        let json = try notes(["--json"])
        struct Export: Decodable {
            struct Passage: Decodable { var text: String; var note: String?; var colour: String; var page: Int?; var chapter: Int?; var start: Int?; var end: Int? }
            var highlights: [Passage]
        }
        let exported = try JSONDecoder().decode(Export.self, from: Data(json.stdout.utf8)).highlights
        #expect(exported.count == 1)
        #expect(exported.first.map { ($0.text, $0.note, $0.colour, $0.page) } ?? ("", nil, "", nil) == ("w30 w31 w32", "three <b>words</b>", "green", page))
        #expect(exported.first?.chapter != nil && exported.first?.start != nil && exported.first?.end != nil)
        let markdown = try notes(["--markdown"]).stdout
        #expect(markdown.contains("> w30 w31 w32") && markdown.contains("three <b>words</b>"), "\(markdown)")
        let html = try notes(["--html"]).stdout
        #expect(html.contains("<blockquote class=\"green\"><p>w30 w31 w32</p>") && html.contains("three &lt;b&gt;words&lt;/b&gt;"), "\(html)")
        // Read back into another reader's store, twice.
        let file = home.path + "/export.json"
        try json.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        for _ in 0..<2 { #expect(try notes(["--import", file], in: other).stdout.contains("imported 1 highlight")) }
        #expect(try notes(["--json"], in: other).stdout == json.stdout)
        let bad = home.path + "/bad.json"
        try "{\"highlights\": 3}".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try notes(["--import", bad])
        #expect(refused.status == 65 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        // A capture of the page paints the words green; without the store it does not.
        func capture(_ h: Home, _ name: String) throws -> RGBAImage {
            let out = h.path + "/" + name
            let r = try FolioProcess.run(FolioProcess.binary!.path, ["capture", epub, "--book", "0", "--page", "\(page)", "--size", "640x360", "-o", out],
                                         environment: h.environment, timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            return try PNG.read(path: out)
        }
        func green(_ image: RGBAImage) -> Int {
            var n = 0
            for y in 0..<image.height { for x in 0..<image.width { let p = image.pixel(x, y); if Int(p.g) - Int(p.b) > 40, Int(p.g) - Int(p.r) > 15 { n += 1 } } }
            return n
        }
        let empty = try Home(pages: 1)
        defer { empty.remove() }
        #expect(green(try capture(home, "marked.png")) > 100)
        #expect(green(try capture(empty, "plain.png")) == 0)
    }

    /// Two processes highlighting the same book at once (thirty phrases each) keep all sixty.
    @Test(.enabled(if: FolioProcess.binary != nil)) func twoProcessesHighlightingOneBookLoseNothing() throws {
        let books = try #require(EBookCommandTests.books, "python3 missing")
        let home = try Home(pages: 1)
        defer { home.remove() }
        let epub = books.appendingPathComponent("numbered.epub").path
        let processes = try [1...30, 31...60].enumerated().map { i, words in
            let process = Process()
            process.executableURL = FolioProcess.binary
            process.arguments = ["notes", epub] + words.flatMap { ["--highlight", "w\($0 * 7)"] }
            process.environment = home.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes {
            #expect(Self.wait(process, seconds: 120))
            #expect(process.terminationStatus == 0)
        }
        let json = try FolioProcess.run(FolioProcess.binary!.path, ["notes", epub, "--json"], environment: home.environment, timeout: 60)
        struct Export: Decodable { struct Passage: Decodable { var text: String }; var highlights: [Passage] }
        let texts = try JSONDecoder().decode(Export.self, from: Data(json.stdout.utf8)).highlights.map(\.text)
        #expect(Set(texts) == Set((1...60).map { "w\($0 * 7)" }), "\(texts.count) kept")
    }
}

/// `folio speak`: the sentences reading aloud speaks, spoken into a WAV file by espeak-ng where
/// the machine has it; without it, one line and status 69.
@Suite struct SpeakCommandTests {
    @Test(.enabled(if: FolioProcess.binary != nil && FolioProcess.available("espeak-ng"))) func aPageIsSpokenIntoAFile() throws {
        let books = try #require(EBookCommandTests.books, "python3 missing")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("folio-speak-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try FolioProcess.run(FolioProcess.binary!.path, ["speak", books.appendingPathComponent("numbered.epub").path,
                                                                   "--page", "3", "--sentences", "1", "-o", out], timeout: 60)
        #expect(run.status == 0 && run.stdout.hasSuffix(": 1 sentence from page 3\n"), "\(run.stderr)")
        let wav = try #require(FileManager.default.contents(atPath: out))
        #expect(wav.prefix(4) == Data("RIFF".utf8) && wav.dropFirst(8).prefix(4) == Data("WAVE".utf8))
        // A sentence of words spoken: seconds of 16-bit samples, not a header alone.
        #expect(wav.count > 44_100, "\(wav.count) bytes")
        let again = try FolioProcess.run(FolioProcess.binary!.path, ["speak", books.appendingPathComponent("numbered.epub").path, "-o", out], timeout: 60)
        let kept = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(again.status != 0 && kept == wav, "an existing file is kept without --force")
        // A full disk is said, not taken for success (espeak-ng itself does not check its writes).
        let full = try FolioProcess.run(FolioProcess.binary!.path, ["speak", books.appendingPathComponent("numbered.epub").path,
                                                                    "--sentences", "1", "-o", "/dev/full"], timeout: 60)
        #expect(full.status == 74 && full.stderr.contains("No space left"), "\(full.stderr)")
    }

    @Test(.enabled(if: FolioProcess.binary != nil)) func withoutEspeakOneLineSaysWhatToInstall() throws {
        let books = try #require(EBookCommandTests.books, "python3 missing")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("folio-speak-\(UUID().uuidString).wav").path
        let run = try FolioProcess.run(FolioProcess.binary!.path, ["speak", books.appendingPathComponent("numbered.epub").path, "-o", out],
                                       environment: ["PATH": "/nonexistent"], timeout: 60)
        #expect(run.status == 69 && run.stderr == "folio: espeak-ng is not installed (apt install espeak-ng)\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
