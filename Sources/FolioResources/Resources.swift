import Foundation

/// Finds Folio's own folders (`Shaders/`, `Textures/`): an explicit path, then an environment
/// variable, then beside the executable (and one level up), then the package root of this
/// source file. `Bundle.module` is not used because it breaks when a built binary is moved.
public enum Resources {
    public static func locate(_ folder: String, explicit: String? = nil, environment variable: String) -> String? {
        let fm = FileManager.default
        func isDir(_ p: String) -> Bool {
            var d: ObjCBool = false
            return fm.fileExists(atPath: p, isDirectory: &d) && d.boolValue
        }
        if let explicit { return isDir(explicit) ? explicit : nil }
        if let env = ProcessInfo.processInfo.environment[variable], !env.isEmpty { return isDir(env) ? env : nil }
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [exe.appendingPathComponent(folder).path, exe.deletingLastPathComponent().appendingPathComponent(folder).path]
        // Sources/FolioResources/Resources.swift → package root
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(folder).path)
        return candidates.first(where: isDir)
    }

    /// The bundled sample library's folder.
    public static func textures(explicit: String? = nil) -> String? {
        locate("Textures", explicit: explicit, environment: "FOLIO_TEXTURES")
    }
}
