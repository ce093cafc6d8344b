#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// How pages are drawn.
public struct RenderSettings: Sendable, Equatable {
    /// Cells of the mesh a cone-bent sheet is drawn with (across × along the spine). 40 × 30
    /// keeps it smooth at 720p on a software renderer; the GPU defaults raise it for 1080p.
    public var gridColumns = 40
    public var gridRows = 30
    /// Strips over the half turn of a curl's cylinder (its mesh is cut along the fold).
    public var curlStrips = 24
    /// Multisampling of the targets commands make (0: off; the software renderer cannot afford it).
    public var samples = 0
    /// With multisampling, only what has no edge coverage of its own (the backdrop, page blocks,
    /// boards, desk shadows) is drawn multisampled; pages and sheets, which antialias their own
    /// edges, are drawn single-sampled over it once resolved. A software renderer pays for every
    /// sample of every pixel: this keeps the boxes' edges for a fraction of the cost.
    public var multisampleBoxesOnly = true
    /// One texture tap biased for the squeeze where a moving page is seen steeply, so its type
    /// stays legible (the software renderer's own anisotropic filtering triples the cost and
    /// garbles type; GPUs use theirs): page.frag's BIASED, `tapBias` for a flat face.
    public var biasedTaps = true
    /// The other side's print showing through the paper (one more texture tap where it can
    /// show: docs/engineering-notes.md has its cost on a software renderer).
    public var showThrough = true
    /// A turning sheet drawn in two parts, its inside without the edge terms and then the rim
    /// around it (`Renderer.insideInset`): the same picture for less of a frame's CPU on a
    /// software renderer. Off only to compare the two.
    public var sheetInsideApart = true
    /// Rounded outer page corners, layout units (0: square).
    public var cornerRadius = 0.0
    /// Scales the cast shadow's strength from the scene (`Shade.cast`); 0 turns it off.
    public var shadowStrength = 1.0
    /// Height (layout units) over which the cast shadow fades.
    public var shadowFalloff = 160.0
    /// Darkening of a page where a sheet above it hides the whole sky (ambient occlusion).
    public var ambientOcclusion = 0.6
    /// Draw what does not move once into a texture and redraw only the turning sheet and what
    /// its shadow touches (in the fan, only what fans: `drawOverRoom`).
    public var cacheStaticLayer = true
    /// The reader's colours (`Theme`): the room is tinted, and the pages of `printedBooks`
    /// recoloured.
    public var theme: Theme = .paper
    /// Books printed on paper (`Book.isPrinted`): themes recolour their pages and the other
    /// side of a sheet shows through; photographs and comics are shown as they are.
    public var printedBooks: Set<Int> = []

    public init() {}

    /// Defaults for the renderer in use: a denser sheet mesh on a GPU, where vertices are free.
    public static func defaults(software: Bool) -> RenderSettings {
        var s = RenderSettings()
        if !software {
            s.gridColumns = 96
            s.gridRows = 72
            s.curlStrips = 64
            s.samples = 4
            s.multisampleBoxesOnly = false
            s.biasedTaps = false
        }
        return s
    }
}

/// Draws a `Scene` into the bound framebuffer with GL 3.3 core.
///
/// Does not: create a context, a window or a framebuffer; read the clock; load files other than
/// its shaders. Render thread only; call `destroy()` while the context is current.
public final class Renderer {
    public var settings: RenderSettings
    /// The programs, linked as frames first draw with them.
    private let programs: ProgramCache
    /// The cast shadow, and the overlays' darkening (also the depth-only pass): shadow.frag's variants.
    private var shadow: ProgramUniforms { programs[.cast] }
    private var overlay: ProgramUniforms { programs[.overlay] }
    private var backdrop: ProgramUniforms { programs[.backdrop] }
    private var block: ProgramUniforms { programs[.block] }
    private var desk: ProgramUniforms { programs[.desk] }
    private var copy: ProgramUniforms { programs[.copy] }
    /// A program that compiled but did not link, when a frame first drew with it: its parts of
    /// the frames are not drawn. Hosts report it (commands fail with it).
    public var programFailure: RenderError? { programs.failure }
    /// Programs linked so far: those the frames drawn so far drew with (for tests).
    var linkedPrograms: Int { programs.linkedCount }
    /// Links every program now (tests: each one links).
    func linkAllPrograms() throws { try programs.linkAll() }
    /// What the context's state is; each pass states what it needs (`Pipeline`).
    private let gl = GLState()
    private let flatMesh: GridMesh
    /// A flat page curving down into the gutter (`SceneItem.gutterDrop`).
    private let curvedMesh: GridMesh
    private var sheetMesh: GridMesh
    /// The cast shadow is soft: a coarse mesh of the sheet is enough for it.
    private let shadowMesh: GridMesh
    /// A page beneath a sheet: its occlusion is found per vertex and varies smoothly.
    private let occlusionMesh: GridMesh
    private let box: TriangleMesh
    /// The strips of the curl being drawn, and the coarser ones of its shadow.
    private let curlMesh: CurlMesh
    private let curlShadowMesh: CurlMesh
    /// A turning sheet's inside and its rim (`insideInset`): a curl's strips, or cells.
    private let curlInsideMesh: CurlMesh
    private let curlRimMesh: CurlMesh
    private let insideCells: CellMesh
    private let rimCells: CellMesh
    /// Times a curl's strips were built, the sheet's and its shadow's (for tests).
    var curlMeshBuilds: Int { curlMesh.builds + curlShadowMesh.builds }
    /// Faces of the last frame drawn in two parts, inside and rim (for tests).
    private(set) var facesDrawnApart = 0
    private var emptyVAO: GLuint = 0
    private var cache: Framebuffer?
    private var cacheKey: StaticKey?
    /// What a fan moves in (`drawOverRoom`).
    private var room: Framebuffer?
    private var roomKey: StaticKey?
    /// By page, the band of each fanned page of the frame being drawn that a page nearer the
    /// reader covers (`FanCover`): it is not drawn.
    private var coveredBands: [Int: Double] = [:]
    /// Per target: the rectangle the moving parts covered in the last frame drawn into it.
    private var lastDirty: [Int: PixelRect] = [:]
    /// Per target: the stencil value the last cached frame's cast shadow marked its pixels with.
    private var shadowMarks: [Int: GLint] = [:]
    /// The rectangle redrawn by the last cached frame (for tests and benchmarks).
    public private(set) var lastDirtyRect: PixelRect?
    /// Frames drawn from the cached static layer, and layers (re)drawn; for benchmarks and tests.
    /// Per caster (scene index): the strongest shadow a receiver asks of it.
    private var castStrength: [Int: Double] = [:]
    /// The light of the scene being drawn.
    private var light = Scene.defaultLight
    /// Layout units per pixel of the target being drawn.
    private var pixelUnits = 1.0
    /// The camera of the frame being drawn.
    private var view = (projection: Mat4.identity, size: Vec2(1, 1))
    /// How far faces are drawn past their edges, so edge coverage fades outwards too.
    private var rim: Double { 1.5 * pixelUnits }
    /// The pages lying open this frame, which a turning sheet leaves and lands on.
    private var openPages: [SceneItem] = []
    public private(set) var cacheHits = 0
    public private(set) var cacheMisses = 0

