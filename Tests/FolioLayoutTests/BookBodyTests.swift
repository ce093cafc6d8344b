import FolioLayout
import FolioMath
import Testing

/// Books as boxes: the closed depth follows the page count within bounds, the shelf's box is
/// the opening's first pose, and the front board turns over the pages, never through them.
@Suite struct BookBodyTests {
    @Test func depthFollowsThePageCountWithinBounds() {
        let depths = [2, 100, 200, 400, 5000].map { BookBody.paper(book($0)) }
        #expect(depths[0] == BookBody.minPaper && depths.last == BookBody.maxPaper)
        #expect(zip(depths, depths.dropFirst()).allSatisfy { $0 <= $1 } && depths[1] < depths[3])
        // The open blocks' rule between the bounds: 0.2 units a sheet.
        #expect(close(BookBody.paper(book(200)), Double(book(200).sheetCount) * PageStack.sheetThickness))
        #expect(BookBody.depth(book(200)) > BookBody.paper(book(200)) + 2 * BookBoard.thickness)
    }

    /// The shelf shows each book as its cover, two boards, its paper and its shadow on the wall.
    @Test func shelfBooksAreBoxes() {
        let scene = makeScene(ViewState(phase: .shelf, scroll: 1), books: [book(20), book(400), book(40)])
        for b in 0..<3 {
            let kinds = scene.items.filter { $0.book == b }.map(\.kind)
            #expect(kinds.sorted { $0.rawValue < $1.rawValue } == [.block, .board, .board, .cover, .shadow], "book \(b): \(kinds)")
        }
        let blocks = scene.items.filter { $0.kind == .block }
        #expect(blocks[0].thickness < blocks[1].thickness && blocks.allSatisfy { $0.closed == 1 })
    }

    /// At open progress 0 the opening book's parts lie exactly where the shelf drew them.
    @Test(arguments: [BookInfo.Direction.ltr, .rtl], TurnStyle.Orientation.allCases)
    func theShelfBoxIsTheOpeningsFirstPose(_ direction: BookInfo.Direction, _ orientation: TurnStyle.Orientation) {
        let books = [book(300, direction), book(30, direction)]
        let style = TurnStyle(orientation: orientation)
        let shelf = makeScene(ViewState(phase: .shelf, style: style), books: books).items.filter { $0.book == 0 }
        let opening = makeScene(ViewState(phase: .opening, book: 0, openProgress: 0, style: style), books: books).items
            .filter { $0.book == 0 && $0.visible && ($0.kind != .block || $0.thickness > 0) && $0.kind != .page && ($0.kind != .shadow || $0.thickness > 0) }
        #expect(shelf.count == opening.count)
        for (a, b) in zip(shelf, opening) {
            #expect(a.kind == b.kind && close(a.thickness, b.thickness) && a.size == b.size && (a.kind != .cover || a.uv == b.uv))
            for corner in [Vec3(0, -284, 0), Vec3(362, 284, 0), Vec3(0, 0, -1)] {
                #expect(close(a.model.project(corner), b.model.project(corner), 1e-6), "\(a.kind) at \(corner)")
            }
        }
    }

    /// While the book opens, no corner of the front board (overhang included) that has crossed
    /// the spine lies below the right-hand page: the board turns over the block.
    @Test(arguments: [0, 3, 40])
    func theFrontBoardTurnsOverThePages(_ spread: Int) {
        let b = book(160)
        for k in 0...50 {
            let p = Double(k) / 50
            let items = makeScene(ViewState(phase: .opening, book: 0, openProgress: p, spread: Double(spread)), books: [b]).items
            guard let board = items.first(where: { $0.kind == .board && $0.model.determinant < 0 }),
                  // The right-hand page (not the joint's paper beneath the spine, `gutterJoint`).
                  let page = items.first(where: { $0.kind == .page && $0.front.kind == .page && $0.model.determinant > 0 }) else {
                Issue.record("no front board or right page at \(p)")
                return
            }
            let spine = page.model.project(Vec3(0, 0, 0))
            let grow = BookBoard.overhang(board.thickness)
            for a in [0, board.size.x + grow] {
                for l in [-1.0, 1] {
                    for z in [0, -board.thickness] {
                        let c = board.model.project(Vec3(a, l * (board.size.y / 2 + grow), z))
                        if c.x > spine.x + 1e-6 { #expect(c.z >= spine.z - 1e-6, "p \(p): corner \(c) under the page at \(spine.z)") }
                    }
                }
            }
        }
    }
}
