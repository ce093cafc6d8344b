import CGLFW
import FolioInput
import FolioPlatform
import FolioRender
import Foundation

/// Why the viewer cannot open a window.
public struct WindowError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The `Surface` of a GLFW window with a GL 3.3 core context, collecting input as
/// `InputEvent`s stamped with GLFW's clock when its callbacks run.
///
/// Main thread only (GLFW's rule). Does not: draw, or know what a book is.
public final class Window: Surface {
    private let handle: OpaquePointer
    private let queue: EventQueue
    private var windowedFrame = (x: 0, y: 0, width: 0, height: 0)
    /// The desktop's pointers made so far (GLFW frees them with the window system).
    private var pointers: [PointerShape: OpaquePointer] = [:]
    /// The GL objects made in the window's context (reported if any outlives it).
    public let ledger = GLContextLedger(label: "window")

    /// Opens a window and makes its context current. Fails with one clear message when there is
    /// no display or no GL 3.3 core context. `visible` false opens it unseen (to probe the display).
    public init(title: String, width: Int, height: Int, fullscreen: Bool = false, vsync: Bool = true, visible: Bool = true) throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil || ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil else {
            throw WindowError(message: "no display (DISPLAY is not set); use `folio capture` to render without one")
        }
        glfwSetErrorCallback { _, description in
            if let description { FileHandle.standardError.write(Data("folio: GLFW: \(String(cString: description))\n".utf8)) }
        }
        guard glfwInit() == GLFW_TRUE else {
            throw WindowError(message: "cannot open the display \(ProcessInfo.processInfo.environment["DISPLAY"] ?? ""); use `folio capture` to render without one")
        }
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3)
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3)
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE)
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE)
        glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE)
        glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE)
        let monitor = fullscreen ? glfwGetPrimaryMonitor() : nil
        var w = Int32(width), h = Int32(height)
        if let monitor, let mode = glfwGetVideoMode(monitor) { w = mode.pointee.width; h = mode.pointee.height }
        guard let handle = glfwCreateWindow(w, h, title, monitor, nil) else {
            glfwTerminate()
            throw WindowError(message: "cannot create a window with an OpenGL 3.3 core context; use `folio capture` to render without one")
        }
        self.handle = handle
        queue = EventQueue()
        glfwMakeContextCurrent(handle)
        ledger.madeCurrent()
        glfwSwapInterval(vsync ? 1 : 0)
        glfwSetWindowUserPointer(handle, Unmanaged.passUnretained(queue).toOpaque())
        installCallbacks()
    }

    /// Closes the window and shuts GLFW down.
    public func destroy() {
        ledger.end()
        glfwDestroyWindow(handle)
        glfwTerminate()
    }

    /// Framebuffer size in pixels (differs from the window size on HiDPI screens).
    public var framebufferSize: (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        glfwGetFramebufferSize(handle, &w, &h)
        return (Int(w), Int(h))
    }

    public var shouldClose: Bool { glfwWindowShouldClose(handle) == GLFW_TRUE }

    public func setTitle(_ title: String) { glfwSetWindowTitle(handle, title) }

    public func setPointer(_ shape: PointerShape) {
        let kind = switch shape {
        case .arrow: GLFW_ARROW_CURSOR
        case .hand: GLFW_HAND_CURSOR
        case .text: GLFW_IBEAM_CURSOR
        }
        if pointers[shape] == nil { pointers[shape] = glfwCreateStandardCursor(kind) }
        glfwSetCursor(handle, pointers[shape])
    }

    /// Puts `text` on the clipboard and, on X11, in the PRIMARY selection too (what a middle
    /// click pastes, as every X application's copy does).
    public func copyToClipboard(_ text: String) {
        glfwSetClipboardString(handle, text)
        Self.setPrimary?(text)
    }

    /// GLFW's X11 call for PRIMARY, looked up where it runs: a Wayland build of GLFW has none
    /// (and Wayland's primary selection is the compositor's).
    private static let setPrimary: (@convention(c) (UnsafePointer<CChar>?) -> Void)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "glfwSetX11SelectionString") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<CChar>?) -> Void).self)
    }()

    /// Seconds since GLFW started: the viewer's clock (captures and tests pass their own).
    public var time: Double { glfwGetTime() }

    /// Events since the last call; with `wait`, sleeps until one arrives (or `timeout` seconds
    /// pass) first: an idle viewer uses no CPU.
    public func events(wait: Bool, timeout: Double?) -> [TimedInputEvent] {
        if !wait {
            glfwPollEvents()
        } else if let timeout {
            glfwWaitEventsTimeout(timeout)
        } else {
            glfwWaitEvents()
        }
        return queue.drain()
    }

    /// Copies the frame to the window's back buffer and swaps.
    public func present(_ frame: Framebuffer) {
        frame.blit(width: frame.width, height: frame.height)
        glfwSwapBuffers(handle)
    }

    public func makeCurrent() {
        glfwMakeContextCurrent(handle)
        ledger.madeCurrent()
    }

    public var contentScale: Double { Window.contentScale(handle).y }

    /// Ends an `events(wait:)` in progress (or the next one) with no event, from any thread:
    /// work finished elsewhere, such as a decoded page, gets drawn by an idle loop.
    public var wake: @Sendable () -> Void { { glfwPostEmptyEvent() } }

    public var isFullscreen: Bool { glfwGetWindowMonitor(handle) != nil }

    /// Switches between fullscreen on the primary monitor and the last windowed frame.
    public func toggleFullscreen() {
        if isFullscreen {
            let f = windowedFrame
            glfwSetWindowMonitor(handle, nil, Int32(f.x), Int32(f.y), Int32(max(f.width, 320)), Int32(max(f.height, 200)), 0)
        } else if let monitor = glfwGetPrimaryMonitor(), let mode = glfwGetVideoMode(monitor) {
            var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
            glfwGetWindowPos(handle, &x, &y)
            glfwGetWindowSize(handle, &w, &h)
            windowedFrame = (Int(x), Int(y), Int(w), Int(h))
            glfwSetWindowMonitor(handle, monitor, 0, 0, mode.pointee.width, mode.pointee.height, mode.pointee.refreshRate)
        }
    }

    private func installCallbacks() {
        glfwSetKeyCallback(handle) { window, key, _, action, mods in
            guard action != GLFW_RELEASE else { return }
            let m = Window.modifiers(mods)
            // With Ctrl no character comes: Ctrl+= / Ctrl++ / Ctrl+− (text size) by key.
            guard let k = Window.key(key) ?? (m.contains(.control) ? Window.controlKeys[key] : nil) else { return }
            EventQueue.of(window)?.push(.key(k, modifiers: m, isRepeat: action == GLFW_REPEAT))
        }
        glfwSetCharCallback(handle) { window, codepoint in
            // '+' and '-' by character, so they work on every keyboard layout.
            switch codepoint {
            case 43: EventQueue.of(window)?.push(.key(.plus, modifiers: [], isRepeat: false))
            case 45: EventQueue.of(window)?.push(.key(.minus, modifiers: [], isRepeat: false))
            case 63: EventQueue.of(window)?.push(.key(.question, modifiers: [], isRepeat: false))
            default: break
            }
            // Every character too, for a field being typed in ('/' opens the search field).
            if let scalar = Unicode.Scalar(codepoint) { EventQueue.of(window)?.push(.text(String(Character(scalar)))) }
        }
        glfwSetMouseButtonCallback(handle) { window, button, action, mods in
            guard let window, let b = MouseButton(rawValue: Int(button)) else { return }
            // Where the pointer was when the button changed: X's current position may already be
            // further on when a burst of events is taken at once (a quick drag).
            let (x, y) = EventQueue.of(window)?.pointer ?? Window.cursor(window)
            let m = Window.modifiers(mods)
            EventQueue.of(window)?.push(action == GLFW_PRESS ? .mouseDown(b, x: x, y: y, modifiers: m) : .mouseUp(b, x: x, y: y, modifiers: m))
        }
        glfwSetCursorPosCallback(handle) { window, x, y in
            guard let window else { return }
            let s = Window.contentScale(window)
            EventQueue.of(window)?.pointer = (x * s.x, y * s.y)
            EventQueue.of(window)?.push(.mouseMove(x: x * s.x, y: y * s.y))
        }
        glfwSetScrollCallback(handle) { window, dx, dy in
            guard let window else { return }
            var m: Modifiers = []
            if glfwGetKey(window, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS || glfwGetKey(window, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS { m.insert(.control) }
            if glfwGetKey(window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS || glfwGetKey(window, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS { m.insert(.shift) }
            EventQueue.of(window)?.push(.scroll(dx: dx, dy: dy, modifiers: m))
        }
        glfwSetFramebufferSizeCallback(handle) { window, w, h in
            EventQueue.of(window)?.push(.resize(width: Int(w), height: Int(h)))
        }
        glfwSetWindowRefreshCallback(handle) { window in
            EventQueue.of(window)?.push(.refresh)
        }
        glfwSetWindowCloseCallback(handle) { window in
            EventQueue.of(window)?.push(.close)
        }
        glfwSetDropCallback(handle) { window, count, names in
            guard let names, count > 0 else { return }
            let paths = (0..<Int(count)).compactMap { names[$0].map { String(cString: $0) } }
            EventQueue.of(window)?.push(.drop(paths: paths))
        }
    }

    /// Cursor position in framebuffer pixels.
    private static func cursor(_ window: OpaquePointer) -> (Double, Double) {
        var x = 0.0, y = 0.0
        glfwGetCursorPos(window, &x, &y)
        let s = contentScale(window)
        return (x * s.x, y * s.y)
    }

    /// Framebuffer pixels per window coordinate (2 on a HiDPI screen).
    private static func contentScale(_ window: OpaquePointer) -> (x: Double, y: Double) {
        var fw: Int32 = 0, fh: Int32 = 0, ww: Int32 = 0, wh: Int32 = 0
        glfwGetFramebufferSize(window, &fw, &fh)
        glfwGetWindowSize(window, &ww, &wh)
        return (ww > 0 ? Double(fw) / Double(ww) : 1, wh > 0 ? Double(fh) / Double(wh) : 1)
    }

    private static func modifiers(_ mods: Int32) -> Modifiers {
        var m: Modifiers = []
        if mods & GLFW_MOD_SHIFT != 0 { m.insert(.shift) }
        if mods & GLFW_MOD_CONTROL != 0 { m.insert(.control) }
        if mods & GLFW_MOD_ALT != 0 { m.insert(.alt) }
        return m
    }

    private static let keys: [Int32: Key] = [
        GLFW_KEY_LEFT: .left, GLFW_KEY_RIGHT: .right, GLFW_KEY_UP: .up, GLFW_KEY_DOWN: .down,
        GLFW_KEY_ENTER: .enter, GLFW_KEY_KP_ENTER: .enter, GLFW_KEY_SPACE: .space, GLFW_KEY_BACKSPACE: .backspace, GLFW_KEY_DELETE: .delete,
        GLFW_KEY_ESCAPE: .escape, GLFW_KEY_PAGE_UP: .pageUp, GLFW_KEY_PAGE_DOWN: .pageDown, GLFW_KEY_HOME: .home,
        // '+' and '-' (keypad too) come from the character callback only, or they would count twice.
        GLFW_KEY_END: .end, GLFW_KEY_TAB: .tab,
        GLFW_KEY_F11: .f11, GLFW_KEY_F12: .f12,
        GLFW_KEY_A: .a, GLFW_KEY_B: .b, GLFW_KEY_C: .c, GLFW_KEY_D: .d, GLFW_KEY_E: .e, GLFW_KEY_F: .f, GLFW_KEY_H: .h, GLFW_KEY_L: .l,
        GLFW_KEY_M: .m, GLFW_KEY_N: .n, GLFW_KEY_O: .o, GLFW_KEY_P: .p, GLFW_KEY_Q: .q, GLFW_KEY_R: .r, GLFW_KEY_S: .s, GLFW_KEY_T: .t,
        GLFW_KEY_V: .v, GLFW_KEY_W: .w, GLFW_KEY_G: .g, GLFW_KEY_Z: .z, GLFW_KEY_J: .j, GLFW_KEY_K: .k, GLFW_KEY_Y: .y,
        GLFW_KEY_I: .i, GLFW_KEY_U: .u, GLFW_KEY_X: .x,
        GLFW_KEY_0: .n0, GLFW_KEY_1: .n1, GLFW_KEY_2: .n2, GLFW_KEY_3: .n3, GLFW_KEY_4: .n4,
        GLFW_KEY_5: .n5, GLFW_KEY_6: .n6, GLFW_KEY_7: .n7, GLFW_KEY_8: .n8, GLFW_KEY_9: .n9,
        GLFW_KEY_KP_0: .n0, GLFW_KEY_KP_1: .n1, GLFW_KEY_KP_2: .n2, GLFW_KEY_KP_3: .n3, GLFW_KEY_KP_4: .n4,
        GLFW_KEY_KP_5: .n5, GLFW_KEY_KP_6: .n6, GLFW_KEY_KP_7: .n7, GLFW_KEY_KP_8: .n8, GLFW_KEY_KP_9: .n9,
    ]

    private static func key(_ code: Int32) -> Key? { keys[code] }

    private static let controlKeys: [Int32: Key] = [
        GLFW_KEY_EQUAL: .plus, GLFW_KEY_KP_ADD: .plus, GLFW_KEY_MINUS: .minus, GLFW_KEY_KP_SUBTRACT: .minus,
    ]
}

/// Events gathered by GLFW's callbacks, which cannot capture context: they find this queue
/// through the window's user pointer.
private final class EventQueue {
    private var events: [TimedInputEvent] = []
    /// The pointer's place as its last move said, framebuffer pixels; nil before it moved.
    var pointer: (Double, Double)?

    static func of(_ window: OpaquePointer?) -> EventQueue? {
        guard let window, let p = glfwGetWindowUserPointer(window) else { return nil }
        return Unmanaged<EventQueue>.fromOpaque(p).takeUnretainedValue()
    }

    /// Stamps the event with the time it arrived: a slow frame does not delay what it meant.
    func push(_ e: InputEvent) { events.append(TimedInputEvent(e, at: glfwGetTime())) }

    func drain() -> [TimedInputEvent] {
        defer { events = [] }
        return events
    }
}
