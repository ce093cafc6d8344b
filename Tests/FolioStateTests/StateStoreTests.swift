@testable import FolioState
import FolioBook
import Foundation
import Testing

@Suite struct StateStoreTests {
    private func open(_ scratch: Scratch, legacy: String? = nil) throws -> (StateStore, [String]) {
        let opened = StateStore.open(path: scratch.path + "/data/folio/state.sqlite", migratingFrom: legacy)
        return (try #require(opened.store, "\(opened.notices)"), opened.notices)
    }

    private func book(_ path: String, pages: Int = 40) -> Book {
        Book(title: (path as NSString).lastPathComponent, pages: (0..<pages).map { .document(path, index: $0) })
    }

    @Test func theStoreLivesInTheXDGDataFolder() {
        #expect(StateStore.path(environment: ["HOME": "/home/reader"]) == "/home/reader/.local/share/folio/state.sqlite")
        #expect(StateStore.path(environment: ["HOME": "/home/reader", "XDG_DATA_HOME": "/data"]) == "/data/folio/state.sqlite")
        #expect(StateStore.path(environment: ["HOME": "/home/reader", "XDG_DATA_HOME": "relative"]) == "/home/reader/.local/share/folio/state.sqlite")
        #expect(StateStore.legacyFolder(environment: ["HOME": "/h", "XDG_STATE_HOME": "/s"]) == "/s/folio")
    }

    /// A place and bookmarks are kept across runs, in write-ahead-log mode.
    @Test func placesAndBookmarksAreKept() throws {
        let scratch = try Scratch()
        let pdf = book(try scratch.write("a.pdf", testPDF(pages: 3, id: "AA")))
        let (store, notices) = try open(scratch)
        #expect(notices.isEmpty)
        #expect(store.position(of: pdf) == nil && store.bookmarks(of: pdf).isEmpty)
        let place = ReadingPosition(page: 12, fontSize: 11, pageAspect: 0.625, text: TextPosition(chapter: 2, offset: 300))
        #expect(store.save(place, of: pdf, readingSeconds: 40))
        #expect(store.updateBookmarks(of: pdf) { ($0 + [ReadingPosition(page: 3)], 1) } == 1)
        let (again, _) = try open(scratch)
        #expect(again.position(of: pdf) == place)
        #expect(again.bookmarks(of: pdf) == [ReadingPosition(page: 3)])
        #expect(again.read { try $0.query("PRAGMA journal_mode").first?.first?.text } == "wal")
        #expect(again.read { try $0.query("SELECT reading_seconds, pages_read FROM books").first } == [.real(40), .int(1)])
    }

    /// Moved, renamed or copied, a book is the same book: its place and its bookmarks follow it.
    @Test func aMovedOrCopiedBookKeepsItsPlaceAndBookmarks() throws {
        let scratch = try Scratch()
        let original = try scratch.write("books/novel.pdf", testPDF(pages: 5, id: nil))
        let (store, _) = try open(scratch)
        #expect(store.save(ReadingPosition(page: 4), of: book(original)))
        _ = store.updateBookmarks(of: book(original)) { ($0 + [ReadingPosition(page: 2)], ()) }
        let moved = scratch.path + "/elsewhere/Renamed.pdf"
        try FileManager.default.createDirectory(atPath: scratch.path + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: original, toPath: moved)
        let copy = scratch.path + "/copy.pdf"
        try FileManager.default.copyItem(atPath: moved, toPath: copy)
        for path in [moved, copy] {
            let (fresh, _) = try open(scratch)
            #expect(fresh.position(of: book(path)) == ReadingPosition(page: 4), "\(path)")
            #expect(fresh.bookmarks(of: book(path)) == [ReadingPosition(page: 2)], "\(path)")
        }
        // Another book is not it.
        let other = try scratch.write("other.pdf", testPDF(pages: 6, id: nil))
        #expect(store.position(of: book(other)) == nil)
    }

    /// A book whose bytes changed (an annotation saved into the PDF, new metadata in the EPUB)
    /// is found by what it says it is.
    /// Highlights are kept in reading order, with their colour and note; one made again on the
    /// same words replaces it; changed and taken away by their row; a moved book keeps them.
    @Test func highlightsAreKeptChangedAndFollowAMovedBook() throws {
        let scratch = try Scratch()
        let original = try scratch.write("books/novel.pdf", testPDF(pages: 5, id: nil))
        let (store, _) = try open(scratch)
        let later = Highlight(anchor: .text(chapter: 3, start: 40, end: 52), text: "late words", note: "why")
        let first = Highlight(anchor: .text(chapter: 1, start: 900, end: 910), text: "first words", colour: .green)
        let page = Highlight(anchor: .page(2, boxes: [PageRegion(x0: 0.1, y0: 0.2, x1: 0.5, y1: 0.25)]), text: "on a page", colour: .pink)
        let rows = try #require(store.add([later, page, first], to: book(original)))
        #expect(rows.count == 3)
        #expect(store.highlights(of: book(original)).map(\.text) == ["first words", "late words", "on a page"])
        // The same words again: replaced, not doubled.
        store.add(Highlight(anchor: later.anchor, text: "late words", colour: .blue), to: book(original))
        #expect(store.highlights(of: book(original)).map(\.colour) == [.green, .blue, .pink])
        let pink = try #require(store.highlights(of: book(original)).last?.id)
        #expect(store.update(highlight: pink, colour: .yellow, note: "a note"))
        let changed = try #require(store.highlights(of: book(original)).last)
        #expect(changed.colour == .yellow && changed.note == "a note" && changed.anchor == page.anchor)
        let moved = scratch.path + "/moved.pdf", copy = scratch.path + "/a copy.pdf"
        try FileManager.default.moveItem(atPath: original, toPath: moved)
        try FileManager.default.copyItem(atPath: moved, toPath: copy)
        let (fresh, _) = try open(scratch)
        #expect(fresh.highlights(of: book(moved)).count == 3)
        #expect(fresh.highlights(of: book(copy)).map(\.text) == fresh.highlights(of: book(moved)).map(\.text), "a copy has the same notes")
        #expect(fresh.remove(highlight: pink))
        #expect(!fresh.remove(highlight: pink))
        #expect(fresh.highlights(of: book(moved)).map(\.text) == ["first words", "late words"])
    }

    @Test func aChangedFileIsFoundByItsIdentifier() throws {
        let scratch = try Scratch()
        let pdf = try scratch.write("p.pdf", testPDF(pages: 3, id: "C0FFEE"))
        let epub = try scratch.epub("e.epub", identifier: "urn:isbn:9780000000001", text: "First edition.", deflated: true)
        let (store, _) = try open(scratch)
        #expect(store.save(ReadingPosition(page: 2), of: book(pdf)))
        #expect(store.save(ReadingPosition(page: 3), of: book(epub)))
        try scratch.write("p.pdf", testPDF(pages: 4, id: "C0FFEE"))
        _ = try scratch.epub("e.epub", identifier: "urn:isbn:9780000000001", text: "Second, longer edition of the same book.", deflated: true)
        let (fresh, _) = try open(scratch)
        #expect(fresh.position(of: book(pdf)) == ReadingPosition(page: 2))
        #expect(fresh.position(of: book(epub)) == ReadingPosition(page: 3))
        let unrelated = try scratch.write("q.pdf", testPDF(pages: 4, id: "BEEF"))
        #expect(fresh.position(of: book(unrelated)) == nil)
    }

    /// A file that is not a database, or one whose pages were overwritten, is renamed aside
    /// whole and said once; a new store starts.
    @Test(arguments: ["garbage", "overwritten"])
    func aDamagedDatabaseIsSetAsideAndReportedOnce(_ damage: String) throws {
        let scratch = try Scratch()
        let pdf = book(try scratch.write("a.pdf", testPDF(pages: 3, id: nil)))
        let path = scratch.path + "/data/folio/state.sqlite"
        do {
            let (store, _) = try open(scratch)
            for page in 1...300 { _ = store.updateBookmarks(of: pdf) { ($0 + [ReadingPosition(page: page)], ()) } }
        }
        // Folded back into the main file, as a closed store is.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if damage == "garbage" {
            bytes = Data("these are not the pages of a database\n".utf8)
        } else {
            bytes.replaceSubrange(4096..<bytes.count, with: Data(repeating: 0x5a, count: bytes.count - 4096))
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            let opened = StateStore.open(path: path)
            #expect(opened.notices.count == 1)
            let notice = try #require(opened.notices.first)
            #expect(notice.hasPrefix(path + ": damaged (") && notice.hasSuffix("kept as \(path).damaged, a new one started"), "\(notice)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".damaged")) == bytes, "kept whole")
            let store = try #require(opened.store)
            #expect(store.bookmarks(of: pdf).isEmpty)
            #expect(store.save(ReadingPosition(page: 2), of: pdf))
            let again = StateStore.open(path: path)
            #expect(again.notices.isEmpty, "said once")
            #expect(again.store?.position(of: pdf) == ReadingPosition(page: 2))
        }
        // A second damaged file goes beside the first.
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(StateStore.open(path: path).notices.first?.contains("kept as \(path).damaged-2") == true)
    }

