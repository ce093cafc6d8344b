import FolioBook
import FolioImage
import Foundation
import Testing

/// `--ui` on the command line: the layer appears over a capture only when asked (the rest of
/// the image unchanged), and its options refuse what they cannot show with one line.
@Suite struct LayerOptionTests {
    private func capture(_ arguments: [String]) throws -> (status: Int32, stderr: String, image: RGBAImage?) {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("folio-ui-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try FolioProcess.run(folio.path, ["capture", "--size", "320x180", "-o", out] + arguments, timeout: 60)
        return (run.status, run.stderr, run.status == 0 ? try PNG.read(path: out) : nil)
    }

    @Test func theLayerIsDrawnOnlyWhenAskedAndOnlyWhereItLies() throws {
        let plain = try #require(try capture(["--book", "0", "--page", "6"]).image)
        let layered = try #require(try capture(["--ui", "--book", "0", "--page", "6"]).image)
        // At 320×180 the bar is the bottom 45 rows (units of 0.75 px: margin 12, height 33).
        func rows(_ image: RGBAImage, _ range: Range<Int>) -> ArraySlice<UInt8> { image.pixels[range.lowerBound * 320 * 4..<range.upperBound * 320 * 4] }
        #expect(rows(plain, 0..<130) == rows(layered, 0..<130))
        #expect(rows(plain, 140..<170) != rows(layered, 140..<170))
    }

    @Test(arguments: [["--ui-goto", "12x"], ["--ui-goto", "1234567"], ["--ui-goto", "-3"], ["--ui-notice", String(repeating: "x", count: 501)]])
    func badValuesGetOneLine(_ arguments: [String]) throws {
        let run = try capture(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(arguments[0]), "\(run.stderr)")
    }
}
