import ArgumentParser
import FolioApp
import FolioBook
import FolioKit
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

            A recording has at most 99,999 frames (frame-00001.png … frame-99999.png, names of one \
            width that sort in order); a longer script is refused before anything is drawn. DIR may \
            hold other files, but frames of an earlier recording are kept unless --force is given; \
            then each is replaced only by a complete new frame, and those beyond the new recording's \
            end are removed once it has finished. --video refuses to overwrite an existing file \
            unless --force is given. Ctrl-C stops after the frame in flight, keeping the frames written.

            --video pipes the frames straight into ffmpeg (no PNG unless -o is given too): .mp4 \
            H.264, .webm VP9, .gif with a palette made from the frames. Without ffmpeg the exit \
            status is 69 (the frames stay when -o is given).

            On a terminal a progress line (frames, rate, time left) is drawn on standard error; \
            --quiet turns it off, with the summary line.
            """)

    @OptionGroup var render: RenderOptions

    @Option(help: ArgumentHelp("The actions to play, or @FILE to read them from a file.", valueName: "script"))
    var script: String

    @Option(parsing: .unconditional, help: "Frames per second of animation time (0 < fps ≤ 240).")
    var fps: Double = 30

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for frame-00001.png, frame-00002.png and so on (optional with --video).", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Encode the frames to a video with ffmpeg, at --fps and --size: .mp4, .webm, .gif, …", valueName: "file"))
    var video: String?

    @Flag(name: .shortAndLong, help: "No progress line and no summary.")
    var quiet = false

    @Flag(help: "Replace the frames of an earlier recording in DIR, and an existing --video file.")
    var force = false

    /// Frame names have five digits; a recording never outgrows them.
    static let maxFrames = 99_999

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
        func runner() -> ScriptRunner {
            ScriptRunner(script: script, controller: BookController(library: library.bookInfos, settings: settings), fps: fps)
        }
        // Counted first (no drawing: quick), so a script of days is refused before any work.
        guard let count = runner().run(limit: Self.maxFrames) else {
            throw Failure(.usage, "the script makes more than \(Self.maxFrames) frames at \(fps) fps "
                + "(\(Int(Double(Self.maxFrames) / fps)) s of animation); record it in parts or lower --fps")
        }
        // Without ffmpeg a video alone cannot be made at all: say so before drawing anything.
        let ffmpeg = video == nil ? nil : executable(named: "ffmpeg")
        if let video, ffmpeg == nil, output == nil {
            warn("ffmpeg is not installed: cannot write \(video)")
            throw ExitCode(69)   // EX_UNAVAILABLE
        }
        let earlier = try output.map(prepareFolder) ?? []
        if let video { try checkVideo(video) }
        Interrupt.catchSignals(notice: "interrupted; stopping after the frame in flight")
        let pipeline = try render.pipeline(library: library)
        defer { pipeline.destroy() }
        let progress = ProgressLine("folio record", unit: "frames", total: count, quiet: quiet)
        defer { progress.finish() }
        let start = ContinuousClock.now
        let playing = runner()
        var pipe: VideoPipe?
        if let video, let ffmpeg {
            pipe = try VideoPipe(ffmpeg: ffmpeg, path: video, width: pipeline.target.width, height: pipeline.target.height, fps: fps)
        }
        let frames = try writeFrames(playing, pipeline, video: pipe, progress: progress)
        let wall = (ContinuousClock.now - start) / .seconds(1)
        progress.finish()
        let targets = [output.map { "PNG in \($0)" }, pipe.map(\.path)].compactMap { $0 }.joined(separator: " and ")
        if Interrupt.requested {
            throw Failure(.interrupted, "interrupted after \(frames) of \(count) frames; frames 1…\(frames) are in \(targets)")
        }
        removeFrames(earlier.filter { $0 > frames })
        for note in playing.notes { warn(note) }
        let animation = playing.time(ofFrame: frames - 1)
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
            let bytes = try InputFile.read(path, maxBytes: 1 << 20)
            guard let contents = String(validating: bytes, as: UTF8.self) else {
                throw Failure(.data, "\(path): the script is not UTF-8 text")
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

    /// Makes the output folder; returns the numbers of the frames of an earlier recording in
    /// it, which are kept unless `--force` is given.
    private func prepareFolder(_ output: String) throws -> [Int] {
        try OutputFile.makeFolder(output)
        let names = try FileName.list(output)
        let earlier = names.compactMap { $0.wholeMatch(of: /frame-(\d+)\.png/).flatMap { Int($0.1) } }.sorted()
        if !earlier.isEmpty, !force {
            throw Failure(.cannotCreate, "\(output) holds \(earlier.count) frames of an earlier recording "
                + "(\(framePath(earlier[0], in: output))…); --force replaces them, or choose another folder")
        }
        return earlier
    }

    /// The video may not replace a file unless forced, nor ever one of the frames it is made from.
    private func checkVideo(_ video: String) throws {
        let name = (video as NSString).lastPathComponent
        let folder = OutputFile.folder(of: (video as NSString).standardizingPath)
        if let output, name.wholeMatch(of: /frame-\d+\.png/) != nil,
           (folder as NSString).resolvingSymlinksInPath == ((output as NSString).standardizingPath as NSString).resolvingSymlinksInPath {
            throw Failure(.usage, "--video \(video) would overwrite a frame of the recording")
        }
        try OutputFile(video, replace: force ? .always : .never).prepare()
    }

    /// Removes the earlier recording's frames past the new one's last.
    private func removeFrames(_ numbers: [Int]) {
        guard let output else { return }
        for n in numbers where unlink(FileName.bytes(framePath(n, in: output))) != 0 {
            warn("\(framePath(n, in: output)): cannot remove the earlier frame: \(FileError.reason())")
        }
    }

    /// Draws every frame while earlier ones are read back, then encoded to PNG on worker
    /// threads and piped to ffmpeg on another; returns how many were drawn. Stops early when
    /// ffmpeg fails, and throws its error once the frames already drawn are written.
    private func writeFrames(_ runner: ScriptRunner, _ pipeline: FramePipeline, video: VideoPipe?,
                             progress: ProgressLine) throws -> Int {
        let reader = FrameReader(width: pipeline.target.width, height: pipeline.target.height, depth: 3)
        defer { reader.destroy() }
        let writer = output.map { _ in FrameWriter(compression: render.compression) }
        var written = 0
        func save(_ image: RGBAImage) {
            written += 1
            if let output {
                writer?.submit(image, to: framePath(written, in: output))
            }
            video?.send(image)
            progress.advance()
        }
        while !Interrupt.requested, video?.failed != true, let scene = runner.nextFrame() {
            pipeline.draw(scene)
            if let image = reader.read(pipeline.target) { save(image) }
        }
        reader.flush().forEach(save)
        try writer?.finish()
        try video?.finish()
        return written
    }
}

/// The first executable called `name` on PATH.
func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

private func warn(_ message: String) { report(message) }
