import FolioLibrary
import FolioReader
import FolioScript
import FolioBook
import FolioLayout
import FolioMath
@testable import FolioRender
import Testing

/// The moving page shader is compiled once per set of terms a face can show; every face drawn
/// must find its program (else it would fall back to the plain page shader) and carry exactly
/// the terms it shows, each side of a sheet its own: a software renderer pays for the code of
/// the others.
struct MovingVariantTests {
    static let books = Library.load(from: GLHarness.textures).bookInfos

    static func movingItems(_ configure: (inout StillState) -> Void) throws -> [SceneItem] {
        var s = StillState()
        s.book = 0
        configure(&s)
        return try s.scene(library: books).items.filter { $0.visible && ($0.kind == .sheet || $0.ratio != nil) }
    }

    @Test(arguments: [TurnDeform.rigid, .curl, .cone])
    func everyTurningFaceHasItsProgram(_ deform: TurnDeform) throws {
        for turn in stride(from: 0.05, through: 0.95, by: 0.15) {
            let sheets = try Self.movingItems { $0.page = 7; $0.turn = turn; $0.deform = deform }
            #expect(!sheets.isEmpty)
            for sheet in sheets {
                for biased in [false, true] {
                    for back in [false, true] {
                        for showThrough in [false, true] {
                            let v = PageVariant.of(sheet, moving: true, back: back, biasedTap: biased, showThrough: showThrough)
                            #expect(PageVariant.all.contains(v), "\(deform) at \(turn): \(v.defines)")
                            // The flap's shadow only on a curl's front while the flap lies over it; the
                            // rim on a back while the sheet shades itself.
                            let flapLiesOver = if case let .curl(c) = sheet.deformation { c.radius > 0 && c.wrap > 0.75 * .pi } else { false }
                            #expect(v.flap == (!back && flapLiesOver))
                            #expect(v.rim == (back && sheet.back != nil && sheet.shade.`self` > 0))
                            // The biased tap on every moving face, at every angle: a face that
                            // gained it past an angle sharpened in one frame.
                            #expect(v.biased == biased)
                            // Neither the fan's wedge nor a theme's colours on a sheet in the paper theme.
                            #expect(!v.wedge && !v.recolour)
                        }
                    }
                }
            }
        }
    }

    @Test func fannedPagesCarryNeitherFlapNorRim() throws {
        for spread in stride(from: 1.0, through: 3.0, by: 0.25) {
            for page in try Self.movingItems({ $0.layout = .fan; $0.spread = spread }) where page.kind != .sheet {
                for back in [false, true] {
                    let v = PageVariant.of(page, moving: true, back: back, biasedTap: true, showThrough: false)
                    #expect(PageVariant.all.contains(v))
                    let themed = PageVariant.of(page, moving: true, back: back, biasedTap: true, showThrough: true, recolour: true)
                    #expect(PageVariant.all.contains(themed) && themed.biased)
                    #expect(!v.flap && !v.rim, "spread \(spread): \(v.defines)")
                    #expect(v.wedge == (page.shade.wedge > 0), "spread \(spread): \(v.defines)")
                }
            }
        }
    }

    /// page.frag's flap shadow fades in from a wrap of 3π/4: a curl wrapped less is drawn
    /// without its code (the same pixels), one wrapped more with it.
    @Test func theFlapShadowOnlyWhileTheFlapLiesOver() {
        let curl = { (wrap: Double) in Deformation.Curl(point: Vec2(100, 0), direction: Vec2(1, 0), radius: 20, wrap: wrap) }
        #expect(PageVariant.flapShows(curl(.pi)) && PageVariant.flapShows(curl(0.8 * .pi)))
        #expect(!PageVariant.flapShows(curl(0.75 * .pi)) && !PageVariant.flapShows(curl(0.3)))
    }

    /// The biased tap is taken where some of a face is squeezed past `Renderer.flatSqueeze`:
    /// a sheet lying flat in the default view needs none, a rigid sheet half turned does.
    @Test func onlySqueezedFacesTakeTheBiasedTap() throws {
        let library = Library.load(from: GLHarness.textures)
        let cases: [(Double, TurnDeform, Bool)] = [(0.002, .rigid, true), (0.5, .rigid, false), (0.3, .curl, true), (0.998, .rigid, true)]
        for (turn, deform, flat) in cases {
            let scene = try ContinuityTests.still { $0.page = 7; $0.turn = turn; $0.deform = deform }
            let item = try #require(scene.items.first { $0.kind == .sheet })
            var answer: Bool?
            // The renderer knows the frame's camera once it has drawn it.
            _ = try GLHarness.shared.frames([scene], width: 320, height: 180, library: library,
                                            inspect: { answer = $0.flatEnough(item) })
            #expect(answer == flat, "\(deform) at \(turn): flat enough \(String(describing: answer))")
        }
    }

