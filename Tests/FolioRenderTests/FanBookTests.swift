import FolioBook
import FolioLayout
import FolioMath
import FolioRender
import FolioScript
import Testing

/// The fan as a book fanned open: its cover boards stand at the two ends of the fan, with the
/// sheets they close, their cloth showing round the endpapers.
@Suite(.serialized) struct FanBookTests {
    static let width = 1280, height = 720

    /// The fan of the first bundled book (a red cloth cover) with `page` shown, and its picture.
    static func fan(page: Int) throws -> (scene: Scene, image: RGBAImage) {
        let scene = try RenderModeTests.still { $0.book = 0; $0.layout = .fan; $0.page = page }
        return (scene, try GLHarness.shared.render(scene, width: width, height: height, library: RenderModeTests.library))
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
        let (scene, img) = try Self.fan(page: book.imageCount)
        let endpaper = try #require(scene.items.first { $0.kind == .page && $0.page == 2 * book.sheetCount && $0.visible })
        let at = Self.headOverhang(of: endpaper, in: scene)
        #expect(Self.isCloth(img.pixel(at.x, at.y)), "the back board's cloth at \(at): \(img.pixel(at.x, at.y))")
        let x = at.x + (at.x < Self.width / 2 ? 10 : -10)
        #expect(img.luma(x, at.y + 10) > 150, "the endpaper inside it: \(img.luma(x, at.y + 10))")
    }
}
