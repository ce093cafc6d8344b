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
        var hits = 0, dirty: PixelRect?
        let hitsBefore = try GLHarness.shared.run { $0.renderer.cacheHits }
        let cached = try GLHarness.shared.frames(sequence, width: 320, height: 180, library: library,
                                                 configure: { $0.cacheStaticLayer = true },
                                                 inspect: { hits = $0.cacheHits - hitsBefore; dirty = $0.lastDirtyRect })
        let full = try GLHarness.shared.frames(sequence, width: 320, height: 180, library: library) { $0.cacheStaticLayer = false }
        for i in sequence.indices {
            let r = try #require(ImageAssert.compare(cached[i], full[i], channelTolerance: 2))
            // Only the one-pixel antialiased rims of shaded pages may differ: the overlay darkens
            // the whole rim pixel, the inline shade only the page's share of it.
            #expect(r.fraction < 0.01, "frame \(i): \(r.failingPixels) pixels differ (max \(r.maxDelta))")
        }
        #expect(hits >= 3)
        let rect = try #require(dirty)
        #expect(rect.area < 320 * 180, "the last frame redrew only part of the target")
    }
}

