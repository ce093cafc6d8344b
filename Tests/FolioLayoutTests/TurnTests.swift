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
                      (Vec2(362, 0), 0.4), (Vec2(300, 250), 0.6), (Vec2(362, 284), 0.95), (Vec2(180, 0), 0.5)])
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
        // Dragged level, the grabbed corner is lifted off the page and over the pointer, seen
        // from the side it leaves: no further across than the pointer, behind it by at most
        // CurlTurn.lean times its height.
        for x in [300.0, 0, -300] {
            let moved = CurlTurn.curl(grab: grab, pointer: Vec2(x, -284), size: page).apply(grab).position
            #expect(moved.z > 10 && moved.x >= x - 1e-6 && moved.x - x <= CurlTurn.lean * moved.z + 1e-6,
                    "pointer at \(x): the grabbed corner is at \(moved)")
        }
    }

    /// A page turned by hand stands up from the spine mid-turn, its free part leaning over
    /// ahead (the bend leads), and not a roll lying on the page: as the scripted pointer
    /// crosses the other page the spine edge's normal lies nearly level and the grabbed corner
    /// is high over the other side; early on only the grabbed side has lifted.
    @Test func aCurledSheetStandsUpFromTheSpineMidTurn() throws {
        let grab = Vec2(362, -284)
        let d = CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: 0.7), size: page)
        guard case let .curl(c) = d else { Issue.record("expected a curl"); return }
        #expect(c.rotation > 0.35 * .pi && c.rotation < 0.65 * .pi, "the spine's part turned \(c.rotation)")
        #expect(abs(d.apply(Vec2(1, 0)).normal.z) < 0.6)
        let held = d.apply(grab).position
        #expect(held.x < 0 && held.z > 150, "the grabbed corner is at \(held)")
        // Early on only the grabbed side has lifted: the part by the spine still lies flat.
        let early = CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: 0.08), size: page)
        let lifted = early.apply(grab).position.z
        #expect(lifted > 20 && early.apply(Vec2(60, 0)).position.z < lifted / 8)
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

    /// Drags over a grid of pointers, from a corner and from the middle of the edge: every
    /// point of the sheet stays within its flat distance of both spine ends, between head and
    /// tail, with the spine in place; the grabbed point is over the pointer across the spine
    /// (seen from the side it leaves).
    @Test(arguments: [Vec2(362, -284), Vec2(362, 284), Vec2(362, 40)])
    func theFlapStaysWithinReachOfTheSpine(grab: Vec2) {
        let ends = [Vec2(0, -284), Vec2(0, 284)]
        var followed = 0
        for x in stride(from: -500.0, through: 400, by: 75) {
            for y in stride(from: -450.0, through: 450, by: 75) {
                let pointer = Vec2(x, y)
                let d = CurlTurn.curl(grab: grab, pointer: pointer, size: page)
                // The outline every ~1.4 units, and an inner grid.
                var points: [Vec2] = []
                for i in 0...200 {
                    let u = Double(i) / 200
                    points += [Vec2(362 * u, -284), Vec2(362 * u, 284), Vec2(0, 568 * u - 284), Vec2(362, 568 * u - 284)]
                }
                for a in stride(from: 0.0, through: 362, by: 36.2) {
                    for l in stride(from: -284.0, through: 284, by: 56.8) { points.append(Vec2(a, l)) }
                }
                for q in points {
                    let at = d.apply(q).position
                    #expect(abs(at.y) <= 284 + 0.15 * 568, "pointer \(pointer): \(q) lands at \(at), past head or tail")
                    for e in ends {
                        let flat = length(Vec3(q.x - e.x, q.y - e.y, 0)), now = length(at - Vec3(e.x, e.y, 0))
                        #expect(now <= flat + 1e-6, "pointer \(pointer): \(q) is \(now) from a spine end, more than \(flat)")
                    }
                }
                for e in ends { #expect(close(d.apply(e).position, Vec3(e.x, e.y, 0), 1e-9)) }
                // The grabbed point lies over the pointer it could reach, across the spine.
                let reach = CurlTurn.reachable(pointer, grab: grab, size: page)
                let progress = CurlTurn.progress(grab: grab, pointer: reach)
                guard progress > 0.02, progress < 0.98 else { continue }
                let g = d.apply(grab).position
                #expect(abs(g.y) <= 284 + 0.15 * 568)
                #expect(g.x >= reach.x - 1e-6 && g.x - reach.x <= CurlTurn.lean * g.z + 1e-6,
                        "pointer \(pointer): the grabbed point is \(g), not over \(reach)")
                followed += 1
            }
        }
        #expect(followed > 0)
    }

    /// Along slanted drags the sheet moves smoothly: no corner jumps far more than the pointer
    /// or the grabbed point (which rises as the pointer moves) moved.
    @Test(arguments: [Vec2(-362, -60), Vec2(-300, 200), Vec2(-200, 284)])
    func theFlapMovesSmoothlyAlongADrag(to end: Vec2) {
        let grab = Vec2(362, -284), steps = 300
        var last: [Vec3]?
        for i in 0...steps {
            let pointer = grab + (end - grab) * (Double(i) / Double(steps))
            let d = CurlTurn.curl(grab: grab, pointer: pointer, size: page)
            let now = corners.map { d.apply($0).position } + [d.apply(grab).position]
            if let last {
                let step = ((end - grab) * (end - grab)).sum().squareRoot() / Double(steps)
                let moved = zip(now, last).map { length($0 - $1) }.max() ?? 0
                let held = length(now[now.count - 1] - last[last.count - 1])
                #expect(moved < 8 * max(step, held), "step \(i): a corner moved \(moved), the pointer \(step), the grabbed point \(held)")
            }
            last = now
        }
    }

    /// A corner drag as `curl 0.95,-0.45` scripts it, at 30 frames a second over a one-second
    /// turn: from one frame to the next the fold (while there is one) turns by under 1°, and
    /// the fore edge turns no faster than the hand moves: by less than twice the angle the
    /// grabbed point's step makes seen from the far end of the edge (the sheet never twists in
    /// one frame; a corner folded along a diagonal tilts the edge as the corner rises).
    @Test func aCornerDragNeverTwistsInOneFrame() {
        let grab = Vec2(0.95 * 362, -0.45 * 568), frames = 30
        func angle(_ v: Vec3) -> Double { atan2(v.y, (v.x * v.x + v.z * v.z).squareRoot()) }
        var last: (fold: Double?, edge: Double, held: Vec3)?
        for i in 0...frames {
            let d = CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: Double(i) / Double(frames)), size: page)
            var fold: Double?
            if case let .curl(c) = d, c.radius > 0.01 { fold = atan2(c.direction.y, c.direction.x) }
            let edge = angle(d.apply(Vec2(362, 284)).position - d.apply(Vec2(362, -284)).position)
            let held = d.apply(grab).position
            if let last {
                if let fold, let before = last.fold {
                    #expect(abs(fold - before) * 180 / .pi < 1, "frame \(i): the fold turned \(abs(fold - before) * 180 / .pi)°")
                }
                let reach = length(Vec3(grab.x - 362, grab.y - 284, 0)), step = length(held - last.held)
                #expect(abs(edge - last.edge) < 2 * step / reach,
                        "frame \(i): the fore edge turned \(abs(edge - last.edge) * 180 / .pi)°, the hand \(step) units")
            }
            last = (fold, edge, held)
        }
    }

    /// Where the hand holds the sheet sets the fold: held by the bottom corner it folds along a
    /// diagonal from that corner (37° or so from the spine) and its far corner stays down
    /// while the corner lifts; held by the top corner, the mirror; held by the fore edge's
    /// middle, straight (the way the grab points, not the drag, sets it before any drag).
    @Test func theFoldFollowsWhereTheSheetIsHeld() {
        func fold(_ grab: Vec2, _ progress: Double) -> (degrees: Double, d: Deformation) {
            let d = CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: progress), size: page)
            guard case let .curl(c) = d else { return (.nan, d) }
            return (atan2(c.direction.y, c.direction.x) * 180 / .pi, d)
        }
        for p in [0.15, 0.5] {
            let bottom = fold(Vec2(362, -284), p), top = fold(Vec2(362, 284), p), edge = fold(Vec2(362, 0), p)
            #expect(bottom.degrees < -30 && bottom.degrees > -50, "bottom corner at \(p): \(bottom.degrees)°")
            #expect(top.degrees > 30 && top.degrees < 50, "top corner at \(p): \(top.degrees)°")
            #expect(abs(edge.degrees) < 3, "fore edge at \(p): \(edge.degrees)°")
        }
        // Early on, the corner held is up and the far one down; held by the edge, both lift alike.
        let corner = fold(Vec2(362, -284), 0.15).d, edge = fold(Vec2(362, 0), 0.15).d
        let near = corner.apply(Vec2(362, -284)).position.z, far = corner.apply(Vec2(362, 284)).position.z
        #expect(near > 40 && far < 0.05 * near, "held corner \(near) high, far corner \(far)")
        let ends = (edge.apply(Vec2(362, -284)).position.z, edge.apply(Vec2(362, 284)).position.z)
        #expect(abs(ends.0 - ends.1) < 0.05 * max(ends.0, ends.1) && ends.0 > 20, "held by the edge: corners at \(ends)")
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

    /// The flat part (before the fold) and the flap lying face down are drawn apart from the
    /// roll (with the one-tap shader): together the parts are the whole mesh, the flat ones
    /// lie before the fold or past the roll, and a flap standing up (wrap under π) is bent.
    @Test func partsSplitTheFlatFromTheRoll() {
        let distance = { (t: Vec2) in ((Vec2(t.x * self.size.x, (t.y - 0.5) * self.size.y) - self.curl.point) * self.curl.direction).sum() }
        let parts = CurlStrips.parts(size: size, curl: curl, strips: 24)
        #expect(parts.flat.count + parts.bent.count == CurlStrips.triangles(size: size, curl: curl, strips: 24).count)
        #expect(!parts.flat.isEmpty && !parts.bent.isEmpty)
        let arc = Double.pi * curl.radius
        for i in stride(from: 0, to: parts.flat.count, by: 3) {
            let d = parts.flat[i..<i + 3].map(distance)
            #expect(d.max()! <= 1e-6 || d.min()! >= arc - 1e-6, "a flat triangle on the roll: \(d)")
        }
        for i in stride(from: 0, to: parts.bent.count, by: 3) {
            let d = parts.bent[i..<i + 3].map(distance)
            #expect(d.min()! >= -1e-6 && d.max()! <= arc + 1e-6, "a bent triangle off the roll: \(d)")
        }
        var standing = curl
        standing.wrap = 2
        let fan = CurlStrips.parts(size: size, curl: standing, strips: 24)
        #expect(fan.flat.allSatisfy { distance($0) <= 1e-6 }, "a standing flap is bent")
    }

    @Test func trianglesAreFewAndInUnitCoordinates() {
        let tris = CurlStrips.triangles(size: size, curl: curl, strips: 24)
        #expect(tris.count % 3 == 0)
        #expect(tris.count / 3 < 200)
        #expect(tris.allSatisfy { (-1e-9...1 + 1e-9).contains($0.x) && (-1e-9...1 + 1e-9).contains($0.y) })
    }
}

