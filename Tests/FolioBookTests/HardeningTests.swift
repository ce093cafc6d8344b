@testable import FolioBook
import FolioImage
@testable import FolioLibrary
import Foundation
import XCTest

/// Numbers and shapes a file can give that no page has: each becomes one problem line and the
/// book keeps a size the layout can use.
final class PageSizeTests: XCTestCase {
    let png = TestPNG.page()

    func testAbsurdManifestPageSizesAreRefused() {
        for size in ["[1e20, 568]", "[362, 1e-300]", "[1, 9000]", "[362, 1e308]"] {
            let dir = TempDir()
            dir.write("a/1.png", png)
            dir.write("Book.json", text: "{ \"pages\": \"a\",\n  \"pageSize\": \(size) }")
            let lib = Library.load(from: dir.path, logProblems: false)
            XCTAssertEqual(lib.books.count, 1, size)
            let book = lib.books[0]
            XCTAssertTrue(Book.isPageSize(book.pageWidth, book.pageHeight), "\(size) gave \(book.pageWidth)×\(book.pageHeight)")
            // The first page (16 × 24) decides instead.
            XCTAssertEqual(book.pageHeight, 568)
            XCTAssertEqual(book.pageWidth, (568.0 * 16 / 24).rounded())
            XCTAssertTrue(lib.problems.contains { $0.line == 2 && $0.message.hasPrefix("pageSize: ") && $0.message.contains("is not a page size") },
                          "\(lib.problems)")
        }
    }

    func testAStripAsFirstPageDoesNotShapeTheBook() {
        let dir = TempDir()
        dir.write("book/1.png", TestPNG.page(width: 2000, height: 10))
        dir.write("book/2.png", png)
        let lib = Library.load(from: dir.path + "/book", logProblems: false)
        XCTAssertEqual(lib.books.first?.pageWidth, Book.referencePageWidth)
        XCTAssertEqual(lib.books.first?.pageHeight, Book.referencePageHeight)
        XCTAssertTrue(lib.problems.contains { $0.severity == .note && $0.message.hasPrefix("its pages are 2000×10, not the shape of a page") },
                      "\(lib.problems)")
    }
}

/// Every file Folio writes goes through `OutputFile`: what the user had is never lost.
final class OutputFileTests: XCTestCase {
    private func mode(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return st.st_mode
    }

    func testNewFilesGetTheUsualModeAndNoTemporaryIsLeft() throws {
        let dir = TempDir()
        let path = dir.path + "/new.png"
        try OutputFile(path, replace: .never).write([1, 2, 3])
        XCTAssertEqual(try InputFile.read(path), [1, 2, 3])
        let m = umask(0o022); umask(m)
        XCTAssertEqual(mode(path) & 0o777, 0o666 & ~m)
        XCTAssertEqual(try FileName.list(dir.path), ["new.png"])
        XCTAssertThrowsError(try OutputFile(path, replace: .never).write([4])) { error in
            XCTAssertEqual((error as? FileError)?.kind, .cannotCreate)
        }
        XCTAssertEqual(try InputFile.read(path), [1, 2, 3])
    }

    func testSymlinksAreWrittenThroughAndKept() throws {
        let dir = TempDir()
        let target = dir.write("real.png", PNG.signature)
        XCTAssertEqual(symlink("real.png", dir.path + "/link.png"), 0)
        try OutputFile(dir.path + "/link.png", replace: .onlyPNG).write(PNG.signature + [9])
        XCTAssertEqual(mode(dir.path + "/link.png") & S_IFMT, S_IFLNK)
        XCTAssertEqual(try InputFile.read(target), PNG.signature + [9])
        // A dangling link creates its target.
        XCTAssertEqual(symlink("later.png", dir.path + "/dangling.png"), 0)
        try OutputFile(dir.path + "/dangling.png", replace: .always).write([7])
        XCTAssertEqual(try InputFile.read(dir.path + "/later.png"), [7])
    }

