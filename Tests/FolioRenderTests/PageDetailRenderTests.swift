import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioMath
import FolioPages
import FolioReader
import FolioRender
import FolioScript
import Foundation
import Testing

/// The part of a zoomed page drawn over it (`SceneItem.detail`): it lies exactly on its part
/// of the page, shaded as the page is, and fades into the page at its edges.
@Suite(.serialized) struct PageDetailRenderTests {
    let library = Library.load(from: GLHarness.textures)
    static let paper: (UInt8, UInt8, UInt8, UInt8) = (200, 180, 160, 255)
    static let ink: (UInt8, UInt8, UInt8, UInt8) = (40, 60, 200, 255)

    /// The pages of a spread seen at 6×: each lays its image out another way (a right-hand
    /// page, a left-hand one mirrored, a calendar's page below its spine, a right-to-left book's).
    enum Case: String, CaseIterable, Sendable {
        case right, left, calendar, rightToLeft
    }

    /// A crop of the page's own colour over the right half of what shows changes nothing (no
    /// seam, no change of brightness: what a crop left from before a pan looks like); a crop
    /// of another colour shows from the middle of the visible page to its right.
    @Test(arguments: Case.allCases)
    func aCropLiesExactlyOnItsPartOfThePage(_ which: Case) throws {
        var s = StillState()
        s.book = 0; s.page = 4; s.zoom = 6
        var books = library.bookInfos
        switch which {
        case .right: s.pan = Vec2(-900, 0)
        case .left: s.pan = Vec2(900, 0)
        case .calendar:
            s.style = TurnStyle(orientation: .vertical)
            s.pan = Vec2(0, 900)
        case .rightToLeft:
            books[0].direction = .rtl
            s.pan = Vec2(900, 0)
        }
        let scene = try s.scene(library: books)
        let (w, h) = (320, 180)
        let want = try #require(scene.detailWants(width: w, height: h, sharperThan: 64).first)
        #expect(scene.detailWants(width: w, height: h, sharperThan: 4096).isEmpty, "pages sharp enough get no crop")
        let v = want.visible
        let crop = PageCrop(covering: PageRegion(x0: (v.x0 + v.x1) / 2, y0: v.y0, x1: v.x1, y1: v.y1), of: want.scale)

        let plain = try frame(scene, want: want, crop: crop, colour: nil, width: w, height: h)
        let same = try frame(scene, want: want, crop: crop, colour: Self.paper, width: w, height: h)
        let other = try frame(scene, want: want, crop: crop, colour: Self.ink, width: w, height: h)
        let diff = try #require(ImageAssert.compare(plain, same, channelTolerance: 2))
        #expect(diff.failingPixels == 0, "a crop like the page changes \(diff.failingPixels) pixels (max \(diff.maxDelta))")

        // The page's columns along the row that shows most of it, and where the other colour
        // starts: the page's image is upright on screen, whichever way its frame runs.
        let isPage = { (c: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) in abs(Int(c.r) - 200) < 20 && abs(Int(c.g) - 180) < 20 && abs(Int(c.b) - 160) < 20 }
        let y = try #require((0..<h).max { a, b in (0..<w).filter { isPage(plain.pixel($0, a)) }.count < (0..<w).filter { isPage(plain.pixel($0, b)) }.count })
        let page = (0..<w).filter { isPage(plain.pixel($0, y)) }
        let blue = (0..<w).filter { Int(other.pixel($0, y).b) > Int(other.pixel($0, y).r) + 60 }
        let (first, last) = (try #require(page.first), try #require(page.last))
        #expect(page.count == last - first + 1, "the page is one run of columns")
        let middle = Double(first + last + 1) / 2
        let start = try #require(blue.first)
        #expect(abs(Double(start) - middle) <= 2, "the crop starts at column \(start), the visible page's middle is \(middle)")
        #expect(blue.last == last, "and reaches the page's last column \(last)")
    }

    /// Draws `scene` with the page of `want` in the paper colour and, given `colour`, a crop
    /// of that colour over it; rows top to bottom.
    private func frame(_ scene: Scene, want: DetailWant, crop: PageCrop, colour: (UInt8, UInt8, UInt8, UInt8)?,
                       width: Int, height: Int) throws -> RGBAImage {
        try GLHarness.shared.run { p in
            let target = try Framebuffer(width: width, height: height)
            defer { target.destroy() }
            let textures = TextureStore()
            defer { textures.destroy() }
            textures.upload(RGBAImage(width: 64, height: 100, fill: Self.paper), for: try #require(want.face.key))
            var drawn = scene
            if let colour {
                // As the page store hands crops out (`CropRenderings.bordered`): inside a transparent one-pixel border.
                var image = RGBAImage(width: crop.width + 2, height: crop.height + 2, fill: colour)
                for y in 0..<image.height {
                    for x in 0..<image.width where x == 0 || y == 0 || x == image.width - 1 || y == image.height - 1 {
                        image.pixels[(y * image.width + x) * 4 + 3] = 0
                    }
                }
                let face = FaceContent.detail(want.face.book, want.face.page)
                textures.upload(image, for: try #require(face.key))
                drawn.items.append(scene.items[want.item].detail(face, crop: crop))
            }
            p.renderer.draw(drawn, into: target, textures: textures)
            return target.readPixels().flippedVertically()
        }
    }
}
