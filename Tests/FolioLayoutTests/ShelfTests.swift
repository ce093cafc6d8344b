#if canImport(Glibc)
import Glibc
#endif
import Testing
import FolioLayout
import FolioMath

@Suite struct CarouselTests {
    let carousel = Carousel(viewWidth: 1280)

    // (distance from the centre, 0.7 · clamp(1 − d / 1280, 0.75, 1)) worked by hand.
    @Test(arguments: [(0.0, 0.7), (100, 0.6453125), (-100, 0.6453125), (200, 0.590625), (320, 0.525), (372, 0.525), (640, 0.525), (2000, 0.525)])
    func scaleFormula(distance: Double, expected: Double) {
        #expect(close(carousel.scale(distance: distance), expected))
    }

    @Test func pitchIsCoverPlusSpacing() {
        #expect(carousel.pitch == 372)
    }

    @Test func coverPlacementCentresEachCoverAtItsOffset() {
        let c = carousel.placement(2, scroll: 1)
        #expect(c.x == 372)
        #expect(close(c.scale, 0.525))
        // The cover's centre (a = 181, l = 0) sits at x, its left edge 181 · scale before it.
        #expect(close(c.model.project(Vec3(181, 0, 0)), Vec3(372, 0, 0)))
        #expect(close(c.model.project(Vec3(0, 284, 0)), Vec3(372 - 181 * c.scale, 284 * c.scale, 0)))
    }

    // (position, velocity, rest): ceil moving forward, round at rest, floor moving back.
    @Test(arguments: [(1.3, 1.0, 2.0), (1.3, 0, 1), (1.3, -1, 1), (1.7, 1, 2), (1.7, 0, 2), (1.7, -1, 1),
                      (2.0, 1, 2), (4.2, 1, 4), (-0.3, -1, 0)])
    func snapping(position: Double, velocity: Double, rest: Double) {
        #expect(ShelfScroll.snap(position, velocity: velocity, count: 5) == rest)
    }

    @Test func fastDecelerationGlidesAboutATenthOfTheVelocity() {
        #expect(close(ShelfScroll.glide(velocity: 10), 0.9949916, 1e-6))
        // A flick of 10 covers/s from cover 1 glides to 1.995 and snaps up to 2 …
        #expect(ShelfScroll.rest(from: 1, velocity: 10, count: 9) == 2)
        // … one of 30 covers/s from 1 glides to 3.98 and lands on 4.
        #expect(ShelfScroll.rest(from: 1, velocity: 30, count: 9) == 4)
        #expect(ShelfScroll.rest(from: 1.2, velocity: 0, count: 9) == 1)
    }
}

@Suite struct WheelTests {
    let wheel = Wheel.reference(viewSize: view)

    @Test func anglePerItemIsAtanOfWidthOverRadius() {
        #expect(close(wheel.anglePerItem, 0.259979881867593, 1e-12))
    }

    @Test func scrollMapsLinearlyOntoTheBaseAngle() {
        #expect(wheel.baseAngle(scroll: 0) == 0)
        // The last of 10 covers is upright at the end of the scroll.
        #expect(close(wheel.baseAngle(scroll: 9) + 9 * wheel.anglePerItem, 0))
    }

    @Test func visibleAngleFromTheViewAndPivot() {
        // tan θ = 640 / (500 + 86.5 − 360)
        #expect(close(wheel.visibleAngle, 1.230645799323126, 1e-12))
    }

    @Test func cullingRangeDoesNotGrowWithTheLibrary() {
        #expect(wheel.visibleRange(scroll: 0, count: 100) == 0...5)
        #expect(wheel.visibleRange(scroll: 50, count: 100) == 45...55)
        #expect(wheel.visibleRange(scroll: 50, count: 100_000) == 45...55)
        #expect(wheel.visibleRange(scroll: 98, count: 100) == 93...99)
        #expect(wheel.visibleRange(scroll: 0, count: 0) == nil)
    }

