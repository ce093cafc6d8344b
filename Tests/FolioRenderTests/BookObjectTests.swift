import FolioBook
import FolioLayout
import FolioMath
import FolioRender
import Foundation
import Testing

/// The open book as an object: page blocks whose edges show and grow with the page count, and
/// the book's soft shadow on the desk.
@Suite(.serialized) struct BookObjectTests {
    static let width = 640, height = 360

    /// A book of `images` pages open in the middle, seen from above (the fore edges face the eye).
    static func scene(of images: Int) -> Scene {
        let info = BookInfo(title: "Test", imageCount: images)
        return makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(info.lastSpread / 2),
                                   viewpoint: .above), books: [info])
    }

    static func middle(of images: Int) throws -> RGBAImage {
        try GLHarness.shared.render(scene(of: images), width: width, height: height)
    }

    /// Columns right of the right page's outer edge (projected, at the middle of its height)
    /// lighter than the desk (luma under 70 there): the visible fore edge of the page block.
    static func foreEdgeWidth(_ img: RGBAImage, _ scene: Scene) throws -> Int {
        let page = try #require(scene.items.last { $0.kind == .page })
        let at = scene.camera.projectToView(page.model.project(Vec3(page.size.x, 0, 0)))
        let edge = Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width))
        return (edge..<(edge + 60)).filter { img.luma($0, height / 2) > 90 }.count
    }

    @Test func pageBlocksShowAndGrowWithThePageCount() throws {
        let thin = try Self.foreEdgeWidth(try Self.middle(of: 20), Self.scene(of: 20))
        let thick = try Self.foreEdgeWidth(try Self.middle(of: 800), Self.scene(of: 800))
        #expect(thick >= 3, "an 800-page book shows its fore edge: \(thick) columns")
        #expect(thick > thin + 2, "the block grows with the pages: \(thin) → \(thick) columns")
    }

    @Test func theBookShadowsTheDesk() throws {
        let img = try Self.middle(of: 100)
        let empty = try GLHarness.shared.render(
            makeScene(ViewState(phase: .shelf), books: []).withDesk, width: Self.width, height: Self.height)
        // Just below the book's bottom edge (the first desk-dark row), against the bare desk.
        let edge = try #require((300..<Self.height).first { img.luma(400, $0) < 80 })
        let near = img.meanLuma(x: 380, y: edge, width: 40, height: 3), bare = empty.meanLuma(x: 380, y: edge, width: 40, height: 3)
        let far = img.meanLuma(x: 380, y: edge + 20, width: 40, height: 3), bareFar = empty.meanLuma(x: 380, y: edge + 20, width: 40, height: 3)
        #expect(near < bare - 6, "the desk next to the book is shadowed: \(near) against \(bare)")
        #expect(far - bareFar > near - bare, "the shadow fades away from the book")
    }
}

extension BookObjectTests {
    /// The fan is shaded like the flat layout: a page is darker next to the spine, where the
    /// page hinged over it hides the sky, than towards its fore edge.
    @Test func fanPagesDarkenTowardsTheSpine() throws {
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .fan, spread: 4),
                              books: [BookInfo(title: "Test", imageCount: 20)])
        let img = try GLHarness.shared.render(scene, width: Self.width, height: Self.height)
        let spine = Self.width / 2, y = Self.height / 2 - 20
        let near = img.meanLuma(x: spine + 6, y: y, width: 4, height: 40)
        let far = img.meanLuma(x: spine + 120, y: y, width: 4, height: 40)
        #expect(near < far - 20, "next to the spine \(near), towards the fore edge \(far)")
    }
}

private extension Scene {
    /// The same room as an open book's, with nothing in it.
    var withDesk: Scene {
        var s = self
        s.deskAmount = 1
        return s
    }
}

