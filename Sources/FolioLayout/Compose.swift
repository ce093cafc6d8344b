#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// A sheet in the middle of turning from one spread to another.
public struct TurnState: Sendable, Equatable {
    /// Spread the turn starts from and the one it lands on (usually one apart).
    public var from: Int
    public var to: Int
    /// Eased progress, 0 … 1 (the rigid flip's angle is π · progress).
    public var progress: Double
    /// For a curl: the grabbed point on the turning sheet, local units (a across from the
    /// spine 0 … width, l along it from the page's centre). Nil: the outer bottom corner.
    public var grab: Vec2?
    /// For a curl: where the grabbed point is now, local units. Nil: the scripted path.
    public var pointer: Vec2?

    public init(from: Int, to: Int, progress: Double, grab: Vec2? = nil, pointer: Vec2? = nil) {
        self.from = from
        self.to = to
        self.progress = progress
        self.grab = grab
        self.pointer = pointer
    }

    public var direction: TurnStyle.Direction { to >= from ? .forward : .backward }
}

/// Everything a still picture depends on, resolved to numbers: the input of `makeScene`.
public struct ViewState: Sendable, Equatable {
    public var viewSize: Vec2
    public var phase: Scene.State
    public var shelf: ShelfStyle
    /// Shelf position in covers (0 = the first cover centred).
    public var scroll: Double
    /// Where the shelf comes to rest, when asked for.
    public var rest: Double?
    /// The open (or opening, or closing) book, if any.
    public var book: Int?
    /// 0 closed on the shelf … 1 open.
    public var openProgress: Double
    public var layout: BookLayout
    /// Spread shown; fractional in the fan layout while it scrolls.
    public var spread: Double
    public var turn: TurnState?
    /// Orientation and perspective apply to the open book; the direction is the turn's.
    public var style: TurnStyle
    public var deform: TurnDeform
    public var viewpoint: Viewpoint
    public var zoom: Double
    /// Eye distance, layout units; nil: in proportion to the open book's page width
    /// (`BookShape.eyeDistance`).
    public var eye: Double? = nil
    /// Scales the shadows a turning sheet throws on the pages beneath (reveal, facing, cast);
    /// 1 is the reference's.
    public var shadow = 1.0
    /// Where the zoomed book is moved in the view (layout units, after the zoom).
    public var pan = Vec2.zero
    /// The viewpoint, perspective, layout and orientation while they change; nil at rest.
    public var blend: StyleBlend? = nil
    /// One page at a time: the open book is laid out one page image a sheet
    /// (`BookInfo.onePagePerSheet`) and its right-hand page fills the view.
    public var singlePage = false
    /// With `singlePage`: the page's width fills the view, and its height runs past it (the
    /// pan's y shows the part read: `fitWidthTravel`).
    public var fitWidth = false

    public init(viewSize: Vec2 = Vec2(1280, 720), phase: Scene.State = .shelf, shelf: ShelfStyle = .carousel,
                scroll: Double = 0, rest: Double? = nil, book: Int? = nil, openProgress: Double = 1,
                layout: BookLayout = .flat, spread: Double = 0, turn: TurnState? = nil, style: TurnStyle = TurnStyle(),
                deform: TurnDeform = .rigid, viewpoint: Viewpoint = .center, zoom: Double = 1) {
        self.viewSize = viewSize
        self.phase = phase
        self.shelf = shelf
        self.scroll = scroll
        self.rest = rest
        self.book = book
        self.openProgress = openProgress
        self.layout = layout
        self.spread = spread
        self.turn = turn
        self.style = style
        self.deform = deform
        self.viewpoint = viewpoint
        self.zoom = zoom
    }
}

/// The closed book (docs/behaviour.md §2): pages flat behind the cover at the shelf's scale, left-hand
/// pages turned by π onto the right, all shifted so the book is centred where its cover was.
public enum ClosedBook {
    public static let scale = Carousel.baseScale

