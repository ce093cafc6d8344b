#if canImport(Glibc)
import Glibc
#endif
import Testing
import FolioLayout
import FolioMath

/// Length of a deformed edge from `a` to `b`, as a fine polyline.
private func deformedLength(_ d: Deformation, _ a: Vec2, _ b: Vec2, steps: Int = 400) -> Double {
    var total = 0.0
    var last = d.apply(a).position
    for i in 1...steps {
        let p = d.apply(a + (b - a) * (Double(i) / Double(steps))).position
        total += length(p - last)
        last = p
    }
    return total
}

private let corners = [Vec2(0, -284), Vec2(362, -284), Vec2(362, 284), Vec2(0, 284)]

/// The spine stays put and every edge (plus a diagonal) keeps its length within 1%.
private func expectPaperLike(_ d: Deformation) {
    for l in stride(from: -284.0, through: 284, by: 71) {
        #expect(close(d.apply(Vec2(0, l)).position, Vec3(0, l, 0), 1e-6))
    }
    let edges = [(corners[0], corners[1]), (corners[1], corners[2]), (corners[2], corners[3]), (corners[0], corners[2])]
    for (a, b) in edges {
        let flat = length(Vec3(b.x - a.x, b.y - a.y, 0))
        #expect(abs(deformedLength(d, a, b) - flat) / flat < 0.01)
    }
}

@Suite struct DeformationTests {
    @Test(arguments: [(Vec2(362, -284), 0.2), (Vec2(362, -284), 0.5), (Vec2(362, -284), 0.85),
                      (Vec2(362, 0), 0.4), (Vec2(300, 250), 0.6), (Vec2(362, 284), 0.95)])
    func curlKeepsSpineAndLengths(grab: Vec2, progress: Double) {
        let d = CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: progress), size: page)
        guard case .curl = d else { Issue.record("expected a curl"); return }
        expectPaperLike(d)
    }

    @Test func curlFollowsThePointerAndNeverCrossesTheSpine() {
        let grab = Vec2(362, -284)
        // A pointer dragged far up and across: the fold line is pushed back behind the spine ends.
        let d = CurlTurn.curl(grab: grab, pointer: Vec2(-200, 200), size: page)
        expectPaperLike(d)
        // Mid-way the grabbed corner lands under the pointer.
        let pointer = CurlTurn.pointer(grab: grab, progress: 0.5)
        let moved = CurlTurn.curl(grab: grab, pointer: pointer, size: page).apply(grab).position
        #expect(close(Vec2(moved.x, moved.y), pointer, 1e-6))
    }

    @Test func aGrabbedPointStaysWithinReachOfTheSpine() {
        let grab = Vec2(362, -284)
        let ends = [Vec2(0, -284), Vec2(0, 284)]
        for pointer in [Vec2(-900, -700), Vec2(200, 900), Vec2(-100, -284), Vec2(500, 0)] {
            let p = CurlTurn.reachable(pointer, grab: grab, size: page)
            for e in ends {
                let reach = ((grab - e) * (grab - e)).sum().squareRoot(), d = ((p - e) * (p - e)).sum().squareRoot()
                #expect(d <= reach + 1e-6, "\(pointer) → \(p) is \(d) from a spine end, more than \(reach)")
            }
        }
        // Within reach the pointer is followed exactly.
        #expect(close(CurlTurn.reachable(Vec2(100, -200), grab: grab, size: page), Vec2(100, -200)))
    }

    @Test func aScriptedCurlSettlesWithZeroSpeed() {
        let grab = Vec2(362, -284)
        let near = CurlTurn.pointer(grab: grab, progress: 0.999), end = CurlTurn.pointer(grab: grab, progress: 1)
        let early = CurlTurn.pointer(grab: grab, progress: 0.001), start = CurlTurn.pointer(grab: grab, progress: 0)
        // Distance moved over the last thousandth of the turn against the first.
        let last = ((near - end) * (near - end)).sum().squareRoot(), first = ((early - start) * (early - start)).sum().squareRoot()
        #expect(last < first / 100, "last step \(last), first step \(first)")
    }

    @Test func curlIsFlatAtTheStartAndLandsFlatOnTheOtherSide() {
        let grab = Vec2(362, -284)
        #expect(CurlTurn.curl(grab: grab, pointer: grab, size: page) == .flat)
        let landed = CurlTurn.curl(grab: grab, pointer: Vec2(-362, -284), size: page)
        let p = landed.apply(Vec2(200, 100))
        #expect(close(p.position, Vec3(-200, 100, 0), 0.01))
        #expect(close(p.normal, Vec3(0, 0, -1)))
    }

    @Test(arguments: [0.05, 0.2, 0.4, 0.5, 0.7, 0.9])
    func coneKeepsSpineAndLengths(progress: Double) {
        expectPaperLike(.cone(ConeTurn.cone(progress: progress, size: page)))
    }

    @Test func coneLiftsTheCornerFirstAndLandsFlat() {
        let early = Deformation.cone(ConeTurn.cone(progress: 0.1, size: page))
        // The bottom outer corner (nearest the apex) rises above the top outer corner.
        #expect(early.apply(Vec2(362, -284)).position.z > early.apply(Vec2(362, 284)).position.z)
        let end = Deformation.cone(ConeTurn.cone(progress: 1, size: page)).apply(Vec2(300, 50))
        #expect(close(end.position, Vec3(-300, 50, 0), 1e-6))
    }
}

