import FolioReader
import FolioBook
import Foundation
import Testing

@Suite struct BookmarksTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("folio-marks-\(UUID().uuidString)").path
    }

    @Test func marksAreKeptPerBookBesideThePositions() throws {
        let state = folder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let marks = Bookmarks(environment: ["XDG_STATE_HOME": state, "HOME": "/nonexistent"])
        #expect(marks.file == state + "/folio/bookmarks.json")
        let doc = Book(title: "Doc", pages: [.image("/books/doc/1.png"), .image("/books/doc/2.png")])
        let album = Book(title: "Album", pages: [.image("/books/album/1.jpg")])
        #expect(marks.toggle(page: 7, of: doc) == "bookmarked page 7")
        #expect(marks.toggle(page: 3, of: doc) == "bookmarked page 3")
        #expect(marks.toggle(page: 1, of: album) == "bookmarked page 1")
        // Read anew, as tomorrow's run reads them.
        #expect(Bookmarks(file: marks.file).pages(of: doc) == [3, 7])
        #expect(Bookmarks(file: marks.file).pages(of: album) == [1])
        #expect(marks.toggle(page: 3, of: doc) == "bookmark on page 3 removed")
        #expect(marks.pages(of: doc) == [7])
        #expect(Bookmarks.next(after: 7, in: [3, 7]) == 3)
        #expect(Bookmarks.next(after: 4, in: [3, 7]) == 7)
        #expect(Bookmarks.next(after: 4, in: []) == nil)
    }

    @Test func aDamagedFileIsKeptAsideNotOverwritten() throws {
        let state = folder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let marks = Bookmarks(file: state + "/bookmarks.json")
        let damaged = Data("{\"/books/doc\": [1, 2".utf8)
        try damaged.write(to: URL(fileURLWithPath: marks.file))
        let book = Book(title: "Doc", pages: [.image("/books/doc/1.png")])
        #expect(marks.load() == .damaged)
        #expect(marks.pages(of: book) == [])
        let notice = marks.toggle(page: 5, of: book)
        #expect(notice.contains("kept as \(marks.file).damaged"), "\(notice)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: marks.file + ".damaged")) == damaged)
        #expect(marks.pages(of: book) == [5])
    }
}
