import FolioBook
import FolioImage
@testable import FolioPDF
import Foundation
import XCTest

/// A PDF page whose Type 3 glyphs draw themselves in a cycle (through another Type 3 font and a
/// tiling pattern) makes poppler allocate gigabytes: it is never handed to poppler, but shown
/// as a placeholder with one line, the book's other pages drawn (`make_type3_cycle.py`).
final class Type3CycleTests: XCTestCase {
    static let folder: String? = {
        PDF.register()
        return Fixtures.generate("make_type3_cycle.py")
    }()

    private func path(_ name: String) throws -> String {
        try XCTUnwrap(Self.folder, "the fixture script failed") + "/" + name
    }

    /// Page 2 is refused before poppler sees it (the test would run out of memory otherwise);
    /// pages 1 and 3 draw, page 3 with a Type 3 font that has no resources of its own.
    func testTheCyclingPageIsRefusedAndTheOthersDrawn() throws {
        // As written object by object, and with Flate streams and the fonts in an object stream.
        for name in ["type3-cycle.pdf", "type3-cycle-compressed.pdf"] {
            let doc = try PDF.format.open(try path(name), nil)
            let fit = PixelSize(width: 200, height: 300)
            XCTAssertThrowsError(try doc.render(page: 1, fit: fit), name) { error in
                XCTAssertEqual(PNGError.reason(of: error), "not drawn: its Type 3 glyphs draw themselves in a cycle", name)
            }
            let crop = PageCrop(full: PixelSize(width: 600, height: 840), x: 0, y: 0, width: 50, height: 50)
            XCTAssertThrowsError(try doc.render(page: 1, crop: crop, paperAspect: 200.0 / 300), name)
            // Blue over the lower-left third of page 1; the glyph's black square there on page 3.
            let first = try doc.render(page: 0, fit: fit).image
            XCTAssertEqual(rgb(first, 0.2, 0.85), [0, 0, 255], name)
            XCTAssertEqual(rgb(first, 0.75, 0.25), [255, 255, 255], name)
            let third = try doc.render(page: 2, fit: fit).image
            XCTAssertEqual(rgb(third, 0.2, 0.85), [0, 0, 0], name)
            XCTAssertEqual(rgb(third, 0.75, 0.25), [255, 255, 255], name)
        }
    }

    /// Through the page store: a placeholder for page 2 with one line naming the file and page.
    func testTheReaderGetsAPlaceholderAndOneLine() throws {
        let file = try path("type3-cycle.pdf")
        let lib = Library.load(from: file, documents: Fixtures.documents, logProblems: false)
        XCTAssertEqual(lib.problems, [])
        let probe = PageProbe(lib.books[0])
        probe.show([0, 1, 2])
        XCTAssertNotNil(probe.image(1))
        XCTAssertEqual(probe.store.takeProblems().map(\.description),
                       ["\(file): page 2: not drawn: its Type 3 glyphs draw themselves in a cycle; showing a placeholder page"])
    }

    /// The light reader on damaged copies (cut short anywhere, numbers no Int holds, strings and
    /// dictionaries never closed): it answers, never traps.
    func testTheReaderSurvivesDamagedFiles() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: try path("type3-cycle-compressed.pdf")))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-type3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let junk = Data("\n7 0 obj << /Type /ObjStm /N nan /First 1e300 /Length -1e308 /Filter /FlateDecode >> stream\n((((\\".utf8)
            + Data(repeating: 0x3C, count: 300) + Data("Type3 9 0 R 1e20 0 R".utf8)
        var copies = stride(from: 0, to: whole.count, by: 61).map { whole.prefix($0) }
        copies.append(whole + junk)
        copies.append(junk + whole)
        for (n, bytes) in copies.enumerated() {
            let file = folder.appendingPathComponent("\(n).pdf")
            try bytes.write(to: file)
            let hazards = PageHazards(path: file.path)
            for page in 0..<3 { _ = hazards.refusal(onPage: page) }
        }
        // Junk after the end leaves the cycle found.
        XCTAssertEqual(PageHazards(path: folder.appendingPathComponent("\(copies.count - 2).pdf").path).refusal(onPage: 1),
                       "not drawn: its Type 3 glyphs draw themselves in a cycle")
    }

    private func rgb(_ image: RGBAImage, _ x: Double, _ y: Double) -> [UInt8] {
        let p = image.pixel(min(Int(x * Double(image.width)), image.width - 1), min(Int(y * Double(image.height)), image.height - 1))
        return [p.r, p.g, p.b]
    }
}
