#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// Draws a `Scene` into the bound framebuffer with GL 3.3 core.
///
/// Does not: create a context, a window or a framebuffer; read the clock; load files other than
/// its shaders. Render thread only; call `destroy()` while the context is current.
public final class Renderer {
    public var settings: RenderSettings
    /// The programs, linked as frames first draw with them.
    let programs: ProgramCache
    /// The cast shadow, the overlays' darkening (also flat pages' insides in depth; sparing the
    /// rims a sheet lies on) and the insides of pages curving into the gutter: shadow.frag's variants.
    var shadow: ProgramUniforms { programs[.cast] }
    var overlay: ProgramUniforms { programs[.overlay] }
    var overlayRims: ProgramUniforms { programs[.overlayRims] }
    var insides: ProgramUniforms { programs[.insides] }
    var backdrop: ProgramUniforms { programs[.backdrop] }
    var block: ProgramUniforms { programs[.block] }
    var desk: ProgramUniforms { programs[.desk] }
    var copy: ProgramUniforms { programs[.copy] }
    var edge: ProgramUniforms { programs[.edge] }
    /// A program that compiled but did not link, when a frame first drew with it: its parts of
    /// the frames are not drawn. Hosts report it (commands fail with it).
    public var programFailure: RenderError? { programs.failure }
    /// Programs linked so far: those the frames drawn so far drew with (for tests).
    var linkedPrograms: Int { programs.linkedCount }
    /// Links every program now (tests: each one links).
    func linkAllPrograms() throws { try programs.linkAll() }
    /// What the context's state is; each pass states what it needs (`Pipeline`).
    let gl = GLState()
    /// The uniforms every draw of a frame shares, set once a frame.
    let frameUniforms: FrameUniforms
    /// Where each draw's uniform block is written.
    let drawUniforms: UniformRing
    let flatMesh: GridMesh
    /// A shut book's desk shadow, less the middle its cover hides (`GridMesh.ring`).
    let ringMesh: GridMesh
    /// A flat page curving down into the gutter (`SceneItem.gutterDrop`).
    let curvedMesh: GridMesh
    var sheetMesh: GridMesh
    /// The cast shadow is soft: a coarse mesh of the sheet is enough for it.
    let shadowMesh: GridMesh
    /// A page beneath a sheet: its occlusion is found per vertex and varies smoothly.
    let occlusionMesh: GridMesh
    /// The cells of `occlusionMesh` a sheet darkens, where it leaves some out (`drawOverlays`).
    let overlayCells: TriangleMesh
    let box: TriangleMesh
    /// The fringe strips along a box's edges (`drawOutlines`), its top's cut where it bends
    /// into the gutter or not.
    let boxEdges: TriangleMesh
    let flatBoxEdges: TriangleMesh
    /// The strips of the curl being drawn, and the coarser ones of its shadow.
    let curlMesh: CurlMesh
    let curlShadowMesh: CurlMesh
    /// A turning sheet's inside and its rim (`insideInset`): a curl's strips, or cells.
    let curlInsideMesh: CurlMesh
    let curlRimMesh: CurlMesh
    let insideCells: CellMesh
    let rimCells: CellMesh
    /// Times a curl's strips were built, the sheet's and its shadow's (for tests).
    var curlMeshBuilds: Int { curlMesh.builds + curlShadowMesh.builds }
    /// Faces of the last frame drawn in two parts, inside and rim (for tests).
    var facesDrawnApart = 0
    /// What the first step of a lone sheet found, for its second (`drawFace`).
    var lonePlan: FacePlan?
    var emptyVAO: GLuint = 0
    /// The frame's passes, and the targets kept between frames that they draw from.
    let planner = FramePlanner()
    /// The passes of the last frame drawn (for tests).
    var lastPasses: [FramePass] = []
    /// The rectangle redrawn by the last cached frame (for tests and benchmarks).
    public var lastDirtyRect: PixelRect? { planner.lastDirtyRect }
    /// By page, the band of each fanned page of the pass being drawn that a page nearer the
    /// reader covers (`FanCover`): it is not drawn.
    var coveredBands: [LayoutPage: Double] = [:]
    /// Per caster (scene index): the strongest shadow a receiver asks of it.
    var castStrength: [Int: Double] = [:]
    /// The light of the scene being drawn.
    var light = Scene.defaultLight
    /// Layout units per pixel of the target being drawn.
    var pixelUnits = 1.0
    /// The camera of the frame being drawn.
    var view = (projection: Mat4.identity, size: Vec2(1, 1))
    /// How far faces are drawn past their edges, so edge coverage fades outwards too.
    var rim: Double { 1.5 * pixelUnits }
    /// The pages lying open this frame, which a turning sheet leaves and lands on.
    var openPages: [SceneItem] = []
    /// Frames drawn from a kept layer, and layers (re)drawn; for benchmarks and tests.
    public var cacheHits: Int { planner.cacheHits }
    public var cacheMisses: Int { planner.cacheMisses }

