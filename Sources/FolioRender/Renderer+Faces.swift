#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// How the renderer draws each face: its mesh, its uniforms and program, the blocks, the
/// shadows and what is drawn over the pages.
extension Renderer {
    /// The fraction of its width from the spine a fanned page is drawn from (`coveredBands`).
    func drawnFrom(_ item: SceneItem) -> Double {
        item.ratio.flatMap { _ in coveredBands[item.page] } ?? 0
    }

    func setGeometry(_ u: ProgramUniforms, _ item: SceneItem) {
        u[.from].set(Float(drawnFrom(item)))
        u[.model].set(matrix: item.model.floats)
        u[.size].set(Float(item.size.x), Float(item.size.y))
        u[.gutterDrop].set(Float(item.gutterDrop.x), Float(item.gutterDrop.y))
        setDeformation(u, item.deformation)
    }

    func setDeformation(_ u: ProgramUniforms, _ deformation: Deformation) {
        switch deformation {
        case .flat:
            u[.deform].set(Int32(0))
        case let .curl(c):
            u[.deform].set(Int32(1))
            u[.curl].set(Float(c.point.x), Float(c.point.y), Float(c.direction.x), Float(c.direction.y))
            u[.curlRadius].set(Float(c.radius))
            u[.curlWrap].set(Float(c.wrap))
            u[.cone].set(0, 0, Float(c.rotation))
        case let .cone(c):
            u[.deform].set(Int32(2))
            u[.cone].set(Float(c.apex), Float(c.theta), Float(c.rotation))
        }
    }

    /// Draws an item's mesh: one quad when flat (with columns where it curves into the
    /// gutter), strips cut along the fold for a curl (rebuilt only when the curl changes), a
    /// uniform grid for a cone. `coarse` is for soft shadows.
    /// `apart`: a turning sheet's inside or rim (`insideInset`), cut where its whole mesh is: at
    /// the gutter's columns, and for a cone at the grid's too.
    func drawMesh(for item: SceneItem, coarse: Bool = false, part: MeshPart = .all, apart: SheetRegion? = nil) {
        switch item.deformation {
        case .flat:
            if let apart { return drawCells(apart, of: item, columns: item.gutterDrop == .zero ? [] : GutterCurve.columns, rows: 1) }
            (item.gutterDrop == .zero || coarse ? flatMesh : curvedMesh).draw()
        case let .curl(c):
            if coarse {
                curlShadowMesh.draw(c, size: item.size, strips: max(settings.curlStrips / 3, 4), region: .whole(margin: 0), gutter: false,
                                    part: part)
            } else if let apart {
                (apart.isInside ? curlInsideMesh : curlRimMesh).draw(c, size: item.size, strips: settings.curlStrips, region: apart,
                                                                     gutter: true, part: part)
            } else {
                curlMesh.draw(c, size: item.size, strips: settings.curlStrips, region: .whole(margin: rim), gutter: true, part: part)
            }
        case .cone:
            if let apart {
                let uniform = (0...settings.gridColumns).map { Double($0) / Double(settings.gridColumns) }
                return drawCells(apart, of: item, columns: uniform + GutterCurve.columns, rows: settings.gridRows)
            }
            (coarse ? shadowMesh : sheetMesh).draw()
        }
    }

    func drawCells(_ region: SheetRegion, of item: SceneItem, columns: [Double], rows: Int) {
        (region.isInside ? insideCells : rimCells).draw(size: item.size, region: region, columns: columns, rows: rows)
    }

