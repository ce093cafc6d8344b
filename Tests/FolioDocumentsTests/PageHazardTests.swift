import FolioBook
@testable import FolioPDF
import Foundation
import XCTest

/// Pages poppler never finishes (and cannot stop) are refused before it sees them, with one
/// line each (`make_page_hazards.py`); without the check each of these tests runs until memory
/// runs out (1.75 GB within 5 s for the shadings) or for ever.
final class PageHazardTests: XCTestCase {
    static let folder: String? = {
        PDF.register()
        return Fixtures.generate("make_page_hazards.py")
    }()

    private func refusal(_ name: String) throws -> String? {
        let doc = try PDF.format.open(try XCTUnwrap(Self.folder, "the fixture script failed") + "/" + name, nil)
        do {
            _ = try doc.render(page: 0, fit: PixelSize(width: 100, height: 100))
            return nil
        } catch {
            return PNGError.reason(of: error)
        }
    }

    func testAFunctionShadingTurnedOrMirroredIsRefused() throws {
        for name in ["shading-turned.pdf", "shading-mirrored.pdf"] {
            XCTAssertEqual(try refusal(name), "not drawn: a function-based shading turned or mirrored by its matrix, which poppler never finishes", name)
        }
    }

    /// The same shading unturned draws: black at the left, white at the right.
    func testAPlainFunctionShadingDraws() throws {
        let doc = try PDF.format.open(try XCTUnwrap(Self.folder) + "/shading-plain.pdf", nil)
        let image = try doc.render(page: 0, fit: PixelSize(width: 100, height: 100)).image
        XCTAssertLessThan(image.pixel(2, 50).r, 20)
        XCTAssertGreaterThan(image.pixel(97, 50).r, 235)
    }

    func testAJBIG2PageOfBillionsOfPixelsIsRefused() throws {
        XCTAssertEqual(try refusal("jbig2-bomb.pdf"), "not drawn: a JBIG2 image of 90000 × 90000 pixels, more than 268435456")
    }

    /// A Type 3 font set for every word is counted once a stream: its page draws.
    func testAType3FontSetOftenIsNoFanOut() throws {
        XCTAssertNil(try refusal("type3-set-often.pdf"))
    }

    /// Forms drawing each other 2^30 times: refused at once, counted in 30 steps.
    func testFormsThatDrawEachOtherBillionsOfTimesAreRefused() throws {
        XCTAssertEqual(try refusal("forms-fan-out.pdf"), "not drawn: its forms and patterns draw each other more than 1048576 times")
    }
}
