#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FolioLayout
import FolioMath

@Suite struct FanTests {
    // (page, spread, compressed ratio) by hand: r = −0.5 + floor(i/2) − s, 0.1 beyond ±0.5.
    @Test(arguments: [(0, 0.0, -0.5), (1, 0, -0.5), (2, 0, 0.5), (3, 0, 0.5), (4, 0, 0.6), (5, 0, 0.6),
                      (2, 0.25, 0.25), (6, 1, 0.6), (0, 2, -0.7), (14, 0, 1.1), (0, 8, -1.3)])
    func ratio(page: Int, spread: Double, expected: Double) {
        #expect(close(Fan.ratio(page: page, spread: spread), expected))
    }

    // (page, ratio, angle): right (1 − r)(−π/2), left (1 + r)(π/2) + 1/1000, ratio clamped to ±1.
    @Test(arguments: [(0, -0.5, -3 * Double.pi / 4), (1, -0.5, Double.pi / 4 + 0.001), (2, 0.5, -Double.pi / 4),
                      (3, 0.5, 3 * Double.pi / 4 + 0.001), (2, 0, -Double.pi / 2), (2, 1.1, 0), (2, 0.9, -0.05 * Double.pi),
                      (3, -1.25, 0.001), (4, -1, -Double.pi)])
    func angle(page: Int, ratio: Double, expected: Double) {
        #expect(close(Fan.angle(page: page, ratio: ratio), expected))
    }

    @Test func facesTurnedAwayAreHiddenButNotTheCover() {
        #expect(Fan.isHidden(page: 3, ratio: 0.5))
        #expect(!Fan.isHidden(page: 1, ratio: -0.5))
        #expect(Fan.isHidden(page: 2, ratio: -0.5))
        #expect(!Fan.isHidden(page: 0, ratio: -0.5))
    }