    func testModeAndHardLinksAreKept() throws {
        let dir = TempDir()
        let path = dir.write("shared.png", PNG.signature)
        XCTAssertEqual(chmod(path, 0o640), 0)
        XCTAssertEqual(link(path, dir.path + "/other-name.png"), 0)
        try OutputFile(path, replace: .onlyPNG).write(PNG.signature + [1, 2])
        XCTAssertEqual(try InputFile.read(dir.path + "/other-name.png"), PNG.signature + [1, 2], "the hard link sees the new content")
        XCTAssertEqual(mode(path) & 0o7777, 0o640)
        // One link: written aside and renamed, mode kept.
        let single = dir.write("single.png", PNG.signature)
        XCTAssertEqual(chmod(single, 0o604), 0)
        try OutputFile(single, replace: .always).write([5, 5])
        XCTAssertEqual(mode(single) & 0o7777, 0o604)
        // Shorter content than before leaves no old tail behind (in place).
        try OutputFile(path, replace: .always).write([8])
        XCTAssertEqual(try InputFile.read(dir.path + "/other-name.png"), [8])
    }

    func testOtherFilesAreKeptUnlessForced() throws {
        let dir = TempDir()
        let notes = dir.write("notes.png", text: "my notes")
        XCTAssertThrowsError(try OutputFile(notes, replace: .onlyPNG).prepare()) { error in
            XCTAssertEqual((error as? FileError)?.description, "\(notes): exists and is not a PNG image; not replaced (--force replaces it)")
        }
        XCTAssertEqual(try InputFile.read(notes), Array("my notes".utf8))
        try OutputFile(notes, replace: .always).write(PNG.signature)
        XCTAssertEqual(try InputFile.read(notes), PNG.signature)
    }

    func testDevicesAreWrittenInPlaceAndNeverRemoved() throws {
        XCTAssertThrowsError(try OutputFile("/dev/full", replace: .always).write([1, 2, 3])) { error in
            XCTAssertEqual((error as? FileError)?.kind, .io)
            XCTAssertEqual((error as? FileError)?.description, "/dev/full: cannot write: No space left on device")
        }
        XCTAssertEqual(mode("/dev/full") & S_IFMT, S_IFCHR)
        try OutputFile("/dev/null", replace: .never).write([1])
        XCTAssertEqual(mode("/dev/null") & S_IFMT, S_IFCHR)
    }

