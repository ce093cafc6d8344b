import Dispatch
import FolioBook
import FolioRender
import Foundation

/// Streams frames into ffmpeg's standard input as raw BGR, rows bottom to top as read back
/// (no image files between; ffmpeg turns BGR into 4:2:0 three times as fast as RGBA), which
/// encodes them to a video whose format follows the file's extension: .mp4/.m4v/.mov/.mkv
/// H.264, .webm VP9, .gif with a palette made from the frames themselves (one for the whole
/// video while its frames fit in `gifBuffer`, which ffmpeg holds until the palette is made;
/// else one per frame), anything else ffmpeg's default for it. A writer thread feeds the pipe
/// from a queue of at most `depth` frames, so the render loop waits only when ffmpeg falls
/// that far behind. (Converting to YUV in a shader instead was tried: on a CPU rasteriser it
/// costs three times ffmpeg's conversion; docs/engineering-notes.md.)
///
/// When the renderer runs on the CPU (`sharedCPU`), every cycle the encoder takes is one the
/// renderer loses, so H.264 uses x264's cheapest preset there (files about 2.5 times as large);
/// with a GPU drawing, a slower preset that makes smaller files costs the frame rate nothing.
///
/// It does not decide whether the file may be replaced (ffmpeg is told to overwrite the path it
/// is given: a temporary file the caller renames into place) nor find ffmpeg: the caller does both.
final class VideoPipe: @unchecked Sendable {
    // @unchecked: `broken` is guarded by `lock`; the process and handles are used by the
    // writer queue and, after it is drained, by `finish`.
    private let process = Process()
    private let stdin: FileHandle
    private let errors: URL
    private let queue = DispatchQueue(label: "folio.video")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var broken = false
    /// The file ffmpeg writes, and the name messages give it (the file it will become).
    let path: String, name: String

    /// Most bytes of frames ffmpeg may hold for a GIF's palette.
    static let gifBuffer = 256 << 20

    /// `frames`: how many will be sent.
    init(ffmpeg: String, path: String, name: String? = nil, width: Int, height: Int, fps: Double, frames: Int, sharedCPU: Bool, depth: Int = 4) throws {
        (self.path, self.name) = (path, name ?? path)
        slots = DispatchSemaphore(value: max(depth, 1))
        // A write to a pipe whose reader has exited must fail with EPIPE, not kill this process.
        signal(SIGPIPE, SIG_IGN)
        let temporary = FileManager.default.temporaryDirectory
        OutputFile.removeLeftovers(in: temporary.path, prefix: "folio-ffmpeg-")
        errors = temporary.appendingPathComponent("folio-ffmpeg-\(getpid())-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let pipe = Pipe()
        stdin = pipe.fileHandleForWriting
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24",
                             "-s", "\(width)x\(height)", "-framerate", "\(fps)", "-i", "-"]
            + Self.encoding(for: path, sharedCPU: sharedCPU, bytes: frames * width * height * 3) + [path]
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
        // A pipe of 1 MiB rather than 64 KiB: a frame crosses in a few writes, not dozens of
        // wake-ups of each side (F_SETPIPE_SZ; the kernel may refuse, then the default stays).
        _ = fcntl(stdin.fileDescriptor, 1031, 1 << 20)
    }

    /// Filters and codec options by the file's extension. Rows arrive bottom to top, as GL
    /// reads them, hence `vflip`; 4:2:0 needs even sides (pad adds a row or column) and is what
    /// every player takes; its colours are BT.601 limited range (ffmpeg's conversion), tagged so.
    static func encoding(for path: String, sharedCPU: Bool, bytes: Int) -> [String] {
        let yuv = ["-vf", "vflip,pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p", "-colorspace", "smpte170m", "-color_range", "tv"]
        let h264 = yuv + ["-c:v", "libx264", "-preset", sharedCPU ? "ultrafast" : "veryfast", "-crf", "18"]
        switch (path as NSString).pathExtension.lowercased() {
        case "mp4", "m4v", "mov":
            return h264 + ["-movflags", "+faststart"]
        case "mkv":
            return h264
        case "webm":
            return yuv + ["-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1"]
        case "gif" where bytes <= gifBuffer:
            return ["-vf", "vflip,split[a][b];[a]palettegen[p];[b][p]paletteuse"]
        case "gif":
            return ["-vf", "vflip,split[a][b];[a]palettegen=stats_mode=single[p];[b][p]paletteuse=new=1"]
        case "":
            // No extension, no format to tell ffmpeg's from (/dev/full, a device): Matroska,
            // which streams.
            return h264 + ["-f", "matroska"]
        default:
            return yuv
        }
    }

    /// Whether ffmpeg has stopped taking frames (it failed; `finish` says why).
    var failed: Bool { lock.withLock { broken } }

    /// Queues a frame of the size given at the start: BGR, rows bottom to top.
    func send(_ frame: [UInt8]) {
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard !failed else { return }
            let ok = frame.withUnsafeBytes { writeAll(stdin.fileDescriptor, $0) }
            if !ok { lock.withLock { broken = true } }
        }
    }

    /// Ends the stream and waits for ffmpeg; throws its error in one line: status 74 when the
    /// disk filled, 73 for any other failure. ffmpeg 5.1 exits 0 after "Error writing trailer"
    /// (a file cut short), so its error output counts as much as its status.
    func finish() throws {
        queue.sync {}
        try? stdin.close()
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: errors) }
        let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        let cutShort = Self.incomplete.contains { log.contains($0) }
        guard process.terminationReason == .exit, process.terminationStatus == 0, !cutShort else {
            var why = (Self.summary(of: log) ?? "exit status \(process.terminationStatus)").replacingOccurrences(of: path, with: name)
            if why.hasPrefix(name + ": ") { why.removeFirst(name.count + 2) }
            let full = log.contains("No space left on device") || log.contains("Disk quota exceeded")
            throw Failure(full ? .io : .cannotCreate, "ffmpeg could not write \(name): \(why)")
        }
    }

    /// Words in ffmpeg's error output that mean the file is not whole whatever its status.
    static let incomplete = ["Error writing trailer", "No space left on device", "Disk quota exceeded", "Input/output error"]

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

/// A video recorded from a render target: each drawn frame is read back without stalling
/// the GPU and piped to ffmpeg. Make it, `capture` after each draw, `finish`, then `destroy`,
/// on the GL context's thread.
final class VideoRecording {
    private let pipe: VideoPipe
    private let reader: FrameReader

    init(ffmpeg: String, path: String, name: String? = nil, fps: Double, frames: Int, target: Framebuffer) throws {
        pipe = try VideoPipe(ffmpeg: ffmpeg, path: path, name: name, width: target.width, height: target.height, fps: fps,
                             frames: frames, sharedCPU: GLInfo.isSoftware)
        reader = FrameReader(width: target.width, height: target.height, depth: 3, layout: .bgr)
    }

    /// Whether ffmpeg has stopped taking frames (`finish` says why).
    var failed: Bool { pipe.failed }

    /// Takes the frame just drawn into `target`.
    func capture(_ target: Framebuffer) {
        if let frame = reader.readBytes(target) { pipe.send(frame) }
    }

    /// Sends the frames still being read back, ends the stream and waits for ffmpeg.
    func finish() throws {
        reader.flushBytes().forEach(pipe.send)
        try pipe.finish()
    }

    /// Frees the GL objects; the context must be current.
    func destroy() {
        reader.destroy()
    }
}