    public init(shaders folder: String, settings: RenderSettings = RenderSettings()) throws {
        self.settings = settings
        programs = try ProgramCache(folder: folder)
        flatMesh = GridMesh(columns: 1, rows: 1)
        // Pages that curve into the gutter, and the cone's sheet, have columns where they bend.
        // Soft darkening (the cast shadow, the occlusion) needs none: its meshes meet the page's
        // spine edge exactly, and in between it varies smoothly.
        curvedMesh = GridMesh(columns: 1, rows: 1, extra: GutterCurve.columns)
        sheetMesh = GridMesh(columns: settings.gridColumns, rows: settings.gridRows, extra: GutterCurve.columns)
        shadowMesh = GridMesh(columns: 20, rows: 15)
        occlusionMesh = GridMesh(columns: 12, rows: 6)
        curlMesh = CurlMesh()
        curlShadowMesh = CurlMesh()
        curlInsideMesh = CurlMesh()
        curlRimMesh = CurlMesh()
        insideCells = CellMesh()
        rimCells = CellMesh()
        box = BoxMesh.make(columns: GutterCurve.columns)
        glGenVertexArrays(1, &emptyVAO)
        GLErrors.enableDebugOutput()
    }

    public func destroy() {
        programs.destroy()
        flatMesh.destroy()
        curvedMesh.destroy()
        sheetMesh.destroy()
        shadowMesh.destroy()
        occlusionMesh.destroy()
        curlMesh.destroy()
        curlShadowMesh.destroy()
        curlInsideMesh.destroy()
        curlRimMesh.destroy()
        insideCells.destroy()
        rimCells.destroy()
        box.destroy()
        glDeleteVertexArrays(1, &emptyVAO)
        cache?.destroy()
        cache = nil
        room?.destroy()
        room = nil
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
        let viewProj = camera.viewProjection.floats
        castStrength = Self.castStrengths(scene.items)
        openPages = scene.items.filter { $0.visible && $0.kind == .page && $0.ratio == nil }
        let ordered = scene.items.enumerated().filter { $0.element.visible }
            .sorted { ($0.element.z, $0.offset) < ($1.element.z, $1.offset) }
        let items = ordered.map(\.element)
        // Sheets keep their scene index: receivers name their shadow caster by it.
        let moving = ordered.filter { $0.element.kind == .sheet }.map { Sheet(index: $0.offset, item: $0.element) }

        // Whatever GL call of this frame (or of the host before it) failed is reported here.
        defer { GLErrors.check("drawing a frame") }
        // Others draw on the context between frames (the on-screen layer, blits).
        gl.forget()
        defer { gl.finish() }
        if settings.cacheStaticLayer && !moving.isEmpty,
           drawFromCache(items, moving: moving, scene: scene, camera: camera, viewProj: viewProj, into: target, textures: textures) {
            return
        }
        lastDirty[target.serial] = nil
        let still = items.filter { $0.kind != .sheet }
        // The pages of a book still opening (no sheet is then in the air) carry their darkening
        // themselves, drawn in depth with the rest: the front board lifting over the first page
        // is not darkened with it, as an overlay over the page's whole area would darken it.
        let inline = { (item: SceneItem) in item.closed > 0 && moving.isEmpty }
        let layer = still.map { inline($0) ? $0 : $0.atRest }
        if !settings.cacheStaticLayer || !moving.isEmpty
            || !drawOverRoom(layer, into: target, camera: camera, viewProj: viewProj, textures: textures) {
            drawLayer(layer, into: target, viewProj: viewProj, textures: textures)
        }
        let shaded = overlays(still.filter { !inline($0) }, sheets: moving)
        // Nothing over the layer (the fan, a book at rest): no clear either, which a software
        // renderer pays for on every tile.
        guard !moving.isEmpty || !shaded.isEmpty else { return }
        // Sheets lie on the pages they leave: drawn over them, never depth-fighting them
        // (the cached path draws them over a restored layer with no depth either).
        gl.begin(Pass(target: target, clear: .depthStencil))
        drawMoving(moving, overlays: shaded, shadowMark: 1, viewProj: viewProj, textures: textures)
    }

    /// Something else was drawn over `rect` of `target` (GL's origin) after this frame, such as
    /// the on-screen layer: the next frame drawn from the cached layer restores it first.
    public func drewOver(_ rect: PixelRect, in target: Framebuffer) {
        guard !rect.isEmpty, let last = lastDirty[target.serial] else { return }
        lastDirty[target.serial] = last.union(rect)
    }

