@testable import FolioBook
import FolioImage
import Foundation
import Synchronization
import XCTest

/// A protected document: it opens with the password "right" only; every attempt is counted.
private final class Locked: PageSource {
    static let attempts = Atomic<Int>(0)
    static let format = PageSourceFormat(name: "locked test", extensions: ["lockedtest"]) { path, password in
        attempts.add(1, ordering: .relaxed)
        guard password == "right" else { throw PageError.protected(path: path) }
        return Locked()
    }
    let pageCount = 1
    let title: String? = nil
    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (10, 10) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        PageRender(image: RGBAImage(width: 1, height: 1, fill: (0, 0, 0, 255)), scalable: false)
    }
}

final class DocumentRegistryTests: XCTestCase {
    private func lockedDocument(in dir: TempDir) -> String {
        PageSources.register(Locked.format)
        return dir.write("doc-\(UUID().uuidString).lockedtest", [0])
    }

    /// A wrong password fails once (reported then) and is not tried again; a new password
    /// tries the document again.
    func testADocumentThatFailedIsRetriedWithANewPassword() throws {
        let dir = TempDir()
        let doc = lockedDocument(in: dir)
        let documents = DocumentRegistry(password: "wrong")
        let before = Locked.attempts.load(ordering: .relaxed)
        XCTAssertThrowsError(try documents.open(doc)) { XCTAssertEqual($0 as? PageError, .protected(path: doc)) }
        XCTAssertThrowsError(try documents.open(doc)) { XCTAssertEqual($0 as? PageError, .reportedBefore(path: doc)) }
        XCTAssertEqual(Locked.attempts.load(ordering: .relaxed) - before, 1, "a failed document is not opened again")
        documents.password = "right"
        XCTAssertEqual(try documents.open(doc).pageCount, 1)
        XCTAssertEqual(Locked.attempts.load(ordering: .relaxed) - before, 2)
    }

    /// Two registries keep their own failures: one that failed does not make the other fail.
    func testTwoRegistriesDoNotShareFailures() throws {
        let dir = TempDir()
        let doc = lockedDocument(in: dir)
        let first = DocumentRegistry(), second = DocumentRegistry(password: "right")
        XCTAssertThrowsError(try first.open(doc))
        XCTAssertEqual(try second.open(doc).pageCount, 1)
        XCTAssertThrowsError(try first.open(doc)) { XCTAssertEqual($0 as? PageError, .reportedBefore(path: doc)) }
    }

    /// A page is typed: `path#page=N` is read only where a person wrote it, for a document of
    /// a registered format, and written back the same way; a file whose name merely ends so is
    /// an image.
    func testPagesAreNamedAsAPersonWritesThem() throws {
        let dir = TempDir()
        let doc = lockedDocument(in: dir)
        XCTAssertEqual(PageRef(named: doc + "#page=3"), .document(doc, index: 2))
        XCTAssertEqual(PageRef.document(doc, index: 2).description, doc + "#page=3")
        XCTAssertEqual(PageRef(named: doc), .image(doc))
        XCTAssertEqual(PageRef(named: doc + "#page=0"), .image(doc + "#page=0"))
        XCTAssertEqual(PageRef(named: "/books/a.unknownkind#page=2"), .image("/books/a.unknownkind#page=2"))
        let odd = dir.write("odd.lockedtest#page=2", [0])
        XCTAssertEqual(PageRef(named: odd), .image(odd))
        XCTAssertEqual(PageRef.document(doc, index: 2).documentPage?.index, 2)
        XCTAssertNil(PageRef.image(odd).documentPage)
    }

    /// A book's page labels and estimated count ask the registry they are given, not another.
    func testABookAsksTheRegistryItIsGiven() throws {
        let dir = TempDir()
        let doc = lockedDocument(in: dir)
        let book = Book(title: "Locked", pages: [.document(doc, index: 0)])
        let open = DocumentRegistry(password: "right"), other = DocumentRegistry()
        XCTAssertEqual(try open.render(book.pages[0], fit: PixelSize(width: 4, height: 4)).image.width, 1)
        XCTAssertNotNil(open.opened(doc))
        XCTAssertNil(other.opened(doc), "opening in one registry opens nothing in another")
        XCTAssertEqual(book.pageLabel(image: 0, in: other), "1")
        XCTAssertNil(other.opened(doc))
    }
}