    /// Draws the item's faces with `state` (`face` or `lone`), culled and wound per face. A
    /// turning sheet's faces are drawn in two parts where they can be (`insideInset`): the inside
    /// without the edge terms, then the rim around it; a lone sheet's in the steps `lone` names.
    func drawFace(_ item: SceneItem, state: DrawState, textures: TextureStore, lone: LonePart? = nil) {
        let plan = lonePlan.flatMap { $0.item == item ? $0 : nil } ?? facePlan(item, state: state, textures: textures)
        let insides: GLint? = if case let .insides(cover) = lone { cover } else { nil }
        lonePlan = insides != nil ? plan : nil
        // Insides drawn ahead of the darkening beneath must hide it.
        let ahead = lone != nil && plan.inset != nil && item.opacity >= 1 && plan.images.allSatisfy(\.image.opaque)
        if insides != nil && !ahead { return }
        if plan.inset != nil && insides == nil { facesDrawnApart += plan.faces.count }
        // Where a sheet folds over itself its back is on top: drawn first, depth (or the
        // insides' stencil) then spares the front beneath; without either, drawn last.
        let order = state.depth == .off && insides == nil ? Array(plan.faces.indices) : plan.faces.indices.reversed()
        let moving = item.kind == .sheet || item.ratio != nil
        let s = item.shade
        for (face, image) in order.map({ (plan.faces[$0], plan.images[$0]) }) {
            // One level for every part of the face (`behindLevel`).
            let otherLevel = image.behind.map { behindLevel(item, texels: Vec2(Double($0.width), Double($0.height))) }
            for (biased, part) in plan.parts {
                let variant = PageVariant.of(item, moving: moving, back: face.back > 0, biasedTap: biased,
                                             showThrough: image.behind != nil, recolour: plan.recolours)
                let draws: [(PageVariant, SheetRegion?)] = plan.inset.map {
                    let inside = (variant.inside, SheetRegion.inside(inset: $0)), around = (variant, SheetRegion.rim(inset: $0, margin: rim))
                    return !ahead ? [inside, around] : insides != nil ? [inside] : [around]
                } ?? [(variant, nil)]
                for (variant, apart) in draws {
                    let page = programs[.page(variant)]
                    var faceState = state
                    faceState.cull = face.cull
                    // The front passes where the stencil holds no more than its own mark (`LonePart`).
                    if ahead, case let .insides(cover)? = lone {
                        faceState.stencil = face.back > 0
                            ? .init(function: E(GL_ALWAYS), reference: cover + 1, readMask: 0xFF, writeMask: 0xFF, pass: E(GL_REPLACE))
                            : .init(function: E(GL_GEQUAL), reference: cover, readMask: 0xFF, writeMask: 0xFF, pass: E(GL_REPLACE))
                    } else if ahead, case let .rest(cover)? = lone, face.back == 0 {
                        faceState.stencil = .init(function: E(GL_GEQUAL), reference: cover, readMask: 0xFF, writeMask: 0)
                    }
                    faceState.clockwise = item.model.determinant < 0
                    gl.apply(Pipeline(page.program, faceState))
                    setGeometry(page, item)
                    if variant.stacked || variant.insideOnly { plan.stacks?.set(page) }
                    page[.uvOrigin].set(Float(item.uv.origin.x), Float(item.uv.origin.y))
                    page[.uvDu].set(Float(item.uv.du.x), Float(item.uv.du.y))
                    page[.uvDt].set(Float(item.uv.dt.x), Float(item.uv.dt.y))
                    page[.shade].set(Float(s.reveal), Float(s.facing), Float(s.`self`), Float(s.crease))
                    page[.gutter].set(Float(s.gutter))
                    page[.wedge].set(Float(item.size.x * cos(s.wedge)), Float(s.wedge > 0 ? item.size.x * sin(s.wedge) : 0))
                    page[.ambient].set(Float(settings.ambientOcclusion * s.wedgeStrength))
                    page[.opacity].set(Float(item.opacity))
                    // The parts carry their margin in their vertices, as a curl's strips do.
                    page[.expand].set(Float(apart == nil ? rim : 0))
                    page[.spineEdge].set(Float(item.kind == .cover ? 1 : 0))
                    page[.backTone].set(Float(item.kind == .cover ? 0 : 1))
                    page[.showThrough].set(Float(s.showThrough), Float(s.showThroughBehind))
                    if biased { setTapBias(page, item, texels: Vec2(Double(image.image.width), Double(image.image.height))) }
                    if let other = image.behind, let otherLevel {
                        other.bind(unit: 1)
                        let map = item.behindUV ?? item.uv
                        page[.behindLevel].set(Float(otherLevel))
                        page[.behindOrigin].set(Float(map.origin.x), Float(map.origin.y))
                        page[.behindDu].set(Float(map.du.x), Float(map.du.y))
                        page[.behindDt].set(Float(map.dt.x), Float(map.dt.y))
                    }
                    image.image.bind(unit: 0)
                    page[.backFace].set(face.back)
                    page.draw { drawMesh(for: item, part: part, apart: apart) }
                }
            }
        }
    }

