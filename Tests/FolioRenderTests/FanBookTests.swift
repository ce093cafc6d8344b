import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import FolioRender
import FolioScript
import Testing

/// The fan as a book fanned open: its cover boards close the two ends of the fan, with the
/// sheets they close, their cloth showing round the endpapers.
@Suite(.serialized) struct FanBookTests {
    static let width = 1280, height = 720

    /// The fan of the first bundled book (a red cloth cover) with `page` shown, and its picture.
    static func fan(page: LayoutPage) throws -> (scene: Scene, image: RGBAImage) {
        let scene = try RenderModeTests.still { $0.book = 0; $0.layout = .fan; $0.page = page }
        return (scene, try GLHarness.shared.render(scene, width: width, height: height, library: RenderModeTests.library))
    }

    /// The fan of a book of `images` page images at `page`, as book 0 (the first bundled book's
    /// red cloth on its boards), at `width` × `height`.
    static func fan(images: Int, page: LayoutPage, width: Int = width, height: Int = height) throws -> (scene: Scene, image: RGBAImage) {
        var s = StillState()
        s.book = 0; s.layout = .fan; s.page = page
        let scene = try s.scene(library: [BookInfo(title: "Test", imageCount: images)])
        return (scene, try GLHarness.shared.render(scene, width: width, height: height, library: RenderModeTests.library))
    }

