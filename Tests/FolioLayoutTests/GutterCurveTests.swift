import FolioLayout
import FolioMath
import Testing

/// Pages curve down into the gutter, and a turning sheet curves as the page it leaves when the
/// turn starts and as the page it becomes when it lands.
@Suite struct GutterCurveTests {
    static let book = BookInfo(title: "Test", imageCount: 40)

    static func scene(spread: Int, turn: Double? = nil, deform: TurnDeform = .rigid) -> Scene {
        var v = ViewState(phase: turn == nil ? .reading : .turning, book: 0, layout: .flat, spread: Double(spread))
        v.turn = turn.map { TurnState(from: spread, to: spread + 1, progress: $0) }
        v.deform = deform
        return makeScene(v, books: [book])
    }

    /// World positions of an item's surface along a row across the page, as the shader draws it.
    static func row(_ item: SceneItem, l: Double = 100) -> [Vec3] {
        (0...40).map { i in
            let a = item.size.x * Double(i) / 40
            return item.model.project(item.deformation.apply(Vec2(a, l), gutterDrop: item.gutterDrop, width: item.size.x).position)
        }
    }

    static func page(_ scene: Scene, _ n: Int) throws -> SceneItem {
        try #require(scene.items.first { $0.kind == .page && $0.page == n && $0.visible })
    }

    @Test func restingPagesCurveDownToTheSpineSmoothly() throws {
        let right = try Self.page(Self.scene(spread: 5), 12)
        let z = Self.row(right).map(\.z)
        let flat = z[10]
        #expect(z[0] < flat - 2, "the page dips at the spine: \(z[0]) against \(flat)")
        // Flat from the curve's end on, monotone towards the spine.
        #expect(z[4...].allSatisfy { abs($0 - flat) < 1e-9 })
        #expect(zip(z, z.dropFirst()).prefix(4).allSatisfy { $0.0 <= $0.1 })
        // The block beneath keeps its height at the fore edge and curves with the page.
        let block = try #require(Self.scene(spread: 5).items.first { $0.kind == .block && $0.page == 12 })
        #expect(abs(block.model.project(Vec3(block.size.x, 0, 0)).z - flat) < 1e-9)
        #expect(block.gutterDrop == right.gutterDrop)
    }

    @Test func theDropGrowsWithTheStack() {
        #expect(GutterCurve.drop(stack: 40) > 3 * GutterCurve.drop(stack: 4))
        #expect(GutterCurve.drop(stack: 1) < 1)
        #expect(GutterCurve.profile(0) == 1 && GutterCurve.profile(GutterCurve.width) == 0)
    }

    /// The slope the normal tilts by is the offset's derivative on each side of the spine.
    @Test func theSlopeIsTheOffsetsDerivative() {
        let drop = Vec2(6, 2), w = 362.0, e = 1e-4
        for x in [-30.0, -10, -1, 1, 10, 30, 50] {
            let numeric = (GutterCurve.offset(x: x + e, pageWidth: w, drop: drop) - GutterCurve.offset(x: x - e, pageWidth: w, drop: drop)) / (2 * e)
            #expect(abs(GutterCurve.slope(x: x, pageWidth: w, drop: drop) - numeric) < 1e-6, "at \(x)")
        }
    }

    /// The sheet at the start of a turn lies where the right page of the spread lay, curve
    /// included; when it lands it lies where the left page of the next spread will.
    @Test(arguments: TurnDeform.allCases)
    func aTurningSheetCurvesAsTheRestingPagesAtStartAndLanding(_ deform: TurnDeform) throws {
        let restA = try Self.page(Self.scene(spread: 5), 12), restB = try Self.page(Self.scene(spread: 6), 13)
        for (progress, rest) in [(1e-4, restA), (1 - 1e-4, restB)] {
            let sheet = try #require(Self.scene(spread: 5, turn: progress, deform: deform).items.first { $0.kind == .sheet })
            let moved = Self.row(sheet), resting = Self.row(rest)
            let worst = zip(moved, resting).map { length($0.0 - $0.1) }.max() ?? 0
            #expect(worst < 0.6, "\(deform) at \(progress): the sheet is \(worst) units off the resting page")
            #expect(abs(moved[0].z - resting[0].z) < 0.3, "\(deform) at \(progress): spine heights \(moved[0].z), \(resting[0].z)")
        }
    }

    /// Curl strips are cut where the flat parts lie over the curve, on both sides of the spine.
    @Test func curlStripsAreCutOverTheGutter() {
        let size = Vec2(362, 568)
        let c = Deformation.Curl(point: Vec2(150, 0), direction: Vec2(1, 0), radius: 20)
        let xs = Set(CurlStrips.polygons(size: size, curl: c, strips: 8).flatMap { $0 }.map { ($0.x * 1000).rounded() / 1000 })
        for column in GutterCurve.columns where column > 0 && column < 1 {
            #expect(xs.contains((column * size.x * 1000).rounded() / 1000), "no cut at \(column)")
        }
    }
}