    /// What drawing `item`'s faces with `state` needs (`FacePlan`).
    func facePlan(_ item: SceneItem, state: DrawState, textures: TextureStore) -> FacePlan {
        // A turning sheet of the flat layout (a fanned page's edge terms cost too little to pay
        // for a second draw: docs/performance-history.md); a curl only alone, as its strips are cut only then.
        let inset: Vec2? = {
            guard settings.sheetInsideApart, PageVariant.isStacked(item) else { return nil }
            if case .curl = item.deformation, state != Self.lone { return nil }
            return insideInset(item)
        }()
        // One pass per face: each pixel samples only the image it shows.
        let faces: [(content: FaceContent, cull: DrawState.Cull, back: Float)] =
            [(item.front, .back, 0)] + (item.back.map { [($0, .front, 1)] } ?? [])
        // A sheet's faces show through each other; a page lying open shows its sheet's other
        // side. The tap is taken only where it can show: a face with some show-through where the
        // light falls on it (a turning sheet's always: `PageStack.showThrough`), or one the
        // light reaches from behind somewhere.
        let s = item.shade
        let behind = faces.map { face -> FaceContent? in
            let other = item.back == nil ? item.behind : face.back > 0 ? item.front : item.back
            let shows = settings.showThrough && settings.printedBooks.contains(item.book)
                && (s.showThrough > 0 || (s.showThroughBehind > 0 && isBackLit(item, back: face.back > 0)))
            return shows ? other : nil
        }
        // Every texture looked up (made, if it is the paper's) before any is bound.
        let images = zip(faces, behind).map { face, other in
            (image: textures.texture(for: face.content), behind: other.map(textures.texture))
        }
        return FacePlan(item: item, faces: faces, images: images, inset: inset, parts: tapParts(item),
                        stacks: PageVariant.isStacked(item) ? stackUniforms(item) : nil,
                        recolours: item.kind != .cover && takesTheme(item))
    }

    /// The parts of a face's mesh and whether each takes the biased tap: only where some of
    /// the face is not seen square (the plain tap draws the same pixels elsewhere, without the
    /// bias's work). A curl's flat part is judged as it stands, turned about the spine with the
    /// sheet: seen square while it lies on the page or has only begun to lift (a corner folded
    /// along a diagonal keeps it down a while), so the change of tap falls where the two read
    /// the same (`flatSqueeze`) and the type does not jump.
    func tapParts(_ item: SceneItem) -> [(biased: Bool, part: MeshPart)] {
        guard settings.biasedTaps else { return [(false, .all)] }
        switch item.deformation {
        case .flat: return [(!flatEnough(item), .all)]
        case let .curl(c):
            var flatPart = item
            flatPart.model = item.model * Mat4.rotationY(-c.rotation)
            return flatEnough(flatPart) ? [(false, .flat), (true, .bent)] : [(true, .all)]
        case .cone: return [(true, .all)]
        }
    }

    /// Texels across the page's height at the level page.frag reads the other side from: the
    /// paper diffuses it over about a third of a line of type, so its lines show as bands and
    /// its letters never do, the same at every zoom and in every crop (docs/behaviour.md §5).
    static let showThroughTexels = 128.0

    /// The mipmap level of the other side's image whose texels are `showThroughTexels` to the
    /// page, for a page `pageTexels` tall (its height's extent in texels) at level 0.
    static func showThroughLevel(pageTexels: Vec2) -> Double {
        max(0, log2(max((pageTexels * pageTexels).sum().squareRoot(), 1) / showThroughTexels))
    }

    /// Whether the item's undeformed plane is seen square everywhere, to within `flatSqueeze`
    /// (page.frag's biased tap then differs from the plain one by under 1% of a footprint):
    /// found at a 3 × 3 grid of its points, from the ratio of the longer to the shorter axis of
    /// the screen image of a small square of it. A page lying in the view plane is seen square.
    func flatEnough(_ item: SceneItem) -> Bool {
        screenAxes(item).allSatisfy { u, v in
            let a = (u * u).sum(), b = (u * v).sum(), d = (v * v).sum()
            let half = (a + d) / 2, spread = max(half * half - (a * d - b * b), 0).squareRoot()
            // Squared axes half ± spread: their ratio is the squeeze squared.
            return half - spread > 0 && half + spread <= Self.flatSqueeze * Self.flatSqueeze * (half - spread)
        }
    }

