import FolioBook
import FolioImage
import FolioLayout
import FolioRender
import Testing

/// Themes recolour printed pages in the page shader: night is dark paper with light ink, sepia
/// warm paper; a book of pictures keeps its colours; the paper theme changes no pixel.
@Suite(.serialized) struct ThemeRenderTests {
    static let width = 640, height = 360

    /// Spread 0 of the printed book (`PaperLightTests.printed`: its first page has a black block
    /// in its top-left quarter) on the right, at 640 × 360: the page spans x 320…501, y 38…322.
    static func spread(_ theme: Theme, printed: Bool) throws -> RGBAImage {
        try GLHarness.shared.run { pipeline in
            pipeline.replaceLibrary(PaperLightTests.printed)
            pipeline.renderer.settings.theme = theme
            // What `Book.isPrinted` says of a PDF; these pages are image files.
            pipeline.renderer.settings.printedBooks = printed ? [0] : []
            pipeline.setFiltering(RenderConfiguration.reference.filtering)
            guard pipeline.resizeTarget(width: width, height: height, samples: 0) else {
                throw GLFailure(errors: ["cannot make a \(width)×\(height) target"])
            }
            pipeline.draw(flatSpread(book: 0, spread: 0))
            return pipeline.target.readPixels().flippedVertically()
        }
    }

    /// Mean colour over the print's block and over blank paper below it.
    static func ink(_ image: RGBAImage) -> Double { image.meanLuma(x: 340, y: 70, width: 40, height: 60) }
    static func paper(_ image: RGBAImage) -> Double { image.meanLuma(x: 440, y: 230, width: 40, height: 60) }

    @Test func nightIsDarkPaperAndLightInk() throws {
        let night = try Self.spread(.night, printed: true)
        #expect(Self.paper(night) < 60, "dark paper: \(Self.paper(night))")
        #expect(Self.ink(night) > Self.paper(night) + 80, "ink lighter than paper: \(Self.ink(night)) on \(Self.paper(night))")
    }

    @Test func sepiaIsWarmPaperAndBrownInk() throws {
        let sepia = try Self.spread(.sepia, printed: true)
        let p = sepia.pixel(460, 260)
        #expect(Int(p.r) > Int(p.b) + 25 && Self.paper(sepia) > 170, "warm paper: \(p)")
        #expect(Self.ink(sepia) < 90, "dark ink: \(Self.ink(sepia))")
    }

    /// Pictures (a comic, a photo album) are shown as they are whatever the theme; the room
    /// around them still dims at night.
    @Test func picturesAreNotRecoloured() throws {
        let night = try Self.spread(.night, printed: false), paper = try Self.spread(.paper, printed: false)
        #expect(abs(Self.paper(night) - Self.paper(paper)) < 1 && abs(Self.ink(night) - Self.ink(paper)) < 1)
        #expect(night.luma(20, 180) < paper.luma(20, 180) - 10, "the room dims: \(night.luma(20, 180)) against \(paper.luma(20, 180))")
    }

    /// The paper theme leaves every pixel as it was before themes: the references stand.
    @Test func paperChangesNothing() throws {
        let themed = try Self.spread(.paper, printed: true), plain = try Self.spread(.paper, printed: false)
        // Compared apart from the expectation, which would list every pixel of a failure.
        let same = themed.pixels == plain.pixels
        #expect(same, "paper recolours nothing")
    }
}
