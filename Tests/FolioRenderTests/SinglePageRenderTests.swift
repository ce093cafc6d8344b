import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import FolioReader
import FolioScript
import Foundation
import Testing

/// Single-page mode drawn: in a tall frame one page fills the width, and a turn lifts it over
/// its own spine edge with the next page beneath.
@Suite(.serialized) struct SinglePageRenderTests {
    static let width = 180, height = 320
    let width = Self.width, height = Self.height

    /// Four pages of one colour each: red, green, blue, yellow.
    static let colours: Library = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-single-page-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let fills: [(UInt8, UInt8, UInt8, UInt8)] = [(220, 30, 30, 255), (30, 180, 30, 255), (30, 50, 220, 255), (230, 200, 30, 255)]
        let paths = fills.enumerated().map { i, fill in
            let path = dir.appendingPathComponent("p\(i + 1).png").path
            try? PNG.write(RGBAImage(width: 181, height: 284, fill: fill), to: path)
            return path
        }
        return Library(title: "", books: [Book(title: "Colours", pages: paths.map(PageRef.image))])
    }()

    static func render(page: Int, turn: Double? = nil) throws -> RGBAImage {
        var s = StillState()
        s.viewSize = Vec2(Double(width), Double(height))
        s.book = 0
        s.page = PageImage(number: page).layoutPage
        s.turn = turn
        s.deform = turn == nil ? nil : .curl
        return try GLHarness.shared.render(try s.scene(library: colours.bookInfos), width: width, height: height, library: colours)
    }

    enum Hue: Equatable { case red, green, blue, yellow, other }

    static func hue(_ image: RGBAImage, _ x: Int, _ y: Int) -> Hue {
        let p = image.pixel(x, y)
        let (r, g, b) = (Int(p.r), Int(p.g), Int(p.b))
        if r > 150, g > 130, b < 90 { return .yellow }
        if r > 120, g < 90, b < 90 { return .red }
        if g > 110, r < 90, b < 90 { return .green }
        if b > 130, r < 90, g < 110 { return .blue }
        return .other
    }

    /// Page 2 alone, across the middle of the frame from a fifth to four fifths of its width.
    @Test func aTallFrameShowsOnePageAcrossIt() throws {
        let image = try Self.render(page: 2)
        for x in [width / 5, width / 2, width * 4 / 5] {
            #expect(Self.hue(image, x, height / 2) == .green, "x \(x): \(image.pixel(x, height / 2))")
        }
    }

    /// Part way through a curl from page 2, page 3 lies beneath on the outer side, page 2 still
    /// on the spine side; page 1 (the other page of its two-page spread) is nowhere on the page
    /// (the board's rim around it has the cover's colour, page 1's red: left out).
    @Test func aTurnRevealsTheNextPageBeneath() throws {
        let image = try Self.render(page: 2, turn: 0.35)
        #expect(Self.hue(image, width * 9 / 10, height * 3 / 4) == .blue, "\(image.pixel(width * 9 / 10, height * 3 / 4))")
        var hues: Set<Hue> = []
        for y in stride(from: height / 8, to: height * 7 / 8, by: 4) {
            for x in stride(from: width / 8, to: width * 7 / 8, by: 4) { hues.insert(Self.hue(image, x, y)) }
        }
        #expect(hues.contains(.green) && !hues.contains(.red), "\(hues)")
    }
}