    /// Pixels per layout unit along the face's two axes (across, from the spine, and along its
    /// height) at a 3 × 3 grid of its undeformed plane, from `from` of its width on: the screen
    /// image of a small square of it, for how squeezed it is seen there.
    func screenAxes(_ item: SceneItem, from: Double = 0) -> [(u: Vec2, v: Vec2)] {
        let m = view.projection * item.model
        let e = 0.01 * max(item.size.x, 1)
        let scale = Vec2(view.size.x / 2, view.size.y / 2)
        return (0...8).map { k in
            let p = Vec3(item.size.x * (from + (1 - from) * Double(k / 3) / 2), item.size.y * (Double(k % 3) / 2 - 0.5), 0)
            let c = m.project(p), du = m.project(p + Vec3(e, 0, 0)) - c, dv = m.project(p + Vec3(0, e, 0)) - c
            return (Vec2(du.x * scale.x, du.y * scale.y) / e, Vec2(dv.x * scale.x, dv.y * scale.y) / e)
        }
    }

    /// How far in from its fore edge (x) and from its top and bottom (y), in layout units, a
    /// turning sheet's inside starts: every pixel there lies at least `insideSteps` of the edge
    /// distance's own screen step (page.frag's `fwidth(dist)`) from those edges, past the reach
    /// of the edge's coverage (½), the back's rim (2½) and STACKED's offset (4½), so page.frag's
    /// INSIDE draws it the same. Found on the deformed sheet at points along those edges and
    /// inside them. Nil where that leaves too little inside to pay for a second draw (a sheet
    /// seen nearly edge on).
    func insideInset(_ item: SceneItem) -> Vec2? {
        let size = item.size, e = 1e-3 * max(size.x, size.y)
        func screen(_ p: Vec2) -> Vec2 {
            pixels(item.model.project(item.deformation.apply(p, gutterDrop: item.gutterDrop, width: size.x).position))
        }
        // The largest screen steps of the distance to the fore edge (x) and to the top and
        // bottom (y), at points `depth` inside them.
        func steps(depth: Vec2) -> Vec2? {
            var most = Vec2.zero
            for k in 0...8 {
                let f = Double(k) / 8
                let points = [(Vec2(size.x - depth.x, (f - 0.5) * size.y), true),
                              (Vec2(f * size.x, size.y / 2 - depth.y), false), (Vec2(f * size.x, depth.y - size.y / 2), false)]
                for (p, fore) in points {
                    let c = screen(p), da = (screen(p + Vec2(e, 0)) - c) / e, dl = (screen(p + Vec2(0, e)) - c) / e
                    let det = abs(da.x * dl.y - dl.x * da.y)
                    guard det > 1e-9 else { return nil }
                    // A row of the inverse of the screen's Jacobian: the distance's step right and down.
                    if fore { most.x = max(most.x, (abs(dl.x) + abs(dl.y)) / det) } else { most.y = max(most.y, (abs(da.x) + abs(da.y)) / det) }
                }
            }
            return most
        }
        guard let atEdge = steps(depth: .zero) else { return nil }
        let first = atEdge * Self.insideSteps
        guard let within = steps(depth: first), let deeper = steps(depth: first * 2) else { return nil }
        let inset = Vec2(max(atEdge.x, within.x, deeper.x), max(atEdge.y, within.y, deeper.y)) * Self.insideSteps
            + Vec2(repeating: settings.cornerRadius)
        return inset.x < 0.5 * size.x && inset.y < 0.25 * size.y ? inset : nil
    }

    /// Screen steps of the edge distance a sheet's inside keeps from its edges: the 4½ the
    /// edge terms reach, and a third more for the strips and grid the GPU draws in place of
    /// the surface `insideInset` measures.
    static let insideSteps = 6.0

    /// The squeeze up to which a face counts as seen square.
    static let flatSqueeze = 1.01

