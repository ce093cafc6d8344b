import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioMath
import FolioReader
import FolioRender
import FolioScript
import Foundation
import Testing

/// The renderer in every configuration a user meets: {MSAA 0, MSAA 4} × {software texture
/// filtering, the GPU's}. The frame drawn from the cached static layer equals a full redraw,
/// and a multisampled frame equals the single-sampled one but for its antialiased edges.
@Suite(.serialized) struct ConfigurationMatrixTests {
    static let library = Library.load(from: GLHarness.textures)
    static let width = 320, height = 180

    static let styles: [TurnStyle] = TurnStyle.Direction.allCases.flatMap { d in
        TurnStyle.Orientation.allCases.flatMap { o in
            TurnStyle.Perspective.allCases.map { TurnStyle(direction: d, orientation: o, perspective: $0) }
        }
    }

    /// A page of book 0 turning at `turn`, for every layout and deformation, each with two turn
    /// styles, so that all eight styles appear (every pairing would take four times as long).
    static func turns(at progress: [Double]) throws -> [(name: String, scene: Scene)] {
        var out: [(String, Scene)] = []
        let combinations = BookLayout.allCases.flatMap { l in TurnDeform.allCases.map { (l, $0) } }
        for (k, (layout, deform)) in combinations.enumerated() {
            for style in [styles[k % styles.count], styles[(k + combinations.count) % styles.count]] {
                for t in progress {
                    var s = StillState()
                    s.book = 0; s.page = 7; s.turn = t
                    s.layout = layout; s.deform = deform; s.style = style
                    let name = "\(layout.rawValue) \(deform.rawValue) \(style.direction.rawValue)-\(style.orientation.rawValue)-\(style.perspective.rawValue) at \(t)"
                    out.append((name, try s.scene(library: library.bookInfos)))
                }
            }
        }
        return out
    }

    /// Frames restored from the cached layer with only the dirty rectangle redrawn equal full
    /// redraws, in one target carried through every combination (the layer is redrawn when the
    /// still part changes, reused while only the sheet moves).
    @Test(arguments: RenderConfiguration.matrix)
    func cachedFramesEqualFullRedraws(_ configuration: RenderConfiguration) throws {
        let turns = try Self.turns(at: [0.3, 0.55])
        let scenes = turns.map(\.scene)
        let cached = try GLHarness.shared.frames(scenes, width: Self.width, height: Self.height, library: Self.library,
                                                 configuration: configuration) { $0.cacheStaticLayer = true }
        let full = try GLHarness.shared.frames(scenes, width: Self.width, height: Self.height, library: Self.library,
                                               configuration: configuration) { $0.cacheStaticLayer = false }
        for i in turns.indices {
            let r = try #require(ImageAssert.compare(cached[i], full[i], channelTolerance: 2))
            // Only the one-pixel antialiased rims of shaded pages may differ: the overlay darkens
            // the whole rim pixel, the inline shade only the page's share of it.
            #expect(r.fraction < 0.01, "\(configuration), \(turns[i].name): \(r.failingPixels) pixels differ (max \(r.maxDelta))")
            if r.fraction >= 0.01 { ImageAssert.saveFailure(cached[i], full[i], diff: r.diff, named: "cached-\(i)") }
        }
    }

    /// 4× MSAA draws the same picture as no MSAA but for edges, and never a dark or empty one.
    @Test(arguments: TextureFiltering.allCases)
    func multisampledFramesMatchSingleSampled(_ filtering: TextureFiltering) throws {
        let turns = try Self.turns(at: [0.35])
        let scenes = turns.map(\.scene)
        let single = try GLHarness.shared.frames(scenes, width: Self.width, height: Self.height, library: Self.library,
                                                 configuration: RenderConfiguration(samples: 0, filtering: filtering))
        let multi = try GLHarness.shared.frames(scenes, width: Self.width, height: Self.height, library: Self.library,
                                                configuration: RenderConfiguration(samples: 4, filtering: filtering))
        for i in turns.indices {
            let r = try #require(ImageAssert.compare(multi[i], single[i], channelTolerance: 24))
            #expect(r.fraction < 0.03, "\(filtering), \(turns[i].name): \(r.failingPixels) pixels differ (max \(r.maxDelta))")
            if r.fraction >= 0.03 { ImageAssert.saveFailure(multi[i], single[i], diff: r.diff, named: "msaa-\(i)") }
            #expect(!multi[i].isDark, "\(filtering), \(turns[i].name): a dark frame under MSAA")
        }
    }

    /// With only the boxes multisampled (the software renderer's 4× MSAA), the frame is true 4×
    /// MSAA's but at a few pixels, and the blocks' edges are still antialiased: it differs from
    /// no MSAA where true MSAA does. Drawing the boxes single-sampled too, or not resolving
    /// them before the pages, fails the one; drawing the pages multisampled again costs the
    /// time this setting saves (`folio bench --msaa 4`). No MSAA is drawn first, with the same
    /// settings: a layer cached for a target of other samples must not be reused.
    @Test func boxesAloneMultisampledKeepTheirEdges() throws {
        let none = try Self.openBook(samples: 0, boxesOnly: true)
        let boxes = try Self.openBook(samples: 4, boxesOnly: true), full = try Self.openBook(samples: 4, boxesOnly: false)
        let msaaEdges = try #require(ImageAssert.compare(full, none, channelTolerance: 24)).failingPixels
        let kept = try #require(ImageAssert.compare(boxes, none, channelTolerance: 24)).failingPixels
        let lost = try #require(ImageAssert.compare(boxes, full, channelTolerance: 24)).failingPixels
        #expect(msaaEdges > 100, "true 4× MSAA changes \(msaaEdges) pixels")
        #expect(kept > msaaEdges / 2, "boxes alone multisampled change \(kept) pixels of no MSAA's, true MSAA \(msaaEdges)")
        #expect(lost < msaaEdges / 4, "\(lost) pixels differ from true 4× MSAA (of \(msaaEdges) it changes)")
    }

    /// An open book at 640 × 360, a sheet a third of the way over, its blocks beside it.
    static func openBook(samples: Int, boxesOnly: Bool) throws -> RGBAImage {
        var s = StillState()
        s.book = 0; s.page = 7; s.turn = 0.3
        return try GLHarness.shared.render(try s.scene(library: library.bookInfos), width: 640, height: 360, library: library,
                                           configuration: RenderConfiguration(samples: samples, filtering: .software)) {
            $0.multisampleBoxesOnly = boxesOnly
        }
    }
}

extension RGBAImage {
    /// Nearly black or transparent over more than a tenth of it: what a lost layer looks like.
    /// The room's darkest corner is well above this.
    var isDark: Bool {
        var dark = 0
        for i in stride(from: 0, to: pixels.count, by: 4) where pixels[i + 3] < 128 || Int(pixels[i]) + Int(pixels[i + 1]) + Int(pixels[i + 2]) < 24 {
            dark += 1
        }
        return dark * 10 > width * height
    }
}
