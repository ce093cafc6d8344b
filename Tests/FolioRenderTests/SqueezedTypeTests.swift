import FolioImage
import FolioLayout
import FolioRender
import Testing

/// A page squeezed as the book spins between orientations (`style vertical`) reads nearer the
/// same frame drawn three times larger and averaged down than with one plain tap: like a
/// turning sheet's, its tap is biased towards the squeeze's sharper axis (page.frag's BIASED).
/// The plain tap's level follows the squeezed axis, and the type along the other went to a
/// blur of blocks (960×540: "LONDON MACMILLAN AND CO. 1865" as "1 1886 dark"). RMS over the
/// paper, biased against plain: 6.8 and 12.2 at 0.35 of the way, 12.5 and 16.6 at 0.65, 8.1
/// and 14.6 at 0.8 (at 0.7, 12.2 and 12.4).
@Suite(.serialized) struct SqueezedTypeTests {
    @Test(arguments: [0.35, 0.65, 0.8])
    func aSpinningPagesTypeReadsAsTheSupersampledFrame(_ vertical: Double) throws {
        var v = ViewState(phase: .reading, book: 0, layout: .flat, spread: 5)
        v.blend = StyleBlend(viewpoint: v.viewpoint.height, reversal: 0, fan: 0, vertical: vertical)
        let scene = makeScene(v, books: ContinuityTests.library.bookInfos)
        let (b, p) = try FanTapTests.errors(scene, width: 960, height: 540, xs: 0..<960)
        #expect(b < 0.85 * p, "vertical \(vertical), RMS against the supersampled frame: biased \(b), plain \(p)")
    }
}
