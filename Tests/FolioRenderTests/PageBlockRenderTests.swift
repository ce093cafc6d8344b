import FolioImage
import FolioLayout
import FolioMath
import Testing

/// The page block's fore edge of a 400-page book: its sheet lines never alias (the picture
/// matches a supersampled one), and they show where they are wide enough to be drawn.
@Suite(.serialized) struct PageBlockRenderTests {
    static let book = BookInfo(title: "Test", imageCount: 400)

    /// The book open in the middle seen from above, zoomed `zoom` times onto the right fore edge.
    static func scene(zoom: Double) -> Scene {
        var v = ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(book.lastSpread / 2), viewpoint: .above, zoom: zoom)
        if zoom > 1, let page = makeScene(v, books: [book]).items.last(where: { $0.kind == .page }) {
            v.pan = Vec2(-page.model.project(Vec3(page.size.x, 0, 0)).x, 0)
        }
        return makeScene(v, books: [book])
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
}
