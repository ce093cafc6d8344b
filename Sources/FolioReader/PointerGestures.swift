#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioInput
import FolioLayout
import FolioMath
import Foundation

/// Maps framebuffer pixels (origin top left, y down) to layout units (origin at the view
/// centre, y up) the way the renderer fits the scene's view into the framebuffer: the whole
/// view shows, widened or heightened to the framebuffer's aspect.
public struct ViewMapping: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The scene's view size, layout units.
    public var viewSize: Vec2

    public init(width: Int, height: Int, viewSize: Vec2) {
        self.width = width
        self.height = height
        self.viewSize = viewSize
    }

    /// Layout units per framebuffer pixel.
    public var unitsPerPixel: Double { Camera.unitsPerPixel(viewSize: viewSize, width: width, height: height) }

    /// The view the renderer shows: `viewSize` widened or heightened to the framebuffer's aspect.
    public var fittedViewSize: Vec2 { Camera(viewSize: viewSize).fitted(width: width, height: height).viewSize }

    /// The point on the page plane (z = 0) under a framebuffer pixel.
    public func layoutPoint(x: Double, y: Double) -> Vec2 {
        let s = unitsPerPixel
        return Vec2((x - Double(width) / 2) * s, (Double(height) / 2 - y) * s)
    }
}

/// Turns mouse input into actions for the state machine.
///
/// On the shelf: drag or wheel to scroll the covers, click a cover to centre it, click the
/// centred one to open it. In a book: drag a page from near its outer edge to curl it after the
/// pointer, click a page to turn it, wheel to turn pages; Shift + wheel zooms towards the
/// pointer, and while zoomed in a drag pans the book. Anywhere: a pinch opens or closes
/// the book — a drag with the right (or middle) button held, upwards to spread (open),
/// downwards to pinch (close), released to complete or revert; Ctrl + wheel pinches by steps
/// through the same mapping (`PinchMapping`) and ends once the wheel rests.
///
/// Reads the controller, never changes it: the caller performs the actions. Positions come in
/// framebuffer pixels; `mapping` must follow the framebuffer's size.
public struct PointerGestures {
    public var mapping: ViewMapping
    /// Pixels the pointer travels before a press becomes a drag (less is a click).
    public var dragThreshold = 5.0
    /// Seconds without a Ctrl + wheel step that end a pinch (it then completes or reverts by
    /// its progress and speed, as a released drag does).
    public var scrubIdle = 0.25
    /// Pointer travel → pinch scale.
    public var pinchMapping = PinchMapping()
    /// Outer part of a page (fraction of its width) where a press grabs the page to curl it.
    public var edgeZone = 0.4
    /// Zoom factor per wheel step with Shift.
    public var zoomPerStep = 1.25

    private enum Press {
        /// Pressed on the shelf, over cover `cover` if any; not moved yet.
        case shelf(cover: Int?)
        /// Pressed on an open book; `grabsEdge` when near a page's outer edge. Not moved yet.
        case page(grabsEdge: Bool)
        case shelfDrag(last: Vec2)
        case pageDrag
        /// Dragging the zoomed book.
        case panDrag(last: Vec2)
        /// A drag that does nothing (from the middle of a page, or mid-animation).
        case ignored
    }

    private var press: Press?
    private var pressPixel = (x: 0.0, y: 0.0)
    private var pressPoint = Vec2.zero
    private var scrubEnds: Double?
    /// The pinch under way: a drag with the right or middle button, or Ctrl + wheel steps.
    private var pinch: Pinch?

    private struct Pinch {
        var button: MouseButton?
        var startY: Double
        /// Upward travel so far, pixels (wheel steps add `PinchMapping.pixelsPerStep` each).
        var travel = 0.0
        /// Set by the begin rule once the pinch moves: true opens, false closes; nil before.
        var opens: Bool?
    }
    /// Where the pointer was last seen, framebuffer pixels (the wheel zooms towards it).
    private var pointer = (x: 0.0, y: 0.0)

    public init(mapping: ViewMapping) {
        self.mapping = mapping
    }

    /// When `tick(at:)` has something to do (a scrub to end); nil when nothing waits.
    public var deadline: Double? { scrubEnds }

    /// Whether a mouse button is held over the shelf or a page, or pinching.
    public var isPressed: Bool { press != nil || pinch?.button != nil }

    /// The actions for one event; events other than the mouse's give none.
    public mutating func handle(_ event: InputEvent, controller: BookController, at time: Double) -> [Action] {
        switch event {
        case let .mouseDown(.left, x, y, _): return down(x: x, y: y, controller: controller)
        case let .mouseDown(button, _, y, _): return beginPinch(button: button, y: y, controller: controller)
        case let .mouseMove(x, y):
            pointer = (x, y)
            if pinch?.button != nil { return movePinch(y: y, controller: controller) }
            return move(x: x, y: y, controller: controller)
        case let .mouseUp(.left, x, y, _): return up(x: x, y: y, controller: controller)
        case let .mouseUp(button, _, y, _) where button == pinch?.button: return endPinch(y: y, controller: controller)
        case let .scroll(dx, dy, modifiers): return scroll(dx: dx, dy: dy, modifiers: modifiers, controller: controller, at: time)
        default: return []
        }
    }

