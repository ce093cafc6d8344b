import FolioImage
import FolioLayout
import FolioRender
import FolioScript
import Testing

/// A turning sheet leaves and lands on a page of its size lying open, their edges in the same
/// place: both rims were drawn, the sheet's over the page's, and the two added up to a lighter
/// line along the page's top, bottom and fore edge in the first frame of every turn and in
/// the last (640×360: 574–622 pixels changed by more than 20 levels, up to 46, with nothing
/// moving). The sheet's rim is left to the page's until it lifts off.
@Suite(.serialized) struct SheetRimTests {
    /// Pixels of two frames that differ by more than 30 levels of luma. The rims added up to 46;
    /// a stack's block gains or loses the sheet as a turn starts and lands, and its flared foot
    /// moves by a tenth of a pixel at 1920×1080, which its outline's fringe (edge.vert) shows as
    /// up to 27 levels along that one column.
    static func changed(_ a: RGBAImage, _ b: RGBAImage) -> Int {
        var n = 0
        for y in 0..<a.height {
            for x in 0..<a.width where abs(a.luma(x, y) - b.luma(x, y)) > 30 { n += 1 }
        }
        return n
    }

    /// Pixels of `b` darker than in `a` by more than 40 levels of luma.
    static func darkened(_ a: RGBAImage, _ b: RGBAImage) -> [(x: Int, y: Int)] {
        var out: [(x: Int, y: Int)] = []
        for y in 0..<a.height {
            for x in 0..<a.width where b.luma(x, y) < a.luma(x, y) - 40 { out.append((x, y)) }
        }
        return out
    }

    static func frame(width: Int = 640, height: Int = 360, configuration: RenderConfiguration = .reference,
                      _ configure: (inout StillState) -> Void) throws -> RGBAImage {
        try GLHarness.shared.render(try ContinuityTests.still(configure), width: width, height: height,
                                    library: ContinuityTests.library, configuration: configuration)
    }

    /// Pixels changed by more than 30 levels between the spread at layout page `page` and a
    /// `deform` turn's first frame, and between the spread two pages on and its last.
    static func startAndLanding(page: LayoutPage, _ deform: TurnDeform,
                                _ frame: ((inout StillState) -> Void) throws -> RGBAImage) throws -> (start: Int, landing: Int) {
        let rest = try frame { $0.page = page }
        let start = try frame { $0.page = page; $0.turn = 0.0001; $0.deform = deform }
        let landed = try frame { $0.page = page.advanced(by: 2) }
        let landing = try frame { $0.page = page; $0.turn = 0.9999; $0.deform = deform }
        return (changed(rest, start), changed(landed, landing))
    }

    /// And at larger sizes, without MSAA: a block's top edge lay on the page's, its stepped
    /// silhouette under the page's antialiased rim, so the stretch of edge where the block's
    /// light top showed through moved as the stack under the sheet lost it (1280×720: 94 and
    /// 114 pixels by more than 20 levels along the head and the tail). It lies a pixel inside
    /// now (block.vert's uTopInset).
    /// A cone's too: an asin and a sin in a row in page.vert's cone, each approximated in single
    /// precision, moved a nearly flat cone's fore edge a tenth of a pixel (1920×1080: 610 pixels
    /// of that edge's column darker by up to 23 as the turn began).
    @Test(arguments: [(TurnDeform.curl, 640, 360), (.rigid, 640, 360), (.cone, 640, 360), (.rigid, 1280, 720), (.curl, 1920, 1080),
                      (.cone, 1920, 1080)])
    func aTurnStartsAndLandsWithoutALineAlongTheEdges(_ deform: TurnDeform, _ width: Int, _ height: Int) throws {
        let (s, l) = try Self.startAndLanding(page: 10, deform) { try Self.frame(width: width, height: height, $0) }
        #expect(s <= 10 && l <= 10, "\(deform) at \(width)×\(height): pixels changed by more than 30 levels as the turn starts \(s), as it lands \(l)")
    }

    /// The page a turn uncovers lies at its landing as it lies at rest: its type does not move
    /// as the turn ends. The gutter's curve of a page depends on the stack it faces; the
    /// uncovered page faced the other stack without the sheet in the air, one sheet lower than
    /// once it lands, and its type moved a fraction of a pixel in the frame after the landing.
    /// Most so on a book's first spreads, whose stacks are thin (the first turn at 1920×1080:
    /// 36,091 pixels of that half changed by more than 3 levels, up to 52). Its half of the
    /// frame is compared: the sheet landing on the other has a rim of its own.
    @Test func theUncoveredPageLiesAsAtRestAsTheTurnLands() throws {
        let rest = try Self.frame(width: 1920, height: 1080) { $0.page = 3 }
        for deform in [TurnDeform.curl, .rigid] {
            let landing = try Self.frame(width: 1920, height: 1080) { $0.page = 1; $0.turn = 0.9999; $0.deform = deform }
            var moved = 0, most = 0.0
            for y in 0..<rest.height {
                for x in rest.width / 2..<rest.width {
                    let d = abs(rest.luma(x, y) - landing.luma(x, y))
                    if d > 3 { moved += 1 }
                    most = max(most, d)
                }
            }
            #expect(moved <= 10, "\(deform): \(moved) pixels of the uncovered page changed by more than 3 levels (up to \(Int(most)))")
        }
    }