    @Test func itemsTurnAboutThePivotBelowThem() {
        let size = Vec2(133, 173)
        let item = wheel.placement(3, scroll: 2, coverSize: size)
        let a = wheel.anglePerItem
        #expect(close(item.angle ?? 0, a))
        let pivot = Vec3(0, -(500 + 86.5), 0)
        // The centre of the cover stays R + h/2 from the pivot, swung right by the angle.
        let centre = item.model.project(Vec3(66.5, 0, 0))
        #expect(close(centre, pivot + Vec3(586.5 * sin(a), 586.5 * cos(a), 0)))
        // Draw order follows the angle: items further right are drawn later.
        #expect(wheel.placement(4, scroll: 2, coverSize: size).z > item.z)
    }
}

/// The covers on their way between the carousel and the wheel (`ShelfBlend`).
@Suite struct ShelfBlendTests {
    let blend = ShelfBlend(viewSize: Vec2(1280, 720))
    /// Covers of the reference size and of other shapes, which each shelf fits differently.
    let covers = [Vec2(320, 480), Vec2(400, 400), Vec2(300, 560), Vec2(320, 480), Vec2(500, 300), Vec2(320, 480), Vec2(320, 480)]

    /// A cover's four corners in the world.
    func corners(_ p: CoverPlacement) -> [Vec3] {
        let size = covers[p.index]
        return [(0.0, -0.5), (0, 0.5), (1, -0.5), (1, 0.5)].map { p.model.project(Vec3($0 * size.x, $1 * size.y, 0)) }
    }

    @Test(arguments: [0.0, 1.7, 3])
    func theEndsAreEachShelfsOwn(scroll: Double) {
        let c = Carousel(viewWidth: 1280), w = Wheel.covers(viewSize: Vec2(1280, 720))
        #expect(blend.placements(scroll: scroll, wheel: 0, covers: covers)
            == c.visibleRange(scroll: scroll, count: covers.count)!.map { c.placement($0, scroll: scroll, size: covers[$0]) })
        #expect(blend.placements(scroll: scroll, wheel: 1, covers: covers)
            == w.visibleRange(scroll: scroll, count: covers.count)!.map { w.placement($0, scroll: scroll, coverSize: covers[$0]) })
    }

    /// In 50 steps each corner of each cover moves a little, and near the ends the covers are
    /// where the shelf's own put them (the in-between draws the covers either shelf shows).
    @Test(arguments: [0.0, 1.7, 3])
    func coversMoveContinuouslyAndUnsheared(scroll: Double) throws {
        var last: [Int: [Vec3]] = [:]
        for k in 0...50 {
            let amount = Double(k) / 50
            let now = blend.placements(scroll: scroll, wheel: amount, covers: covers)
            for p in now {
                let x = p.model.transformDirection(Vec3(1, 0, 0)), y = p.model.transformDirection(Vec3(0, 1, 0))
                #expect(abs(dot(x, y)) < 1e-9 && abs(length(x) - length(y)) < 1e-9, "cover \(p.index) sheared at \(amount)")
                if let before = last[p.index] {
                    let step = zip(before, corners(p)).map { length($1 - $0) }.max()!
                    #expect(step < 30, "cover \(p.index) jumps \(step) at \(amount)")
                }
            }
            // Every cover drawn on the way is drawn at the next step too, but at the wheel's end.
            if k > 0 && k < 50 { #expect(Set(now.map(\.index)).isSuperset(of: last.keys), "a cover vanished at \(amount)") }
            last = Dictionary(uniqueKeysWithValues: now.map { ($0.index, corners($0)) })
        }
        let nearlyWheel = blend.placements(scroll: scroll, wheel: 1 - 1e-9, covers: covers)
        for p in blend.placements(scroll: scroll, wheel: 1, covers: covers) {
            let q = try #require(nearlyWheel.first { $0.index == p.index })
            #expect(zip(corners(p), corners(q)).allSatisfy { length($1 - $0) < 1e-6 })
        }
    }
}
