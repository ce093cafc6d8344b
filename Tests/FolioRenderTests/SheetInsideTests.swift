import FolioImage
import FolioLayout
import FolioMath
import FolioScript
@testable import FolioRender
import Testing

/// A lone turning sheet is drawn in two parts: its inside without page.frag's edge terms, then
/// the rim around it (`Renderer.insideInset`). The parts must meet without a crack and draw what
/// one pass over the whole sheet draws.
@Suite(.serialized) struct SheetInsideTests {
    /// Pixels of two frames whose luma differs by more than `levels`.
    static func differing(_ a: RGBAImage, _ b: RGBAImage, by levels: Double) -> Int {
        var n = 0
        for y in 0..<a.height {
            for x in 0..<a.width where abs(a.luma(x, y) - b.luma(x, y)) > levels { n += 1 }
        }
        return n
    }

    // Mid-turn a sheet standing nearly edge on can leave too little inside: it is drawn in one
    // pass. A corner drag is a curl grabbed at (0.95, −0.45), an edge drag one grabbed at (0.95,
    // 0): its flap lies over the front's head and tail, whose rims, drawn after the flap's inside
    // (`FramePlanner.moving`), must pass it by.
    @Test(arguments: [(TurnDeform.curl, 0.15), (.curl, 0.3), (.curl, 0.75), (.curl, 0.85), (.rigid, 0.1), (.rigid, 0.3),
                      (.rigid, 0.85), (.cone, 0.15), (.cone, 0.3), (.cone, 0.8)] + [(TurnDeform?.none, 0.3), (nil, 0.6), (nil, 0.55)])
    func theInsideAndTheRimDrawWhatOnePassDraws(deform: TurnDeform?, turn: Double) throws {
        // The edge drag at 0.55, the corner drags at the others.
        let edge = deform == nil && turn == 0.55
        let scene = try ContinuityTests.still {
            $0.page = 10
            $0.turn = turn
            $0.deform = deform ?? .curl
            if deform == nil { $0.grab = Vec2(0.95, edge ? 0 : -0.45) }
        }
        var apart = 0
        let two = try GLHarness.shared.frames([scene], width: 1280, height: 720, library: ContinuityTests.library,
                                              inspect: { apart = $0.facesDrawnApart })[0]
        let one = try GLHarness.shared.render(scene, width: 1280, height: 720, library: ContinuityTests.library) {
            $0.sheetInsideApart = false
        }
        let name = deform.map { "\($0)" } ?? (edge ? "edge" : "corner")
        #expect(apart > 0, "the \(name) at \(turn) was drawn in one pass")
        // A crack between the parts would show the page beneath along a line hundreds of pixels
        // long; what differs is type whose texture level a slightly different interpolation of
        // the tap's bias flips (up to 28 pixels on a steep curl, 141 along the crest of a
        // corner folded along a diagonal, whose type the crest crosses at a slant).
        let far = Self.differing(two, one, by: 24)
        #expect(far <= 160, "\(name) at \(turn): \(far) pixels differ by more than 24 levels")
    }

    /// A sheet whose image lets light through (a PNG page with transparency) is not drawn ahead
    /// of the darkening beneath it (`FramePlanner.moving`): the page beneath shows through it
    /// darkened, as when the sheet is drawn in one pass after the darkening.
    @Test func aTranslucentSheetIsDrawnOverThePageAsDarkened() throws {
        let scene = try ContinuityTests.still { $0.page = 10; $0.turn = 0.3; $0.deform = .curl }
        let sheet = try #require(scene.items.first { $0.kind == .sheet })
        let image = RGBAImage(width: 64, height: 100, fill: (250, 245, 235, 128))
        var apart = 0
        let frames = try GLHarness.shared.run { p -> [RGBAImage] in
            let target = try Framebuffer(width: 640, height: 360)
            defer { target.destroy() }
            return [true, false].map { twoParts in
                let textures = TextureStore()
                defer { textures.destroy() }
                for key in ([sheet.front] + (sheet.back.map { [$0] } ?? [])).compactMap(\.key) { textures.upload(image, for: key) }
                p.renderer.settings.sheetInsideApart = twoParts
                p.renderer.draw(scene, into: target, textures: textures)
                if twoParts { apart = p.renderer.facesDrawnApart }
                return target.readPixels()
            }
        }
        #expect(apart > 0, "the sheet was drawn in one pass")
        let far = Self.differing(frames[0], frames[1], by: 4)
        #expect(far <= 40, "\(far) pixels differ by more than 4 levels from the sheet drawn in one pass")
    }

