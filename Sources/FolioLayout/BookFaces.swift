#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// The faces of an open book.
enum BookFaces {
    /// Draw order in the flat layout.
    enum Order {
        static let shadow = -2, board = -1, block = 0, page = 1, sheet = 2, cover = 10
        /// The fan's closed box while it opens, beneath every page.
        static let fanBody = -1_000_000_000
    }
    static let coverOnTop = 1_000_000

    /// The fan: every face near spread `s` (those further away lie in the blocks at its ends,
    /// under the top one), the cover always, drawn on top, and the back board's endpaper
    /// (`fanEnds`).
    /// With `bend` (a turn that curls or cones) the
    /// sheet in transit — its faces between ratios ½ and −½ — is one two-sided face that bends
    /// from the plane it leaves onto the plane it lands on (`bent`). It stays a fanned page, not
    /// a turning sheet: it is drawn and shaded among the other pages of the fan, as its two faces
    /// were, so nothing changes when a turn starts or lands.
    ///
    /// `rise` below 1: the fan rising out of the flat layout (`FanRise`).
    static func fan(_ book: BookInfo, index: Int, spread s: Double, bend: FanBend? = nil, rise: Double = 1) -> [BookFace] {
        let lying = rise < 1 ? FanRise(rise, book: book, spread: s) : nil
        let sheets = book.sheetCount
        let lo = max(0, Int(s.rounded(.down)) - 6), hi = min(sheets - 1, Int(s.rounded(.down)) + 7)
        var pages = lo <= hi ? Array(2 * lo...(2 * hi + 1)) : []
        if lo > 0 { pages.insert(0, at: 0) }
        // The back board's inside is paper, as the cover's is: a blank face of the sheet after
        // the last, lying on that board.
        if hi == sheets - 1 { pages.append(2 * sheets) }
        // The fan is shaded like the flat layout: crease and gutter from how far a sheet stands
        // up, and the wedge between a face and the sheet above it (one nearer the reader's
        // spread). A sheet's angle from lying flat on the right, 0 … π, is the same for both faces.
        func phi(_ i: Int) -> Double { (1 - Fan.lowered(ratio: Fan.ratio(page: i, spread: s), rise: rise)) * .pi / 2 }
        let faces = pages.map { i in
            let r = Fan.ratio(page: i, spread: s)
            let z = i == 0 ? coverOnTop : -Int((abs(-0.5 + Double(i / 2) - s) * 1000).rounded())
            let standing = sin(phi(i))
            let above = r > 0 ? i - 2 : i + 2
            // No wider than a right angle, the spread's own: its faces lie open further while the
            // fan rises; it fades in with the rise (`shading`).
            let strength = Fan.shading(rise: rise)
            let wedge = i == 0 || strength <= 0 || !(2 * lo...(2 * hi + 1)).contains(above) ? 0 : min(abs(phi(above) - phi(i)), .pi / 2)
            // The other side shows through as on the flat layout.
            let shade = PageStack.showing(Shade(crease: standing, gutter: PageStack.gutter * (1 - standing), wedge: wedge,
                                                wedgeStrength: strength), lift: standing)
            // A face on a block under another one there is covered whole: not drawn.
            let buried = i != 0 && Fan.isAtEnd(r) && Fan.isAtEnd(Fan.ratio(page: r > 0 ? i - 2 : i + 2, spread: s))
            // Lying open, the cover is under the left board, face down, as in the flat layout.
            let lift = i == 0 ? (lying.map { (1 - $0.amount) * -BookBody.front } ?? 0) : lying?.lift(sheet: i / 2, ratio: r) ?? 0
            let page = LayoutPage(i)
            return BookFace(kind: i == 0 ? .cover : .page, page: page, side: Side(page: page),
                            angle: Fan.angle(page: i, ratio: r, rise: rise), hinge: Vec2(Fan.hinge(sheet: i / 2, spread: s) * rise, lift),
                            front: book.content(page: page, book: index),
                            behind: i < book.pageCount ? otherSide(of: page, book: book, index: index) : nil,
                            gutterDrop: i == 0 ? .zero : lying?.drop(ratio: r) ?? .zero, shade: shade,
                            visible: !Fan.isHidden(page: i, ratio: r) && !buried, z: z, ratio: clamp(r, -Fan.end, Fan.end))
        }
        let under = fanEnds(book, index: index, spread: s, lying: lying)
        guard let bend else { return under + faces }
        // Faces of sheets in transit (a turn of several spreads has more than one) become sheets.
        var out = under
        for f in faces {
            let r = Fan.ratio(page: f.page.index, spread: s)
            guard f.page.index >= 2, abs(r) < 0.5 else { out.append(f); continue }
            if f.page.isFront { out.append(bent(f, back: book.content(page: f.page.advanced(by: 1), book: index), ratio: r, bend: bend, rise: rise)) }
        }
        return out
    }

