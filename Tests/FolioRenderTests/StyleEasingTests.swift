import FolioLayout
import FolioMath
import Foundation
import Testing

/// A change of style (the viewpoint, the fan, the calendar spin) starts and ends at rest, as the
/// turns do: measured on the screen, where a corner of the open book goes frame by frame as
/// `folio record` plays the script.
struct StyleEasingTests {
    /// How far the open book's right page's outer corners move on screen in each frame of
    /// `script` (pixels of a 1280 × 720 frame), the largest of its corners.
    static func steps(_ script: String) throws -> [Double] {
        let track = try RecordedTurnTests.scenes(script).map { scene -> [Vec2] in
            let screen = RecordedTurnTests.Screen(camera: scene.camera.fitted(width: 1280, height: 720), width: 1280, height: 720)
            guard let page = scene.items.last(where: { $0.kind == .page && $0.visible }) else { return [] }
            return [screen.point(page, 1, -0.5), screen.point(page, 1, 0.5)]
        }
        return zip(track, track.dropFirst()).map { a, b in
            zip(a, b).map { p, q in ((q - p) * (q - p)).sum().squareRoot() }.max() ?? 0
        }
    }

    /// The steps of the last motion of `steps`: from the frame it starts moving to the one it stops.
    static func lastMotion(_ steps: [Double]) throws -> [Double] {
        let end = try #require(steps.lastIndex { $0 > 0.01 })
        let start = (steps[...end].lastIndex { $0 <= 0.01 } ?? -1) + 1
        return Array(steps[start...end])
    }

    /// The viewpoint and the perspective move the book's scale (its turns kept in view) as well
    /// as its vanishing point: the scale too starts and ends at rest, no step growing or shrinking
    /// by more than a quarter of the peak's (an ease in and out over half a second at 30 frames
    /// a second changes by 18 % at most; the scale fitted anew each frame jumped to 39 %).
    @Test(arguments: ["style above", "style below", "style reverse"])
    func aStyleChangeStartsAndEndsAtRest(_ change: String) throws {
        let motion = try Self.lastMotion(Self.steps("open; wait 1; \(change); wait 1"))
        let peak = try #require(motion.max())
        #expect(motion.count >= 8, "\(motion)")
        let jumps = zip(motion, motion.dropFirst()).map { abs($1 - $0) / peak }
        #expect([motion.first!, motion.last!].allSatisfy { $0 <= 0.25 * peak } && jumps.allSatisfy { $0 <= 0.25 },
                "steps \(motion.map { ($0 * 100).rounded() / 100 }) px")
    }
}