    /// page.frag's BIASED level-of-detail bias for a flat face whose image is `texels` wide and
    /// high: log₂ of the ratio of the shorter to the longer of a pixel's steps in texels across
    /// and down the screen (the sampler's level follows the longer, the type's sharpness the
    /// shorter), no lower than −1 (past a 2× squeeze the longer would alias), averaged over a
    /// 3 × 3 grid of the part drawn (`coveredBands`). Continuous in the face's place, so its
    /// sharpness never switches. A bent face's squeeze varies over it: page.vert finds its bias
    /// the same way per vertex (`bentTapBias`).
    func tapBias(_ item: SceneItem, texels: Vec2) -> Double {
        var sum = 0.0
        for step in pixelSteps(item, axes: item.texelAxes(texels: texels), from: drawnFrom(item)) {
            guard let (lx, ly) = step else { return -1 }
            sum += max(0.5 * log2(max(min(lx, ly), 1e-24) / max(lx, ly, 1e-24)), -1)
        }
        return sum / 9
    }

    /// The squared lengths, in texels, of a pixel's step right and down the screen at each of
    /// `screenAxes`' points, for texels laid on the face along `axes` (texels per layout unit
    /// across and along it); nil where the face is seen edge-on.
    func pixelSteps(_ item: SceneItem, axes: (across: Vec2, along: Vec2), from: Double = 0) -> [(x: Double, y: Double)?] {
        screenAxes(item, from: from).map { u, v in
            // Inverted: layout units per pixel step right and down.
            let det = u.x * v.y - u.y * v.x
            guard abs(det) > 1e-12 else { return nil }
            let right = Vec2(v.y, -u.y) / det, down = Vec2(-v.x, u.x) / det
            // The screen's axes are in the view's units: `pixelUnits` of them to a pixel.
            let dx = (axes.across * right.x + axes.along * right.y) * pixelUnits
            let dy = (axes.across * down.x + axes.along * down.y) * pixelUnits
            return ((dx * dx).sum(), (dy * dy).sum())
        }
    }

    /// The level page.frag reads the other side's image at (`texels` wide and high): its
    /// `showThroughLevel`, or the screen's footprint where that is coarser (a face seen small
    /// or squeezed, so its bands never alias), the coarsest over a 3 × 3 grid of the face's
    /// plane. Per draw: a software renderer pays for a per-pixel level's derivatives and
    /// logarithm on every pixel that shows through (docs/performance.md).
    func behindLevel(_ item: SceneItem, texels: Vec2) -> Double {
        let map = item.behindUV ?? item.uv
        let widest = pixelSteps(item, axes: item.texelAxes(texels: texels, map: map)).map { $0.map { max($0.x, $0.y) } ?? .infinity }.max() ?? 0
        return min(max(Self.showThroughLevel(pageTexels: Vec2(map.dt.x * texels.x, map.dt.y * texels.y)),
                       0.5 * log2(max(widest, 1e-24))), Self.coarsestLevel)
    }

    /// Past any mipmap chain's last level (a 64 K texture's is 16): an edge-on face's footprint.
    static let coarsestLevel = 16.0

    /// Where the pages a turning sheet of the flat layout leaves and lands on lie (pages lying
    /// open of its size, attached at the same spine), for page.vert's `vHere`, `vRest` and `vAlign`; out
    /// of reach where there is none. Their rims lie under the sheet's own (`uStackRims`) only
    /// where a sheet's other side is behind them: an endpaper lies on its board, not on a
    /// stack, and stays drawn under the page that lands on it, so the two rims add up at rest
    /// too. Its texels still guide the landing sheet's. Found once a sheet, and set on each
    /// program that draws a part of it (`StackUniforms.set`).
    func stackUniforms(_ sheet: SceneItem) -> StackUniforms {
        let under = openPages.filter { abs($0.size.x - sheet.size.x) < 1e-6 && abs($0.size.y - sheet.size.y) < 1e-6 }.prefix(2)
        let away = Mat4.translation(1e6, 1e6, 0)
        // Where the sheet lay and will lie at rest, for its texels' alignment: on each of those
        // pages at the sheet's own height (its spine's, over the page's plane) and with its own
        // curve (the drop it leaves with, and lands with, turned over on the way).
        let lifts: [Double] = under.map { page in page.model.inverse.map { ($0 * sheet.model).project(.zero).z } ?? 0 } + [0, 0]
        return StackUniforms(models: Array(under.map(\.model)) + [away, away],
                             // Each page's own curve into the gutter: the sheet's own drop has turned over with it.
                             drops: Array(under.map(\.gutterDrop.x)) + [0, 0],
                             rims: Array(under.map { $0.behind != nil ? Float(1) : 0 }) + [0, 0],
                             lifts: lifts, alignDrop: abs(sheet.gutterDrop.x),
                             liesNear: sheet.liesNear(under.map(\.model)))
    }