    /// A face's model at open progress `p`: offset, angle and scale blend from the closed
    /// state (p = 0) to the open one (p = 1) and overshoot with the spring beyond it.
    /// `closedScale` is the cover's scale on the shelf (0.7 for a reference-sized book);
    /// `closedLift` the height the face lies at when closed (pages lie behind the cover's board).
    public static func model(side: Side, openAngle: Double, lift: Double, width: Double, progress p: Double,
                             closedScale: Double = scale, closedLift: Double = 0) -> Mat4 {
        let closedAngle = side == .right ? 0 : Double.pi
        let offset = mix(-closedScale * width / 2, 0, p)
        let m = Mat4.translation(offset, 0, mix(closedLift, lift, p)) * Mat4.rotationY(mix(closedAngle, openAngle, p))
            * Mat4.scale(mix(closedScale, 1, p))
        return side == .left ? m * Mat4.scale(-1, 1, 1) : m
    }

    /// Pinch (or two-button drag) scale → opening progress: `clamp(|s − 1| / 5, 0, 1)`.
    public static func openingProgress(pinch s: Double) -> Double { clamp(abs(s - 1) / 5, 0, 1) }
    /// Pinch scale → closing progress: `clamp(|1 − s|, 0, 1)`.
    public static func closingProgress(pinch s: Double) -> Double { clamp(abs(1 - s), 0, 1) }
}

extension ViewState {
    /// Where the styles stand: `blend` while they change, else their own amounts.
    public var styles: StyleBlend { blend ?? StyleBlend(viewpoint: viewpoint, style: style, layout: layout, shelf: shelf) }

    /// The state as drawn: while the orientation changes, the book is laid out in the one whose
    /// half of the spin it is in (`calendarSpin`).
    var shown: ViewState {
        guard let o = blend?.vertical else { return self }
        var s = self
        s.style.orientation = o < 0.5 ? .horizontal : .vertical
        return s
    }
}

/// Builds the scene for a still state. Pure: the same state always gives the same scene.
public func makeScene(_ state: ViewState, books: [BookInfo]) -> Scene {
    let v = state.shown, styles = v.styles
    let openBook = v.book.flatMap { books.indices.contains($0) ? $0 : nil }
    var camera = Camera(viewSize: v.viewSize, eyeDistance: eyeDistance(v, book: openBook.map { v.singlePage ? books[$0].onePagePerSheet : books[$0] }),
                        vanishingPoint: Viewpoint.vanishingPoint(height: styles.viewpoint, viewSize: v.viewSize))
    camera.reversal = openBook == nil ? 0 : styles.reversal
    let away = openBook == nil ? 0 : clamp(v.openProgress, 0, 1)
    var items = away < 1 ? shelfItems(v, books: books, away: away, skipping: openBook) : []
    if let b = openBook {
        items += v.singlePage ? bookItems(v, book: books[b].onePagePerSheet, index: b).map(showingOwnPages)
            : bookItems(v, book: books[b], index: b)
    }
    return Scene(state: v.phase, camera: camera, items: ordered(items), rest: v.rest)
}

/// The eye distance: the one asked for, else in proportion to the open book's pages as shown
/// (the reference's on the shelf, whose slots are reference-sized). Shelf covers and a closed
/// book lie in the z = 0 plane, which the eye distance does not change: no jump when it does.
private func eyeDistance(_ v: ViewState, book: BookInfo?) -> Double {
    if let eye = v.eye { return eye }
    guard let book else { return Camera.referenceEyeDistance }
    return BookShape.eyeDistance(pageWidth: book.laidOutPageSize(v.style.orientation).x * openFit(v, book: book))
}

/// A face of the one-page-a-sheet book as the book's own page (its backs blank).
private func showingOwnPages(_ item: SceneItem) -> SceneItem {
    func own(_ face: FaceContent) -> FaceContent {
        guard face.kind == .page || face.kind == .blank else { return face }
        guard let n = BookInfo.ownPage(onePagePerSheet: face.page), n >= 2 else { return FaceContent(kind: .blank, book: face.book, page: face.page) }
        return .page(face.book, n)
    }
    var item = item
    item.front = own(item.front)
    item.back = item.back.map(own)
    item.behind = item.behind.map(own)
    return item
}