    public convenience init(shaders folder: String, settings: RenderSettings = RenderSettings()) throws {
        try self.init(shaders: folder, settings: settings, ringCapacity: UniformRing.capacity)
    }

    /// `ringCapacity`: bytes of the draws' uniform ring (a test makes it start over sooner).
    init(shaders folder: String, settings: RenderSettings, ringCapacity: Int) throws {
        self.settings = settings
        let ring = UniformRing(capacity: ringCapacity)
        do {
            programs = try ProgramCache(folder: folder, ring: ring)
        } catch {
            // A shader that does not compile: nothing of the renderer outlives it.
            ring.destroy()
            throw error
        }
        drawUniforms = ring
        frameUniforms = FrameUniforms()
        flatMesh = GridMesh(columns: 1, rows: 1)
        ringMesh = GridMesh.ring()
        // Pages that curve into the gutter, and the cone's sheet, have columns where they bend.
        // Soft darkening (the cast shadow, the occlusion) needs none: its meshes meet the page's
        // spine edge exactly, and in between it varies smoothly.
        curvedMesh = GridMesh(columns: 1, rows: 1, extra: GutterCurve.columns)
        sheetMesh = GridMesh(columns: settings.gridColumns, rows: settings.gridRows, extra: GutterCurve.columns)
        shadowMesh = GridMesh(columns: 20, rows: 15)
        occlusionMesh = GridMesh(columns: FramePlanner.overlayGrid.columns, rows: FramePlanner.overlayGrid.rows)
        overlayCells = TriangleMesh(components: [2])
        curlMesh = CurlMesh()
        curlShadowMesh = CurlMesh()
        curlInsideMesh = CurlMesh()
        curlRimMesh = CurlMesh()
        insideCells = CellMesh()
        rimCells = CellMesh()
        box = BoxMesh.make(columns: GutterCurve.columns)
        boxEdges = BoxMesh.edges(columns: GutterCurve.columns)
        flatBoxEdges = BoxMesh.edges()
        glGenVertexArrays(1, &emptyVAO)
        GLErrors.enableDebugOutput()
    }

    public func destroy() {
        programs.destroy()
        frameUniforms.destroy()
        drawUniforms.destroy()
        flatMesh.destroy()
        ringMesh.destroy()
        curvedMesh.destroy()
        sheetMesh.destroy()
        shadowMesh.destroy()
        occlusionMesh.destroy()
        overlayCells.destroy()
        curlMesh.destroy()
        curlShadowMesh.destroy()
        curlInsideMesh.destroy()
        curlRimMesh.destroy()
        insideCells.destroy()
        rimCells.destroy()
        box.destroy()
        boxEdges.destroy()
        flatBoxEdges.destroy()
        glDeleteVertexArrays(1, &emptyVAO)
        planner.destroy()
    }

