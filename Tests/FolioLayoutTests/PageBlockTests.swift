import FolioLayout
import FolioMath
import Testing

/// Page blocks through a jump and in the fan: the stacks' heights never jump, and the fan's
/// book has its blocks and cover boards.
@Suite struct PageBlockTests {
    /// The top of the page lying open on each side (its fore edge, world z) and the blocks'
    /// thicknesses, right then left.
    static func stacks(_ scene: Scene) -> [Double] {
        let pages = scene.items.filter { $0.kind == .page && $0.visible }
        let blocks = scene.items.filter { $0.kind == .block }
        func side(_ items: [SceneItem], right: Bool) -> SceneItem? { items.first { ($0.model.determinant > 0) == right } }
        return [true, false].flatMap { right -> [Double] in
            [side(pages, right: right).map { world($0, $0.size.x, 0).z } ?? 0, side(blocks, right: right)?.thickness ?? 0]
        }
    }

    /// A jump of 99 sheets (and one of 100 back), frame by frame at 100 frames a turn, from the
    /// resting spread it leaves to the one it lands on: no page top or block thickness moves
    /// more than a unit (about two pixels at 1080p) from one frame to the next. Before, the
    /// stacks took their new heights at the first and the last frame: 20 units at once.
    @Test(arguments: [TurnDeform.curl, .rigid], [(100, 199), (199, 99)])
    func blockThicknessIsContinuousThroughAJump(_ deform: TurnDeform, _ jump: (Int, Int)) {
        let b = book(400)
        func scene(_ spread: Int, _ turn: TurnState?) -> Scene {
            makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(spread), turn: turn, deform: deform), books: [b])
        }
        let frames = [scene(jump.0, nil)]
            + (0...100).map { scene(jump.0, TurnState(from: jump.0, to: jump.1, progress: Double($0) / 100)) }
            + [scene(jump.1, nil)]
        let values = frames.map(Self.stacks)
        var worst = 0.0
        for (a, c) in zip(values, values.dropFirst()) {
            worst = max(worst, zip(a, c).map { abs($0 - $1) }.max() ?? 0)
        }
        #expect(worst < 1, "largest step of a page top or block from one frame to the next: \(worst) units")
        // And the stacks do change: by about the sheets that turned.
        #expect(abs(values[0][1] - values.last![1]) > 15, "\(values[0]) → \(values.last!)")
    }

    /// The fan's book lies on its cover boards, with the sheets lying flat on each side as a
    /// block, thicker where more sheets lie.
    @Test func theFanHasBlocksAndCovers() {
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: 40), books: [book(400)])
        let boards = scene.items.filter { $0.kind == .board }
        let blocks = scene.items.filter { $0.kind == .block }
        #expect(boards.count == 2 && Set(boards.map { $0.model.determinant > 0 }).count == 2, "a board each side")
        let right = blocks.first { $0.model.determinant > 0 }, left = blocks.first { $0.model.determinant < 0 }
        #expect((right?.thickness ?? 0) > (left?.thickness ?? 0) && (left?.thickness ?? 0) > 5,
                "blocks: right \(right?.thickness ?? 0), left \(left?.thickness ?? 0)")
    }
}
