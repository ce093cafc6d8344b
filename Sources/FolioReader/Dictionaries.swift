import Foundation

/// A word looked up in the dictionaries installed, offline, through the tools that read them:
/// `sdcv` with StarDict dictionaries first, else `dict` asking the local `dictd` server only
/// (never the network servers its configuration may list). Each tool runs as a program of its
/// own, given the word as one argument, with a time and an output bound. Does not: install
/// dictionaries, or show the entry.
public struct Dictionaries: Sendable {
    /// Folders the tools are looked for in (`PATH`'s).
    public var folders: [String]
    /// Seconds a tool may take; bytes of its answer kept.
    public var timeout = 5.0
    public var outputLimit = 64 << 10

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// What a look-up found.
    public enum Answer: Sendable, Equatable {
        /// The entries found, as the tool wrote them.
        case entry(String)
        /// The dictionaries have no entry for the word.
        case notFound(String)
        /// No dictionary can be asked: what to install.
        case noDictionary(String)
    }

    public static let installHint = "no dictionary installed: install sdcv and a StarDict dictionary, or dictd with dict-gcide (apt install dictd dict dict-gcide)"

    /// The word in `selection` to look up: its first word, without the punctuation about it; nil
    /// when there is none (or it is longer than any word).
    public static func word(in selection: String) -> String? {
        guard let first = selection.split(whereSeparator: { $0.isWhitespace }).first else { return nil }
        let word = first.drop { !$0.isLetter && !$0.isNumber }.reversed().drop { !$0.isLetter && !$0.isNumber }.reversed()
        return word.isEmpty || word.count > 64 ? nil : String(word)
    }

    /// Looks `word` up: in sdcv's dictionaries, else in the local dictd server's.
    public func lookUp(_ word: String) -> Answer {
        var asked = false
        if let sdcv = tool("sdcv"), let listed = run(sdcv, ["-l", "-n"]), listed.output.split(separator: "\n").count > 1 {
            asked = true
            if let found = run(sdcv, ["-n", "--utf8-output", "--utf8-input", "-e", word]), found.status == 0,
               !found.output.hasPrefix("Nothing similar to"), !found.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                return .entry(found.output)
            }
        }
        if let dict = tool("dict"), let found = run(dict, ["-h", "localhost", word]) {
            // dict's statuses: 0 found, 20 and 21 no (exact) match; others: no server answered.
            switch found.status {
            case 0: return .entry(found.output)
            case 20, 21: asked = true
            default: break
            }
        }
        return asked ? .notFound("no entry for “\(word)” in the dictionaries installed") : .noDictionary(Self.installHint)
    }

    /// The tool `name` in `folders`, when it is there to run.
    private func tool(_ name: String) -> String? {
        folders.lazy.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `path` with `arguments`, no input; its status and its output (at most
    /// `outputLimit` bytes), nil when it cannot start or runs past `timeout` (then it is ended).
    private func run(_ path: String, _ arguments: [String]) -> (status: Int32, output: String)? {
        let process = Process(), out = Pipe()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let limit = outputLimit
        let collected = OutputBox()
        // Read on a thread of its own: a full pipe never stalls the tool, and the read ends at its exit.
        let reader = Thread {
            let handle = out.fileHandleForReading
            while let chunk = try? handle.read(upToCount: 16 << 10), !chunk.isEmpty {
                collected.append(chunk, limit: limit)
            }
            collected.finish()
        }
        do { try process.run() } catch { return nil }
        reader.start()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            // SIGKILL: a tool started by a process that ignores SIGTERM inherits that.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        try? out.fileHandleForWriting.close()
        guard let data = collected.wait(until: deadline) else { return nil }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// The bytes a tool wrote, gathered by the reading thread.
private final class OutputBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data(), done = false

    func append(_ chunk: Data, limit: Int) {
        condition.withLock { if data.count < limit { data.append(chunk.prefix(limit - data.count)) } }
    }

    func finish() {
        condition.withLock {
            done = true
            condition.broadcast()
        }
    }

    /// The bytes once the tool's output ended; nil when it does not end by `deadline`.
    func wait(until deadline: Date) -> Data? {
        condition.withLock {
            while !done { guard condition.wait(until: deadline) else { return nil } }
            return data
        }
    }
}
