import Foundation
import Testing
import FolioBook
import FolioReader
import FolioScript
import FolioInput
import FolioLayout
import FolioMath
import FolioState

private func near(_ a: Double, _ b: Double, _ tol: Double) -> Bool { abs(a - b) <= tol }

private func books(_ images: [Int]) -> [BookInfo] { images.map { BookInfo(title: "B\($0)", imageCount: $0) } }

/// Records what the controller reports.
private final class Recorder: BookControllerDelegate {
    var turns: [(from: Int, to: Int, completed: Bool)] = []
    var layoutChanges = 0
    func controller(_ controller: BookController, didFinishTurnFrom from: Int, to: Int, completed: Bool) {
        turns.append((from, to, completed))
    }
    func controllerDidChangeLayout(_ controller: BookController) { layoutChanges += 1 }
}

/// A controller with book 0 open and at rest on spread `spread`.
private func reading(_ images: Int = 10, spread: Int = 0) -> BookController {
    let c = BookController(library: books([images, 4]))
    c.handle(.open, at: 0)
    c.update(to: 1)
    if spread > 0 { c.go(to: LayoutPage(2 * spread + 1), animated: false, at: 1) }
    return c
}

@Suite struct StateMachineTests {
    @Test func opensOnTheSpringAndSettles() {
        let c = BookController(library: books([10]))
        #expect(c.handle(.open, at: 0))
        #expect(c.phase == .opening && c.book == 0)
        var peak = 0.0
        for i in 1...99 {
            c.update(to: Double(i) / 100)
            peak = max(peak, c.openProgress)
        }
        #expect(peak > 0.999 && peak < 1.002)
        #expect(c.isAnimating)
        c.update(to: 1)
        #expect(c.phase == .reading && c.openProgress == 1 && !c.isAnimating)
    }

    @Test func refusesImpossibleTransitionsGracefully() {
        let c = BookController(library: books([4]))
        #expect(!c.handle(.close, at: 0))
        #expect(!c.handle(.nextPage, at: 0))
        #expect(!c.handle(.pageDragEnded, at: 0))
        #expect(c.phase == .shelf && c.book == nil)
        #expect(!BookController(library: []).handle(.open, at: 0))
        #expect(!c.handle(.shelfNext, at: 0))

        let r = reading(4, spread: 2)
        #expect(r.spread == 2)
        #expect(!r.handle(.nextPage, at: 2))
        #expect(!r.go(to: 99, at: 2))
        #expect(!r.handle(.open, at: 2))
        #expect(r.phase == .reading && r.spread == 2 && !r.isAnimating)
    }

    @Test func closesEaseInOutBackToTheShelf() {
        let c = reading()
        #expect(c.handle(.close, at: 2))
        c.update(to: 2.5)
        #expect(near(c.openProgress, 0.5, 1e-6))
        c.update(to: 3)
        #expect(c.phase == .shelf && c.book == nil)
        #expect(!c.handle(.close, at: 3))
    }

    @Test func keyTurnsQueueWhileATurnPlays() {
        let c = reading(10)
        let recorder = Recorder()
        c.delegate = recorder
        #expect(c.handle(.nextPage, at: 2))
        #expect(c.phase == .turning)
        #expect(c.handle(.nextPage, at: 2.1))
        #expect(c.handle(.nextPage, at: 2.2))
        #expect(c.queuedTurns == 2)
        c.update(to: 10)
        #expect(c.spread == 3 && c.phase == .reading && !c.isAnimating)
        #expect(recorder.turns.map(\.to) == [1, 2, 3])
        #expect(recorder.turns.allSatisfy { $0.completed })
    }

    /// Mid-turn, a second Next queues one more turn; a goto replaces the turns queued (they
    /// are answered false) and plays after the turn under way.
    @Test func aGotoMidTurnReplacesTheQueuedTurns() {
        let c = reading(40)
        let recorder = Recorder()
        c.delegate = recorder
        var queued: [Bool] = []
        #expect(c.handle(.nextPage, at: 2))
        #expect(c.handle(.nextPage, at: 2.05))
        #expect(c.queuedTurns == 1, "a second Next during a turn queues one more")
        #expect(c.go(to: 13, at: 2.1) { queued.append($0) })
        #expect(c.go(to: 9, at: 2.15) { queued.append($0) })
        #expect(queued == [false], "the first goto, queued, was replaced by the second")
        #expect(c.queuedTurns == 3, "the riffle from the turn's landing (spread 1) to spread 4")
        c.update(to: 10)
        #expect(c.spread == 4 && !c.isAnimating)
        #expect(queued == [false, true])
        let landings = recorder.turns.map(\.to)
        #expect(landings.first == 1 && landings.last == 4 && landings.allSatisfy { $0 <= 4 }, "\(landings)")
    }

    @Test func aJumpOfOneSpreadIsOneTurnAndALongOneRifflesInAboutHalfASecond() {
        let c = reading(40)
        #expect(c.go(to: 4, at: 1))
        #expect(c.queuedTurns == 0)
        c.update(to: 5)
        #expect(c.go(to: 31, at: 5))
        #expect(c.queuedTurns == BookController.riffleSheets - 1)
        // The sheets hurry to the queue's pace: all of them land well before four full turns.
        c.update(to: 5 + 2 * c.settings.turnDuration)
        #expect(c.spread == 15 && !c.isAnimating, "spread \(c.spread), animating \(c.isAnimating)")
    }

    @Test func queueStopsAtTheLastPage() {
        let c = reading(4)   // spreads 0…2
        #expect(c.handle(.nextPage, at: 2))
        #expect(c.handle(.nextPage, at: 2))
        #expect(!c.handle(.nextPage, at: 2))
        c.update(to: 10)
        #expect(c.spread == 2)
    }

    @Test func goToWithCompletionAndDirection() {
        let c = reading(20)
        var finished: Bool?
        #expect(!c.go(to: 12, direction: .backward, at: 2))
        #expect(c.go(to: 12, direction: .forward, at: 2) { finished = $0 })
        // Five spreads away: a riffle of four sheets, the first on its way, three waiting.
        #expect(c.queuedTurns == BookController.riffleSheets - 1)
        #expect(c.scene().items.contains { $0.kind == .sheet })
        c.update(to: 5)
        #expect(finished == true && c.spread == 5)
        #expect(c.handle(.firstPage, at: 5))
        c.update(to: 8)
        #expect(c.spread == 0)
    }

