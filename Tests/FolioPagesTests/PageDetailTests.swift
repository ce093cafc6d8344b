import FolioReader
import FolioScript
import FolioBook
import FolioLayout
import FolioMath
import FolioPages
import Testing

/// Which part of which page a zoomed view wants rasterised at the scale shown.
@Suite struct PageDetailTests {
    let books = [BookInfo(title: "B", imageCount: 10)]

    private func scene(zoom: Double, pan: Vec2 = .zero, turn: Double? = nil) throws -> Scene {
        var s = StillState()
        s.book = 0; s.page = 4; s.zoom = zoom; s.pan = pan; s.turn = turn
        return try s.scene(library: books)
    }

    @Test func onlyPagesMagnifiedBeyondTheirImageAskForTheirVisiblePart() throws {
        #expect(try scene(zoom: 1).detailWants(width: 1920, height: 1080, sharperThan: 4096).isEmpty, "at fit the image is enough")
        #expect(try scene(zoom: 8, turn: 0.5).detailWants(width: 1920, height: 1080, sharperThan: 4096).isEmpty, "not while a page turns")

        // At 8× the view's centre (the spine) shows a little of both pages.
        let wants = try scene(zoom: 8).detailWants(width: 1920, height: 1080, sharperThan: 4096)
        #expect(Set(wants.map(\.face)) == [.page(0, 3), .page(0, 4)])
        for want in wants {
            let v = want.visible
            #expect(PageRegion.whole.contains(v))
            // The part shown is about as many of the scale's pixels as the frame has.
            let pixels = PixelSize(width: Int(v.width * Double(want.scale.width)), height: Int(v.height * Double(want.scale.height)))
            #expect(pixels.height >= 1080 && pixels.height <= 1080 * 110 / 100, "\(pixels)")
            #expect(pixels.width > 800 && pixels.width < 1000, "half the frame each: \(pixels)")
            #expect(want.scale.height > 4096)
        }
        let left = try #require(wants.first { $0.face == .page(0, 3) }), right = try #require(wants.first { $0.face == .page(0, 4) })
        // The left page's image runs away from the spine: its visible part is its right edge.
        #expect(abs(left.visible.x1 - 1) < 1e-9 && right.visible.x0 < 1e-9)
    }

    @Test func aPanMovesTheVisiblePartAtTheSameScale() throws {
        let a = try #require(try scene(zoom: 8, pan: Vec2(-1400, 0)).detailWants(width: 1920, height: 1080, sharperThan: 4096).first)
        let b = try #require(try scene(zoom: 8, pan: Vec2(-1500, 0)).detailWants(width: 1920, height: 1080, sharperThan: 4096).first)
        #expect(a.face == b.face && a.scale == b.scale)
        #expect(b.visible.x0 > a.visible.x0, "moving the book left shows more of its right")
        // The pan is in view units (after the zoom): 100 of the 1280-unit view's 1920 pixels,
        // in the scale's pixels (at most 9 % more than shown).
        let shift = (b.visible.x0 - a.visible.x0) * Double(a.scale.width)
        #expect(shift > 149 && shift < 150 * 1.0905 + 1, "\(shift)")
    }
}