    /// The pixel where a world point shows in a `width` × `height` picture of `scene`.
    static func pixel(_ p: Vec3, in scene: Scene, width: Int = width, height: Int = height) -> (x: Int, y: Int) {
        let at = scene.camera.projectToView(p)
        return (Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width)), Int((0.5 - at.y / scene.camera.viewSize.y) * Double(height)))
    }

    /// The pixel showing the corner of the overhang (head and fore edge) of the board that
    /// `endpaper` lies on, in its plane: the board stands with that sheet, nearer the eye than a
    /// board lying flat, so this corner shows above where a flat one's would.
    static func headOverhang(of endpaper: SceneItem, in scene: Scene) -> (x: Int, y: Int) {
        let grow = BookBoard.overhang(BookBoard.thickness)
        let local = Vec3(endpaper.size.x + grow / 2, endpaper.size.y / 2 + grow / 2, 0)
        let at = scene.camera.projectToView(endpaper.model.project(local))
        return (Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width)), Int((0.5 - at.y / scene.camera.viewSize.y) * Double(height)))
    }

    /// The cover's red cloth, lit: neither paper nor the desk.
    static func isCloth(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
        Int(p.r) > Int(p.g) + 40 && Int(p.r) > Int(p.b) + 30
    }

    /// Early in the book the front board stands with the cover's sheet at the fan's left end,
    /// its cloth framing the endpaper; before, it lay flat beneath the fan.
    @Test func theFrontBoardStandsAtTheFansLeftEnd() throws {
        let (scene, img) = try Self.fan(page: 4)
        let endpaper = try #require(scene.items.first { $0.kind == .page && $0.page == 1 && $0.visible })
        let at = Self.headOverhang(of: endpaper, in: scene)
        #expect(Self.isCloth(img.pixel(at.x, at.y)), "the front board's cloth at \(at): \(img.pixel(at.x, at.y))")
        let x = at.x + (at.x < Self.width / 2 ? 10 : -10)
        #expect(img.luma(x, at.y + 10) > 150, "the endpaper inside it: \(img.luma(x, at.y + 10))")
    }

    /// At the last spread the back board stands on the right as that spread's page would, its
    /// endpaper (paper) framed by its cloth.
    @Test func theBackBoardStandsAtTheLastSpread() throws {
        let book = RenderModeTests.library.bookInfos[0]
        let (scene, img) = try Self.fan(page: LayoutPage(book.imageCount))
        let endpaper = try #require(scene.items.first { $0.kind == .page && $0.page.index == 2 * book.sheetCount && $0.visible })
        let at = Self.headOverhang(of: endpaper, in: scene)
        #expect(Self.isCloth(img.pixel(at.x, at.y)), "the back board's cloth at \(at): \(img.pixel(at.x, at.y))")
        let x = at.x + (at.x < Self.width / 2 ? 10 : -10)
        #expect(img.luma(x, at.y + 10) > 150, "the endpaper inside it: \(img.luma(x, at.y + 10))")
    }

    /// The wedge: a fanned page is darker where the page hinged over it nearly touches it (next
    /// to the spine), and only there: the spread's right page (the left one stands over it at
    /// 90°) against the same picture without the wedge. Turned on before, it darkened the whole
    /// page; fanned pages were drawn without it.
    @Test func theWedgeDarkensOnlyNextToTheSpine() throws {
        let scene = try RenderModeTests.still { $0.book = 0; $0.layout = .fan; $0.page = 10 }
        var none = scene
        for i in none.items.indices { none.items[i].shade.wedge = 0 }
        let page = try #require(scene.items.first { $0.kind == .page && $0.visible && $0.ratio == 0.5 })
        #expect(page.shade.wedge > 1.5)
        let (a, b) = (try RenderModeTests.render(scene, width: Self.width, height: Self.height),
                      try RenderModeTests.render(none, width: Self.width, height: Self.height))
        func darkening(_ x: Double) -> Double {
            let at = Self.pixel(page.model.project(Vec3(x * page.size.x, 0, 0)), in: scene)
            return b.luma(at.x, at.y) - a.luma(at.x, at.y)
        }
        #expect(darkening(0.015) > 8, "next to the spine: \(darkening(0.015))")
        #expect(abs(darkening(0.3)) < 1 && abs(darkening(0.6)) < 1, "across the page: \(darkening(0.3)), \(darkening(0.6))")
    }

    /// The fan rising out of the flat layout (`style fan`) draws nearly the same picture a hair
    /// apart in its rise, at its middle too: the wedges between its sheets and the flare of the
    /// blocks lying open fade with the rise (`Fan.shading`). They switched at half rise: the
    /// wedges darkened every fanned face next to the spine, the blocks' fore edges stood up.
    /// Where the shading starts (a quarter of the rise) the wedges came in at full strength: the
    /// layer of pages at rest (`Shade.atRest`) left out how strong they were.
    @Test func theFansShadingFadesAsItRises() throws {
        var s = StillState()
        s.book = 0; s.page = 10
        var v = try s.resolve(library: RenderModeTests.library.bookInfos)
        func picture(_ rise: Double) throws -> RGBAImage {
            v.blend = StyleBlend(viewpoint: v.viewpoint.height, reversal: 0, fan: rise, vertical: 0)
            return try RenderModeTests.render(makeScene(v, books: RenderModeTests.library.bookInfos), width: 640, height: 360)
        }
        for rise in [0.25, 0.3, 0.5, 0.7, 0.75] {
            let (a, b) = (try picture(rise - 1e-5), try picture(rise + 1e-5))
            let r = try #require(ImageAssert.compare(a, b, channelTolerance: 12))
            #expect(r.failingPixels < 40, "rise \(rise): \(r.failingPixels) pixels differ by more than 12 levels (max \(r.maxDelta))")
        }
    }

    /// A turn in the fan sets off and lands without a step: a hair either side of a spread,
    /// the picture is nearly the same. Every sheet stood still through a turn and moved half a
    /// sheet's thickness as it set off and again as it landed (`Fan.hinge`): 26,205 pixels of a
    /// 1280×720 frame changed by more than 12 levels as a turn landed.
    @Test func aTurnInTheFanSetsOffAndLandsWithoutAStep() throws {
        func picture(_ spread: Double) throws -> RGBAImage {
            try RenderModeTests.render(RenderModeTests.still { $0.book = 0; $0.layout = .fan; $0.spread = spread }, width: Self.width, height: Self.height)
        }
        let rest = try picture(2)
        for near in [2 - 1e-5, 2 + 1e-5] {
            let r = try #require(ImageAssert.compare(rest, try picture(near), channelTolerance: 12))
            #expect(r.failingPixels < 40, "spread \(near): \(r.failingPixels) pixels differ by more than 12 levels (max \(r.maxDelta))")
        }
    }
}
