import Foundation
import Testing

/// What a hostile user can do from the command line gives one clear line and the exit status
/// command-line users expect (64 usage, 65 bad data, 66 missing input, 73 cannot create,
/// 74 I/O error), and destroys nothing.
@Suite(.serialized) struct HardeningCLITests {
    private func folio(_ arguments: [String], stdoutPath: String? = nil, timeout: Double = 60) throws -> FolioProcess.Result {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        return try FolioProcess.run(binary.path, arguments, stdoutPath: stdoutPath, timeout: timeout)
    }

    private func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-hard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private let samplePage: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("Textures/alice/cover.png").path
    }()

    private func fileType(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    /// A PDF of one page whose form XObjects nest `depth` deep, each drawing the next twice:
    /// 2^depth drawings (20 deep: minutes of poppler's time; deeper: refused, `PageHazards`).
    private func nestedFormsPDF(depth: Int) -> Data {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                       "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] /Contents 4 0 R /Resources << /XObject << /X 5 0 R >> >> >>"]
        objects.append(TestPDF.stream("", "/X Do"))
        return TestPDF.document(objects + TestPDF.nestedForms(from: 5, depth: depth))
    }

    /// `info --decode` of a page still drawing after --page-timeout: passed over with one line.
    @Test func aPageThatNeverFinishesIsPassedOverByInfo() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pdf = dir.appendingPathComponent("deep.pdf")
        try nestedFormsPDF(depth: 20).write(to: pdf)
        let r = try folio(["info", "--decode", "--page-timeout", "1.5", pdf.path], timeout: 30)
        #expect(!r.timedOut && r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(pdf.path): page 1: still decoding after 1.5 s; passed over"), "\(r.stdout)")
    }

    /// A page poppler never finishes (forms nested 36 deep, 2^36 drawings) ran `info --decode`
    /// for its whole --page-timeout (60 s by default: 133 s for two such pages); it is refused
    /// before poppler sees it, with one line, in every command (`capture` shows a placeholder).
    @Test func aPageThatWouldNeverFinishIsRefusedAtOnce() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pdf = dir.appendingPathComponent("deeper.pdf")
        try nestedFormsPDF(depth: 36).write(to: pdf)
        let line = "\(pdf.path): page 1: not drawn: its forms and patterns draw each other more than 1048576 times"
        let info = try folio(["info", "--decode", pdf.path], timeout: 20)
        #expect(!info.timedOut && info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains(line), "\(info.stdout)")
        let capture = try folio(["capture", pdf.path, "--book", "0", "--size", "64x40", "-o", dir.path + "/out.png"], timeout: 20)
        #expect(!capture.timedOut && capture.status == 0, "\(capture.stderr)")
        #expect(capture.stderr.contains(line), "\(capture.stderr)")
    }

    /// `-o /dev/stdout` into a pipe failed (73) although the help names it, `-o -` wrote a file
    /// named "-", and `-o ""` was 73 rather than a usage error.
    @Test func standardOutputByNameWritesIntoAPipe() throws {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["-", "/dev/stdout"] {
            let r = try FolioProcess.run("/bin/sh", ["-c", #""$0" capture --size 48x27 -o "$1" | od -An -tx1 -N8"#, binary.path, name],
                                         directory: dir.path, timeout: 60)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(r.stdout.split(separator: " ").joined(separator: " ").hasPrefix("89 50 4e 47 0d 0a 1a 0a"), "\(name): \(r.stdout)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [], "no file named -")
        let empty = try folio(["capture", "--size", "48x27", "-o", ""])
        #expect(empty.status == 64 && empty.stderr.contains("the output path is empty"), "\(empty.stderr)")
    }

    /// The only document named, unreadable: the placeholder was drawn and the status was 0, so
    /// a script could not tell failure from success. The picture is still written; the status is 65.
    @Test func anUnusableDocumentAloneEndsWith65() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = dir.appendingPathComponent("scrambled.pdf")
        try Data("%PDF-1.4\nthis is no PDF at all\n".utf8).write(to: doc)
        let out = dir.appendingPathComponent("shot.png").path
        let r = try folio(["capture", "--size", "48x27", "-o", out, doc.path])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("showing a placeholder page"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out), "the placeholder is still written")
        let info = try folio(["info", doc.path])
        #expect(info.status == 65, "\(info.stderr)")
    }

    /// `--msaa 16` at 8192² took 4.5 GB; past 2 GiB of samples it is refused before any work.
    @Test func multisamplingIsBoundedBySize() throws {
        let r = try folio(["capture", "--msaa", "16", "--size", "8192x8192", "-o", "/nonexistent/x.png"])
        #expect(r.status == 64 && r.stderr.contains("--msaa 16 at 8192x8192 needs 8192 MiB of samples; at most 2048 MiB"), "\(r.stderr)")
    }

    /// Names that are not UTF-8 were echoed as the UTF-8 of their private-use stand-ins
    /// ("out\u{10FFE9}"); they are shown as info shows them, byte by byte ("out\\xE9").
    @Test func namesThatAreNotUTF8AreShownByteByByte() throws {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try FolioProcess.run("/bin/sh", ["-c", #""$0" capture --size 64x36 -o "$(printf 'caf\351.png')" && "$0" record --size 64x36 --script open -o "$(printf 'out\351')""#, binary.path],
                                       directory: dir.path, timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("caf\\xE9.png\n") && run.stdout.hasSuffix("to PNG in out\\xE9\n"), "\(run.stdout)")
    }

    // MARK: Numbers

    @Test(arguments: [
        (["layout", "--scroll", "1e19"], "--scroll must be between -1 and"),
        (["layout", "--scroll", "-1e19"], "--scroll must be between -1 and"),
        (["layout", "--velocity", "1e300", "--snap"], "--velocity must be between"),
        (["layout", "--view", "1e300x720"], "the view size must be"),
        (["layout", "--book", "0", "--page", "7", "--turn", "0.5", "--curl", "-0.5,0"], "--curl must lie on the turning page"),
        (["capture", "--msaa", "64", "-o", "/tmp/folio-never.png"], "--msaa must be 0…16"),
        (["capture", "--book", "0", "--layout", "fan", "--spread", "nan", "-o", "/tmp/folio-never.png"], "book 0 has spreads 0…"),
        (["view", "--msaa", "64"], "--msaa must be 0…16"),
        (["record", "--script", "wait 1e9", "-o", "/tmp/folio-never"], "'wait' wants seconds from 0 to 3600"),
        (["record", "--script", "next 1e19", "-o", "/tmp/folio-never"], "'next' wants a count from 1 to 10000"),
        (["capture", "-o", "out.jpg"], "Folio writes PNG images only"),
        (["capture", "--size", "16384x16384", "-o", "/tmp/folio-never.png"], "at most 67 (8192x8192) are drawn"),
        (["capture", "--book", "0", "--page", "9223372036854775807", "-o", "/tmp/folio-never.png"], "--page 9223372036854775807: no book has that page"),
        (["layout", "--book", "0", "--page=-9223372036854775808"], "--page -9223372036854775808: no book has that page"),
        (["layout", "--book", "0", "--page", "2147483648"], "no book has that page"),
    ])
    func absurdNumbersAreRefusedWithUsage(arguments: [String], message: String) throws {
        let r = try folio(arguments)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtrace"))
    }

    /// Page numbers at Int's bounds overflowed converting to the layout's pages and crashed a
    /// capture, a recording and a whole batch. A script's `goto` past the end goes to the last
    /// page; a batch job asking for one fails alone.
    @Test func pageNumbersAtIntsBoundsDoNotCrash() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try folio(["record", "--script", "open; goto 9223372036854775807", "--fps", "5", "--size", "32x32", "-o", dir.path + "/frames", "-q"])
        #expect(r.status == 0, "\(r.status) \(r.stderr)")
        let jobs = dir.path + "/jobs.jsonl"
        let pages = [("a", "9223372036854775807"), ("b", "-9223372036854775808"), ("c", "2")]
        try pages.map { #"{"capture": "\#(dir.path)/\#($0.0).png", "size": "32x32", "page": \#($0.1)}"# }.joined(separator: "\n")
            .write(toFile: jobs, atomically: true, encoding: .utf8)
        let batch = try folio(["batch", jobs, "--quiet"])
        #expect(batch.status == 1, "\(batch.status) \(batch.stderr)")
        // Jobs run side by side: their lines come in any order.
        let lines = batch.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines.filter { $0.contains("no book has that page") }.count == 2, "\(batch.stdout)")
        #expect(lines.contains { $0.contains(#"c.png""#) && $0.contains(#""status":"ok""#) }, "\(batch.stdout)")
    }

    @Test func negativeNumbersAreTypedAsPeopleTypeThem() throws {
        for arguments in [["--scroll", "-0.5"], ["--velocity", "-1", "--snap"], ["--scroll", "-0"],
                          ["--book", "0", "--page", "7", "--turn", "0.5", "--curl", "0.5,-0.25"]] {
            let r = try folio(["layout"] + arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(r.stdout.contains("\"state\""))
        }
    }

    @Test func scriptFilesThatCannotBeUsedSayWhy() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.path + "/broken.txt", latin1 = dir.path + "/latin1.txt"
        try "open\nnxt".write(toFile: broken, atomically: true, encoding: .utf8)
        try Data([0x6F, 0x70, 0x65, 0x6E, 0xFF]).write(to: URL(fileURLWithPath: latin1))
        for (file, status, message) in [("/nonexistent", Int32(66), "/nonexistent: No such file or directory"),
                                        ("/tmp", 65, "/tmp: is a folder, not a file"),
                                        ("/dev/zero", 65, "/dev/zero: is a character device, not a file"),
                                        (latin1, 65, "the script is not UTF-8 text"),
                                        (broken, 65, "broken.txt: script:2: unknown action 'nxt'")] {
            let r = try folio(["record", "--script", "@" + file, "-o", dir.path + "/frames"], timeout: 30)
            #expect(r.status == status, "\(file): \(r.stderr)")
            #expect(r.stderr.hasPrefix("folio: ") && r.stderr.contains(message), "\(file): \(r.stderr)")
        }
    }

    @Test func aRecordingOfDaysIsRefusedBeforeAnyWork() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try folio(["record", "--script", "wait 3600; wait 3600", "--fps", "240", "-o", dir.path + "/frames"], timeout: 30)
        #expect(r.status == 64)
        #expect(r.stderr.contains("the script makes more than 99999 frames"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/frames"))
    }

    // MARK: Errors

    @Test func missingAndBrokenSourcesFail() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.path + "/x.png"
        for command in [["capture", "-o", out], ["layout"], ["record", "--script", "open", "-o", dir.path + "/rec"], ["info"]] {
            let r = try folio(command + ["/does/not/exist"])
            #expect(r.status == 66, "\(command): \(r.stderr)")
            #expect(r.stderr == "folio: /does/not/exist: No such file or directory\n", "\(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        let array = dir.path + "/list.json"
        try "[1, 2]".write(toFile: array, atomically: true, encoding: .utf8)
        let r = try folio(["capture", array, "-o", out])
        #expect(r.status == 65)
        #expect(r.stderr.contains("list.json:1: the top level must be an object, found an array"), "\(r.stderr)")
        #expect(r.stderr.contains("no book could be opened"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func writeErrorsOnStandardOutputExit74() throws {
        let r = try folio(["layout"], stdoutPath: "/dev/full")
        #expect(r.status == 74)
        #expect(r.stderr == "folio: standard output: cannot write: No space left on device\n", "\(r.stderr)")
    }

    @Test func aPNGAsTheSourceIsAOnePageBook() throws {
        let r = try folio(["info", samplePage])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 page,"), "\(r.stdout)")
    }

    // MARK: Output safety

    @Test func devFullIsReportedAndKept() throws {
        let r = try folio(["capture", "--size", "32x32", "-o", "/dev/full"])
        #expect(r.status == 74)
        #expect(r.stderr == "folio: /dev/full: cannot write: No space left on device\n", "\(r.stderr)")
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    /// A video to /dev/full (no extension: ffmpeg had no format for it) ended with 73; it is
    /// written (Matroska) and fails part-way, 74.
    @Test(.enabled(if: FolioProcess.available("ffmpeg"), "ffmpeg missing"))
    func aVideoToDevFullExits74() throws {
        let r = try folio(["record", "--script", "wait 0.1", "--size", "32x32", "--video", "/dev/full", "--force", "-q"])
        #expect(r.status == 74, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("No space left on device"), "\(r.stderr)")
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    /// A video onto a FIFO with no reader: ffmpeg waited for one without end, Ctrl-C and
    /// SIGTERM unheard. It is refused before anything is drawn.
    @Test func aVideoIsNotWrittenIntoAFIFO() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.path + "/out.mp4"
        #expect(mkfifo(fifo, 0o644) == 0)
        for force in [[], ["--force"]] {
            let r = try folio(["record", "--script", "wait 0.1", "--size", "32x32", "--video", fifo, "-q"] + force, timeout: 20)
            #expect(!r.timedOut && r.status == 73, "\(r.status) \(r.stderr)")
            #expect(r.stderr == "folio: \(fifo) is a FIFO (named pipe); a video is written to a file or a device\n", "\(r.stderr)")
        }
    }

    /// A name with a line feed printed it raw in the one-line errors of `text` and `outline`.
    @Test func aNameWithALineFeedStaysOnOneLine() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.path + "/two\nlines.pdf"
        try Data("not a PDF".utf8).write(to: URL(fileURLWithPath: path))
        for command in ["text", "outline"] {
            let r = try folio([command, path])
            #expect(r.status == 65, "\(r.stderr)")
            #expect(r.stderr == "folio: \(dir.path)/two\\x0Alines.pdf: not a readable PDF: PDF document is damaged\n", "\(r.stderr)")
        }
    }

    /// JSON passed DEL and bidirectional overrides raw (JSONEncoder escapes only what JSON must):
    /// an outline's title that turns a terminal's text around is escaped.
    @Test func jsonEscapesDELAndBidirectionalOverrides() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pdf = dir.appendingPathComponent("titled.pdf")
        try TestPDF.document(["<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                              "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >>",
                              "<< /Type /Outlines /First 5 0 R /Last 5 0 R /Count 1 >>",
                              "<< /Title <FEFF0041202E0042007F0043> /Parent 4 0 R /Dest [3 0 R /Fit] >>"]).write(to: pdf)
        let r = try folio(["outline", "--json", pdf.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""title":"A\u202EB\u007FC""#), "\(r.stdout)")
        #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x7F }, "\(r.stdout)")
    }

    /// A page asked of a PDF of no pages was a usage error (64); the input is what is wrong (65).
    @Test func aPageOfADocumentOfNoPagesExits65() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pdf = dir.appendingPathComponent("empty.pdf")
        try TestPDF.document(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"]).write(to: pdf)
        let r = try folio(["capture", pdf.path, "--page", "1", "--size", "32x32", "-o", dir.path + "/out.png"])
        #expect(r.status == 65, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("has pages 1…0"), "\(r.stderr)")
    }

    /// A writer killed (SIGKILL) leaves its hidden files: `.folio-PID-….png` beside a capture,
    /// `.folio-frames-PID-…` in a recording's folder, ffmpeg's log in the temporary folder, and
    /// nothing removed them. The next write there does, keeping those of a writer still running.
    @Test func whatAKilledWriterLeftIsRemovedByTheNextWrite() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gone = 4_194_305  // above the largest pid_max: no process has it
        try Data("partial".utf8).write(to: dir.appendingPathComponent(".folio-\(gone)-abc123.png"))
        let frames = dir.appendingPathComponent(".folio-frames-\(gone)-def456")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: frames.appendingPathComponent("frame-00001.png"))
        let running = ".folio-\(getpid())-ghi789.png"  // this test's own process runs
        try Data("in progress".utf8).write(to: dir.appendingPathComponent(running))
        let r = try folio(["capture", "--size", "32x32", "-o", dir.path + "/out.png"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [running, "out.png"])
        guard FolioProcess.available("ffmpeg") else { return }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("folio-ffmpeg-\(gone)-\(UUID().uuidString).log")
        try Data("ffmpeg said".utf8).write(to: log)
        let video = try folio(["record", "--script", "wait 0.1", "--size", "32x32", "--video", dir.path + "/out.mp4", "-q"])
        #expect(video.status == 0, "\(video.stderr)")
        #expect(!FileManager.default.fileExists(atPath: log.path))
    }

    @Test func captureWritesThroughLinksAndKeepsWhatIsNotAnImage() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.path + "/real.png", link = dir.path + "/link.png"
        #expect(symlink(target, link) == 0)
        let r = try folio(["capture", "--size", "32x32", "-o", link])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(fileType(link) == S_IFLNK)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).prefix(4) == Data([137, 80, 78, 71]))
        let notes = dir.path + "/notes.png"
        try "keep me".write(toFile: notes, atomically: true, encoding: .utf8)
        let refused = try folio(["capture", "--size", "32x32", "-o", notes])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("exists and is not a PNG image; not replaced (--force replaces it)"))
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep me")
        let folder = dir.path + "/folder.png"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let r2 = try folio(["capture", "--size", "32x32", "-o", folder])
        #expect(r2.status == 73 && r2.stderr.contains("it is a folder"), "\(r2.stderr)")
    }

    /// The book a command reads is never its output, under another name, through a symbolic or
    /// a hard link, even with --force: a capture, a recording's video and spoken sound are
    /// refused before any work, and the book is as it was.
    @Test func theBookReadIsNeverReplacedEvenWithForce() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let book = dir.path + "/book.pdf"
        try TestPDF.document(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                              "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >>"]).write(to: URL(fileURLWithPath: book))
        let before = try Data(contentsOf: URL(fileURLWithPath: book))
        #expect(symlink(book, dir.path + "/alias.png") == 0 && link(book, dir.path + "/hard.png") == 0 && symlink(book, dir.path + "/film.mp4") == 0)
        for arguments in [["capture", book, "--size", "32x32", "-o", dir.path + "/alias.png", "--force"],
                          ["capture", book, "--size", "32x32", "-o", dir.path + "/hard.png", "--force"],
                          ["capture", book, "--size", "32x32", "-o", dir.path + "/alias.png"],
                          ["record", book, "--script", "open", "--size", "32x32", "--video", dir.path + "/film.mp4", "--force"],
                          ["speak", book, "-o", dir.path + "/hard.png", "--force"]] {
            let r = try folio(arguments)
            #expect(r.status == 73, "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("which this command reads; never replaced, not even with --force"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: book)) == before)
        #expect(fileType(dir.path + "/alias.png") == S_IFLNK && fileType(dir.path + "/film.mp4") == S_IFLNK)
    }

    @Test func aCaptureDoesNotReplaceAPageOfItsOwnBook() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.path + "/p1.png"
        try FileManager.default.copyItem(atPath: samplePage, toPath: page)
        let before = try Data(contentsOf: URL(fileURLWithPath: page))
        let r = try folio(["capture", dir.path, "--size", "32x32", "-o", page])
        #expect(r.status == 73)
        #expect(r.stderr.contains("p1.png is page 1 of"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: page)) == before)
    }

    @Test func aFIFOInABookFolderDoesNotBlock() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: samplePage, toPath: dir.path + "/a0.png")
        #expect(mkfifo(dir.path + "/a.png", 0o644) == 0)
        let info = try folio(["info", dir.path], timeout: 20)
        #expect(!info.timedOut && info.status == 0)
        #expect(info.stdout.contains("a.png: cannot read: is a FIFO (named pipe), not a file"), "\(info.stdout)")
        let capture = try folio(["capture", dir.path, "--size", "64x40", "--book", "0", "--page", "1", "-o", dir.path + "/out.png"], timeout: 20)
        #expect(!capture.timedOut && capture.status == 0, "\(capture.stderr)")
        // A FIFO as the output with nobody reading: refused at once, and still there.
        let out = try folio(["capture", "--size", "32x32", "-o", dir.path + "/a.png"], timeout: 20)
        #expect(!out.timedOut && out.status == 73)
        #expect(out.stderr.contains("no process is reading the FIFO"))
        #expect(fileType(dir.path + "/a.png") == S_IFIFO)
    }

    @Test func videoOntoAnExistingFileNeedsForce() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.path + "/old.mp4"
        try "a video".write(toFile: video, atomically: true, encoding: .utf8)
        let r = try folio(["record", "--script", "open", "--size", "32x32", "-o", dir.path + "/f", "--video", video])
        #expect(r.status == 73)
        #expect(r.stderr.contains("old.mp4: exists; not replaced"), "\(r.stderr)")
        #expect(try String(contentsOfFile: video, encoding: .utf8) == "a video")
        let onAFrame = try folio(["record", "--script", "open", "--size", "32x32", "-o", dir.path + "/f",
                                  "--video", dir.path + "/f/frame-00001.png", "--force"])
        #expect(onAFrame.status == 64)
        #expect(onAFrame.stderr.contains("would overwrite a frame of the recording"), "\(onAFrame.stderr)")
    }

    // MARK: Interrupts

    @Test func ctrlCEndsARecordingCleanly() throws {
        let binary = try #require(FolioProcess.binary)
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = dir.path + "/frames"
        let p = Process()
        p.executableURL = binary
        p.arguments = ["record", "--script", "open; wait 60", "--fps", "10", "--size", "48x32", "-o", frames]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: frames)) ?? []).count < 3 { usleep(20_000) }
        kill(p.processIdentifier, SIGINT)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted after"), "\(stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: frames)
        #expect(!names.isEmpty && names.allSatisfy { $0.hasPrefix("frame-") }, "no temporary file is left: \(names)")
        for name in names {
            let data = try Data(contentsOf: URL(fileURLWithPath: frames + "/" + name))
            #expect(data.suffix(8).prefix(4) == Data("IEND".utf8), "\(name) is complete")
        }
    }
}
