import FolioBook
import FolioImage
import Foundation
import XCTest

/// Each engine draws into a buffer of the pool of page buffers (`PixelPool.shared`) that held
/// another page: every pixel is its own page's again, paper included.
final class PixelReuseTests: XCTestCase {
    /// Renders with `draw`, poisons that image's pixels, gives them back as the only buffer the
    /// pool holds, and renders again: the buffer is reused and the image is the same.
    private func assertRedrawnOver(_ name: String, _ draw: () throws -> RGBAImage) throws {
        let pool = PixelPool.shared
        var first = try draw()
        let clean = first
        first.pixels.withUnsafeMutableBufferPointer { b in
            for i in stride(from: 0, to: b.count, by: 4) { (b[i], b[i + 1], b[i + 2], b[i + 3]) = (255, 0, 255, 7) }
        }
        pool.empty()
        let reused = pool.reused
        pool.giveBack(first)
        let second = try draw()
        XCTAssertEqual(pool.reused, reused + 1, "\(name): drawn into the buffer given back")
        XCTAssertTrue(second == clean, "\(name): a pixel of the page before shows through")
    }

    func testEveryEngineOverwritesTheWholeBuffer() throws {
        let pdf = try Fixtures.documents.open(try Fixtures.path("portrait.pdf"))
        try assertRedrawnOver("PDF page") { try pdf.render(page: 1, fit: PixelSize(width: 300, height: 400)).image }
        let crop = PageCrop(full: PixelSize(width: 420, height: 595), x: 50, y: 60, width: 120, height: 90)
        try assertRedrawnOver("PDF crop") { try XCTUnwrap(pdf.render(page: 1, crop: crop, paperAspect: 420.0 / 595)) }

        let epub = try Fixtures.documents.open(try EBooks.path("reflow2.epub"))
        try assertRedrawnOver("EPUB page") { try epub.render(page: 0, fit: PixelSize(width: 200, height: 300)).image }

        let djvu = try Fixtures.documents.open(try Fixtures.djvu("book.djvu"))
        try assertRedrawnOver("DjVu page") { try djvu.render(page: 0, fit: PixelSize(width: 200, height: 300)).image }
        // On paper wider than the page: the sides are paper, painted over the old pixels.
        let wide = PageCrop(full: PixelSize(width: 300, height: 200), x: 0, y: 0, width: 300, height: 100)
        try assertRedrawnOver("DjVu crop on wider paper") { try XCTUnwrap(djvu.render(page: 2, crop: wide, paperAspect: 1.5)) }
    }
}
