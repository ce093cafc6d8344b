#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// How an open book is laid out.
public enum BookLayout: String, Sendable, CaseIterable, Codable {
    /// The reference layout: pages fanned about the spine, the scroll position in spreads.
    case fan
    /// A book lying open on a desk: both stacks flat, page blocks, a gutter.
    case flat
}

/// Which side of the spine a face's local frame lies on.
public enum Side: Sendable, Equatable {
    /// Local a runs rightwards (+x): `uv: .identity`.
    case right
    /// Local a runs leftwards: the model mirrors x so the front still faces the viewer.
    case left

    /// The side of layout page `n`: even pages are sheet fronts, right of the spine.
    public init(page n: LayoutPage) { self = n.isFront ? .right : .left }

    public var opposite: Side { self == .right ? .left : .right }
}

/// The fan layout's formulas (docs/behaviour.md §4).
public enum Fan {
    public static let compression = 0.1
    public static let faceSeparation = 1.0 / 1000
    /// The ratio the fan ends at on either side, lying flat (the seed's clamp): the sheets that
    /// reach it lie in a block on their cover board, flat there too, so both boards' cloth rims
    /// show round it in every book, however long.
    public static let end = 1.0
    /// How many sheets from the middle of the fan (ratio 0) its end lies: past it, the blocks.
    static let reach = 0.5 + (end - 0.5) / compression

    /// `r = −0.5 + floor(i / 2) − s`, compressed by 0.1 beyond ±0.5 (not yet clamped).
    public static func ratio(page i: Int, spread s: Double) -> Double {
        let r = -0.5 + Double(i / 2) - s
        if r > 0.5 { return 0.5 + compression * (r - 0.5) }
        if r < -0.5 { return -0.5 + compression * (r + 0.5) }
        return r
    }

    /// How far the fan's own shading has come in as it rises out of the flat layout (`rise`
    /// 0 … 1): the wedges between its sheets and, going the other way, the flare of the blocks
    /// lying open. Eased over the middle half of the rise, where the sheets move fastest, so
    /// neither switches in one frame.
    static func shading(rise: Double) -> Double { smoothstep(0.25, 0.75, rise) }

    /// Whether ratio `r` lies at the fan's end, on its block.
    static func isAtEnd(_ r: Double) -> Bool { abs(r) >= end - 1e-9 }

    /// The sheets in the fan at spread `s` (the blocks' top sheets, on which the fan ends,
    /// included): those whose ratio reaches neither end.
    static func fanned(spread s: Double) -> ClosedRange<Int> {
        Int((s + 0.5 - reach + 1e-9).rounded(.down))...Int((s + 0.5 + reach - 1e-9).rounded(.up))
    }

    /// Where sheet `j` hinges on the spine at spread `s`, across it from its middle. The spine is
    /// as wide as the sheets it holds: the fanned ones hinge a sheet's thickness apart, from the
    /// reader's place (between the two sheets of spread `s`) out to the two blocks, which hang
    /// from its ends, `reach` sheets either way (each block's own sheets lie a sheet's thickness
    /// apart down its spine side). A sheet reaches an end of the spine as its ratio reaches an
    /// end of the fan, so each one moves on by a sheet's thickness through a turn and settles
    /// on its block without a step, and the blocks never move along it (the fan's room is not
    /// drawn again mid-turn).
    /// Centred on the fanned sheets instead, a set one larger mid-turn, every page stepped half
    /// a sheet as a turn set off and as it landed.
    static func hinge(sheet j: Int, spread s: Double) -> Double {
        clamp(Double(j) - s - 0.5, -reach, reach) * PageStack.sheetThickness
    }

    /// Angle about the spine for ratio `r` (clamped to the ends, ±1): right-hand pages
    /// `(1 − r)(−π/2)`, left-hand pages `(1 + r)(π/2)`, plus `(i mod 2) / 1000`; lowered
    /// towards lying open as `rise` goes below 1 (`lowered`).
    public static func angle(page i: Int, ratio r: Double, rise: Double = 1) -> Double {
        let c = lowered(ratio: r, rise: rise)
        let base = i % 2 == 0 ? (1 - c) * (-Double.pi / 2) : (1 + c) * (Double.pi / 2)
        return base + Double(i % 2) * faceSeparation
    }