    /// The fan's two ends, as a hardcover book stood on its spine and fanned open shows them:
    /// each cover board fans as the sheet it closes does (the front board is the cover's sheet,
    /// the back board a sheet after the last), standing at that sheet's angle, its cloth rim and
    /// overhang round the endpaper; the sheets at a fan's end (ratio ±1, 5½ spreads away and
    /// beyond) are a block beneath the top one (the page they carry), lying there on that
    /// board, its sheet lines on its edges. Those do not move while the same sheets fan.
    static func fanEnds(_ book: BookInfo, index: Int, spread s: Double, lying: FanRise? = nil) -> [BookFace] {
        let rise = lying?.amount ?? 1
        let f = Fan.fanned(spread: s)
        let ends = [(Side.right, book.sheetCount - f.upperBound, 2 * f.upperBound, 2 * book.sheetCount),
                    (.left, f.lowerBound + 1, 2 * f.lowerBound + 1, 1)]
        return ends.flatMap { side, sheets, top, outer -> [BookFace] in
            let height = PageStack.thickness(sheets: sheets)
            // At the end under its block, or standing with the outer sheet (no sheet of that side then
            // reaches the end).
            let r = clamp(Fan.ratio(page: outer, spread: s), -Fan.end, Fan.end)
            let atEnd = Fan.isAtEnd(r), angle = Fan.angle(page: outer, ratio: r, rise: rise)
            let hinge = Fan.hinge(sheet: (atEnd ? top : outer) / 2, spread: s) * rise
            let lift = lying?.lift(sheet: top / 2, ratio: r) ?? 0
            // The board lies under the block, along the block's normal (a face's lift is along
            // the book's, which is the block's only when it lies flat).
            let under = -height - BookBody.boardDrop
            let board = BookFace(kind: .board, page: LayoutPage(top), side: side, angle: angle,
                                 hinge: Vec2(hinge + under * sin(angle), under * cos(angle) + lift),
                                 front: .cover(index), z: Order.fanBody + 20, thickness: BookBoard.thickness, ratio: atEnd ? nil : r)
            guard height > 0 else { return [board] }
            return [board, BookFace(kind: .block, page: LayoutPage(top), side: side, angle: Fan.angle(page: top, ratio: r, rise: rise),
                                    hinge: Vec2(hinge, lift), front: .blank, gutterDrop: lying?.drop(ratio: r) ?? .zero,
                                    z: Order.fanBody + 21, thickness: height)]
        }
    }

    /// The fan rising out of the flat layout (`StyleBlend.fan`), at `amount` 0 … 1: lying open,
    /// each sheet lies on its stack as in the flat layout at the spread shown, a sheet's
    /// thickness under the one above it and curving into the gutter as the page on top does;
    /// rising, its ratio and its hinge are mixed from there to the fan's (`Fan.lowered`), so
    /// the sheets lift off the stacks and spread into the fan, the boards and blocks at its
    /// ends rising with the outer ones.
    struct FanRise {
        var amount: Double
        var spread: Int
        var tops: (left: Double, right: Double)
        var drops: (left: Double, right: Double)

        init(_ amount: Double, book: BookInfo, spread s: Double) {
            self.amount = amount
            spread = Int(s.rounded(.down))
            tops = (stackTop(.left, of: spread, in: book), stackTop(.right, of: spread, in: book))
            drops = (GutterCurve.drop(stack: tops.left, facing: tops.right), GutterCurve.drop(stack: tops.right, facing: tops.left))
        }

        /// How far sheet `j` at ratio `r` is off the spine now: lying on the right stack, on the
        /// left one, or in transit between them (|r| < ½), on its way from the one to the other.
        func lift(sheet j: Int, ratio r: Double) -> Double {
            let right = tops.right - Double(j - spread - 1) * PageStack.sheetThickness
            let left = tops.left - Double(spread - j) * PageStack.sheetThickness
            return (1 - amount) * max(mix(left, right, Self.side(r)), 0)
        }

        /// How far a face at ratio `r` curves into the gutter now.
        func drop(ratio r: Double) -> Vec2 { Vec2(repeating: (1 - amount) * mix(drops.left, drops.right, Self.side(r))) }

        /// 0 on the left stack … 1 on the right.
        static func side(_ r: Double) -> Double { clamp(r + 0.5, 0, 1) }
    }