    func testAFIFOWithoutAReaderFailsAtOnceAndStays() throws {
        let dir = TempDir()
        let fifo = dir.path + "/pipe.png"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let start = Date()
        XCTAssertThrowsError(try OutputFile(fifo, replace: .always).write([1])) { error in
            XCTAssertEqual((error as? FileError)?.description, "\(fifo): cannot write: no process is reading the FIFO")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        XCTAssertEqual(mode(fifo) & S_IFMT, S_IFIFO)
    }

    func testFoldersAndMissingFoldersAreRefusedWithTheReason() {
        let dir = TempDir()
        let folder = dir.mkdir("looks-like.png")
        XCTAssertThrowsError(try OutputFile(folder, replace: .always).prepare()) { error in
            XCTAssertEqual((error as? FileError)?.reason, "cannot write: it is a folder; Folio writes files, character devices and FIFOs")
        }
        XCTAssertThrowsError(try OutputFile(dir.path + "/no/such/out.png", replace: .always).prepare()) { error in
            XCTAssertEqual((error as? FileError)?.kind, .cannotCreate)
            XCTAssertTrue((error as? FileError)?.reason.contains("does not exist") == true)
        }
        let file = dir.write("file", [1])
        XCTAssertThrowsError(try OutputFile.makeFolder(file + "/frames")) { error in
            XCTAssertEqual((error as? FileError)?.description, "\(file): cannot be used as a folder: it is a file")
        }
    }
}

/// Inputs are opened only as regular files, checked on the open descriptor.
final class InputFileTests: XCTestCase {
    func testAFIFONamedLikeAPageIsRefusedAtOnce() throws {
        let dir = TempDir()
        let fifo = dir.path + "/a.png"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let start = Date()
        XCTAssertThrowsError(try PNG.header(path: fifo)) { error in
            XCTAssertEqual(error as? PNGError, .unreadable(path: fifo, reason: "is a FIFO (named pipe), not a file"))
        }
        XCTAssertThrowsError(try PNG.read(path: fifo))
        XCTAssertThrowsError(try InputFile.read("/dev/zero")) { error in
            XCTAssertEqual((error as? FileError)?.reason, "is a character device, not a file")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        // A book folder holding it opens, with one problem for that page.
        dir.write("b.png", TestPNG.page())
        let lib = Library.load(from: dir.path, logProblems: false)
        XCTAssertEqual(lib.books.first?.pages.count, 2)
    }

    func testNamesThatAreNotUTF8AreListedAndOpened() throws {
        let dir = TempDir()
        let raw: [UInt8] = Array(dir.path.utf8) + Array("/p".utf8) + [0xFF, 0xE9] + Array("1.png".utf8)
        let bytes = TestPNG.page()
        let fd = open(raw.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let names = try FileName.list(dir.path)
        XCTAssertEqual(names.count, 1)
        XCTAssertEqual(FileName.bytes(dir.path + "/" + names[0]).dropLast().map { UInt8(bitPattern: $0) }, raw)
        let lib = Library.load(from: dir.path, logProblems: false)
        XCTAssertEqual(lib.books.first?.pages.count, 1)
        XCTAssertEqual(try PNG.read(path: lib.books[0].pages[0].path).width, 16)
        XCTAssertEqual(FileName.string(Array("plain é".utf8)), "plain é")
        XCTAssertEqual(FileName.printable(names[0]), "p\\xFF\\xE91.png", "messages show the bytes")
    }

    /// A PDF titled "Evil ESC[31m …" coloured the terminal and broke info's lines with its
    /// newline: control characters are shown as bytes too.
    func testControlCharactersAreShownAsBytes() {
        XCTAssertEqual(FileName.printable("Evil\u{1B}[31mRED\nline\u{7}\u{9B}"), "Evil\\x1B[31mRED\\x0Aline\\x07\\x9B")
        XCTAssertEqual(FileName.printable("Alice — Lewis Carroll, p. 3"), "Alice — Lewis Carroll, p. 3")
    }

    /// Bidirectional overrides made a name read backwards (`cod.exe` shown as `exe.doc`), and
    /// names in grouped lines ("N files: … (a, b, c, …)") reached the terminal raw.
    func testBidiControlsAndNamesInGroupedLinesAreEscaped() {
        XCTAssertEqual(FileName.printable("cod\u{202E}fdp.exe\u{2066}x\u{2069}"), "cod\\u{202E}fdp.exe\\u{2066}x\\u{2069}")
        let problems = (0..<5).map { Problem(file: "/b/\u{1B}]0;owned\u{7}\($0).txt", message: "skipped", severity: .note) }
        let shown = Problem.summarised(problems).map(\.description)
        XCTAssertEqual(shown, ["/b: note: 5 files: skipped (\\x1B]0;owned\\x070.txt, \\x1B]0;owned\\x071.txt, \\x1B]0;owned\\x072.txt, …)"])
    }

    /// A library whose entry links back to its own folder (`a -> .`, listed twice) was read
    /// down ever longer paths (2^40 of them): each manifest is read once per chain, by device
    /// and inode.
    func testALinkBackToTheLibraryIsReadOnce() {
        let dir = TempDir()
        dir.write("lib/Library.json", text: #"{"books": ["loop", "loop", "book"]}"#)
        dir.write("lib/book/1.png", TestPNG.page())
        XCTAssertEqual(symlink(".", dir.path + "/lib/loop"), 0)
        let lib = Library.load(from: dir.path + "/lib", logProblems: false)
        XCTAssertEqual(lib.books.count, 1)
        XCTAssertEqual(lib.problems.map(\.message), Array(repeating: "links back to itself (\(dir.path)/lib/Library.json); ignored", count: 2))
    }

    /// A manifest of millions of empty books printed a line for each (586 MB on stderr):
    /// notes of one manifest that differ only by the entry's index are grouped beyond three.
    func testAlikeNotesOfOneManifestAreGrouped() {
        let dir = TempDir()
        let path = dir.write("Library.json", text: #"{"books": ["# + Array(repeating: "{}", count: 700).joined(separator: ",\n") + "]}")
        let lib = Library.load(from: path, logProblems: false)
        let shown = Problem.summarised(lib.problems).map(\.description)
        XCTAssertEqual(shown, ["\(path): note: 700 entries: books[…]: no pages given; the book is empty (books[0], books[1], books[2], …)"])
    }

    func testAPNGGivenAsTheSourceIsABookOfOnePage() {
        let dir = TempDir()
        let page = dir.write("scan.png", TestPNG.page(width: 20, height: 30))
        let lib = Library.load(from: page, logProblems: false)
        XCTAssertEqual(lib.books.map(\.pages), [[.image(page)]])
        XCTAssertEqual(lib.problems, [])
    }

    func testManyAlikeProblemsAreSummarised() {
        let dir = TempDir()
        dir.write("book/1.png", TestPNG.page())
        for i in 0..<200 { dir.write("book/note\(i).txt", text: "x") }
        let lib = Library.load(from: dir.path + "/book", logProblems: false)
        XCTAssertEqual(lib.problems.count, 200, "the library keeps each")
        let shown = Problem.summarised(lib.problems)
        XCTAssertEqual(shown.map(\.description),
                       ["\(dir.path)/book: note: 200 files: skipped: not a page image (PNG, JPEG or WebP) (note0.txt, note1.txt, note2.txt, …)"])
        XCTAssertEqual(Problem.summarised(Array(lib.problems.prefix(3))).count, 3, "a few are shown as they are")
    }

    func testATopLevelArraySaysWhy() {
        let dir = TempDir()
        let path = dir.write("Library.json", text: "[1, 2]")
        let lib = Library.load(from: path, logProblems: false)
        XCTAssertEqual(lib.books, [])
        XCTAssertEqual(lib.problems.map(\.description), ["\(path):1: the top level must be an object, found an array"])
        let empty = dir.write("empty/Library.json", text: "{ \"books\": [] }")
        XCTAssertEqual(Library.load(from: empty, logProblems: false).problems.map(\.message), ["no book found here"])
    }
}

/// Pages larger than they are shown are read a row at a time at the reduced size.
final class ScaledReadTests: XCTestCase {
    private func assertClose(_ a: RGBAImage, _ b: RGBAImage, tolerance: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual([a.width, a.height], [b.width, b.height], file: file, line: line)
        guard a.pixels.count == b.pixels.count else { return }
        let worst = zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, tolerance, file: file, line: line)
    }

    func testStreamedScalingMatchesDecodingWholeThenScaling() throws {
        let dir = TempDir()
        let cases: [(Int, Int, (Int, Int) -> [Int])] = [
            (6, 8, { x, y in [x % 256, y * 7 % 256, (x * y) % 256, (x + y) % 2 == 0 ? 255 : 128] }),  // RGBA, some alpha
            (2, 16, { x, y in [x * 131 % 65536, y * 257 % 65536, 40000] }),                           // RGB16
            (0, 8, { x, y in [(x + 3 * y) % 256] }),                                                     // grey
        ]
        for (type, depth, sample) in cases {
            let bytes = TestPNG.make(width: 500, height: 70, colorType: type, bitDepth: depth, sample: sample)
            let path = dir.write("big-\(type)-\(depth).png", bytes)
            let streamed = try PNG.read(path: path, maxSide: 64)
            let whole = try PNG.decode(bytes).scaledToFit(maxWidth: 64, maxHeight: 64)
            assertClose(streamed, whole, tolerance: 1)
        }
    }

    func testGammaIsConvertedAsWhenDecodedWhole() throws {
        let dir = TempDir()
        var bytes = TestPNG.make(width: 300, height: 40, colorType: 2, bitDepth: 8) { x, y in [x * 255 / 299, 128, y * 6] }
        // gAMA 1.0: linear samples, brightened on the way to sRGB.
        bytes.insert(contentsOf: TestPNG.chunk("gAMA", TestPNG.be32(100_000)), at: 33)
        let path = dir.write("linear.png", bytes)
        let whole = try PNG.decode(bytes).scaledToFit(maxWidth: 64, maxHeight: 64)
        XCTAssertGreaterThan(whole.pixel(32, 5).g, 160, "the simplified reader converts gamma")
        assertClose(try PNG.read(path: path, maxSide: 64), whole, tolerance: 2)
    }

    func testInterlacedLargeImagesAreReadFromTheirLastPass() throws {
        let dir = TempDir()
        let bytes = TestPNG.make(width: 300, height: 200, colorType: 2, bitDepth: 8, interlaced: true) { x, y in [x * 255 / 299, y * 255 / 199, 90] }
        let path = dir.write("interlaced.png", bytes)
        let streamed = try PNG.read(path: path, maxSide: 64)
        assertClose(streamed, try PNG.decode(bytes).scaledToFit(maxWidth: 64, maxHeight: 64), tolerance: 3)
        // Too few rows in the last pass for the size asked: refused, not read whole.
        XCTAssertThrowsError(try PNG.read(path: path, maxSide: 200)) { error in
            XCTAssertTrue("\(error)".contains("interlaced image of 300x200 is too large"), "\(error)")
        }
    }

    /// A page of more than `PNG.wholePixels` was decoded up to 4096 pixels whatever it was shown
    /// at (three 12000 × 12000 pages: 513 MB at peak for a 640 × 360 capture; in a comic archive,
    /// whole), it is read at the size asked for, and says that a larger size would be sharper.
    /// Smaller pages are decoded whole.
    func testLargePagesAreReadAtTheSizeTheyAreShownAt() throws {
        let dir = TempDir()
        let side = 2100  // 4.4 megapixels, just past the whole-decode limit
        XCTAssertGreaterThan(side * side, PNG.wholePixels)
        let bytes = TestPNG.make(width: side, height: side, colorType: 0, bitDepth: 8) { x, y in [(x / 30 + y / 30) % 2 * 255] }
        let path = dir.write("large.png", bytes)
        let documents = DocumentRegistry()
        let shown = try documents.render(.image(path), fit: PixelSize(width: 4096, height: 300))
        XCTAssertEqual([shown.image.width, shown.image.height], [300, 300])
        XCTAssertTrue(shown.scalable, "shown larger, it is read again")
        // An archive's entry, in memory: the same, never inflated whole.
        let entry = try PageSources.decode(bytes, path: "comic.cbz/large.png", fit: PixelSize(width: 4096, height: 300))
        XCTAssertEqual(entry.image, shown.image)
        XCTAssertTrue(entry.scalable)
        XCTAssertThrowsError(try PageSources.decode(Array(bytes.prefix(bytes.count / 2)), path: "cut.png", fit: PixelSize(width: 300, height: 300))) { error in
            XCTAssertTrue("\(error)".contains("the file ends before the image does"), "\(error)")
        }
        let capped = try documents.render(.image(path), fit: PixelSize(width: 4096, height: 4096), maxSide: 1024)
        XCTAssertEqual([capped.image.width, capped.image.height, capped.scalable ? 1 : 0], [1024, 1024, 0])
        let small = dir.write("small.png", TestPNG.make(width: 600, height: 900, colorType: 0, bitDepth: 8) { x, _ in [x % 256] })
        let whole = try documents.render(.image(small), fit: PixelSize(width: 4096, height: 300))
        XCTAssertEqual([whole.image.width, whole.image.height, whole.scalable ? 1 : 0], [600, 900, 0])
    }

    func testAHeaderThatLiesCostsNothing() throws {
        let dir = TempDir()
        // 16384 × 16384 RGBA claimed, a few bytes of image data given.
        var bytes = TestPNG.make(width: 1, height: 1, colorType: 6, bitDepth: 8) { _, _ in [0, 0, 0, 0] }
        let ihdr = Array(bytes[12..<29])
        var claimed = ihdr
        claimed.replaceSubrange(4..<12, with: TestPNG.be32(16384) + TestPNG.be32(16384))
        bytes.replaceSubrange(8..<33, with: TestPNG.be32(13) + claimed + TestPNG.be32(Int(crc32(claimed))))
        let path = dir.write("liar.png", bytes)
        XCTAssertLessThan(bytes.count, 100)
        let start = Date()
        XCTAssertThrowsError(try PNG.read(path: path)) { error in
            guard case PNGError.invalid = error else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
    }
}

/// Found by the fuzzer: Foundation on Linux crashed turning a binary plist's set into Swift.
final class BinaryPlistTests: XCTestCase {
    func testASetInABinaryPlistIsAProblemNotACrash() {
        // { "books": [ {5} ] } with the set written as marker 0xC1.
        var bytes = Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x55] + Array("books".utf8) + [0xA1, 0x03, 0xC1, 0x04, 0x10, 0x05]
        let table = bytes.count
        bytes += [8, 11, 17, 19, 21]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + TestPNG.be32(0) + TestPNG.be32(5) + [0, 0, 0, 0, 0, 0, 0, 0] + TestPNG.be32(0) + TestPNG.be32(table)
        XCTAssertThrowsError(try ManifestValue.parse(bytes)) { error in
            XCTAssertEqual((error as? ManifestSyntaxError)?.message, "not a valid property list: object 3 has type 0xC, which no manifest uses")
        }
        let dir = TempDir()
        let path = dir.write("Library.plist", bytes)
        XCTAssertEqual(Library.load(from: path, logProblems: false).books, [])
    }
}
