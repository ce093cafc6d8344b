import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// One pass of a frame, as a value (bgfx's view, a pass of Filament's frame graph): the target
/// and how its samples are drawn, what it starts from (`Pass`: clear, scissor), and what it draws,
/// in order. `FramePlanner` lists a frame's passes; `Renderer` runs them.
struct FramePass {
    /// How a target with multisampled storage is drawn from this pass on
    /// (`RenderSettings.multisampleBoxesOnly`).
    enum Samples: Equatable {
        case unchanged
        /// Into the multisampled buffer.
        case multisampled
        /// Into the single-sample one, what the multisampled one holds resolved into it first
        /// (`copying`), or drawn over whole.
        case singleSampled(copying: Bool)
    }

    var pass: Pass
    var samples = Samples.unchanged
    var draws: [FrameDraw]
    /// The target's multisampling resolved after the pass (a cached layer, sampled later).
    var resolves = false
    /// By page, the band of each fanned page that a page nearer the reader covers (`FanCover`).
    var covered: [LayoutPage: Double] = [:]

    init(_ pass: Pass, samples: Samples = .unchanged, draws: [FrameDraw], covered: [LayoutPage: Double] = [:]) {
        self.pass = pass
        self.samples = samples
        self.draws = draws
        self.covered = covered
    }
}

/// What a pass draws: each case names its program and state (`Renderer.draw(_:in:)`).
enum FrameDraw {
    /// The depth of opaque pages' insides, colourless, nearest first (`Renderer.drawDepthOfInsides`).
    case insidesDepth([SceneItem])
    /// The room behind everything.
    case backdrop
    /// A page block or a cover board.
    case block(SceneItem)
    /// The fringe along the outlines of blocks and boards drawn before it, without multisampling.
    case outlines([SceneItem])
    /// Half a book's soft shadow on the desk; a shut book's with the opaque cover lying over it
    /// (`SceneItem.hiddenUnder`: the middle it hides is not drawn).
    case deskShadow(SceneItem, under: SceneItem?)
    /// A page, cover or sheet's faces, with the face state (`Renderer.face` or `.lone`).
    case face(SceneItem, DrawState)
    /// Part of a lone turning sheet (`FramePlanner.moving`).
    case lone(SceneItem, Renderer.LonePart)
    /// The darkening of the pages beneath the turning sheets, where the stencil holds less than `mark`.
    case overlays([Overlay], sheets: [Sheet], mark: GLint)
    /// A sheet's shadow, marking the stencil with `mark`.
    case castShadow(Sheet, mark: GLint)
    /// A rectangle of a kept target copied in (a blit: the pass sets no scissor), its depth and
    /// stencil too with `depth`.
    case blit(Framebuffer, rect: PixelRect, depth: Bool)
    /// A kept target's colour drawn over the pass's scissor (a blit cannot write a multisampled target).
    case copy(Framebuffer)

    /// A scene item drawn by its kind.
    static func of(_ item: SceneItem, state: DrawState) -> FrameDraw {
        switch item.kind {
        case .block, .board: .block(item)
        case .shadow: .deskShadow(item, under: nil)
        case .cover, .page, .sheet: .face(item, state)
        }
    }
}

/// A page darkened beneath the turning sheets, and the cells of its grid
/// (`FramePlanner.overlayGrid`) the sheet above it darkens (`SceneItem.darkenedCells`, by row
/// then column; nil: all of it, as a page with no sheet above has its shade terms all over).
struct Overlay {
    var item: SceneItem
    var cells: [[Bool]]?
}

