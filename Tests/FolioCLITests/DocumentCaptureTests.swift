import FolioBook
import FolioImage
import Foundation
import Testing

/// `folio capture` of documents end to end: the right page at the right place with the right
/// shape, and a vector page rasterised for the size it is shown at (sharp at 8×).
@Suite struct DocumentCaptureTests {
    /// The documents of `FolioDocumentsTests/Fixtures/make_documents.py`, written once.
    static let documents: URL? = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-capture-docs-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FolioDocumentsTests/Fixtures/make_documents.py")
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil,
              let made = try? FolioProcess.run("/usr/bin/python3", [script.path, dir.path, "1"], timeout: 30),
              made.status == 0 else { return nil }
        return dir
    }()

    /// Captures `document` (at 1280 × 720 unless `arguments` say otherwise) and reads the PNG back.
    private func capture(_ document: String, _ arguments: [String]) throws -> RGBAImage {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try #require(Self.documents, "python3-cairo / python3-pil missing")
        let out = dir.appendingPathComponent("\(UUID().uuidString).png").path
        let run = try FolioProcess.run(folio.path, ["capture", dir.appendingPathComponent(document).path, "-o", out] + arguments,
                                       timeout: 60)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        return try PNG.read(path: out)
    }

    private func rgb(_ image: RGBAImage, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let p = image.pixel(x, y)
        return (Int(p.r), Int(p.g), Int(p.b))
    }

    @Test func eachPageShowsOnItsSideOfTheSpread() throws {
        // Spread 1: page 2 (green band) on the left, page 3 (blue band) on the right.
        let image = try capture("portrait.pdf", ["--book", "0", "--page", "3"])
        let left = rgb(image, 440, 360), right = rgb(image, 840, 360)
        #expect(left.1 > 120 && left.0 < 90 && left.2 < 90, "left page centre \(left)")
        #expect(right.2 > 160 && right.0 < 90, "right page centre \(right)")
        // Paper above the bands, the desk beyond the page's outer edge (401 units from the spine).
        #expect(rgb(image, 840, 150).0 > 200, "\(rgb(image, 840, 150))")
        #expect(rgb(image, 1030, 360).2 > 160, "inside the right page \(rgb(image, 1030, 360))")
        #expect(rgb(image, 1060, 360).0 < 120, "the desk \(rgb(image, 1060, 360))")
    }

    @Test func aPageOfAnotherShapeKeepsItsShapeOnThePaper() throws {
        // Page 2 is landscape in a portrait document: centred on the left-hand paper, paper
        // above and below it; page 3 (square) on the right has a taller band.
        let image = try capture("mixed.pdf", ["--book", "0", "--page", "3"])
        let centre = rgb(image, 440, 360), above = rgb(image, 440, 280), rightAbove = rgb(image, 840, 280)
        #expect(centre.1 > 120 && centre.0 < 90, "landscape page's band \(centre)")
        #expect(above.0 > 200 && above.1 > 200 && above.2 > 200, "paper above the landscape page's band \(above)")
        #expect(rightAbove.2 > 160 && rightAbove.0 < 90, "square page's band \(rightAbove)")
    }

    @Test func linesStaySharpAtEightTimesZoom() throws {
        // lines.pdf: 0.25-point lines 2 points apart; at 8× they are about 22 pixels apart.
        let image = try capture("lines.pdf", ["--book", "0", "--page", "1", "--zoom", "8", "--pan=-1600,0"])
        let row = (300..<900).map { rgb(image, $0, 360).0 }
        let dark = row.filter { $0 < 100 }.count, light = row.filter { $0 > 200 }.count
        #expect(dark > 40, "lines are dark: \(dark)")
        #expect(light > 400, "paper between them: \(light)")
        // Rasterised at the shown size, a line's edge is a pixel or two; magnified from a
        // page-sized texture it would be a broad grey ramp.
        #expect(row.count - dark - light < 120, "grey pixels: \(row.count - dark - light)")
    }

    /// bars.pdf's 2-point bars at 8× on a 1920 × 1080 frame: each is about 8× as wide as at
    /// fit and every edge goes from paper to ink within 2 pixels. Without the part shown
    /// rasterised at the scale shown, the page's 4096-pixel texture is magnified about 1.8×
    /// and some edges take 3 pixels or more.
    @Test func barsAtEightTimesZoomOnAFullHDFrameAreDrawnAtTheirOwnScale() throws {
        let page = ["--book", "0", "--page", "1", "--size", "1920x1080"]
        let zoomed = page + ["--zoom", "8", "--pan=-1600,0"]
        let detailed = try capture("bars.pdf", zoomed)
        let sharp = Self.edges(detailed, y: 540)
        let magnified = Self.edges(try capture("bars.pdf", zoomed + ["--no-detail"]), y: 540)
        try #require(sharp.lines >= 8, "bars in view: \(sharp.lines)")
        #expect(sharp.widest <= 2, "edge transitions with detail: \(sharp.widest) px")
        #expect(magnified.widest >= 3, "without detail the check fails: \(magnified.widest) px")

        // Ink per bar: about 8× what a bar has at fit.
        let fit = try capture("bars.pdf", page)
        // The middle of the frame: the boards' rims beyond the page's edges are no bars.
        let atFit = Self.ink(fit.cropped(x: 480, y: 0, width: 960, height: fit.height), y: 540, reach: 12, widest: 8)
        #expect(atFit.strokes == 10, "the 10 bars at fit: \(atFit.strokes)")
        let zoomedInk = Self.ink(detailed, y: 540, reach: 40, widest: 60)
        let ratio = zoomedInk.perStroke / atFit.perStroke
        #expect((7...9).contains(ratio), "a bar at 8× is \(ratio)× as wide as at fit")
    }

    /// Dark strokes along row `y` at most `widest` pixels wide: how many, and the ink of each
    /// in pixels, against the paper within `reach` pixels (which a gutter may shade).
    private static func ink(_ image: RGBAImage, y: Int, reach: Int, widest: Int) -> (strokes: Int, perStroke: Double) {
        let row = (0..<image.width).map { Double(image.pixel($0, y).r) }
        let paper = row.indices.map { x in row[max(0, x - reach)...min(row.count - 1, x + reach)].max()! }
        var strokes: [Double] = [], run: [Double] = []
        for x in row.indices {
            if row[x] < paper[x] - 12 {
                run.append((paper[x] - row[x]) / paper[x])
            } else {
                // Long dark runs are the desk beyond the page, not a stroke.
                if !run.isEmpty, run.count <= widest { strokes.append(run.reduce(0, +)) }
                run = []
            }
        }
        return (strokes.count, strokes.reduce(0, +) / Double(max(strokes.count, 1)))
    }

    /// Dark strokes on paper along row `y`: how many, and the most pixels an edge takes from
    /// paper to ink (those strictly between 10 % and 90 % dark).
    private static func edges(_ image: RGBAImage, y: Int) -> (lines: Int, widest: Int) {
        let row = (0..<image.width).map { Int(image.pixel($0, y).r) }
        var runs: [Int] = [], run = 0
        for v in row {
            if v > 25 && v < 230 { run += 1 } else if run > 0 { runs.append(run); run = 0 }
        }
        return (zip(row, row.dropFirst()).filter { $0 >= 128 && $1 < 128 }.count, runs.max() ?? 0)
    }

    /// `FOLIO_TIMINGS` says where a capture's start-up went, each step once and in order, with
    /// its wall and CPU milliseconds; without it nothing is said.
    @Test func timingsNameEachStepOfTheStartUp() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try #require(Self.documents, "python3-cairo / python3-pil missing")
        let out = dir.appendingPathComponent("\(UUID().uuidString).png").path
        var environment = ProcessInfo.processInfo.environment
        environment["FOLIO_TIMINGS"] = "1"
        let run = try FolioProcess.run(folio.path, ["capture", dir.appendingPathComponent("portrait.pdf").path, "--page", "3",
                                                    "--size", "320x180", "-o", out], environment: environment, timeout: 60)
        try #require(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let steps = ["start-up and arguments", "EGL context", "library", "renderer", "frame", "read back", "PNG written"]
        #expect(lines.count == steps.count, "\(run.stderr)")
        for (line, step) in zip(lines, steps) {
            #expect(line.hasPrefix("timing: \(step)") && line.contains(" ms (CPU ") && line.hasSuffix(" ms)"), "\(line)")
        }
    }
}
