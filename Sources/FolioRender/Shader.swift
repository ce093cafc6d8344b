import COpenGL
import FolioResources
import Foundation

/// A linked GLSL program built from files in `Shaders/`.
public struct Program {
    let name: GLuint
    private var locations: [String: GLint] = [:]
    private let owner: GLOwner

    /// Compiles and links `vertex` and `fragment` (file names inside `folder`), the fragment
    /// stage with `defines` (`#define NAME 1` each: a variant of the same file). A compile error
    /// reports `Shaders/<file>:<line>: <driver message>`.
    public init(folder: String, vertex: String, fragment: String, bindings: [String: Int32] = [:],
                defines: [String] = []) throws {
        let vs = try Self.compile(folder: folder, file: vertex, stage: GL_VERTEX_SHADER)
        defer { glDeleteShader(vs) }
        let fs = try Self.compile(folder: folder, file: fragment, stage: GL_FRAGMENT_SHADER, defines: defines)
        defer { glDeleteShader(fs) }
        try self.init(linking: (vs, vertex), (fs, fragment), bindings: bindings)
    }

    /// Links compiled stages (`file`: its name, for the error), which stay the caller's.
    init(linking vertex: (shader: GLuint, file: String), _ fragment: (shader: GLuint, file: String),
         bindings: [String: Int32] = [:]) throws {
        let p = glCreateProgram()
        glAttachShader(p, vertex.shader)
        glAttachShader(p, fragment.shader)
        for (attribute, index) in bindings { glBindAttribLocation(p, GLuint(index), attribute) }
        glLinkProgram(p)
        glDetachShader(p, vertex.shader)
        glDetachShader(p, fragment.shader)
        var ok: GLint = 0
        glGetProgramiv(p, E(GL_LINK_STATUS), &ok)
        guard ok != 0 else {
            let log = Self.log(p, glGetProgramiv, glGetProgramInfoLog)
            glDeleteProgram(p)
            throw RenderError.programLink(files: ["Shaders/\(vertex.file)", "Shaders/\(fragment.file)"], log: log)
        }
        name = p
        owner = GLOwner("program")
        var count: GLint = 0
        glGetProgramiv(p, E(GL_ACTIVE_UNIFORMS), &count)
        for i in 0..<GLuint(count) {
            var buf = [GLchar](repeating: 0, count: 256)
            var len: GLsizei = 0, size: GLint = 0
            var type: GLenum = 0
            glGetActiveUniform(p, i, 256, &len, &size, &type, &buf)
            let uniform = String(cString: buf).replacingOccurrences(of: "[0]", with: "")
            locations[uniform] = glGetUniformLocation(p, buf)
        }
    }

    /// Frees the program; the context must be current.
    public func destroy() {
        owner.release()
        glDeleteProgram(name)
    }

    public func use() { glUseProgram(name) }

    /// An active uniform, found by name once (when a pass's uniforms are gathered), set by
    /// location on every draw.
    public func uniform(_ name: String) -> Uniform { Uniform(location: locations[name] ?? -1) }

