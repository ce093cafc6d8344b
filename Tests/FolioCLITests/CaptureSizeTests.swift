import FolioBook
import FolioImage
import Foundation
import Testing

/// `capture --size W×H` alone draws what a window of that size shows: the viewer's view fitted
/// to its shape (a tall one reads one page filling it); `--view` keeps its meaning when given.
@Suite struct CaptureSizeTests {
    private func capture(_ arguments: [String]) throws -> RGBAImage {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("folio-size-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try FolioProcess.run(folio.path, ["capture", "-o", out] + arguments, timeout: 60)
        try #require(run.status == 0, "\(run.stderr)")
        return try PNG.read(path: out)
    }

    /// The mean brightness of the rectangle x0..<x1, y0..<y1.
    private func brightness(_ image: RGBAImage, _ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int) -> Double {
        var sum = 0
        for y in y0..<y1 { for x in x0..<x1 { let p = image.pixel(x, y); sum += (Int(p.r) + Int(p.g) + Int(p.b)) / 3 } }
        return Double(sum) / Double((x1 - x0) * (y1 - y0))
    }

    @Test func aTallSizeAloneShowsOnePageFillingIt() throws {
        let tall = try capture(["--size", "180x320", "--book", "0", "--page", "6"])
        // Paper from near the top to near the foot, across most of the width.
        #expect(brightness(tall, 30, 150, 40, 80) > 170, "the page's top lies where a window shows it")
        #expect(brightness(tall, 30, 150, 240, 280) > 170, "and its foot")
        let fitted = try capture(["--size", "180x320", "--view", "1280x720", "--book", "0", "--page", "6"])
        #expect(brightness(fitted, 30, 150, 40, 80) < 120, "--view given: the 16:9 view fitted into the image, the desk above it")
    }

    /// `--pages 1` in a wide image is the one page, centred, filling the height as a wide
    /// window in one-page mode shows it: no blank back of the sheet before it beside it.
    @Test func onePageInAWideSizeIsThePageAlone() throws {
        let one = try capture(["--size", "320x180", "--pages", "1", "--book", "0", "--page", "6"])
        #expect(brightness(one, 140, 180, 20, 160) > 170, "the page in the middle")
        #expect(brightness(one, 20, 100, 20, 160) < 120, "the desk left of it, not a blank page")
    }
}
