import FolioInput
import FolioRender

/// Where frames go and input comes from: one interface, one backend file each — a GLFW window
/// (`Window.swift`) or a headless EGL context (`Headless.swift`). The frame pipeline draws into
/// an offscreen `Framebuffer` and hands it to `present(_:)`.
///
/// Does not: draw, decide when to draw, or know what a book is. Thread: the one that made it.
public protocol Surface: AnyObject {
    /// Size of the drawable in pixels (on a HiDPI screen, more than the window's size).
    var framebufferSize: (width: Int, height: Int) { get }
    /// Framebuffer pixels per point of the screen (2 on a HiDPI screen): the on-screen layer's
    /// text is drawn at this density.
    var contentScale: Double { get }
    /// Seconds on the surface's clock, the one its events are stamped with.
    var time: Double { get }
    /// Input since the last call, each event stamped with when it arrived. With `wait`, sleeps
    /// until some comes, `wake` is called, or `timeout` seconds pass (nil: no limit).
    func events(wait: Bool, timeout: Double?) -> [TimedInputEvent]
    /// Ends a waiting `events` from any thread (work finished elsewhere has something to show).
    var wake: @Sendable () -> Void { get }
    /// Shows a finished frame (a window copies it to the screen; headless keeps it to be read).
    func present(_ frame: Framebuffer)
    /// Makes the surface's GL context current on the calling thread.
    func makeCurrent()
    func setTitle(_ title: String)
    func toggleFullscreen()
    /// Whether the surface fills the screen (Escape leaves that before it closes a book).
    var isFullscreen: Bool { get }
    /// Shows the pointer as `shape` over the surface (a hand over a link).
    func setPointer(_ shape: PointerShape)
    /// Puts `text` on the desktop's clipboard.
    func copyToClipboard(_ text: String)
    /// Frees the surface and its context; last of all.
    func destroy()
}

extension Surface {
    /// One pixel a point: a headless surface, or a window on a normal screen.
    public var contentScale: Double { 1 }
    /// A surface without a pointer or a clipboard (headless) ignores them.
    public func setPointer(_ shape: PointerShape) {}
    public func copyToClipboard(_ text: String) {}
    /// A surface that cannot fill the screen (headless) never does.
    public var isFullscreen: Bool { false }
}

/// How the pointer looks: the desktop's own arrow, hand (over a link) and text beam (selecting).
public enum PointerShape: Sendable, Hashable { case arrow, hand, text }
