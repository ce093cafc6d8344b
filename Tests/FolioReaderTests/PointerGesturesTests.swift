import Testing
import FolioReader
import FolioInput
import FolioLayout
import FolioMath

/// A 1280 × 720 framebuffer showing the 1280 × 720 view: pixel = layout + (640, 360), y down.
private let mapping = ViewMapping(width: 1280, height: 720, viewSize: Vec2(1280, 720))

private func pixel(_ p: Vec2) -> (x: Double, y: Double) { (p.x + 640, 360 - p.y) }

private func shelf(_ books: Int = 3) -> BookController {
    BookController(library: (0..<books).map { BookInfo(title: "B\($0)", imageCount: 10) })
}

/// Book 0 open at rest on spread 0.
private func reading() -> BookController {
    let c = shelf()
    c.handle(.open, at: 0)
    c.update(to: 2)
    return c
}

/// Drives gestures and performs what they ask, as the viewer does.
private struct Driver {
    var gestures = PointerGestures(mapping: mapping)
    let controller: BookController
    var time = 10.0
    var actions: [Action] = []

    init(_ controller: BookController) { self.controller = controller }

    @discardableResult
    mutating func send(_ event: InputEvent, after dt: Double = 0.016) -> [Action] {
        time += dt
        let out = gestures.handle(event, controller: controller, at: time)
        for a in out { controller.handle(a, at: time) }
        actions += out
        return out
    }

    mutating func press(at p: Vec2) { let q = pixel(p); send(.mouseDown(.left, x: q.x, y: q.y, modifiers: [])) }
    mutating func move(to p: Vec2, after dt: Double = 0.016) { let q = pixel(p); send(.mouseMove(x: q.x, y: q.y), after: dt) }
    mutating func release(at p: Vec2) { let q = pixel(p); send(.mouseUp(.left, x: q.x, y: q.y, modifiers: [])) }

    mutating func click(at p: Vec2) -> [Action] {
        press(at: p)
        let q = pixel(p)
        return send(.mouseUp(.left, x: q.x, y: q.y, modifiers: []))
    }

    mutating func settle() { time += 3; controller.update(to: time) }
}

@Suite struct ViewMappingTests {
    @Test func centresTheViewAndTurnsYUp() {
        #expect(mapping.layoutPoint(x: 640, y: 360) == Vec2(0, 0))
        #expect(mapping.layoutPoint(x: 0, y: 0) == Vec2(-640, 360))
        #expect(mapping.layoutPoint(x: 1280, y: 720) == Vec2(640, -360))
    }

    @Test func aHiDPIFramebufferShowsTheSameView() {
        let hiDPI = ViewMapping(width: 2560, height: 1440, viewSize: Vec2(1280, 720))
        #expect(hiDPI.unitsPerPixel == 0.5)
        #expect(hiDPI.layoutPoint(x: 2560, y: 0) == Vec2(640, 360))
        #expect(hiDPI.fittedViewSize == Vec2(1280, 720))
    }

    @Test func aTallerWindowWidensTheViewVertically() {
        let tall = ViewMapping(width: 640, height: 400, viewSize: Vec2(1280, 720))
        #expect(tall.unitsPerPixel == 2)
        #expect(tall.fittedViewSize == Vec2(1280, 800))
        #expect(tall.layoutPoint(x: 320, y: 0) == Vec2(0, 400))
    }
}

@Suite struct ShelfGestureTests {
    let pitch = Carousel(viewWidth: 1280).pitch

    @Test func clickingACoverCentresItAndClickingTheCentredOneOpensIt() {
        var d = Driver(shelf())
        #expect(d.click(at: Vec2(pitch, 0)) == [.select(1)])
        d.settle()
        #expect(d.controller.scroll == 1)
        #expect(d.click(at: Vec2(0, 0)) == [.open])
        #expect(d.controller.phase == .opening && d.controller.book == 1)
    }