/// The open book's scale in the view: its turns all stay in view (`BookShape.turnFit`); in
/// single-page mode, the page fills the view (a spread keeps its size at most, the desk
/// around it; one page in a tall window would be a strip).
private func openFit(_ v: ViewState, book: BookInfo) -> Double {
    if v.singlePage {
        let page = book.laidOutPageSize(v.style.orientation)
        let across = BookShape.viewFill * v.viewSize.x / page.x
        return v.fitWidth ? across : min(across, BookShape.viewFill * v.viewSize.y / page.y)
    }
    let styles = v.styles
    let fit = { (viewpoint: Double, reversal: Double) in
        BookShape.turnFit(page: book.laidOutPageSize(v.style.orientation), orientation: v.style.orientation, viewSize: v.viewSize,
                          vanishing: Viewpoint.vanishingPoint(height: viewpoint, viewSize: v.viewSize),
                          reversal: reversal, lift: PageStack.thickness(sheets: book.sheetCount), eye: v.eye)
    }
    // While the viewpoint or the perspective moves, the scale moves between the two ends' as
    // they do: fitted anew each frame it held still until another bound of the turns bound it,
    // then set off at a third of its speed at once.
    let (tv, tr) = (styles.progress(0), styles.progress(1))
    guard tv != nil || tr != nil else { return fit(styles.viewpoint, styles.reversal) }
    let (v0, v1) = tv == nil ? (styles.viewpoint, styles.viewpoint) : (styles.from[0], styles.to[0])
    let (r0, r1) = tr == nil ? (styles.reversal, styles.reversal) : (styles.from[1], styles.to[1])
    let (a, b) = (tv ?? 0, tr ?? 0)
    let near = fit(v0, r0) + (fit(v1, r0) - fit(v0, r0)) * a
    guard tr != nil else { return near }
    return near + (fit(v0, r1) + (fit(v1, r1) - fit(v0, r1)) * a - near) * b
}

private func shelfItems(_ v: ViewState, books: [BookInfo], away: Double, skipping open: Int?) -> [SceneItem] {
    let slot = BookInfo.referencePageSize
    let placements = ShelfBlend(coverSize: slot, viewSize: v.viewSize).placements(scroll: v.scroll, wheel: v.styles.wheel,
                                                                               covers: books.map(\.pageSize))
    // While a book opens the others slide aside and back, opaque, out of the view by the time it
    // is open (drawn before the book: never over it, never see-through). Each kind of part is
    // drawn for all books at once (one program each); the covers last, in the shelf's order,
    // so that overlapping ones (the wheel) still cover in that order: depth sorts the rest.
    let reach = v.viewSize.x / 2 + slot.x
    return placements.filter { $0.index != open }.flatMap { c -> [SceneItem] in
        let book = books[c.index]
        let aside = Mat4.translation((c.index < (open ?? c.index) ? -1 : 1) * reach * away, 0, -80 * away)
        var frame = aside * c.model
        // The spine where the book will have it as it opens: on the right of a right-to-left
        // book's cover, along the top of a calendar's (whose pages are laid out turned).
        if book.direction == .rtl {
            frame = frame * Mat4.translation(book.pageSize.x, 0, 0) * Mat4.scale(-1, 1, 1)
        }
        if v.style.orientation == .vertical {
            frame = frame * Mat4.translation(book.pageSize.x / 2, book.pageSize.y / 2, 0) * Mat4.rotationZ(-.pi / 2)
        }
        let uv = UVMap.face(.right, vertical: v.style.orientation == .vertical, direction: book.direction)
        return BookBody.closedFaces(book, index: c.index).map { f in
            SceneItem(kind: f.kind, book: c.index, page: 0, size: book.laidOutPageSize(v.style.orientation),
                      model: frame * BookBody.model(f, book: book, spread: 0, progress: 0), front: f.front, uv: uv,
                      z: c.z + 10_000_000 * f.z - (away > 0 ? 1_000_000_000 : 0), thickness: BookBody.height(f, book: book, spread: 0, progress: 0).thickness,
                      closed: 1, x: c.x, scale: c.scale, angle: c.angle)
        }
    }
}