    /// Ratio `r` clamped to the fan's ends, and as the fan rises out of the flat layout
    /// (`rise` 0 … 1) mixed from lying open to that: on its side of the spine (±1), or for a
    /// sheet in transit between the spread's two pages (|r| < ½), turning over as the flat
    /// layout's sheet does (upright at 0).
    static func lowered(ratio r: Double, rise: Double) -> Double {
        let c = clamp(r, -end, end)
        return rise >= 1 ? c : mix(clamp(2 * r, -1, 1), c, rise)
    }

    /// A face turned away from the viewer is not drawn, except the cover.
    public static func isHidden(page i: Int, ratio r: Double) -> Bool {
        guard i != 0 else { return false }
        return i % 2 == 1 ? r > 0 : r < 0
    }
}

/// Page blocks: the thickness of the stacks on each side of the spine.
public enum PageStack {
    public static let sheetThickness = 0.2
    /// A 400-page book (200 sheets) reaches it.
    public static let maxThickness = 40.0
    /// Strength of the gutter shadow on pages lying open.
    public static let gutter = 0.35
    /// Show-through (`Shade.showThrough`, `Shade.showThroughBehind`) of a face `lift` off its
    /// stack (0 lying on it … 1 standing free: the sine of its angle). Lying on the stack the
    /// other side shows faintly where the light falls on it; lit from behind, through the
    /// paper, three times as much as on the stack, and up to twice that as the sheet stands
    /// free. Lit from the front, a sheet `turning` free of the stack shows it half as much as
    /// lying (by a lift of 0.3: no stack behind it sends the light back through the print); a
    /// fanned page no more, as it stands: the tap on its every pixel cost the fan, 28 pages
    /// drawn each frame, a fifth of its frame rate on a software renderer (docs/turning.md).
    public static func showThrough(lift: Double, turning: Bool = false) -> (lit: Double, behind: Double) {
        let l = clamp(lift, 0, 1)
        let t = clamp(l / 0.3, 0, 1)
        return (0.09 * (1 - (turning ? 0.5 : 1) * t * t * (3 - 2 * t)), 0.18 + 0.27 * l)
    }

    /// The shade terms of a face `lift` off its stack (`turning`: a turning sheet's): the
    /// show-through's two.
    static func showing(_ shade: Shade, lift: Double, turning: Bool = false) -> Shade {
        var s = shade
        (s.showThrough, s.showThroughBehind) = showThrough(lift: lift, turning: turning)
        return s
    }

    public static func thickness(sheets: Int) -> Double {
        min(maxThickness, Double(max(0, sheets)) * sheetThickness)
    }
}

/// The hard cover under each stack of an open book.
public enum BookBoard {
    public static let thickness = 2.5

    /// How far a board of `thickness` reaches past the pages on its free sides.
    public static func overhang(_ thickness: Double) -> Double { thickness * 2 }
}

/// A book as a box: the paper block between two boards, the cover printed on the front board.
/// On the shelf it stands with its cover in the z = 0 plane and its depth behind; as it opens,
/// the left stack (the front board, the pages already read, the inside of the cover) turns over
/// the spine as one rigid body onto the desk, and the right stack comes forward onto it, so the
/// box of the shelf becomes the open book of the flat layout with nothing popping at either end.
///
/// Does not: place a book on a shelf (`Carousel`, `Wheel`) or decide the open faces (`BookFaces`).
public enum BookBody {
    /// The least paper a closed book shows, layout units (a book of about 120 pages): a thinner one
    /// would not read as a book at the shelf's size.
    public static let minPaper = 12.0
    /// The most: both open stacks at their thickest.
    public static let maxPaper = 2 * PageStack.maxThickness
    /// How far the cover's image lies in front of its board, so the board's face behind it is
    /// never shaded (nor fights it in depth).
    static let cardGap = 0.3
    /// A board's face under the pages lies this far below them (`BookFaces.resting`).
    static let boardDrop = 0.1

    /// Thickness of the closed book's paper: the open blocks' rule (`PageStack.sheetThickness`
    /// a sheet), clamped to `minPaper … maxPaper`.
    public static func paper(_ book: BookInfo) -> Double {
        clamp(Double(book.sheetCount) * PageStack.sheetThickness, minPaper, maxPaper)
    }

