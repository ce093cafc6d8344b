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
        try #require(scene.items.first { $0.kind == .page && $0.page.index == n && $0.visible })
    }

    /// A resting page dips into the gutter, rises out of it and arches gently up, steepest
    /// near the spine and flattening towards the fore edge.
    @Test func restingPagesCurveDownToTheSpineAndArch() throws {
        let right = try Self.page(Self.scene(spread: 5), 12)
        let z = Self.row(right).map(\.z)
        // The stack's top: where the block's top lies before it curves or arches.
        let block = try #require(Self.scene(spread: 5).items.first { $0.kind == .block && $0.page == 12 })
        let plane = block.model.project(Vec3(block.size.x, 0, 0)).z
        let arch = GutterCurve.arch(drop: right.gutterDrop.x)
        #expect(z[0] < plane - 2, "the page dips at the spine: \(z[0]) against \(plane)")
        #expect(arch > 2 && abs(z[40] - (plane + arch)) < 1e-9, "the fore edge arches \(arch) up: \(z[40]) against \(plane)")
        // Rising all the way, ever less steeply out of the gutter.
        let steps = zip(z, z.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "\(z)")
        #expect(zip(steps[4...], steps[5...]).allSatisfy { $1 < $0 + 1e-12 } && steps.last! < 0.1 * steps[4], "\(steps)")
        // The block's top curves and arches with the page (block.vert takes the same drop).
        #expect(block.gutterDrop == right.gutterDrop)
    }

    /// Deeper in a thick book: the arch grows with the stack, and is an odd, smooth function of
    /// the drop (a turning sheet's drop passes through zero).
    @Test func theArchGrowsWithTheStack() {
        let thin = GutterCurve.arch(drop: GutterCurve.drop(stack: 2.6)), thick = GutterCurve.arch(drop: GutterCurve.drop(stack: 20))
        #expect(thin > 2 && thick > 2 * thin && thick < 0.08 * 362.0, "\(thin), \(thick)")
        #expect(GutterCurve.arch(drop: -3) == -GutterCurve.arch(drop: 3) && GutterCurve.arch(drop: 0) == 0)
        #expect(abs(GutterCurve.arch(drop: 1e-3)) < 0.02)
        #expect(GutterCurve.rise(0) == 0 && GutterCurve.rise(1) == 1 && GutterCurve.rise(2) == 1)
    }

    /// Deeper near the middle: in a 400-page book the right page arches higher at the middle
    /// than on the thick side near the start, the thin side near the start lies almost flat,
    /// and a thicker book arches higher at its middle than a thinner one.
    @Test func theArchIsHighestNearTheMiddle() throws {
        let thick = BookInfo(title: "Thick", imageCount: 400), thin = BookInfo(title: "Thin", imageCount: 40)
        func arch(_ book: BookInfo, spread: Int, page: Int) throws -> Double {
            let v = ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(spread))
            let item = try #require(makeScene(v, books: [book]).items.first { $0.kind == .page && $0.page.index == page && $0.visible })
            return GutterCurve.arch(drop: item.gutterDrop.x)
        }
        let start = try arch(thick, spread: 5, page: 12), middle = try arch(thick, spread: 100, page: 202)
        let nearStart = try arch(thick, spread: 20, page: 42), firstLeft = try arch(thick, spread: 2, page: 5)
        #expect(middle > 1.2 * start && nearStart > start && middle > nearStart, "\(start), \(nearStart), \(middle)")
        #expect(firstLeft < 0.3 * start, "\(firstLeft)")
        #expect(try arch(thin, spread: 10, page: 22) < 0.5 * middle)
        // Never through the stack; a sheet more on either side moves it by less than a sheet.
        let sheet = PageStack.sheetThickness
        for (a, b) in [(0.2, 40.0), (1, 1), (20, 20), (40, 0.2), (0, 0)] {
            #expect(GutterCurve.drop(stack: a, facing: b) <= 0.9 * a + 1e-12)
            #expect(abs(GutterCurve.drop(stack: a, facing: b + sheet) - GutterCurve.drop(stack: a, facing: b)) < sheet)
        }
        // And the arch by under 0.65 units, wherever both stacks hold a sheet: a turn's static
        // stacks are a sheet off the rest at one end, and at 1080p a block's fore edge stays
        // within a fraction of a pixel of the rest. An arch growing as the drop's square root,
        // as high in the middle of a thick book, moved by up to 1.7 units a sheet.
        func archAt(_ a: Double, _ b: Double) -> Double { GutterCurve.arch(drop: GutterCurve.drop(stack: a, facing: b)) }
        for (a, b) in [(0.2, 40.0), (0.2, 0.2), (1, 1), (3, 0.2), (20, 20), (10, 30), (40, 0.2)] {
            #expect(abs(archAt(a + sheet, b) - archAt(a, b)) < 0.65 && abs(archAt(a, b + sheet) - archAt(a, b)) < 0.65,
                    "\(a), \(b): \(archAt(a, b)) → \(archAt(a + sheet, b)), \(archAt(a, b + sheet))")
        }
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
        // Every column the flat part before the fold (at 150) reaches.
        for column in GutterCurve.columns where column > 0 && column * size.x < 150 {
            #expect(xs.contains((column * size.x * 1000).rounded() / 1000), "no cut at \(column)")
        }
    }
}
