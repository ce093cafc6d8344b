import FolioBook
import Foundation
import Testing

/// `folio capture` of a DjVu book end to end (FolioDocumentsTests/Fixtures/make_djvu.py).
@Suite struct DjVuCaptureTests {
    static let documents: URL? = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-capture-djvu-\(UUID().uuidString)")
        let script = FolioProcess.packageRoot.appendingPathComponent("Tests/FolioDocumentsTests/Fixtures/make_djvu.py")
        guard let made = try? FolioProcess.run("/usr/bin/python3", [script.path, dir.path], timeout: 60), made.status == 0 else { return nil }
        return dir
    }()

    /// Spread 2: the bitonal page (a black bar near its top) on the left, the page turned a
    /// quarter turn on the right (landscape, centred, its square at the bottom left).
    @Test func theBitonalAndTheTurnedPageShowOnTheirSidesOfTheSpread() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try #require(Self.documents, "djvulibre-bin missing")
        let out = dir.appendingPathComponent("spread.png").path
        let run = try FolioProcess.run(folio.path, ["capture", dir.appendingPathComponent("book.djvu").path, "--book", "0", "--page", "3",
                                                    "-o", out], timeout: 60)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let image = try PNG.read(path: out)
        let rgb = { (x: Int, y: Int) -> Int in let p = image.pixel(x, y); return (Int(p.r) + Int(p.g) + Int(p.b)) / 3 }
        #expect(rgb(450, 190) < 60, "the bar \(rgb(450, 190))")
        #expect(rgb(450, 300) > 180, "paper below the bar \(rgb(450, 300))")
        #expect(rgb(670, 455) < 60, "the square \(rgb(670, 455))")
        #expect(rgb(670, 300) > 180, "paper above the turned page \(rgb(670, 300))")
        #expect(rgb(900, 455) > 180, "the turned page's bottom right \(rgb(900, 455))")
    }
}