    /// A store a newer version wrote is neither changed nor set aside.
    @Test func aStoreOfANewerVersionIsLeftAsItIs() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/data/folio/state.sqlite"
        do {
            let (store, _) = try open(scratch)
            _ = store.read { try $0.execute("PRAGMA user_version = 7") }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let opened = StateStore.open(path: path)
        #expect(opened.store == nil)
        #expect(opened.notices == ["\(path): written by a newer Folio (schema 7), left as it is; places and bookmarks are not remembered"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".damaged"))
    }

    /// Something other than a file in its place is left alone.
    @Test func aFIFOInPlaceOfTheStoreIsLeftAlone() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/state.sqlite"
        #expect(mkfifo(path, 0o600) == 0)
        let opened = StateStore.open(path: path)
        #expect(opened.store == nil && opened.notices == ["\(path): not a file; places and bookmarks are not remembered"])
        var st = stat()
        #expect(lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
    }

    /// The files of older versions fill a new store once: a book file still there is found by
    /// what it is (moved afterwards, it keeps its place), a folder by its path; a damaged file
    /// is named and left as it is.
    @Test func theOlderFilesAreMigratedOnce() throws {
        let scratch = try Scratch()
        let legacy = scratch.path + "/state/folio"
        let pdf = try scratch.write("books/doc.pdf", testPDF(pages: 9, id: nil))
        let pictures = try scratch.write("books/album/1.png", Data([1, 2, 3]))
        try scratch.write("state/folio/positions.json", Data("""
            {"\(pdf)": 7, "\(scratch.path)/books/album": {"page": 2, "fontSize": 14}, "/gone/book.pdf": 3}
            """.utf8))
        try scratch.write("state/folio/bookmarks.json", Data(#"{"\#(pdf)": [2, {"page": 5, "fontSize": 11, "chapter": 1, "offset": 40}]}"#.utf8))
        let (store, notices) = try open(scratch, legacy: legacy)
        #expect(notices.isEmpty)
        let moved = scratch.path + "/doc-moved.pdf"
        try FileManager.default.moveItem(atPath: pdf, toPath: moved)
        #expect(store.position(of: book(moved)) == ReadingPosition(page: 7))
        #expect(store.bookmarks(of: book(moved)) == [ReadingPosition(page: 2), ReadingPosition(page: 5, fontSize: 11, text: TextPosition(chapter: 1, offset: 40))])
        let album = Book(title: "Album", pages: [.image(pictures)])
        #expect(store.position(of: album) == ReadingPosition(page: 2, fontSize: 14))
        // Once: marks added since are not doubled by opening again.
        let (again, _) = try open(scratch, legacy: legacy)
        #expect(again.bookmarks(of: book(moved)).count == 2)
        #expect(FileManager.default.fileExists(atPath: legacy + "/positions.json"), "left for older versions")
    }

    @Test func aDamagedOlderFileIsNamedAndLeftAlone() throws {
        let scratch = try Scratch()
        let damaged = Data(#"{"/books/a.pdf": [1, 2"#.utf8)
        let file = try scratch.write("state/folio/bookmarks.json", damaged)
        let (_, notices) = try open(scratch, legacy: scratch.path + "/state/folio")
        #expect(notices == ["\(file): not what Folio wrote; not migrated, left as it is"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == damaged)
    }
}
