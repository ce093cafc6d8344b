import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioMath
import FolioReader
@testable import FolioRender
import FolioScript
import Foundation
import Testing

@Suite(.serialized) struct CachedLayerTests {
    let library = Library.load(from: GLHarness.textures)

    /// Frames drawn from the cached static layer, redrawing only dirty rectangles, equal full
    /// redraws of the same states — across a turn, a page change and a new target.
    @Test func cachedFramesMatchFullRedraws() throws {
        let books = library.bookInfos
        func turn(_ t: Double, page: LayoutPage = 7) throws -> Scene {
            var s = StillState()
            s.book = 0; s.page = page; s.turn = t; s.deform = .curl
            return try s.scene(library: books)
        }
        let sequence = try [turn(0.1), turn(0.35), turn(0.6), turn(0.2, page: 9), turn(0.85, page: 9)]
        var hits = 0, hitsBefore = 0, dirty: PixelRect?
        let cached = try GLHarness.shared.frames(sequence, width: 320, height: 180, library: library,
                                                 configure: { $0.cacheStaticLayer = true }, start: { hitsBefore = $0.cacheHits },
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

    /// Frames from the layer do not clear the stencil: each marks its cast shadow's pixels and
    /// its sheet's insides with values of its own, above every earlier one, and the stencil is
    /// cleared when the values run out (every 85 frames). Over three such runs, every
    /// cast shadow and darkening is whole (a value left by an earlier frame would leave out the
    /// pixels it marked), as in a full redraw.
    @Test func everyFramesCastShadowIsWholePastTheStencilsValues() throws {
        let books = library.bookInfos
        func turn(_ t: Double) throws -> Scene {
            var s = StillState()
            s.book = 0; s.page = 7; s.turn = t; s.deform = .curl
            return try s.scene(library: books)
        }
        let pair = [try turn(0.3), try turn(0.33)]
        let sequence = (0..<258).map { pair[$0 % 2] }
        var apart = 0
        let cached = try GLHarness.shared.frames(sequence, width: 640, height: 360, library: library,
                                                 configure: { $0.cacheStaticLayer = true }, inspect: { apart = $0.facesDrawnApart })
        let full = try GLHarness.shared.frames(pair, width: 640, height: 360, library: library) { $0.cacheStaticLayer = false }
        #expect(apart > 0, "the sheet's insides are drawn apart, ahead of the darkening")
        let shadowed = try #require(ImageAssert.compare(full[0], full[1], channelTolerance: 2))
        #expect(shadowed.failingPixels > 100, "the two turns differ (their sheets and shadows move)")
        for i in [1, 2, 3, 84, 85, 86, 169, 170, 171, 254, 255, 256, 257] {
            let r = try #require(ImageAssert.compare(cached[i], full[i % 2], channelTolerance: 2))
            #expect(r.failingPixels == 0, "frame \(i): \(r.failingPixels) pixels differ from a full redraw (max \(r.maxDelta))")
        }
    }

    /// The cached layer is drawn again when a face it shows gets a new image, never when a
    /// face elsewhere does (the viewer uploads prefetched pages during turns).
    @Test func onlyNewImagesOfFacesInTheLayerRedrawIt() throws {
        let books = library.bookInfos
        func turn(_ t: Double) throws -> Scene {
            var s = StillState()
            s.book = 0; s.page = 7; s.turn = t
            return try s.scene(library: books)
        }
        let (first, second, third) = (try turn(0.3), try turn(0.4), try turn(0.5))
        let shown = try #require(second.items.first { $0.kind == .page }?.front)
        try GLHarness.shared.run { p in
            let target = try Framebuffer(width: 160, height: 90)
            defer { target.destroy() }
            let textures = TextureStore()
            defer { textures.destroy() }
            p.renderer.settings.cacheStaticLayer = true
            let red = RGBAImage(width: 4, height: 4, fill: (255, 0, 0, 255))
            p.renderer.draw(first, into: target, textures: textures)
            let misses = p.renderer.cacheMisses
            textures.upload(red, for: try #require(FaceContent.page(0, 40).key))
            p.renderer.draw(second, into: target, textures: textures)
            #expect(p.renderer.cacheMisses == misses, "a face off screen got an image: the layer stays")
            textures.upload(red, for: try #require(shown.key))
            p.renderer.draw(third, into: target, textures: textures)
            #expect(p.renderer.cacheMisses == misses + 1, "a page in the layer got an image: it is drawn again")
        }
    }

    /// `sequence` drawn at 320 × 180 with the cached layers and without, and how many times the
    /// cached ones were used (`hits`) and drawn (`misses`) meanwhile.
    static func framesOverTheRoom(_ sequence: [Scene], samples: Int, library: Library) throws
        -> (cached: [RGBAImage], full: [RGBAImage], hits: Int, misses: Int) {
        let configuration = RenderConfiguration(samples: samples, filtering: .software)
        var hits = 0, misses = 0, before = (0, 0)
        let cached = try GLHarness.shared.frames(sequence, width: 320, height: 180, library: library, configuration: configuration,
                                                 configure: { $0.cacheStaticLayer = true },
                                                 start: { before = ($0.cacheHits, $0.cacheMisses) },
                                                 inspect: { hits = $0.cacheHits - before.0; misses = $0.cacheMisses - before.1 })
        let full = try GLHarness.shared.frames(sequence, width: 320, height: 180, library: library, configuration: configuration) {
            $0.cacheStaticLayer = false
        }
        return (cached, full, hits, misses)
    }

    /// The fan moves every page each frame but not its room (the backdrop, the blocks and
    /// boards lying flat): drawn once while the fan scrolls, with and without multisampling,
    /// and every frame over it equal to a full redraw.
    @Test(arguments: [0, 4])
    func theFanDrawsItsRoomOnce(samples: Int) throws {
        let books = library.bookInfos
        let sequence = try [2.1, 2.4, 2.7].map { spread -> Scene in
            var s = StillState()
            s.book = 0; s.layout = .fan; s.spread = spread
            return try s.scene(library: books)
        }
        let (cached, full, hits, misses) = try Self.framesOverTheRoom(sequence, samples: samples, library: library)
        // Drawn at most once (another test may have left the same room), restored in the rest.
        #expect(misses <= 1 && hits + misses == 3, "the room drawn \(misses) times, restored \(hits) times")
        for i in sequence.indices {
            let r = try #require(ImageAssert.compare(cached[i], full[i], channelTolerance: 2))
            // Multisampled, a standing board's edges are drawn single-sampled over the room,
            // smoothed by the fringe along its outline: only their pixels may differ, each
            // partly covered a little otherwise than by four samples. Without, a few pixels at
            // the head and tail next to the spine, where a page cut there (`FanCover`: there a
            // point need only lie inside the page above) leaves the rim of the one above over a
            // board's overhang.
            #expect(r.fraction < (samples > 1 ? 0.009 : 0.002), "frame \(i): \(r.failingPixels) pixels differ (max \(r.maxDelta))")
        }
    }
}

/// A shelf scrolling (and a book opening) moves every cover but not the room: its backdrop is
/// drawn once and copied in each frame (a software renderer shaded its every pixel each frame,
/// a third of a carousel frame), each frame equal to a full redraw. Multisampled, the boxes are
/// drawn with their layer, as before.
@Suite(.serialized) struct ShelfRoomTests {
    let library = Library.load(from: GLHarness.textures)

    @Test(arguments: [ShelfStyle.carousel, .wheel], [0, 4])
    func aScrollingShelfDrawsItsRoomOnce(shelf: ShelfStyle, samples: Int) throws {
        let books = library.bookInfos
        let sequence = try [0.2, 0.5, 0.8].map { scroll -> Scene in
            var s = StillState()
            s.shelf = shelf; s.scroll = scroll
            return try s.scene(library: books)
        }
        let (cached, full, hits, misses) = try CachedLayerTests.framesOverTheRoom(sequence, samples: samples, library: library)
        // Drawn at most once (a room of the same size may be left from before), copied in the rest.
        #expect(samples > 1 ? hits + misses == 0 : misses <= 1 && hits + misses == 3,
                "\(shelf), MSAA \(samples): the room drawn \(misses) times, copied in \(hits) times")
        for i in sequence.indices {
            let r = try #require(ImageAssert.compare(cached[i], full[i], channelTolerance: 1))
            #expect(r.failingPixels == 0, "\(shelf), MSAA \(samples), frame \(i): \(r.failingPixels) pixels differ (max \(r.maxDelta))")
        }
    }
}
