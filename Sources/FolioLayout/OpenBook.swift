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
    public init(page n: Int) { self = n % 2 == 0 ? .right : .left }

    public var opposite: Side { self == .right ? .left : .right }
}

/// The fan layout's formulas (docs/behaviour.md §4).
public enum Fan {
    public static let compression = 0.1
    public static let faceSeparation = 1.0 / 1000

    /// `r = −0.5 + floor(i / 2) − s`, compressed by 0.1 beyond ±0.5 (not yet clamped).
    public static func ratio(page i: Int, spread s: Double) -> Double {
        let r = -0.5 + Double(i / 2) - s
        if r > 0.5 { return 0.5 + compression * (r - 0.5) }
        if r < -0.5 { return -0.5 + compression * (r + 0.5) }
        return r
    }

    /// Angle about the spine for ratio `r` (clamped to ±1): right-hand pages
    /// `(1 − r)(−π/2)`, left-hand pages `(1 + r)(π/2)`, plus `(i mod 2) / 1000`.
    public static func angle(page i: Int, ratio r: Double) -> Double {
        let c = clamp(r, -1, 1)
        let base = i % 2 == 0 ? (1 - c) * (-Double.pi / 2) : (1 + c) * (Double.pi / 2)
        return base + Double(i % 2) * faceSeparation
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
    /// other side shows faintly where the light falls on it; lit from the front, a sheet
    /// standing free shows it no more (gone by a lift of 0.3: a software renderer then leaves
    /// the texture tap out, docs/engineering-notes.md); lit from behind, through the paper,
    /// three times as much as on the stack, and up to twice that as the sheet stands free.
    public static func showThrough(lift: Double) -> (lit: Double, behind: Double) {
        let l = clamp(lift, 0, 1)
        let t = clamp(l / 0.3, 0, 1)
        return (0.12 * (1 - t * t * (3 - 2 * t)), 0.24 + 0.36 * l)
    }

    /// The shade terms of a face `lift` off its stack: the show-through's two.
    static func showing(_ shade: Shade, lift: Double) -> Shade {
        var s = shade
        (s.showThrough, s.showThroughBehind) = showThrough(lift: lift)
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

/// One face or block of an open book in the book's own frame, before the open/close blend,
/// orientation, reading direction and zoom are applied.
struct BookFace {
    var kind: SceneItem.Kind
    var page: Int
    var side: Side
    /// Rotation about the spine (the argument of `rotationY`) when fully open.
    var angle: Double
    /// Height of the spine axis this face turns about, when fully open.
    var lift: Double = 0
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
    var receivesShadow = false
}

/// The faces of an open book.
enum BookFaces {
    /// Draw order in the flat layout.
    enum Order { static let shadow = -2, board = -1, block = 0, page = 1, sheet = 2, cover = 10 }
    static let coverOnTop = 1_000_000

    /// The fan: every face near spread `s` (those further away lie exactly under the nearest
    /// flat one), the cover always, drawn on top.
    static func fan(_ book: BookInfo, index: Int, spread s: Double) -> [BookFace] {
        let sheets = book.sheetCount
        let lo = max(0, Int(s.rounded(.down)) - 6), hi = min(sheets - 1, Int(s.rounded(.down)) + 7)
        var pages = lo <= hi ? Array(2 * lo...(2 * hi + 1)) : []
        if lo > 0 { pages.insert(0, at: 0) }
        // The fan is shaded like the flat layout: crease and gutter from how far a sheet stands
        // up, and the wedge between a face and the sheet above it (one nearer the reader's
        // spread). A sheet's angle from lying flat on the right, 0 … π, is the same for both faces.
        func phi(_ i: Int) -> Double { (1 - clamp(Fan.ratio(page: i, spread: s), -1, 1)) * .pi / 2 }
        return pages.map { i in
            let r = Fan.ratio(page: i, spread: s)
            let z = i == 0 ? coverOnTop : -Int((abs(-0.5 + Double(i / 2) - s) * 1000).rounded())
            let standing = sin(phi(i))
            let above = r > 0 ? i - 2 : i + 2
            let wedge = i == 0 || !(2 * lo...(2 * hi + 1)).contains(above) ? 0 : abs(phi(above) - phi(i))
            // The other side shows through as on the flat layout.
            let shade = PageStack.showing(Shade(crease: standing, gutter: PageStack.gutter * (1 - standing), wedge: wedge),
                                          lift: standing)
            // A face lying flat under another flat one on its side is covered whole: not drawn.
            let buried = i != 0 && abs(r) >= 1 && abs(Fan.ratio(page: r > 0 ? i - 2 : i + 2, spread: s)) >= 1
            return BookFace(kind: i == 0 ? .cover : .page, page: i, side: Side(page: i),
                            angle: Fan.angle(page: i, ratio: r), front: book.content(page: i, book: index),
                            behind: otherSide(of: i, book: book, index: index), shade: shade, visible: !Fan.isHidden(page: i, ratio: r) && !buried, z: z, ratio: clamp(r, -1, 1))
        }
    }

    /// Layout page on `side` of spread `s` (a blank face past the last sheet).
    static func page(_ side: Side, of s: Int) -> Int { side == .left ? 2 * s + 1 : 2 * s + 2 }

    /// Sheets under the page on `side` of spread `s`, that page's own sheet included.
    static func sheets(_ side: Side, of s: Int, in book: BookInfo) -> Int {
        side == .left ? s + 1 : book.sheetCount - s - 1
    }

    static func stackTop(_ side: Side, of s: Int, in book: BookInfo) -> Double {
        PageStack.thickness(sheets: sheets(side, of: s, in: book))
    }

    /// The drop into the gutter of the page lying open on `side` of spread `s`.
    static func gutterDrop(_ side: Side, of s: Int, in book: BookInfo) -> Double {
        GutterCurve.drop(stack: stackTop(side, of: s, in: book))
    }

    /// What the other side of layout page `n`'s sheet shows (the endpaper's other side is the
    /// board: nothing shows through it).
    static func otherSide(of n: Int, book: BookInfo, index: Int) -> FaceContent? {
        n < 2 ? nil : book.content(page: n % 2 == 0 ? n + 1 : n - 1, book: index)
    }

    /// The page lying open on `side` of spread `s`, curving down into the gutter, with its
    /// block beneath it (lowered by the drop, so its flat top stays under the curve), the cover
    /// board beneath that and the shadow of that half of the book on the desk.
    static func resting(_ side: Side, of s: Int, book: BookInfo, index: Int) -> [BookFace] {
        let n = page(side, of: s)
        let top = stackTop(side, of: s, in: book)
        let drop = gutterDrop(side, of: s, in: book)
        let pageFace = BookFace(kind: .page, page: n, side: side, angle: 0, lift: top,
                                front: book.content(page: n, book: index), behind: otherSide(of: n, book: book, index: index),
                                gutterDrop: Vec2(drop, drop),
                                shade: PageStack.showing(Shade(gutter: PageStack.gutter), lift: 0), z: Order.page)
        let under = [
            BookFace(kind: .shadow, page: n, side: side, angle: 0, front: .blank, z: Order.shadow, thickness: top + BookBoard.thickness),
            BookFace(kind: .board, page: n, side: side, angle: 0, lift: -0.1, front: .cover(index), z: Order.board, thickness: BookBoard.thickness),
        ]
        let blockTop = top - drop
        guard blockTop > 0 else { return under + [pageFace] }
        let block = BookFace(kind: .block, page: n, side: side, angle: 0, lift: blockTop, front: .blank,
                             z: Order.block, thickness: blockTop)
        return under + [block, pageFace]
    }

    /// The cover lies face down under the left stack; it matters while the book closes.
    static func cover(_ book: BookInfo, index: Int) -> BookFace {
        BookFace(kind: .cover, page: 0, side: .right, angle: -.pi, front: .cover(index), z: Order.cover)
    }

    /// The flat layout at rest on spread `s`.
    static func flat(_ book: BookInfo, index: Int, spread s: Int) -> [BookFace] {
        [cover(book, index: index)]
            + resting(.left, of: s, book: book, index: index)
            + resting(.right, of: s, book: book, index: index)
    }

    /// The flat layout while one sheet turns from spread `a` to spread `b` (any distance:
    /// the sheet shows a's page on its front and b's on its back, b's page lies beneath).
    static func flatTurn(_ book: BookInfo, index: Int, from a: Int, to b: Int, progress: Double,
                         deform: TurnDeform, grab: Vec2?, pointer: Vec2?, size: Vec2) -> [BookFace] {
        let moving: Side = b > a ? .right : .left
        let other = moving.opposite
        let p = clamp(progress, 0, 1)
        var facing = resting(other, of: a, book: book, index: index)
        var revealed = resting(moving, of: b, book: book, index: index)
        let lift = mix(stackTop(moving, of: a, in: book), stackTop(other, of: b, in: book), p)
        let front = page(moving, of: a), back = page(other, of: b)
        var sheet = BookFace(kind: .sheet, page: front, side: moving, angle: 0, lift: lift,
                             front: book.content(page: front, book: index),
                             back: book.content(page: back, book: index), z: Order.sheet)
        let across: (Vec2) -> Double
        switch deform {
        case .rigid:
            let phi = RigidFlip.angle(progress: p)
            sheet.angle = moving == .right ? -phi : phi
            across = { $0.x * cos(phi) }
        case .curl:
            let g = grab ?? Vec2(size.x, -size.y / 2)
            sheet.deformation = CurlTurn.curl(grab: g, pointer: pointer ?? CurlTurn.pointer(grab: g, progress: p), size: size)
            across = { [d = sheet.deformation] in d.apply($0).position.x }
        case .cone:
            sheet.deformation = .cone(ConeTurn.cone(progress: p, size: size))
            across = { [d = sheet.deformation] in d.apply($0).position.x }
        }
        let covered = Coverage.of(size: size, across: across)
        // How far the spine has risen: none for a curl (its spine stays flat), sin φ for a rigid
        // sheet, the rotation's for a cone; averaged along the spine.
        let spine = [-0.5, 0, 0.5].map { t -> Double in
            let n = sheet.deformation.apply(Vec2(0, t * size.y)).normal
            return abs(n.x * cos(sheet.angle) + n.z * sin(sheet.angle))
        }
        let shades = RigidFlip.shades(revealed: covered.own, facing: covered.other, spineLift: spine.reduce(0, +) / 3)
        sheet.shade = shades.sheet
        // The sheet curves into the gutter as the page it leaves does, and lands curving as the
        // page it becomes. A curl's spine stays down: what has rolled over to the other side
        // takes that side's drop, and the spine moves from one drop to the other as it moves
        // from one stack's height to the other's (`lift`). A rigid or cone sheet turns its
        // local −z over: the drop passes through zero.
        let dropFrom = gutterDrop(moving, of: a, in: book), dropTo = gutterDrop(other, of: b, in: book)
        switch deform {
        case .curl: sheet.gutterDrop = Vec2(mix(dropFrom, dropTo, p), dropTo)
        case .rigid: sheet.gutterDrop = Vec2(repeating: mix(dropFrom, -dropTo, p))
        case .cone:
            let turned = ConeTurn.cone(progress: p, size: size).rotation / .pi
            sheet.gutterDrop = Vec2(repeating: mix(dropFrom, -dropTo, turned))
        }
        revealed[revealed.count - 1].shade = shades.revealed
        revealed[revealed.count - 1].receivesShadow = true
        facing[facing.count - 1].shade = shades.facing
        facing[facing.count - 1].receivesShadow = true
        return [cover(book, index: index)] + facing + revealed + [sheet]
    }
}
