#if canImport(Glibc)
import Glibc
#endif
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

    /// A jump riffles: over the turn five sheets leave one after another, several in the air at
    /// once, the first showing the page the jump leaves, the last landing with the page it goes
    /// to, those between pages between; at either end the spread rests with no sheet drawn, on
    /// the pages it leaves and lands on. A turn of one sheet keeps its one sheet. Before, one
    /// sheet turned on behalf of a hundred.
    @Test(arguments: [TurnDeform.curl, .rigid, .cone], [(10, 110), (110, 10)])
    func aJumpRifflesSeveralSheets(_ deform: TurnDeform, _ jump: (Int, Int)) throws {
        let b = book(400)
        func scene(_ from: Int, _ to: Int, _ p: Double) -> Scene {
            makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(from),
                                turn: TurnState(from: from, to: to, progress: p), deform: deform), books: [b])
        }
        let frames = (0...50).map { scene(jump.0, jump.1, Double($0) / 50) }
        let sheets = frames.map { $0.items.filter { $0.kind == .sheet } }
        let forward = jump.1 > jump.0
        let fronts = Set(sheets.flatMap { $0.map(\.page.index) })
        #expect(fronts.count == 5 && (sheets.map(\.count).max() ?? 0) >= 3, "pages \(fronts.sorted()), in the air at once \(sheets.map(\.count))")
        #expect(fronts.contains(forward ? 2 * jump.0 + 2 : 2 * jump.0 + 1), "the first sheet shows the page left: \(fronts.sorted())")
        #expect(fronts.allSatisfy { (min(jump.0, jump.1) * 2...max(jump.0, jump.1) * 2 + 2).contains($0) })
        let last = try #require(sheets.last { !$0.isEmpty }?.first)
        #expect(last.back == .page(0, LayoutPage(forward ? 2 * jump.1 + 1 : 2 * jump.1 + 2)), "the last sheet lands with the page gone to")
        #expect(sheets.first!.isEmpty && sheets.last!.isEmpty)
        let shown = { (s: Scene) in Set(s.items.filter { $0.kind == .page && $0.visible }.map(\.page.index)) }
        #expect(shown(frames.first!) == [2 * jump.0 + 1, 2 * jump.0 + 2] && shown(frames.last!) == [2 * jump.1 + 1, 2 * jump.1 + 2])
        #expect((0...10).allSatisfy { scene(jump.0, jump.0 + 1, Double($0) / 10).items.filter { $0.kind == .sheet }.count == 1 })
    }

    /// A riffle's sheets keep their order by the spine: a sheet that left first, turned further,
    /// lies over the next one still near the stack they leave, in a thick book's jump from its
    /// start too. Before, each sheet's spine sank from the stack's height as it turned, so the
    /// first sank under the next (a curl by 4.8 units, a rigid flip by 2.3, 2–15% of the page
    /// from the spine), whose text then showed over the first's margin for a few frames.
    @Test(arguments: [TurnDeform.curl, .rigid, .cone], [(0, 199), (199, 0)])
    func aRifflesSheetsKeepTheirOrderByTheSpine(_ deform: TurnDeform, _ jump: (Int, Int)) {
        let b = book(400)
        var worst = -Double.infinity, pairs = 0
        for k in 0...200 {
            let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(jump.0),
                                            turn: TurnState(from: jump.0, to: jump.1, progress: Double(k) / 200), deform: deform), books: [b])
            // In the air, the first to leave drawn last (`flatTurn`); how high each lies 2–15% of
            // the page from the spine, along the page's normal at rest (world z).
            let sheets = scene.items.filter { $0.kind == .sheet }.reversed().map { s in
                (heights: [0.02, 0.05, 0.1, 0.15].map { s.model.project(s.deformation.apply(Vec2($0 * s.size.x, 0)).position).z },
                 turned: turnedFraction(s, fromRight: jump.1 > jump.0))
            }
            for (first, next) in zip(sheets, sheets.dropFirst()) where first.turned < 0.35 && next.turned < 0.35 {
                pairs += 1
                worst = max(worst, zip(first.heights, next.heights).map { $1 - $0 }.max()!)
            }
        }
        #expect(pairs > 10, "pairs of sheets both near the stack: \(pairs)")
        #expect(worst <= 1e-6, "a sheet that left later lies \(worst) units over the one before it")
    }

    /// How far a turning sheet has turned over, 0 … 1: a bent one's rotation about the spine, a
    /// rigid one's angle from lying on the stack it leaves (its local x along world x on the
    /// right, against it on the left).
    private func turnedFraction(_ s: SceneItem, fromRight: Bool) -> Double {
        switch s.deformation {
        case let .curl(c): c.rotation / .pi
        case let .cone(c): c.rotation / .pi
        case .flat: acos(clamp((fromRight ? 1 : -1) * normalize(s.model.transformDirection(Vec3(1, 0, 0))).x, -1, 1)) / .pi
        }
    }

    /// The fan's book stands on its cover boards, with the sheets at each end of the fan as a
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
