import FolioImage
import FolioLayout
import FolioMath
@testable import FolioRender
import FolioScript
import Testing

/// A page image that is all opaque grey (a PDF or DjVu page of black type on white) is held as
/// one channel read as grey (`Texture`): a quarter of the memory, drawn as its RGBA image is.
@Suite(.serialized) struct GreyTextureTests {
    /// A grey ramp across the page; `tinted`: its first pixel a level off grey, so the image is
    /// held as RGBA.
    static func ramp(tinted: Bool) -> RGBAImage {
        var image = RGBAImage(width: 64, height: 100, fill: (0, 0, 0, 255))
        for y in 0..<100 {
            for x in 0..<64 {
                let v = UInt8(x * 4), i = 4 * (y * 64 + x)
                image.pixels[i] = v; image.pixels[i + 1] = v; image.pixels[i + 2] = v
            }
        }
        if tinted { image.pixels[0] += 1 }
        return image
    }

    @Test func greyLevelsAreFoundOnlyInOpaqueGrey() {
        #expect(Texture.greyLevels(Self.ramp(tinted: false))?.count == 6400)
        #expect(Texture.greyLevels(Self.ramp(tinted: true)) == nil)
        var translucent = Self.ramp(tinted: false)
        translucent.pixels[4 * 6399 + 3] = 254
        #expect(Texture.greyLevels(translucent) == nil)
    }

    /// Opaque only when every alpha is 255, whichever pixel holds the one that is not, and never
    /// for a colour byte (the check reads the pixels as words).
    @Test func anImageIsOpaqueOnlyWhenEveryAlphaIs255() {
        let tinted = Self.ramp(tinted: true)
        #expect(Texture.isOpaque(tinted))
        for i in [0, 31, 6399] {
            var translucent = tinted
            translucent.pixels[4 * i + 3] = 254
            #expect(!Texture.isOpaque(translucent), "alpha 254 at pixel \(i)")
        }
        #expect(!Texture.isOpaque(RGBAImage(width: 3, height: 1, fill: (255, 255, 255, 0))))
    }

    @Test func aGreyPageHoldsAQuarterOfTheBytesAndDrawsAsItsRGBAImage() throws {
        var s = StillState()
        s.book = 0; s.page = 7
        let scene = try s.scene(library: ContinuityTests.library.bookInfos)
        let shown = try #require(scene.items.first { $0.kind == .page }?.front.key)
        let (grey, rgba) = try GLHarness.shared.run { p -> ((RGBAImage, Int), (RGBAImage, Int)) in
            let target = try Framebuffer(width: 320, height: 180)
            defer { target.destroy() }
            func frame(_ image: RGBAImage) -> (RGBAImage, Int) {
                let textures = TextureStore()
                defer { textures.destroy() }
                let bytes = textures.upload(image, for: shown)
                p.renderer.draw(scene, into: target, textures: textures)
                return (target.readPixels(), bytes)
            }
            return (frame(Self.ramp(tinted: false)), frame(Self.ramp(tinted: true)))
        }
        #expect(abs(grey.1 * 4 - rgba.1) <= 4, "bytes held: grey \(grey.1), RGBA \(rgba.1)")
        // Read as red alone, without its swizzle, the page would differ by most of its light.
        let r = try #require(ImageAssert.compare(grey.0, rgba.0, channelTolerance: 2))
        #expect(r.failingPixels <= 2, "\(r.failingPixels) pixels differ by more than 2 levels (max \(r.maxDelta))")
    }
}

/// Faces that show one image share one texture, keyed by the image (`PageKey`): a cover (the
/// closed book's and the open book's front) goes up once and is freed once; an image moved to
/// another page (a book laid out again) is drawn there, as new.
@Suite(.serialized) struct SharedTextureTests {
    @Test func facesShowingOneImageShareOneTexture() throws {
        try GLHarness.shared.run { _ in
            let ledger = try #require(GLContextLedger.current)
            let textures = TextureStore()
            defer { textures.destroy() }
            let paper = textures.paper
            let before = ledger.alive["texture"] ?? 0
            let image = RGBAImage(width: 64, height: 96, fill: (200, 30, 30, 255))
            let bytes = textures.upload(image, for: .cover(book: 0))
            #expect(ledger.alive["texture"] ?? 0 == before + 1, "one texture for both faces")
            #expect(bytes == 64 * 96 * 4 * 4 / 3, "the bytes of one texture: \(bytes)")
            #expect(textures.texture(for: .cover(0)) == textures.texture(for: .page(0, 0)) && textures.texture(for: .cover(0)) != paper)
            #expect(textures.version(of: .cover(0)) != 0 && textures.version(of: .cover(0)) == textures.version(of: .page(0, 0)))
            textures.remove(.cover(book: 0))
            #expect(textures.texture(for: .page(0, 0)) == paper && textures.texture(for: .cover(0)) == paper
                    && ledger.alive["texture"] ?? 0 == before, "freed once, for both faces")
            // Image 3 laid out again as image 5: layout page 7 shows it, as new; page 5 shows paper.
            let (three, five) = (PageKey.page(book: 0, image: PageImage(index: 3)), PageKey.page(book: 0, image: PageImage(index: 5)))
            textures.upload(image, for: three)
            let was = textures.version(of: .page(0, 5))
            textures.move(three, to: five)
            #expect(textures.texture(for: .page(0, 7)) != paper && textures.texture(for: .page(0, 5)) == paper
                    && ledger.alive["texture"] ?? 0 == before + 1, "moved, not made again")
            #expect(textures.version(of: .page(0, 7)) > was, "what was drawn of page 7 is stale")
            textures.remove(five)
            #expect(ledger.alive["texture"] ?? 0 == before)
        }
    }
}