    /// The BIASED tap's bias: a flat face's here (`tapBias`), a bent face's per vertex from
    /// its texels per layout unit and the view.
    func setTapBias(_ page: ProgramUniforms, _ item: SceneItem, texels: Vec2) {
        guard item.deformation != .flat else { return page[.tapBias].set(Float(tapBias(item, texels: texels))) }
        let (across, along) = item.texelAxes(texels: texels)
        page[.texelAxes].set(Float(across.x), Float(across.y), Float(along.x), Float(along.y))
    }

    /// Whether the light reaches one of the item's faces (`back`) from behind, or nearly
    /// (page.frag's back-lighting starts at n · l = 0), where that face may be seen: sampled
    /// over the deformed page, faces turned well away from the viewer left out.
    func isBackLit(_ item: SceneItem, back: Bool) -> Bool {
        item.someNormal(columns: 12, rows: 12) { n in
            let face = back ? -n : n
            return face.z > -0.2 && dot(face, light) < 0.05
        }
    }

    func takesTheme(_ item: SceneItem) -> Bool {
        settings.theme.recolours && settings.printedBooks.contains(item.book)
    }

    /// A page block (paper edges, spreading a little towards the bottom) or a cover board.
    func drawBlock(_ item: SceneItem, textures: TextureStore) {
        // A box's top lies in the plane of the page on it: pushed back in depth, further than the
        // page's inside (`drawDepthOfInsides`), it never shows through the page in stripes as the
        // book opens, and is not shaded where the page covers it. Leaves fanned off a stack stand
        // on its top page: pushed back only as far as the insides, their foot shows where it
        // meets that page.
        gl.apply(Pipeline(block.program, DrawState(depth: .test(less: false, write: true), cull: .back,
                                                   clockwise: item.model.determinant < 0, polygonOffset: Self.boxOffset(item))))
        setBox(block, item, textures: textures)
        block.draw { box.draw() }
    }

    /// Without multisampling, the fringe along the outline of each of `items` (blocks and boards,
    /// all drawn already: edge.vert), blended over what lies beyond it, as far back in depth as
    /// its box, writing none: a box drawn later still covers it. A book's boards and block share
    /// much of their outline on screen, and two strips there thickened it: each pixel takes one
    /// strip of a book, its nearest box's first, marked with the book in the stencil (which the
    /// pass starts from cleared, or from a kept room's own marks). Books' strips cross freely.
    func drawOutlines(_ items: [SceneItem], textures: TextureStore) {
        let height = { (item: SceneItem) in item.model.project(Vec3(item.size.x / 2, 0, -item.thickness / 2)).z }
        for item in items.sorted(by: { ($0.book, -height($0)) < ($1.book, -height($1)) }) {
            let once = DrawState.Stencil(function: E(GL_NOTEQUAL), reference: GLint(item.book % 255 + 1), readMask: 0xFF,
                                         writeMask: 0xFF, pass: E(GL_REPLACE))
            gl.apply(Pipeline(edge.program, DrawState(depth: .test(less: false, write: false), stencil: once, blend: .over,
                                                      polygonOffset: Self.boxOffset(item))))
            setBox(edge, item, textures: textures)
            // Vertices cost a software renderer here: a top that does not bend needs no cuts
            // (box-place.glsl: the gutter's curve; fanned leaves lie flat).
            let bends = item.gutterDrop.x != 0 && item.leafAngle == 0
            edge.draw { (bends ? boxEdges : flatBoxEdges).draw() }
        }
    }

    static func boxOffset(_ item: SceneItem) -> Float { item.leafAngle > 0 ? 1 : 2 }

