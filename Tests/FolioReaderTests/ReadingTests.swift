import FolioReader
import FolioInput
import FolioBook
import Foundation
import Testing

@Suite struct PageNumberEntryTests {
    @Test func digitsThenEnterOrGGoToThePage() {
        var entry = PageNumberEntry()
        #expect(entry.handle(.n1) == .typing)
        #expect(entry.handle(.n2) == .typing)
        #expect(entry.digits == "12")
        #expect(entry.handle(.enter) == .go(12))
        #expect(entry.digits == "")
        for key: Key in [.n4, .n0, .n5, .backspace] { _ = entry.handle(key) }
        #expect(entry.handle(.g) == .go(40))
    }

    @Test func otherKeysPassOnAndForgetTheDigits() {
        var entry = PageNumberEntry()
        #expect(entry.handle(.enter) == nil, "Enter opens the book when nothing is typed")
        #expect(entry.handle(.n0) == .typing, "a leading zero is swallowed")
        #expect(entry.digits == "")
        _ = entry.handle(.n7)
        #expect(entry.handle(.right) == nil)
        #expect(entry.digits == "")
        _ = entry.handle(.n7)
        #expect(entry.handle(.escape) == .typing, "Escape forgets the digits, not the book")
        #expect(entry.handle(.escape) == nil)
        for _ in 0..<9 { _ = entry.handle(.n9) }
        #expect(entry.digits == "999999")
    }
}

@Suite struct ReadingPositionsTests {
    @Test func remembersEachBookInTheXDGStateFolder() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("folio-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let positions = ReadingPositions(environment: ["XDG_STATE_HOME": state, "HOME": "/nonexistent"])
        #expect(positions.file == state + "/folio/positions.json")
        let pdf = Book(title: "Doc", pages: [.document("/books/doc.pdf", index: 0), .document("/books/doc.pdf", index: 1)])
        let album = Book(title: "Album", pages: [.image("/books/album/1.jpg")])
        #expect(positions.page(of: pdf) == nil)
        #expect(positions.save(page: 2, of: pdf))
        #expect(positions.save(page: 1, of: album))
        #expect(ReadingPositions(file: positions.file).page(of: pdf) == 2)
        #expect(ReadingPositions(file: positions.file).page(of: album) == 1)
    }

    /// Positions of reflowable books carry the text size their page number counts in; a file
    /// of bare page numbers (older versions) still reads, and keeps its form when written.
    @Test func aPositionIsAPageOrAPageAtATextSize() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("folio-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let positions = ReadingPositions(file: state + "/positions.json")
        // Keys as the viewer makes them (no document format is registered here: the folder).
        let old = Book(title: "A", pages: [.image("/books/a/1.png")]), epub = Book(title: "B", pages: [.image("/books/b/1.png")])
        let (a, b) = try (#require(ReadingPositions.key(of: old)), #require(ReadingPositions.key(of: epub)))
        try Data(#"{"\#(a)": 3, "\#(b)": {"page": 40, "fontSize": 14}}"#.utf8).write(to: URL(fileURLWithPath: positions.file))
        #expect(positions.load() == [a: ReadingPosition(page: 3), b: ReadingPosition(page: 40, fontSize: 14)])
        // A book that is not open as a reflowable document gets the page number as stored.
        #expect(positions.page(of: epub) == 40 && positions.page(of: old) == 3)
        let c = Book(title: "C", pages: [.image("/books/c/1.png")])
        #expect(positions.save(page: 5, of: c))
        #expect(positions.load() == [a: ReadingPosition(page: 3), b: ReadingPosition(page: 40, fontSize: 14), "/books/c": ReadingPosition(page: 5)])
        let written = try String(contentsOfFile: positions.file, encoding: .utf8)
        #expect(written.contains(#"" : 3"#) && written.contains(#""fontSize" : 14"#), "\(written)")
    }

    /// A damaged positions file (cut short, one number out of range, too large) was replaced
    /// after one session by a file holding the new entry alone: every other book's place was
    /// lost. It is left alone, then kept aside with a line saying so.
    @Test(arguments: ["{\"/books/a.pdf\": 3, \"/books/b.pdf\": 1", "{\"/books/a.pdf\": 3, \"/books/b.pdf\": 1e400}", "big"])
    func aDamagedFileIsKeptAsideNeverOverwritten(content: String) throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("folio-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/folio", withIntermediateDirectories: true)
        let positions = ReadingPositions(file: state + "/folio/positions.json")
        let bytes = content == "big"
            ? Data(("{" + (0..<200_000).map { "\"/books/\($0).pdf\": \($0)" }.joined(separator: ", ") + "}").utf8)
            : Data(content.utf8)
        try bytes.write(to: URL(fileURLWithPath: positions.file))
        let pdf = Book(title: "Doc", pages: [.document("/books/doc.pdf", index: 0)])
        #expect(positions.page(of: pdf) == nil)
        #expect(!positions.save(page: 4, of: pdf), "not written over")
        #expect(try Data(contentsOf: URL(fileURLWithPath: positions.file)) == bytes)
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let note = try #require(positions.setAsideIfDamaged(now: when))
        let aside = positions.file + ".bad-20270115T080000Z"
        #expect(note.hasPrefix(positions.file + ": ") && note.hasSuffix("kept as \(aside), reading positions start afresh"), "\(note)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == bytes, "kept whole")
        #expect(positions.setAsideIfDamaged(now: when) == nil, "said once")
        #expect(positions.save(page: 4, of: pdf))
        #expect(positions.page(of: pdf) == 4)
    }

    /// A FIFO in place of the positions file was replaced by a regular file on the first page
    /// turn; it is read as inputs are and left alone.
    @Test func somethingOtherThanAFileCountsAsEmptyAndIsLeftAlone() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("folio-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/folio", withIntermediateDirectories: true)
        let positions = ReadingPositions(file: state + "/folio/positions.json")
        let book = Book(title: "Doc", pages: [.document("/books/doc.pdf", index: 0)])
        #expect(mkfifo(positions.file, 0o600) == 0)
        #expect(positions.page(of: book) == nil)
        #expect(!positions.save(page: 3, of: book))
        var st = stat()
        #expect(lstat(positions.file, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO, "the FIFO is still there")
        try FileManager.default.removeItem(atPath: positions.file)
        #expect(symlink("/dev/zero", positions.file) == 0)
        #expect(positions.page(of: book) == nil)
    }

    /// A positions file kept elsewhere and linked into the state folder stays a link.
    @Test func aLinkedFileIsWrittenThroughAndStaysALink() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("folio-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/folio", withIntermediateDirectories: true)
        let real = state + "/kept.json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: real))
        #expect(chmod(real, 0o640) == 0)
        let positions = ReadingPositions(file: state + "/folio/positions.json")
        #expect(symlink(real, positions.file) == 0)
        let book = Book(title: "Doc", pages: [.document("/books/doc.pdf", index: 0)])
        #expect(positions.save(page: 5, of: book))
        var st = stat()
        #expect(lstat(positions.file, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "still a link")
        #expect(stat(real, &st) == 0 && st.st_mode & 0o777 == 0o640, "the file's mode is kept")
        #expect(ReadingPositions(file: real).page(of: book) == 5)
    }

    @Test func fallsBackToTheHomeFolder() {
        #expect(ReadingPositions(environment: ["HOME": "/home/reader"]).file == "/home/reader/.local/state/folio/positions.json")
        #expect(ReadingPositions(environment: ["HOME": "/home/reader", "XDG_STATE_HOME": "relative"]).file
                == "/home/reader/.local/state/folio/positions.json")
    }
}