    /// The other side's print is read at the level whose texels are a fixed share of the page
    /// (`Renderer.showThroughLevel`) on a page seen at its size, and at the screen's coarser
    /// footprint on one seen small or squeezed, so its bands never alias (page.frag takes the
    /// level per draw, `Renderer.behindLevel`).
    @Test func theOtherSideIsReadNoSharperThanTheScreenShowsIt() throws {
        let library = Library.load(from: GLHarness.textures)
        let texels = Vec2(1200, 1800)
        func levels(turn: Double, width: Int, height: Int) throws -> (level: Double, fixed: Double) {
            let scene = try ContinuityTests.still { $0.page = 7; $0.turn = turn; $0.deform = .rigid }
            let item = try #require(scene.items.first { $0.kind == .sheet })
            let map = item.behindUV ?? item.uv
            var level = -1.0
            _ = try GLHarness.shared.frames([scene], width: width, height: height, library: library,
                                            inspect: { level = $0.behindLevel(item, texels: texels) })
            return (level, Renderer.showThroughLevel(pageTexels: Vec2(map.dt.x * texels.x, map.dt.y * texels.y)))
        }
        let seen = try levels(turn: 0.002, width: 1280, height: 720)
        #expect(abs(seen.level - seen.fixed) < 1e-9, "lying, seen large: \(seen)")
        let small = try levels(turn: 0.002, width: 160, height: 90)
        #expect(small.level > small.fixed + 0.5, "lying, seen small: \(small)")
        let squeezed = try levels(turn: 0.5, width: 1280, height: 720)
        #expect(squeezed.level > squeezed.fixed + 1, "standing nearly edge-on: \(squeezed)")
    }

    /// The darkening beneath a turning sheet is drawn, and restored from the layer, only over
    /// the cells of its grid the sheet darkens by half a level or more
    /// (`SceneItem.darkenedCells`): curl and rigid turns, from their start to their landing,
    /// frame by frame, are the same to the byte as with every cell drawn, and at a turn's start
    /// and end cells are left out and less of the frame is redrawn.
    @Test func theDarkeningLeavesOutOnlyCellsItWouldNotDarken() throws {
        let library = Library.load(from: GLHarness.textures)
        var scenes: [Scene] = [], leftOut = 0
        for deform in [TurnDeform.curl, .rigid] {
            for turn in [0.01, 0.04, 0.1, 0.3, 0.5, 0.7, 0.9, 0.96, 0.99] {
                let scene = try ContinuityTests.still { $0.page = 7; $0.turn = turn; $0.deform = deform }
                scenes.append(scene)
                let sheet = try #require(scene.items.first { $0.kind == .sheet })
                for page in scene.items where page.shadowCaster != nil && page.kind != .sheet {
                    let grid = FramePlanner.overlayGrid
                    leftOut += sheet.darkenedCells(of: page, columns: grid.columns, rows: grid.rows, strength: page.shade.`self`, ambient: 0.6)
                        .joined().filter { !$0 }.count
                }
            }
        }
        #expect(leftOut > 20, "cells left out: \(leftOut)")
        var redrawn = (apart: 0, whole: 0)
        let apart = try GLHarness.shared.frames(scenes, width: 640, height: 360, library: library,
                                                afterEach: { redrawn.apart += $0.planner.lastDirtyRect?.area ?? 0 })
        let whole = try GLHarness.shared.frames(scenes, width: 640, height: 360, library: library, configure: { $0.overlayCellsApart = false },
                                                afterEach: { redrawn.whole += $0.planner.lastDirtyRect?.area ?? 0 })
        #expect(redrawn.apart < redrawn.whole * 95 / 100, "pixels redrawn: \(redrawn)")
        // Compared apart from the expectation, which would print every pixel of a failure.
        let differing = zip(apart, whole).enumerated().filter { $0.element.0.pixels != $0.element.1.pixels }.map(\.offset)
        #expect(differing.isEmpty, "frames \(differing) differ where cells are left out")
    }

