import FolioBook
import FolioImage
import Foundation
import Testing

/// What a run of the `folio` binary left behind.
private struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `folio` binary built beside this test bundle, else in the package's debug build.
/// `swift test` compiles the command's module but does not link the binary: run `swift build`
/// first (as `make test` does).
private func folio() throws -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("folio")
    let candidates = [beside, packageRoot.appendingPathComponent(".build/debug/folio")]
    guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw BinaryError(message: "no folio binary beside the tests or in .build/debug: run `swift build` first")
    }
    return binary
}

private struct BinaryError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

private func run(_ arguments: [String], path: String? = nil) throws -> Run {
    let p = Process()
    p.executableURL = try folio()
    p.arguments = arguments
    if let path { p.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 } }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Run(status: p.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

/// Records `script` at 96x54 into a fresh folder; returns the run and the folder.
private func record(_ script: String, fps: Int = 10, extra: [String] = [], path: String? = nil) throws -> (Run, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-record-\(UUID().uuidString)")
    let r = try run(["record", "--script", script, "--fps", "\(fps)", "--size", "96x54", "-o", dir.path] + extra, path: path)
    return (r, dir)
}

private func frames(in dir: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix("frame-") }.sorted()
}

private extension RGBAImage {
    /// Mean luminance of opaque colour, 0…255 (transparent pixels count as black).
    var meanLuma: Double {
        var sum = 0.0
        for i in stride(from: 0, to: pixels.count, by: 4) {
            let a = Double(pixels[i + 3]) / 255
            sum += a * (0.2126 * Double(pixels[i]) + 0.7152 * Double(pixels[i + 1]) + 0.0722 * Double(pixels[i + 2]))
        }
        return sum / Double(width * height)
    }
}

/// codec, width, height, pixel format, frame rate and frame count of a video's first stream.
private func ffprobe(_ video: URL) throws -> String {
    let r = try runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                    "stream=codec_name,width,height,pix_fmt,r_frame_rate,nb_read_frames", "-of", "csv=p=0", video.path])
    return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

private func runTool(_ tool: String, _ arguments: [String]) throws -> FolioProcess.Result {
    try FolioProcess.run("/usr/bin/env", [tool] + arguments, timeout: 60)
}

private let hasFFmpeg = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    .contains { FileManager.default.isExecutableFile(atPath: "\($0)/ffmpeg") }

/// A folder on a small tmpfs of `kilobytes` (a full disk made on purpose), unmounted by
/// `unmount`; nil where mounting is not allowed (not root, or in a container without it).
private func smallDisk(kilobytes: Int) -> URL? {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-full-\(UUID().uuidString)")
    guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil else { return nil }
    guard let r = try? FolioProcess.run("/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", dir.path], timeout: 30),
          r.status == 0 else {
        try? FileManager.default.removeItem(at: dir)
        return nil
    }
    return dir
}

private func unmount(_ dir: URL) {
    _ = try? FolioProcess.run("/usr/bin/env", ["umount", dir.path], timeout: 30)
    try? FileManager.default.removeItem(at: dir)
}

private let canMount: Bool = smallDisk(kilobytes: 64).map { unmount($0); return true } ?? false