private func bookItems(_ v: ViewState, book: BookInfo, index: Int) -> [SceneItem] {
    let vertical = v.style.orientation == .vertical
    let size = book.laidOutPageSize(v.style.orientation)
    let closedScale = ClosedBook.scale * BookShape.coverFit(book.pageSize)
    // The fan, or the fan rising out of the flat layout while the layout changes; a fan also
    // lies down while it spins into a calendar or out of one, flat where it is edge on.
    let spin = v.blend.map { $0.vertical > 0 && $0.vertical < 1 ? cos(.pi * $0.vertical) : 1 } ?? 1
    let rise = v.styles.fan * spin * spin
    let box = rise <= 0
    var faces: [BookFace]
    switch (box, v.turn) {
    case let (false, turn?):
        let shape: BookFaces.FanBend.Shape? = switch v.deform { case .rigid: nil; case .curl: .curl; case .cone: .cone }
        let bend = shape.map { BookFaces.FanBend(shape: $0, forward: turn.to >= turn.from, grab: turn.grab, pointer: turn.pointer, size: size) }
        faces = BookFaces.fan(book, index: index, spread: mix(Double(turn.from), Double(turn.to), turn.progress), bend: bend, rise: rise)
    case (false, nil):
        faces = BookFaces.fan(book, index: index, spread: v.spread, rise: rise)
    case let (true, turn?):
        faces = BookFaces.flatTurn(book, index: index, from: turn.from, to: turn.to, progress: turn.progress,
                                   deform: v.deform, grab: turn.grab, pointer: turn.pointer, size: size)
    case (true, nil):
        faces = BookFaces.flat(book, index: index, spread: Int(v.spread.rounded(.down)))
    }
    // One page at rest, the book open: the page alone, as one-page readers show it — not the
    // blank back of the sheet before it (and its stack) beside it in a wide view. A turn shows
    // both sides, the sheet turning over.
    if v.singlePage, v.turn == nil, v.openProgress >= 1 { faces = faces.filter { $0.side != .left } }
    let world = bookFrame(v, book: book)
    let p = v.openProgress
    let spread = v.turn?.from ?? Int(v.spread.rounded(.down))
    // The flat layout's shadow on the desk fades as the fan rises out of it.
    if !box, rise < 1 { faces = BookFaces.flat(book, index: index, spread: spread).filter { $0.kind == .shadow } + faces }
    // The flat book opens as a box (`BookBody`); the fan's pages open as cards over the closed
    // box, which shrinks into the spine as they fan out (gone when the book is open).
    let offset = Mat4.translation(mix(-closedScale * size.x / 2, 0, p), 0, 0) * Mat4.scale(mix(closedScale, 1, p))
    let body = box || p >= 1 ? [] : BookBody.closedFaces(book, index: index).filter { $0.kind != .cover }.map { f in
        SceneItem(kind: f.kind, book: index, page: 0, size: size,
                  model: world * offset * Mat4.scale(1 - max(p, 0)) * BookBody.model(f, book: book, spread: 0, progress: 0),
                  front: f.front, z: BookFaces.Order.fanBody + f.z, thickness: BookBody.height(f, book: book, spread: 0, progress: 0).thickness,
                  closed: 1, scale: mix(closedScale, 1, p))
    }
    let leaves = box ? BookBody.leaves(book, spread: spread, progress: p) : nil
    let laid = faces + [leaves].compactMap { $0 }
    let items = laid.map { f in
        let uv = UVMap.face(f.side, vertical: vertical, direction: book.direction)
        var model = box ? world * offset * BookBody.model(f, book: book, spread: spread, progress: p)
            : world * Mat4.translation(f.hinge.x * clamp(p, 0, 1), 0, f.hinge.y * clamp(p, 0, 1))
                * ClosedBook.model(side: f.side, openAngle: f.angle, lift: f.lift, width: size.x, progress: p,
                                   closedScale: closedScale, closedLift: f.kind == .cover ? 0 : -BookBody.front)
        // The page on the stack is the top leaf's: it lifts with the leaves under it.
        if let leaves, f.kind == .page, f.page == leaves.page { model = model * Mat4.rotationY(-leaves.leafAngle) }
        let thickness = box ? BookBody.height(f, book: book, spread: spread, progress: p).thickness : f.thickness * clamp(p, 0, 1)
        // The cover only shows while the book is not fully open (it lies under the left stack).
        let visible = f.visible && !(f.kind == .cover && box && p >= 1)
        var item = SceneItem(kind: f.kind, book: index, page: f.page, size: size, model: model, deformation: f.deformation,
                             front: f.front, back: f.back, uv: uv, shade: pageShadows(box ? f.shade.underBoard(f, progress: p) : f.shade.opening(p), v), visible: visible, z: f.z,
                             thickness: thickness, closed: box ? 1 - clamp(p, 0, 1) : 0, shadowCaster: f.shadowFrom.map { -1 - $0 },
                             scale: mix(closedScale, 1, p),
                             angle: mix(f.side == .right ? 0 : .pi, f.angle, p), ratio: f.ratio)
        item.behind = f.behind
        item.leafAngle = f.leafAngle
        // A block lying open flares as the flat layout's do, less as the fan rises (`Fan.shading`).
        item.flare = box ? 1 : 1 - Fan.shading(rise: rise)
        // The desk shadow fades as the fan rises, and while the book spins (lifted off the desk).
        if f.kind == .shadow { item.opacity = (box ? 1 : 1 - rise) * spin * spin }
        // The curve into the gutter grows as the book opens (a closed book's pages lie flat).
        item.gutterDrop = f.gutterDrop * clamp(p, 0, 1)
        return item
    }
    let joint = box ? gutterJoint(laid, items, frame: world * offset, book: book, spread: spread, progress: p) : nil
    return body + items + [joint].compactMap { $0 }
}

