import FolioReader
import FolioLayout
import FolioMath
import FolioPages
import Testing

private func reading() -> BookController {
    let c = BookController(library: [BookInfo(title: "B", imageCount: 10)])
    c.handle(.open, at: 0)
    c.update(to: 2)
    return c
}

private func near(_ a: Vec2, _ b: Vec2) -> Bool { abs(a.x - b.x) < 1e-6 && abs(a.y - b.y) < 1e-6 }

@Suite struct ZoomPanTests {
    @Test func zoomingKeepsThePointUnderThePointerStill() {
        let c = reading()
        let pointer = Vec2(300, -120)
        let before = PointerGestures.bookPoint(pointer, controller: c)!
        #expect(c.handle(.zoom(by: 3, toward: pointer), at: 2))
        #expect(c.settings.zoom == 3)
        #expect(near(PointerGestures.bookPoint(pointer, controller: c)!, before))
        #expect(c.handle(.zoom(by: 2, toward: Vec2(-200, 50)), at: 2))
        #expect(c.settings.zoom == 6)
    }

    @Test func zoomStopsAtEightAndFitBringsTheSpreadBack() {
        let c = reading()
        for _ in 0..<20 { c.handle(.zoomIn, at: 2) }
        #expect(c.settings.zoom == 8)
        c.handle(.pan(by: Vec2(100, 40)), at: 2)
        #expect(c.settings.pan == Vec2(100, 40))
        #expect(c.handle(.fitSpread, at: 2))
        #expect(c.settings.zoom == 1 && c.settings.pan == .zero)
        #expect(!c.handle(.pan(by: Vec2(10, 0)), at: 2), "nothing to pan at zoom 1")
    }

    @Test func panKeepsTheSpreadInView() {
        var s = BookController.Settings()
        s.zoom(by: 2, toward: .zero)
        s.pan(by: Vec2(1e6, -1e6))
        #expect(s.pan == Vec2(1280, -720))
        s.zoom(by: 0.25, toward: Vec2(500, 0))
        #expect(s.zoom == 0.5 && s.pan == .zero)
    }

    @Test func arrowsPanWhileZoomedAndTurnPagesOtherwise() {
        #expect(KeyMap.actions(for: .right, phase: .reading) == [.nextPage])
        #expect(KeyMap.actions(for: .right, phase: .reading, zoomed: true) == [.pan(by: Vec2(-80, 0))])
        #expect(KeyMap.actions(for: .up, phase: .reading, zoomed: true) == [.pan(by: Vec2(0, -80))])
        #expect(KeyMap.actions(for: .z, phase: .reading) == [.fitSpread])
        #expect(KeyMap.actions(for: .right, phase: .shelf, zoomed: true) == [.shelfNext])
    }

    @Test func dragPansAndShiftWheelZoomsTowardsThePointer() {
        let c = reading()
        var g = PointerGestures(mapping: ViewMapping(width: 1280, height: 720, viewSize: Vec2(1280, 720)))
        _ = g.handle(.mouseMove(x: 940, y: 300), controller: c, at: 3)
        let zoom = g.handle(.scroll(dx: 0, dy: 2, modifiers: .shift), controller: c, at: 3)
        #expect(zoom.count == 1)
        guard case let .zoom(by: f, toward: p)? = zoom.first else { Issue.record("no zoom: \(zoom)"); return }
        #expect(abs(f - 1.5625) < 1e-9 && p == Vec2(300, 60))
        c.handle(zoom[0], at: 3)
        _ = g.handle(.mouseDown(.left, x: 640, y: 360, modifiers: []), controller: c, at: 3)
        let moved = g.handle(.mouseMove(x: 600, y: 380), controller: c, at: 3)
        #expect(moved == [.pan(by: Vec2(-40, -20))])
        #expect(g.handle(.mouseUp(.left, x: 600, y: 380, modifiers: []), controller: c, at: 3) == [])
    }

    /// Shift + wheel, then Esc: the book closed at full zoom and pan onto a cover three times
    /// its size, jumped to the shelf, and the next book opened zoomed where this one was.
    @Test func aZoomedBookClosesOntoItsCoverAndTheNextOpensFitted() throws {
        let c = reading()
        c.handle(.zoom(by: 3, toward: Vec2(400, 100)), at: 2)
        #expect(c.settings.zoom == 3 && c.settings.pan != .zero)
        c.handle(.close, at: 2)
        c.update(to: 2.99)
        #expect(c.phase == .closing && c.openProgress < 0.01)
        // Nearly closed, the book's frame is nearly the shelf's (no zoom, no pan): a point of
        // the cover lands within a few units of where it is on the shelf.
        let corner = Vec3(100, 100, 0)
        let closing = bookFrame(c.viewState(), book: c.library[0]).project(corner)
        #expect(length(closing - corner) < 5, "\(closing)")
        c.update(to: 4)
        #expect(c.phase == .shelf && c.settings.zoom == 1 && c.settings.pan == .zero)
    }

    @Test func displayHeightFollowsTheZoom() throws {
        let c = reading()
        let fitted = try #require(c.scene().displayHeight(width: 1280, height: 720))
        // The reference page is 568 of the 720 units high (a little more in perspective).
        #expect(fitted >= 568 && Double(fitted) < 568 * 1.3)
        c.handle(.zoom(by: 4, toward: .zero), at: 2)
        let zoomed = try #require(c.scene().displayHeight(width: 1280, height: 720))
        #expect(zoomed >= 4 * 568 && Double(zoomed) < 4 * 568 * 1.3, "\(zoomed)")
    }
}