    @Test func clickingBetweenCoversDoesNothing() {
        var d = Driver(shelf())
        #expect(d.click(at: Vec2(0, 340)).isEmpty)
        #expect(d.click(at: Vec2(pitch / 2, 0)).isEmpty)
    }

    @Test func aSmallWobbleIsStillAClick() {
        var d = Driver(shelf())
        d.press(at: Vec2(pitch, 0))
        d.move(to: Vec2(pitch + 2, 1))
        d.release(at: Vec2(pitch + 2, 1))
        #expect(d.actions == [.select(1)])
    }

    @Test func draggingLeftBringsLaterCoversAndSettlesOnOne() {
        var d = Driver(shelf())
        d.press(at: Vec2(200, 0))
        for i in 1...10 { d.move(to: Vec2(200 - Double(i) * pitch / 10, 0), after: 0.05) }
        d.release(at: Vec2(200 - pitch, 0))
        #expect(d.actions.first == .shelfDragBegan && d.actions.last == .shelfDragEnded)
        let moved = d.actions.reduce(0.0) { sum, a in
            if case let .shelfDragMoved(by: x) = a { return sum + x }
            return sum
        }
        #expect(abs(moved - 1) < 1e-9)
        d.settle()
        #expect(d.controller.scroll >= 1 && d.controller.scroll == d.controller.scroll.rounded())
    }

    @Test func theWheelStepsThroughCovers() {
        var d = Driver(shelf())
        #expect(d.send(.scroll(dx: 0, dy: -1, modifiers: [])) == [.shelfScroll(by: 1)])
        #expect(d.send(.scroll(dx: 0, dy: 1, modifiers: [])) == [.shelfScroll(by: -1)])
        #expect(d.send(.scroll(dx: 0, dy: 0, modifiers: [])).isEmpty)
    }

    @Test func theWheelShelfHitTestsItsTurnedCovers() {
        let c = shelf(5)
        c.handle(.toggleShelf, at: 0)
        let scene = c.scene()
        let second = try! #require(scene.items.first { $0.book == 1 })
        // The centre of cover 1's face, wherever the wheel turned it.
        let centre = second.model.project(Vec3(second.size.x / 2, 0, 0))
        #expect(PointerGestures.cover(at: Vec2(centre.x, centre.y), in: scene) == 1)
        #expect(PointerGestures.cover(at: Vec2(0, 0), in: scene) == 0)
    }
}

@Suite struct PageGestureTests {
    @Test func draggingTheRightEdgeOverCurlsThePageAndTurnsIt() {
        var d = Driver(reading())
        d.press(at: Vec2(350, -200))
        d.move(to: Vec2(200, -180))
        #expect(d.actions == [.pageDragBegan(Vec2(350, -200)), .pageDragMoved(Vec2(200, -180))])
        #expect(d.controller.phase == .turning)
        for x in stride(from: 100.0, through: -300, by: -100) { d.move(to: Vec2(x, -150), after: 0.03) }
        d.release(at: Vec2(-300, -150))
        #expect(d.actions.last == .pageDragEnded)
        #expect(d.controller.turnCompletes == true)
        d.settle()
        #expect(d.controller.spread == 1 && d.controller.phase == .reading)
    }

    /// One page shown: a drag from its strip by the spine brings the page before it back over;
    /// one from its outer edge still turns on.
    @Test func withOnePageADragFromTheSpineTurnsBack() {
        let c = reading()
        #expect(c.handle(.togglePages, at: 2) && c.singlePage)
        c.handle(.goTo(PageImage(number: 3)), at: 2)
        var d = Driver(c)
        d.settle()
        #expect(d.controller.shownPages.map(\.number) == [3])
        // The page fills -181…181 of the view: its spine at -181.
        d.press(at: Vec2(-160, -150))
        for x in stride(from: -100.0, through: 400, by: 100) { d.move(to: Vec2(x, -140), after: 0.03) }
        d.release(at: Vec2(400, -140))
        #expect(d.actions.first == .pageDragBegan(Vec2(-160, -150)) && d.controller.turnCompletes == true)
        d.settle()
        #expect(d.controller.shownPages.map(\.number) == [2], "\(d.controller.shownPages)")
        d.press(at: Vec2(170, -150))
        for x in stride(from: 100.0, through: -400, by: -100) { d.move(to: Vec2(x, -140), after: 0.03) }
        d.release(at: Vec2(-400, -140))
        d.settle()
        #expect(d.controller.shownPages.map(\.number) == [3])
    }