/// While a book opens or closes, its left stack turns about a hinge above the spine, so the
/// spine edge of the page on it stands off the right page's (late in the opening two pixels at
/// 1080p on a thin book, 28 on a 400-page one), and the desk showed between them as a dark band
/// down the spine. A strip of
/// paper lies in the gutter beneath both, as dark as the pages are at the spine: the gap shows
/// paper, as a real book's joint does. Nil where the two edges meet or overlap. `frame`: the
/// book's frame (`BookBody.model`'s) → world.
private func gutterJoint(_ faces: [BookFace], _ items: [SceneItem], frame: Mat4, book: BookInfo, spread: Int,
                         progress p: Double) -> SceneItem? {
    guard p > 0, p < 1,
          let l = faces.firstIndex(where: { $0.kind == .page && $0.side == .left && $0.visible }),
          let r = faces.firstIndex(where: { $0.kind == .page && $0.side == .right && $0.visible }) else { return nil }
    // Each page's spine edge, at the foot of its curve into the gutter.
    let edge = { (i: Int) in BookBody.model(faces[i], book: book, spread: spread, progress: p).project(Vec3(0, 0, -items[i].gutterDrop.x)) }
    let (left, right) = (edge(l), edge(r))
    guard right.x > left.x else { return nil }
    // A unit beyond each edge, under the pages there (they rise away from the spine), and a
    // little below the lower edge, so that it shows only in the gap.
    let margin = 1.0
    var joint = items[r]
    (joint.front, joint.back, joint.behind) = (.blank, nil, nil)
    joint.size.x = right.x - left.x + 2 * margin
    joint.model = frame * Mat4.translation(left.x - margin, 0, min(left.z, right.z) - 0.5 * margin)
    joint.shade = Shade(self: items[r].shade.gutter)
    (joint.gutterDrop, joint.z) = (.zero, BookFaces.Order.block)
    return joint
}

/// The shadows on the pages beneath a turning sheet, scaled by `v.shadow`. With reverse
/// perspective the sheet turns away from the viewer and the revealed page is not darkened,
/// as in MPFlip (docs/seeds-reach.md).
private func pageShadows(_ shade: Shade, _ v: ViewState) -> Shade {
    var s = shade
    s.reveal *= (1 - v.styles.reversal) * v.shadow
    s.facing *= v.shadow
    s.cast *= v.shadow
    return s
}