    /// Restores the cached static layer where something moved (this frame or the last one into
    /// the same target) and draws the moving parts there only. False when no cache could be made.
    private func drawFromCache(_ items: [SceneItem], moving: [Sheet], scene: Scene, camera: Camera, viewProj: [Float],
                               into target: Framebuffer, textures: TextureStore) -> Bool {
        let still = items.filter { $0.kind != .sheet }
        // The layer holds pages without their changing darkening; overlays add it each frame.
        let key = StaticKey(items: still.map(\.atRest),
                            camera: camera, width: target.width, height: target.height,
                            samples: target.samples, textures: textures.serial,
                            versions: still.flatMap(\.faces).map(textures.version), settings: settings, light: light)
        let id = target.serial
        let fullFrame = PixelRect(x: 0, y: 0, width: target.width, height: target.height)
        if cacheKey != key || cache == nil {
            cacheMisses += 1
            if cache?.width != target.width || cache?.height != target.height || cache?.samples != target.samples {
                cache?.destroy()
                cache = try? Framebuffer(width: target.width, height: target.height, samples: target.samples)
            }
            guard let cache else { return false }
            drawLayer(key.items, into: cache, viewProj: viewProj, textures: textures)
            // Restoring samples the layer's single-sample colour: resolve it once, here.
            cache.resolve()
            cacheKey = key
            lastDirty = [:]
        } else {
            cacheHits += 1
        }
        guard let cache else { return false }
        // What changes this frame: the sheets, their shadows, the shaded pages beneath.
        let shaded = overlays(still, sheets: moving)
        let bounds = DirtyBounds(camera: camera, width: target.width, height: target.height, light: light)
        let now = bounds.rect(sheets: moving.map(\.item), overlays: shaded).intersection(fullFrame)
        // The stencil still holds the marks of the frames drawn from the layer since it was last
        // cleared: a new mark each frame, and a clear when they run out (or after another frame).
        let mark = lastDirty[id] == nil ? 1 : (shadowMarks[id] ?? 0) % 255 + 1
        shadowMarks[id] = mark
        let dirty = lastDirty[id].map { now.union($0) } ?? fullFrame
        lastDirty[id] = now
        lastDirtyRect = dirty
        // Both before the scissor: a software renderer copies an unscissored blit and clears
        // a whole buffer as it starts each tile, but draws a quad for either when scissored
        // (the pass clears before it scissors). A lone sheet needs no depth, so the depth and
        // stencil are cleared only for a new run of marks or for several sheets.
        restore(from: cache, into: target, rect: dirty)
        gl.begin(Pass(target: target, clear: mark == 1 || moving.count > 1 ? .depthStencil : [], scissor: dirty))
        drawMoving(moving, overlays: shaded, shadowMark: mark, viewProj: viewProj, textures: textures)
        return true
    }

    /// The pages that need a darkening overlay this frame: those with shade terms, and those
    /// beneath a sheet that rises enough to hide some of their sky.
    private func overlays(_ still: [SceneItem], sheets: [Sheet]) -> [SceneItem] {
        still.filter { item in
            guard item.isShaded else { return false }
            guard let caster = sheets.first(where: { $0.index == item.shadowCaster }) else { return true }
            return item.shade.`self` > 0 || item.isDarkened(by: caster.item, ambient: settings.ambientOcclusion)
        }
    }

    /// Everything that does not bend: backdrop, page blocks, pages and covers, in order.
    private func drawLayer(_ items: [SceneItem], into target: Framebuffer, viewProj: [Float], textures: TextureStore) {
        let split = boxesOnlyMultisampled(target)
        target.drawMultisampled()
        gl.begin(Pass(target: target, clear: .all))
        // The insides' depth first: the backdrop then skips what opaque pages will cover. With
        // the boxes alone multisampled, after them and single-sampled: on every sample it
        // costs more than the backdrop it spares.
        if !split { drawDepthOfInsides(items, viewProj: viewProj) }
        drawBackdrop()
        for item in items {
            switch item.kind {
            case .block, .board: drawBlock(item, viewProj: viewProj, textures: textures)
            case .shadow: drawDeskShadow(item, viewProj: viewProj)
            case .cover, .page, .sheet: if !split { drawFace(item, state: Self.face, viewProj: viewProj, textures: textures) }
            }
        }
        guard split else { return }
        // The faces, in order, over the resolved boxes and against their depth.
        target.resolveForSingleSampled()
        gl.begin(Pass(target: target))
        drawDepthOfInsides(items, viewProj: viewProj)
        for item in items where [.cover, .page, .sheet].contains(item.kind) {
            drawFace(item, state: Self.face, viewProj: viewProj, textures: textures)
        }
    }