    /// A curl turns about the spine as it bends (PARC's 3Book): its flat part stands up with it,
    /// so only a curl not yet turned draws that part with the plain tap. The flat part of a
    /// curl standing half up took the plain tap in a view that sees the page's plane square,
    /// and its type blurred.
    @Test func aCurlTurnedAboutTheSpineTakesTheBiasedTapAllOver() throws {
        let library = Library.load(from: GLHarness.textures)
        let scene = try ContinuityTests.still { $0.page = 7; $0.turn = 0.6; $0.deform = .curl }
        var sheet = try #require(scene.items.first { $0.kind == .sheet })
        guard case var .curl(c) = sheet.deformation else { Issue.record("not a curl"); return }
        #expect(c.rotation > 0.1)
        // Each part as "biased part" or "plain part".
        var parts: [[String]] = []
        let named = { (drawn: [(biased: Bool, part: MeshPart)]) in drawn.map { "\($0.biased ? "biased" : "plain") \($0.part)" } }
        _ = try GLHarness.shared.frames([scene], width: 320, height: 180, library: library, inspect: { renderer in
            #expect(renderer.flatEnough(sheet), "the page's plane is seen square here")
            parts.append(named(renderer.tapParts(sheet)))
            c.rotation = 0
            sheet.deformation = .curl(c)
            parts.append(named(renderer.tapParts(sheet)))
        })
        // Turned: biased all over. Not turned: the flat part plain, the bent part biased.
        #expect(parts == [["biased all"], ["plain flat", "biased bent"]])
    }

    /// A turning sheet aligns its texels with its rest (page.frag's `uAligns`) only while some
    /// of it lies near the plane of a page it leaves or lands on: at a turn's ends and over a
    /// curl's flat part while it lies on its page; standing up, nowhere.
    @Test(arguments: [(TurnDeform.rigid, 0.0001, true), (.rigid, 0.3, false), (.rigid, 0.7, false), (.rigid, 0.9999, true),
                      (.cone, 0.0001, true), (.cone, 0.4, false), (.curl, 0.0001, true), (.curl, 0.4, true)])
    func aSheetAlignsItsTexelsOnlyWhereItLiesNearItsRest(_ deform: TurnDeform, _ turn: Double, _ aligns: Bool) throws {
        let (scene, sheet) = try Self.turning(deform, at: turn)
        let open = scene.items.filter { $0.visible && $0.kind == .page && $0.size == sheet.size }.map(\.model)
        #expect(!open.isEmpty)
        #expect(sheet.liesNear(open) == aligns, "\(deform) at \(turn)")
    }

    /// The darkening of a page beneath a turning sheet spares its rims (shadow.frag's RIMS) only
    /// where the sheet rests on them (page.vert's vRim, `restsOnRim`): at the turn's ends, and
    /// not over a curl's roll, whose normals turn through every angle (`liesNear` says yes there).
    @Test(arguments: [(TurnDeform.rigid, 0.0001, true), (.rigid, 0.5, false), (.rigid, 0.9999, true),
                      (.cone, 0.0001, true), (.cone, 0.5, false), (.curl, 0.0001, true), (.curl, 0.4, false)])
    func theDarkeningSparesTheRimsOnlyWhereTheSheetRestsOnThem(_ deform: TurnDeform, _ turn: Double, _ rests: Bool) throws {
        let (scene, sheet) = try Self.turning(deform, at: turn)
        let beneath = scene.items.filter { $0.visible && $0.shadowCaster != nil }
        #expect(!beneath.isEmpty)
        let camera = scene.camera.fitted(width: 1280, height: 720)
        let perPixel = camera.viewSize.x / 1280
        let found = beneath.contains { sheet.restsOnRim(of: $0, columns: 12, rows: 6) { camera.projectToView($0) / perPixel } }
        #expect(found == rests, "\(deform) at \(turn)")
    }

    /// The scene of book 0 open at page 10 with its next page `turn` of the way over, and its sheet.
    static func turning(_ deform: TurnDeform, at turn: Double) throws -> (scene: Scene, sheet: SceneItem) {
        let scene = try StillState.turning(deform, at: turn).scene(library: books)
        return (scene, try #require(scene.items.first { $0.visible && $0.kind == .sheet }))
    }
}

extension StillState {
    /// Book 0 open at page 10, its next page `turn` of the way over.
    static func turning(_ deform: TurnDeform, at turn: Double) -> StillState {
        var s = StillState()
        (s.book, s.page, s.turn, s.deform) = (0, 10, turn, deform)
        return s
    }
}
