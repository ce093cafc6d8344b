import ArgumentParser
import FolioApp
import FolioBook
import FolioRender
import Foundation

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a script of actions at a fixed frame rate and write every frame to PNG or a video, headless.",
        discussion: """
            The same command writes the same frames, byte for byte: the animation advances by 1/fps a \
            frame, never by the clock.

            SCRIPT: actions separated by ';' or newlines; '#' starts a comment.
            --script @FILE reads the script from FILE.
              open | close         open the centred book | close it
              next [N] | prev [N]  turn N pages (default 1), chained without a pause
              first | last         turn to the first | last spread
              goto N               turn to the spread showing page N (0 = cover)
              wait S               hold for S seconds
              shelf next|prev      move the shelf by one cover
              book N               move the shelf to book N (0-based)
              style WORD...        set styles, taking no time: rigid curl cone
                                   flat fan carousel wheel forward backward
                                   horizontal vertical normal reverse
                                   above center below
              curl X,Y             drag a page in a curl from X,Y in page units
                                   (X from the spine, < 0 on the left page;
                                   Y from the page centre) and let go

            Frame 1 shows time 0; each action starts in the frame in which the one before it ends; the \
            last frame is the one in which the last action ends.

            Existing frame-*.png files in DIR are replaced. --video pipes the frames straight into \
            ffmpeg (no PNG unless -o is given too): .mp4 H.264, .webm VP9, .gif with a palette made \
            from the frames. Without ffmpeg the exit status is 69 (the frames stay when -o is given).

            On a terminal a progress line (frames, rate, time left) is drawn on standard error; \
            --quiet turns it off, with the summary line.
            """)

    @OptionGroup var render: RenderOptions

    @Option(help: ArgumentHelp("The actions to play, or @FILE to read them from a file.", valueName: "script"))
    var script: String

    @Option(help: "Frames per second of animation time (0 < fps ≤ 240).")
    var fps: Double = 30

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for frame-00001.png, frame-00002.png and so on (optional with --video).", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Encode the frames to a video with ffmpeg, at --fps and --size: .mp4, .webm, .gif, …", valueName: "file"))
    var video: String?

    @Flag(name: .shortAndLong, help: "No progress line and no summary.")
    var quiet = false

    func validate() throws {
        guard fps > 0, fps <= 240 else { throw ValidationError("--fps must be more than 0 and at most 240 (got \(fps))") }
        guard output != nil || video != nil else { throw ValidationError("give -o DIR for PNG frames, --video FILE, or both") }
        // Checked here too so that a bad script gets this command's usage line.
        _ = try loadScript()
    }

    func run() throws {
        let script = try loadScript()
        let library = try loadLibrary(render.source)
        var settings = BookController.Settings()
        settings.viewSize = try render.viewSize
        func makeRunner() -> ScriptRunner {
            ScriptRunner(script: script, controller: BookController(library: library.bookInfos, settings: settings), fps: fps)
        }
        let runner = makeRunner()
        // Without ffmpeg a video alone cannot be made at all: say so before drawing anything.
        let ffmpeg = video == nil ? nil : executable(named: "ffmpeg")
        if let video, ffmpeg == nil, output == nil {
            warn("ffmpeg is not installed: cannot write \(video)")
            throw ExitCode(69)   // EX_UNAVAILABLE
        }
        if let output { try prepareFolder(output) }
        let session = try render.session(library: library)
        defer { session.close() }
        // The frame count, played without drawing: for the time left, and a GIF's palette.
        let total = makeRunner().run()
        let progress = ProgressLine("folio record", unit: "frames", total: total, quiet: quiet)
        defer { progress.finish() }
        let start = ContinuousClock.now
        var recording: VideoRecording?
        if let video, let ffmpeg {
            recording = try VideoRecording(ffmpeg: ffmpeg, path: video, fps: fps, frames: total, target: session.target)
        }
        defer { recording?.destroy() }
        let frames = try writeFrames(runner, session, video: recording, progress: progress)
        let wall = (ContinuousClock.now - start) / .seconds(1)
        progress.finish()
        for note in runner.notes { warn(note) }
        let animation = runner.time(ofFrame: frames - 1)
        let targets = [output.map { "PNG in \($0)" }, recording.map(\.path)].compactMap { $0 }.joined(separator: " and ")
        if !quiet {
            print(String(format: "%d frames (%.2f s of animation at %g fps) in %.2f s: %.1f frames/s to ",
                         frames, animation, fps, wall, Double(frames) / wall) + targets)
        }
        if let output, video != nil, ffmpeg == nil {
            warn("ffmpeg is not installed; frames are in \(output)")
            throw ExitCode(69)
        }
    }

    /// The script text, or the file it names after '@', parsed.
    private func loadScript() throws -> Script {
        var text = script
        if script.hasPrefix("@") {
            let path = String(script.dropFirst())
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("cannot read the script file '\(path)'")
            }
            text = contents
        }
        do {
            return try Script(text)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private func framePath(_ n: Int, in output: String) -> String {
        (output as NSString).appendingPathComponent(String(format: "frame-%05d.png", n))
    }

    /// Makes the output folder and removes the frames of an earlier recording, which a
    /// shorter one would otherwise leave behind.
    private func prepareFolder(_ output: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: output, withIntermediateDirectories: true)
        for name in try fm.contentsOfDirectory(atPath: output) where name.wholeMatch(of: /frame-\d+\.png/) != nil {
            try fm.removeItem(atPath: (output as NSString).appendingPathComponent(name))
        }
    }

    /// Draws every frame while earlier ones are read back, then encoded to PNG on worker
    /// threads and piped to ffmpeg on another; returns how many were drawn. Stops early when
    /// ffmpeg fails, and throws its error once the frames already drawn are written.
    private func writeFrames(_ runner: ScriptRunner, _ session: HeadlessSession, video: VideoRecording?,
                             progress: ProgressLine) throws -> Int {
        let reader = output.map { _ in FrameReader(width: session.target.width, height: session.target.height, depth: 3) }
        defer { reader?.destroy() }
        let writer = output.map { _ in FrameWriter(compression: render.compression) }
        var written = 0
        func save(_ image: RGBAImage) {
            written += 1
            if let output { writer?.submit(image, to: framePath(written, in: output)) }
        }
        var drawn = 0
        while video?.failed != true, let scene = runner.nextFrame() {
            session.draw(scene)
            drawn += 1
            if let image = reader?.read(session.target) { save(image) }
            video?.capture(session.target)
            progress.advance()
        }
        reader?.flush().forEach(save)
        try writer?.finish()
        try video?.finish()
        return drawn
    }
}

/// A recording that could not finish, in words.
struct RecordError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The first executable called `name` on PATH.
func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

private func warn(_ message: String) {
    FileHandle.standardError.write(Data("folio record: \(message)\n".utf8))
}