    /// Ends a scrub once the wheel has rested for `scrubIdle`.
    public mutating func tick(at time: Double) -> [Action] {
        guard let end = scrubEnds, time >= end else { return [] }
        scrubEnds = nil
        let begun = pinch?.opens != nil
        pinch = nil
        return begun ? [.scrubEnded] : []
    }

    // MARK: Pinch

    private mutating func beginPinch(button: MouseButton, y: Double, controller: BookController) -> [Action] {
        guard press == nil, pinch == nil else { return [] }
        pinch = Pinch(button: button, startY: y)
        return []
    }

    private mutating func movePinch(y: Double, controller: BookController) -> [Action] {
        guard var p = pinch else { return [] }
        p.travel = p.startY - y
        if p.opens == nil, abs(p.travel) < dragThreshold { return [] }
        pinch = p
        return pinched(controller: controller)
    }

    private mutating func endPinch(y: Double, controller: BookController) -> [Action] {
        guard pinch?.opens != nil else {
            pinch = nil
            return []
        }
        let last = movePinch(y: y, controller: controller)
        pinch = nil
        return last + [.scrubEnded]
    }

    /// The pinch action for the travel so far. The first one applies the tutorial's begin
    /// rule: spreading (scale ≥ 1) opens the centred book on the shelf, pinching (< 1) closes
    /// the open one. After it the scale stays on its side of 1, so moving back past the start
    /// only undoes the gesture.
    private mutating func pinched(controller: BookController) -> [Action] {
        guard var p = pinch else { return [] }
        var s = pinchMapping.scale(travel: p.travel)
        if let opens = p.opens {
            s = opens ? max(s, 1) : min(s, 1)
        } else {
            let opens = s >= 1
            guard opens ? controller.phase == .shelf : controller.phase == .reading else {
                // Nothing to open or close this way: the gesture starts again from here.
                p.startY -= p.travel
                p.travel = 0
                pinch = p.button == nil ? nil : p
                return []
            }
            p.opens = opens
        }
        pinch = p
        return [.pinch(scale: s)]
    }

    // MARK: Buttons

    private mutating func down(x: Double, y: Double, controller: BookController) -> [Action] {
        guard press == nil, pinch?.button == nil else { return [] }
        pressPixel = (x, y)
        pressPoint = mapping.layoutPoint(x: x, y: y)
        switch controller.phase {
        case .shelf: press = .shelf(cover: Self.cover(at: pressPoint, in: controller.scene()))
        case .reading, .turning: press = .page(grabsEdge: grabsEdge(pressPoint, controller: controller))
        case .opening, .closing: press = .ignored
        }
        return []
    }

    private mutating func move(x: Double, y: Double, controller: BookController) -> [Action] {
        guard let current = press else { return [] }
        let p = mapping.layoutPoint(x: x, y: y)
        switch current {
        case .shelf:
            guard travelled(x: x, y: y) else { return [] }
            press = .shelfDrag(last: p)
            return [.shelfDragBegan, shelfDrag(from: pressPoint, to: p, controller: controller)]
        case let .page(grabsEdge):
            guard travelled(x: x, y: y) else { return [] }
            if controller.settings.zoom > 1 {
                press = .panDrag(last: p)
                return [.pan(by: p - pressPoint)]
            }
            press = grabsEdge ? .pageDrag : .ignored
            return grabsEdge ? [.pageDragBegan(pressPoint), .pageDragMoved(p)] : []
        case let .shelfDrag(last):
            press = .shelfDrag(last: p)
            return [shelfDrag(from: last, to: p, controller: controller)]
        case .pageDrag:
            return [.pageDragMoved(p)]
        case let .panDrag(last):
            press = .panDrag(last: p)
            return [.pan(by: p - last)]
        case .ignored:
            return []
        }
    }

    private mutating func up(x: Double, y: Double, controller: BookController) -> [Action] {
        guard let current = press else { return [] }
        press = nil
        switch current {
        case let .shelf(cover?):
            // The centred cover opens; any other comes to the centre.
            return [cover == Int(controller.scroll.rounded()) ? .open : .select(cover)]
        case .page:
            return [turnTowards(pressPoint, controller: controller)].compactMap { $0 }
        case .shelfDrag:
            return [.shelfDragEnded]
        case .pageDrag:
            return [.pageDragMoved(mapping.layoutPoint(x: x, y: y)), .pageDragEnded]
        case .shelf(nil), .ignored, .panDrag:
            return []
        }
    }

    private func travelled(x: Double, y: Double) -> Bool {
        let dx = x - pressPixel.x, dy = y - pressPixel.y
        return dx * dx + dy * dy >= dragThreshold * dragThreshold
    }

    // MARK: Wheel

