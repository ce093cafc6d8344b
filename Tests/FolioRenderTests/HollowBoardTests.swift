import FolioImage
import FolioLayout
import FolioMath
import Foundation
import Testing

/// A shut book's boards draw only the band round each face that shows past what lies on it:
/// the cover hides the rest of the front board's outside, the block the rest of each board's
/// inside (BoxMesh's hollow cells, dropped by block.vert). A software renderer pays for every
/// pixel a face covers, hidden or not: on the wheel these hidden middles were a tenth of a frame.
@Suite(.serialized) struct HollowBoardTests {
    static let width = 640, height = 360

    /// A shut book's board alone, its outside up as the front board lies, seen from straight
    /// above its middle; nothing on it.
    static func board(closed: Double) -> Scene {
        let size = Vec2(180, 240)
        let item = SceneItem(kind: .board, book: 0, page: 0, size: size, model: .rotationX(.pi) * .translation(-size.x / 2, 0, 0),
                             front: .cover(0), thickness: 4, closed: closed)
        return Scene(state: .shelf, camera: Camera(viewSize: Vec2(Double(width), Double(height))), items: [item])
    }

    @Test func aShutBoardDrawsOnlyItsBand() throws {
        let shut = try GLHarness.shared.render(Self.board(closed: 1), width: Self.width, height: Self.height)
        let opening = try GLHarness.shared.render(Self.board(closed: 0.5), width: Self.width, height: Self.height)
        let room = try GLHarness.shared.render(Scene(state: .shelf, camera: Camera(viewSize: Vec2(Double(Self.width), Double(Self.height))),
                                                     items: []), width: Self.width, height: Self.height)
        let middle = (x: Self.width / 2, y: Self.height / 2)
        // The board's middle, under where its cover lies: the room shows through a shut board,
        // a board that is opening is drawn whole.
        #expect(shut.luma(middle.x, middle.y) == room.luma(middle.x, middle.y), "a shut board's hidden middle is not drawn")
        #expect(abs(opening.luma(middle.x, middle.y) - room.luma(middle.x, middle.y)) > 10, "an opening board is drawn whole")
        // Its band, a pixel in from its edge, is drawn either way.
        let band = (x: middle.x, y: middle.y - 119)
        #expect(abs(shut.luma(band.x, band.y) - room.luma(band.x, band.y)) > 10, "the band past the cover is drawn")
    }
}
