import FolioBook
import FolioImage
import FolioLayout
import FolioReader
import FolioRender
import FolioScript
import Testing

/// Type on a turning sheet is as sharp as its geometry allows, and that sharpness changes
/// continuously: no line across a tilted sheet with sharp type on one side and blurred type on
/// the other, no frame in which the sheet's type softens more than its motion explains.
@Suite(.serialized) struct SharpnessTests {
    /// Mean magnitude of the luma gradient (forward differences) over a rectangle: how sharp
    /// the type in it is.
    static func sharpness(_ img: RGBAImage, x: Int, y: Int, width: Int, height: Int) -> Double {
        var sum = 0.0
        for yy in y..<(y + height) {
            for xx in x..<(x + width) {
                let l = img.luma(xx, yy)
                sum += abs(img.luma(xx, yy + 1) - l)
            }
        }
        return sum / Double(width * height)
    }

    static func render(_ configure: (inout StillState) -> Void, width: Int, height: Int) throws -> RGBAImage {
        try GLHarness.shared.render(try ContinuityTests.still(configure), width: width, height: height, library: ContinuityTests.library)
    }

    /// A tilted sheet's type is as sharp on one side as on the other, next to what the GPU's
    /// anisotropic filtering makes of it: the steep taps' strength followed a threshold on
    /// the squeeze, and a straight line across the sheet parted sharp type from blurred
    /// (rigid 0.3: at x ≈ 1250; the cone at 0.6: two lines). Measured in strips across the
    /// sheet's text as the ratio of the sharpness drawn with the software filtering to the
    /// anisotropic one, so that what the strips hold cancels out.
    @Test(arguments: [(TurnDeform.rigid, 0.3, 1090, 1300), (.cone, 0.6, 600, 940)])
    func tiltedSheetIsEquallySharpAcrossIt(_ deform: TurnDeform, turn: Double, from: Int, to: Int) throws {
        let scene = try ContinuityTests.still { $0.page = 10; $0.turn = turn; $0.deform = deform }
        let strips = try TextureFiltering.allCases.map { f in
            let img = try GLHarness.shared.render(scene, width: 1920, height: 1080, library: ContinuityTests.library,
                                                  configuration: RenderConfiguration(samples: 0, filtering: f))
            return stride(from: from, to: to, by: 20).map { Self.sharpness(img, x: $0, y: 450, width: 20, height: 290) }
        }
        let ratio = zip(strips[0], strips[1]).map { $0 / $1 }
        #expect(ratio.max()! < 1.2 * ratio.min()!, "\(deform) at \(turn): sharpness against the anisotropic filtering's, strip by strip: \(ratio)")
    }
}
