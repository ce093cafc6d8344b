import FolioImage
import FolioLayout
import FolioMath
import FolioScript
@testable import FolioRender
import Testing

/// A fanned page lies flat, squeezed on screen as it stands up: it takes one texture tap whose
/// level of detail is biased for its squeeze (page.frag's BIASED). Its type must still read as
/// a supersampled frame does, and the bias must follow the page's place continuously, so no
/// frame sharpens or softens a page at once.
@Suite(.serialized) struct FanTapTests {
    static func fan(_ spread: Double) throws -> Scene {
        try ContinuityTests.still { $0.layout = .fan; $0.spread = spread }
    }

    /// RMS of luma against `reference` (3× the size, box-filtered) over the pixels of paper in
    /// columns `xs`.
    static func error(_ img: RGBAImage, against reference: RGBAImage, xs: Range<Int>) -> Double {
        var sum = 0.0, n = 0
        for y in 0..<img.height {
            for x in xs {
                let l = img.luma(x, y)
                guard l > 150 else { continue }
                let r = reference.meanLuma(x: 3 * x, y: 3 * y, width: 3, height: 3)
                sum += (l - r) * (l - r)
                n += 1
            }
        }
        return (sum / Double(max(n, 1))).squareRoot()
    }

    /// `scene` drawn at `width` × `height` with the biased tap and with the plain one: each one's
    /// RMS against the frame drawn three times larger (`error`, over columns `xs`).
    static func errors(_ scene: Scene, width: Int, height: Int, xs: Range<Int>) throws -> (biased: Double, plain: Double) {
        let library = ContinuityTests.library
        let reference = try GLHarness.shared.render(scene, width: 3 * width, height: 3 * height, library: library)
        let biased = try GLHarness.shared.render(scene, width: width, height: height, library: library)
        let plain = try GLHarness.shared.render(scene, width: width, height: height, library: library) { $0.biasedTaps = false }
        return (error(biased, against: reference, xs: xs), error(plain, against: reference, xs: xs))
    }

    /// At a spread where a page stands half up (1280×720), the biased tap is nearer the supersampled frame
    /// than one plain tap (the tap's level then follows the longer axis, blurring the type).
    @Test func biasedTapReadsAsTheSupersampledFrame() throws {
        // The two pages standing up right of the spine.
        let (b, p) = try Self.errors(try Self.fan(2.2), width: 1280, height: 720, xs: 640..<860)
        #expect(b < 0.85 * p, "RMS against the supersampled frame: biased \(b), plain \(p)")
    }

    /// The bias lies between −1 and 0, is about 0 on a page seen square and −1 on one seen
    /// edge-on, and changes little between spreads 0.02 apart.
    @Test func theBiasFollowsThePageContinuously() throws {
        var last: [LayoutPage: Double] = [:]
        var lowest = 0.0
        try GLHarness.shared.run { pipeline in
            pipeline.replaceLibrary(ContinuityTests.library)
            guard pipeline.resizeTarget(width: 160, height: 90, samples: 0) else { throw GLFailure(errors: ["no target"]) }
            for spread in stride(from: 1.0, through: 3.0, by: 0.02) {
                let scene = try Self.fan(spread)
                pipeline.draw(scene)
                for item in scene.items where item.visible && item.ratio != nil && item.kind == .page && item.deformation == .flat {
                    let bias = pipeline.renderer.tapBias(item, texels: 2 * item.size)
                    #expect(bias >= -1 && bias <= 1e-9, "spread \(spread), page \(item.page): \(bias)")
                    if let before = last[item.page] {
                        #expect(abs(bias - before) < 0.15, "spread \(spread), page \(item.page): \(before) → \(bias)")
                    }
                    last[item.page] = bias
                    lowest = min(lowest, bias)
                }
            }
            // The flat layout's pages, seen square.
            let open = try ContinuityTests.still { $0.page = 7 }
            pipeline.draw(open)
            let pages = open.items.filter { $0.visible && $0.kind == .page }
            #expect(!pages.isEmpty)
            for item in pages {
                #expect(pipeline.renderer.tapBias(item, texels: 2 * item.size) > -0.05, "page \(item.page) lying open")
            }
        }
        #expect(lowest < -0.99, "no page seen edge-on: \(lowest)")
    }
}

/// A turning sheet takes the same biased tap: a rigid one biased per face as a fanned page is,
/// a curl's bent part and a cone per vertex (page.vert's `bentTapBias`), where the squeeze
/// varies over the face. Each must read nearer a supersampled frame than one plain tap does.
@Suite(.serialized) struct SheetTapTests {
    /// Sheets seen steeply at 1280×720, and the columns they cover there.
    @Test(arguments: [(TurnDeform.rigid, 0.3, 660..<860), (.curl, 0.35, 680..<940), (.cone, 0.35, 660..<820)])
    func biasedTapReadsAsTheSupersampledFrame(_ deform: TurnDeform, turn: Double, xs: Range<Int>) throws {
        // A curl held by the fore edge's middle: a straight fold, its bent part over these columns.
        let scene = try ContinuityTests.still { $0.page = 10; $0.turn = turn; $0.deform = deform; if deform == .curl { $0.grab = Vec2(1, 0) } }
        let (b, p) = try FanTapTests.errors(scene, width: 1280, height: 720, xs: xs)
        #expect(b < 0.9 * p, "\(deform) at \(turn), RMS against the supersampled frame: biased \(b), plain \(p)")
    }
}