    @Test func styleTogglesChangeTheSceneAndTellTheDelegate() {
        let c = reading()
        let recorder = Recorder()
        c.delegate = recorder
        #expect(c.handle(.toggleLayout, at: 2) && c.settings.layout == .fan)
        #expect(c.handle(.togglePerspective, at: 2) && c.settings.style.perspective == .reverse)
        #expect(c.handle(.cycleViewpoint, at: 2) && c.settings.viewpoint == .below)
        c.update(to: 3)
        #expect(c.scene().camera.vanishingPoint.y < 0 && c.scene().camera.reversePerspective)
        #expect(c.handle(.zoomIn, at: 3) && c.settings.zoom == 1.25)
        #expect(recorder.layoutChanges == 4)
    }

    /// A new viewpoint moves the camera over half a second, easing in and out, as a script's
    /// `style above` or the key asks: the vanishing point and the book's scale change a little
    /// each frame at 30 frames a second, never all at once (they cut in one frame).
    @Test func aNewViewpointMovesTheCameraInsteadOfCutting() {
        let c = reading()
        let start = c.scene().camera
        let fit = { (c.scene().items.first { $0.kind == .page && $0.visible }?.model.transformDirection(Vec3(1, 0, 0)).x) ?? 0 }
        let scale0 = fit()
        #expect(c.handle(.cycleViewpoint, at: 2) && c.isAnimating)
        var vanishing: [Double] = [], scales: [Double] = []
        for i in 0...20 {
            c.update(to: 2 + Double(i) / 30)
            vanishing.append(c.scene().camera.vanishingPoint.y)
            scales.append(fit())
        }
        let end = Viewpoint.below.vanishingPoint(viewSize: c.settings.viewSize).y
        #expect(abs(vanishing.first! - start.vanishingPoint.y) < 1e-9 && abs(vanishing.last! - end) < 1e-9 && !c.isAnimating)
        let steps = zip(vanishing, vanishing.dropFirst()).map { abs($1 - $0) }
        #expect(steps.max()! < 0.15 * abs(end - start.vanishingPoint.y), "the camera jumps: \(vanishing)")
        #expect(steps.prefix(2).allSatisfy { $0 < 0.03 * abs(end) } && steps.suffix(2).allSatisfy { $0 < 0.03 * abs(end) },
                "the camera starts or stops dead: \(steps)")
        let scaleSteps = zip([scale0] + scales, scales).map { abs($1 - $0) }
        #expect(scaleSteps.max()! < 0.15 * max(abs(scales.last! - scale0), 1e-6) || abs(scales.last! - scale0) < 1e-6, "the book's scale jumps: \(scales)")
    }

    /// A viewpoint asked for while the camera moves to another takes over at the camera's
    /// speed: it turns round without stopping dead or jumping (a new ease-in-out from where it
    /// stood stopped it in one frame, a change of speed of 75% of the fastest step; now 28%).
    @Test func aViewpointAskedForMidWayKeepsTheCamerasSpeed() {
        let c = reading()
        #expect(c.handle(.cycleViewpoint, at: 2))
        var vanishing: [Double] = []
        for i in 0...30 {
            let t = 2 + Double(i) / 30
            if i == 7 { #expect(c.handle(.cycleViewpoint, at: t)) }
            c.update(to: t)
            vanishing.append(c.scene().camera.vanishingPoint.y)
        }
        let steps = zip(vanishing, vanishing.dropFirst()).map { $1 - $0 }
        let fastest = steps.map(abs).max()!, changes = zip(steps, steps.dropFirst()).map { abs($1 - $0) }
        #expect(changes.max()! < 0.4 * fastest, "the camera's speed changes at once: \(steps)")
        #expect(!c.isAnimating && abs(vanishing.last! - c.settings.viewpoint.vanishingPoint(viewSize: c.settings.viewSize).y) < 1e-9)
    }
}

/// Style words that cut the camera or the layout in one frame (`style fan`, `style reverse`,
/// `style vertical` and back) move it over half a second instead (`StyleBlend`).
@Suite struct StyleBlendTests {
    /// A controller reading spread 2 of a 40-page book, with `edit` made to its settings.
    private func reading(_ edit: (inout BookController.Settings) -> Void = { _ in }) -> BookController {
        var s = BookController.Settings()
        edit(&s)
        let c = BookController(library: books([40, 4]), settings: s)
        c.handle(.open, at: 0)
        c.update(to: 1)
        c.go(to: 5, animated: false, at: 1)
        return c
    }

    /// Where the open book shows on screen: the view bounds of its pages', boards' and blocks' corners.
    private func outline(_ scene: Scene) -> [Double] {
        var lo = Vec2(repeating: .infinity), hi = Vec2(repeating: -.infinity)
        for item in scene.items where item.visible && [.page, .board, .block, .sheet].contains(item.kind) {
            for (a, l) in [(0.0, -0.5), (0, 0.5), (1, -0.5), (1, 0.5)] {
                let p = scene.camera.projectToView(item.model.project(Vec3(a * item.size.x, l * item.size.y, 0)))
                lo = Vec2(min(lo.x, p.x), min(lo.y, p.y))
                hi = Vec2(max(hi.x, p.x), max(hi.y, p.y))
            }
        }
        return [lo.x, lo.y, hi.x, hi.y]
    }

    /// The largest change of the outline from one frame to the next over `frames` at 60 a second
    /// from `start`, against the largest distance from where it started; and the first and last steps.
    private func steps(_ c: BookController, from start: Double, frames: Int, during: (Double) -> Void = { _ in })
        -> (largest: Double, range: Double, first: Double, last: Double) {
        var shapes = [outline(c.scene())]
        for i in 1...frames {
            let t = start + Double(i) / 60
            during(t)
            c.update(to: t)
            shapes.append(outline(c.scene()))
        }
        let moves = zip(shapes, shapes.dropFirst()).map { a, b in zip(a, b).map { abs($1 - $0) }.max()! }
        let range = shapes.map { s in zip(s, shapes[0]).map { abs($1 - $0) }.max()! }.max()!
        return (moves.max()!, range, moves.first!, moves.last(where: { $0 > 0 }) ?? 0)
    }