    /// The fan moves every page and every standing board each frame, but not the room they
    /// stand in: the backdrop and the boxes that do not fan (blocks and boards lying flat:
    /// `ratio` nil) are drawn once into `room` and restored with their depth each frame (with
    /// the boxes alone multisampled, that is the whole multisampled part of the frame, and its
    /// resolve); then the pages' insides in depth and what fans, in order, over it. Standing
    /// boards are then drawn single-sampled, as the pages are. False where no fan moves (other
    /// scenes keep their own layer), for a target multisampled whole (a blit cannot write it),
    /// or when no layer could be made.
    private func drawOverRoom(_ items: [SceneItem], into target: Framebuffer, camera: Camera, viewProj: [Float],
                              textures: TextureStore) -> Bool {
        guard items.contains(where: { $0.ratio != nil }), target.samples <= 1 || boxesOnlyMultisampled(target) else { return false }
        let isRoom = { (item: SceneItem) in [.block, .board, .shadow].contains(item.kind) && item.ratio == nil }
        let still = items.filter(isRoom)
        let key = StaticKey(items: still, camera: camera, width: target.width, height: target.height,
                            samples: target.samples, textures: textures.serial, versions: still.flatMap(\.faces).map(textures.version),
                            settings: settings, light: light)
        if roomKey != key || room == nil {
            if room?.width != target.width || room?.height != target.height || room?.samples != target.samples {
                room?.destroy()
                room = try? Framebuffer(width: target.width, height: target.height, samples: target.samples)
            }
            guard let room else { return false }
            cacheMisses += 1
            drawLayer(still, into: room, viewProj: viewProj, textures: textures)
            roomKey = key
        } else {
            cacheHits += 1
        }
        guard let room else { return false }
        target.drawMultisampled()
        target.resolveForSingleSampled(copying: false)
        // A blit obeys the scissor: none.
        gl.begin(Pass(target: target))
        target.copy(from: room, rect: PixelRect(x: 0, y: 0, width: target.width, height: target.height), depth: true)
        let fanned = items.filter { !isRoom($0) }
        // Each fanned page from where it can show: most of it lies under the next one up.
        coveredBands = Dictionary(FanCover.hidden(fanned, viewProjection: camera.viewProjection,
                                                  viewport: Vec2(Double(target.width), Double(target.height)))
            .map { (fanned[$0.key].page, $0.value) }, uniquingKeysWith: max)
        defer { coveredBands = [:] }
        drawDepthOfInsides(fanned, viewProj: viewProj)
        for item in fanned {
            switch item.kind {
            case .block, .board: drawBlock(item, viewProj: viewProj, textures: textures)
            case .shadow: drawDeskShadow(item, viewProj: viewProj)
            case .cover, .page, .sheet: drawFace(item, state: Self.face, viewProj: viewProj, textures: textures)
            }
        }
        return true
    }

    /// Whether `target` multisamples only the boxes (`RenderSettings.multisampleBoxesOnly`).
    private func boxesOnlyMultisampled(_ target: Framebuffer) -> Bool {
        settings.multisampleBoxesOnly && target.samples > 1
    }

    /// Overlapping pages (the fan) cost their full area each when drawn back to front. First the
    /// depth of the pages' insides, nearest first and colourless: then the colour pass shades
    /// only the frontmost page of each pixel (the depth test runs before shading), while the
    /// antialiased rims, left out here, still blend over the pages beneath them. The inset is a
    /// little over a pixel, and more for rounded corners; the depth is pushed back a little so
    /// each page passes over its own inside. Pages curving into the gutter are left out: inset,
    /// their curve's columns move, and the inside would stand in front of the page by its kink.
    private func drawDepthOfInsides(_ items: [SceneItem], viewProj: [Float]) {
        let opaque = items.filter {
            ($0.kind == .page || $0.kind == .cover) && $0.opacity >= 1 && $0.deformation == .flat && $0.gutterDrop == .zero
        }
        guard opaque.count > 2 else { return }
        gl.apply(Pipeline(overlay.program, DrawState(depth: .test(less: true, write: true), colorWrite: false, polygonOffset: true)))
        overlay[.shadowPass].set(Int32(3))
        overlay[.inset].set(Float(max(2 * pixelUnits, 0.3 * settings.cornerRadius)))
        for item in opaque.reversed() {
            setGeometry(overlay, item, viewProj: viewProj)
            overlay[.spineEdge].set(Float(item.kind == .cover ? 1 : 0))
            flatMesh.draw()
        }
    }

    /// What darkens the pages beneath (shade overlays, cast shadows) first, then the turning
    /// sheets over it: a sheet's antialiased rim blends over the page as darkened beside it.
    /// Neither tests depth against the layer: a sheet may sit a little below the stack it
    /// leaves (layouts lower it towards the other stack as it stands up). A lone sheet is
    /// drawn without depth (`lone`); several, as a riffle turns, are depth-tested among
    /// themselves. `shadowMark`: the stencil value the cast shadow marks its pixels with, none
    /// of which holds it yet.
    private func drawMoving(_ sheets: [Sheet], overlays: [SceneItem], shadowMark: GLint, viewProj: [Float], textures: TextureStore) {
        drawOverlays(overlays, sheets: sheets, viewProj: viewProj)
        for sheet in sheets { drawCastShadow(sheet, mark: shadowMark, viewProj: viewProj) }
        facesDrawnApart = 0
        for sheet in sheets { drawFace(sheet.item, state: sheets.count > 1 ? Self.face : Self.lone, viewProj: viewProj, textures: textures) }
    }

    /// A page or cover face: depth-tested, blended by its coverage (culling and winding per face).
    static let face = DrawState(depth: .test(less: false, write: true), blend: .over)
    /// A lone turning sheet's face: blended by its coverage, no depth. Its faces are drawn front
    /// first: every deformation bends the sheet one way only (towards its front: a curl's roll,
    /// a cone), so the sheet is part of a convex surface with the front inside, and where it
    /// overlaps itself on screen its back is the nearer (docs/engineering-notes.md).
    static let lone = DrawState(blend: .over)
    /// Darkening of the pages beneath, before the sheet is drawn over them.
    static let overlayState = DrawState(blend: .multiply)
    /// The cast shadow, each pixel darkened once where the flattened sheet overlaps itself: it
    /// marks the pixels it darkens with `mark` and passes only those without it.
    static func castState(mark: GLint) -> DrawState {
        DrawState(stencil: .init(function: E(GL_NOTEQUAL), reference: mark, readMask: 0xFF, writeMask: 0xFF, pass: E(GL_REPLACE)),
                  blend: .multiply)
    }