    /// Draws `scene` into `target`, leaving it bound.
    public func draw(_ scene: Scene, into target: Framebuffer, textures: TextureStore) {
        if sheetMesh.columns != settings.gridColumns || sheetMesh.rows != settings.gridRows {
            sheetMesh.destroy()
            sheetMesh = GridMesh(columns: settings.gridColumns, rows: settings.gridRows, extra: GutterCurve.columns)
        }
        light = scene.light
        let camera = scene.camera.fitted(width: target.width, height: target.height)
        pixelUnits = camera.viewSize.x / Double(target.width)
        view = (camera.viewProjection, camera.viewSize)
        castStrength = Self.castStrengths(scene.items)
        openPages = scene.items.filter { $0.visible && $0.kind == .page && $0.ratio == nil }
        let ordered = scene.items.enumerated().filter { $0.element.visible }
            .sorted { ($0.element.z, $0.offset) < ($1.element.z, $1.offset) }
        let items = ordered.map(\.element)
        // Sheets keep their scene index: receivers name their shadow caster by it.
        let moving = ordered.filter { $0.element.kind == .sheet }.map { Sheet(index: $0.offset, item: $0.element) }

        lastPasses = planner.plan(FramePlanner.Frame(items: items, moving: moving, camera: camera, target: target,
                                                     settings: settings, light: light), textures: textures)
        // Whatever GL call of this frame (or of the host before it) failed is reported here.
        defer { GLErrors.check("drawing a frame") }
        // Others draw on the context between frames (the on-screen layer, blits).
        gl.forget()
        drawUniforms.forgetBinding()
        frameUniforms.set(viewProj: camera.viewProjection.floats, light: light, cornerRadius: settings.cornerRadius, theme: settings.theme,
                          pixelHalf: Vec2(view.size.x / 2 / pixelUnits, view.size.y / 2 / pixelUnits))
        defer { gl.finish() }
        facesDrawnApart = 0
        lonePlan = nil
        for pass in lastPasses { run(pass, textures: textures) }
    }

    /// Something else was drawn over `rect` of `target` (GL's origin) after this frame, such as
    /// the on-screen layer: the next frame drawn from the cached layer restores it first.
    public func drewOver(_ rect: PixelRect, in target: Framebuffer) {
        guard !rect.isEmpty, let last = planner.lastDirty[target.serial] else { return }
        planner.lastDirty[target.serial] = last.union(rect)
    }

    /// Sets the pass's target up, begins it, and draws what it lists.
    func run(_ pass: FramePass, textures: TextureStore) {
        let target = pass.pass.target
        switch pass.samples {
        case .unchanged: break
        case .multisampled: target.drawMultisampled()
        case let .singleSampled(copying): target.resolveForSingleSampled(copying: copying)
        }
        gl.begin(pass.pass)
        coveredBands = pass.covered
        defer { coveredBands = [:] }
        for draw in pass.draws {
            switch draw {
            case let .insidesDepth(items): drawDepthOfInsides(items)
            case .backdrop: drawBackdrop()
            case let .block(item): drawBlock(item, textures: textures)
            case let .outlines(items): drawOutlines(items, textures: textures)
            case let .deskShadow(item, cover): drawDeskShadow(item, under: cover)
            case let .face(item, state): drawFace(item, state: state, textures: textures)
            case let .lone(item, part): drawFace(item, state: Self.lone, textures: textures, lone: part)
            case let .overlays(items, sheets, mark): drawOverlays(items, sheets: sheets, mark: mark)
            case let .castShadow(sheet, mark): drawCastShadow(sheet, mark: mark)
            case let .blit(source, rect, depth): target.copy(from: source, rect: rect, depth: depth)
            case let .copy(source):
                gl.apply(Pipeline(copy.program, DrawState()))
                source.color.bind(unit: 0)
                drawTriangle(copy)
            }
        }
        if pass.resolves { target.resolve() }
    }