/// Lists a frame's passes, and keeps the targets kept between frames that they draw from: the
/// static layer a turn restores where the sheet moved, and the room a fan or a scrolling shelf
/// moves in. A frame that finds one stale draws it again first, in passes of its own.
///
/// Does not: draw, or know how an item is drawn. Render thread only.
final class FramePlanner {
    var cache: Framebuffer?
    var cacheKey: StaticKey?
    /// What a fan moves in (`overRoom`).
    var room: Framebuffer?
    var roomKey: StaticKey?
    /// Per target: the rectangle the moving parts covered in the last frame drawn into it.
    var lastDirty: [Int: PixelRect] = [:]
    /// Per target: the stencil value the last cached frame's cast shadow marked its pixels with.
    var shadowMarks: [Int: GLint] = [:]
    /// The rectangle redrawn by the last cached frame.
    var lastDirtyRect: PixelRect?
    /// Kept layers drawn from, and drawn (again).
    var cacheHits = 0
    var cacheMisses = 0

    /// What a frame is planned from: the scene's visible items in drawing order, its turning
    /// sheets, and how it is seen.
    struct Frame {
        var items: [SceneItem]
        var moving: [Sheet]
        var camera: Camera
        var target: Framebuffer
        var settings: RenderSettings
        var light: Vec3
    }

    func destroy() {
        cache?.destroy()
        cache = nil
        room?.destroy()
        room = nil
    }

    /// The frame's passes.
    func plan(_ f: Frame, textures: TextureStore) -> [FramePass] {
        if f.settings.cacheStaticLayer && !f.moving.isEmpty, let passes = fromCache(f, textures: textures) {
            return passes
        }
        lastDirty[f.target.serial] = nil
        let still = f.items.filter { $0.kind != .sheet }
        // The pages of a book still opening (no sheet is then in the air) carry their darkening
        // themselves, drawn in depth with the rest: the front board lifting over the first page
        // is not darkened with it, as an overlay over the page's whole area would darken it.
        let inline = { (item: SceneItem) in item.closed > 0 && f.moving.isEmpty }
        let layer = still.map { inline($0) ? $0 : $0.atRest }
        var passes = (f.settings.cacheStaticLayer && f.moving.isEmpty ? overRoom(layer, f, textures: textures) : nil)
            ?? Self.layer(layer, into: f.target, settings: f.settings)
        let shaded = Self.overlays(still.filter { !inline($0) }, sheets: f.moving, settings: f.settings)
        // Nothing over the layer (the fan, a book at rest): no clear either, which a software
        // renderer pays for on every tile.
        guard !f.moving.isEmpty || !shaded.isEmpty else { return passes }
        // Sheets lie on the pages they leave: drawn over them, never depth-fighting them
        // (the cached path draws them over a restored layer with no depth either).
        passes.append(FramePass(Pass(target: f.target, clear: .depthStencil), draws: Self.moving(f.moving, overlays: shaded, mark: 1)))
        return passes
    }

