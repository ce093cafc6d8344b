import FolioApp
import FolioBook
import FolioLayout
import FolioMath
import FolioRender
import Foundation
import Testing

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