    /// How a fanned sheet in transit bends (a rigid turn leaves it to the fan's own angles).
    struct FanBend {
        enum Shape { case curl, cone }
        var shape: Shape
        var forward: Bool
        var grab: Vec2?
        var pointer: Vec2?
        var size: Vec2
    }

    /// The sheet whose front face is `front` (an even page at ratio `r`, −½ … ½) as one
    /// two-sided face held on the plane it leaves (ratio ½ going forwards, −½ backwards),
    /// bent onto the plane it lands on: a curl or a cone whose rotation about the spine is that
    /// angle (and a curl's bend in proportion). Its progress is the distance travelled
    /// between the two, so it is flat on the one at the start and on the other at the end,
    /// where the rigid fan puts it.
    static func bent(_ front: BookFace, back: FaceContent, ratio r: Double, bend: FanBend, rise: Double = 1) -> BookFace {
        let i = front.page.index
        let leaving = bend.forward ? 0.5 : -0.5
        let p = abs(leaving - r)
        var sheet = front
        sheet.visible = true
        if bend.forward {
            sheet.back = back
        } else {
            // Held on the left plane: the sheet's own frame is its back face's (the odd page).
            sheet.side = .left
            sheet.back = sheet.front
            sheet.front = back
            sheet.page = front.page.advanced(by: 1)
        }
        sheet.angle = Fan.angle(page: sheet.page.index, ratio: leaving, rise: rise)
        let between = abs(Fan.angle(page: i, ratio: -leaving, rise: rise) - Fan.angle(page: i, ratio: leaving, rise: rise))
        switch bend.shape {
        case .curl:
            let g = bend.grab ?? Vec2(bend.size.x, -bend.size.y / 2)
            if case let .curl(c) = CurlTurn.curl(grab: g, pointer: bend.pointer ?? CurlTurn.pointer(grab: g, progress: p), size: bend.size) {
                var wrapped = c
                wrapped.wrap *= between / .pi
                wrapped.rotation *= between / .pi
                sheet.deformation = .curl(wrapped)
            }
        case .cone:
            var c = ConeTurn.cone(progress: p, size: bend.size)
            c.rotation *= between / .pi
            sheet.deformation = .cone(c)
        }
        return sheet
    }

    /// Layout page on `side` of spread `s` (a blank face past the last sheet).
    static func page(_ side: Side, of s: Int) -> LayoutPage { LayoutPage(side == .left ? 2 * s + 1 : 2 * s + 2) }

    /// Sheets under the page on `side` of spread `s`, that page's own sheet included.
    static func sheets(_ side: Side, of s: Int, in book: BookInfo) -> Int {
        side == .left ? s + 1 : book.sheetCount - s - 1
    }

    static func stackTop(_ side: Side, of s: Int, in book: BookInfo) -> Double {
        PageStack.thickness(sheets: sheets(side, of: s, in: book))
    }

    /// What the other side of layout page `n`'s sheet shows (the endpaper's other side is the
    /// board: nothing shows through it).
    static func otherSide(of n: LayoutPage, book: BookInfo, index: Int) -> FaceContent? {
        n.index < 2 ? nil : book.content(page: n.advanced(by: n.isFront ? 1 : -1), book: index)
    }

    /// The page lying open on `side` of spread `s`, curving down into the gutter, with its
    /// block beneath it (its top curving with the page), the cover board beneath that and the
    /// shadow of that half of the book on the desk. `top`: the stack's height, when a turn has
    /// it between two spreads' (`turningStacks`), and `facing` the other stack's.
    static func resting(_ side: Side, of s: Int, book: BookInfo, index: Int, top: Double? = nil, facing: Double? = nil) -> [BookFace] {
        let n = page(side, of: s)
        let top = top ?? stackTop(side, of: s, in: book)
        let drop = GutterCurve.drop(stack: top, facing: facing ?? stackTop(side.opposite, of: s, in: book))
        let pageFace = BookFace(kind: .page, page: n, side: side, angle: 0, lift: top,
                                front: book.content(page: n, book: index), behind: otherSide(of: n, book: book, index: index),
                                gutterDrop: Vec2(drop, drop),
                                shade: PageStack.showing(Shade(gutter: PageStack.gutter), lift: 0), z: Order.page)
        let under = [
            BookFace(kind: .shadow, page: n, side: side, angle: 0, front: .blank, z: Order.shadow, thickness: top + BookBoard.thickness),
            BookFace(kind: .board, page: n, side: side, angle: 0, lift: -BookBody.boardDrop, front: .cover(index), z: Order.board, thickness: BookBoard.thickness),
        ]
        guard top > 0 else { return under + [pageFace] }
        let block = BookFace(kind: .block, page: n, side: side, angle: 0, lift: top, front: .blank,
                             gutterDrop: Vec2(drop, drop), z: Order.block, thickness: top)
        return under + [block, pageFace]
    }

