@testable import FolioBook
import FolioImage
import XCTest

final class ImageOpsTests: XCTestCase {
    /// A book shaped 1:2000 (flip of a one-pixel-wide image) padded a 150 × 200 page to
    /// 150 × 300,000 and spent seconds scaling it back: the page shrinks before it is padded.
    func testPaperFarFromThePagesShapeStaysWithinTheMaximumSize() {
        let page = RGBAImage(width: 150, height: 200, fill: (0, 0, 255, 255))
        let start = Date()
        let paper = page.onPaper(aspect: 0.0005, maxSide: 4096)
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        XCTAssertEqual(paper.height, 4096)
        XCTAssertLessThanOrEqual(paper.width, 3)
        XCTAssertEqual(page.onPaper(aspect: 1e-300).height, 16384, "no overflow")
    }

    func testDownscaleKeepsAspectAndAverages() {
        // Black and white columns average to mid grey.
        var img = RGBAImage(width: 400, height: 200, fill: (0, 0, 0, 255))
        for y in 0..<200 { for x in stride(from: 0, to: 400, by: 2) { img.setPixel(x, y, (255, 255, 255, 255)) } }
        let small = img.scaledToFit(maxWidth: 100, maxHeight: 100)
        XCTAssertEqual([small.width, small.height], [100, 50])
        for (x, y) in [(0, 0), (50, 25), (99, 49)] {
            let p = small.pixel(x, y)
            XCTAssertEqual(Int(p.r), 128, accuracy: 1)
            XCTAssertEqual(p.a, 255)
        }
        XCTAssertEqual(img.scaledToFit(maxWidth: 400, maxHeight: 400), img, "fits already")
        // Non-integer ratio: a uniform image stays uniform.
        let odd = RGBAImage(width: 7, height: 5, fill: (10, 200, 30, 255)).scaledToFit(maxWidth: 3, maxHeight: 3)
        XCTAssertEqual([odd.width, odd.height], [3, 2])
        XCTAssertTrue(stride(from: 0, to: odd.pixels.count, by: 4).allSatisfy { Array(odd.pixels[$0..<$0 + 4]) == [10, 200, 30, 255] })
    }

    func testDownscaleDoesNotDarkenNextToTransparency() {
        var img = RGBAImage(width: 2, height: 1, fill: (0, 0, 0, 0))
        img.setPixel(0, 0, (255, 0, 0, 255))
        let p = img.scaledToFit(maxWidth: 1, maxHeight: 1).pixel(0, 0)
        XCTAssertEqual([p.r, p.g, p.b], [255, 0, 0])
        XCTAssertEqual(Int(p.a), 128, accuracy: 1)
    }

    func testRoundedCornersAreTransparentWithBlendedEdges() {
        let img = RGBAImage(width: 40, height: 30, fill: (200, 100, 50, 255)).roundingCorners(radius: 10)
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29), (1, 1)] { XCTAssertEqual(img.pixel(x, y).a, 0, "(\(x), \(y))") }
        for (x, y) in [(20, 15), (10, 0), (0, 10), (39, 15)] { XCTAssertEqual(img.pixel(x, y).a, 255, "(\(x), \(y))") }
        // Along the arc some pixels are partly covered: antialiased.
        let edge = (0..<10).map { img.pixel($0, 10 - $0 - 1).a }
        XCTAssertTrue(edge.contains { $0 > 0 && $0 < 255 }, "\(edge)")
        XCTAssertEqual(img.pixel(3, 2).r, 200, "colour is kept, only alpha changes")
        // Symmetric corners.
        XCTAssertEqual(img.pixel(2, 3).a, img.pixel(37, 26).a)
    }

    func testPlaceholdersAreRecognisable() {
        let broken = RGBAImage.placeholder(width: 120, height: 180, kind: .broken)
        let loading = RGBAImage.placeholder(width: 120, height: 180, kind: .loading)
        let centre = broken.pixel(60, 90)
        XCTAssertGreaterThan(Int(centre.r), Int(centre.g) + 60, "a red cross at the centre")
        XCTAssertEqual([loading.pixel(60, 90).r, loading.pixel(60, 90).g], [RGBAImage.paper.0, RGBAImage.paper.1])
        XCTAssertEqual(broken.pixel(0, 0).r, RGBAImage.paper.0, "paper around the frame")
        XCTAssertTrue(broken.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 }, "opaque")
    }
}