    private func restore(from cache: Framebuffer, into target: Framebuffer, rect: PixelRect) {
        // Boxes multisampled: the layer is resolved, and the sheets are drawn over it single-sampled.
        if boxesOnlyMultisampled(target) { target.resolveForSingleSampled(copying: false) }
        if target.samples > 1 && !target.drawsSingleSampled {
            gl.begin(Pass(target: target, scissor: rect))
            gl.apply(Pipeline(copy.program, DrawState()))
            cache.color.bind(unit: 0)
            glBindVertexArray(emptyVAO)
            glDrawArrays(E(GL_TRIANGLES), 0, 3)
        } else {
            // A blit obeys the scissor: none.
            gl.begin(Pass(target: target))
            target.copy(from: cache, rect: rect)
        }
    }

    /// The room: one wooden desk, under the shelf's books as under an open book
    /// (`docs/behaviour.md` §2): taking a book from the row and opening it changes no colour.
    private func drawBackdrop() {
        // Behind everything: only where no page's inside has been drawn in depth.
        gl.apply(Pipeline(backdrop.program, DrawState(depth: .test(less: true, write: false))))
        let room = settings.theme.room
        backdrop[.top].set(0.42 * Float(room.r), 0.30 * Float(room.g), 0.21 * Float(room.b))
        backdrop[.bottom].set(0.30 * Float(room.r), 0.20 * Float(room.g), 0.13 * Float(room.b))
        backdrop[.vignette].set(0.55)
        glBindVertexArray(emptyVAO)
        glDrawArrays(E(GL_TRIANGLES), 0, 3)
    }

    /// The fraction of its width from the spine a fanned page is drawn from (`coveredBands`).
    private func drawnFrom(_ item: SceneItem) -> Double {
        item.ratio.flatMap { _ in coveredBands[item.page] } ?? 0
    }

    private func setGeometry(_ u: ProgramUniforms, _ item: SceneItem, viewProj: [Float]) {
        u[.from].set(Float(drawnFrom(item)))
        u[.viewProj].set(matrix: viewProj)
        u[.model].set(matrix: item.model.floats)
        u[.size].set(Float(item.size.x), Float(item.size.y))
        u[.gutterDrop].set(Float(item.gutterDrop.x), Float(item.gutterDrop.y))
        u[.pixelHalf].set(Float(view.size.x / 2 / pixelUnits), Float(view.size.y / 2 / pixelUnits))
        setDeformation(u, item.deformation)
        let l = light
        u[.light].set(Float(l.x), Float(l.y), Float(l.z))
    }