    /// The key's action and the style word it sets from the defaults.
    static let changes: [(Action, StyleChoice)] = [
        (.toggleLayout, .layout(.fan)), (.togglePerspective, .perspective(.reverse)), (.toggleOrientation, .orientation(.vertical)),
    ]

    /// Each way: the outline moves a little each frame, easing in and out, and the change ends
    /// on exactly the scene of a book opened in the new style.
    @Test(arguments: 0..<3, [false, true])
    func aNewStyleMovesTheBookInsteadOfCutting(_ k: Int, back: Bool) {
        let (action, choice) = Self.changes[k]
        let word = choice.word, edit = choice.apply
        let c = back ? reading(edit) : reading()
        #expect(c.handle(action, at: 2) && c.isAnimating, "\(word)")
        let s = steps(c, from: 2, frames: 40)
        #expect(s.range > 0.1 && s.largest < 0.3 * s.range, "\(word) \(back): the book jumps \(s)")
        #expect(s.first < 0.05 * s.range && s.last < 0.05 * s.range, "\(word) \(back): starts or stops dead \(s)")
        #expect(!c.isAnimating)
        let fresh = back ? reading() : reading(edit)
        fresh.update(to: c.time)
        #expect(c.scene() == fresh.scene(), "\(word) \(back): not the style's own scene at the end")
    }

    /// A change back halfway through starts from where the book is, and ends on the style before.
    @Test(arguments: 0..<3)
    func aChangeMidChangeStartsWhereTheBookIs(_ k: Int) {
        let (action, choice) = Self.changes[k]
        let word = choice.word
        let c = reading()
        let before = c.scene()
        c.handle(action, at: 2)
        let s = steps(c, from: 2, frames: 60) { t in if abs(t - 2.2) < 1e-9 { c.handle(action, at: t) } }
        #expect(s.range > 0.1 && s.largest < 0.3 * s.range, "\(word): the book jumps when changed back \(s)")
        #expect(!c.isAnimating && c.scene() == before, "\(word): not back to the style before")
    }

    /// A turn started while the fan rises or lies down: the turning sheet's fore edge moves a
    /// little each frame (lying open, a sheet in transit was put on the one stack or the other
    /// by which side of the spine it stood, and flipped over in one frame).
    @Test(arguments: [false, true])
    func aTurnDuringALayoutChangeNeverFlipsTheSheet(_ fan: Bool) {
        let c = reading { if fan { $0.layout = .fan } }
        c.handle(.toggleLayout, at: 2)
        c.handle(.nextPage, at: 2.1)
        var edges: [Vec2?] = []
        for i in 0...60 {
            c.update(to: 2.1 + Double(i) / 60)
            let scene = c.scene()
            edges.append(scene.items.first { $0.visible && [6, 7].contains($0.front.page) && $0.kind != .block }.map {
                scene.camera.projectToView($0.model.project($0.deformation.apply(Vec2($0.size.x, 0)).position))
            })
        }
        let steps = zip(edges, edges.dropFirst()).compactMap { a, b in a.flatMap { a in b.map { length(Vec3($0.x - a.x, $0.y - a.y, 0)) } } }
        #expect(steps.count > 40 && steps.max()! < 80, "the sheet jumps: \(steps)")
        #expect(c.spread == 3 && !c.isAnimating)
    }

    /// Each cover's corners on screen, by book.
    private func covers(_ scene: Scene) -> [Int: [Vec2]] {
        Dictionary(scene.items.filter { $0.kind == .cover }.map { item in
            (item.book, [(0.0, -0.5), (0, 0.5), (1, -0.5), (1, 0.5)].map {
                scene.camera.projectToView(item.model.project(Vec3($0 * item.size.x, $1 * item.size.y, 0)))
            })
        }, uniquingKeysWith: { a, _ in a })
    }

