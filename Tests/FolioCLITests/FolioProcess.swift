import Foundation

/// Runs the built `folio` executable (and the tools around it) as a user would, never waiting
/// longer than a limit.
enum FolioProcess {
    /// The `folio` executable beside the test bundle: `swift test` and `make test`
    /// (`swift build --build-tests`) build it with the tests. Nil when it was not built.
    static let binary: URL? = {
        let beside = Bundle.main.executableURL?.deletingLastPathComponent()
        let candidates = [beside, packageRoot.appendingPathComponent(".build/debug")].compactMap { $0?.appendingPathComponent("folio") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether a command is on the PATH.
    static func available(_ tool: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// The package root (for the files the tests check, such as `data/folio.desktop`).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `executable` with `arguments` (in `directory` when given), its output going to
    /// files (no pipe can fill up and stall it); after `timeout` seconds it is terminated, then killed.
    /// `stdoutPath`: where standard output goes instead (a device such as /dev/full).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    directory: String? = nil, stdoutPath: String? = nil, timeout: Double) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout"), err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Pixels are compared against references made on Mesa's software rasteriser.
        process.environment = (environment ?? ProcessInfo.processInfo.environment)
            .merging(["FOLIO_RASTERISER": "software"]) { own, _ in own }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try stdoutPath.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let timedOut = !waitForExit(process, seconds: timeout)
        if timedOut {
            process.terminate()
            if !waitForExit(process, seconds: 3) { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        return Result(status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8), timedOut: timedOut)
    }

    private static func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        return !process.isRunning
    }
}