    @Test func aShortSlowDragFallsBack() {
        var d = Driver(reading())
        d.press(at: Vec2(350, 0))
        d.move(to: Vec2(300, 0), after: 0.2)
        d.move(to: Vec2(290, 0), after: 0.5)
        d.release(at: Vec2(290, 0))
        #expect(d.controller.turnCompletes == false)
        d.settle()
        #expect(d.controller.spread == 0)
    }

    @Test func aDragFromTheMiddleOfAPageDoesNothing() {
        var d = Driver(reading())
        d.press(at: Vec2(100, 0))
        d.move(to: Vec2(-200, 0))
        d.release(at: Vec2(-200, 0))
        #expect(d.actions.isEmpty)
        #expect(d.controller.phase == .reading)
    }

    /// One page shown: a click on its third by the spine turns back, elsewhere forwards.
    @Test func withOnePageItsThirdByTheSpineTurnsBack() {
        let c = reading()
        #expect(c.handle(.togglePages, at: 2) && c.singlePage)
        var d = Driver(c)
        // The page fills -181…181 of the view: its spine at -181.
        #expect(d.click(at: Vec2(50, 0)) == [.nextPage])
        d.settle()
        #expect(d.controller.shownPages.map(\.number) == [2])
        #expect(d.click(at: Vec2(-150, 0)) == [.previousPage])
        d.settle()
        #expect(d.controller.shownPages.map(\.number) == [1])
    }

    @Test func clickingAPageTurnsTowardsIt() {
        var d = Driver(reading())
        #expect(d.click(at: Vec2(150, 0)) == [.nextPage])
        d.settle()
        #expect(d.controller.spread == 1)
        #expect(d.click(at: Vec2(-150, 0)) == [.previousPage])
        d.settle()
        #expect(d.controller.spread == 0)
    }

    @Test func clicksFollowThePageNotTheDirectionSetting() {
        var d = Driver(reading())
        d.controller.handle(.toggleDirection, at: d.time)
        // With a backward direction "previous" is what shows the next spread.
        #expect(d.click(at: Vec2(150, 0)) == [.previousPage])
        d.settle()
        #expect(d.controller.spread == 1)
    }

    @Test func theWheelTurnsPagesButQueuesNoMoreThanOne() {
        var d = Driver(reading())
        #expect(d.send(.scroll(dx: 0, dy: -1, modifiers: [])) == [.nextPage])
        #expect(d.send(.scroll(dx: 0, dy: -1, modifiers: [])) == [.nextPage])
        #expect(d.controller.queuedTurns == 1)
        #expect(d.send(.scroll(dx: 0, dy: -1, modifiers: [])).isEmpty)
    }

    @Test func pressesWhileTheBookOpensAreIgnored() {
        let c = shelf()
        c.handle(.open, at: 0)
        var d = Driver(c)
        d.time = 0.1
        d.press(at: Vec2(350, 0))
        d.move(to: Vec2(0, 0))
        d.release(at: Vec2(0, 0))
        #expect(d.actions.isEmpty)
    }
}

@Suite struct PinchGestureTests {
    static let m = PinchMapping()
    static func opening(_ travel: Double) -> Double { ClosedBook.openingProgress(pinch: m.scale(travel: travel)) }
    static func closing(_ travel: Double) -> Double { ClosedBook.closingProgress(pinch: m.scale(travel: travel)) }