    /// W on the shelf (or `style wheel`): the covers move from the carousel to the wheel and
    /// back, a little each frame, easing in and out, and end on the other shelf's own scene.
    /// Changed back halfway, they turn back from where they are.
    @Test(arguments: [false, true])
    func theShelfMovesBetweenCarouselAndWheel(back: Bool) {
        // On the shelf with the second cover centred, in the style given.
        func onShelf(_ style: ShelfStyle) -> BookController {
            var s = BookController.Settings()
            s.shelf = style
            let c = BookController(library: books([10, 4, 6, 8, 12, 5]), settings: s)
            c.handle(.shelfNext, at: 0)
            c.update(to: 1)
            return c
        }
        let c = onShelf(.carousel)
        let before = c.scene()
        var shapes = [covers(before)]
        #expect(c.handle(.toggleShelf, at: 2) && c.isAnimating)
        for i in 1...45 {
            let t = 2 + Double(i) / 60
            if back && i == 15 { #expect(c.handle(.toggleShelf, at: t)) }
            c.update(to: t)
            shapes.append(covers(c.scene()))
        }
        let moves = zip(shapes, shapes.dropFirst()).map { a, b in
            b.compactMap { book, corners in a[book].map { zip($0, corners).map { length(Vec3($1.x - $0.x, $1.y - $0.y, 0)) }.max()! } }.max() ?? 0
        }
        #expect(moves.max()! > 1 && moves.max()! < 40, "covers jump: \(moves)")
        #expect(moves.first! < 3 && moves.last(where: { $0 > 0 })! < 3, "starts or stops dead: \(moves)")
        #expect(!c.isAnimating)
        if back {
            #expect(c.settings.shelf == .carousel && c.scene() == before)
        } else {
            let fresh = onShelf(.wheel)
            fresh.update(to: c.time)
            #expect(c.settings.shelf == .wheel && c.scene() == fresh.scene())
        }
    }

    /// A shelf style changed while the book closes still moves the shelf once it is back.
    @Test func theShelfKeepsMovingAfterTheBookCloses() {
        let c = reading()
        c.handle(.close, at: 2)
        c.handle(.setSettings({ var s = c.settings; s.shelf = .wheel; return s }()), at: 2.8)
        c.update(to: 3.05)
        #expect(c.phase == .shelf && c.isAnimating)
        let w = c.viewState().styles.wheel
        #expect(w > 0.1 && w < 0.9, "\(w)")
        c.update(to: 3.4)
        #expect(!c.isAnimating && c.viewState().styles.wheel == 1)
    }

    /// A turn, a jump or closing the book asked for while the layout changes: each plays and
    /// ends where it should.
    @Test func turnsAndClosingDuringAChangeEndRight() {
        let c = reading()
        c.handle(.setSettings({ var s = c.settings; s.layout = .fan; return s }()), at: 2)
        #expect(c.handle(.nextPage, at: 2.1))
        for i in 1...60 { c.update(to: 2.1 + Double(i) / 30) }
        #expect(c.spread == 3 && !c.isAnimating && c.settings.layout == .fan)
        #expect(c.scene() == { let f = reading { $0.layout = .fan }; f.go(to: 7, animated: false, at: 1); f.update(to: c.time); return f.scene() }())
        #expect(c.handle(.toggleOrientation, at: 5) && c.go(to: 20, at: 5.1))
        for i in 1...90 { c.update(to: 5.1 + Double(i) / 30) }
        #expect(c.spread == 9 && !c.isAnimating)
        #expect(c.handle(.togglePerspective, at: 9) && c.handle(.close, at: 9.1))
        c.update(to: 11)
        #expect(c.phase == .shelf && c.book == nil && !c.isAnimating)
        #expect(c.handle(.open, at: 11))
        c.update(to: 13)
        #expect(c.phase == .reading && !c.isAnimating && c.scene().camera.reversePerspective)
    }
}

@Suite struct DragTests {
    /// Drags the right-hand page from (350, −250) to each x at the given times, then releases.
    private func drag(_ c: BookController, _ path: [(t: Double, x: Double)], release: Double) {
        c.handle(.pageDragBegan(Vec2(350, -250)), at: path[0].t)
        for p in path.dropFirst() { c.handle(.pageDragMoved(Vec2(p.x, -250)), at: p.t) }
        c.handle(.pageDragEnded, at: release)
        c.update(to: release + 2)
    }

    @Test func completesPastHalfway() {
        let c = reading()
        let r = Recorder()
        c.delegate = r
        drag(c, [(2, 350), (2.2, 100), (2.4, -100)], release: 3)
        #expect(c.spread == 1)
        #expect(r.turns.count == 1 && r.turns[0].completed)
    }

    @Test func fastFlickTurnsFromAShortDrag() {
        let c = reading()
        drag(c, [(2, 350), (2.02, 320), (2.05, 250)], release: 2.05)
        #expect(c.spread == 1)
    }

    @Test func slowShortDragFallsBack() {
        let c = reading()
        let r = Recorder()
        c.delegate = r
        drag(c, [(2, 350), (2.3, 300), (2.6, 250)], release: 3)
        #expect(c.spread == 0 && c.phase == .reading)
        #expect(r.turns.count == 1 && !r.turns[0].completed)
    }

    @Test func releaseCompletesWithoutJumping() {
        let c = reading()
        c.handle(.pageDragBegan(Vec2(350, -250)), at: 2)
        c.handle(.pageDragMoved(Vec2(-50, -250)), at: 2.3)
        c.handle(.pageDragEnded, at: 2.6)
        #expect(c.turnCompletes == true)
        let before = c.viewState().turn?.progress ?? -1
        c.update(to: 2.61)
        #expect(abs((c.viewState().turn?.progress ?? 1) - before) < 0.05)
    }

    /// A page let go lands easing to zero speed, as a page turned by a key does: at 30 frames a
    /// second the last steps of its progress and of its held point shrink frame by frame to
    /// almost nothing (no step then stop).
    @Test(arguments: [false, true])
    func landingsEaseToRest(dragged: Bool) {
        let c = reading()
        let start = turnToLand(c, dragged: dragged)
        var samples: [(progress: Double, pointer: Vec2?)] = []
        var t = start
        while let turn = c.viewState().turn {
            samples.append((turn.progress, turn.pointer))
            t += 1.0 / 30
            c.update(to: t)
        }
        #expect(c.spread == 1 && samples.count > 4)
        let progress = zip(samples, samples.dropFirst()).map { abs($1.progress - $0.progress) }
        let peak = progress.max() ?? 0
        let tail = progress.suffix(3)
        #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 < $0 }, "the last steps grow: \(progress)")
        #expect(progress.last! < 0.15 * peak, "the page stops dead: \(progress)")
        if dragged {
            let moves = zip(samples, samples.dropFirst()).compactMap { a, b -> Double? in
                guard let p = a.pointer, let q = b.pointer else { return nil }
                return ((q - p) * (q - p)).sum().squareRoot()
            }
            #expect(moves.last! < 0.15 * (moves.max() ?? 0), "the held point stops dead: \(moves)")
        }
    }

    /// What a viewer sees settle: at 30 frames a second, how far the sheet's points move each
    /// frame (its fore edge and middle, in the world, curve into the gutter included), and in
    /// the last step how far the landed sheet lies from the page at rest that replaces it. The
    /// steps shrink to almost nothing, frame by frame, for every deformation and a let-go drag:
    /// no step, then stop (the two-stage curve's ease-out once ended on a tenth of its largest
    /// step, after a third and a quarter).
    @Test(arguments: [(TurnDeform.rigid, false), (.curl, false), (.cone, false), (.curl, true)])
    func everyLandingSettles(deform: TurnDeform, dragged: Bool) throws {
        var settings = BookController.Settings()
        settings.deform = deform
        let c = BookController(library: books([10, 4]), settings: settings)
        c.handle(.open, at: 0)
        c.update(to: 1)
        var t = turnToLand(c, dragged: dragged)
        let marks = [Vec2(1, 0), Vec2(1, -0.5), Vec2(1, 0.5), Vec2(0.5, 0), Vec2(0.05, 0)]
        /// World points of the sheet while it turns, of the page it becomes once at rest.
        func points() throws -> [Vec3] {
            let scene = c.scene()
            let item = try #require(scene.items.first { $0.kind == .sheet && $0.visible }
                ?? scene.items.first { $0.kind == .page && $0.page == 3 && $0.visible })
            return world(marks, on: item)
        }
        var frames = [try points()]
        while c.viewState().turn != nil {
            t += 1.0 / 30
            c.update(to: t)
            frames.append(try points())
        }
        #expect(c.spread == 1)
        var steps = zip(frames, frames.dropFirst()).map { a, b in zip(a, b).map { length($1 - $0) }.max() ?? 0 }
        // Up to the last frame that moves (the page at rest lies where the sheet landed).
        while let last = steps.last, last < 1e-6 { steps.removeLast() }
        let peak = steps.max() ?? 0
        let tail = Array(steps.suffix(4))
        #expect(peak > 20, "\(deform): the sheet hardly moves: \(steps)")
        #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 < $0 || $1 < 0.01 * peak }, "\(deform), dragged \(dragged): the last steps grow: \(steps)")
        #expect(tail.last! < 0.04 * peak, "\(deform), dragged \(dragged): the sheet stops dead: \(steps)")
    }

