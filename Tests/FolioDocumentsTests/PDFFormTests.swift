import FolioBook
import FolioImage
import FolioPDF
import Foundation
import XCTest

/// A PDF's form filled through poppler (`make_pdf_cases.py`'s fillable.pdf: a text field and a
/// check box): the fields are read with their places, values filled show on the page drawn, and
/// a copy saved holds them while the original file is left as it was.
final class PDFFormTests: XCTestCase {
    private func ink(_ image: RGBAImage, _ box: PageRegion) -> Int {
        var n = 0
        for y in Int(box.y0 * Double(image.height))..<Int(box.y1 * Double(image.height)) {
            for x in Int(box.x0 * Double(image.width))..<Int(box.x1 * Double(image.width)) where image.pixel(x, y).g < 100 { n += 1 }
        }
        return n
    }

    func testAFormIsFilledDrawnAndSavedIntoACopy() throws {
        let folder = try XCTUnwrap(PDFEngineTests.folder, "python3 missing")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("folio-form-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let original = scratch + "/fillable.pdf"
        try FileManager.default.copyItem(atPath: folder + "/fillable.pdf", toPath: original)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        let doc = try XCTUnwrap(try PDF.format.open(original, nil) as? any FillableSource)
        let fields = doc.fields(page: 0)
        XCTAssertEqual(fields.map(\.name), ["name", "agree"])
        XCTAssertEqual(fields.map(\.kind), [.text(""), .check(false)])
        let name = fields[0].box, agree = fields[1].box
        // The field's rectangle [20 240 180 270] of a 200 × 300 page, y from the top.
        XCTAssertEqual(name.x0, 0.1, accuracy: 0.01)
        XCTAssertEqual(name.y0, 0.1, accuracy: 0.01)
        let fit = PixelSize(width: 400, height: 600)
        let blank = try doc.render(page: 0, fit: fit).image
        XCTAssertEqual(ink(blank, name), 0)
        XCTAssertEqual(ink(blank, agree), 0)
        doc.fill(fields[0].id, with: .text("Ishmael"))
        doc.fill(fields[1].id, with: .check(true))
        let filled = try doc.render(page: 0, fit: fit).image
        XCTAssertGreaterThan(ink(filled, name), 50, "the text typed is drawn in its field")
        XCTAssertGreaterThan(ink(filled, agree), 500, "the box is ticked")
        let copy = scratch + "/copy.pdf"
        try doc.saveFilled(to: copy)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: original)), bytes, "the original is left as it was")
        let saved = try XCTUnwrap(try PDF.format.open(copy, nil) as? any FillableSource)
        XCTAssertEqual(saved.fields(page: 0).map(\.kind), [.text("Ishmael"), .check(true)])
    }
}
