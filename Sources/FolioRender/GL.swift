import COpenGL

// GL's macros import as Int32; the entry points want GLenum / GLint. Convert once, here.
@inline(__always) func E(_ v: Int32) -> GLenum { GLenum(v) }
@inline(__always) func I(_ v: Int32) -> GLint { GLint(v) }

/// Facts about the current context.
public enum GLInfo {
    public static var renderer: String { string(GL_RENDERER) }

    /// True on Mesa's CPU rasterisers, where fill rate is precious and MSAA is off by default.
    public static var isSoftware: Bool {
        let r = renderer.lowercased()
        return r.contains("llvmpipe") || r.contains("softpipe") || r.contains("swrast")
    }

    public static var maxTextureSize: Int { Int(integer(GL_MAX_TEXTURE_SIZE)) }
    public static var maxSamples: Int { Int(integer(GL_MAX_SAMPLES)) }

    /// Largest anisotropy the sampler offers (1 where it has none: core since GL 4.6, an
    /// extension before, asked only where the extension is there so no GL error is raised).
    public static var maxAnisotropy: Float {
        guard hasExtension("GL_EXT_texture_filter_anisotropic") || hasExtension("GL_ARB_texture_filter_anisotropic") else { return 1 }
        var v: GLfloat = 1
        glGetFloatv(E(GL_MAX_TEXTURE_MAX_ANISOTROPY), &v)
        return max(v, 1)
    }

    /// Whether the current context offers the extension `name`.
    static func hasExtension(_ name: String) -> Bool {
        let count = integer(GL_NUM_EXTENSIONS)
        return (0..<GLuint(max(count, 0))).contains { i in
            glGetStringi(E(GL_EXTENSIONS), i).map { String(cString: $0) == name } ?? false
        }
    }

    static func integer(_ name: Int32) -> GLint {
        var v: GLint = 0
        glGetIntegerv(E(name), &v)
        return v
    }

    static func string(_ name: Int32) -> String {
        guard let p = glGetString(E(name)) else { return "unknown" }
        return String(cString: p)
    }
}

/// A GL failure worded for a person.
public enum RenderError: Error, CustomStringConvertible, Equatable {
    /// `file` is relative to the package (`Shaders/page.frag`), `line` in that file.
    case shaderCompile(file: String, line: Int?, log: String)
    case programLink(files: [String], log: String)
    case shaderMissing(path: String)
    case shadersFolderNotFound(tried: String)
    case framebufferIncomplete(status: UInt32)
    case sizeTooLarge(width: Int, height: Int, max: Int)

    public var description: String {
        switch self {
        case let .shaderCompile(file, line, log):
            return "\(file):\(line.map(String.init) ?? "?"): \(log)"
        case let .programLink(files, log):
            return "\(files.joined(separator: " + ")): link error: \(log)"
        case let .shaderMissing(path):
            return "\(path): shader file not found"
        case let .shadersFolderNotFound(tried):
            return "cannot find the Shaders/ folder (\(tried)); pass --shaders DIR or set FOLIO_SHADERS"
        case let .framebufferIncomplete(status):
            return "framebuffer incomplete (status 0x\(String(status, radix: 16)))"
        case let .sizeTooLarge(w, h, max):
            return "\(w)×\(h) is larger than this GPU allows (\(max) pixels a side)"
        }
    }
}