    /// A corner dragged most of the way across and let go (a script's `curl 0.95,-0.45`) goes
    /// on at the pace it had and settles: at 30 frames a second the sheet's first step after the
    /// release is within a third of its last before, and its steps then shrink over several
    /// frames to almost nothing. Timed and moved by the pointer's way left (a tenth of the page),
    /// the sheet, only just past upright, fell over in four frames, twice as fast as it was
    /// dragged, and its last step was still 40% of its largest.
    @Test func aLetGoCornerGoesOnAtItsPaceAndSettles() throws {
        let c = BookController(library: books([10, 4]))
        let runner = ScriptRunner(script: try Script("open; curl 0.95,-0.45"), controller: c, fps: 30)
        var frames: [[Vec3]] = []
        while let scene = runner.nextFrame() {
            guard let sheet = scene.items.first(where: { $0.kind == .sheet && $0.visible }) else { continue }
            frames.append(world([Vec2(1, 0), Vec2(1, -0.5), Vec2(1, 0.5), Vec2(0.5, 0)], on: sheet))
        }
        let steps = zip(frames, frames.dropFirst()).map { a, b in zip(a, b).map { length($1 - $0) }.max() ?? 0 }
        // The drag lasts 0.6 s (18 frames, 17 steps); the rest is the landing.
        let dragged = steps.prefix(17), landing = Array(steps.dropFirst(17))
        let before = try #require(dragged.last), peak = landing.max() ?? 0
        #expect(before > 20, "the dragged sheet hardly moves: \(steps)")
        #expect(abs(landing[0] - before) < before / 3, "the sheet jerks or brakes when let go: \(steps)")
        #expect(landing.count >= 8 && landing.last! < 0.04 * peak, "the let-go sheet stops dead: \(landing)")
        let tail = landing.suffix(4)
        #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 < $0 }, "the last steps grow: \(landing)")
    }

    /// Where points of a face (fractions of its size from its spine's middle) are in the world,
    /// its deformation and curve into the gutter included.
    private func world(_ marks: [Vec2], on item: SceneItem) -> [Vec3] {
        marks.map { m in
            let local = Vec2(m.x * item.size.x, m.y * item.size.y)
            return item.model.project(item.deformation.apply(local, gutterDrop: item.gutterDrop, width: item.size.x).position)
        }
    }

    /// Turns the right-hand page at 2 s, by a key or by a drag let go past halfway at 2.5 s;
    /// returns when the landing starts.
    private func turnToLand(_ c: BookController, dragged: Bool) -> Double {
        guard dragged else {
            c.handle(.nextPage, at: 2)
            return 2
        }
        c.handle(.pageDragBegan(Vec2(350, -250)), at: 2)
        c.handle(.pageDragMoved(Vec2(60, -250)), at: 2.3)
        c.handle(.pageDragMoved(Vec2(-60, -240)), at: 2.45)
        c.handle(.pageDragEnded, at: 2.5)
        return 2.5
    }

    @Test func rubberBandsPastTheFirstPage() {
        let c = reading()
        c.handle(.pageDragBegan(Vec2(-350, -250)), at: 2)
        c.handle(.pageDragMoved(Vec2(300, -250)), at: 2.3)
        #expect((c.viewState().turn?.progress ?? 1) < 0.1)
        c.handle(.pageDragEnded, at: 2.3)
        c.update(to: 4)
        #expect(c.spread == 0 && c.phase == .reading)
    }
}

@Suite struct ShelfAndScrubTests {
    // Released near 1.3 moving forward, at rest, or moving back: ceil, round, floor.
    @Test(arguments: [(0.5, 2.0), (0.0, 1.0), (-0.5, 1.0)])
    func shelfDragSnapsByVelocitySign(velocity: Double, rest: Double) {
        let c = BookController(library: books([1, 1, 1, 1, 1]))
        c.handle(.shelfDragBegan, at: 0)
        c.handle(.shelfDragMoved(by: 1.3), at: 0.1)
        c.handle(.shelfDragMoved(by: 0), at: 0.45)
        c.handle(.shelfDragMoved(by: velocity * 0.05), at: 0.5)
        c.handle(.shelfDragEnded, at: 0.5)
        c.update(to: 5)
        #expect(c.scroll == rest)
    }

    @Test func scrubCompletesOrRevertsOnRelease() {
        let c = BookController(library: books([4]))
        #expect(c.handle(.scrub(by: 0.3), at: 0))
        #expect(c.handle(.scrub(by: 0.4), at: 0.5))
        #expect(c.phase == .opening && near(c.openProgress, 0.7, 1e-9))
        c.handle(.scrubEnded, at: 2)
        c.update(to: 4)
        #expect(c.phase == .reading)

        #expect(c.handle(.pinch(scale: 0.8), at: 5))
        #expect(c.phase == .closing && near(c.openProgress, 0.8, 1e-9))
        c.handle(.scrubEnded, at: 6)
        c.update(to: 8)
        #expect(c.phase == .reading && c.openProgress == 1)
    }
}

