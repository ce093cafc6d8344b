import CEGL
import Foundation
import FolioInput
import FolioRender

/// Why no headless GL context could be made: every attempt and the reason it failed.
public struct HeadlessError: Error, CustomStringConvertible {
    public var attempts: [String]
    public var description: String {
        "no OpenGL 3.3 core context without a display; tried:\n" + attempts.map { "  - \($0)" }.joined(separator: "\n")
            + "\n(install Mesa's EGL driver: apt-get install libegl-mesa0 libgl1-mesa-dri)"
    }
}

/// The `Surface` of a GL 3.3 core context with no window and no display: the EGL device
/// platform first (NVIDIA GPUs, Mesa), then Mesa's surfaceless platform; or Mesa's software
/// rasteriser only, when asked (`Rasteriser.software`, `FOLIO_RASTERISER=software`). It draws into
/// framebuffer objects only, and has no input. Belongs to the thread that made it.
///
/// Does not: create any framebuffer (see `Framebuffer` in FolioRender) or touch GLFW.
public final class HeadlessContext: Surface {
    public let display: EGLDisplay
    public let context: EGLContext
    /// Which platform and device it runs on, for logs and benchmarks.
    public let platformDescription: String

    /// The drawable's size as the host chose it: frames are read back, not shown.
    public var framebufferSize: (width: Int, height: Int)
    private let start = ContinuousClock.now

    /// The GL objects made in this context (reported if any outlives it).
    public let ledger: GLContextLedger

    /// Made with the context current on the calling thread.
    private init(display: EGLDisplay, context: EGLContext, description: String) {
        self.display = display
        self.context = context
        self.platformDescription = description
        framebufferSize = (1280, 720)
        ledger = GLContextLedger(label: description)
        ledger.madeCurrent()
    }

    /// Seconds since the context was made, for a live loop without a window; captures pass
    /// their own times and never read it.
    public var time: Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// No input without a window; a wait sleeps out its timeout (a second at most).
    public func events(wait: Bool, timeout: Double?) -> [TimedInputEvent] {
        if wait { Thread.sleep(forTimeInterval: min(timeout ?? 1, 1)) }
        return []
    }

    public var wake: @Sendable () -> Void { {} }

    /// The frame stays in its framebuffer, to be read back.
    public func present(_ frame: Framebuffer) {}
    public func setTitle(_ title: String) {}
    public func toggleFullscreen() {}

    /// Which rasteriser a context may run on.
    public enum Rasteriser: String, Sendable {
        /// The first that works: a GPU's EGL device, then Mesa's (software where there is no GPU).
        case any
        /// Mesa's software rasteriser only (llvmpipe), whatever GPU the machine has: the one
        /// that pixel references are made with, so they compare equal on every machine.
        case software

        /// `FOLIO_RASTERISER` (`any` or `software`); `any` when unset or unknown.
        public static var fromEnvironment: Rasteriser {
            ProcessInfo.processInfo.environment["FOLIO_RASTERISER"].flatMap(Rasteriser.init(rawValue:)) ?? .any
        }
    }

    /// Makes a context on `rasteriser` and makes it current on this thread.
    public static func make(rasteriser: Rasteriser = .fromEnvironment) throws -> HeadlessContext {
        var attempts: [String] = []
        if let query = eglProc("eglQueryDevicesEXT", PFNEGLQUERYDEVICESEXTPROC.self) {
            var count: EGLint = 0
            if query(0, nil, &count) == EGLBoolean(EGL_TRUE), count > 0 {
                var devices = [EGLDeviceEXT?](repeating: nil, count: Int(count))
                _ = query(count, &devices, &count)
                for (i, device) in devices.prefix(Int(count)).enumerated() {
                    if rasteriser == .software, !isSoftware(device) {
                        attempts.append("EGL device \(i): not Mesa's software device")
                        continue
                    }
                    do {
                        return try make(platform: EGLenum(EGL_PLATFORM_DEVICE_EXT), native: device, name: "EGL device \(i)",
                                        rasteriser: rasteriser)
                    } catch let e as AttemptError {
                        attempts.append(e.message)
                    }
                }
            } else {
                attempts.append("EGL device platform: no devices (eglQueryDevicesEXT: \(eglErrorName()))")
            }
        } else {
            attempts.append("EGL device platform: eglQueryDevicesEXT is not available")
        }
        do {
            prepareEnvironment(for: rasteriser)
            return try make(platform: EGLenum(EGL_PLATFORM_SURFACELESS_MESA), native: nil, name: "Mesa surfaceless",
                            rasteriser: rasteriser)
        } catch let e as AttemptError {
            attempts.append(e.message)
        }
        throw HeadlessError(attempts: attempts)
    }

