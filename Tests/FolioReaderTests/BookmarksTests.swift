import FolioReader
import FolioBook
import FolioLayout
import Foundation
import Testing
import FolioState

/// A state store in a folder of its own, and book files in it (the store knows books by their bytes).
final class StoreFolder {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("folio-marks-\(UUID().uuidString)").path
    let store: StateStore

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        store = try #require(StateStore.open(path: path + "/state.sqlite").store)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A book of `count` page images (files of their own bytes) in folder `name`.
    func pictures(_ name: String, count: Int) throws -> Book {
        try FileManager.default.createDirectory(atPath: path + "/" + name, withIntermediateDirectories: true)
        let pages = try (1...count).map { n in
            let file = "\(path)/\(name)/\(n).png"
            try Data("\(name) \(n)".utf8).write(to: URL(fileURLWithPath: file))
            return PageRef.image(file)
        }
        return Book(title: name, pages: pages)
    }
}

@Suite struct BookmarksTests {
    @Test func marksAreKeptPerBook() throws {
        let folder = try StoreFolder()
        let marks = Bookmarks(store: folder.store)
        let doc = try folder.pictures("doc", count: 9), album = try folder.pictures("album", count: 2)
        #expect(marks.toggle(page: PageImage(number: 7), of: doc) == "bookmarked page 7")
        #expect(marks.toggle(page: PageImage(number: 3), of: doc) == "bookmarked page 3")
        #expect(marks.toggle(page: PageImage(number: 1), of: album) == "bookmarked page 1")
        // Read anew, as tomorrow's run reads them.
        let tomorrow = Bookmarks(store: try #require(StateStore.open(path: folder.store.path).store))
        #expect(tomorrow.pages(of: doc).map(\.number) == [3, 7])
        #expect(tomorrow.pages(of: album).map(\.number) == [1])
        #expect(marks.toggle(page: PageImage(number: 3), of: doc) == "bookmark on page 3 removed")
        #expect(marks.pages(of: doc).map(\.number) == [7])
        let marked = [3, 7].map(PageImage.init(number:))
        #expect(Bookmarks.next(after: PageImage(number: 7), in: marked)?.number == 3)
        #expect(Bookmarks.next(after: PageImage(number: 4), in: marked)?.number == 7)
        #expect(Bookmarks.next(after: PageImage(number: 4), in: []) == nil)
    }

    /// A book whose file cannot be read cannot be known again: the mark is refused, with why.
    @Test func aBookThatCannotBeReadIsNotMarked() throws {
        let folder = try StoreFolder()
        let gone = Book(title: "Gone", pages: [.document(folder.path + "/gone.pdf", index: 0)])
        #expect(Bookmarks(store: folder.store).toggle(page: PageImage(number: 1), of: gone) == "bookmark not saved: \(folder.store.path) cannot be written")
    }
}