    /// Restores the cached static layer where something moved (this frame or the last one into
    /// the same target) and draws the moving parts there only. Nil when no cache could be made.
    func fromCache(_ f: Frame, textures: TextureStore) -> [FramePass]? {
        let target = f.target
        let still = f.items.filter { $0.kind != .sheet }
        // The layer holds pages without their changing darkening; overlays add it each frame.
        let key = StaticKey(items: still.map(\.atRest), camera: f.camera, width: target.width, height: target.height,
                            samples: target.samples, textures: textures.serial,
                            versions: still.flatMap(\.faces).map(textures.version), settings: f.settings, light: f.light)
        let id = target.serial
        let fullFrame = PixelRect(x: 0, y: 0, width: target.width, height: target.height)
        var passes: [FramePass] = []
        if cacheKey != key || cache == nil {
            cacheMisses += 1
            if cache?.width != target.width || cache?.height != target.height || cache?.samples != target.samples {
                cache?.destroy()
                cache = try? Framebuffer(width: target.width, height: target.height, samples: target.samples)
            }
            guard let cache else { return nil }
            passes = Self.layer(key.items, into: cache, settings: f.settings)
            // Restoring samples the layer's single-sample colour: resolve it once, here.
            passes[passes.count - 1].resolves = true
            cacheKey = key
            lastDirty = [:]
        } else {
            cacheHits += 1
        }
        guard let cache else { return nil }
        // What changes this frame: the sheets, their shadows, the shaded pages beneath.
        let shaded = Self.overlays(still, sheets: f.moving, settings: f.settings)
        let bounds = DirtyBounds(camera: f.camera, width: target.width, height: target.height, light: f.light)
        let now = bounds.rect(sheets: f.moving.map(\.item), overlays: shaded).intersection(fullFrame)
        // The stencil still holds the marks of the frames drawn from the layer since it was last
        // cleared: three new marks each frame (`moving`), each above every earlier one, and a
        // clear when they run out (or after another frame).
        let last = shadowMarks[id] ?? 0
        let mark: GLint = lastDirty[id] == nil || last + 5 > 255 ? 1 : last + 3
        shadowMarks[id] = mark
        let dirty = lastDirty[id].map { now.union($0) } ?? fullFrame
        lastDirty[id] = now
        lastDirtyRect = dirty
        // Both before the scissor: a software renderer copies an unscissored blit and clears
        // a whole buffer as it starts each tile, but draws a quad for either when scissored
        // (the pass clears before it scissors). A lone sheet needs no depth, so the depth and
        // stencil are cleared only for a new run of marks or for several sheets.
        // Boxes multisampled: the layer is resolved, and the sheets are drawn over it single-sampled.
        let boxesOnly = Self.boxesOnlyMultisampled(target, settings: f.settings)
        if target.samples > 1 && !boxesOnly && !target.drawsSingleSampled {
            passes.append(FramePass(Pass(target: target, scissor: dirty), draws: [.copy(cache)]))
        } else {
            passes.append(FramePass(Pass(target: target), samples: boxesOnly ? .singleSampled(copying: false) : .unchanged,
                                    draws: [.blit(cache, rect: dirty, depth: false)]))
        }
        passes.append(FramePass(Pass(target: target, clear: mark == 1 || f.moving.count > 1 ? .depthStencil : [], scissor: dirty),
                                draws: Self.moving(f.moving, overlays: shaded, mark: mark)))
        return passes
    }

    /// Frames with no turning sheet redraw what moves, not the room it stands in: the backdrop
    /// (a shelf scrolling, a book opening: a software renderer shaded its every pixel each
    /// frame, a third of a carousel frame) and, in the fan, the boxes that do not fan (blocks
    /// and boards lying flat: `ratio` nil) are drawn once into `room` and restored with their
    /// depth each frame by a blit, which a software renderer copies (with the boxes alone
    /// multisampled, that is the whole multisampled part of the frame, and its resolve); then
    /// the pages' insides in depth and the rest, in order, over it. Standing boards are then
    /// drawn single-sampled, as the pages are. Nil for a target multisampled whole (a blit
    /// cannot write it), for multisampled boxes out of the fan (they would be drawn
    /// single-sampled over the room), or when no layer could be made.
    func overRoom(_ items: [SceneItem], _ f: Frame, textures: TextureStore) -> [FramePass]? {
        let target = f.target
        let fan = items.contains { $0.ratio != nil }
        // Out of the fan the boxes move too: multisampled, they are drawn with their layer.
        guard target.samples <= 1 || (fan && Self.boxesOnlyMultisampled(target, settings: f.settings)) else { return nil }
        let isRoom = { (item: SceneItem) in fan && [.block, .board, .shadow].contains(item.kind) && item.ratio == nil }
        let still = items.filter(isRoom)
        // The backdrop alone is drawn in the screen's own space: the same from every camera.
        let key = StaticKey(items: still, camera: still.isEmpty ? Camera(viewSize: .zero) : f.camera, width: target.width,
                            height: target.height, samples: target.samples, textures: textures.serial,
                            versions: still.flatMap(\.faces).map(textures.version), settings: f.settings, light: f.light)
        var passes: [FramePass] = []
        if roomKey != key || room == nil {
            if room?.width != target.width || room?.height != target.height || room?.samples != target.samples {
                room?.destroy()
                room = try? Framebuffer(width: target.width, height: target.height, samples: target.samples)
            }
            guard let room else { return nil }
            cacheMisses += 1
            passes = Self.layer(still, into: room, settings: f.settings)
            roomKey = key
        } else {
            cacheHits += 1
        }
        guard let room else { return nil }
        let fanned = items.filter { !isRoom($0) }
        // Each fanned page from where it can show: most of it lies under the next one up.
        let covered = Dictionary(FanCover.hidden(fanned, viewProjection: f.camera.viewProjection,
                                                 viewport: Vec2(Double(target.width), Double(target.height)))
            .map { (fanned[$0.key].page, $0.value) }, uniquingKeysWith: max)
        // A blit obeys the scissor: none. The backdrop alone leaves no depth: cleared, not copied.
        let restore = FrameDraw.blit(room, rect: PixelRect(x: 0, y: 0, width: target.width, height: target.height),
                                     depth: !still.isEmpty)
        // Single-sampled: standing boards take the fringe along their outlines.
        let (boxes, faces) = Self.boxesAndFaces(fanned, outlines: true)
        passes.append(FramePass(Pass(target: target, clear: still.isEmpty ? .depthStencil : []), samples: .singleSampled(copying: false),
                                draws: [restore] + Self.insides(fanned) + boxes + faces, covered: covered))
        return passes
    }

