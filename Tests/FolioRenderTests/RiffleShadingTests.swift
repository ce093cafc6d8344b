import FolioImage
import FolioLayout
import FolioMath
import Testing

/// A jump riffles several sheets at once (`BookFaces.flatTurn`): every sheet in the air shades
/// what lies beneath it, the page it leaves and the sheet landed before it, not only the first
/// to leave.
@Suite(.serialized) struct RiffleShadingTests {
    static let book = BookInfo(title: "Test", imageCount: 400)
    static let width = 640, height = 360

    /// A jump from spread 10 to 110 at progress `p`: five sheets, up to four in the air.
    static func scene(_ p: Double, deform: TurnDeform) -> Scene {
        makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: 10,
                            turn: TurnState(from: 10, to: 110, progress: p), deform: deform), books: [book])
    }

    /// The same frame with the pages beneath at rest: no shadow, no darkening; with `sheets`
    /// false the sheets in the air are gone too.
    static func unshaded(_ scene: Scene, sheets: Bool) -> Scene {
        var s = scene
        s.items = s.items.map { item in
            var i = item
            if i.kind == .sheet { i.visible = sheets }
            if i.shadowCaster != nil {
                i.shadowCaster = nil
                i.shade = Shade(crease: i.shade.crease, gutter: i.shade.gutter, showThrough: i.shade.showThrough,
                                showThroughBehind: i.shade.showThroughBehind)
            }
            return i
        }
        return s
    }

    /// The receivers name the sheet nearest them, and their darkening adds every sheet's.
    @Test func eachPageBeneathTakesTheSheetNearestIt() throws {
        let scene = Self.scene(0.5, deform: .rigid)
        let sheets = scene.items.indices.filter { scene.items[$0].kind == .sheet }
        #expect(sheets.count == 5)
        let revealed = try #require(scene.items.first { $0.kind == .page && $0.page.isFront })
        let facing = try #require(scene.items.first { $0.kind == .page && !$0.page.isFront })
        // Drawn last: the first to leave, nearest the facing page; drawn first: the last to leave.
        #expect(facing.shadowCaster == sheets.last && revealed.shadowCaster == sheets.first,
                "facing \(String(describing: facing.shadowCaster)), revealed \(String(describing: revealed.shadowCaster)), sheets \(sheets)")
        let alone = Self.scene(0.5 - 0.4, deform: .rigid).items.first { $0.kind == .page && $0.page.isFront }!
        #expect(revealed.shade.cast > alone.shade.cast, "five sheets in the air darken more than one")
    }

    /// Pixels of the page revealed that no sheet covers: darker with the sheets in the air than
    /// at rest, under the sheet that just left it (before, only the first sheet to leave cast,
    /// from over the other page, and the page beside the last one lay unshaded: 0 levels). The
    /// facing page, the sheet landed last, lies wholly under the next one by then.
    @Test(arguments: [TurnDeform.rigid, .curl])
    func theSheetJustLeftShadesThePageRevealed(_ deform: TurnDeform) throws {
        let scene = Self.scene(0.61, deform: deform)
        let imgs = try GLHarness.shared.frames([scene, Self.unshaded(scene, sheets: true), Self.unshaded(scene, sheets: false)],
                                               width: Self.width, height: Self.height)
        for page in scene.items.filter({ $0.kind == .page && $0.visible && $0.page.isFront }) {
            var darkest = 0.0
            for a in stride(from: 0.05, through: 0.95, by: 0.05) {
                for l in [-0.3, 0, 0.3] {
                    let at = scene.camera.projectToView(page.model.project(Vec3(a * page.size.x, l * page.size.y, 0)))
                    let x = Int((at.x / scene.camera.viewSize.x + 0.5) * Double(Self.width))
                    let y = Int((0.5 - at.y / scene.camera.viewSize.y) * Double(Self.height))
                    // Covered by a sheet: the sheets change it even unshaded.
                    guard imgs[1].luma(x, y) == imgs[2].luma(x, y) else { continue }
                    darkest = max(darkest, imgs[2].luma(x, y) - imgs[0].luma(x, y))
                }
            }
            #expect(darkest > 12, "\(deform): page \(page.page) darkened by at most \(darkest) levels where no sheet covers it")
        }
    }
}