@Suite(.serialized) struct RecordTests {
    /// `record --video --force` onto a nearly full disk left the earlier video unplayable
    /// (ffmpeg wrote the final name), or, for a WebM, reported a file cut short as written
    /// (ffmpeg 5.1 exits 0 after "Error writing trailer"). The earlier file stays whole, no
    /// partial file is left, and the status says the disk filled (74).
    @Test(.enabled(if: hasFFmpeg && canMount, "needs ffmpeg and root to mount a small tmpfs"), arguments: ["clip.webm", "clip.mkv"])
    func aVideoThatDoesNotFitLeavesTheEarlierOneWhole(name: String) throws {
        let disk = try #require(smallDisk(kilobytes: 40))
        defer { unmount(disk) }
        let video = disk.appendingPathComponent(name)
        let earlier = Data("an earlier video".utf8)
        try earlier.write(to: video)
        let r = try run(["record", "--script", "open; next 2", "--size", "320x180", "--video", video.path, "--force"])
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("folio: ffmpeg could not write \(video.path): "), "\(r.stderr)")
        #expect(try Data(contentsOf: video) == earlier)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [name], "no partial file")
    }

    /// `record --force` that failed part-way left new frames 1, 2, 4 beside old ones of another
    /// size. The new frames are moved in only when all are written.
    @Test(.enabled(if: canMount, "needs root to mount a small tmpfs"))
    func aForcedRecordingThatFailsLeavesTheEarlierFrames() throws {
        let disk = try #require(smallDisk(kilobytes: 400))
        defer { unmount(disk) }
        let first = try run(["record", "--script", "open; next 3", "--fps", "5", "--size", "96x54", "-o", disk.path, "-q"])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try frames(in: disk).map { try Data(contentsOf: disk.appendingPathComponent($0)) }
        #expect(before.count == 18)
        let again = try run(["record", "--script", "open; next 3", "--fps", "5", "--size", "320x180", "-o", disk.path, "--force", "-q"])
        #expect(again.status == 74, "\(again.stderr)")
        #expect(try frames(in: disk).map { try Data(contentsOf: disk.appendingPathComponent($0)) } == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).count == 18, "no staging folder left")
    }

    @Test func sameCommandGivesTheSameBytes() throws {
        let script = "open; next; curl 0.83,-0.44; close"
        let (a, dirA) = try record(script)
        let (b, dirB) = try record(script)
        defer { [dirA, dirB].forEach { try? FileManager.default.removeItem(at: $0) } }
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\(b.stderr)")
        // 1 + open 10 + turn 8 + curl (drag 6 + landing 5) + close 10.
        #expect(frames(in: dirA).count == 40)
        #expect(frames(in: dirA) == frames(in: dirB))
        #expect(frames(in: dirA).first == "frame-00001.png" && frames(in: dirA).last == "frame-00040.png")
        for name in frames(in: dirA) {
            let x = try Data(contentsOf: dirA.appendingPathComponent(name)), y = try Data(contentsOf: dirB.appendingPathComponent(name))
            #expect(x == y, "\(name) differs")
        }
        #expect(a.stdout.hasPrefix("40 frames (3.90 s of animation at 10 fps) in "))
    }

    @Test func frameCountFollowsTheFrameRateAndReplacesOldFramesOnlyWhenForced() throws {
        let (r, dir) = try record("open; next 2; wait 0.5", fps: 5)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(r.status == 0, "\(r.stderr)")
        // 1 + open 5 + two chained turns ⌈1.6 · 5⌉ = 8 + wait 3 (⌈2.5⌉).
        #expect(frames(in: dir).count == 17)
        // Frames of an earlier recording are kept unless --force is given.
        let refused = try run(["record", "--script", "open", "--fps", "5", "--size", "96x54", "-o", dir.path])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("holds 17 frames of an earlier recording"), "\(refused.stderr)")
        #expect(frames(in: dir).count == 17)
        let again = try run(["record", "--script", "open", "--fps", "5", "--size", "96x54", "-o", dir.path, "--force"])
        #expect(again.status == 0)
        #expect(frames(in: dir).count == 6)
    }

    /// Under 4× MSAA a recording of an opening and a turn shows the book in every frame: the
    /// cached layer is never lost. Each frame's mean brightness is that of the same frame
    /// without MSAA, within what antialiased edges change.
    @Test func multisampledRecordingHasNoDarkFrames() throws {
        let (multi, dirM) = try record("open; next", fps: 15, extra: ["--msaa", "4"])
        let (single, dirS) = try record("open; next", fps: 15, extra: ["--msaa", "0"])
        defer { [dirM, dirS].forEach { try? FileManager.default.removeItem(at: $0) } }
        #expect(multi.status == 0 && single.status == 0, "\(multi.stderr)\(single.stderr)")
        #expect(frames(in: dirM).count > 20 && frames(in: dirM) == frames(in: dirS))
        for name in frames(in: dirM) {
            let m = try PNG.read(path: dirM.appendingPathComponent(name).path)
            let s = try PNG.read(path: dirS.appendingPathComponent(name).path)
            #expect(m.meanLuma > 40, "\(name) is dark under MSAA: mean luma \(m.meanLuma)")
            #expect(abs(m.meanLuma - s.meanLuma) < 3, "\(name): mean luma \(m.meanLuma) with MSAA, \(s.meanLuma) without")
        }
    }

    @Test func badScriptNamesTheActionAndExits64() throws {
        let (r, dir) = try record("open; next 2\n  nxt")
        #expect(r.status == 64)
        #expect(r.stderr.contains("script:2: unknown action 'nxt' (action 3, column 3): actions are open, close"))
        #expect(frames(in: dir).isEmpty)
    }

    @Test(arguments: [
        (["--fps", "0"], "--fps must be 1…240"),
        (["--fps", "1e-300"], "--fps must be 1…240"),
        (["--fps", "nan"], "--fps must be 1…240"),
        (["--fps", "241"], "--fps must be 1…240"),
        (["--size", "96"], "--size must be WxH"),
        (["--compression", "12"], "--compression must be 0…9"),
    ])
    func badOptionsExit64(options: [String], message: String) throws {
        let r = try run(["record", "--script", "open", "-o", "/tmp/folio-never-written"] + options)
        #expect(r.status == 64)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    @Test(.enabled(if: hasFFmpeg, "needs ffmpeg (apt-get install ffmpeg)")) func videoToGIF() throws {
        let gif = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(UUID().uuidString).gif")
        let (r, dir) = try record("open", fps: 5, extra: ["--video", gif.path])
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: gif) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: gif).prefix(6) == Data("GIF89a".utf8))
    }

    @Test(.enabled(if: hasFFmpeg, "needs ffmpeg (apt-get install ffmpeg)"))
    func videoAloneIsPipedWithoutFramesAtTheAskedRateAndEvenSize() throws {
        let mp4 = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: mp4) }
        let r = try run(["record", "--script", "open", "--fps", "10", "--size", "95x53", "--video", mp4.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "no progress line when standard error is not a terminal: \(r.stderr)")
        #expect(r.stdout.hasPrefix("11 frames (1.00 s of animation at 10 fps) in ") && r.stdout.hasSuffix("to \(mp4.path)\n"), "\(r.stdout)")
        let probe = try ffprobe(mp4)
        #expect(probe == "h264,96,54,yuv420p,10/1,11", "\(probe)")
    }

    /// The video shows what the PNG frames show, the right way up.
    @Test(.enabled(if: hasFFmpeg, "needs ffmpeg (apt-get install ffmpeg)"))
    func videoFramesMatchThePNGFrames() throws {
        let webm = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(UUID().uuidString).webm")
        let still = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(UUID().uuidString).png")
        let (r, dir) = try record("open", fps: 5, extra: ["--video", webm.path])
        defer { [dir, webm, still].forEach { try? FileManager.default.removeItem(at: $0) } }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(frames(in: dir).count == 6)
        #expect(try ffprobe(webm).hasPrefix("vp9,96,54,yuv420p,5/1"))
        let last = try runTool("ffmpeg", ["-v", "error", "-i", webm.path, "-vf", "select=eq(n\\,5)", "-frames:v", "1", "-pix_fmt", "rgba", still.path])
        #expect(last.status == 0, "\(last.stderr)")
        let video = try PNG.read(path: still.path), png = try PNG.read(path: dir.appendingPathComponent("frame-00006.png").path)
        #expect(video.width == png.width && video.height == png.height)
        let difference = zip(video.pixels, png.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(png.pixels.count) < 6, "mean difference \(Double(difference) / Double(png.pixels.count))")
    }

    @Test(.enabled(if: hasFFmpeg, "needs ffmpeg (apt-get install ffmpeg)"))
    func ffmpegErrorsAreOneLine() throws {
        let video = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(UUID().uuidString).notavideo").path
        let r = try run(["record", "--script", "open", "--size", "32x18", "--video", video])
        #expect(r.status == 73)
        #expect(r.stderr == "folio: ffmpeg could not write \(video): Unable to find a suitable output format for '\(video)'\n", "\(r.stderr)")
    }

    @Test func withoutFFmpegAVideoAloneStopsBeforeDrawing() throws {
        let r = try run(["record", "--script", "open", "--video", "never.mp4"], path: "/nonexistent")
        #expect(r.status == 69)
        #expect(r.stderr.contains("ffmpeg is not installed: cannot write never.mp4"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func quietPrintsNothing() throws {
        let (r, dir) = try record("open", fps: 5, extra: ["--quiet"])
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
        #expect(frames(in: dir).count == 6)
    }

    @Test func framesOrVideoMustBeAsked() throws {
        let r = try run(["record", "--script", "open"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("give -o DIR for PNG frames, --video FILE, or both"), "\(r.stderr)")
    }

    @Test func withoutFFmpegTheFramesStayAndItSaysSo() throws {
        let (r, dir) = try record("open", fps: 5, extra: ["--video", "never.mp4"], path: "/nonexistent")
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(r.status == 69)
        #expect(r.stderr.contains("ffmpeg is not installed; frames are in \(dir.path)"))
        #expect(frames(in: dir).count == 6)
    }
}
