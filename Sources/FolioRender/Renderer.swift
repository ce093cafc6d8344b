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
    /// The cast shadow, and the overlays' darkening (also the depth-only pass): shadow.frag's variants.
    var shadow: ProgramUniforms { programs[.cast] }
    var overlay: ProgramUniforms { programs[.overlay] }
    var backdrop: ProgramUniforms { programs[.backdrop] }
    var block: ProgramUniforms { programs[.block] }
    var desk: ProgramUniforms { programs[.desk] }
    var copy: ProgramUniforms { programs[.copy] }
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
    let flatMesh: GridMesh
    /// A flat page curving down into the gutter (`SceneItem.gutterDrop`).
    let curvedMesh: GridMesh
    var sheetMesh: GridMesh
    /// The cast shadow is soft: a coarse mesh of the sheet is enough for it.
    let shadowMesh: GridMesh
    /// A page beneath a sheet: its occlusion is found per vertex and varies smoothly.
    let occlusionMesh: GridMesh
    let box: TriangleMesh
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
    var emptyVAO: GLuint = 0
    var cache: Framebuffer?
    var cacheKey: StaticKey?
    /// What a fan moves in (`drawOverRoom`).
    var room: Framebuffer?
    var roomKey: StaticKey?
    /// By page, the band of each fanned page of the frame being drawn that a page nearer the
    /// reader covers (`FanCover`): it is not drawn.
    var coveredBands: [Int: Double] = [:]
    /// Per target: the rectangle the moving parts covered in the last frame drawn into it.
    var lastDirty: [Int: PixelRect] = [:]
    /// Per target: the stencil value the last cached frame's cast shadow marked its pixels with.
    var shadowMarks: [Int: GLint] = [:]
    /// The rectangle redrawn by the last cached frame (for tests and benchmarks).
    public internal(set) var lastDirtyRect: PixelRect?
    /// Frames drawn from the cached static layer, and layers (re)drawn; for benchmarks and tests.
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
    public internal(set) var cacheHits = 0
    public internal(set) var cacheMisses = 0

    public init(shaders folder: String, settings: RenderSettings = RenderSettings()) throws {
        self.settings = settings
        programs = try ProgramCache(folder: folder)
        frameUniforms = FrameUniforms()
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
        frameUniforms.destroy()
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
        frameUniforms.set(viewProj: camera.viewProjection.floats, light: light, cornerRadius: settings.cornerRadius, theme: settings.theme,
                          pixelHalf: Vec2(view.size.x / 2 / pixelUnits, view.size.y / 2 / pixelUnits))
        defer { gl.finish() }
        if settings.cacheStaticLayer && !moving.isEmpty,
           drawFromCache(items, moving: moving, scene: scene, camera: camera, into: target, textures: textures) {
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
            || !drawOverRoom(layer, into: target, camera: camera, textures: textures) {
            drawLayer(layer, into: target, textures: textures)
        }
        let shaded = overlays(still.filter { !inline($0) }, sheets: moving)
        // Nothing over the layer (the fan, a book at rest): no clear either, which a software
        // renderer pays for on every tile.
        guard !moving.isEmpty || !shaded.isEmpty else { return }
        // Sheets lie on the pages they leave: drawn over them, never depth-fighting them
        // (the cached path draws them over a restored layer with no depth either).
        gl.begin(Pass(target: target, clear: .depthStencil))
        drawMoving(moving, overlays: shaded, shadowMark: 1, textures: textures)
    }

    /// Something else was drawn over `rect` of `target` (GL's origin) after this frame, such as
    /// the on-screen layer: the next frame drawn from the cached layer restores it first.
    public func drewOver(_ rect: PixelRect, in target: Framebuffer) {
        guard !rect.isEmpty, let last = lastDirty[target.serial] else { return }
        lastDirty[target.serial] = last.union(rect)
    }

    /// Restores the cached static layer where something moved (this frame or the last one into
    /// the same target) and draws the moving parts there only. False when no cache could be made.
    func drawFromCache(_ items: [SceneItem], moving: [Sheet], scene: Scene, camera: Camera,
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
            drawLayer(key.items, into: cache, textures: textures)
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
        drawMoving(moving, overlays: shaded, shadowMark: mark, textures: textures)
        return true
    }

    /// The pages that need a darkening overlay this frame: those with shade terms, and those
    /// beneath a sheet that rises enough to hide some of their sky.
    func overlays(_ still: [SceneItem], sheets: [Sheet]) -> [SceneItem] {
        still.filter { item in
            guard item.isShaded else { return false }
            guard let caster = sheets.first(where: { $0.index == item.shadowCaster }) else { return true }
            return item.shade.`self` > 0 || item.isDarkened(by: caster.item, ambient: settings.ambientOcclusion)
        }
    }

    /// Everything that does not bend: backdrop, page blocks, pages and covers, in order.
    func drawLayer(_ items: [SceneItem], into target: Framebuffer, textures: TextureStore) {
        let split = boxesOnlyMultisampled(target)
        target.drawMultisampled()
        gl.begin(Pass(target: target, clear: .all))
        // The insides' depth first: the backdrop then skips what opaque pages will cover. With
        // the boxes alone multisampled, after them and single-sampled: on every sample it
        // costs more than the backdrop it spares.
        if !split { drawDepthOfInsides(items) }
        drawBackdrop()
        for item in items {
            switch item.kind {
            case .block, .board: drawBlock(item, textures: textures)
            case .shadow: drawDeskShadow(item)
            case .cover, .page, .sheet: if !split { drawFace(item, state: Self.face, textures: textures) }
            }
        }
        guard split else { return }
        // The faces, in order, over the resolved boxes and against their depth.
        target.resolveForSingleSampled()
        gl.begin(Pass(target: target))
        drawDepthOfInsides(items)
        for item in items where [.cover, .page, .sheet].contains(item.kind) {
            drawFace(item, state: Self.face, textures: textures)
        }
    }

    /// Frames with no turning sheet redraw what moves, not the room it stands in: the backdrop
    /// (a shelf scrolling, a book opening: a software renderer shaded its every pixel each
    /// frame, a third of a carousel frame) and, in the fan, the boxes that do not fan (blocks
    /// and boards lying flat: `ratio` nil) are drawn once into `room` and restored with their
    /// depth each frame by a blit, which a software renderer copies (with the boxes alone
    /// multisampled, that is the whole multisampled part of the frame, and its resolve); then
    /// the pages' insides in depth and the rest, in order, over it. Standing boards are then
    /// drawn single-sampled, as the pages are. False for a target multisampled whole (a blit
    /// cannot write it), for multisampled boxes out of the fan (they would be drawn
    /// single-sampled over the room), or when no layer could be made.
    func drawOverRoom(_ items: [SceneItem], into target: Framebuffer, camera: Camera,
                              textures: TextureStore) -> Bool {
        let fan = items.contains { $0.ratio != nil }
        // Out of the fan the boxes move too: multisampled, they are drawn with their layer.
        guard target.samples <= 1 || (fan && boxesOnlyMultisampled(target)) else { return false }
        let isRoom = { (item: SceneItem) in fan && [.block, .board, .shadow].contains(item.kind) && item.ratio == nil }
        let still = items.filter(isRoom)
        // The backdrop alone is drawn in the screen's own space: the same from every camera.
        let key = StaticKey(items: still, camera: still.isEmpty ? Camera(viewSize: .zero) : camera, width: target.width, height: target.height,
                            samples: target.samples, textures: textures.serial, versions: still.flatMap(\.faces).map(textures.version),
                            settings: settings, light: light)
        if roomKey != key || room == nil {
            if room?.width != target.width || room?.height != target.height || room?.samples != target.samples {
                room?.destroy()
                room = try? Framebuffer(width: target.width, height: target.height, samples: target.samples)
            }
            guard let room else { return false }
            cacheMisses += 1
            drawLayer(still, into: room, textures: textures)
            roomKey = key
        } else {
            cacheHits += 1
        }
        guard let room else { return false }
        target.drawMultisampled()
        target.resolveForSingleSampled(copying: false)
        // A blit obeys the scissor: none. The backdrop alone leaves no depth: cleared, not copied.
        gl.begin(Pass(target: target, clear: still.isEmpty ? .depthStencil : []))
        target.copy(from: room, rect: PixelRect(x: 0, y: 0, width: target.width, height: target.height), depth: !still.isEmpty)
        let fanned = items.filter { !isRoom($0) }
        // Each fanned page from where it can show: most of it lies under the next one up.
        coveredBands = Dictionary(FanCover.hidden(fanned, viewProjection: camera.viewProjection,
                                                  viewport: Vec2(Double(target.width), Double(target.height)))
            .map { (fanned[$0.key].page, $0.value) }, uniquingKeysWith: max)
        defer { coveredBands = [:] }
        drawDepthOfInsides(fanned)
        for item in fanned {
            switch item.kind {
            case .block, .board: drawBlock(item, textures: textures)
            case .shadow: drawDeskShadow(item)
            case .cover, .page, .sheet: drawFace(item, state: Self.face, textures: textures)
            }
        }
        return true
    }

    /// Whether `target` multisamples only the boxes (`RenderSettings.multisampleBoxesOnly`).
    func boxesOnlyMultisampled(_ target: Framebuffer) -> Bool {
        settings.multisampleBoxesOnly && target.samples > 1
    }

    /// Overlapping pages (the fan) cost their full area each when drawn back to front. First the
    /// depth of the pages' insides, nearest first and colourless: then the colour pass shades
    /// only the frontmost page of each pixel (the depth test runs before shading), while the
    /// antialiased rims, left out here, still blend over the pages beneath them. The inset is a
    /// little over a pixel, and more for rounded corners; the depth is pushed back a little so
    /// each page passes over its own inside. Pages curving into the gutter are left out: inset,
    /// their curve's columns move, and the inside would stand in front of the page by its kink.
    func drawDepthOfInsides(_ items: [SceneItem]) {
        let opaque = items.filter {
            ($0.kind == .page || $0.kind == .cover) && $0.opacity >= 1 && $0.deformation == .flat && $0.gutterDrop == .zero
        }
        guard opaque.count > 2 else { return }
        gl.apply(Pipeline(overlay.program, DrawState(depth: .test(less: true, write: true), colorWrite: false, polygonOffset: true)))
        overlay[.shadowPass].set(Int32(3))
        overlay[.inset].set(Float(max(2 * pixelUnits, 0.3 * settings.cornerRadius)))
        for item in opaque.reversed() {
            setGeometry(overlay, item)
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
    func drawMoving(_ sheets: [Sheet], overlays: [SceneItem], shadowMark: GLint, textures: TextureStore) {
        drawOverlays(overlays, sheets: sheets)
        for sheet in sheets { drawCastShadow(sheet, mark: shadowMark) }
        facesDrawnApart = 0
        for sheet in sheets { drawFace(sheet.item, state: sheets.count > 1 ? Self.face : Self.lone, textures: textures) }
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

    func restore(from cache: Framebuffer, into target: Framebuffer, rect: PixelRect) {
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
    func drawBackdrop() {
        // Behind everything: only where no page's inside has been drawn in depth.
        gl.apply(Pipeline(backdrop.program, DrawState(depth: .test(less: true, write: false))))
        let room = settings.theme.room
        backdrop[.top].set(0.42 * Float(room.r), 0.30 * Float(room.g), 0.21 * Float(room.b))
        backdrop[.bottom].set(0.30 * Float(room.r), 0.20 * Float(room.g), 0.13 * Float(room.b))
        backdrop[.vignette].set(0.55)
        glBindVertexArray(emptyVAO)
        glDrawArrays(E(GL_TRIANGLES), 0, 3)
    }
}