    /// Tells Mesa what `rasteriser` allows: its surfaceless platform picks a GPU driver where
    /// one loads unless told otherwise. Call it before starting other threads (a command that
    /// loads its library while the context is made): `setenv` races with their `getenv`.
    public static func prepareEnvironment(for rasteriser: Rasteriser = .fromEnvironment) {
        guard rasteriser == .software, ProcessInfo.processInfo.environment["LIBGL_ALWAYS_SOFTWARE"] != "1" else { return }
        setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1)
    }

    /// Whether an EGL device is Mesa's software one (EGL_MESA_device_software).
    private static func isSoftware(_ device: EGLDeviceEXT?) -> Bool {
        guard let queryString = eglProc("eglQueryDeviceStringEXT", PFNEGLQUERYDEVICESTRINGEXTPROC.self),
              let extensions = queryString(device, EGL_EXTENSIONS) else { return false }
        return String(cString: extensions).split(separator: " ").contains("EGL_MESA_device_software")
    }

    private struct AttemptError: Error { var message: String }

    private static func make(platform: EGLenum, native: UnsafeMutableRawPointer?, name: String,
                             rasteriser: Rasteriser) throws -> HeadlessContext {
        guard let display = eglGetPlatformDisplay(platform, native, nil) else {
            throw AttemptError(message: "\(name): eglGetPlatformDisplay failed (\(eglErrorName()))")
        }
        var major: EGLint = 0, minor: EGLint = 0
        guard eglInitialize(display, &major, &minor) == EGLBoolean(EGL_TRUE) else {
            throw AttemptError(message: "\(name): eglInitialize failed (\(eglErrorName()))")
        }
        func fail(_ what: String) -> AttemptError {
            let e = AttemptError(message: "\(name): \(what) (\(eglErrorName()))")
            eglTerminate(display)
            return e
        }
        guard eglBindAPI(EGLenum(EGL_OPENGL_API)) == EGLBoolean(EGL_TRUE) else { throw fail("eglBindAPI(OpenGL) failed") }
        let configAttribs: [EGLint] = [EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE]
        var config: EGLConfig?
        var numConfigs: EGLint = 0
        if eglChooseConfig(display, configAttribs, &config, 1, &numConfigs) != EGLBoolean(EGL_TRUE) || numConfigs == 0 {
            // Surfaceless displays may offer no pbuffer configs; any GL config will do without a surface.
            let any: [EGLint] = [EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE]
            guard eglChooseConfig(display, any, &config, 1, &numConfigs) == EGLBoolean(EGL_TRUE), numConfigs > 0 else {
                throw fail("no OpenGL-capable EGL config")
            }
        }
        let contextAttribs: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE]
        guard let context = eglCreateContext(display, config, nil, contextAttribs) else {
            throw fail("cannot create a GL 3.3 core context")
        }
        guard eglMakeCurrent(display, nil, nil, context) == EGLBoolean(EGL_TRUE) else {
            eglDestroyContext(display, context)
            throw fail("cannot make the context current without a surface")
        }
        let renderer = GLInfo.renderer
        if rasteriser == .software, !["llvmpipe", "softpipe"].contains(where: renderer.contains) {
            eglMakeCurrent(display, nil, nil, nil)
            eglDestroyContext(display, context)
            throw fail("runs on \(renderer), not Mesa's software rasteriser")
        }
        return HeadlessContext(display: display, context: context, description: "\(name), EGL \(major).\(minor), \(renderer)")
    }

    /// Makes the context current on the calling thread (it may be current on one thread at a time).
    public func makeCurrent() {
        eglMakeCurrent(display, nil, nil, context)
        ledger.madeCurrent()
    }

    /// Detaches the context from the calling thread, so another thread may take it.
    public func releaseCurrent() {
        eglMakeCurrent(display, nil, nil, nil)
        if GLContextLedger.current === ledger { GLContextLedger.releasedCurrent() }
    }

    /// Releases the context; call once, on the thread that made it. The display stays
    /// initialised: every context of a process shares it, and terminating it would pull the
    /// others from under their owners (a test process, an embedding program with two).
    public func destroy() {
        ledger.end()
        eglMakeCurrent(display, nil, nil, nil)
        eglDestroyContext(display, context)
    }

    private static func eglProc<T>(_ name: String, _ type: T.Type) -> T? {
        guard let p = eglGetProcAddress(name) else { return nil }
        return unsafeBitCast(p, to: type)
    }

    private static func eglErrorName() -> String {
        let code = eglGetError()
        let names: [EGLint: String] = [
            EGL_SUCCESS: "EGL_SUCCESS", EGL_NOT_INITIALIZED: "EGL_NOT_INITIALIZED", EGL_BAD_ACCESS: "EGL_BAD_ACCESS",
            EGL_BAD_ALLOC: "EGL_BAD_ALLOC", EGL_BAD_ATTRIBUTE: "EGL_BAD_ATTRIBUTE", EGL_BAD_CONFIG: "EGL_BAD_CONFIG",
            EGL_BAD_CONTEXT: "EGL_BAD_CONTEXT", EGL_BAD_DISPLAY: "EGL_BAD_DISPLAY", EGL_BAD_MATCH: "EGL_BAD_MATCH",
            EGL_BAD_PARAMETER: "EGL_BAD_PARAMETER", EGL_BAD_SURFACE: "EGL_BAD_SURFACE",
        ]
        return names[code] ?? "EGL error 0x\(String(code, radix: 16))"
    }
}