    /// Everything that does not bend: backdrop, page blocks and boards, their outlines' fringe
    /// where the target is not multisampled, pages and covers. With the boxes alone
    /// multisampled, the faces in a second pass, single-sampled over them resolved.
    static func layer(_ items: [SceneItem], into target: Framebuffer, settings: RenderSettings) -> [FramePass] {
        let split = boxesOnlyMultisampled(target, settings: settings)
        let (boxes, faces) = boxesAndFaces(items, outlines: target.samples <= 1)
        // The insides' depth first: the backdrop then skips what opaque pages will cover. With
        // the boxes alone multisampled, after them and single-sampled: on every sample it
        // costs more than the backdrop it spares.
        guard split else { return [FramePass(Pass(target: target, clear: .all), samples: .multisampled, draws: insides(items) + [.backdrop] + boxes + faces)] }
        return [FramePass(Pass(target: target, clear: .all), samples: .multisampled, draws: [.backdrop] + boxes),
                FramePass(Pass(target: target), samples: .singleSampled(copying: true), draws: insides(items) + faces)]
    }

    /// What `items` draw, in order: the boxes (blocks, boards and desk shadows), then, with
    /// `outlines`, the fringe along the blocks' and boards' outlines (`Renderer.drawOutlines`),
    /// blended over the boxes beyond them and the room; and the faces (pages, covers, sheets),
    /// whose rims blend over all of it.
    static func boxesAndFaces(_ items: [SceneItem], outlines: Bool) -> (boxes: [FrameDraw], faces: [FrameDraw]) {
        let isFace = { (item: SceneItem) in [.cover, .page, .sheet].contains(item.kind) }
        let solid = items.filter { [.block, .board].contains($0.kind) }
        // A shut book's shadow lies under its cover, where that hides what is behind it.
        let covers = Dictionary(items.filter { $0.kind == .cover && $0.visible && hidesBehind($0) }
            .map { ($0.book, $0) }, uniquingKeysWith: { a, _ in a })
        let boxes = items.filter { !isFace($0) }.map { item in
            item.kind == .shadow && item.closed >= 1 ? .deskShadow(item, under: covers[item.book]) : FrameDraw.of(item, state: Renderer.face)
        }
        return (boxes + (outlines && !solid.isEmpty ? [.outlines(solid)] : []),
                items.filter(isFace).map { FrameDraw.of($0, state: Renderer.face) })
    }

