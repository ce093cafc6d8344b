import FolioImage
import FolioLayout
import FolioMath
import FolioScript
@testable import FolioRender
import Testing

/// A lone curl is drawn in two parts: its inside without page.frag's edge terms, then the rim
/// around it (`Renderer.insideInset`). The parts must meet without a crack and draw what one
/// pass over the whole sheet draws.
@Suite(.serialized) struct CurlInsideTests {
    /// Pixels of two frames whose luma differs by more than `levels`.
    static func differing(_ a: RGBAImage, _ b: RGBAImage, by levels: Double) -> Int {
        var n = 0
        for y in 0..<a.height {
            for x in 0..<a.width where abs(a.luma(x, y) - b.luma(x, y)) > levels { n += 1 }
        }
        return n
    }

    // Mid-turn a sheet standing nearly edge on can leave too little inside: it is drawn in one pass.
    @Test(arguments: [(0.15, false), (0.35, false), (0.75, false), (0.85, false), (0.35, true), (0.6, true)])
    func theInsideAndTheRimDrawWhatOnePassDraws(turn: Double, corner: Bool) throws {
        let scene = try ContinuityTests.still {
            $0.page = 10
            $0.turn = turn
            $0.deform = .curl
            if corner { $0.grab = Vec2(0.95, -0.45) }
        }
        var apart = 0
        let two = try GLHarness.shared.frames([scene], width: 1280, height: 720, library: ContinuityTests.library,
                                              inspect: { apart = $0.facesDrawnApart })[0]
        let one = try GLHarness.shared.render(scene, width: 1280, height: 720, library: ContinuityTests.library) {
            $0.curlInsideApart = false
        }
        #expect(apart > 0, "the curl at \(turn) was drawn in one pass")
        // A crack between the parts would show the page beneath along a line hundreds of pixels
        // long; what differs is type whose texture level a slightly different interpolation flips.
        let far = Self.differing(two, one, by: 24)
        #expect(far <= 8, "turn \(turn), corner \(corner): \(far) pixels differ by more than 24 levels")
    }

    /// The inside keeps clear of the edge terms' reach and still covers most of the sheet.
    @Test func theInsetIsAFewPixels() throws {
        let scene = try ContinuityTests.still { $0.page = 10; $0.turn = 0.35; $0.deform = .curl }
        var inset: Double?
        _ = try GLHarness.shared.frames([scene], width: 1280, height: 720, library: ContinuityTests.library, inspect: { renderer in
            inset = scene.items.first { $0.kind == .sheet }.flatMap(renderer.insideInset)
        })
        let value = try #require(inset)
        #expect(value > 4 && value < 40, "inset \(value) layout units (about a pixel each at 1280×720)")
    }
}