    /// The cover lies face down under the left stack's board, its printed face; it matters while
    /// the book closes.
    static func cover(_ book: BookInfo, index: Int) -> BookFace {
        BookFace(kind: .cover, page: .cover, side: .right, angle: -.pi, lift: -BookBody.front, front: .cover(index), z: Order.cover)
    }

    /// The flat layout at rest on spread `s`.
    static func flat(_ book: BookInfo, index: Int, spread s: Int) -> [BookFace] {
        [cover(book, index: index)]
            + resting(.left, of: s, book: book, index: index)
            + resting(.right, of: s, book: book, index: index)
    }

    /// The stacks' heights while a turn from spread `a` to `b` has covered `p`: the one it
    /// leaves (`moving`) and the one it lands on. A jump of many sheets takes them off the one
    /// stack over the first half of the turn and lays them on the other over the second, each
    /// easing in and out, so no block's thickness jumps; a turn of one sheet leaves both where
    /// they are (the leaving stack is one sheet lower from the start, the other gains the sheet
    /// as it lands).
    static func turningStacks(_ book: BookInfo, from a: Int, to b: Int, progress p: Double) -> (moving: Double, other: Double) {
        let moving: Side = b > a ? .right : .left
        guard abs(b - a) > 1 else { return (stackTop(moving, of: b, in: book), stackTop(moving.opposite, of: a, in: book)) }
        let step = b > a ? 1 : -1
        return (mix(stackTop(moving, of: a + step, in: book), stackTop(moving, of: b, in: book), smoothstep(0, 1, 2 * p)),
                mix(stackTop(moving.opposite, of: a, in: book), stackTop(moving.opposite, of: b - step, in: book), smoothstep(0, 1, 2 * p - 1)))
    }

    /// Sheets a turn from spread `a` to `b` riffles: every sheet of a short jump, five at most.
    static func riffled(from a: Int, to b: Int) -> Int { min(abs(b - a), 5) }

    /// How much later each sheet of a riffle leaves than the one before, as a share of the turn.
    static let riffleGap = 0.1

    /// The flat layout while a turn from spread `a` to spread `b` has covered `progress`. One
    /// sheet turns to the next spread; a jump riffles (`riffled`): sheets spread evenly between
    /// the two leave one after another (`riffleGap` apart) and each turns in the rest of the
    /// turn, the first showing a's page on its front, the last b's page on its back, those
    /// between the pages they are, so a long jump shows pages flying by, not one thin sheet
    /// standing for a hundred. The stacks change as `turningStacks` says; the page on top of
    /// each is the sheet that waits there next, or the one landed last.
    static func flatTurn(_ book: BookInfo, index: Int, from a: Int, to b: Int, progress: Double,
                         deform: TurnDeform, grab: Vec2?, pointer: Vec2?, size: Vec2) -> [BookFace] {
        let moving: Side = b > a ? .right : .left
        let other = moving.opposite
        let p = clamp(progress, 0, 1)
        let stacks = turningStacks(book, from: a, to: b, progress: p)
        let count = riffled(from: a, to: b), step = b > a ? 1 : -1
        let span = 1 - Double(count - 1) * riffleGap
        let spreads = (0..<count).map { a + step * (count == 1 ? 0 : $0 * (abs(b - a) - 1) / (count - 1)) }
        let progress = (0..<count).map { clamp((p - Double($0) * riffleGap) / span, 0, 1) }
        // A single sheet is drawn all the turn, lying on the pages at its ends.
        let flying = count == 1 ? [0] : (0..<count).filter { progress[$0] > 0 && progress[$0] < 1 }
        let waiting = count == 1 ? nil : (0..<count).first { progress[$0] <= 0 }
        let landed = count == 1 ? nil : (0..<count).last { progress[$0] >= 1 }
        // A sheet in the air leaves the top of one stack and lands on top of the other (a
        // sheet's thickness above each; none past the stacks' greatest height), curving into
        // the gutter as the pages there do.
        let leave = stacks.moving + stackTop(moving, of: a, in: book) - stackTop(moving, of: a + step, in: book)
        let land = stacks.other + stackTop(other, of: b, in: book) - stackTop(other, of: b - step, in: book)
        // How far each page beneath curves into the gutter depends on the stack it faces: the
        // sheet in the air counts on both, so the page it uncovers faces the other stack as it
        // will be once the sheet has landed, and the page it will cover the stack it leaves as it
        // was. Each then lies as it does at rest where it shows at a turn's end: faced with the
        // stack the sheet was not on, the uncovered page's type moved a fraction of a pixel as
        // the turn landed.
        var facing = resting(other, of: landed.map { spreads[$0] + step } ?? a, book: book, index: index, top: stacks.other, facing: leave)
        var revealed = resting(moving, of: waiting.map { spreads[$0] } ?? b, book: book, index: index, top: stacks.moving, facing: land)
        let drops = (GutterCurve.drop(stack: leave, facing: stacks.other), GutterCurve.drop(stack: land, facing: stacks.moving))
        let sheets = (0..<count).map { j in
            turningSheet(book, index: index, from: spreads[j], to: spreads[j] + step, progress: progress[j],
                         spine: (leave, land), drops: drops,
                         deform: deform, grab: grab, pointer: count == 1 ? pointer : nil, size: size)
        }
        // Every sheet in the air darkens both pages beneath (the one revealed and the facing one,
        // which is the sheet landed last); each page takes its cast shadow and the sky hidden from
        // it from the sheet nearest it: the last to leave over the page revealed, the first over
        // the facing page. With none in the air (a riffle's ends) they rest.
        if !flying.isEmpty {
            revealed[revealed.count - 1].shade = Shade.under(flying.reversed().map { sheets[$0].shades.revealed })
            facing[facing.count - 1].shade = Shade.under(flying.map { sheets[$0].shades.facing })
        }
        revealed[revealed.count - 1].shadowFrom = max(flying.count - 1, 0)
        facing[facing.count - 1].shadowFrom = 0
        // The sheets in the air, the first to leave drawn last (`ordered` counts them from it).
        return [cover(book, index: index)] + facing + revealed + flying.reversed().map { sheets[$0].face }
    }