    @Test func sceneRotatesEachPageAboutItsSpineEdgeWithTheCoverOnTop() throws {
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: 0), books: [book(20)])
        let p2 = try #require(scene.items.first { $0.page == 2 })
        // The spine edge stays on a line along y (sheet 1 of the fanned sheets −4 … 5 hinges half
        // a sheet's thickness right of the middle); the free edge swings towards the viewer by π/4.
        #expect(close(world(p2, 0, 100), Vec3(0.1, 100, 0)))
        #expect(close(world(p2, 362, 0), Vec3(0.1 + 362 * cos(Double.pi / 4), 0, 362 * sin(Double.pi / 4))))
        let p1 = try #require(scene.items.first { $0.page == 1 })
        #expect(p1.uv == .mirrored)
        #expect(world(p1, 362, 0).x < 0)
        #expect(scene.items.last?.page == 0)
        #expect(scene.items.first { $0.page == 3 }?.visible == false)
        // Far sheets lie in the blocks at the ends: the work stays bounded.
        #expect(makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: 200), books: [book(1000)]).items.count < 40)
    }

    /// A long book's fan ends on both sides in a block of the sheets beyond it, lying flat with
    /// its board where the seed's sheets lie flat (ratio ±1), the page on top of each block lying
    /// on it.
    @Test func theFanEndsInBlocksLyingOnTheirBoards() throws {
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: 100.3), books: [book(400)])
        let boxes = scene.items.filter { $0.kind == .board || $0.kind == .block }
        #expect(boxes.count == 4 && boxes.filter { $0.kind == .block }.allSatisfy { $0.thickness > 15 })
        for box in boxes {
            let spine = world(box, 0, 0), fore = world(box, box.size.x, 0)
            #expect(abs(fore.z - spine.z) / length(fore - spine) < 2e-3, "\(box.kind) lies flat at the fan's end")
        }
        for block in boxes where block.kind == .block {
            let top = try #require(scene.items.first { $0.kind == .page && $0.visible && $0.ratio.map { abs($0) } == Fan.end
                && $0.model.determinant * block.model.determinant > 0 })
            #expect(close(world(top, 0, 0), world(block, 0, 0)) && close(world(top, 300, 0), world(block, 300, 0), 0.5),
                    "page \(top.page) lies on its block")
        }
    }

    /// The fanned sheets hinge a sheet's thickness apart across the spine (not all on one line),
    /// out to the blocks, which hang from the spine's ends and never move: mid-turn too, and
    /// from one spread to the next, so a turn neither sets off nor lands with a step. Every
    /// sheet moves on by a sheet's thickness through a turn.
    @Test func sheetsHingeAcrossTheSpineAndTheBlocksHoldStill() throws {
        let at = { (s: Double) in makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: s), books: [book(400)]) }
        let a = at(100.2), b = at(100.7)
        let fronts = { (s: Scene) in s.items.filter { $0.kind == .page && $0.page.isFront }.sorted { $0.page < $1.page } }
        let p = try #require(fronts(a).first)
        let scale = length(world(p, 362, 0) - world(p, 0, 0)) / 362
        let hinge = { (item: SceneItem) in world(item, 0, 0).x / scale }
        let end = Fan.reach * PageStack.sheetThickness
        let fanned = fronts(a).filter { abs(hinge($0)) < end - 1e-9 }
        #expect(fanned.count > 8 && zip(fanned, fanned.dropFirst()).allSatisfy { close(hinge($1) - hinge($0), PageStack.sheetThickness, 1e-6) },
                "\(fronts(a).map(hinge))")
        #expect(fronts(a).allSatisfy { abs(hinge($0)) <= end + 1e-9 })
        // A sheet in the fan at both spreads has moved on by half a sheet's thickness.
        for f in fanned {
            if let g = fronts(b).first(where: { $0.page == f.page }), abs(hinge(g)) < end - 1e-9 {
                #expect(close(hinge(g) - hinge(f), -0.5 * PageStack.sheetThickness, 1e-6), "page \(f.page)")
            }
        }
        let boxes = { (s: Scene) in s.items.filter { $0.kind == .block || $0.kind == .board }.map(\.model) }
        #expect(boxes(a) == boxes(b))
        // At rest the blocks hang from the same ends of the spine (a turn takes a sheet off one
        // and puts one on the other, so their height and the boards under them change).
        let spineEdges = { (s: Scene) in s.items.filter { $0.kind == .block }.map { world($0, 0, 0).x / scale } }
        #expect(spineEdges(at(100)) == spineEdges(a) && spineEdges(at(101)) == spineEdges(a), "\(spineEdges(at(100))) \(spineEdges(a))")
    }
}

@Suite struct ShowThroughTests {
    /// Lit from the front, the other side shows at 0.09 lying on the stack; a turning sheet
    /// standing free keeps half of it, a fanned page none; lit from behind, more as it lifts.
    @Test func aTurningSheetKeepsHalfOfItsShowThroughAndAFannedPageNone() throws {
        #expect(PageStack.showThrough(lift: 0).lit == 0.09 && PageStack.showThrough(lift: 0, turning: true).lit == 0.09)
        #expect(close(PageStack.showThrough(lift: 0.5, turning: true).lit, 0.045, 1e-12))
        #expect(PageStack.showThrough(lift: 0.5).lit == 0)
        #expect(PageStack.showThrough(lift: 1, turning: true).behind > PageStack.showThrough(lift: 0, turning: true).behind)
        // The sheet a turn lifts is a turning sheet; the pages it leaves and lands on lie on their stacks.
        let shades = RigidFlip.shades(revealed: 0, facing: 0, spineLift: 1)
        #expect(close(shades.sheet.showThrough, 0.045, 1e-12) && shades.revealed.showThrough == 0.09)
        // A fanned page standing up: none.
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: 10), books: [BookInfo(title: "B", imageCount: 40)])
        let standing = scene.items.filter { $0.kind == .page && $0.shade.crease > 0.5 }
        #expect(!standing.isEmpty && standing.allSatisfy { $0.shade.showThrough == 0 })
    }
}

