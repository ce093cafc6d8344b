import FolioBook
import Foundation
import Testing

/// The embedding example (Examples/Embed) built with the package, run headless: it opens its
/// book through FolioKit's pipeline and draws the pages its content source makes in memory.
@Suite struct EmbedExampleTests {
    @Test func generatedPagesFromMemoryReachTheScreen() throws {
        let folio = try #require(FolioProcess.binary, "build first: swift build")
        let example = folio.deletingLastPathComponent().appendingPathComponent("folio-embed")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("folio-embed-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try FolioProcess.run(example.path, ["--generated", "--capture", out.path], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let image = try PNG.read(path: out.path)
        // The right-hand page of the first spread: image 0, the generated (240, 235, 200).
        let p = image.pixel(image.width * 3 / 4, image.height / 2)
        #expect(abs(Int(p.r) - 240) < 12 && abs(Int(p.g) - 235) < 12 && abs(Int(p.b) - 200) < 12, "\(p)")
        #expect(r.stdout.isEmpty, "no turn was asked for: \(r.stdout)")
    }
}