    /// What block.vert, edge.vert and block.frag draw `item` with.
    private func setBox(_ program: ProgramUniforms, _ item: SceneItem, textures: TextureStore) {
        program[.model].set(matrix: item.model.floats)
        program[.size].set(Float(item.size.x), Float(item.size.y))
        program[.thickness].set(Float(item.thickness))
        // The paper's edges take the theme's paper with the pages.
        let paper = takesTheme(item) ? settings.theme.paper : Theme.paper.paper
        // Leaves under a lifting board lie in its shade, as the page under them does.
        let shade = 1 - item.shade.reveal
        program[.paper].set(Float(0.93 * paper.r * shade), Float(0.90 * paper.g * shade), Float(0.83 * paper.b * shade))
        let tint = takesTheme(item) ? settings.theme.room : Theme.paper.room
        program[.clothTint].set(Float(tint.r), Float(tint.g), Float(tint.b))
        program[.sheets].set(Float(max(item.thickness / PageStack.sheetThickness, 1)))
        let board = item.kind == .board
        program[.board].set(Int32(board ? 1 : 0))
        program[.grow].set(Float(board ? BookBoard.overhang(item.thickness) : 0))
        // An open book's block stops a pixel short of the page's head and tail: the page's
        // antialiased rim there blends over the board beyond, never over a sliver of the block's
        // top that a stack a sheet lower shows along another stretch of the edge (without MSAA
        // the block's edge steps). Its sides there are never seen; its fore edge is.
        program[.endsInset].set(Float(board || item.closed > 0 ? 0 : pixelUnits))
        // A shut book's block is square and its spine side is the cover's cloth.
        program[.flare].set(Float(board ? 0 : 0.5 * (1 - item.closed) * item.flare))
        program[.gutterDrop].set(Float(item.gutterDrop.x))
        program[.leafAngle].set(Float(item.leafAngle))
        program[.spine].set(Float(board ? 0 : item.closed))
        // A shut book's board turns its top to the block and its bottom to the cover or the
        // desk, which hide all of them but the band beyond: the rest is not drawn (block.vert),
        // with a margin as the pages' insides keep.
        let hollow = board && item.closed >= 1 && item.opacity >= 1
        program[.hollow].set(Float(hollow ? min(insideDepthInset, 0.03 * item.size.x) : 0))
        if board || item.closed > 0 {
            textures.texture(for: .cover(item.book)).bind(unit: 0)
        }
    }

    /// The soft shadow of half a book on the desk (of a closed book on the wall behind it),
    /// multiplied into the backdrop.
    func drawDeskShadow(_ item: SceneItem, under cover: SceneItem?) {
        guard item.thickness > 0 else { return }
        // Depth-tested, writing none: on the shelf the covers' insides are already in depth, so
        // the shadow behind each book is not shaded where its cover will hide it.
        gl.apply(Pipeline(desk.program, DrawState(depth: .test(less: false, write: false), blend: .multiply)))
        desk[.model].set(matrix: item.model.floats)
        desk[.size].set(Float(item.size.x), Float(item.size.y))
        // Softer with the height above the desk: none at an open book's spine (desk.vert).
        desk[.margin].set(12, Float(12 + 1.5 * item.thickness))
        desk[.height].set(Float(item.thickness))
        desk[.strength].set(Float(0.45 * item.opacity))
        desk[.closed].set(Float(item.closed))
        // A software renderer pays for every pixel a draw covers, hidden or not: a shut book's
        // cover hides the middle of its shadow (on the shelf, a quarter of a frame).
        let shift = Vec2(light.x, light.y) / light.z * item.thickness * 0.5
        if let cover, let hole = item.hiddenUnder(cover, inset: insideDepthInset, shift: shift, viewProjection: view.projection) {
            desk[.hole].set(Float(hole.low.x), Float(hole.low.y), Float(hole.high.x), Float(hole.high.y))
            return desk.draw { ringMesh.draw() }
        }
        desk.draw { flatMesh.draw() }
    }

    static func castStrengths(_ items: [SceneItem]) -> [Int: Double] {
        var out: [Int: Double] = [:]
        for item in items where item.visible {
            if let caster = item.shadowCaster { out[caster] = max(out[caster] ?? 0, item.shade.cast) }
        }
        return out
    }

    /// The sheet flattened onto the page plane along the light, multiplied into what is there.
    func drawCastShadow(_ caster: Sheet, mark: GLint) {
        let sheet = caster.item
        let strength = (castStrength[caster.index] ?? 0) * settings.shadowStrength
        guard strength > 0 else { return }
        gl.apply(Pipeline(shadow.program, Self.castState(mark: mark)))
        setGeometry(shadow, sheet)
        shadow[.shadowPass].set(Int32(1))
        shadow[.strength].set(Float(strength * sheet.opacity))
        shadow[.falloff].set(Float(settings.shadowFalloff))
        shadow.draw { drawMesh(for: sheet, coarse: true) }
    }
}
