import COpenGL
import Synchronization

/// GL errors made loud. GL records an error and carries on, so a wrong call shows up frames
/// later as a wrong picture, or never. In debug builds (and so in tests) `check` stops the
/// program at the first frame that raised one, saying which error and, where the context has
/// KHR_debug, the driver's own words about the call that raised it. Release builds skip the
/// check: reading errors back stalls a GPU's pipeline.
///
/// Does not: check anything in release builds; report performance or other non-error messages.
public enum GLErrors {
    /// Messages of the driver's debug output (KHR_debug) since the last `drain()`.
    private static let messages = Mutex<[String]>([])

    /// Asks the driver to describe its errors as they happen, where KHR_debug is offered
    /// (llvmpipe and every current GPU driver). Debug builds only; needs a current context.
    public static func enableDebugOutput() {
        #if DEBUG
        guard GLInfo.hasExtension("GL_KHR_debug") else { return }
        glEnable(E(GL_DEBUG_OUTPUT))
        // Synchronous: the message names the call while it is still on the stack.
        glEnable(E(GL_DEBUG_OUTPUT_SYNCHRONOUS))
        glDebugMessageCallback({ _, type, _, _, length, message, _ in
            guard type == E(GL_DEBUG_TYPE_ERROR), let message else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: message, count: Int(length)), as: UTF8.self)
            GLErrors.messages.withLock { $0.append(text) }
        }, nil)
        #endif
    }

    /// The errors raised since the last call (GL's names and the driver's messages); none
    /// when all went well. Clears them.
    public static func drain() -> [String] {
        var codes: [String] = []
        var code = glGetError()
        // GL keeps one flag per kind of error; a lost context can keep answering, so stop early.
        while code != E(GL_NO_ERROR) && codes.count < 8 {
            codes.append(name(of: code))
            code = glGetError()
        }
        let said = messages.withLock { m in defer { m = [] }; return m }
        return codes.isEmpty ? [] : codes + said
    }

    /// In debug builds, stops with the errors raised since the last check, naming `place`.
    @inline(__always)
    public static func check(_ place: @autoclosure () -> String) {
        #if DEBUG
        let errors = drain()
        if !errors.isEmpty { fatalError("GL error after \(place()): \(errors.joined(separator: "; "))") }
        #endif
    }

    static func name(of code: GLenum) -> String {
        switch Int32(code) {
        case GL_INVALID_ENUM: "GL_INVALID_ENUM"
        case GL_INVALID_VALUE: "GL_INVALID_VALUE"
        case GL_INVALID_OPERATION: "GL_INVALID_OPERATION"
        case GL_INVALID_FRAMEBUFFER_OPERATION: "GL_INVALID_FRAMEBUFFER_OPERATION"
        case GL_OUT_OF_MEMORY: "GL_OUT_OF_MEMORY"
        default: "GL error 0x\(String(code, radix: 16))"
        }
    }

}
