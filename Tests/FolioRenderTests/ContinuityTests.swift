import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioMath
import FolioReader
import FolioRender
import FolioScript
import Foundation
import Testing

/// Continuity in time: a turn recorded frame by frame changes a little each frame, never
/// jumps, and comes to rest gently; the shading at the spine is the resting gutter when a
/// turn starts and when it lands.
@Suite(.serialized) struct ContinuityTests {
    static let library = Library.load(from: GLHarness.textures)
    static let width = 320, height = 180

    static func still(_ configure: (inout StillState) -> Void) throws -> Scene {
        var s = StillState()
        s.book = 0
        configure(&s)
        return try s.scene(library: library.bookInfos)
    }

    static func render(_ scene: Scene) throws -> RGBAImage {
        try GLHarness.shared.render(scene, width: width, height: height, library: library)
    }

    /// Mean absolute difference of two frames' 8 × 8 block averages: blurred, so that a small
    /// shift of sharp type counts as a small change and the measure follows the motion.
    static func difference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        let block = 8
        var sum = 0.0, count = 0
        for y in stride(from: 0, to: a.height - block + 1, by: block) {
            for x in stride(from: 0, to: a.width - block + 1, by: block) {
                sum += abs(a.meanLuma(x: x, y: y, width: block, height: block) - b.meanLuma(x: x, y: y, width: block, height: block))
                count += 1
            }
        }
        return sum / Double(max(count, 1))
    }

    /// A scripted turn as `folio record` draws it: the spread at rest, the turn on the viewer's
    /// two-stage timing, the next spread at rest.
    static func frames(_ deform: TurnDeform, layout: BookLayout = .flat, count: Int = 24) throws -> [RGBAImage] {
        var scenes = [try still { $0.page = 7; $0.layout = layout }]
        for i in 1..<count {
            let p = TimingCurve.twoStage(Double(i) / Double(count))
            scenes.append(try still { $0.page = 7; $0.turn = p; $0.deform = deform; $0.layout = layout })
        }
        scenes.append(try still { $0.page = 9; $0.layout = layout })
        return try scenes.map(render)
    }

    /// No frame changes far more than both its neighbours (a jump), the page moves, and the
    /// first and last steps are small next to the largest (eased at both ends).
    static func expectSmooth(_ images: [RGBAImage], _ name: String) {
        let d = zip(images, images.dropFirst()).map { difference($0, $1) }
        let peak = d.max() ?? 0
        #expect(peak > 0.5, "\(name): the page hardly moves: \(d)")
        for i in d.indices {
            let neighbours = max(i > 0 ? d[i - 1] : 0, i + 1 < d.count ? d[i + 1] : 0)
            #expect(d[i] <= 2.5 * neighbours + 0.25, "\(name): frame \(i + 1) jumps (\(d[i]) against \(neighbours)): \(d)")
        }
        #expect(d.first! < 0.2 * peak && d.last! < 0.2 * peak, "\(name): the turn starts or stops dead: \(d)")
    }

    @Test(arguments: TurnDeform.allCases)
    func turnHasNoJumpAndLandsGently(_ deform: TurnDeform) throws {
        Self.expectSmooth(try Self.frames(deform), "\(deform)")
    }

    /// The fan's sheet in transit bends too, and as smoothly.
    @Test(arguments: [TurnDeform.rigid, .curl, .cone])
    func fanTurnHasNoJumpAndLandsGently(_ deform: TurnDeform) throws {
        Self.expectSmooth(try Self.frames(deform, layout: .fan), "fan \(deform)")
    }

    /// A style change while reading (`style fan`, `style vertical`) moves the book over half a
    /// second, drawn frame by frame at 30 frames a second as `folio record` does: no frame
    /// jumps, it eases in and out, and a frame halfway differs from both ends (it cut in one
    /// frame from the one to the other).
    @Test(arguments: [Action.toggleLayout, .toggleOrientation])
    func aStyleChangeHasNoJump(_ action: Action) throws {
        let c = BookController(library: Self.library.bookInfos)
        c.handle(.open, at: 0)
        c.go(to: 7, animated: false, at: 1)
        c.handle(action, at: 1)
        var images: [RGBAImage] = []
        for i in 0...16 {
            c.update(to: 1 + Double(i) / 30)
            images.append(try Self.render(c.scene()))
        }
        Self.expectSmooth(images, "\(action)")
        let (start, mid, end) = (images[0], images[8], images[16])
        #expect(Self.difference(mid, start) > 2 && Self.difference(mid, end) > 2,
                "\(action): halfway is one of the ends: \(Self.difference(mid, start)), \(Self.difference(mid, end))")
    }

    /// The right page's spine band at rest equals the sheet's when the turn has just started,
    /// and the left page's at rest on the next spread equals the landing sheet's: seen as
    /// usual, and close up from above, where the pages' curve into the gutter shows.
    @Test(arguments: TurnDeform.allCases, [false, true])
    func gutterIsContinuousAtStartAndLanding(_ deform: TurnDeform, closeUp: Bool) throws {
        let w = 640, h = 360
        func band(_ scene: Scene, x: Int) throws -> Double {
            try GLHarness.shared.render(scene, width: w, height: h, library: Self.library)
                .meanLuma(x: x, y: 120, width: 6, height: 120)
        }
        func view(_ s: inout StillState) {
            guard closeUp else { return }
            s.zoom = 3
            s.viewpoint = .above
        }
        let restA = try Self.still { $0.page = 7; view(&$0) }
        let startA = try Self.still { $0.page = 7; $0.turn = 0.002; $0.deform = deform; view(&$0) }
        let restB = try Self.still { $0.page = 9; view(&$0) }
        let landB = try Self.still { $0.page = 7; $0.turn = 0.998; $0.deform = deform; view(&$0) }
        let right = try band(restA, x: 322), started = try band(startA, x: 322)
        let left = try band(restB, x: 312), landed = try band(landB, x: 312)
        #expect(abs(right - started) < 2, "\(deform), close up \(closeUp): spine band at rest \(right), turn started \(started)")
        #expect(abs(left - landed) < 2, "\(deform), close up \(closeUp): spine band at rest \(left), turn landing \(landed)")
    }
}