    /// From the cover's face to the page it lies on (the front board with its gap and drop).
    static var front: Double { BookBoard.thickness + boardDrop + cardGap }

    /// The whole closed book, front of the cover to the back board's outer face.
    public static func depth(_ book: BookInfo) -> Double { paper(book) + front + BookBoard.thickness + boardDrop }

    /// The closed paper that lies on `side` when the book is open at spread `s`: none on the left
    /// at the first spread, the whole on the right.
    static func share(_ side: Side, of s: Int, in book: BookInfo) -> Double {
        let left = paper(book) * clamp(Double(s) / Double(max(book.sheetCount - 1, 1)), 0, 1)
        return side == .left ? left : paper(book) - left
    }

    /// The stack a face belongs to: the cover turns with the left stack, being its board's face.
    static func stack(of f: BookFace) -> Side { f.kind == .cover ? .left : f.side }

    /// Height of a face's plane in its open stack at open progress `p`, and its thickness: page
    /// blocks (and the pages on them) blend from their share of the closed paper to their open
    /// height; boards keep theirs.
    static func height(_ f: BookFace, book: BookInfo, spread s: Int, progress p: Double) -> (lift: Double, thickness: Double) {
        switch f.kind {
        case .page, .block, .sheet:
            let t = max(0, mix(share(stack(of: f), of: s, in: book), f.lift, p))
            return (t, f.kind == .block && f.leafAngle == 0 ? t : f.thickness)
        case .shadow:
            // The right half's shadow is the closed book's too, on the wall behind it; the left
            // half's grows as that half comes down onto the desk.
            guard f.side == .right else { return (f.lift, f.thickness * clamp(p, 0, 1)) }
            return (mix(-(BookBoard.thickness + boardDrop), f.lift, p), mix(depth(book), f.thickness, p))
        case .board, .cover: return (f.lift, f.thickness)
        }
    }

    /// A flat-layout face at open progress `p`, in the cover's frame at page scale (the shelf's
    /// placement, or the opening's offset and scale, go in front): the right stack moves from
    /// behind the left one forwards onto the desk; the left stack turns by π · (1 − p) about a
    /// hinge in the middle of its board, which rides on the right stack's pages, so it always
    /// turns over them and never through them.
    static func model(_ f: BookFace, book: BookInfo, spread s: Int, progress p: Double) -> Mat4 {
        let h = height(f, book: book, spread: s, progress: p)
        var local = Mat4.translation(0, 0, h.lift) * Mat4.rotationY(f.angle)
        if f.side == .left { local = local * Mat4.scale(-1, 1, 1) }
        let back = (1 - p) * -(front + paper(book))
        guard stack(of: f) == .left else { return Mat4.translation(0, 0, back) * local }
        let hinge = Vec3(0, 0, back + block(.right, of: s, in: book, progress: p) + block(.left, of: s, in: book, progress: p) + front / 2)
        return Mat4.rotation(.pi * (1 - p), axis: Vec3(0, 1, 0), about: hinge) * local
    }

    /// The thickness of the block on `side` at open progress `p`: its share of the closed paper
    /// at 0, its open height at 1.
    static func block(_ side: Side, of s: Int, in book: BookInfo, progress p: Double) -> Double {
        max(0, mix(share(side, of: s, in: book), BookFaces.stackTop(side, of: s, in: book), p))
    }

    /// Leaves a lifting front board draws after it: the first of the right stack's sheets.
    static let clinging = 16

    /// The angle the top leaf of `clinging` stands at about the spine while the book opens at
    /// `p`: with the front board at first (a board lifted by πp), falling back onto the stack as
    /// the board rises, on it by the time the board stands at 65°. The others lie nearer the
    /// stack the lower they are (block.frag), so the paper seen between the boards is the edges
    /// of leaves fanned open, as on a real book, not one plain face.
    static func leafAngle(progress p: Double) -> Double {
        let q = clamp(p, 0, 1), t = clamp((q - 0.06) / 0.3, 0, 1)
        return .pi * q * (1 - t * t * (3 - 2 * t))
    }

