import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioMath
import FolioRender
import Foundation
import Testing

/// Books as objects on the shelf: boxes whose depth shows beside the side covers (page edges on
/// the left book, the spine on the right one), wider for a thicker book, and an opening that
/// turns the front board from the shelf's box to the open book without a jump (in the fan the
/// pages open as cards over the box, which shrinks away).
@Suite(.serialized) struct ShelfBookTests {
    static let library = Library.load(from: GLHarness.textures)
    static let width = 1280, height = 720

    /// The sample covers on books of `images` pages each.
    static func books(_ images: Int) -> [BookInfo] {
        library.bookInfos.map { var b = $0; b.imageCount = images; return b }
    }

    static func render(_ scene: Scene) throws -> RGBAImage {
        try GLHarness.shared.render(scene, width: width, height: height, library: library)
    }

    /// Where the cover of `book` has its edge at local across `a` (0 the spine edge), mid-height,
    /// in pixels (the view is 1280 × 720 layout units: one a pixel).
    static func edge(_ scene: Scene, book: Int, across a: Double) throws -> Int {
        let cover = try #require(scene.items.first { $0.kind == .cover && $0.book == book })
        let p = scene.camera.projectToView(cover.model.project(Vec3(a * cover.size.x, 0, 0)))
        return Int((p.x + Double(width) / 2).rounded())
    }

