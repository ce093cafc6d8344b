import Dispatch
import FolioBook
import Foundation

/// Streams frames into ffmpeg's standard input as raw RGBA (no image files between), which
/// encodes them to a video whose format follows the file's extension: .mp4/.m4v/.mov/.mkv
/// H.264, .webm VP9, .gif with a palette made from the frames themselves, anything else
/// ffmpeg's default for it. A writer thread feeds the pipe from a queue of at most `depth`
/// frames, so the render loop waits only when ffmpeg falls that far behind.
///
/// It does not decide whether the file may be replaced (ffmpeg is told to overwrite) nor find
/// ffmpeg: the caller does both.
final class VideoPipe: @unchecked Sendable {
    // @unchecked: `broken` is guarded by `lock`; the process and handles are used by the
    // writer queue and, after it is drained, by `finish`.
    private let process = Process()
    private let input: FileHandle
    private let errors: URL
    private let queue = DispatchQueue(label: "folio.video")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var broken = false
    let path: String

    init(ffmpeg: String, path: String, width: Int, height: Int, fps: Double, depth: Int = 4) throws {
        self.path = path
        slots = DispatchSemaphore(value: max(depth, 1))
        // A write to a pipe whose reader has exited must fail with EPIPE, not kill this process.
        signal(SIGPIPE, SIG_IGN)
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("folio-ffmpeg-\(getpid())-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let pipe = Pipe()
        input = pipe.fileHandleForWriting
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y",
                             "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(width)x\(height)", "-framerate", "\(fps)", "-i", "-"]
            + Self.encoding(for: path) + [path]
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: errors)
            throw Failure(.unavailable, "cannot start ffmpeg: \(error.localizedDescription)")
        }
        // The read end belongs to ffmpeg now; keeping it open here would hide its exit.
        try? pipe.fileHandleForReading.close()
    }

    /// Filters and codec options by the file's extension. Rows arrive bottom to top, as GL
    /// reads them, hence `vflip`; H.264 and VP9 in 4:2:0 need even sides (pad adds a row or
    /// column), and 4:2:0 is what every player takes.
    static func encoding(for path: String) -> [String] {
        let yuv = "vflip,pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p"
        switch (path as NSString).pathExtension.lowercased() {
        case "mp4", "m4v", "mov":
            return ["-vf", yuv, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-movflags", "+faststart"]
        case "mkv":
            return ["-vf", yuv, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18"]
        case "webm":
            return ["-vf", yuv, "-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1"]
        case "gif":
            return ["-vf", "vflip,split[a][b];[a]palettegen[p];[b][p]paletteuse"]
        default:
            return ["-vf", yuv]
        }
    }

    /// Whether ffmpeg has stopped taking frames (it failed; `finish` says why).
    var failed: Bool { lock.withLock { broken } }

    /// Queues a frame of the size given at the start, rows bottom to top.
    func send(_ image: RGBAImage) {
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard !failed else { return }
            let ok = image.pixels.withUnsafeBytes { writeAll(input.fileDescriptor, $0) }
            if !ok { lock.withLock { broken = true } }
        }
    }

    /// Ends the stream and waits for ffmpeg; throws its error in one line.
    func finish() throws {
        queue.sync {}
        try? input.close()
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: errors) }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            var why = Self.summary(of: log) ?? "exit status \(process.terminationStatus)"
            if why.hasPrefix(path + ": ") { why.removeFirst(path.count + 2) }
            throw Failure(.cannotCreate, "ffmpeg could not write \(path): \(why)")
        }
    }

    /// The line of ffmpeg's error output that says most: the last one that is not a generic
    /// closing line, without the "[component @ 0x…]" prefix.
    static func summary(of log: String) -> String? {
        let lines = log.split(whereSeparator: \.isNewline).map {
            $0.replacing(#/^\[[^\]]* @ 0x[0-9a-f]+\] /#, with: "").trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let generic = { (line: String) in
            line == "Conversion failed!" || line.hasPrefix("Error opening output file") || line.hasSuffix(": Invalid argument")
        }
        return lines.last { !generic($0) } ?? lines.last
    }
}

/// Writes all of `bytes` to `fd`, resuming after interruptions; false on any error (EPIPE
/// when the reader has gone).
private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += n
    }
    return true
}
