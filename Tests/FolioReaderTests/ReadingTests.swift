import FolioReader
import FolioInput
import FolioLayout
import FolioBook
import Foundation
import Testing
import FolioState

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
    @Test func remembersEachBook() throws {
        let folder = try StoreFolder()
        let positions = ReadingPositions(store: folder.store)
        let doc = try folder.pictures("doc", count: 5), album = try folder.pictures("album", count: 1)
        #expect(positions.page(of: doc) == nil)
        #expect(positions.save(page: 2, of: doc))
        #expect(positions.save(page: 1, of: album))
        let tomorrow = ReadingPositions(store: try #require(StateStore.open(path: folder.store.path).store))
        #expect(tomorrow.page(of: doc) == 2)
        #expect(tomorrow.page(of: album) == 1)
        #expect(tomorrow.saved(of: doc) == ReadingPosition(page: 2), "a book that does not reflow: its page alone")
    }

    /// The shelf starts at the book read last, and its title says how far into the centred book
    /// its reader is.
    @Test func theShelfKnowsTheBookReadLastAndHowFarEachIsRead() throws {
        let folder = try StoreFolder()
        let positions = ReadingPositions(store: folder.store)
        let books = try ["a", "b", "c"].map { try folder.pictures($0, count: 40) }
        let library = Library(title: "L", books: books)
        let fresh = ReadingSession(library: library, settings: .init(), positions: positions, documents: DocumentRegistry())
        #expect(fresh.lastRead == nil && fresh.title == "Folio — a (1/3)")
        #expect(positions.save(page: 10, of: books[0]) && positions.save(page: 30, of: books[2]) && positions.save(page: 12, of: books[0]))
        let session = ReadingSession(library: library, settings: .init(), positions: positions, documents: DocumentRegistry())
        #expect(session.lastRead == 0)
        #expect(session.title == "Folio — a (1/3) — 30%")
        #expect(positions.save(page: 40, of: books[2]))
        #expect(session.lastRead == 2)
        session.controller.handle(.select(2), at: 0)
        session.controller.update(to: 5)
        #expect(session.title == "Folio — c (3/3) — 100%")
        // Moved since, a book is not where the store last saw it: the next one read is.
        let reshelved = Library(title: "L", books: [books[0], Book(title: "c", pages: [.image(folder.path + "/elsewhere.png")])])
        #expect(ReadingSession(library: reshelved, settings: .init(), positions: positions, documents: DocumentRegistry()).lastRead == 0)
    }

    /// The time between two pages saved is reading time, up to `longestPage` a page (a window
    /// left open is not reading); a turn to another book starts its own count.
    @Test func theTimeBetweenPagesIsKeptAsReadingTime() throws {
        let folder = try StoreFolder()
        let positions = ReadingPositions(store: folder.store)
        let book = try folder.pictures("doc", count: 40)
        let session = ReadingSession(library: Library(title: "L", books: [book]), settings: .init(), positions: positions, documents: DocumentRegistry())
        session.controller.handle(.showBook(0), at: 0)
        session.controller.update(to: 5)
        _ = session.keepPosition(at: 5)
        for (page, time) in [(9, 65.0), (15, 5000)] {
            #expect(session.controller.handle(.goTo(PageImage(number: page)), at: time - 10))
            session.controller.update(to: time)
            _ = session.keepPosition(at: time)
        }
        #expect(folder.store.readingTime(of: book) == StateStore.ReadingTime(seconds: 60 + ReadingSession.longestPage, pages: 3))
        #expect(positions.page(of: book) == session.controller.shownPages.first?.number)
    }

    /// The time left is told from the reader's own pace once five pages were read: 40 pages,
    /// 60 seconds a page, page 10 shown → 30 pages, 30 minutes; a book without an outline tells
    /// the book's time only. The shelf's bar is how far each book is read.
    @Test func theTimeLeftFollowsTheReadersPace() throws {
        let folder = try StoreFolder()
        let positions = ReadingPositions(store: folder.store)
        let book = try folder.pictures("doc", count: 40)
        let session = ReadingSession(library: Library(title: "L", books: [book]), settings: .init(), positions: positions, documents: DocumentRegistry())
        #expect(session.timeLeft(book: 0, last: PageImage(number: 10)) == nil, "no pace before a page is read")
        for page in 1...4 { #expect(positions.save(page: page, of: book, readingSeconds: 60)) }
        let early = ReadingSession(library: Library(title: "L", books: [book]), settings: .init(), positions: positions, documents: DocumentRegistry())
        #expect(early.timeLeft(book: 0, last: PageImage(number: 10)) == nil, "four pages tell no pace")
        #expect(positions.save(page: 10, of: book, readingSeconds: 60))
        let later = ReadingSession(library: Library(title: "L", books: [book]), settings: .init(), positions: positions, documents: DocumentRegistry())
        #expect(later.timeLeft(book: 0, last: PageImage(number: 10)) == "30 min left in the book")
        #expect(later.timeLeft(book: 0, last: PageImage(number: 40)) == "under a minute left in the book")
        #expect(later.readFraction(ofBook: 0) == 0.25)
        #expect(ReadingSession.duration(3 * 3600 + 40 * 60) == "3 h 40 min" && ReadingSession.duration(7200) == "2 h")
    }
}