    static func compile(folder: String, file: String, stage: Int32, defines: [String] = []) throws -> GLuint {
        let path = (folder as NSString).appendingPathComponent(file)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RenderError.shaderMissing(path: "Shaders/\(file)")
        }
        var source = try expandIncludes(text, folder: folder)
        // After the #version line; #line keeps the reported line numbers the file's.
        if !defines.isEmpty, let end = source.firstIndex(of: "\n") {
            source.insert(contentsOf: defines.map { "\n#define \($0) 1" }.joined() + "\n#line 2", at: end)
        }
        return try compile(source: source, file: file, stage: stage)
    }

    /// `source` with each `#include "name"` line replaced by the file `name` of `folder` (GLSL has
    /// no includes: what several stages share, such as the frame's uniform block, is written
    /// once); `#line` then keeps the reported line numbers the including file's. One level.
    static func expandIncludes(_ source: String, folder: String) throws -> String {
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (i, line) in lines.enumerated() where line.hasPrefix("#include \"") {
            let name = String(line.dropFirst("#include \"".count).prefix { $0 != "\"" })
            guard let included = try? String(contentsOfFile: (folder as NSString).appendingPathComponent(name), encoding: .utf8) else {
                throw RenderError.shaderMissing(path: "Shaders/\(name)")
            }
            lines[i] = included + "\n#line \(i + 2)"
        }
        return lines.joined(separator: "\n")
    }

    static func compile(source: String, file: String, stage: Int32) throws -> GLuint {
        let s = glCreateShader(E(stage))
        source.withCString { ptr in
            var p: UnsafePointer<GLchar>? = ptr
            glShaderSource(s, 1, &p, nil)
        }
        glCompileShader(s)
        var ok: GLint = 0
        glGetShaderiv(s, E(GL_COMPILE_STATUS), &ok)
        guard ok != 0 else {
            let log = Self.log(s, glGetShaderiv, glGetShaderInfoLog)
            glDeleteShader(s)
            let (line, message) = ProgramLog.parse(log)
            throw RenderError.shaderCompile(file: "Shaders/\(file)", line: line, log: message)
        }
        return s
    }

    private static func log(_ object: GLuint,
                            _ getiv: (GLuint, GLenum, UnsafeMutablePointer<GLint>?) -> Void,
                            _ getLog: (GLuint, GLsizei, UnsafeMutablePointer<GLsizei>?, UnsafeMutablePointer<GLchar>?) -> Void) -> String {
        var length: GLint = 0
        getiv(object, E(GL_INFO_LOG_LENGTH), &length)
        var buf = [GLchar](repeating: 0, count: Int(max(length, 1)) + 1)
        getLog(object, GLsizei(buf.count), nil, &buf)
        return String(cString: buf).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A uniform's location in one program: −1 (which GL ignores) when the compiler removed it.
/// Set it while its program is in use.
public struct Uniform: Sendable {
    let location: GLint

    public func set(_ v: Float) { glUniform1f(location, v) }
    public func set(_ v: Int32) { glUniform1i(location, v) }
    public func set(_ x: Float, _ y: Float) { glUniform2f(location, x, y) }
    public func set(_ x: Float, _ y: Float, _ z: Float) { glUniform3f(location, x, y, z) }
    public func set(_ x: Float, _ y: Float, _ z: Float, _ w: Float) { glUniform4f(location, x, y, z, w) }
    public func set(matrix m: [Float]) { glUniformMatrix4fv(location, 1, GLboolean(GL_FALSE), m) }
}

/// Driver compile logs.
public enum ProgramLog {
    /// The first error's line and message. Mesa writes `0:42(10): error: …`, NVIDIA `0(42) : error C0000: …`.
    public static func parse(_ log: String) -> (Int?, String) {
        let lines = log.split(separator: "\n").map(String.init)
        let first = lines.first { $0.contains("error") } ?? lines.first ?? log
        let patterns = [#"^\s*\d+:(\d+)\(\d+\):\s*(.*)$"#, #"^\s*\d+\((\d+)\)\s*:\s*(.*)$"#, #"^\s*ERROR:\s*\d+:(\d+):\s*(.*)$"#]
        for pattern in patterns {
            guard let re = try? NSRegularExpression(pattern: pattern),
                  let m = re.firstMatch(in: first, range: NSRange(first.startIndex..., in: first)),
                  let lineRange = Range(m.range(at: 1), in: first), let msgRange = Range(m.range(at: 2), in: first)
            else { continue }
            return (Int(first[lineRange]), String(first[msgRange]))
        }
        return (nil, first.trimmingCharacters(in: .whitespaces))
    }
}

/// Where the `Shaders/` folder is: `--shaders DIR`, then `FOLIO_SHADERS`, then the places of
/// `Resources.locate` (an installed prefix, the XDG data directories, the source tree).
public enum ShaderFolder {
    public static func locate(explicit: String? = nil) throws -> String {
        if let dir = Resources.locate("Shaders", explicit: explicit, environment: "FOLIO_SHADERS") { return dir }
        throw RenderError.shadersFolderNotFound(tried: explicit.map { "--shaders \($0)" } ?? "FOLIO_SHADERS, " + Resources.searchOrder)
    }

    /// Every shader file in the folder (for tests that compile them all).
    public static func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".vert") || $0.hasSuffix(".frag") }.sorted()
    }

    /// Compiles one file alone (stage from its extension); throws the file-and-line error.
    public static func check(folder: String, file: String) throws {
        let stage = file.hasSuffix(".vert") ? GL_VERTEX_SHADER : GL_FRAGMENT_SHADER
        glDeleteShader(try Program.compile(folder: folder, file: file, stage: stage))
    }
}