    /// The leaves fanned up off the right stack while the book opens at `p` (none when shut or
    /// open, or with no sheet on the right): a block of their thickness on that stack, its top
    /// at `leafAngle` (where the page on the stack lifts to, being the top leaf's front), in the
    /// shade of the board over it as that page is.
    static func leaves(_ book: BookInfo, spread s: Int, progress p: Double) -> BookFace? {
        let count = min(BookFaces.sheets(.right, of: s, in: book), clinging), angle = leafAngle(progress: p)
        guard count > 0, angle > 0 else { return nil }
        return BookFace(kind: .block, page: BookFaces.page(.right, of: s), side: .right, angle: 0,
                        lift: BookFaces.stackTop(.right, of: s, in: book), front: .blank, z: BookFaces.Order.block,
                        thickness: Double(count) * PageStack.sheetThickness, leafAngle: angle)
    }

    /// The parts of a closed book that can show, in draw order: its shadow on the wall behind, the
    /// boards, the paper, the cover last (its antialiased rim blends over its board's edge).
    static func closedFaces(_ book: BookInfo, index: Int) -> [BookFace] {
        BookFaces.flat(book, index: index, spread: 0).filter { f in
            switch f.kind {
            case .board, .cover: true
            case .block: share(f.side, of: 0, in: book) > 0
            case .shadow: f.side == .right
            case .page, .sheet: false
            }
        }.sorted { $0.z < $1.z }
    }
}

extension Shade {
    /// A fanned face's shading while the book opens: none when closed (the cover is then the
    /// shelf's, with no crease), the fan's own when open.
    func opening(_ p: Double) -> Shade {
        let k = clamp(p, 0, 1)
        var s = self
        s.crease *= k
        s.gutter *= k
        s.wedge *= k
        return s
    }

    /// What several sheets in the air give the page beneath them, nearest first: the nearest
    /// one's shade, each darkening as deep as the deepest any of them gives. Sheets in the air
    /// lie close together and block much the same light: the page is as dark as under the one
    /// that hides most, not darker by each.
    static func under(_ shades: [Shade]) -> Shade {
        guard var s = shades.first else { return .none }
        for o in shades.dropFirst() {
            s.reveal = max(s.reveal, o.reveal)
            s.facing = max(s.facing, o.facing)
            s.cast = max(s.cast, o.cast)
        }
        return s
    }

    /// A flat book's face while the book opens at progress `p`: the page the front board
    /// uncovers (the right stack's), and the leaves fanned up off it, lie under the board as a
    /// page under a turning sheet does, darkened by the share of it the board still covers
    /// (`RigidFlip.shades`: a third at most, none once the board stands up), so the paper seen
    /// under a lifted board is in its shade and not lit as an open page.
    func underBoard(_ f: BookFace, progress p: Double) -> Shade {
        guard f.kind == .page || f.leafAngle > 0, f.side == .right, p < 1 else { return self }
        var s = self
        s.reveal = max(s.reveal, max(0, cos(.pi * clamp(p, 0, 1))) / 3)
        return s
    }
}

/// One face or block of an open book in the book's own frame, before the open/close blend,
/// orientation, reading direction and zoom are applied.
struct BookFace {
    var kind: SceneItem.Kind
    var page: LayoutPage
    var side: Side
    /// Rotation about the spine (the argument of `rotationY`) when fully open.
    var angle: Double
    /// Height of the spine axis this face turns about, when fully open.
    var lift: Double = 0
    /// Where it hinges in the book's frame, when fully open: across the spine (x, the fan's
    /// `Fan.hinge`) and off it (y: along the book's z, as `lift` is, but not turning with the face).
    var hinge = Vec2.zero
    var front: FaceContent
    var back: FaceContent? = nil
    var behind: FaceContent? = nil
    var gutterDrop = Vec2.zero
    var deformation: Deformation = .flat
    var shade: Shade = .none
    var visible = true
    var z = 0
    var thickness = 0.0
    var ratio: Double? = nil
    /// Leaves fanned up off a stack (`SceneItem.leafAngle`).
    var leafAngle = 0.0
    /// The sheet in the air whose shadow falls on this face, counted from the last drawn (0), or
    /// nil: it receives none (`SceneItem.shadowCaster` once ordered).
    var shadowFrom: Int? = nil
}