@Suite struct FlatTests {
    @Test func stacksGrowAndShrinkWithTheSpread() throws {
        // 10 images: 12 layout pages on 6 sheets. Spread 2 shows pages 5 | 6 over 3 sheets each side.
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: 2), books: [book(10)])
        // Each block is as high as its stack; its top curves into the gutter with the page.
        let blocks = scene.items.filter { $0.kind == .block }
        #expect(blocks.count == 2 && blocks.allSatisfy { close($0.thickness, 0.6) && close($0.gutterDrop.x, GutterCurve.drop(stack: 0.6)) })
        let left = try #require(scene.items.first { $0.kind == .page && $0.page == 5 })
        let right = try #require(scene.items.first { $0.kind == .page && $0.page == 6 })
        #expect(close(world(left, 362, 0), Vec3(-362, 0, 0.6)))
        #expect(close(world(right, 362, 0), Vec3(362, 0, 0.6)))
        #expect(left.shade.gutter > 0 && right.shade.gutter > 0)
        let first = makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: 0), books: [book(10)])
        #expect(zip(first.items.filter { $0.kind == .block }.map(\.thickness), [0.2, 1.0]).allSatisfy { close($0, $1) })
    }

    @Test func pageNumbering() {
        let b = book(5)
        #expect(b.pageCount == 7)
        #expect(b.sheetCount == 4)
        #expect(b.lastSpread == 2)
        #expect([0, 1, 2, 3, 4, 5, 6].map(b.spread(containing:)) == [0, 0, 0, 1, 1, 2, 2])
        #expect(b.content(page: 0, book: 3) == .cover(3))
        #expect(b.content(page: 1, book: 3).kind == .blank)
        #expect(b.content(page: 4, book: 3).image == PageImage(index: 2))
        #expect(book(0).lastSpread == 0)
    }

    @Test func rightToLeftMirrorsTheSpreadButNotTheImages() throws {
        let scene = makeScene(ViewState(phase: .reading, book: 0, spread: 1), books: [book(6, .rtl)])
        let right = try #require(scene.items.first { $0.kind == .page && $0.page == 4 })
        #expect(world(right, 362, 0).x < 0)
        #expect(right.uv == .mirrored)
        let left = try #require(scene.items.first { $0.kind == .page && $0.page == 3 })
        #expect(world(left, 362, 0).x > 0)
        #expect(left.uv == .identity)
    }
}

@Suite struct OpenCloseTests {
    @Test func closedBookLiesBehindTheCoverAtShelfScale() {
        let right = ClosedBook.model(side: .right, openAngle: -0.3, lift: 5, width: 362, progress: 0)
        #expect(close(right.project(Vec3(0, 0, 0)), Vec3(-126.7, 0, 0)))
        #expect(close(right.project(Vec3(362, 284, 0)), Vec3(126.7, 198.8, 0)))
        let left = ClosedBook.model(side: .left, openAngle: 0.3, lift: 5, width: 362, progress: 0)
        #expect(close(left.project(Vec3(0, 0, 0)), Vec3(-126.7, 0, 0)))
        #expect(close(left.project(Vec3(362, 0, 0)), Vec3(126.7, 0, 0)))
        // Turned by π: the left page's front faces away.
        #expect(close(left.transformDirection(Vec3(0, 0, 1)), Vec3(0, 0, -0.7)))
    }

    @Test func openBookIsTheLayoutItself() {
        let m = ClosedBook.model(side: .right, openAngle: -0.3, lift: 5, width: 362, progress: 1)
        #expect(m.isApproximatelyEqual(to: Mat4.translation(0, 0, 5) * Mat4.rotationY(-0.3), tolerance: 1e-12))
    }

    /// The other books never turn into see-through ghosts: opaque, they slide aside and back,
    /// out of the view by the time the book is open.
    @Test func otherBooksSlideAwayOpaqueAsTheBookOpens() {
        let books = [book(4), book(4), book(4)]
        let half = makeScene(ViewState(phase: .opening, scroll: 1, book: 1, openProgress: 0.25), books: books)
        let others = half.items.filter { $0.book != 1 }
        #expect(others.filter { $0.kind == .cover }.count == 2)
        #expect(others.allSatisfy { $0.opacity == 1 })
        let nearlyOpen = makeScene(ViewState(phase: .opening, scroll: 1, book: 1, openProgress: 0.999), books: books)
        for item in nearlyOpen.items where item.book != 1 {
            let xs = [0.0, 1].map { nearlyOpen.camera.projectToView(item.model.project(Vec3($0 * item.size.x, 0, 0))).x }
            #expect(xs.allSatisfy { abs($0) > 640 }, "book \(item.book) \(item.kind) still in view at \(xs)")
        }
        let open = makeScene(ViewState(phase: .reading, scroll: 1, book: 1), books: books)
        #expect(open.items.allSatisfy { $0.book == 1 })
    }