extension BookObjectTests {
    /// A shelf book's front board shows its thickness: across the board's face where it
    /// overhangs (the cover's print left out), from its top edge inwards, a dark sliver at the
    /// very edge, then a light crest where the cloth turns, then the face's own colour. Before,
    /// the overhang was one flat colour: a slab's.
    @Test func theBoardsEdgeShowsARoundedRim() throws {
        var scene = makeScene(ViewState(phase: .shelf), books: [BookInfo(title: "Test", imageCount: 20)])
        scene.items = scene.items.filter { $0.kind == .board && $0.book == 0 }
        let board = try #require(scene.items.first)
        let width = 2560, height = 1440
        let img = try GLHarness.shared.render(scene, width: width, height: height)
        func pixel(_ p: Vec3) -> (x: Int, y: Int) {
            let at = scene.camera.projectToView(board.model.project(p))
            return (Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width)), Int((0.5 - at.y / scene.camera.viewSize.y) * Double(height)))
        }
        let grow = BookBoard.overhang(board.thickness), tall = board.size.y + 2 * grow
        let edge = pixel(Vec3(board.size.x / 2, tall / 2, 0)), inside = pixel(Vec3(board.size.x / 2, tall / 2 - 2 * grow, 0))
        try #require(inside.y - edge.y > 6, "the overhang from row \(edge.y) to \(inside.y)")
        // From the first row of the board (lighter than the backdrop above it) to well inside.
        let x = edge.x, backdrop = img.luma(x, edge.y - 12)
        let top = try #require((edge.y - 6...edge.y + 6).first { abs(img.luma(x, $0) - backdrop) > 4 })
        let rows = (top..<(inside.y + 2)).map { img.luma(x, $0) }
        let face = img.luma(x, inside.y + 8)
        let crest = rows.max() ?? 0
        #expect(crest > face + 8, "a light crest in \(rows) above the face's \(face)")
        #expect(rows[0] < crest - 8, "a dark sliver at the edge: \(rows)")
    }

    /// At 640 × 360 a shelf book's overhang is under two pixels, yet its board still shows: with
    /// the cover printed on it, at MSAA 0 and 4, the board's pixels just past the cover's right
    /// and top edges hold a lit crest well above the cover's cloth beside it (before, the crest and
    /// the sliver were each a third of the overhang, under a pixel: 3 levels above the cloth;
    /// now 18).
    @Test(arguments: [0, 4])
    func theBoardsRimShowsOnASmallShelf(_ samples: Int) throws {
        let scene = makeScene(ViewState(phase: .shelf), books: ShelfBookTests.books(20))
        let cover = try #require(scene.items.first { $0.kind == .cover && $0.book == 0 })
        let width = 640, height = 360
        let img = try GLHarness.shared.render(scene, width: width, height: height, library: ShelfBookTests.library,
                                              configuration: RenderConfiguration(samples: samples, filtering: .software))
        func pixel(_ a: Double, _ l: Double) -> (x: Int, y: Int) {
            let at = scene.camera.projectToView(cover.model.project(Vec3(a, l, 0)))
            return (Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width)), Int((0.5 - at.y / scene.camera.viewSize.y) * Double(height)))
        }
        let right = pixel(cover.size.x, 0), top = pixel(cover.size.x / 2, cover.size.y / 2)
        let cloth = img.luma(right.x - 2, right.y), clothTop = img.luma(top.x, top.y + 2)
        let crest = (right.x - 1...right.x + 3).map { img.luma($0, right.y) }.max() ?? 0
        let crestTop = (top.y - 3...top.y + 1).map { img.luma(top.x, $0) }.max() ?? 0
        #expect(crest > cloth + 12, "msaa \(samples): the right edge's crest \(crest) against the cloth's \(cloth)")
        #expect(crestTop > clothTop + 12, "msaa \(samples): the top edge's crest \(crestTop) against the cloth's \(clothTop)")
    }

    /// Where the two pages meet at the spine, no column darker than the gutter's own curve: at
    /// MSAA 0 the spine's columns no darker than their neighbours and within a few levels of a
    /// frame with every face multisampled (a one-pixel dark seam there once read 103 where MSAA
    /// gave 136; a 400-page book's spine column, which one page or the other takes whole
    /// without MSAA, differs by 9 where the two stacks' heights differ).
    @Test(arguments: [20, 400])
    func theSpineHasNoSeam(_ images: Int) throws {
        let info = BookInfo(title: "Test", imageCount: images)
        let scene = makeScene(ViewState(phase: .reading, book: 0, layout: .flat, spread: Double(info.lastSpread / 2)), books: [info])
        let page = try #require(scene.items.last { $0.kind == .page })
        // An odd width: the spine runs through the middle of a column, which both pages share.
        let width = 1281, height = 720
        let plain = try GLHarness.shared.render(scene, width: width, height: height)
        let multisampled = try GLHarness.shared.render(scene, width: width, height: height,
                                                       configuration: RenderConfiguration(samples: 4, filtering: .software)) {
            $0.multisampleBoxesOnly = false
        }
        for l in [-0.3, 0, 0.3] {
            let at = scene.camera.projectToView(page.model.project(Vec3(0, l * page.size.y, 0)))
            let x = Int((at.x / scene.camera.viewSize.x + 0.5) * Double(width)), y = Int((0.5 - at.y / scene.camera.viewSize.y) * Double(height))
            let row = (x - 4...x + 4).map { plain.luma($0, y) }
            for i in 3...5 {
                #expect(row[i] > min(row[i - 1], row[i + 1]) - 6, "\(images) pages, row \(y): a dark column at \(x - 4 + i) in \(row)")
                #expect(abs(row[i] - multisampled.luma(x - 4 + i, y)) < 12,
                        "\(images) pages, row \(y), column \(x - 4 + i): \(row[i]) against MSAA's \(multisampled.luma(x - 4 + i, y))")
            }
        }
    }
}