/// How far a page fitted to the view's width runs past the view above and below it (layout
/// units): the pan's y goes from −travel (its top in view) to +travel (its bottom); 0 when
/// the whole page shows.
public func fitWidthTravel(_ v: ViewState, book: BookInfo) -> Double {
    guard v.singlePage, v.fitWidth else { return 0 }
    let shown = book.laidOutPageSize(v.style.orientation).y * openFit(v, book: book) * v.zoom
    return max(0, (shown - BookShape.viewFill * v.viewSize.y) / 2)
}

/// Book frame (spine on the y axis, right-hand pages towards +x) → world: a calendar turns
/// the book a quarter turn (spine horizontal), the spread is fitted into the view as it opens
/// with all its turns (`BookShape.turnFit`), right-to-left mirrors it, then the zoom and the pan, which grow with
/// the opening as the fit does: a zoomed book closes onto its shelf cover, not onto a cover
/// zoomed and moved that then jumps back. Its inverse maps a pointer onto the open book.
public func bookFrame(_ state: ViewState, book: BookInfo) -> Mat4 {
    let v = state.shown
    let fit = openFit(v, book: book)
    let open = clamp(v.openProgress, 0, 1)
    var m = Mat4.translation(v.pan.x * open, v.pan.y * open, 0) * Mat4.scale(mix(1, v.zoom, open))
    if book.direction == .rtl { m = m * Mat4.scale(-1, 1, 1) }
    if v.style.orientation == .vertical { m = m * Mat4.rotationZ(-.pi / 2) }
    m = fit == 1 ? m : m * Mat4.scale(mix(1, fit, open))
    // One page: the right-hand page in the middle of the view, as the book opens.
    m = v.singlePage ? m * Mat4.translation(-book.pageSize.x / 2 * open, 0, 0) : m
    return calendarSpin(v, book: book).map { $0 * m } ?? m
}

/// While the orientation changes (`StyleBlend.vertical`), the book spins a half turn about the
/// view's vertical axis, as a card turned over: laid out as a book in the first half, as a
/// calendar in the second, which starts edge on where the book ended. A book and a calendar are
/// bound along different edges, so no motion of one book leads from the one to the other: the
/// change is made where neither shows. Each shrinks as it turns away, to the same length along
/// the axis when edge on (nothing changes size there), and at least as much as perspective
/// enlarges its near side, which so never leaves the view.
private func calendarSpin(_ v: ViewState, book: BookInfo) -> Mat4? {
    guard let o = v.blend?.vertical, o > 0, o < 1 else { return nil }
    // A layout's length along the axis, and how far its sides reach from it over the eye distance.
    func measure(_ orientation: TurnStyle.Orientation) -> (length: Double, reach: Double) {
        var w = v
        w.style.orientation = orientation
        let page = book.laidOutPageSize(orientation), fit = openFit(w, book: book)
        let (length, side) = orientation == .horizontal ? (page.y, page.x) : (2 * page.x, page.y / 2)
        return (length * fit, side * fit / eyeDistance(w, book: book))
    }
    let flat = measure(.horizontal), calendar = measure(.vertical)
    let edgeOn = min(flat.length / (1 + flat.reach), calendar.length / (1 + calendar.reach))
    let past = o >= 0.5
    let turn = Double.pi * (past ? o - 1 : o)
    let shrink = edgeOn > 0 ? max((past ? calendar : flat).length / edgeOn - 1, 0) : 0
    return Mat4.rotationY(turn) * Mat4.scale(1 / (1 + shrink * abs(sin(turn))))
}

/// Sorts by draw order and points shadow receivers at their turning sheet: a receiver's
/// `shadowCaster` of −1 − k names the k-th sheet counted back from the last drawn (of a
/// riffle, `BookFaces.flatTurn` draws the one in the air that left first last); none when no
/// sheet is drawn.
private func ordered(_ items: [SceneItem]) -> [SceneItem] {
    var sorted = items.enumerated().sorted { ($0.element.z, $0.offset) < ($1.element.z, $1.offset) }.map(\.element)
    let sheets = sorted.indices.filter { sorted[$0].kind == .sheet }
    for i in sorted.indices {
        guard let k = sorted[i].shadowCaster.map({ -1 - $0 }) else { continue }
        sorted[i].shadowCaster = sheets.isEmpty ? nil : sheets[max(0, sheets.count - 1 - k)]
    }
    return sorted
}