    @Test func pinchMappings() {
        #expect(ClosedBook.openingProgress(pinch: 3.5) == 0.5)
        #expect(ClosedBook.openingProgress(pinch: 9) == 1)
        #expect(close(ClosedBook.closingProgress(pinch: 0.4), 0.6))
    }
}

@Suite struct TimingTests {
    @Test func twoStageIsContinuousAtTheHalf() {
        let h = 1e-6
        let below = TimingCurve.twoStage(0.5 - h), above = TimingCurve.twoStage(0.5 + h)
        #expect(close(TimingCurve.twoStage(0.5), 0.5, 1e-9))
        #expect(close(below, above, 1e-5))
        // Same slope on both sides: no pause at upright.
        let left = (TimingCurve.twoStage(0.5) - TimingCurve.twoStage(0.5 - 1e-4)) / 1e-4
        let right = (TimingCurve.twoStage(0.5 + 1e-4) - TimingCurve.twoStage(0.5)) / 1e-4
        #expect(close(left, right, 1e-2))
        #expect(left > 1)
        #expect(close(TimingCurve.twoStage(0), 0, 1e-9) && close(TimingCurve.twoStage(1), 1, 1e-9))
    }

    @Test func curvesAreMonotonicFromZeroToOne() {
        for c in [TimingCurve.linear, .easeIn, .easeOut, .easeInOut] {
            let v = stride(from: 0.0, through: 1, by: 0.01).map { c($0) }
            #expect(close(v.first!, 0, 1e-9) && close(v.last!, 1, 1e-9))
            #expect(zip(v, v.dropFirst()).allSatisfy { $0 <= $1 + 1e-12 })
        }
        #expect(close(TimingCurve.easeInOut(0.5), 0.5, 1e-9))
    }

    /// The book opens at a hand's pace with a paper's worth of bounce and no speed left at the
    /// end (docs/behaviour.md §2).
    @Test func springOpensAtAHandsPaceAndSettles() {
        let s = Spring.open
        let samples = stride(from: 0.0, through: 1, by: 0.001).map { s.value(at: $0) }
        let peak = samples.max()!
        #expect(peak < 1.002, "overshoot \(peak - 1) of the travel")
        #expect(s.value(at: 0) == 0 && s.value(at: 1) == 1)
        // About half a second for the cover's half turn: not a third of one.
        #expect(s.value(at: 0.3) < 0.8 && s.value(at: 0.55) > 0.9, "\(s.value(at: 0.3)), \(s.value(at: 0.55))")
        // Settled: within a paper's worth, and all but still over the last tenth of a second.
        #expect(abs(s.value(at: 0.9) - 1) < 2e-3)
        #expect(abs(s.value(at: 0.999) - s.value(at: 0.9)) < 1e-3)
        // It starts moving at the initial velocity (0.7 of the distance per second).
        #expect(close(s.value(at: 1e-6) / 1e-6, 0.7, 1e-2))
        // Recorded, its last frame's step is smaller than the one before (the spring cut at
        // its duration stepped back by its 0.15% overshoot in the last frame, 40 times the
        // step before it: the open book moved a pixel as it came to rest).
        for fps in [24.0, 30, 60] {
            let last = (0...3).map { s.value(at: 1 - Double($0) / fps) }
            #expect(abs(last[0] - last[1]) < abs(last[1] - last[2]), "\(fps) fps: the last steps \(last)")
            #expect(abs(last[0] - last[1]) < 1e-4, "\(fps) fps: the last step \(last[0] - last[1])")
        }
    }
}
