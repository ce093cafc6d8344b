import FolioImage
import FolioLayout
import FolioMath
@testable import FolioRender
import Foundation
import Testing

/// What a shut book hides is not drawn: its boards draw only the band round each face that
/// shows past what lies on it (the cover hides the rest of the front board's outside, the block
/// the rest of each board's inside: BoxMesh's hollow cells, dropped by block.vert), and its
/// shadow on the desk only the ring round its cover (`GridMesh.ring`). A software renderer pays
/// for every pixel a draw covers, hidden or not: on the wheel the boards' hidden middles were a
/// tenth of a frame, the shadows' a quarter.
@Suite(.serialized) struct HiddenMiddleTests {
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

    /// The middle of each shut book's shadow that `hiddenUnder` leaves out lies under the
    /// cover's inside on screen (within a hundredth of a pixel), and is most of the book.
    @Test(arguments: [ShelfStyle.carousel, .wheel], [0.5, 2])
    func theShadowLeftOutLiesUnderTheCover(_ shelf: ShelfStyle, _ scroll: Double) throws {
        var state = ViewState()
        state.shelf = shelf
        state.scroll = scroll
        let scene = makeScene(state, books: (0..<4).map { _ in BookInfo(imageCount: 8) })
        let vp = scene.camera.viewProjection, light = Scene.defaultLight
        let view = scene.camera.viewSize
        func screen(_ m: Mat4, _ p: Vec2) -> Vec2 {
            let c = vp * m * Vec4(p.x, p.y, 0, 1)
            return Vec2(c.x / c.w * view.x / 2, c.y / c.w * view.y / 2)
        }
        var checked = 0
        for shadow in scene.items where shadow.kind == .shadow && shadow.closed >= 1 {
            guard let cover = scene.items.first(where: { $0.kind == .cover && $0.book == shadow.book }) else { continue }
            let inset = 2.0, shift = Vec2(light.x, light.y) / light.z * shadow.thickness * 0.5
            let hole = try #require(shadow.hiddenUnder(cover, inset: inset, shift: shift, viewProjection: vp))
            #expect((hole.high.x - hole.low.x) * (hole.high.y - hole.low.y) > 0.9 * cover.size.x * cover.size.y,
                    "most of the book: \(hole)")
            // The cover's inside on screen, counter-clockwise or clockwise as the model turns it.
            let half = cover.size.y / 2 - inset
            let quad = [Vec2(inset, -half), Vec2(cover.size.x - inset, -half), Vec2(cover.size.x - inset, half), Vec2(inset, half)]
                .map { screen(cover.model, $0) }
            let sides = (0..<4).map { i in (quad[i], quad[(i + 1) % 4]) }
            let pushed = Mat4.translation(-shift.x, -shift.y, 0) * shadow.model
            for u in stride(from: 0.0, through: 1, by: 0.25) {
                for v in stride(from: 0.0, through: 1, by: 0.25) {
                    let p = screen(pushed, Vec2(mix(hole.low.x, hole.high.x, u), mix(hole.low.y, hole.high.y, v)))
                    let turns = sides.map { a, b in ((b - a).x * (p - a).y - (b - a).y * (p - a).x) / ((b - a) * (b - a)).sum().squareRoot() }
                    #expect(turns.allSatisfy { $0 > -0.01 } || turns.allSatisfy { $0 < 0.01 },
                            "\(shelf) \(scroll), book \(shadow.book): a point of the hole lies \(turns) from the cover's inside")
                }
            }
            checked += 1
        }
        #expect(checked >= 3, "shut books' shadows found: \(checked)")
    }

    /// The frame draws each shut book's shadow with the cover that hides its middle; a book
    /// that has begun to open lays its whole shadow.
    @Test func theShadowsOfShutBooksGoWithTheirCovers() {
        let books = (0..<4).map { _ in BookInfo(imageCount: 8) }
        /// Each shadow's book and its cover's, if drawn with one.
        func covers(_ state: ViewState) -> [(book: Int, cover: Int?)] {
            FramePlanner.boxesAndFaces(makeScene(state, books: books).items, outlines: true).boxes.compactMap { draw in
                if case let .deskShadow(shadow, cover) = draw { return (shadow.book, cover?.book) } else { return nil }
            }
        }
        var shelf = ViewState()
        shelf.shelf = .wheel
        shelf.scroll = 1
        let shut = covers(shelf)
        #expect(shut.count >= 3 && shut.allSatisfy { $0.cover == $0.book }, "\(shut)")
        var opening = ViewState()
        opening.book = 0
        opening.openProgress = 0.5
        let open = covers(opening).filter { $0.book == 0 }
        #expect(!open.isEmpty && open.allSatisfy { $0.cover == nil }, "\(open)")
    }
}