    /// Columns next to a cover's edge at mid-height, from two pixels out (past the cover's own
    /// rim) going outwards by `step` while `part` holds: the box's side.
    static func side(_ img: RGBAImage, from x: Int, step: Int, _ part: ((r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool) -> [Int] {
        Array(stride(from: x + 2 * step, through: x + 40 * step, by: step).prefix { part(img.pixel($0, height / 2)) })
    }

    /// The red book's board (its cloth: green under half its red) and paper (red and green
    /// alike), unlike the brown desk (green about 0.7 of its red).
    static func redBox(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
        Int(p.r) > Int(p.b) + 8 && (2 * Int(p.g) < Int(p.r) || abs(Int(p.r) - Int(p.g)) < 16)
    }

    @Test func sideBooksShowPageEdgesAndSpine() throws {
        let scene = makeScene(ViewState(phase: .shelf, scroll: 1), books: Self.books(800))
        let img = try Self.render(scene)
        // The left book's fore edge faces the eye: between its boards' red edges, paper, light
        // and warm.
        let fore = try Self.edge(scene, book: 0, across: 1)
        let paper = Self.side(img, from: fore, step: 1, Self.redBox).filter {
            let p = img.pixel($0, Self.height / 2)
            return img.luma($0, Self.height / 2) > 100 && abs(Int(p.r) - Int(p.g)) < 12 && p.g > p.b
        }
        #expect(paper.count >= 2, "paper beside the left cover's fore edge (x \(fore)): columns \(paper)")
        // The right book's spine faces the eye: the cover's green cloth, dark (it faces away from
        // the light), not paper, not backdrop.
        let spine = try Self.edge(scene, book: 2, across: 0)
        let cloth = Self.side(img, from: spine, step: -1) { p in Int(p.g) > Int(p.r) + 8 && Int(p.g) > Int(p.b) + 4 }
        #expect(cloth.count >= 3, "the cover's cloth beside the right cover's spine edge (x \(spine)): columns \(cloth)")
    }

    @Test func aThickerBookIsADeeperBox() throws {
        func depth(_ images: Int) throws -> Int {
            let scene = makeScene(ViewState(phase: .shelf, scroll: 1), books: Self.books(images))
            return Self.side(try Self.render(scene), from: try Self.edge(scene, book: 0, across: 1), step: 1, Self.redBox).count
        }
        let thin = try depth(20), thick = try depth(800)
        #expect(thin >= 2, "even a thin book is a box: \(thin) columns")
        #expect(thick > thin + 3, "a 800-page book's side \(thick) columns, a 20-page one's \(thin)")
    }

    /// Shelf, opening frame by frame on an eased curve, the open book: every step small next to
    /// its neighbours, the first (shelf → opening at 0) and the last (opening at 1 → reading) none.
    @Test(arguments: BookLayout.allCases)
    func openingHasNoJump(_ layout: BookLayout) throws {
        let books = Self.books(200)
        var states = [ViewState(viewSize: Vec2(1280, 720), phase: .shelf)]
        let count = 16
        for i in 0...count {
            let t = Double(i) / Double(count)
            states.append(ViewState(phase: .opening, book: 0, openProgress: t * t * (3 - 2 * t), layout: layout))
        }
        states.append(ViewState(phase: .reading, book: 0, layout: layout))
        let scenes = states.map { makeScene($0, books: books) }
        let images = try GLHarness.shared.frames(scenes, width: 320, height: 180, library: Self.library)
        let d = zip(images, images.dropFirst()).map { ContinuityTests.difference($0, $1) }
        #expect(d.first! < 0.05, "\(layout): the shelf's box is the opening's first frame: \(d)")
        #expect(d.last! < 0.05, "\(layout): the opening's last frame is the open book: \(d)")
        for i in 1..<(d.count - 1) {
            let neighbours = max(d[i - 1], d[i + 1])
            #expect(d[i] <= 2.5 * neighbours + 0.25, "\(layout): frame \(i + 1) jumps (\(d[i]) against \(neighbours)): \(d)")
        }
    }

    /// A book is taken from the row and opened on the same desk: over the shelf, an opening in
    /// small steps and the open book, the room in a corner far from the book (a block's mean, past
    /// the dither) keeps its colour, brown, within a level. Before, it cross-faded from the shelf's
    /// blue-grey to the desk's brown while the book opened (4 levels an eighth, 31 in all).
    @Test func theRoomKeepsItsColourWhileABookOpens() throws {
        var states = [ViewState(viewSize: Vec2(1280, 720), phase: .shelf)]
        for i in 0...8 { states.append(ViewState(phase: .opening, book: 0, openProgress: Double(i) / 8)) }
        states.append(ViewState(phase: .reading, book: 0))
        let images = try GLHarness.shared.frames(states.map { makeScene($0, books: Self.books(200)) },
                                                 width: 320, height: 180, library: Self.library)
        let corners = images.map { img -> [Double] in
            let block = (0..<8).flatMap { y in (0..<8).map { img.pixel($0, y) } }
            return [block.map { Double($0.r) }, block.map { Double($0.g) }, block.map { Double($0.b) }].map { $0.reduce(0, +) / 64 }
        }
        for (a, b) in zip(corners, corners.dropFirst()) {
            #expect(zip(a, b).map { abs($0 - $1) }.max()! <= 1, "the room's corner changes: \(a) → \(b)")
        }
        for c in corners { #expect(c[0] > c[2] + 4, "the room is brown (red over blue) throughout: \(c)") }
        #expect(zip(corners.first!, corners.last!).map { abs($0 - $1) }.max()! <= 1, "shelf \(corners.first!), open \(corners.last!)")
    }

    /// A moment into opening, the first page and the leaves seen beside the lifted front board
    /// lie in the board's shade (as a page under a turning sheet), lighter as the board rises,
    /// and the board over them is not darkened with them. Before, the paper between the boards
    /// was lit as an open page: a plain cream face.
    @Test func thePageUnderTheLiftedBoardIsInItsShade() throws {
        func frames(_ p: Double) throws -> (shaded: RGBAImage, lit: RGBAImage, scene: Scene) {
            let scene = makeScene(ViewState(phase: .opening, book: 0, openProgress: p), books: Self.books(200))
            var lit = scene
            lit.items = lit.items.map { var i = $0; i.shade.reveal = 0; return i }
            let images = try GLHarness.shared.frames([scene, lit], width: Self.width, height: Self.height, library: Self.library)
            return (images[0], images[1], scene)
        }
        func strip(_ f: (shaded: RGBAImage, lit: RGBAImage, scene: Scene)) throws -> (darker: Double, board: Double) {
            let page = try #require(f.scene.items.first { $0.kind == .page && $0.book == 0 && $0.model.determinant > 0 })
            let cover = try #require(f.scene.items.first { $0.kind == .cover && $0.book == 0 })
            func pixel(_ item: SceneItem, _ a: Double) -> Int {
                let at = f.scene.camera.projectToView(item.model.project(Vec3(a * item.size.x, 0, 0)))
                return Int((at.x / f.scene.camera.viewSize.x + 0.5) * Double(Self.width))
            }
            // Beside the stack's fore edge: the leaves fanned up with the board, when there are
            // any (the page on the stack lifts with them), else the page.
            let leaves = f.scene.items.first { $0.kind == .block && $0.book == 0 && $0.leafAngle > 0 }
            let y = Self.height / 2, edge = pixel(leaves ?? page, 1)
            let darker = (edge - 12...edge - 2).map { f.lit.luma($0, y) - f.shaded.luma($0, y) }.max() ?? 0
            let middle = pixel(cover, 0.5)
            return (darker, abs(f.lit.luma(middle, y) - f.shaded.luma(middle, y)))
        }
        let early = try strip(try frames(0.12)), later = try strip(try frames(0.35))
        #expect(early.darker > 40, "the page beside the lifted board darker by \(early.darker) than lit")
        #expect(later.darker < early.darker && later.darker > 5, "lighter as the board rises: \(early.darker) → \(later.darker)")
        #expect(early.board < 1 && later.board < 1, "the board over it not darkened: \(early.board), \(later.board)")
    }

    /// A moment into opening (`--open 0.12`), the paper seen between the lifted front board and
    /// the back board is the edges of leaves fanned up off the stack (`BookBody.leaves`), found
    /// from their geometry: at 1920 × 1080 its columns differ as sheet lines do (before, the top
    /// page under the board filled the strip: one flat grey); at 640 × 360 the leaves' columns are
    /// those of the 1920 × 1080 picture averaged down (no line pattern finer than a pixel beats
    /// against the grid); at both sizes, with and without MSAA, each column is even along the
    /// edge (no moiré).
    @Test func thePaperBetweenTheBoardsIsLeaves() throws {
        let scene = makeScene(ViewState(phase: .opening, book: 0, openProgress: 0.12), books: Self.books(200))
        let leaves = try #require(scene.items.first { $0.kind == .block && $0.leafAngle > 0 })
        let (a, phi) = (leaves.size.x, leaves.leafAngle)
        var large: RGBAImage?
        for (width, samples) in [(1920, 0), (1920, 4), (640, 0), (640, 4)] {
            let height = width * 9 / 16, scale = 1920 / width
            let img = try GLHarness.shared.render(scene, width: width, height: height, library: Self.library,
                                                  configuration: RenderConfiguration(samples: samples, filtering: .software))
            if large == nil { large = img }
            func column(_ p: Vec3) -> Int { Int(((scene.camera.projectToView(p).x / scene.camera.viewSize.x + 0.5) * Double(width)).rounded()) }
            // From the top leaf's edge to the stack's fore edge, the paper's columns (not the
            // cover's red cloth), over the middle fifth of the height.
            let rows = (2 * height / 5)..<(3 * height / 5)
            func paper(_ x: Int) -> Bool {
                let p = (rows.lowerBound..<rows.upperBound).map { img.pixel(x, $0) }
                let r = p.map { Double($0.r) }.reduce(0, +), g = p.map { Double($0.g) }.reduce(0, +)
                return img.meanLuma(x: x, y: rows.lowerBound, width: 1, height: rows.count) > 90 && r - g < 20 * Double(p.count)
            }
            let top = column(leaves.model.project(Vec3(a * cos(phi), 0, a * sin(phi))))
            let strip = (top - 2...column(leaves.model.project(Vec3(a, 0, 0))) + 1).filter(paper)
            let means = strip.map { img.meanLuma(x: $0, y: rows.lowerBound, width: 1, height: rows.count) }
            let shown = means.map { Int($0.rounded()) }
            if width == 1920 {
                let level = means.reduce(0, +) / Double(max(means.count, 1))
                let spread = (means.map { ($0 - level) * ($0 - level) }.reduce(0, +) / Double(max(means.count, 1))).squareRoot()
                #expect(strip.count >= 6 && spread > 3, "MSAA \(samples): leaves' lines between the boards, columns \(strip): \(shown)")
            } else if let large {
                // The two columns past the top leaf's edge are the leaves' (the edge's column
                // shares its pixels with the board, without MSAA with the fringe along the
                // board's outline; the last ones with the top page's edge).
                #expect(strip.count >= 3, "MSAA \(samples): the leaves' strip at 640 × 360, columns \(strip)")
                for x in [top + 1, top + 2] {
                    let m = img.meanLuma(x: x, y: rows.lowerBound, width: 1, height: rows.count)
                    let averaged = large.meanLuma(x: x * scale, y: rows.lowerBound * scale, width: scale, height: rows.count * scale)
                    #expect(abs(m - averaged) < 10, "MSAA \(samples): column \(x) at 640 × 360 is \(Int(m)), the larger picture's \(Int(averaged)): \(shown)")
                }
            }
            let runs = rows.count / 8
            for x in strip {
                let m = (0..<8).map { img.meanLuma(x: x, y: rows.lowerBound + $0 * runs, width: 1, height: runs) }
                let mean = m.reduce(0, +) / 8
                #expect(m.allSatisfy { abs($0 - mean) < 3 }, "\(width), MSAA \(samples): column \(x) along the edge: \(m.map { Int($0.rounded()) })")
            }
        }
    }

    /// Half open, the front board stands on its spine edge: its fore edge, the cover's blue
    /// cloth, faces the eye beside the inside of the cover; no neighbour shows through the book.
    @Test func theStandingFrontBoardShowsItsEdge() throws {
        let scene = makeScene(ViewState(phase: .opening, scroll: 1, book: 1, openProgress: 0.5), books: Self.books(200))
        #expect(scene.items.allSatisfy { $0.opacity == 1 })
        let img = try Self.render(scene)
        let board = try #require(scene.items.first { $0.kind == .board && $0.book == 1 && $0.model.determinant < 0 })
        let edge = board.model.project(Vec3(board.size.x + BookBoard.overhang(board.thickness), 0, -board.thickness / 2))
        let at = scene.camera.projectToView(edge)
        let x = Int((at.x + Double(Self.width) / 2).rounded()), y = Int((Double(Self.height) / 2 - at.y).rounded())
        let p = img.pixel(x, y)
        #expect(Int(p.b) > Int(p.r) + 20 && img.luma(x, y) < 90, "the board's fore edge at (\(x), \(y)) is the blue cloth: \(p)")
    }

    /// Late in the opening the front board's stack turns about a hinge above the spine, so the
    /// spine edge of the page on it stands off the first page's by a pixel or two: between them
    /// the joint's paper shows, as dark as the pages at the spine, never the desk beneath
    /// (luma 17–60 there before, a line down the spine flickering as the book settled). MSAA 0
    /// and 4, software and GPU filtering.
    @Test(arguments: RenderConfiguration.matrix)
    func theSpineShowsNoGapLateInTheOpening(_ configuration: RenderConfiguration) throws {
        let (w, h) = (1280, 720)
        for progress in [0.88, 0.9, 0.93] {
            let scene = makeScene(ViewState(phase: .opening, book: 0, openProgress: progress), books: Self.library.bookInfos)
            let img = try GLHarness.shared.render(scene, width: w, height: h, library: Self.library, configuration: configuration)
            let page = try #require(scene.items.first { $0.kind == .page && $0.visible && $0.front.kind == .page && $0.angle == 0 })
            let at = { (y: Double) in scene.camera.projectToView(page.model.project(Vec3(0, y * page.size.y, 0))) }
            let spine = Int(((at(0).x / scene.camera.viewSize.x + 0.5) * Double(w)).rounded())
            let (top, bottom) = (at(0.4), at(-0.4))
            let rows = Int(((0.5 - top.y / scene.camera.viewSize.y) * Double(h)).rounded())...Int(((0.5 - bottom.y / scene.camera.viewSize.y) * Double(h)).rounded())
            let darkest = rows.map { y in (spine - 6...spine + 2).map { img.luma($0, y) }.min()! }.min()!
            #expect(darkest > 120, "open \(progress), \(configuration): the spine (column \(spine)) goes down to \(darkest)")
        }
    }

    /// Half open, the first page lies curving into the gutter over its block: no column of it,
    /// least of all where the curve ends, shows the cleared frame through it (the pages'
    /// depth-only pass once stood in front of the curve there, at this size).
    @Test func theOpeningPageHasNoSeamWhereItsCurveEnds() throws {
        let scene = makeScene(ViewState(phase: .opening, book: 0, openProgress: 0.5), books: Self.library.bookInfos)
        let (w, h) = (960, 540)
        let img = try GLHarness.shared.render(scene, width: w, height: h, library: Self.library)
        func pixelX(_ page: SceneItem, _ a: Double) -> Int {
            let at = scene.camera.projectToView(page.model.project(Vec3(a, 0, 0)))
            return Int(((at.x / scene.camera.viewSize.x + 0.5) * Double(w)).rounded())
        }
        // The page facing the eye (the widest on screen).
        let page = try #require(scene.items.filter { $0.kind == .page && $0.visible && $0.gutterDrop.x > 0 }
            .max { abs(pixelX($0, $0.size.x) - pixelX($0, 0)) < abs(pixelX($1, $1.size.x) - pixelX($1, 0)) })
        let (from, to) = (pixelX(page, 0), pixelX(page, page.size.x * 1.5 * GutterCurve.width))
        // The page's margin, from the spine out past the curve: its own paper.
        for x in (min(from, to) + 3)..<max(from, to) {
            let luma = (h / 3..<h / 3 + 20).map { img.luma(x, $0) }.min() ?? 0
            #expect(luma > 150, "column \(x) (page from \(from) to \(to)) is dark: \(luma)")
        }
    }
}
