import FolioImage
import FolioLayout
import FolioMath
@testable import FolioRender
import FolioScript
import Testing

/// A page image of type in one ink on one paper (a PDF page of black on white, a book's page on
/// cream) is held as one channel between the two (`Texture`): a quarter of the memory, drawn as
/// its RGBA image is.
@Suite(.serialized) struct OneChannelTextureTests {
    /// A ramp across the page from `ink` to `paper`; `tinted`: its first pixel's blue 3 levels
    /// off the line between them, so the image is held as RGBA.
    static func ramp(ink: SIMD3<Int>, paper: SIMD3<Int>, tinted: Bool = false) -> RGBAImage {
        var image = RGBAImage(width: 64, height: 100, fill: (0, 0, 0, 255))
        for y in 0..<100 {
            for x in 0..<64 {
                let c = SIMD3<Double>(ink) + SIMD3<Double>(paper &- ink) * Double(x) / 63, i = 4 * (y * 64 + x)
                for k in 0..<3 { image.pixels[i + k] = UInt8(c[k].rounded()) }
            }
        }
        if tinted { image.pixels[2] = image.pixels[2] < 128 ? image.pixels[2] + 3 : image.pixels[2] - 3 }
        return image
    }

    static let cream = SIMD3(247, 242, 230), brown = SIMD3(40, 35, 31)

    @Test func oneChannelIsFoundOnlyBetweenTwoColoursOpaque() throws {
        let grey = try #require(Texture.oneChannel(Self.ramp(ink: .zero, paper: SIMD3(repeating: 255))))
        #expect(grey.ink == .zero && grey.paper == SIMD3(repeating: 1) && grey.levels[63] == 255)
        let page = try #require(Texture.oneChannel(Self.ramp(ink: Self.brown, paper: Self.cream)))
        #expect(page.ink == SIMD3<Float>(Self.brown) / 255 && page.paper == SIMD3<Float>(Self.cream) / 255)
        #expect(Texture.oneChannel(Self.ramp(ink: Self.brown, paper: Self.cream, tinted: true)) == nil)
        // Magenta and cyan: two colours of the same sum, neither darker.
        var halves = RGBAImage(width: 4, height: 1, fill: (200, 40, 200, 255))
        for o in [8, 12] { (halves.pixels[o], halves.pixels[o + 1], halves.pixels[o + 2]) = (40, 200, 200) }
        #expect(Texture.oneChannel(halves) == nil)
        let plain = try #require(Texture.oneChannel(RGBAImage(width: 4, height: 1, fill: (200, 40, 200, 255))))
        #expect(plain.ink == plain.paper && plain.levels == [0, 0, 0, 0])
        var translucent = Self.ramp(ink: Self.brown, paper: Self.cream)
        translucent.pixels[4 * 6399 + 3] = 254
        #expect(Texture.oneChannel(translucent) == nil)
    }

    /// Drawn as a page, each is within 2 levels of the same image held as RGBA, in a quarter of
    /// the bytes. Without the mapping back to ink and paper (or the grey swizzle) the page would
    /// be grey or red.
    @Test(arguments: [(SIMD3<Int>.zero, SIMD3(repeating: 255)), (brown, cream)])
    func aOneChannelPageDrawsAsItsRGBAImage(ink: SIMD3<Int>, paper: SIMD3<Int>) throws {
        var s = StillState()
        s.book = 0; s.page = 7
        let scene = try s.scene(library: ContinuityTests.library.bookInfos)
        let shown = try #require(scene.items.first { $0.kind == .page }?.front)
        let (one, rgba) = try GLHarness.shared.run { p -> ((RGBAImage, Int), (RGBAImage, Int)) in
            let target = try Framebuffer(width: 320, height: 180)
            defer { target.destroy() }
            func frame(_ image: RGBAImage) -> (RGBAImage, Int) {
                let textures = TextureStore()
                defer { textures.destroy() }
                let bytes = textures.upload(image, for: shown)
                p.renderer.draw(scene, into: target, textures: textures)
                return (target.readPixels(), bytes)
            }
            return (frame(Self.ramp(ink: ink, paper: paper)), frame(Self.ramp(ink: ink, paper: paper, tinted: true)))
        }
        #expect(abs(one.1 * 4 - rgba.1) <= 4, "bytes held: one channel \(one.1), RGBA \(rgba.1)")
        let r = try #require(ImageAssert.compare(one.0, rgba.0, channelTolerance: 2))
        #expect(r.failingPixels <= 2, "\(r.failingPixels) pixels differ by more than 2 levels (max \(r.maxDelta))")
    }

    /// A cover is read by the boxes' program as well, which has no ink and paper: only a grey
    /// one, which its swizzle reads as grey everywhere, is held as one channel.
    @Test func aCoverBetweenTwoColoursStaysRGBA() throws {
        let image = Self.ramp(ink: Self.brown, paper: Self.cream)
        let bytes = try GLHarness.shared.run { _ -> (cover: Int, page: Int) in
            let textures = TextureStore()
            defer { textures.destroy() }
            return (textures.upload(image, for: FaceContent(kind: .cover, book: 0)),
                    textures.upload(image, for: FaceContent(kind: .page, book: 0, page: 3)))
        }
        #expect(bytes.cover == 4 * 6400 * 4 / 3 && bytes.page == 6400 * 4 / 3)
    }
}