    private mutating func scroll(dx: Double, dy: Double, modifiers: Modifiers, controller: BookController,
                                 at time: Double) -> [Action] {
        if modifiers.contains(.control) {
            guard dy != 0, pinch?.button == nil else { return [] }
            if pinch == nil { pinch = Pinch(button: nil, startY: 0) }
            pinch?.travel += dy * pinchMapping.pixelsPerStep
            let actions = pinched(controller: controller)
            scrubEnds = pinch == nil ? nil : time + scrubIdle
            return actions
        }
        if modifiers.contains(.shift) {
            guard dy != 0, controller.book != nil else { return [] }
            return [.zoom(by: pow(zoomPerStep, dy), toward: mapping.layoutPoint(x: pointer.x, y: pointer.y))]
        }
        // Wheel down (dy < 0) or a swipe to the right moves on.
        let steps = -(dy + dx)
        guard steps != 0, !isPressed else { return [] }
        switch controller.phase {
        case .shelf:
            return [.shelfScroll(by: steps)]
        case .reading, .turning:
            // Like a held key: one turn may wait behind the one under way, no more.
            guard controller.queuedTurns == 0 else { return [] }
            return [Self.turn(forward: steps > 0, controller: controller)]
        case .opening, .closing:
            return []
        }
    }

    // MARK: Geometry

    /// The topmost visible cover under a layout point.
    public static func cover(at p: Vec2, in scene: Scene) -> Int? {
        scene.items.reversed().first { item in
            guard item.kind == .cover, item.visible, item.opacity > 0, let inverse = item.model.inverse else { return false }
            let local = inverse.project(Vec3(p.x, p.y, 0))
            return (0...item.size.x).contains(local.x) && abs(local.y) <= item.size.y / 2
        }?.book
    }

    /// A layout point in the open book's own frame (spine on the y axis, right-hand page at
    /// x > 0, page centre at y = 0), undoing zoom, mirroring and the calendar's quarter turn.
    public static func bookPoint(_ p: Vec2, controller: BookController) -> Vec2? {
        guard let info = controller.laidOutBook, let inverse = bookFrame(controller.viewState(), book: info).inverse else {
            return nil
        }
        let local = inverse.project(Vec3(p.x, p.y, 0))
        return Vec2(local.x, local.y)
    }

    /// Whether a press at `p` grabs a page: on (or just beside) its outer part.
    private func grabsEdge(_ p: Vec2, controller: BookController) -> Bool {
        guard let local = Self.bookPoint(p, controller: controller), let size = pageSize(controller) else { return false }
        let across = abs(local.x) / size.x
        guard abs(local.y) <= size.y * 0.55 else { return false }
        // One page shown: its strip by the spine grabs the sheet before it, to drag it back over.
        if controller.singlePage, local.x >= 0, across <= edgeZone { return true }
        return across >= 1 - edgeZone && across <= 1.1
    }

    private func pageSize(_ controller: BookController) -> Vec2? {
        controller.book.map { controller.library[$0].laidOutPageSize(controller.settings.style.orientation) }
    }

    /// A click on a page turns it: the right-hand page forwards, the left-hand one back. With
    /// one page shown (the other off the view), its third by the spine turns back.
    private func turnTowards(_ p: Vec2, controller: BookController) -> Action? {
        guard let local = Self.bookPoint(p, controller: controller), let size = pageSize(controller) else { return nil }
        return Self.turn(forward: local.x >= (controller.singlePage ? size.x / 3 : 0), controller: controller)
    }

    /// The action that shows the next spread (`forward`) or the previous one, whatever the
    /// turn direction setting says next and previous mean.
    private static func turn(forward: Bool, controller: BookController) -> Action {
        forward == (controller.settings.style.direction == .forward) ? .nextPage : .previousPage
    }

    /// Dragging the covers to the left brings later ones to the centre.
    private func shelfDrag(from a: Vec2, to b: Vec2, controller: BookController) -> Action {
        let viewSize = controller.settings.viewSize
        let spacing = switch controller.settings.shelf {
        case .carousel: Carousel(viewWidth: viewSize.x).pitch
        case .wheel: Wheel.covers(viewSize: viewSize).itemSize.x
        }
        return .shelfDragMoved(by: (a.x - b.x) / spacing)
    }
}

/// Pointer travel → pinch scale, for a mouse that has no second finger. Moving up by `span`
/// pixels doubles the scale (fingers spreading), moving down halves it (pinching): a
/// multiplicative scale, as the ratio of two fingers' distances is. With the tutorial's
/// progress, |s − 1| / 5 opens a book fully after log₂ 6 ≈ 2.6 spans up, and |1 − s| closes
/// half of it after one span down.
public struct PinchMapping: Sendable, Equatable {
    /// Pixels of travel that double (up) or halve (down) the scale.
    public var span = 120.0
    /// Travel of one Ctrl + wheel step, pixels: three steps double the scale.
    public var pixelsPerStep = 40.0

    public init() {}

    /// The scale after `travel` pixels upwards (negative: downwards).
    public func scale(travel: Double) -> Double { pow(2, travel / span) }
}