    /// One sheet turning from spread `a` to the next spread `b`, its spine between the heights
    /// `spine` (the stack it leaves, the one it lands on: `spineHeight`), curving into the
    /// gutter by `drops` (lying on the stack it leaves, on the one it lands on), with its own
    /// shade and those it gives the pages beneath.
    static func turningSheet(_ book: BookInfo, index: Int, from a: Int, to b: Int, progress p: Double, spine heights: (leave: Double, land: Double),
                             drops: (from: Double, to: Double), deform: TurnDeform, grab: Vec2?, pointer: Vec2?, size: Vec2)
        -> (face: BookFace, shades: (revealed: Shade, facing: Shade, sheet: Shade)) {
        let moving: Side = b > a ? .right : .left
        let other = moving.opposite
        let front = page(moving, of: a), back = page(other, of: b)
        var sheet = BookFace(kind: .sheet, page: front, side: moving, angle: 0, lift: heights.leave,
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
        // How far the spine has risen: sin φ for a rigid sheet, its rotation's for a curl or a
        // cone; averaged along the spine.
        let spine = [-0.5, 0, 0.5].map { t -> Double in
            let n = sheet.deformation.apply(Vec2(0, t * size.y)).normal
            return abs(n.x * cos(sheet.angle) + n.z * sin(sheet.angle))
        }
        let shades = RigidFlip.shades(revealed: covered.own, facing: covered.other, spineLift: spine.reduce(0, +) / 3)
        sheet.shade = shades.sheet
        // The sheet curves into the gutter as the page it leaves does, and lands curving as the
        // page it becomes: it turns its local −z over, so the drop passes through zero as it
        // turns about the spine.
        let turned: Double = switch sheet.deformation {
        case let .curl(c): c.rotation / .pi
        case let .cone(c): c.rotation / .pi
        case .flat: p
        }
        sheet.gutterDrop = Vec2(repeating: mix(drops.from, -drops.to, turned))
        sheet.lift = mix(heights.leave, heights.land, spineHeight(turned: turned))
        return (sheet, shades)
    }

    /// How far a turning sheet's spine has gone from the height of the stack it leaves to that
    /// of the one it lands on, as it has turned `turned` (0 lying on the one, 1 on the other): it
    /// stays on the stack it leaves while it lies over it and crosses as it stands up, where
    /// the sheet is edge on at the spine. A riffle's sheets so keep their order there: one that
    /// left first and lies turned further never sinks under the next, still on the stack (whose
    /// text then showed over the first's margin by the spine), nor into the stack it leaves.
    static func spineHeight(turned: Double) -> Double { smoothstep(0.3, 0.7, turned) }
}
