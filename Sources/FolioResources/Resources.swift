import Foundation

/// Finds Folio's own data folders (`Shaders/`, `Textures/`) at run time, with no path compiled
/// in (docs/install.md), in this order:
/// 1. the explicit path (a command-line option), then the environment variable;
/// 2. `share/folio/` beside the executable's folder (an installed prefix: `bin/../share/folio`),
///    then the executable's own folder (an unpacked archive);
/// 3. `folio/` in the XDG data directories: `$XDG_DATA_HOME` (default `~/.local/share`), then
///    each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`);
/// 4. the source tree the executable was built in: the nearest folder above its real path that
///    holds `Package.swift` and the folder (`swift build` puts it in `.build/` there).
///
/// It does not check what the folder holds: a folder that exists is taken. `Bundle.module` is
/// not used because it breaks when a built binary is moved.
public enum Resources {
    /// The folder called `folder`, or nil. An explicit path or a set variable that is not a
    /// folder gives nil rather than a search elsewhere: what the user named is what is used.
    public static func locate(_ folder: String, explicit: String? = nil, environment variable: String) -> String? {
        if let explicit { return isDirectory(explicit) ? explicit : nil }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[variable], !path.isEmpty { return isDirectory(path) ? path : nil }
        return candidates(folder, executable: executablePath, environment: environment).first(where: isDirectory)
    }

    /// Where steps 2 to 4 look for `folder`, first to last, for an executable at `executable`
    /// (a real path) with `environment`.
    public static func candidates(_ folder: String, executable: String, environment: [String: String]) -> [String] {
        let binDir = URL(fileURLWithPath: executable).deletingLastPathComponent()
        var places = [binDir.deletingLastPathComponent().appendingPathComponent("share/folio"), binDir]
        places += dataDirectories(environment).map { URL(fileURLWithPath: $0).appendingPathComponent("folio") }
        var paths = places.map { $0.appendingPathComponent(folder).path }
        if let tree = sourceTree(holding: folder, above: binDir) { paths.append(tree) }
        return paths
    }

    /// The XDG base directories for data, most important first.
    public static func dataDirectories(_ environment: [String: String]) -> [String] {
        // The specification: an unset or empty variable takes its default; relative entries are ignored.
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = value("XDG_DATA_HOME") ?? value("HOME").map { $0 + "/.local/share" }
        let dirs = (value("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        return ([home].compactMap { $0 } + dirs).filter { $0.hasPrefix("/") }
    }

    /// `folder` in the nearest folder at or above `start` that also holds Package.swift.
    private static func sourceTree(holding folder: String, above start: URL) -> String? {
        var dir = start.standardizedFileURL
        while true {
            let candidate = dir.appendingPathComponent(folder).path
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path), isDirectory(candidate) {
                return candidate
            }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { return nil }
            dir = parent
        }
    }

    /// This process's executable, symbolic links resolved (so a link in a `bin/` elsewhere
    /// finds the files of the real binary's prefix).
    public static var executablePath: String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        let path = Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// In words, where `locate` looks after the environment variable (for error messages).
    public static let searchOrder = "share/folio beside the executable's folder, the executable's folder, "
        + "folio/ in the XDG data directories, the source tree it was built in"

    /// The bundled sample library's folder.
    public static func textures(explicit: String? = nil) -> String? {
        locate("Textures", explicit: explicit, environment: "FOLIO_TEXTURES")
    }
}