    @Test func ctrlWheelPinchesThroughTheSameMappingAndEndsWhenTheWheelRests() {
        var d = Driver(shelf())
        for _ in 0..<4 { d.send(.scroll(dx: 0, dy: 1, modifiers: .control), after: 0.05) }
        #expect(d.actions == (1...4).map { .pinch(scale: Self.m.scale(travel: 40 * Double($0))) })
        #expect(d.controller.phase == .opening && abs(d.controller.openProgress - Self.opening(160)) < 1e-9)
        // Not linear steps: each step opens more than the one before.
        let steps = (0...4).map { Self.opening(40 * Double($0)) }
        #expect(zip(steps.dropFirst(), steps.dropFirst(2)).allSatisfy { a, b in b - a > 0 } && steps[2] - steps[1] > steps[1] - steps[0])
        let deadline = try! #require(d.gestures.deadline)
        #expect(d.gestures.tick(at: deadline - 0.01).isEmpty)
        let end = d.gestures.tick(at: deadline)
        #expect(end == [.scrubEnded] && d.gestures.deadline == nil)
        d.controller.handle(.scrubEnded, at: deadline)
        d.time = deadline
        d.settle()
        // Released slowly at under half: it reverts.
        #expect(d.controller.phase == .shelf)
    }

    @Test func ctrlWheelDownClosesAnOpenBook() {
        var d = Driver(reading())
        for _ in 0..<5 { d.send(.scroll(dx: 0, dy: -1, modifiers: .control), after: 0.05) }
        #expect(d.controller.phase == .closing && abs(d.controller.openProgress - (1 - Self.closing(-200))) < 1e-9)
        #expect(d.controller.openProgress < 0.5)
        d.controller.handle(.scrubEnded, at: d.time + 0.3)
        d.settle()
        #expect(d.controller.phase == .shelf)
    }

    /// A drag with `button` held from the view centre, `dy` pixels up (negative: down).
    fileprivate static func drag(_ d: inout Driver, _ button: MouseButton = .right, to dy: [Double], dt: Double = 0.016) {
        d.send(.mouseDown(button, x: 640, y: 360, modifiers: []))
        for y in dy { d.send(.mouseMove(x: 640, y: 360 - y), after: dt) }
    }

    @Test(arguments: [MouseButton.right, .middle])
    func rightDragUpSpreadsTheCentredBookOpen(_ button: MouseButton) {
        var d = Driver(shelf())
        Self.drag(&d, button, to: [3, 60, 120, 240, 300])
        #expect(d.controller.phase == .opening && d.controller.book == 0)
        #expect(abs(d.controller.openProgress - Self.opening(300)) < 1e-9)
        #expect(d.gestures.isPressed)
        d.send(.mouseUp(button, x: 640, y: 60, modifiers: []))
        #expect(d.actions.last == .scrubEnded && !d.gestures.isPressed)
        d.settle()
        #expect(d.controller.phase == .reading && d.controller.openProgress == 1)
    }

    @Test func rightDragDownClosesAndAFastReleaseCompletes() {
        var d = Driver(reading())
        Self.drag(&d, to: [-10, -30, -60])
        #expect(d.controller.phase == .closing)
        #expect(abs(d.controller.openProgress - (1 - Self.closing(-60))) < 1e-9)
        // Under half closed, but moving fast: the release closes it.
        #expect(d.controller.openProgress > 0.5)
        d.send(.mouseUp(.right, x: 640, y: 420, modifiers: []))
        d.settle()
        #expect(d.controller.phase == .shelf)
    }

    @Test func theBeginRuleRefusesTheWrongWay() {
        // Pinching on the shelf, or spreading an open book, does nothing.
        var d = Driver(shelf())
        Self.drag(&d, to: [-20, -100])
        #expect(d.actions.isEmpty && d.controller.phase == .shelf)
        d.send(.mouseUp(.right, x: 640, y: 460, modifiers: []))
        #expect(d.actions.isEmpty)
        var r = Driver(reading())
        Self.drag(&r, to: [20, 100])
        #expect(r.actions.isEmpty && r.controller.phase == .reading)
        // …until the drag turns the right way: it begins from where it turned.
        r.send(.mouseMove(x: 640, y: 360 - 40), after: 0.016)
        #expect(r.controller.phase == .closing && abs(r.controller.openProgress - (1 - Self.closing(-60))) < 1e-9)
    }

