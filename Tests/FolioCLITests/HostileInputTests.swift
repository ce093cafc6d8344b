import Foundation
import Testing

/// Hostile input met while a command works: a signal during a long library walk, special files
/// named as books, archives with entries that cannot be pages. Each case gets one line and a
/// documented status (docs/exit-status.md), and loses nothing.
@Suite(.serialized) struct HostileInputTests {
    private func folio(_ arguments: [String], timeout: Double = 60) throws -> FolioProcess.Result {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        return try FolioProcess.run(binary.path, arguments, timeout: timeout)
    }

    private func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A PDF of one blank page.
    private func onePagePDF() -> Data {
        TestPDF.document(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                          "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >>"])
    }

    // MARK: Signals

    /// The names of files opened in `folder` (inotify), read as they come.
    private final class OpenWatch {
        let fd: Int32

        /// Watches `folder` for `events` (opens, by default).
        init(_ folder: String, events: Int32 = IN_OPEN) throws {
            fd = inotify_init1(Int32(IN_CLOEXEC))
            try #require(fd >= 0 && inotify_add_watch(fd, folder, UInt32(events)) >= 0, "inotify: \(String(cString: strerror(errno)))")
        }

        deinit { close(fd) }

        /// The names of the next events (an event on the folder itself has none): waits at most
        /// `bound` seconds for one (a safety bound: the event, not the time, ends the wait); nil
        /// when none came.
        func names(waitingAtMost bound: Double) -> [String]? {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(bound * 1000)) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            var names: [String] = [], at = 0
            let header = MemoryLayout<inotify_event>.size
            while n > 0, at + header <= n {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: at + 12, as: UInt32.self)) }
                let name = buffer[(at + header)..<(at + header + length)].prefix { $0 != 0 }
                if !name.isEmpty { names.append(String(decoding: name, as: UTF8.self)) }
                at += header + length
            }
            return names
        }

        /// Every name opened so far and not read yet.
        func drain() -> [String] {
            var all: [String] = []
            while let more = names(waitingAtMost: 0) { all += more }
            return all
        }
    }

    /// The first SIGTERM (or Ctrl-C) during a long walk of a library was heard only once the
    /// walk was over, however long it took (a library linking to itself: never). It ends the
    /// walk at the next entry: one line, status 130, no output written, the books after it unopened
    /// (most of them: on a loaded machine the walk may go some hundreds on before the signal lands).
    @Test(arguments: [("capture", SIGTERM), ("info", SIGINT)])
    func aSignalEndsALongLibraryWalk(command: String, signal: Int32) throws {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("library"), out = dir.appendingPathComponent("out.png")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let books = 2000
        for i in 0..<books { try onePagePDF().write(to: library.appendingPathComponent(String(format: "book-%04d.pdf", i))) }
        let watch = try OpenWatch(library.path)
        let p = Process()
        p.executableURL = binary
        p.arguments = command == "capture" ? ["capture", "--size", "48x27", "-o", out.path, library.path] : ["info", library.path]
        p.environment = ProcessInfo.processInfo.environment.merging(["FOLIO_RASTERISER": "software"]) { _, new in new }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // Signalled once the walk has opened its first book.
        var opened = Set<String>()
        while !opened.contains(where: { $0.hasSuffix(".pdf") }) {
            let names = try #require(watch.names(waitingAtMost: 60), "the walk never opened a book")
            opened.formUnion(names)
        }
        kill(p.processIdentifier, signal)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        opened.formUnion(watch.drain())
        #expect(p.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted while reading \(library.path); nothing written"), "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 2, "the notice and one line: \(stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let booksOpened = opened.filter { $0.hasSuffix(".pdf") }.count
        #expect(booksOpened < books / 2, "the walk went on to \(booksOpened) of \(books) books")
    }

    /// SIGTERM during `record -o DIR --video old.mp4 --force` replaced old.mp4 with the frames
    /// made so far (only an ffmpeg failure kept it), and said the new frames were in DIR, whose
    /// earlier ones were kept. Both earlier outputs stay as they were, nothing is left beside
    /// them, and the line says so.
    @Test(.enabled(if: FolioProcess.available("ffmpeg"), "ffmpeg missing"))
    func anInterruptedRecordingLeavesTheEarlierOutputsAsTheyWere() throws {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = dir.appendingPathComponent("frames"), video = dir.appendingPathComponent("old.mp4")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try Data("earlier frame".utf8).write(to: frames.appendingPathComponent("frame-00001.png"))
        try Data("earlier video".utf8).write(to: video)
        // Opens and writes: the kernel merges two opens of one name in a row that were not read
        // between them (folio's and ffmpeg's, on a loaded machine), never an open and a write.
        let watch = try OpenWatch(dir.path, events: IN_OPEN | IN_MODIFY)
        let p = Process()
        p.executableURL = binary
        p.arguments = ["record", "--script", "open; wait 600", "--fps", "10", "--size", "48x32", "-o", frames.path,
                       "--video", video.path, "--force", "-q"]
        p.environment = ProcessInfo.processInfo.environment.merging(["FOLIO_RASTERISER": "software"]) { _, new in new }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // Signalled once ffmpeg has opened the new video (made, then opened again by ffmpeg, or
        // written).
        var opened: [String] = []
        while opened.filter({ $0.hasPrefix(".folio-") && $0.hasSuffix(".mp4") }).count < 2 {
            opened += try #require(watch.names(waitingAtMost: 60), "no video was begun")
        }
        kill(p.processIdentifier, SIGTERM)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("; \(frames.path) keeps the earlier frames; \(video.path) is not written\n"), "\(stderr)")
        #expect(try Data(contentsOf: video) == Data("earlier video".utf8))
        #expect(try Data(contentsOf: frames.appendingPathComponent("frame-00001.png")) == Data("earlier frame".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["frames", "old.mp4"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: frames.path) == ["frame-00001.png"])
    }

    // MARK: Special files

    /// Only regular files are opened, and their type is checked with stat first: a FIFO named as
    /// a book would block its reader forever, /dev/zero would be read without end.
    @Test func specialFilesNamedAsBooksAreRefusedAtOnce() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("book.pdf").path
        #expect(mkfifo(fifo, 0o644) == 0)
        for (source, words) in [(fifo, "\(fifo): cannot read: is a FIFO (named pipe), not a file"),
                                ("/dev/zero", "/dev/zero: cannot read the manifest: is a character device, not a file")] {
            for command in [["info", source], ["capture", "--size", "48x27", "-o", dir.path + "/out.png", source]] {
                let r = try folio(command, timeout: 20)
                #expect(!r.timedOut && r.status == 65, "\(command): \(r.status) \(r.stderr)")
                #expect((r.stdout + r.stderr).contains(words), "\(command): \(r.stdout) \(r.stderr)")
            }
        }
    }

    /// Links that loop: a folder of books linking to itself is named once, with a note; page
    /// links that point at each other are one line each; the walk ends.
    @Test func linksThatLoopEndTheWalk() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.path + "/library", book = library + "/book"
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: FolioProcess.packageRoot.path + "/Textures/alice/cover.png", toPath: book + "/p1.png")
        for (link, target) in [(library + "/self", "."), (book + "/up", ".."), (book + "/a.png", "b.png"), (book + "/b.png", "a.png")] {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        }
        let r = try folio(["info", library], timeout: 20)
        #expect(!r.timedOut && r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(library)/self: note: links back to the folder it is in; skipped"), "\(r.stdout)")
        #expect(r.stdout.contains("\(book)/a.png: cannot read: Too many levels of symbolic links"), "\(r.stdout)")
        #expect(r.stdout.contains("1 book"), "\(r.stdout)")
    }

    /// Whether a user other than this one can run `folio`: every folder above it searchable by
    /// others (and, as root, setpriv there to become nobody).
    private static let othersCanRun: Bool = {
        guard var url = FolioProcess.binary, getuid() != 0 || FolioProcess.available("setpriv") else { return getuid() != 0 }
        while url.path != "/" {
            var st = stat()
            guard stat(url.path, &st) == 0, st.st_mode & 0o001 != 0 else { return false }
            url.deleteLastPathComponent()
        }
        return true
    }()

    /// The only document named may not be read: 77, not 0 (nor 65). Root reads every file, so
    /// the command runs as nobody (setpriv) when the tests run as root.
    @Test(.enabled(if: othersCanRun, "needs setpriv (util-linux) and folio where nobody can run it"))
    func anUnreadableDocumentAloneEndsWith77() throws {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(chmod(dir.path, 0o777) == 0)
        let doc = dir.appendingPathComponent("locked.pdf")
        try onePagePDF().write(to: doc)
        #expect(chmod(doc.path, 0) == 0)
        var command = [binary.path]
        if getuid() == 0 {
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        for arguments in [["info", doc.path], ["capture", "--size", "48x27", "-o", dir.path + "/out.png", doc.path]] {
            let r = try FolioProcess.run(command[0], Array(command.dropFirst()) + arguments, timeout: 30)
            #expect(r.status == 77, "\(arguments[0]): \(r.status) \(r.stderr)")
            #expect((r.stdout + r.stderr).contains("\(doc.path): not a readable PDF: Permission denied"), "\(r.stdout) \(r.stderr)")
        }
    }

    // MARK: Decoding that does not end

    /// A PDF whose first pages nest forms `depth` deep (2^depth drawings each: 20 deep, pages
    /// the engine takes minutes over) and whose last page is plain.
    private func stuckPagesPDF(stuck: Int, depth: Int) -> Data {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [\((0...stuck).map { "\(3 + $0) 0 R" }.joined(separator: " "))] /Count \(stuck + 1) >>"]
        let forms = 3 + stuck + 1
        for _ in 0..<stuck {
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] /Contents \(forms + depth) 0 R /Resources << /XObject << /X \(forms) 0 R >> >> >>")
        }
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >>")
        objects += TestPDF.nestedForms(from: forms, depth: depth)
        objects.append(TestPDF.stream("", "/X Do"))
        return TestPDF.document(objects)
    }

    /// `info --decode` (0.5 s a page) of a PDF of `stuck` pages that never finish before a plain
    /// one (its path given as the file's, in a folder removed afterwards).
    private func decodeStuckPDF(stuck: Int) throws -> (FolioProcess.Result, String) {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pdf = dir.appendingPathComponent("stuck.pdf")
        try stuckPagesPDF(stuck: stuck, depth: 20).write(to: pdf)
        return (try folio(["info", "--decode", "--page-height", "100", "--page-timeout", "0.5", pdf.path], timeout: 60), pdf.path)
    }

    /// poppler cannot stop a page, and each of a PDF's pages waited for one of its few handles:
    /// behind pages that never finish, every later page of the document waited too. A page past
    /// the decode timeout no longer holds the others back (four of them here, more than the
    /// handles of a machine of 5 cores or fewer).
    @Test func pagesThatNeverFinishDoNotHoldBackTheRestOfThePDF() throws {
        let (r, pdf) = try decodeStuckPDF(stuck: 4)
        #expect(!r.timedOut && r.status == 0, "\(r.stderr)")
        for page in 1...4 { #expect(r.stdout.contains("\(pdf): page \(page): still decoding after 0.5 s; passed over"), "\(r.stdout)") }
        #expect(!r.stdout.contains("page 5:"), "the plain page decodes: \(r.stdout)")
    }

    /// Past its overdue pages (four still decoding aside, and a fifth) a PDF lends no handle
    /// until one ends: each later page waited out its --page-timeout and was said to be still
    /// decoding, the plain last page too (a PDF of 500 pages, 5 of them never finishing: 495
    /// × 66 s). They are not tried; one line says so.
    @Test func pagesBehindTooManyOverdueOnesAreNotTried() throws {
        let (r, pdf) = try decodeStuckPDF(stuck: 7)
        #expect(!r.timedOut && r.status == 0, "\(r.stderr)")
        for page in 1...5 { #expect(r.stdout.contains("\(pdf): page \(page): still decoding after 0.5 s; passed over"), "\(r.stdout)") }
        #expect(r.stdout.contains("\(pdf): page 6: not decoded, nor the 2 pages after it: 5 pages before it are still decoding"), "\(r.stdout)")
        #expect(!r.stdout.contains("page 7:") && !r.stdout.contains("page 8:"), "\(r.stdout)")
    }

    // MARK: Hostile e-books

    /// The books of FolioDocumentsTests/Fixtures/make_hostile_ebooks.py, written once per run.
    static let ebooks: URL? = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-hostile-ebooks-\(UUID().uuidString)")
        let script = FolioProcess.packageRoot.appendingPathComponent("Tests/FolioDocumentsTests/Fixtures/make_hostile_ebooks.py")
        guard let made = try? FolioProcess.run("/usr/bin/python3", [script.path, dir.path], timeout: 60), made.status == 0 else { return nil }
        return dir
    }()

    /// Runs `folio` in a folder two levels below the books (so that `../../outside/…`, which
    /// MuPDF resolved from the working folder, names the books' `outside/`), the book named by
    /// a relative path.
    private func folio(_ command: String, _ book: String, _ extra: [String] = [], timeout: Double = 20) throws -> FolioProcess.Result {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let books = try #require(Self.ebooks, "python3 missing")
        let dir = books.appendingPathComponent("run-\(UUID().uuidString)/b")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return try FolioProcess.run(binary.path, [command, "../../" + book] + extra, directory: dir.path, timeout: timeout)
    }

    /// Markup nesting deeper than MuPDF's recursion survives, hidden from the scan of tags that
    /// guarded it (behind comments, in chapters not named .xhtml, in attribute values, in SVG,
    /// FB2 and MOBI text), a MOBI whose records lie past the end of the file, a spine of more
    /// items than Folio opens, a lone file with an empty end tag (`anEmptyEndTagIsLeftOut`): every
    /// command that reads a book crashed (a signal, no message), or took minutes. Each is refused by each command with one line and 65.
    @Test(arguments: [
        ("deep-behind-comment.epub", "OEBPS/c.xhtml: elements nested more than 500 deep; not laid out"),
        ("deep-xht.epub", "OEBPS/c.xht: elements nested more than 500 deep"),
        ("deep-no-extension.epub", "OEBPS/chapter: elements nested more than 500 deep"),
        ("deep-named-css.epub", "OEBPS/c.css: elements nested more than 500 deep"),
        ("deep-attributes.epub", "OEBPS/c.xhtml: elements nested more than 500 deep"),
        ("deep-svg.epub", "OEBPS/pic.svg: elements nested more than 500 deep"),
        ("deep.fb2", "the text: elements nested more than 500 deep"),
        ("deep.xhtml", "the text: elements nested more than 500 deep"),
        ("deep.mobi", "the text: elements nested more than 500 deep"),
        ("records-past-end.mobi", "record 4 starts at byte 2147418112, past the end of the file (14394 bytes); not opened"),
        ("records-backwards.mobi", "record 4 starts before record 3; not opened"),
        ("long-spine.epub", "its spine lists 12000 items, more than 10000; not opened"),
        ("empty-end-tag.xhtml", "its markup holds an empty end tag (</>), on which MuPDF's HTML parser crashes; not opened"),
    ])
    func hostileEBooksAreRefusedWithOneLineByEveryCommand(book: String, words: String) throws {
        for (command, extra) in [("info", []), ("capture", ["--size", "64x36", "-o", "out.png"]), ("text", []), ("outline", []), ("search", ["ALPHA"])] {
            let r = try folio(command, book, extra)
            #expect(!r.timedOut && r.status == 65, "\(command) \(book): \(r.status) \(r.stderr)")
            #expect((r.stdout + r.stderr).contains("/\(book): \(words)"), "\(command) \(book): \(r.stdout) \(r.stderr)")
        }
    }

    /// A spine naming a chapter its archive lacks (left out, or named outside the book): MuPDF
    /// refused the whole book with "cannot find named zip archive entry". It opens, as Foliate
    /// opens it, with a note naming the chapter and a page in its place saying so; the rest reads.
    @Test(arguments: [("missing-chapter.epub", "OEBPS/gone.xhtml"), ("chapter-outside.epub", "../etc/passwd")])
    func aBookMissingAChapterOpensWithAPageSayingSo(book: String, chapter: String) throws {
        for (command, extra) in [("info", []), ("capture", ["--size", "64x36", "-o", "out.png"]), ("text", []), ("outline", []), ("search", ["ALPHA"])] {
            let r = try folio(command, book, extra)
            #expect(!r.timedOut && r.status == 0, "\(command) \(book): \(r.status) \(r.stderr)")
            // Notes are told where a book is shown or described, as other notes are.
            if command == "info" || command == "capture" {
                #expect((r.stdout + r.stderr).contains("/\(book): note: its chapter \(chapter) is not in the book; a page in its place says so"),
                        "\(command) \(book): \(r.stdout) \(r.stderr)")
            }
        }
        let first = try folio("text", book, ["--page", "1"]), stand = try folio("text", book, ["--page", "2"])
        #expect(first.stdout.contains("ALPHA"), "\(first.stdout)")
        #expect(stand.stdout.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\u{AD}", with: "").contains("A chapter is missing here: the book's file does not hold \(chapter)."),
                "\(stand.stdout)")
    }

    /// A page MuPDF cannot draw was named twice ("page 2: page 2: cannot find …").
    @Test func aBrokenPageIsNamedOnce() throws {
        let r = try folio("info", "missing-page.xps", ["--decode"])
        #expect(!r.timedOut && r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("/missing-page.xps: page 2: cannot find all pieces for part '/p1.fpage'"), "\(r.stdout)")
        #expect(!r.stdout.contains("page 2: page 2"), "\(r.stdout)")
    }

    /// An empty end tag (`</>`) before an element HTML does not know: MuPDF 1.21's HTML parser
    /// made an element of no name of it, read it as text that is not there, and crashed every
    /// command. A chapter and a
    /// MOBI's text are read without it, as HTML ignores it (a lone file, which MuPDF reads as it
    /// is, is refused: above).
    @Test func anEmptyEndTagIsLeftOut() throws {
        for book in ["empty-end-tag.epub", "empty-end-tag.mobi"] {
            let r = try folio("text", book, ["--page", "1"])
            #expect(!r.timedOut && r.status == 0 && r.stdout.contains("after the empty end tag"), "\(book): \(r.status) \(r.stdout) \(r.stderr)")
        }
    }

    /// Long runs of tags that do not nest: 640 line breaks in one paragraph (HTML, as MuPDF
    /// reads a chapter that is not XML) were refused as "nested more than 500 deep"; they, 700
    /// empty page markers in XHTML and a script of 2,000 `i<n` are laid out.
    @Test func flatMarkupIsLaidOut() throws {
        for book in ["flat-breaks.epub", "flat-html.epub", "page-markers.epub", "script.epub"] {
            let r = try folio("info", book)
            #expect(!r.timedOut && r.status == 0 && !r.stdout.contains("nested"), "\(book): \(r.stdout) \(r.stderr)")
        }
    }

    /// Stylesheets naming fonts and images outside the book (an absolute path, `../..`, a FIFO,
    /// /dev/zero): MuPDF read a font its archive lacks from the file system, and the FIFO hung
    /// every command. Nothing outside the book is opened; a note names the first asked for.
    @Test func filesOutsideTheBookAreNeverOpened() throws {
        for book in ["fonts-outside.epub", "page/fonts-outside.xhtml", "fonts-outside.mobi"] {
            let info = try folio("info", book)
            #expect(!info.timedOut && info.status == 0, "\(book): \(info.status) \(info.stderr)")
            #expect(info.stdout.contains("note: not opened: ") && info.stdout.contains(": the book names it but does not hold it, and Folio opens nothing outside the book"), "\(book): \(info.stdout)")
            let capture = try folio("capture", book, ["--size", "64x36", "-o", "out.png"])
            #expect(!capture.timedOut && capture.status == 0, "\(book): \(capture.status) \(capture.stderr)")
        }
    }

    /// Whether strace can follow a program here (it is installed, and ptrace is allowed).
    private static let straceWorks: Bool = {
        guard FolioProcess.available("strace") else { return false }
        return (try? FolioProcess.run("/usr/bin/env", ["strace", "-o", "/dev/null", "true"], timeout: 20).status) == 0
    }()

    /// The same, as the system sees it: of every file `folio capture` opens (strace's openat
    /// calls), none lies outside the book.
    @Test(.enabled(if: straceWorks, "strace missing or not allowed to trace (Makefile TEST_PACKAGES has it)"))
    func straceSeesNoFileOutsideTheBookOpened() throws {
        let books = try #require(Self.ebooks, "python3 missing")
        for book in ["fonts-outside.epub", "page/fonts-outside.xhtml", "fonts-outside.mobi"] {
            let log = books.appendingPathComponent("\(book)-\(UUID().uuidString).strace").path
            let binary = try #require(FolioProcess.binary, "build folio first: swift build")
            let dir = books.appendingPathComponent("run-\(UUID().uuidString)/b")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            // `timeout` inside strace: a folio that blocks is killed, not left behind by a killed strace.
            let r = try FolioProcess.run("/usr/bin/env", ["strace", "-f", "-e", "trace=openat", "-o", log, "timeout", "-s", "KILL", "20",
                                                          binary.path, "capture", "../../" + book, "--size", "64x36", "-o", "out.png"],
                                         directory: dir.path, timeout: 30)
            #expect(!r.timedOut && r.status == 0, "\(book): \(r.status) \(r.stderr)")
            let opened = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.contains("openat(") }
            #expect(opened.contains { $0.contains(book) }, "strace saw the book opened: \(opened)")
            let outside = opened.filter { $0.contains("/outside/") || $0.contains("/dev/zero") }
            #expect(outside.isEmpty, "\(book): \(outside)")
        }
    }

    // MARK: Shaders

    /// A shader that does not compile ended with 1, like any failure; it is a broken
    /// installation (or --shaders folder), 78 as sysexits.h has it, with the driver's line.
    @Test func shadersThatDoNotCompileExit78() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shaders = dir.appendingPathComponent("Shaders")
        try FileManager.default.copyItem(at: FolioProcess.packageRoot.appendingPathComponent("Shaders"), to: shaders)
        let frag = shaders.appendingPathComponent("page.frag")
        let source = try String(contentsOf: frag, encoding: .utf8)
        try source.replacingOccurrences(of: "void main()", with: "void main() { undeclaredName; }\nvoid unused()").write(to: frag, atomically: true, encoding: .utf8)
        let r = try folio(["capture", "--shaders", shaders.path, "--size", "48x27", "-o", dir.path + "/out.png"])
        #expect(r.status == 78, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("Shaders/page.frag:") && r.stderr.contains("undeclaredName"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out.png"))
        let missing = try folio(["capture", "--shaders", dir.path + "/none", "--size", "48x27", "-o", dir.path + "/out.png"])
        #expect(missing.status == 78, "\(missing.stderr)")
    }
}