@Suite struct StillStateTests {
    @Test func resolvesAPageToItsSpread() throws {
        var s = StillState()
        s.book = 0
        s.page = 6
        let v = try s.resolve(library: books([10]))
        #expect(v.spread == 2 && v.phase == .reading && v.book == 0)
    }

    @Test func refusesWithAClearMessage() {
        var s = StillState()
        s.book = 3
        #expect(throws: StillStateError.self) { try s.resolve(library: books([4])) }
        var t = StillState()
        t.book = 0
        t.spread = 2
        t.turn = 0.5
        do {
            _ = try t.resolve(library: books([4]))
            Issue.record("turning past the last page was accepted")
        } catch {
            #expect(error.message.contains("last"))
        }
        var u = StillState()
        u.open = 1.5
        #expect(throws: StillStateError.self) { try u.resolve(library: books([4])) }
    }

    @Test func snapReportsTheRest() throws {
        var s = StillState()
        s.scroll = 1.3
        s.velocity = 1
        s.snap = true
        let rest = try s.scene(library: books([1, 1, 1, 1])).rest
        #expect(rest == 2)
    }
}

@Suite struct LayoutJSONTests {
    @Test func printsTheIssueShape() throws {
        var s = StillState()
        s.book = 0
        s.layout = .fan
        s.spread = 0.5
        let text = LayoutJSON.encode(try s.scene(library: books([6])))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((json["view"] as? [String: Double]) == ["width": 1280, "height": 720])
        #expect(json["state"] as? String == "reading")
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(!items.isEmpty)
        for item in items {
            for key in ["kind", "book", "page", "visible", "matrix", "z", "opacity", "shade"] { #expect(item[key] != nil) }
            #expect((item["matrix"] as? [Double])?.count == 16)
            #expect(Set((item["shade"] as? [String: Double])?.keys ?? [:].keys) == ["reveal", "facing", "self", "crease", "cast", "gutter", "darkening"])
        }
        #expect(items.contains { $0["ratio"] != nil && $0["angle"] != nil })
        // Keys keep the issue's order.
        let order = ["\"view\"", "\"state\"", "\"items\"", "\"kind\"", "\"matrix\"", "\"z\"", "\"shade\""]
        let positions = order.map { text.range(of: $0)!.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test func shelfWithSnapHasRestAndCoverValues() throws {
        var s = StillState()
        s.scroll = 0.4
        s.velocity = -2
        s.snap = true
        let text = LayoutJSON.encode(try s.scene(library: books([3, 3, 3])))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["rest"] as? Double == 0)
        let items = try #require(json["items"] as? [[String: Any]])
        // Each book a box: its cover, boards, paper and shadow, all with the cover's values.
        #expect(items.filter { $0["kind"] as? String == "cover" }.count == 3)
        #expect(items.allSatisfy { $0["x"] != nil && $0["scale"] != nil })
    }

    /// 1e308 printed as "inf", which no JSON reader takes.
    @Test func hugeNumbersStayJSON() {
        #expect(LayoutJSON.encode(Scene(state: .shelf, camera: Camera(viewSize: Vec2(1e308, -2e20)))).contains("{\"width\": 1e+308, \"height\": -2e+20}"))
    }

    @Test func numbersAreCompact() {
        #expect(LayoutJSON.encode(Scene(state: .shelf, camera: Camera(viewSize: Vec2(640.5, -0.0000001)))).contains("{\"width\": 640.5, \"height\": 0}"))
    }
}

/// Numbers from the command line are checked where they enter the model: none reaches the
/// layout that it cannot turn into an index or a finite size.
@Suite struct StillStateNumberTests {
    private func message(_ configure: (inout StillState) -> Void) -> String? {
        var s = StillState()
        configure(&s)
        do {
            _ = try s.scene(library: books([10, 10, 10]))
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: [1e19, -1e19, .nan, .infinity, -2, 3.5])
    func scrollOutsideTheShelfIsRefused(scroll: Double) {
        #expect(message { $0.scroll = scroll }?.hasPrefix("--scroll must be between -1 and 3") == true)
        #expect(message { $0.scroll = scroll; $0.open = 1 }?.hasPrefix("--scroll must be") == true)
    }

    @Test func negativeAndTinyNumbersInRangeWork() {
        #expect(message { $0.scroll = -0.5 } == nil)
        #expect(message { $0.scroll = -0.0 } == nil)
        #expect(message { $0.scroll = 1e-300; $0.velocity = -1; $0.snap = true } == nil)
    }

    @Test func velocityAndViewAreBounded() {
        #expect(message { $0.velocity = 1e300; $0.snap = true }?.hasPrefix("--velocity must be") == true)
        #expect(message { $0.viewSize = Vec2(1e300, 720) }?.hasPrefix("the view size must be") == true)
        #expect(message { $0.viewSize = Vec2(1280, 1e-300) }?.hasPrefix("the view size must be") == true)
    }

    /// A pan past the viewer's limit drew an empty frame and printed "inf" in the layout JSON.
    @Test func panKeepsTheBookInView() throws {
        #expect(message { ($0.book, $0.zoom, $0.pan) = (0, 2, Vec2(1e308, 0)) }?.hasPrefix("--pan must keep the book in view") == true)
        #expect(message { ($0.book, $0.zoom, $0.pan) = (0, 2, Vec2(0, -721)) }?.hasPrefix("--pan must") == true)
        #expect(message { ($0.book, $0.zoom, $0.pan) = (0, 2, Vec2(-1280, 720)) } == nil)
        var s = StillState()
        (s.book, s.zoom, s.pan) = (0, 2, Vec2(640, 0))
        let text = LayoutJSON.encode(try s.scene(library: books([10])))
        #expect(!text.contains("inf") && !text.contains("nan"))
    }

    @Test func curlIsInFractionsOfThePage() throws {
        var s = StillState()
        (s.book, s.page, s.turn, s.grab) = (0, 6, 0.3, Vec2(1, -0.5))
        let v = try s.resolve(library: books([10]))
        let size = books([10])[0].pageSize
        #expect(v.turn?.grab == Vec2(size.x, -size.y / 2))
        #expect(message { ($0.book, $0.page, $0.turn, $0.grab) = (0, 6, 0.3, Vec2(-0.5, 0)) }?.contains("--style backward") == true)
        #expect(message { ($0.book, $0.page, $0.turn, $0.grab) = (0, 6, 0.3, Vec2(300, -250)) }?.hasPrefix("--curl must lie") == true)
    }
}

/// Keys pressed during a turn, through the key map as the viewer sends them: each is applied
/// at once or when the turn lands, never dropped.
@Suite struct KeysDuringATurnTests {
    /// Presses `keys` at `times` on `c`, as the viewer does.
    private func press(_ keys: [Key], at times: [Double], on c: BookController) {
        for (key, t) in zip(keys, times) {
            for action in KeyMap.actions(for: key, phase: c.phase, queuedTurns: c.queuedTurns) where action.isBookState {
                #expect(c.handle(action, at: t), "\(key) was refused in \(c.phase)")
            }
        }
    }

    @Test func rightThenVTurnsThenGoesVertical() {
        let c = reading()
        press([.right, .v], at: [1, 1.2], on: c)
        #expect(c.phase == .turning && c.settings.style.orientation == .horizontal)
        #expect(c.actionsWaiting == [.toggleOrientation])
        c.update(to: 2)
        #expect(c.spread == 1 && c.phase == .reading)
        #expect(c.settings.style.orientation == .vertical)
    }

    /// O (the cone) pressed during a turn was refused and lost, where C waited for the sheet.
    @Test func rightThenOTurnsThenTurnsOnACone() {
        let c = reading()
        press([.right, .o], at: [1, 1.2], on: c)
        #expect(c.actionsWaiting == [.toggleCone] && c.settings.deform == .rigid)
        c.update(to: 2)
        #expect(c.spread == 1 && c.settings.deform == .cone)
    }

    @Test func leftLeftEscapeClosesAfterTheTurnInFlight() {
        let c = reading(spread: 3)
        press([.left, .left, .escape], at: [1, 1.1, 1.2], on: c)
        #expect(c.queuedTurns == 0, "closing drops the turn waiting behind")
        c.update(to: 1.85)
        #expect(c.spread == 2 && c.phase == .closing)
        c.update(to: 4)
        #expect(c.phase == .shelf && c.book == nil)
    }

    @Test func curlAndLayoutKeysWaitTheirTurnInOrder() {
        let c = reading()
        press([.space, .c, .l, .c], at: [1, 1.1, 1.2, 1.3], on: c)
        #expect(c.settings.deform == .rigid && c.settings.layout == .flat)
        c.update(to: 2)
        #expect(c.settings.deform == .rigid && c.settings.layout == .fan, "c, l, c: curl on, fan, curl off")
    }
}

@Suite struct RelayoutTests {
    /// A book laid out again (another text size) has its new page count at once and shows the
    /// page given, without a turn; a turn under way is dropped (its pages are gone).
    @Test func aRelaidBookHasItsNewPagesAndShowsTheGivenPageAtOnce() {
        let c = reading(10, spread: 2)
        let rec = Recorder()
        c.delegate = rec
        #expect(c.relaid(book: 0, as: BookInfo(title: "B10", imageCount: 25), showing: PageImage(number: 17).layoutPage, at: 2))
        #expect(c.library[0].imageCount == 25 && c.laidOutBook?.imageCount == 25)
        #expect(c.shownPages.map(\.number).contains(17), "\(c.shownPages)")
        #expect(c.phase == .reading && !c.isAnimating && rec.turns.isEmpty && rec.layoutChanges > 0)
        // Mid-turn, to fewer pages than the spread shown: the last page, at rest.
        #expect(c.handle(.nextPage, at: 3))
        #expect(c.phase == .turning)
        #expect(c.relaid(book: 0, as: BookInfo(title: "B10", imageCount: 6), showing: PageImage(number: 6).layoutPage, at: 3.05))
        #expect(c.phase == .reading && !c.isAnimating && c.shownPages.map(\.number).contains(6), "\(c.shownPages)")
        c.update(to: 5)
        #expect(c.shownPages.map(\.number).contains(6) && rec.turns.isEmpty)
        // Another book: its page count changes, the open one stays where it is.
        #expect(c.relaid(book: 1, as: BookInfo(title: "B4", imageCount: 9), showing: 2, at: 5))
        #expect(c.library[1].imageCount == 9 && c.shownPages.map(\.number).contains(6))
        #expect(!c.relaid(book: 2, as: BookInfo(title: "none", imageCount: 1), showing: 0, at: 5))
    }

    /// The text grows to twice the pages mid-turn, with a turn queued behind: the reader is put
    /// on the page given, and the turn under way and the one queued go on to the spreads that
    /// now hold the text they were heading for.
    @Test func aRelayoutMidTurnMapsTheTurnsUnderWayAndQueued() {
        let c = reading(10, spread: 2)
        let rec = Recorder()
        c.delegate = rec
        var answers: [Bool] = []
        #expect(c.go(to: 7, at: 2) { answers.append($0) })
        #expect(c.handle(.nextPage, at: 2.01))
        #expect(c.phase == .turning)
        // Spread 2 shows images 3 and 4: image 3's text is on image 6 now (spread 3); the turn
        // heads for spread 3 (image 5 → 10, spread 5), the one queued for spread 4 (7 → 14, 7).
        #expect(c.relaid(book: 0, as: BookInfo(title: "B10", imageCount: 20), showing: PageImage(number: 7).layoutPage, at: 2.05,
                         mapping: { $0 * 2 }))
        #expect(c.spread == 3 && c.phase == .turning, "on the mapped page, turning on")
        c.update(to: 10)
        #expect(c.spread == 7 && c.phase == .reading)
        #expect(rec.turns.map { [$0.from, $0.to] } == [[3, 5], [5, 7]], "\(rec.turns)")
        #expect(answers == [true], "the turn asked for is answered when it lands")
        // Text that is gone: the turn is answered false and the reader stays on the page given.
        #expect(c.go(to: 20, at: 11) { answers.append($0) })
        #expect(c.relaid(book: 0, as: BookInfo(title: "B10", imageCount: 12), showing: PageImage(number: 5).layoutPage, at: 11.05,
                         mapping: { $0 < 10 ? $0 : nil }))
        c.update(to: 15)
        #expect(answers == [true, false] && c.shownPages.map(\.number).contains(5) && c.phase == .reading, "\(c.shownPages)")
    }
}

