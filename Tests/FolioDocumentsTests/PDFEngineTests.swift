import FolioBook
import FolioMuPDF
import FolioPDF
import Foundation
import XCTest

/// poppler (Folio's PDF engine) and MuPDF on PDFs that are easy to get wrong, page by page: the
/// shape each engine gives the page and its colours at known places (`make_pdf_cases.py`).
/// The outcome is the table of docs/documents.md ("PDF: poppler or MuPDF").
final class PDFEngineTests: XCTestCase {
    static let folder: String? = Fixtures.generate("make_pdf_cases.py")

    /// A case: the file, the shape of its page as shown (width / height), and colours at
    /// fractions of the page (x from the left, y from the top).
    struct Case {
        var file: String
        var aspect: Double
        var probes: [(x: Double, y: Double, rgb: (Int, Int, Int))]
    }

    static let white = (255, 255, 255)
    static let cases = [
        Case(file: "rotated.pdf", aspect: 1.5, probes: [(0.85, 0.25, (255, 0, 0)), (0.15, 0.75, white), (0.15, 0.25, white)]),
        Case(file: "cropped.pdf", aspect: 2.0 / 3, probes: [(0.25, 0.75, (0, 0, 255)), (0.05, 0.25, white), (0.75, 0.75, white)]),
        Case(file: "origin.pdf", aspect: 2.0 / 3, probes: [(0.25, 0.75, (0, 153, 0)), (0.75, 0.25, white)]),
        Case(file: "transparency.pdf", aspect: 2.0 / 3, probes: [(0.5, 0.5, (128, 128, 128))]),
        Case(file: "form.pdf", aspect: 2.0 / 3, probes: [(0.5, 0.25, (255, 255, 0)), (0.5, 0.75, white)]),
        Case(file: "bad-xref.pdf", aspect: 2.0 / 3, probes: [(0.5, 0.5, (255, 0, 255))]),
    ]

    /// What an engine got wrong in a case, in words (empty: right).
    private func faults(_ c: Case, _ format: PageSourceFormat, in folder: String) -> [String] {
        do {
            let doc = try format.open(folder + "/" + c.file, nil)
            guard let size = doc.pageSize(0) else { return ["no page size"] }
            var faults: [String] = []
            if abs(size.width / size.height - c.aspect) > 0.02 { faults.append("shape \(size.width) × \(size.height)") }
            let image = try doc.render(page: 0, fit: PixelSize(width: 300, height: 300)).image
            for p in c.probes {
                let px = image.pixel(min(Int(p.x * Double(image.width)), image.width - 1), min(Int(p.y * Double(image.height)), image.height - 1))
                let d = max(abs(Int(px.r) - p.rgb.0), abs(Int(px.g) - p.rgb.1), abs(Int(px.b) - p.rgb.2))
                if d > 24 { faults.append("(\(p.x), \(p.y)) is \(px.r),\(px.g),\(px.b), not \(p.rgb)") }
            }
            return faults
        } catch {
            return ["\(error)"]
        }
    }

    func testPopplerAndMuPDFDrawTheAwkwardCasesAlike() throws {
        guard let folder = Self.folder else { throw XCTSkip("python3 missing: no test PDFs") }
        for c in Self.cases {
            let poppler = faults(c, PDF.format, in: folder), mupdf = faults(c, MuPDF.format("PDF", ["pdf"]), in: folder)
            XCTAssertEqual(poppler, [], "poppler: \(c.file)")
            XCTAssertEqual(mupdf, [], "MuPDF: \(c.file)")
        }
    }
}