    /// Whether a page or cover hides what lies behind its inside: opaque and flat.
    static func hidesBehind(_ item: SceneItem) -> Bool { item.opacity >= 1 && item.deformation == .flat }

    /// The depth of the opaque flat pages' insides (`Renderer.drawDepthOfInsides`), where it
    /// pays: over boxes (their tops lie under the pages), or over more than two pages.
    static func insides(_ items: [SceneItem]) -> [FrameDraw] {
        let opaque = items.filter { ($0.kind == .page || $0.kind == .cover) && hidesBehind($0) }
        let boxes = items.contains { $0.kind == .block || $0.kind == .board }
        return opaque.count > 2 || (boxes && !opaque.isEmpty) ? [.insidesDepth(opaque)] : []
    }

    /// What darkens the pages beneath (shade overlays, cast shadows) first, then the turning
    /// sheets over it: a sheet's antialiased rim blends over the page as darkened beside it.
    /// Neither tests depth against the layer: a sheet may sit a little below the stack it
    /// leaves (layouts lower it towards the other stack as it stands up). A lone sheet is
    /// drawn without depth (`Renderer.lone`), its opaque insides ahead of the darkening: they
    /// hide what lies beneath whatever it is, so they mark the stencil `mark + 1` (the front's)
    /// and `mark + 2` (the back's), which the darkening and the rest of the sheet pass by
    /// (`Renderer.LonePart`; the darkening of the page beneath the sheet
    /// cost a software renderer a quarter of a curl's frame). Several sheets, as a riffle
    /// turns, are depth-tested among themselves. `mark`: the stencil value the cast shadow
    /// marks its pixels with; every value in the stencil is below it.
    static func moving(_ sheets: [Sheet], overlays: [Overlay], mark: GLint) -> [FrameDraw] {
        let shadows = (overlays.isEmpty ? [] : [FrameDraw.overlays(overlays, sheets: sheets, mark: mark)])
            + sheets.map { .castShadow($0, mark: mark) }
        guard sheets.count == 1, let sheet = sheets.first?.item else { return shadows + sheets.map { .face($0.item, Renderer.face) } }
        return [.lone(sheet, .insides(cover: mark + 1))] + shadows + [.lone(sheet, .rest(cover: mark + 1))]
    }

    /// The cells of the grid a page beneath a sheet is darkened over (`Renderer.occlusionMesh`).
    static let overlayGrid = (columns: 12, rows: 6)

    /// The pages that need a darkening overlay this frame: those with shade terms, and those
    /// beneath a sheet that rises enough to hide some of their sky, over the cells it darkens
    /// by half a level or more (`RenderSettings.overlayCellsApart`): those far from a low sheet,
    /// at a turn's start and end, would multiply the page by 1, and are neither drawn nor
    /// restored from the layer.
    static func overlays(_ still: [SceneItem], sheets: [Sheet], settings: RenderSettings) -> [Overlay] {
        still.compactMap { item in
            guard item.isShaded else { return nil }
            guard let caster = sheets.first(where: { $0.index == item.shadowCaster })?.item else { return Overlay(item: item) }
            guard item.shade.`self` > 0 || item.isDarkened(by: caster, ambient: settings.ambientOcclusion) else { return nil }
            guard settings.overlayCellsApart else { return Overlay(item: item) }
            let cells = caster.darkenedCells(of: item, columns: overlayGrid.columns, rows: overlayGrid.rows,
                                             strength: item.shade.`self`, ambient: settings.ambientOcclusion)
            return cells.joined().contains(true) ? Overlay(item: item, cells: cells) : nil
        }
    }

    /// Whether `target` multisamples only the boxes (`RenderSettings.multisampleBoxesOnly`).
    static func boxesOnlyMultisampled(_ target: Framebuffer, settings: RenderSettings) -> Bool {
        settings.multisampleBoxesOnly && target.samples > 1
    }
}
