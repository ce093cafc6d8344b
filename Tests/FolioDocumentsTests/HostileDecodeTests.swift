@testable import FolioBook
@testable import FolioMuPDF
import Foundation
import XCTest

/// Decodes that would not end, or would not fit: each engine that can stop a page part-way
/// gives it up after `PageSources.decodeTimeout`, and progressive JPEGs too large for libjpeg's
/// coefficient buffer are read from their DC scans alone.
final class HostileDecodeTests: XCTestCase {
    /// The DC scans alone give what libjpeg gives at 1/8 scale: for every pixel of colour 4:2:0,
    /// 4:4:4 and greyscale files of odd sizes (only chroma upsampling differs, a little).
    func testTheDCScansGiveLibjpegsEighth() throws {
        for name in ["progressive-420.jpg", "progressive-444.jpg", "progressive-grey.jpg"] {
            let data = try InputFile.read(try Fixtures.path(name))
            let reference = try JPEG.decode(data, fit: PixelSize(width: 1, height: 1)).image
            var message = [CChar](repeating: 0, count: 200)
            let (image, status) = JPEG.eighth(data, width: 203, height: 157, message: &message)
            XCTAssertEqual(status, 0, name)
            XCTAssertEqual(image.width, reference.width, name)
            XCTAssertEqual(image.height, reference.height, name)
            var total = 0, worst = 0
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let a = image.pixel(x, y), b = reference.pixel(x, y)
                    let d = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                    total += d
                    worst = max(worst, d)
                }
            }
            let mean = Double(total) / Double(image.width * image.height)
            // libjpeg draws 4:2:0 chroma at 2 × 2 a block at this scale; the DC is one value a block.
            let subsampled = name.contains("420")
            XCTAssertLessThan(mean, subsampled ? 6 : 2, "\(name): mean difference")
            XCTAssertLessThan(worst, subsampled ? 48 : 4, "\(name): largest difference")
        }
    }

    /// CMYK is not read from the DC scans: status 3, which `decode` words as the refusal.
    func testACMYKProgressiveJPEGIsNotReadFromItsDCScans() throws {
        let data = try InputFile.read(try Fixtures.path("progressive-cmyk.jpg"))
        var message = [CChar](repeating: 0, count: 200)
        XCTAssertEqual(JPEG.eighth(data, width: 203, height: 157, message: &message).status, 3)
    }

    /// A JPEG decode had no bound but the scan count: one still running at its deadline is
    /// given up from libjpeg's progress callback, and its thread is free again.
    func testAJPEGPastItsTimeoutIsAbandoned() throws {
        for name in ["progressive-420.jpg", "baseline.jpg"] {
            let data = try InputFile.read(try Fixtures.path(name))
            XCTAssertThrowsError(try JPEG.decode(data, fit: PixelSize(width: 60, height: 60), timeout: 0), name) { error in
                XCTAssertEqual(PNGError.reason(of: error), "still decoding after 0 s; abandoned")
            }
            XCTAssertNoThrow(try JPEG.decode(data, fit: PixelSize(width: 60, height: 60), timeout: 60), name)
        }
    }

    /// An e-book page drew as long as it took; past the decode timeout MuPDF's cookie stops it.
    func testAnEBookPagePastTheTimeoutIsAbandoned() throws {
        let doc = try Fixtures.documents.open(try EBooks.path("reflow2.epub"))
        let before = PageSources.decodeTimeout
        defer { PageSources.decodeTimeout = before }
        PageSources.decodeTimeout = 0
        XCTAssertThrowsError(try doc.render(page: 0, fit: PixelSize(width: 200, height: 300))) { error in
            XCTAssertEqual(PNGError.reason(of: error), "still decoding after 0 s; abandoned")
        }
        PageSources.decodeTimeout = 60
        XCTAssertNoThrow(try doc.render(page: 0, fit: PixelSize(width: 200, height: 300)))
    }

    /// A book MuPDF could not allocate for within the document's limit was refused in MuPDF's
    /// words, "calloc (N x 1 bytes) failed": the line says which limit it met.
    func testAnAllocationPastTheLimitSaysWhichLimit() {
        let limit = MuPDF.memoryLimit >> 20
        XCTAssert((512...1024).contains(limit))
        XCTAssertEqual(MuPDFDocument.words("calloc (600000000 x 1 bytes) failed"),
                       "needs more than the \(limit) MiB of memory one document may use (calloc (600000000 x 1 bytes) failed)")
        XCTAssertTrue(MuPDFDocument.words("malloc of 734003200 bytes failed").hasPrefix("needs more than the \(limit) MiB of memor"))
        XCTAssertEqual(MuPDFDocument.words("cannot find all pieces for part '/p1.fpage'"), "cannot find all pieces for part '/p1.fpage'")
    }

    /// An EPUB whose fonts are obfuscated (EPUB's font embedding, no DRM) was refused: MuPDF
    /// calls every encryption.xml DRM. It opens; a font that is no font once undone (64 zero
    /// bytes) is left out, its text in other fonts, with a note.
    func testAnEPUBWithObfuscatedFontsOpens() throws {
        let path = try EBooks.path("obfuscated-fonts.epub")
        let lib = Library.load(from: path, documents: Fixtures.documents, logProblems: false)
        let book = try XCTUnwrap(lib.books.first)
        XCTAssertGreaterThan(book.pages.count, 4)
        XCTAssertEqual(lib.problems.map(\.severity), [.note], "\(lib.problems)")
        XCTAssertTrue(lib.problems.first?.message.contains("font is obfuscated") == true, "\(lib.problems)")
        let doc = try Fixtures.documents.open(path)
        XCTAssertEqual(try doc.text(page: 0)?.words.first?.text, EBooks.words[0])
        let image = try doc.render(page: 0, fit: PixelSize(width: 362, height: 568)).image
        XCTAssertGreaterThan(ink(image, PageRegion(x0: 0, y0: 0, x1: 1, y1: 0.5)), 50, "text is drawn")
    }
}