    /// What lies beneath an opaque page is never seen but through its antialiased rim: the
    /// boxes under it (a block's top, a board's), and in the fan the pages it overlaps, which
    /// cost their full area each when drawn back to front. First the depth of the pages'
    /// insides (`FramePlanner.insides`), nearest first and colourless: then the colour pass
    /// shades only the frontmost surface of each pixel (the depth test runs before shading),
    /// while the rims, left out here, still blend over what lies beneath them. A flat page's
    /// inside is its quad inset a little over a pixel, more for rounded corners (page.vert's
    /// pass 3). A page curving into the gutter is drawn on the vertices of its colour pass (an
    /// inset mesh would move its curve's columns and stand in front of the page by its kink),
    /// less a band two pixels wide along its outline as seen (shadow.frag's INSIDES, whose
    /// discard costs a software renderer its early depth test: flat pages are not drawn so).
    /// Either is pushed back a step, so each page passes over its own inside, and the boxes two.
    func drawDepthOfInsides(_ opaque: [SceneItem]) {
        let state = DrawState(depth: .test(less: true, write: true), colorWrite: false, polygonOffset: 1)
        let flat = opaque.filter { $0.gutterDrop == .zero }, curved = opaque.filter { $0.gutterDrop != .zero }
        if !flat.isEmpty {
            gl.apply(Pipeline(overlay.program, state))
            overlay[.shadowPass].set(Int32(3))
            overlay[.inset].set(Float(insideDepthInset))
            for item in flat.reversed() {
                setGeometry(overlay, item)
                overlay[.spineEdge].set(Float(item.kind == .cover ? 1 : 0))
                overlay.draw { flatMesh.draw() }
            }
        }
        if !curved.isEmpty {
            gl.apply(Pipeline(insides.program, state))
            insides[.shadowPass].set(Int32(4))
            insides[.expand].set(Float(rim))
            for item in curved.reversed() {
                setGeometry(insides, item)
                insides[.spineEdge].set(Float(item.kind == .cover ? 1 : 0))
                insides.draw { curvedMesh.draw() }
            }
        }
    }

    /// How far in from its edges a flat opaque page's inside is drawn in depth
    /// (`drawDepthOfInsides`): past its antialiased rim, and within its rounded corners. What it
    /// hides is left out from as far in (a shut board's outside, the middle of its shadow).
    var insideDepthInset: Double { max(2 * pixelUnits, 0.3 * settings.cornerRadius) }

    /// A page or cover face: depth-tested, blended by its coverage (culling and winding per face).
    static let face = DrawState(depth: .test(less: false, write: true), blend: .over)
    /// A lone turning sheet's face: blended by its coverage, no depth. Its faces are drawn front
    /// first: every deformation bends the sheet one way only (towards its front: a curl's roll,
    /// a cone), so the sheet is part of a convex surface with the front inside, and where it
    /// overlaps itself on screen its back is the nearer (docs/engineering-notes.md).
    static let lone = DrawState(blend: .over)
    /// The two steps a lone sheet is drawn in (`FramePlanner.moving`): its insides, the back's
    /// first, marked `cover + 1` in the stencil, then the front's where the back's does not lie,
    /// marked `cover` (a face curving into the gutter can lie over itself there: each draws all
    /// of itself, as in one pass); then, after the darkening beneath, the rest: its rims, the
    /// front's where the back's inside does not lie, the back's over all. A sheet not drawn
    /// apart, or not opaque (its opacity, or a face's image), is drawn whole in the second.
    enum LonePart: Equatable {
        case insides(cover: GLint)
        case rest(cover: GLint)
    }
    /// Darkening of the pages beneath, before the sheet is drawn over them, where the stencil
    /// holds less than `mark` (not where the sheet's insides lie).
    static func overlayState(mark: GLint) -> DrawState {
        DrawState(stencil: .init(function: E(GL_GREATER), reference: mark, readMask: 0xFF, writeMask: 0), blend: .multiply)
    }