/// The scene of styles changing (`StyleBlend`) at their ends is exactly the styles' own, with
/// any turn and spread: an amount that stands still while another moves changes nothing.
@Suite struct StyleBlendSceneTests {
    @Test(arguments: [BookLayout.flat, .fan], [TurnStyle.Orientation.horizontal, .vertical])
    func aBlendAtItsEndsIsTheStylesOwnScene(layout: BookLayout, orientation: TurnStyle.Orientation) {
        for perspective in TurnStyle.Perspective.allCases {
            for viewpoint in Viewpoint.allCases {
                for turn in [nil, TurnState(from: 2, to: 3, progress: 0.4)] {
                    var v = ViewState(viewSize: view, phase: .reading, book: 0, layout: layout, spread: 2, turn: turn,
                                      style: TurnStyle(orientation: orientation, perspective: perspective), deform: .curl, viewpoint: viewpoint)
                    let own = makeScene(v, books: [book(30)])
                    v.blend = v.styles
                    #expect(makeScene(v, books: [book(30)]) == own, "\(layout) \(orientation) \(perspective) \(viewpoint) \(String(describing: turn))")
                }
            }
        }
    }

    /// Halfway through, the fan's sheets stand between lying open and their fan, the camera's
    /// perspective is none, and the book is edge on in the view.
    @Test func halfwayEachStyleIsBetweenItsEnds() throws {
        let books = [book(30)]
        var v = ViewState(viewSize: view, phase: .reading, book: 0, layout: .fan, spread: 2)
        let fan = makeScene(v, books: books)
        v.blend = StyleBlend(viewpoint: 0, reversal: 0.5, fan: 0.5, vertical: 0)
        let half = makeScene(v, books: books)
        #expect(half.camera.m34 == 0)
        // The right-hand page of the spread: lying flat at angle 0, fanned at −π/4.
        let angle = { (s: Scene) throws -> Double in
            let p = try #require(s.items.first { $0.kind == .page && $0.page == 6 && $0.visible })
            let x = p.model.transformDirection(Vec3(1, 0, 0))
            return atan2(x.z, x.x)
        }
        let (rest, mid) = (try angle(fan), try angle(half))
        #expect(rest > 0.5 && mid > 0.1 && mid < rest - 0.1, "\(rest) \(mid)")
        v.blend = StyleBlend(viewpoint: 0, reversal: 0, fan: 1, vertical: 0.5)
        let edgeOn = makeScene(v, books: books)
        let widths = edgeOn.items.filter { $0.kind == .page && $0.visible }.map { p in
            abs(edgeOn.camera.projectToView(p.model.project(Vec3(p.size.x, 0, 0))).x - edgeOn.camera.projectToView(p.model.project(.zero)).x)
        }
        #expect(!widths.isEmpty && widths.allSatisfy { $0 < 1 }, "\(widths)")
    }
}