    /// And in the middle of a 400-page book, whose pages arch most (26 units at the fore edge):
    /// a cone's grid follows the arch more closely than a page at rest (its mesh's chords lie
    /// up to half a unit below the curve), and its head and tail sat higher by a tenth of a
    /// pixel as the turn began (1920×1080: 93 pixels by more than 20 levels). page.vert draws
    /// the arch along the resting mesh's chords (`rise`). The receiving stack's block, a sheet
    /// thinner through the turn, stays within a pixel's corner of the rest (the arch is in
    /// proportion to the drop, GutterCurve.arch).
    @Test(arguments: [TurnDeform.cone, .curl])
    func aTurnInTheMiddleOfAThickBookStartsAndLandsWithoutALine(_ deform: TurnDeform) throws {
        let books = [BookInfo(title: "Thick", imageCount: 400)]
        let (s, l) = try Self.startAndLanding(page: 200, deform) { configure in
            var still = StillState()
            configure(&still)
            return try GLHarness.shared.render(try still.scene(library: books), width: 1920, height: 1080)
        }
        #expect(s <= 10 && l <= 10, "\(deform): pixels changed by more than 30 levels as the turn starts \(s), as it lands \(l)")
    }

    /// The page beneath a sheet that has just left it is darkened (the sky the sheet hides, its
    /// shade); where the sheet still lies on it, the sheet leaves the edge to that page's rim, so
    /// the darkening stops short of its free edges there (shadow.frag's overlay). Darkened, that
    /// rim drew a grey line along the top, the bottom and the fore edge in the first and last
    /// frame of every turn wherever the edge fell across pixel centres (1280×720: 224–568 pixels
    /// darker by more than 40 levels in one row; at 640×360 none). With the boxes antialiased
    /// (MSAA 4); the test above measures them without.
    @Test(arguments: [TurnDeform.rigid, .curl], [(640, 360), (1280, 720), (1920, 1080)])
    func noEdgeDarkensAsATurnStartsOrLands(_ deform: TurnDeform, _ size: (Int, Int)) throws {
        let msaa = RenderConfiguration(samples: 4, filtering: .software)
        func frame(_ configure: (inout StillState) -> Void) throws -> RGBAImage {
            try Self.frame(width: size.0, height: size.1, configuration: msaa, configure)
        }
        let rest = try frame { $0.page = 10 }
        let start = try frame { $0.page = 10; $0.turn = 0.0001; $0.deform = deform }
        let landed = try frame { $0.page = 12 }
        let landing = try frame { $0.page = 10; $0.turn = 0.9999; $0.deform = deform }
        // A line is many such pixels in one row or column; a letter's pixel alone is the type's
        // (a landing sheet reads its texels where the page beneath reads them).
        func line(_ pixels: [(x: Int, y: Int)]) -> Int {
            let rows = Dictionary(grouping: pixels, by: \.y).values.map(\.count)
            let columns = Dictionary(grouping: pixels, by: \.x).values.map(\.count)
            return (rows + columns).max() ?? 0
        }
        let (s, l) = (Self.darkened(rest, start), Self.darkened(landed, landing))
        #expect(line(s) <= 2 && line(l) <= 2, "\(deform) at \(size.0)×\(size.1): pixels darker by more than 40 levels as the turn starts \(s.count) (\(line(s)) in a line), as it lands \(l.count) (\(line(l)) in a line)")
    }

    /// A sheet's first and last frames read their texels where the page it was, and becomes,
    /// reads them (page.frag aligns them with the sheet's own rest, page.vert's vAlign): aligned
    /// with the page beneath, a sheet lower, the type of a turn's first frame changed by a mean
    /// 1.1 levels at 1920×1080 (0.4 at 640×360), and its last frame's by 1.8 (0.7), jumping back
    /// as the page replaced it; a GPU's trilinear, anisotropic taps 0.9 and 1.5.
    @Test(arguments: [TextureFiltering.software, .gpu], [(640, 360), (1920, 1080)])
    func aTurnsEndsShowThePagesType(_ filtering: TextureFiltering, _ size: (Int, Int)) throws {
        let configuration = RenderConfiguration(samples: 0, filtering: filtering)
        func frame(_ configure: (inout StillState) -> Void) throws -> RGBAImage {
            try Self.frame(width: size.0, height: size.1, configuration: configuration, configure)
        }
        // The middle of each page's type: the right page's as the sheet leaves it, the left's
        // as it lands.
        func change(_ a: RGBAImage, _ b: RGBAImage, right: Bool) -> Double {
            let xs = right ? Int(0.58 * Double(a.width))..<Int(0.75 * Double(a.width)) : Int(0.25 * Double(a.width))..<Int(0.42 * Double(a.width))
            let ys = Int(0.25 * Double(a.height))..<Int(0.75 * Double(a.height))
            var sum = 0.0
            for y in ys { for x in xs { sum += abs(a.luma(x, y) - b.luma(x, y)) } }
            return sum / Double(xs.count * ys.count)
        }
        let rest = try frame { $0.page = 10 }
        let landed = try frame { $0.page = 12 }
        for deform in [TurnDeform.rigid, .curl] {
            let start = try frame { $0.page = 10; $0.turn = 0.0001; $0.deform = deform }
            let landing = try frame { $0.page = 10; $0.turn = 0.9999; $0.deform = deform }
            let (s, l) = (change(rest, start, right: true), change(landed, landing, right: false))
            #expect(s < 0.15 && l < 0.15, "\(deform), \(filtering) filtering, \(size.0)×\(size.1): the type changes by \(s) as the turn starts, \(l) as it lands")
        }
    }
}

