import FolioImage
import FolioLayout
import FolioMath
import Testing

/// The page block's fore edge of a 400-page book: its sheet lines never alias (the picture
/// matches a supersampled one), and they show where they are wide enough to be drawn.
@Suite(.serialized) struct PageBlockRenderTests {
    static let book = BookInfo(title: "Test", imageCount: 400)

    /// The book open in the middle seen from above, zoomed `zoom` times onto the right fore
    /// edge at `t` of the page's height from its middle (½: its head).
    static func scene(zoom: Double, t: Double = 0, viewpoint: Viewpoint = .above) -> Scene {
        var v = ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(book.lastSpread / 2), viewpoint: viewpoint, zoom: zoom)
        if zoom > 1, let page = makeScene(v, books: [book]).items.last(where: { $0.kind == .page }) {
            let at = page.model.project(Vec3(page.size.x, t * page.size.y, 0))
            v.pan = Vec2(-at.x, -at.y)
        }
        return makeScene(v, books: [book])
    }

    /// The fore edge's head corner, zoomed in from the reading view: no diagonal edge (pixels
    /// whose luma changes by more than 6 both across and along, about equally) between the
    /// page's corner and the block's bottom corner. Head and tail flared as the fore edge did
    /// before, and the corner showed a 45° mitre, a picture frame's.
    @Test func theBlocksCornerHasNoMitre() throws {
        let scene = Self.scene(zoom: 4, t: 0.5, viewpoint: .center)
        let width = 640, height = 360
        let img = try GLHarness.shared.render(scene, width: width, height: height)
        let page = try #require(scene.items.last { $0.kind == .page })
        let block = try #require(scene.items.last { $0.kind == .block })
        func pixel(_ p: Vec3) -> (x: Int, y: Int) {
            let at = scene.camera.projectToView(p)
            return (Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width)), Int((0.5 - at.y / scene.camera.viewSize.y) * Double(height)))
        }
        let t = block.thickness
        let a = pixel(page.model.project(Vec3(page.size.x, page.size.y / 2, 0)))
        let b = pixel(block.model.project(Vec3(block.size.x + 0.5 * t, block.size.y / 2 + 0.5 * t, -t)))
        let xs = max(1, min(a.x, b.x) - 2)..<min(width - 1, max(a.x, b.x) + 3)
        let ys = max(1, min(a.y, b.y) - 2)..<min(height - 1, max(a.y, b.y) + 3)
        #expect(xs.count > 10 && ys.count > 10, "a corner region \(xs) × \(ys)")
        var diagonal = 0
        for y in ys {
            for x in xs {
                let gx = img.luma(x + 1, y) - img.luma(x - 1, y), gy = img.luma(x, y + 1) - img.luma(x, y - 1)
                if abs(gx) > 6, abs(gy) > 6, abs(gx) < 2 * abs(gy), abs(gy) < 2 * abs(gx) { diagonal += 1 }
            }
        }
        #expect(diagonal < 6, "\(diagonal) pixels of a diagonal edge in the corner \(xs) × \(ys)")
    }

    /// Resting pages arch (GutterCurve.arch): in the middle of the book at 1920×1080 the right
    /// page's head rises and its tail falls by a few pixels from past the gutter's curve to the
    /// fore edge (3 and 3; with the arch as the drop's square root, flat to the pixel), and
    /// near the start the thin stack's page (the left) by less.
    @Test func restingPagesArchAFewPixelsMostInTheMiddle() throws {
        let (width, height) = (1920, 1080)
        func rise(spread: Int, right: Bool) throws -> Int {
            let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(spread)), books: [Self.book])
            let img = try GLHarness.shared.render(scene, width: width, height: height)
            let pages = scene.items.filter { $0.kind == .page && $0.visible }
            let page = try #require(right ? pages.last : pages.first)
            func column(_ s: Double) -> Int {
                let at = scene.camera.projectToView(page.model.project(Vec3(s * page.size.x, 0, 0)))
                return Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width))
            }
            // The paper's rows in a column: blank pages are light, the desk dark.
            func rows(_ x: Int) -> ClosedRange<Int>? {
                let paper = (0..<height).filter { img.luma(x, $0) > 150 }
                return paper.first.flatMap { first in paper.last.map { first...$0 } }
            }
            let near = try #require(rows(column(0.15))), far = try #require(rows(column(0.95)))
            #expect(far.lowerBound <= near.lowerBound && far.upperBound >= near.upperBound, "head and tail \(near) near the spine, \(far) at the fore edge")
            return far.count - near.count
        }
        let middle = try rise(spread: Self.book.lastSpread / 2, right: true), start = try rise(spread: 5, right: false)
        #expect(middle >= 5 && start < middle, "the page grows by \(middle) pixels from spine to fore edge in the middle, \(start) near the start")
    }

    /// The fore edge's columns at the middle third of its height (`scale` pixels a view pixel):
    /// from just past the right page's edge to just before the block's flared bottom edge.
    static func foreEdge(_ scene: Scene, width: Int, scale: Int) throws -> (x: Range<Int>, y: Range<Int>) {
        let page = try #require(scene.items.last { $0.kind == .page })
        let block = try #require(scene.items.last { $0.kind == .block })
        func column(_ p: Vec3) -> Int {
            let at = scene.camera.projectToView(p)
            return Int(((at.x / scene.camera.viewSize.x + 0.5) * Double(width)).rounded()) * scale
        }
        let top = column(page.model.project(Vec3(page.size.x, 0, 0)))
        // block.vert: the fore edge reaches out by half the depth at the bottom.
        let bottom = column(block.model.project(Vec3(block.size.x + 0.5 * block.thickness, 0, -block.thickness)))
        try #require(bottom - top > 4 * scale, "fore edge from column \(top) to \(bottom)")
        let h = Int(Double(width) * scene.camera.viewSize.y / scene.camera.viewSize.x) * scale
        return ((top + 2 * scale)..<(bottom - 2 * scale), (h / 3)..<(2 * h / 3))
    }

    /// Mean luma of each column of the region, averaged over `scale` × `scale` pixel boxes:
    /// a view pixel of a picture drawn `scale` times larger.
    static func columns(_ img: RGBAImage, _ r: (x: Range<Int>, y: Range<Int>), scale: Int) -> [Double] {
        stride(from: r.x.lowerBound, to: r.x.upperBound - scale + 1, by: scale).map {
            img.meanLuma(x: $0, y: r.y.lowerBound, width: scale, height: r.y.count)
        }
    }

    /// Zoomed onto the fore edge at 640×360 and 960×540, and closer: each column of the edge
    /// within a few levels of luma of a picture drawn three times larger and averaged down
    /// (2.5 on average), so no line pattern finer than a pixel beats into bands (the sine
    /// stripes before: the block in 4–5 grey bands); and lines show: columns differ.
    @Test(arguments: [(640, 3.0), (960, 3.0), (640, 8.0)])
    func sheetLinesDoNotAlias(_ width: Int, _ zoom: Double) throws {
        let scene = Self.scene(zoom: zoom)
        let height = width * 9 / 16
        let small = try GLHarness.shared.render(scene, width: width, height: height)
        let large = try GLHarness.shared.render(scene, width: 3 * width, height: 3 * height)
        let r1 = try Self.foreEdge(scene, width: width, scale: 1), r3 = try Self.foreEdge(scene, width: width, scale: 3)
        let a = Self.columns(small, r1, scale: 1), b = Self.columns(large, r3, scale: 3)
        #expect(a.count >= 4, "a fore edge \(a.count) columns wide")
        let differences: [Double] = zip(a, b).map { abs($0 - $1) }
        let worst = differences.max() ?? 0, mean = differences.reduce(0, +) / Double(max(differences.count, 1))
        let shown: [Int] = a.map { Int($0.rounded()) }, reference: [Int] = b.map { Int($0.rounded()) }
        #expect(worst < 8 && mean < 2.5, "mean \(mean), worst \(worst): fore edge against the supersampled picture: \(shown) vs \(reference)")
        do {
            let level = a.reduce(0, +) / Double(a.count)
            let squares: [Double] = a.map { ($0 - level) * ($0 - level) }
            let spread = (squares.reduce(0, +) / Double(a.count)).squareRoot()
            #expect(spread > 3, "sheet lines show zoomed in: \(shown)")
        }
    }

    /// At reading size (the whole spread, a 400-page book open near its start: the thick block
    /// on the right, seen straight on) at 1920×1080 and 640×360, with and without MSAA: the fore
    /// edge's columns differ by more than a floor (its lines read as sheets of paper; before,
    /// a std of 3.4 levels at 1920: a plain grey strip), and each column is even along the
    /// edge's height (lines that beat against the pixel grid vary along it: moiré).
    @Test(arguments: [(1920, 0), (1920, 4), (640, 0), (640, 4)])
    func foreEdgeLinesShowAtReadingSize(_ width: Int, _ samples: Int) throws {
        let v = ViewState(phase: .reading, book: 0, layout: .flat, spread: 5)
        let scene = makeScene(v, books: [Self.book])
        let height = width * 9 / 16
        let img = try GLHarness.shared.render(scene, width: width, height: height,
                                              configuration: RenderConfiguration(samples: samples, filtering: .software))
        // The edge's columns: from the projected outline, a column either way, less the page's
        // (lighter) and the desk's (darker).
        var r = try Self.foreEdge(scene, width: width, scale: 1)
        r.x = (r.x.lowerBound - 2)..<(r.x.upperBound + 2)
        r.x = try #require(r.x.first { (80...160).contains(img.meanLuma(x: $0, y: r.y.lowerBound, width: 1, height: r.y.count)) })
            ..< (try #require(r.x.last { (80...160).contains(img.meanLuma(x: $0, y: r.y.lowerBound, width: 1, height: r.y.count)) }) + 1)
        let a = Self.columns(img, r, scale: 1)
        let level = a.reduce(0, +) / Double(a.count)
        let spread = (a.map { ($0 - level) * ($0 - level) }.reduce(0, +) / Double(a.count)).squareRoot()
        let columns: [Int] = a.map { Int($0.rounded()) }
        #expect(spread > (width > 1000 ? 6 : 4), "the fore edge's lines show: \(columns)")
        // Each column's luma along the edge, in eight runs of rows: no run away from the column's mean.
        let runs = r.y.count / 8
        for x in r.x {
            let means = (0..<8).map { img.meanLuma(x: x, y: r.y.lowerBound + $0 * runs, width: 1, height: runs) }
            let m = means.reduce(0, +) / 8
            #expect(means.allSatisfy { abs($0 - m) < 3 }, "column \(x) along the edge: \(means.map { Int($0.rounded()) })")
        }
    }
}