/// One queue for actions that wait: a page turn asked for while the book opens waits in the
/// controller, not in whoever asked, and plays once the book is open.
@Suite struct ActionsWaitingTests {
    @Test func aTurnAskedForWhileTheBookOpensPlaysOnceItIsOpen() {
        let c = BookController(library: books([10]))
        var started: [Double] = []
        #expect(c.handle(.open, at: 0))
        #expect(c.handle(.nextPage, at: 0.1) { started.append(c.time) }, "accepted: it waits")
        #expect(c.phase == .opening && c.actionsWaiting == [.nextPage] && started.isEmpty)
        c.update(to: 0.5)
        #expect(started.isEmpty && c.spread == 0)
        c.update(to: 1.01)
        #expect(started.count == 1 && c.actionsWaiting.isEmpty, "performed as the opening ends")
        c.update(to: 3)
        #expect(c.spread == 1 && c.phase == .reading)
    }

    @Test func turnsThatWaitedGoWhenTheBookClosesBeforeItIsOpen() {
        let c = BookController(library: books([10]))
        var started = 0
        c.handle(.open, at: 0)
        c.handle(.nextPage, at: 0.1) { started += 1 }
        #expect(c.handle(.close, at: 0.2))
        c.update(to: 3)
        #expect(c.phase == .shelf && c.actionsWaiting.isEmpty)
        c.handle(.open, at: 3)
        c.update(to: 6)
        #expect(c.spread == 0 && started == 0, "the next opening does not turn")
    }

