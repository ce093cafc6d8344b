import FolioBook
@testable import FolioDjVu
import FolioImage
import Foundation
import XCTest

/// DjVu pages decoded in parallel, each on a handle (a djvulibre context) of its own: the same
/// pixels as one at a time, no more handles than workers, and damaged files still one error
/// each (Fixtures/make_djvu.py says what each page holds and where).
final class DjVuConcurrencyTests: XCTestCase {
    private let fit = PixelSize(width: 200, height: 300)

    /// Known ink on each page of book.djvu at `fit`: red at the top of the photo, the bar on
    /// the text page, the square at the bottom left of the turned page.
    private func assertInk(_ image: RGBAImage, page: Int, _ what: String) {
        switch page {
        case 0: XCTAssertColour(image.pixel(100, 20), (220, 30, 30), tolerance: 24, what)
        case 1:
            XCTAssertColour(image.pixel(100, 60), (0, 0, 0), what)
            XCTAssertColour(image.pixel(100, 40), white, what)
        default:
            XCTAssertColour(image.pixel(16, 200), (0, 0, 0), what)
            XCTAssertColour(image.pixel(183, 200), white, what)
        }
    }

    /// Renders page `i % 3` of `doc` on `threads` threads at once, each `rounds` times.
    private func renderAtOnce(_ doc: DjVuDocument, threads: Int, rounds: Int) -> [(page: Int, result: Result<RGBAImage, Error>)] {
        final class Results: @unchecked Sendable {  // guarded by `lock`
            let lock = NSLock()
            var all: [(page: Int, result: Result<RGBAImage, Error>)] = []
        }
        let results = Results(), done = DispatchGroup(), fit = fit
        for t in 0..<threads {
            done.enter()
            Thread {
                for r in 0..<rounds {
                    let page = (t + r) % 3
                    let result = Result { try doc.render(page: page, fit: fit).image }
                    results.lock.withLock { results.all.append((page, result)) }
                }
                done.leave()
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        return results.lock.withLock { results.all }
    }

    /// A page drawn on a second handle while the first is lent is the same image, pixel for
    /// pixel, as on the first; so is every page drawn by six threads at once.
    func testPagesDecodedInParallelMatchThoseDecodedOneAtATime() throws {
        let path = try Fixtures.djvu("book.djvu")
        let serial = try DjVuDocument(path: path, timeout: nil, workers: 1)
        let expected = try (0..<3).map { try serial.render(page: $0, fit: fit).image }
        for (i, image) in expected.enumerated() { assertInk(image, page: i, "page \(i + 1) alone") }
        XCTAssertEqual(serial.handles.count, 1)

        let doc = try DjVuDocument(path: path, timeout: nil, workers: 2)
        let second = try doc.handles.with { _ in try (0..<3).map { try doc.render(page: $0, fit: fit).image } }
        XCTAssertEqual(doc.handles.count, 2, "the first handle lent, the pages drew on a second context")
        for i in 0..<3 { XCTAssertEqual(second[i].pixels, expected[i].pixels, "page \(i + 1) on the second handle") }

        for (page, result) in renderAtOnce(doc, threads: 6, rounds: 3) {
            let image = try result.get()
            XCTAssertEqual(image.pixels, expected[page].pixels, "page \(page + 1) drawn in parallel")
            assertInk(image, page: page, "page \(page + 1) in parallel")
        }
    }

    /// Words are read on handles of their own: with the one render handle lent (a page being
    /// drawn), a search reads a page's text without opening or waiting for a render handle.
    func testTextIsReadBesideThePagesBeingDrawn() throws {
        let doc = try DjVuDocument(path: try Fixtures.djvu("book.djvu"), timeout: nil, workers: 2)
        let words = try doc.handles.with { _ in try doc.text(page: 1)?.words.count }
        XCTAssertGreaterThan(words ?? 0, 0)
        XCTAssertEqual(doc.handles.count, 1, "the text came from a handle of its own")
    }

    /// Six threads on a document of three workers: never more than three handles.
    func testADocumentNeverOpensMoreHandlesThanWorkers() throws {
        let doc = try DjVuDocument(path: try Fixtures.djvu("book.djvu"), timeout: nil, workers: 3)
        let results = renderAtOnce(doc, threads: 6, rounds: 4)
        XCTAssertEqual(results.count, 24)
        XCTAssertTrue(results.allSatisfy { (try? $0.result.get()) != nil })
        XCTAssertLessThanOrEqual(doc.handles.count, 3)
    }

    /// A file cut short drawn by six threads at once: the pages with data draw, the others are
    /// one error each naming the file; a page past the decode timeout is given up on every
    /// handle; a chunk with a lying size is refused at opening on every thread alike.
    func testDamagedFilesStayBoundedWithPagesInParallel() throws {
        let truncated = try Fixtures.djvu("truncated.djvu")
        let doc = try DjVuDocument(path: truncated, timeout: nil, workers: 3)
        XCTAssertNotNil(doc.damage)
        let results = renderAtOnce(doc, threads: 6, rounds: 3)
        XCTAssertEqual(results.count, 18)
        for (page, result) in results {
            switch result {
            case .success(let image): assertInk(image, page: page, "truncated page \(page + 1)")
            case .failure(let error): XCTAssertTrue("\(error)".hasPrefix(truncated + ": cannot be"), "\(error)")
            }
        }
        XCTAssertTrue(results.contains { (try? $0.result.get()) == nil }, "pages past the end fail")
        XCTAssertLessThanOrEqual(doc.handles.count, 3)

        let before = PageSources.decodeTimeout
        defer { PageSources.decodeTimeout = before }
        let book = try DjVuDocument(path: try Fixtures.djvu("book.djvu"), timeout: nil, workers: 3)
        PageSources.decodeTimeout = 0
        for (page, result) in renderAtOnce(book, threads: 6, rounds: 2) {
            // Given up, or done before its first wait: never anything else.
            switch result {
            case .success(let image): assertInk(image, page: page, "page \(page + 1) at no timeout")
            case .failure(let error): XCTAssertTrue("\(error)".contains("took"), "\(error)")
            }
        }
        PageSources.decodeTimeout = before
        // The handles whose pages were given up draw again.
        for (page, result) in renderAtOnce(book, threads: 3, rounds: 3) { assertInk(try result.get(), page: page, "page \(page + 1) after") }

        let lying = try Fixtures.djvu("lying.djvu")
        final class Errors: @unchecked Sendable {  // guarded by `lock`
            let lock = NSLock()
            var all: [String] = []
        }
        let errors = Errors()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try DjVuDocument(path: lying, timeout: nil, workers: 3) } catch { errors.lock.withLock { errors.all.append("\(error)") } }
        }
        XCTAssertEqual(errors.all.count, 4)
        for e in errors.all { XCTAssertTrue(e.hasPrefix(lying + ": not a readable DjVu document"), e) }
    }
}