    @Test func aLeftClickDuringAPinchIsNotAClick() {
        var d = Driver(shelf())
        Self.drag(&d, to: [60])
        d.press(at: Vec2(0, 0))
        d.release(at: Vec2(0, 0))
        #expect(d.actions.allSatisfy { if case .pinch = $0 { true } else { false } })
    }

    @Test func movingBackPastTheStartOnlyUndoes() {
        var d = Driver(shelf())
        Self.drag(&d, to: [60, 0, -200], dt: 0.2)
        #expect(d.controller.phase == .opening && d.controller.openProgress == 0)
        d.send(.mouseUp(.right, x: 640, y: 560, modifiers: []), after: 0.3)
        d.settle()
        #expect(d.controller.phase == .shelf)
    }

    @Test func aSlowReleaseUnderHalfReverts() {
        var d = Driver(shelf())
        Self.drag(&d, to: [20, 60, 90], dt: 0.1)
        d.send(.mouseMove(x: 640, y: 270), after: 0.5)
        d.send(.mouseUp(.right, x: 640, y: 270, modifiers: []), after: 0.3)
        d.settle()
        #expect(d.controller.phase == .shelf)
    }
}

/// A point of a page image found under the pointer is where the scene draws that point of the
/// image, in every way a book lies: right to left, a wall calendar, one page, fitted to the
/// width, zoomed.
@Suite struct PagePointTests {
    /// Book 0 (10 images, `direction`) open at rest on spread 2, after `actions`.
    private func reading(_ direction: BookInfo.Direction, _ actions: [Action]) -> BookController {
        let c = BookController(library: [BookInfo(title: "B", imageCount: 10, direction: direction)])
        c.handle(.open, at: 0)
        c.update(to: 2)
        c.handle(.goTo(PageImage(number: 5)), at: 2)
        c.update(to: 10)
        for a in actions { c.handle(a, at: 10) }
        c.update(to: 20)
        return c
    }

    @Test(arguments: [
        (BookInfo.Direction.ltr, [Action]()), (.rtl, []), (.rtl, [.togglePages]), (.ltr, [.togglePages, .toggleFitWidth]),
        (.rtl, [.zoomIn, .zoomIn, .pan(by: Vec2(120, -40))]), (.ltr, [.toggleOrientation]), (.rtl, [.toggleOrientation]),
    ])
    func theImagePointUnderThePointerIsTheOneDrawnThere(direction: BookInfo.Direction, actions: [Action]) throws {
        let c = reading(direction, actions)
        let pages = c.scene().items.filter { $0.kind == .page && $0.visible && $0.front.image != nil }
        try #require(!pages.isEmpty)
        var checked = 0
        for item in pages {
            for (s, t) in [(0.2, 0.3), (0.7, 0.8), (0.5, 0.5)] {
                let world = item.model.project(Vec3(s * item.size.x, (t - 0.5) * item.size.y, 0))
                let drawn = item.uv.apply(s: s, t: t)
                // A page of a spread, the one page of single-page mode, or off the view.
                guard let found = PagePoint.under(Vec2(world.x, world.y), controller: c) else { continue }
                #expect(found.image == item.front.image?.index, "\(direction) \(actions) at \(s), \(t)")
                #expect(abs(found.x - drawn.x) < 0.01 && abs(found.y - drawn.y) < 0.01, "\(direction) \(actions): \(found) against \(drawn)")
                checked += 1
            }
        }
        #expect(checked >= 3, "\(direction) \(actions): only \(checked) points were on a page")
    }
}
