import FolioImage
import FolioLayout
import FolioMath
import Foundation
import Testing

/// A box's outline without multisampling (edge.vert's fringe): a slanted edge of a page block
/// lies on a straight line, not on a staircase of whole pixels.
@Suite(.serialized) struct OutlineTests {
    static let width = 640, height = 360

    /// A block of paper lying upside down on the desk (a block's top lies under its page, and
    /// has no fringe), turned by `angle` in the plane of the desk, seen from straight above its
    /// middle: its bottom shows, its sides turn away.
    static func block(angle: Double) -> Scene {
        let size = Vec2(180, 240)
        let item = SceneItem(kind: .block, book: 0, page: 0, size: size,
                             model: .rotationZ(angle) * .rotationX(.pi) * .translation(-size.x / 2, 0, 0), front: .blank, thickness: 20)
        return Scene(state: .reading, camera: Camera(viewSize: Vec2(Double(width), Double(height))), items: [item])
    }

    /// Where the block's spine edge crosses each of `rows`, to a fraction of a pixel: the first
    /// column of paper from the left (luma over 150), less the coverage of the two columns
    /// before it, each between the desk's luma three columns out and the paper's two columns in.
    static func edge(_ img: RGBAImage, rows: Range<Int>) -> [Double] {
        rows.compactMap { y in
            guard let first = (3..<width - 3).first(where: { img.luma($0, y) > 150 }) else { return nil }
            let desk = Double(img.luma(first - 3, y)), paper = Double(img.luma(first + 2, y))
            let covered = (first - 2..<first).map { min(max((Double(img.luma($0, y)) - desk) / (paper - desk), 0), 1) }
            return Double(first) - covered.reduce(0, +)
        }
    }

    /// How far positions along rows lie from the straight line fitted through them, RMS, pixels.
    static func wobble(_ xs: [Double]) -> Double {
        let n = Double(xs.count)
        let my = (n - 1) / 2, mx = xs.reduce(0, +) / n
        var sxy = 0.0, syy = 0.0
        for (i, x) in xs.enumerated() {
            sxy += (Double(i) - my) * (x - mx)
            syy += (Double(i) - my) * (Double(i) - my)
        }
        let slope = sxy / syy
        var sum = 0.0
        for (i, x) in xs.enumerated() {
            let off = x - mx - slope * (Double(i) - my)
            sum += off * off
        }
        return (sum / n).squareRoot()
    }

    /// Turned by 10°, the spine edge crosses 140 rows over 25 columns. Drawn with hard pixels it
    /// climbs in whole-pixel steps, 0.29 pixels from its line (RMS, the quantising of a uniform
    /// spread); with the fringe 0.10, with four samples 0.12.
    @Test(arguments: RenderConfiguration.matrix)
    func aSlantedEdgeIsStraight(_ configuration: RenderConfiguration) throws {
        let img = try GLHarness.shared.render(Self.block(angle: 10 * .pi / 180), width: Self.width, height: Self.height,
                                              configuration: configuration)
        let xs = Self.edge(img, rows: 110..<250)
        #expect(xs.count == 140, "the block's edge in every row: \(xs.count)")
        let slope = ((xs.last ?? 0) - (xs.first ?? 0)) / Double(max(xs.count - 1, 1))
        #expect(abs(slope - tan(10 * .pi / 180)) < 0.02, "the edge slants as the block turns: \(slope) a row")
        let off = Self.wobble(xs)
        #expect(off < 0.15, "the edge lies \(off) pixels (RMS) from a straight line, \(configuration)")
    }

    /// A board lying on another of its size (a shut book's boards, seen from above its
    /// middle): the lower one's outline lies a fraction of a pixel inside the upper one's, and
    /// its strip reached past it, over the upper one's. Each pixel takes one strip, the nearest
    /// box's: the pair looks as the upper board alone.
    @Test func boxesSharingAnOutlineDrawItOnce() throws {
        let size = Vec2(180, 240), thickness = 4.0
        func board(lowered: Double) -> SceneItem {
            SceneItem(kind: .board, book: 0, page: 0, size: size, model: .rotationZ(0.2) * .translation(-size.x / 2, 0, -lowered),
                      front: .cover(0), thickness: thickness)
        }
        let camera = Camera(viewSize: Vec2(Double(Self.width), Double(Self.height)))
        func render(_ items: [SceneItem]) throws -> RGBAImage {
            try GLHarness.shared.render(Scene(state: .shelf, camera: camera, items: items), width: Self.width, height: Self.height)
        }
        let alone = try render([board(lowered: 0)]), pair = try render([board(lowered: thickness), board(lowered: 0)])
        let r = try #require(ImageAssert.compare(pair, alone, channelTolerance: 2))
        #expect(r.failingPixels == 0, "\(r.failingPixels) pixels differ from the upper board alone (up to \(r.maxDelta))")
    }
}