    private func setDeformation(_ u: ProgramUniforms, _ deformation: Deformation) {
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
    private func drawMesh(for item: SceneItem, coarse: Bool = false, part: MeshPart = .all, apart: SheetRegion? = nil) {
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

    private func drawCells(_ region: SheetRegion, of item: SceneItem, columns: [Double], rows: Int) {
        (region.isInside ? insideCells : rimCells).draw(size: item.size, region: region, columns: columns, rows: rows)
    }

    /// Draws the item's faces with `state` (`face` or `lone`), culled and wound per face. A
    /// turning sheet's faces are drawn in two parts where they can be (`insideInset`): the inside
    /// without the edge terms, then the rim around it.
    private func drawFace(_ item: SceneItem, state: DrawState, viewProj: [Float], textures: TextureStore) {
        // What can be folded or seen steeply: a turning sheet or a fanned page.
        let moving = item.kind == .sheet || item.ratio != nil
        // One pass per face: each pixel samples only the image it shows. Where a sheet folds
        // over itself its back is on top: drawn first, depth then spares the front beneath;
        // without depth (`lone`), drawn last.
        let back: [(content: FaceContent, cull: DrawState.Cull, back: Float)] = item.back.map { [($0, .front, Float(1))] } ?? []
        let faces = state.depth == .off ? [(item.front, .back, Float(0))] + back : back + [(item.front, .back, Float(0))]
        // A sheet's faces show through each other; a page lying open shows its sheet's other
        // side. The tap is taken only where it can show: a face with some show-through where the
        // light falls on it, or one the light reaches from behind somewhere.
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
        let parts = tapParts(item, moving: moving)
        let recolours = item.kind != .cover && takesTheme(item)
        // A turning sheet of the flat layout (a fanned page's edge terms cost too little to pay
        // for a second draw: docs/performance-history.md); a curl only alone, as its strips are cut only then.
        let inset: Vec2? = {
            guard settings.sheetInsideApart, PageVariant.isStacked(item) else { return nil }
            if case .curl = item.deformation, state != Self.lone { return nil }
            return insideInset(item)
        }()
        if inset != nil { facesDrawnApart += faces.count }
        for (face, image) in zip(faces, images) {
            for (biased, part) in parts {
                let variant = PageVariant.of(item, moving: moving, back: face.back > 0, biasedTap: biased,
                                             showThrough: image.behind != nil, recolour: recolours)
                let draws: [(PageVariant, SheetRegion?)] = inset.map {
                    [(variant.inside, .inside(inset: $0)), (variant, .rim(inset: $0, margin: rim))]
                } ?? [(variant, nil)]
                for (variant, apart) in draws {
                    let page = programs[.page(variant)]
                    var faceState = state
                    faceState.cull = face.cull
                    faceState.clockwise = item.model.determinant < 0
                    gl.apply(Pipeline(page.program, faceState))
                    setGeometry(page, item, viewProj: viewProj)
                    if variant.stacked { setStacks(page, item) }
                    page[.uvOrigin].set(Float(item.uv.origin.x), Float(item.uv.origin.y))
                    page[.uvDu].set(Float(item.uv.du.x), Float(item.uv.du.y))
                    page[.uvDt].set(Float(item.uv.dt.x), Float(item.uv.dt.y))
                    page[.shade].set(Float(s.reveal), Float(s.facing), Float(s.`self`), Float(s.crease))
                    page[.gutter].set(Float(s.gutter))
                    page[.wedge].set(Float(item.size.x * cos(s.wedge)), Float(s.wedge > 0 ? item.size.x * sin(s.wedge) : 0))
                    page[.ambient].set(Float(settings.ambientOcclusion * s.wedgeStrength))
                    page[.opacity].set(Float(item.opacity))
                    page[.cornerRadius].set(Float(settings.cornerRadius))
                    // The parts carry their margin in their vertices, as a curl's strips do.
                    page[.expand].set(Float(apart == nil ? rim : 0))
                    page[.spineEdge].set(Float(item.kind == .cover ? 1 : 0))
                    page[.backTone].set(Float(item.kind == .cover ? 0 : 1))
                    page[.showThrough].set(Float(s.showThrough), Float(s.showThroughBehind))
                    if recolours { setTheme(page) }
                    if biased { setTapBias(page, item, texels: Vec2(Double(image.image.width), Double(image.image.height))) }
                    if let other = image.behind {
                        other.bind(unit: 1)
                        let map = item.behindUV ?? item.uv
                        page[.behindLevel].set(Float(Self.showThroughLevel(pageTexels: Vec2(map.dt.x * Double(other.width),
                                                                                           map.dt.y * Double(other.height)))))
                        page[.behindOrigin].set(Float(map.origin.x), Float(map.origin.y))
                        page[.behindDu].set(Float(map.du.x), Float(map.du.y))
                        page[.behindDt].set(Float(map.dt.x), Float(map.dt.y))
                    }
                    image.image.bind(unit: 0)
                    page[.backFace].set(face.back)
                    drawMesh(for: item, part: part, apart: apart)
                }
            }
        }
    }

    /// The parts of a face's mesh and whether each takes the biased tap: only where some of
    /// the face is not seen square (the plain tap draws the same pixels elsewhere, without the
    /// bias's work). A curl's flat part is seen square only before the sheet turns about the
    /// spine.
    func tapParts(_ item: SceneItem, moving: Bool) -> [(biased: Bool, part: MeshPart)] {
        guard moving && settings.biasedTaps else { return [(false, .all)] }
        switch item.deformation {
        case .flat: return [(!flatEnough(item), .all)]
        case let .curl(c): return c.rotation == 0 && flatEnough(item) ? [(false, .flat), (true, .bent)] : [(true, .all)]
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
    private func screenAxes(_ item: SceneItem, from: Double = 0) -> [(u: Vec2, v: Vec2)] {
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
        let m = view.projection * item.model, size = item.size
        // Clip space to pixels.
        let scale = Vec2(view.size.x / 2, view.size.y / 2) / pixelUnits, e = 1e-3 * max(size.x, size.y)
        func screen(_ p: Vec2) -> Vec2 {
            let q = m.project(item.deformation.apply(p, gutterDrop: item.gutterDrop, width: size.x).position)
            return Vec2(q.x * scale.x, q.y * scale.y)
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
        let (across, along) = Self.texelAxes(item, texels: texels)
        var sum = 0.0
        for (u, v) in screenAxes(item, from: drawnFrom(item)) {
            // Inverted: layout units per pixel step right and down.
            let det = u.x * v.y - u.y * v.x
            guard abs(det) > 1e-12 else { return -1 }
            let right = Vec2(v.y, -u.y) / det, down = Vec2(-v.x, u.x) / det
            let dx = across * right.x + along * right.y, dy = across * down.x + along * down.y
            let lx = (dx * dx).sum(), ly = (dy * dy).sum()
            sum += max(0.5 * log2(max(min(lx, ly), 1e-24) / max(lx, ly, 1e-24)), -1)
        }
        return sum / 9
    }

    /// Where the pages a turning sheet of the flat layout leaves and lands on lie (pages lying
    /// open of its size, attached at the same spine: their rims lie under its own there), for
    /// page.vert's `vOffset`; out of reach where there is none. Only pages with a sheet's other
    /// side behind them: an endpaper lies on its board, not on a stack, and stays drawn under
    /// the page that lands on it, so the two rims add up at rest too.
    private func setStacks(_ page: ProgramUniforms, _ sheet: SceneItem) {
        let under = openPages.filter {
            $0.behind != nil && abs($0.size.x - sheet.size.x) < 1e-6 && abs($0.size.y - sheet.size.y) < 1e-6
        }
        let away = Mat4.translation(1e6, 1e6, 0)
        let models = Array(under.prefix(2).map(\.model)) + [away, away]
        // Each page's own curve into the gutter: the sheet's own drop has turned over with it.
        let drops = Array(under.prefix(2).map(\.gutterDrop.x)) + [0, 0]
        page[.stackLeft].set(matrix: models[0].floats)
        page[.stackRight].set(matrix: models[1].floats)
        page[.stackDrops].set(Float(drops[0]), Float(drops[1]))
    }

    /// Texels per layout unit across and along the face, for an image `texels` wide and high.
    private static func texelAxes(_ item: SceneItem, texels: Vec2) -> (across: Vec2, along: Vec2) {
        (Vec2(item.uv.du.x * texels.x, item.uv.du.y * texels.y) / max(item.size.x, 1e-9),
         Vec2(item.uv.dt.x * texels.x, item.uv.dt.y * texels.y) / max(item.size.y, 1e-9))
    }

    /// The BIASED tap's bias: a flat face's here (`tapBias`), a bent face's per vertex from
    /// its texels per layout unit and the view.
    private func setTapBias(_ page: ProgramUniforms, _ item: SceneItem, texels: Vec2) {
        guard item.deformation != .flat else { return page[.tapBias].set(Float(tapBias(item, texels: texels))) }
        let (across, along) = Self.texelAxes(item, texels: texels)
        page[.texelAxes].set(Float(across.x), Float(across.y), Float(along.x), Float(along.y))
    }

    /// Whether the light reaches one of the item's faces (`back`) from behind, or nearly
    /// (page.frag's back-lighting starts at n · l = 0), where that face may be seen: sampled
    /// over the deformed page, faces turned well away from the viewer left out.
    func isBackLit(_ item: SceneItem, back: Bool) -> Bool {
        let n = 12
        for j in 0...n {
            for i in 0...n {
                let local = Vec2(item.size.x * Double(i) / Double(n), item.size.y * (Double(j) / Double(n) - 0.5))
                let normal = item.model.transformDirection(item.deformation.apply(local).normal) * (back ? -1 : 1)
                let face = normal / max(length(normal), 1e-9)
                if face.z > -0.2 && dot(face, light) < 0.05 { return true }
            }
        }
        return false
    }

    private func takesTheme(_ item: SceneItem) -> Bool {
        settings.theme.recolours && settings.printedBooks.contains(item.book)
    }

    /// The theme's colours for a face its program recolours (page.frag's RECOLOUR).
    private func setTheme(_ page: ProgramUniforms) {
        let paper = settings.theme.paper, ink = settings.theme.ink
        page[.themePaper].set(Float(paper.r), Float(paper.g), Float(paper.b))
        page[.themeInk].set(Float(ink.r), Float(ink.g), Float(ink.b))
    }

    /// A page block (paper edges, spreading a little towards the bottom) or a cover board.
    private func drawBlock(_ item: SceneItem, viewProj: [Float], textures: TextureStore) {
        // A box's top lies in the plane of the page on it: pushed back in depth, it never
        // shows through the page in stripes as the book opens.
        gl.apply(Pipeline(block.program, DrawState(depth: .test(less: false, write: true), cull: .back,
                                                   clockwise: item.model.determinant < 0, polygonOffset: true)))
        block[.viewProj].set(matrix: viewProj)
        block[.model].set(matrix: item.model.floats)
        block[.size].set(Float(item.size.x), Float(item.size.y))
        block[.thickness].set(Float(item.thickness))
        // The paper's edges take the theme's paper with the pages.
        let paper = takesTheme(item) ? settings.theme.paper : Theme.paper.paper
        // Leaves under a lifting board lie in its shade, as the page under them does.
        let shade = 1 - item.shade.reveal
        block[.paper].set(Float(0.93 * paper.r * shade), Float(0.90 * paper.g * shade), Float(0.83 * paper.b * shade))
        let tint = takesTheme(item) ? settings.theme.room : Theme.paper.room
        block[.clothTint].set(Float(tint.r), Float(tint.g), Float(tint.b))
        let l = light
        block[.light].set(Float(l.x), Float(l.y), Float(l.z))
        block[.sheets].set(Float(max(item.thickness / PageStack.sheetThickness, 1)))
        let board = item.kind == .board
        block[.board].set(Int32(board ? 1 : 0))
        block[.grow].set(Float(board ? BookBoard.overhang(item.thickness) : 0))
        // A shut book's block is square and its spine side is the cover's cloth.
        block[.flare].set(Float(board ? 0 : 0.5 * (1 - item.closed) * item.flare))
        block[.gutterDrop].set(Float(item.gutterDrop.x))
        block[.leafAngle].set(Float(item.leafAngle))
        block[.spine].set(Float(board ? 0 : item.closed))
        if board || item.closed > 0 {
            textures.texture(for: .cover(item.book)).bind(unit: 0)
        }
        box.draw()
    }

    /// The soft shadow of half a book on the desk (of a closed book on the wall behind it),
    /// multiplied into the backdrop.
    private func drawDeskShadow(_ item: SceneItem, viewProj: [Float]) {
        guard item.thickness > 0 else { return }
        // Depth-tested, writing none: on the shelf the covers' insides are already in depth, so
        // the shadow behind each book is not shaded where its cover will hide it.
        gl.apply(Pipeline(desk.program, DrawState(depth: .test(less: false, write: false), blend: .multiply)))
        desk[.viewProj].set(matrix: viewProj)
        desk[.model].set(matrix: item.model.floats)
        desk[.size].set(Float(item.size.x), Float(item.size.y))
        // Softer with the height above the desk: none at an open book's spine (desk.vert).
        desk[.margin].set(12, Float(12 + 1.5 * item.thickness))
        desk[.height].set(Float(item.thickness))
        desk[.strength].set(Float(0.45 * item.opacity))
        desk[.closed].set(Float(item.closed))
        let l = light
        desk[.light].set(Float(l.x), Float(l.y), Float(l.z))
        flatMesh.draw()
    }

    static func castStrengths(_ items: [SceneItem]) -> [Int: Double] {
        var out: [Int: Double] = [:]
        for item in items where item.visible {
            if let caster = item.shadowCaster { out[caster] = max(out[caster] ?? 0, item.shade.cast) }
        }
        return out
    }

    /// The sheet flattened onto the page plane along the light, multiplied into what is there.
    private func drawCastShadow(_ caster: Sheet, mark: GLint, viewProj: [Float]) {
        let sheet = caster.item
        let strength = (castStrength[caster.index] ?? 0) * settings.shadowStrength
        guard strength > 0 else { return }
        gl.apply(Pipeline(shadow.program, Self.castState(mark: mark)))
        setGeometry(shadow, sheet, viewProj: viewProj)
        shadow[.shadowPass].set(Int32(1))
        shadow[.strength].set(Float(strength * sheet.opacity))
        shadow[.falloff].set(Float(settings.shadowFalloff))
        drawMesh(for: sheet, coarse: true)
    }

    /// Darkening of the pages a sheet turns over, multiplied onto the cached layer so the layer
    /// itself never changes during a turn: the sky the sheet hides from each point (found from
    /// its geometry per vertex of a grid), or for a page with no sheet above it its shade terms.
    private func drawOverlays(_ items: [SceneItem], sheets: [Sheet], viewProj: [Float]) {
        guard !items.isEmpty else { return }
        gl.apply(Pipeline(overlay.program, Self.overlayState))
        let u = overlay
        for item in items {
            setGeometry(u, item, viewProj: viewProj)
            if let caster = sheets.first(where: { $0.index == item.shadowCaster })?.item {
                setDeformation(u, caster.deformation)
                u[.casterModel].set(matrix: caster.model.floats)
                u[.casterSize].set(Float(caster.size.x), Float(caster.size.y))
                u[.shadowPass].set(Int32(2))
                overlay[.strength].set(Float(item.shade.`self`))
                overlay[.ambient].set(Float(settings.ambientOcclusion))
                occlusionMesh.draw()
            } else {
                u[.shadowPass].set(Int32(0))
                overlay[.strength].set(Float(item.shade.darkening))
                overlay[.ambient].set(Float(0))
                drawMesh(for: item)
            }
        }
    }
}

/// Which variant of the page shaders draws a face (`Shaders/page.frag`'s defines): each face
/// carries only the terms it shows, as a software renderer runs the code of every uniform branch.
struct PageVariant: Hashable {
    /// The flap's shadow on a curl's front, while the flap lies over it (page.frag's
    /// `flapShadow` is 0 everywhere otherwise).
    var flap = false
    /// The rim of a sheet's back while the sheet shades itself.
    var rim = false
    /// One tap biased for the face's squeeze (page.frag's BIASED): with software filtering, a
    /// moving face not seen square somewhere (a curl's bent part; the flat part, seen square,
    /// draws the same pixels with the plain tap), so its sharpness never switches.
    var biased = false
    /// A coarse tap of the other side's print.
    var showThrough = false
    /// The sky a fanned page hinged over this one hides.
    var wedge = false
    /// A turning sheet of the flat layout, whose rim meets those of the pages it leaves and
    /// lands on (page.frag's STACKED).
    var stacked = false
    /// The theme's ink and paper for the print.
    var recolour = false
    /// Only a turning sheet's inside, away from its edges (page.frag's INSIDE): no edge terms.
    var insideOnly = false

    /// Every variant a face can ask for: 88 programs. A face is a front or a back, so never
    /// both flap and rim; a fanned page (wedge) is never a sheet of the flat layout (stacked);
    /// a sheet's inside has no rim (`inside`).
    static let all: [PageVariant] = {
        let faces = [(false, false), (true, false), (false, true)].flatMap { flap, rim in
            [(false, false), (true, false), (false, true)].flatMap { wedge, stacked in
                // Biased, show-through and recolour, each on or off: one bit each.
                (0..<8).map { bits in
                    PageVariant(flap: flap, rim: rim, biased: bits & 1 != 0, showThrough: bits & 2 != 0,
                                wedge: wedge, stacked: stacked, recolour: bits & 4 != 0)
                }
            }
        }
        let insides = Set(faces.filter(\.stacked).map(\.inside))
        return faces + insides.sorted { $0.defines.lexicographicallyPrecedes($1.defines) }
    }()

    /// This variant for the inside of the face: its terms without those of its edges.
    var inside: PageVariant {
        PageVariant(flap: flap, biased: biased, showThrough: showThrough, recolour: recolour, insideOnly: true)
    }

    /// The variant for one face of `item` (`back`: its back). `moving`: a turning sheet or a
    /// fanned page, which can be folded, seen steeply and shade itself.
    static func of(_ item: SceneItem, moving: Bool, back: Bool, biasedTap: Bool, showThrough: Bool,
                   recolour: Bool = false) -> PageVariant {
        var v = PageVariant(showThrough: showThrough, recolour: recolour)
        guard moving else { return v }
        if case let .curl(c) = item.deformation, !back { v.flap = Self.flapShows(c) }
        v.rim = back && item.back != nil && item.shade.`self` > 0
        v.biased = biasedTap
        v.wedge = item.shade.wedge > 0 && item.shade.wedgeStrength > 0
        v.stacked = isStacked(item)
        return v
    }

    /// A turning sheet of the flat layout: it leaves and lands on pages lying open.
    static func isStacked(_ item: SceneItem) -> Bool { item.kind == .sheet && item.ratio == nil }

    /// Whether a curl's flap casts a shadow on its flat part: it lies over it (page.frag's
    /// `flapShadow` fades in from a wrap of 3π/4) and has a radius.
    static func flapShows(_ curl: Deformation.Curl) -> Bool {
        curl.radius > 0 && curl.wrap > 0.75 * .pi
    }

    var defines: [String] {
        [(flap, "FLAP"), (rim, "RIM"), (biased, "BIASED"), (showThrough, "SHOW_THROUGH"), (wedge, "WEDGE"), (stacked, "STACKED"),
         (recolour, "RECOLOUR"), (insideOnly, "INSIDE")]
            .filter(\.0).map(\.1)
    }
}

/// Which triangles of an item's mesh a draw takes: a curl's flat and bent parts are drawn by
/// different variants.
enum MeshPart {
    case all, flat, bent
}

/// A turning sheet and its index in the scene.
struct Sheet {
    var index: Int
    var item: SceneItem
}

/// What the cached static layer was drawn from; a new key means drawing it again.
struct StaticKey: Equatable {
    var items: [SceneItem]
    var camera: Camera
    var width: Int
    var height: Int
    /// The target's multisampling: a layer drawn for another is drawn again (its boxes'
    /// edges would be those of the other).
    var samples: Int
    var textures: Int
    /// The versions of the textures the layer shows (`TextureStore.version`).
    var versions: [Int]
    /// How it was drawn (a new theme or show-through draws it again).
    var settings: RenderSettings
    /// The scene's light: pages arching out of the gutter are lit by it.
    var light: Vec3
}