    /// Darkening of the pages a sheet turns over, multiplied onto the cached layer so the layer
    /// itself never changes during a turn: the sky the sheet hides from each point (found from
    /// its geometry per vertex of a grid), or for a page with no sheet above it its shade terms.
    func drawOverlays(_ overlays: [Overlay], sheets: [Sheet], mark: GLint) {
        let state = Self.overlayState(mark: mark)
        let (columns, rows) = (occlusionMesh.columns, occlusionMesh.rows)
        for overlay in overlays {
            let item = overlay.item
            let caster = sheets.first(where: { $0.index == item.shadowCaster })?.item
            // The rims are spared only where the sheet rests on the page's (vRim), or where no
            // sheet is above; elsewhere the program without that code (a software renderer runs
            // a uniform branch's code, and its derivatives, all the same: docs/performance.md)
            // darkens the page.
            let sparesRims = caster.map { $0.restsOnRim(of: item, columns: columns, rows: rows, pixels: pixels) } ?? true
            let u = sparesRims ? overlayRims : self.overlay
            gl.apply(Pipeline(u.program, state))
            setGeometry(u, item)
            if let caster {
                let whole = overlay.cells?.joined().allSatisfy { $0 } ?? true
                if let cells = overlay.cells, !whole { overlayCells.upload(occlusionMesh.cells(kept: cells)) }
                setDeformation(u, caster.deformation)
                u[.casterModel].set(matrix: caster.model.floats)
                u[.casterSize].set(Float(caster.size.x), Float(caster.size.y))
                u[.shadowPass].set(Int32(2))
                u[.strength].set(Float(item.shade.`self`))
                u[.ambient].set(Float(settings.ambientOcclusion))
                u.draw { whole ? occlusionMesh.draw() : overlayCells.draw() }
            } else {
                u[.shadowPass].set(Int32(0))
                u[.strength].set(Float(item.shade.darkening))
                u[.ambient].set(Float(0))
                u.draw { drawMesh(for: item) }
            }
        }
    }

    /// Where world point `w` lands on the frame being drawn, in pixels from its centre
    /// (page.vert's `clipPixels`).
    func pixels(_ w: Vec3) -> Vec2 {
        let c = view.projection.project(w)
        return Vec2(c.x * view.size.x, c.y * view.size.y) / (2 * pixelUnits)
    }

    /// The cast shadow, each pixel darkened once where the flattened sheet overlaps itself: it
    /// marks the pixels it darkens with `mark` and passes only those holding less.
    static func castState(mark: GLint) -> DrawState {
        DrawState(stencil: .init(function: E(GL_GREATER), reference: mark, readMask: 0xFF, writeMask: 0xFF, pass: E(GL_REPLACE)),
                  blend: .multiply)
    }

    /// The room: one wooden desk, under the shelf's books as under an open book
    /// (`docs/behaviour.md` §2): taking a book from the row and opening it changes no colour.
    func drawBackdrop() {
        // Behind everything: only where no page's inside has been drawn in depth.
        gl.apply(Pipeline(backdrop.program, DrawState(depth: .test(less: true, write: false))))
        let room = settings.theme.room
        backdrop[.top].set(0.42 * Float(room.r), 0.30 * Float(room.g), 0.21 * Float(room.b))
        backdrop[.bottom].set(0.30 * Float(room.r), 0.20 * Float(room.g), 0.13 * Float(room.b))
        backdrop[.vignette].set(0.55)
        drawTriangle(backdrop)
    }

    /// One triangle over the whole view (backdrop.vert), drawn with `program`.
    func drawTriangle(_ program: ProgramUniforms) {
        glBindVertexArray(emptyVAO)
        program.draw { glDrawArrays(E(GL_TRIANGLES), 0, 3) }
    }
}