    @Test func settingsChangeThroughAnActionTheDelegateHears() {
        let c = BookController(library: books([10]))
        let recorder = Recorder()
        c.delegate = recorder
        var s = c.settings
        s.deform = .cone
        #expect(c.handle(.setSettings(s), at: 0))
        #expect(c.settings.deform == .cone && recorder.layoutChanges == 1)
    }
}


@Suite struct ReadingSessionTests {
    private static func library(_ pages: Int...) -> Library {
        Library(title: "L", books: pages.map { n in Book(title: "B\(n)", pages: (1...n).map { .image("p\($0).png") }) })
    }

    @Test func replacingTheBooksKeepsTheControllersListenersAndSettings() {
        let session = ReadingSession(library: Self.library(4, 6), settings: .init(), positions: nil, documents: DocumentRegistry())
        let recorder = Recorder()
        session.controller.delegate = recorder
        session.controller.handle(.toggleDeform, at: 0)
        session.replace(library: Self.library(8))
        #expect(session.controller.library.count == 1 && session.controller.library[0].imageCount == 8)
        #expect(session.controller.delegate === recorder && session.controller.settings.deform == .curl)
        #expect(session.title == "Folio — B8 (1/1)")
        session.controller.handle(.showBook(0), at: 1)
        #expect(session.title == "Folio — B8 — page 1 of 8")
    }
}

/// A book of one long chapter (as FB2 and MOBI books are to MuPDF): 300 pages of 100 characters,
/// each page's characters counted when drawn (`drawn`), as MuPDF counts them.
private final class OneChapter: ReflowableSource, @unchecked Sendable {
    // @unchecked: touched by one test's thread only.
    let pageCount = 300
    let fontSize = 11.0
    let reflowable = true
    let title: String? = "One chapter"
    private(set) var drawn: Set<Int> = []

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender { throw PageError.invalid(path: "one", message: "not drawn") }
    func page(of place: TextPlace) -> Int? { place.text.map { $0.offset / 100 } ?? place.page }
    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) { (self, place.page) }

    func textPosition(ofPage index: Int, drawingAtMost limit: Int) -> TextPosition? {
        let uncounted = (0..<index).filter { !drawn.contains($0) }
        guard uncounted.count <= limit else {
            drawn.formUnion(uncounted.prefix(limit))
            return nil
        }
        drawn.formUnion(uncounted)
        return TextPosition(chapter: 0, offset: index * 100)
    }
}

@Suite struct CountedPositionTests {
    /// A jump deep into a book of one chapter saves the page at once, then counts the pages before
    /// it a frame's share at a time (frames are wanted meanwhile) and saves it again with its place
    /// in the text, which finds the same text at any size.
    @Test func aPositionDeepInOneChapterIsSavedWithItsPlaceInTheTextOverTheNextFrames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-counted-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/long.fb2", documents = DocumentRegistry(), source = OneChapter()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The store knows the book by its file's bytes; the document read is `source`.
        try Data("one long chapter".utf8).write(to: URL(fileURLWithPath: path))
        documents.replace(path, with: source)
        let positions = ReadingPositions(store: try #require(StateStore.open(path: folder + "/state.sqlite").store), documents: documents)
        let library = Library(title: "L", books: [Book(title: "One", pages: (0..<300).map { .document(path, index: $0) })])
        let session = ReadingSession(library: library, settings: .init(), positions: positions, documents: documents)
        session.controller.handle(.showBook(0), at: 0)
        _ = session.keepPosition(at: 0)
        #expect(!session.countsPosition, "page 1 is at the chapter's start")
        #expect(session.controller.handle(.goTo(PageImage(number: 241)), at: 1))
        session.controller.update(to: 10)
        let page = try #require(session.controller.shownPages.first?.number)
        _ = session.keepPosition(at: 10)
        #expect(positions.saved(of: library.books[0]) == ReadingPosition(page: page, fontSize: 11, pageAspect: source.pageAspect))
        #expect(session.countsPosition && source.drawn.count == ReadingPosition.countedPages)
        var frames = 0
        while session.countsPosition, frames < 100 {
            _ = session.keepPosition(at: 10)
            frames += 1
            #expect(source.drawn.count <= ReadingPosition.countedPages * (frames + 1), "no frame counts more than its share")
        }
        #expect(!session.countsPosition && frames == (page - 1 + ReadingPosition.countedPages - 1) / ReadingPosition.countedPages - 1)
        let saved = try #require(positions.saved(of: library.books[0]))
        #expect(saved.text == TextPosition(chapter: 0, offset: (page - 1) * 100), "\(saved)")
    }
}