    /// In every configuration users have (MSAA 0 and 4, software and GPU texture filtering)
    /// the two parts draw what one pass does.
    @Test(arguments: RenderConfiguration.matrix)
    func theTwoPartsMatchOnePassInEveryConfiguration(_ configuration: RenderConfiguration) throws {
        for deform in TurnDeform.allCases {
            let scene = try ContinuityTests.still { $0.page = 10; $0.turn = 0.3; $0.deform = deform }
            var apart = 0
            let two = try GLHarness.shared.frames([scene], width: 640, height: 360, library: ContinuityTests.library,
                                                  configuration: configuration, inspect: { apart = $0.facesDrawnApart })[0]
            let one = try GLHarness.shared.render(scene, width: 640, height: 360, library: ContinuityTests.library,
                                                  configuration: configuration) { $0.sheetInsideApart = false }
            #expect(apart > 0, "\(deform), \(configuration): drawn in one pass")
            let far = Self.differing(two, one, by: 24)
            // As at 1280×720: type whose level flips along a corner fold's crest (up to 55 pixels
            // with the GPU's filtering, which takes its level from a 2 × 2 block's derivatives).
            #expect(far <= 60, "\(deform), \(configuration): \(far) pixels differ by more than 24 levels")
        }
    }

    /// No pinholes on a curl folded along a diagonal from the corner, alone over the backdrop, at
    /// 1080p, MSAA 0 and 4: no pixel of the sheet's paper far darker than all eight around it
    /// (where the fold crossed the gutter's curve, 7–18 such pixels showed the backdrop through).
    @Test(arguments: [0.2, 0.3, 0.4], [0, 4])
    func aCornersFoldHasNoPinholes(turn: Double, samples: Int) throws {
        var scene = try ContinuityTests.still { $0.page = 10; $0.turn = turn; $0.deform = .curl }
        scene.items = scene.items.filter { $0.kind == .sheet }
        let img = try GLHarness.shared.render(scene, width: 1920, height: 1080, library: ContinuityTests.library,
                                              configuration: RenderConfiguration(samples: samples, filtering: .software))
        var holes: [String] = []
        for y in 1..<(img.height - 1) {
            for x in 1..<(img.width - 1) {
                var around = 255.0
                for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                    around = min(around, img.luma(x + dx, y + dy))
                }
                if around > 180, img.luma(x, y) < around - 60 { holes.append("(\(x), \(y)): \(Int(img.luma(x, y)))") }
            }
        }
        #expect(holes.isEmpty, "turn \(turn), MSAA \(samples): \(holes.count) pinholes \(holes.prefix(6))")
    }

    /// The inside keeps clear of the edge terms' reach, a few pixels, at any size: in layout
    /// units four times as far in at a quarter of the size.
    @Test func theInsetIsAFewPixelsAtAnySize() throws {
        let scene = try ContinuityTests.still { $0.page = 10; $0.turn = 0.2; $0.deform = .curl }
        func inset(width: Int, height: Int) throws -> Vec2 {
            var inset: Vec2?
            _ = try GLHarness.shared.frames([scene], width: width, height: height, library: ContinuityTests.library, inspect: { renderer in
                inset = scene.items.first { $0.kind == .sheet }.flatMap(renderer.insideInset)
            })
            return try #require(inset)
        }
        let large = try inset(width: 1280, height: 720), small = try inset(width: 320, height: 180)
        // At 1280×720 a layout unit is about a pixel.
        #expect(large.x > 4 && large.x < 40 && large.y > 4 && large.y < 40, "inset \(large) at 1280×720")
        let ratio = small / large
        #expect(ratio.x > 3.5 && ratio.x < 4.5 && ratio.y > 3.5 && ratio.y < 4.5, "inset \(small) at 320×180, \(large) at 1280×720")
    }
}