@Suite struct RigidTurnTests {
    private func turning(_ style: TurnStyle, progress: Double = 0.3, deform: TurnDeform = .rigid) -> Scene {
        let from = style.direction == .forward ? 1 : 2
        return makeScene(ViewState(phase: .turning, book: 0, spread: Double(from),
                                   turn: TurnState(from: from, to: style.direction == .forward ? 2 : 1, progress: progress),
                                   style: style, deform: deform), books: [book(10)])
    }

    @Test func eightStylesGiveEightDifferentTransforms() throws {
        let transforms = try TurnStyle.all.map { style -> Mat4 in
            let scene = turning(style)
            let sheet = try #require(scene.items.first { $0.kind == .sheet })
            return scene.camera.viewProjection * sheet.model
        }
        #expect(transforms.count == 8)
        for i in 0..<8 { for j in 0..<i { #expect(!transforms[i].isApproximatelyEqual(to: transforms[j], tolerance: 1e-6)) } }
        #expect(turning(TurnStyle(perspective: .reverse)).camera.reversePerspective)
    }

    @Test func forwardTurnRotatesTowardsTheViewerAboutTheSpine() throws {
        let sheet = try #require(turning(TurnStyle(), progress: 0.25).items.first { $0.kind == .sheet })
        #expect(sheet.front == .page(0, 4))
        #expect(sheet.back == .page(0, 5))
        let edge = world(sheet, 362, 0), spine = world(sheet, 0, 0)
        #expect(close(edge.x, 362 * cos(Double.pi / 4), 1e-6))
        #expect(edge.z > spine.z)
        #expect(close(spine.x, 0))
    }

    // (progress, revealed-page shadow, facing-page shadow, sheet shade): cos / sin at most 1/3,
    // the sheet's own shade 0 → 0.1 → 0.
    @Test(arguments: [(0.0, 1.0 / 3, 0.0, 0.0), (0.25, cos(Double.pi / 4) / 3, 0, 0.05), (0.5, 0, 0, 0.1),
                      (0.75, 0, cos(Double.pi / 4) / 3, 0.05), (1, 0, 1.0 / 3, 0)] as [(Double, Double, Double, Double)])
    func shadowCurves(progress: Double, reveal: Double, facing: Double, selfShade: Double) throws {
        let scene = turning(TurnStyle(), progress: progress)
        let revealed = try #require(scene.items.first { $0.kind == .page && $0.page == 6 })
        let facingPage = try #require(scene.items.first { $0.kind == .page && $0.page == 3 })
        let sheetIndex = try #require(scene.items.firstIndex { $0.kind == .sheet })
        #expect(close(revealed.shade.reveal, reveal, 1e-9))
        #expect(close(facingPage.shade.facing, facing, 1e-9))
        #expect(close(scene.items[sheetIndex].shade.`self`, selfShade, 1e-9))
        #expect(revealed.shadowCaster == sheetIndex && facingPage.shadowCaster == sheetIndex)
    }

    @Test func creaseEasesInWithTheTurn() throws {
        let crease = try [0.0, 0.1, 0.25, 0.5].map { p in try #require(turning(TurnStyle(), progress: p).items.first { $0.kind == .sheet }).shade.crease }
        #expect(crease[0] == 0)
        #expect(zip(crease, crease.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func viewpointMovesTheVanishingPoint() {
        #expect(Viewpoint.above.vanishingPoint(viewSize: view) == Vec2(0, 216))
        #expect(Viewpoint.below.vanishingPoint(viewSize: view) == Vec2(0, -216))
        #expect(Viewpoint.center.next == .below && Viewpoint.below.next == .above)
    }

    @Test func curlTurnUsesTheDeformationAndShadesFromItsGeometry() throws {
        let scene = turning(TurnStyle(), progress: 0.5, deform: .curl)
        let sheet = try #require(scene.items.first { $0.kind == .sheet })
        guard case .curl = sheet.deformation else { Issue.record("expected a curl"); return }
        let revealed = try #require(scene.items.first { $0.kind == .page && $0.page == 6 })
        #expect(revealed.shade.reveal > 0 && revealed.shade.reveal < 1.0 / 3)
    }
}

@Suite struct CurlStripsTests {
    let size = Vec2(362, 568)
    let curl = Deformation.Curl(point: Vec2(250, -100), direction: Vec2(1, 0.4), radius: 40)

    private func area(_ poly: [Vec2]) -> Double { CurlStrips.area(poly) }

    @Test func stripsCoverThePageOnceCounterClockwise() {
        let polys = CurlStrips.polygons(size: size, curl: curl, strips: 24)
        #expect(polys.allSatisfy { area($0) > 0 })
        let total = polys.map(area).reduce(0, +)
        #expect(abs(total - size.x * size.y) < 1e-6 * size.x * size.y)
    }

    @Test func eachStripSpansAtMostItsShareOfTheArc() {
        let polys = CurlStrips.polygons(size: size, curl: curl, strips: 24)
        let arc = Double.pi * curl.radius / 24
        // The strips over the cylinder (the flat parts on either side are cut over the gutter).
        let strips = polys.map { $0.map { (($0 - curl.point) * curl.direction).sum() } }
            .filter { $0.min()! >= -1e-9 && $0.max()! <= .pi * curl.radius + 1e-9 }
        #expect(strips.count == 24)
        for d in strips {
            #expect(d.max()! - d.min()! <= arc + 1e-9)
        }
    }

    @Test func trianglesAreFewAndInUnitCoordinates() {
        let tris = CurlStrips.triangles(size: size, curl: curl, strips: 24)
        #expect(tris.count % 3 == 0)
        #expect(tris.count / 3 < 200)
        #expect(tris.allSatisfy { (-1e-9...1 + 1e-9).contains($0.x) && (-1e-9...1 + 1e-9).contains($0.y) })
    }
}
