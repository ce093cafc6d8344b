import FolioApp
import FolioBook
import FolioLayout
import FolioMath
import FolioRender
import Foundation
import Testing

/// A flat spread with the right-hand sheet turning: `deformation` bends it, `angle` turns it
/// about the spine (0 flat on the right, π flat on the left).
func turningSpread(_ deformation: Deformation, angle: Double = 0, shade: Shade = .none) -> Scene {
    var scene = flatSpread(spread: 1)
    let size = Vec2(362, 568)
    // The page beneath (revealed) and the sheet on top of it.
    let beneath = SceneItem(kind: .page, book: 0, page: 6, size: size, model: .identity, front: .page(0, 6),
                            shade: Shade(reveal: shade.reveal, cast: 1.0 / 3, gutter: 0.35), shadowCaster: 2)
    scene.items[0].shade = Shade(facing: shade.facing, cast: 1.0 / 3, gutter: 0.35)
    scene.items[0].shadowCaster = 2
    let sheet = SceneItem(kind: .sheet, book: 0, page: 4, size: size, model: .rotationY(-angle), deformation: deformation,
                          front: .page(0, 4), back: .page(0, 5), shade: Shade(self: shade.`self`, crease: shade.crease), z: 10)
    scene.items[1] = beneath
    scene.items.append(sheet)
    return scene
}

@Suite(.serialized) struct CachedLayerTests {
    let library = Library.load(from: GLHarness.textures)

    /// Frames drawn from the cached static layer, redrawing only dirty rectangles, equal full
    /// redraws of the same states — across a turn, a page change and a new target.
    @Test func cachedFramesMatchFullRedraws() throws {
        let books = library.bookInfos
        func turn(_ t: Double, page: Int = 7) throws -> Scene {
            var s = StillState()
            s.book = 0; s.page = page; s.turn = t; s.deform = .curl
            return try s.scene(library: books)
        }
        let sequence = try [turn(0.1), turn(0.35), turn(0.6), turn(0.2, page: 9), turn(0.85, page: 9)]
        try GLHarness.shared.run { renderer in
            let textures = TextureStore { PageImages.path(for: $0, in: library).flatMap { try? PNG.read(path: $0) } }
            defer { textures.destroy() }
            let cached = try Framebuffer(width: 320, height: 180)
            defer { cached.destroy() }
            for (i, scene) in sequence.enumerated() {
                renderer.settings.cacheStaticLayer = true
                renderer.draw(scene, into: cached, textures: textures)
                let a = cached.readPixels()
                renderer.settings.cacheStaticLayer = false
                let fresh = try Framebuffer(width: 320, height: 180)
                defer { fresh.destroy() }
                renderer.draw(scene, into: fresh, textures: textures)
                let b = fresh.readPixels()
                let r = try #require(ImageAssert.compare(a, b, channelTolerance: 2))
                // Only the one-pixel antialiased rims of shaded pages may differ: the overlay darkens
                // the whole rim pixel, the inline shade only the page's share of it.
                #expect(r.fraction < 0.01, "frame \(i): \(r.failingPixels) pixels differ (max \(r.maxDelta))")
            }
            #expect(renderer.cacheHits >= 3)
            let dirty = try #require(renderer.lastDirtyRect)
            #expect(dirty.area < 320 * 180, "the last frame redrew only part of the target")
        }
    }
}

func debugWrite(_ img: RGBAImage, _ name: String) {
    guard let dir = ProcessInfo.processInfo.environment["FOLIO_DEBUG_OUT"] else { return }
    try? PNG.write(img, to: "\(dir)/\(name).png")
}

func normalize2(_ v: Vec2) -> Vec2 { v / (v * v).sum().squareRoot() }
