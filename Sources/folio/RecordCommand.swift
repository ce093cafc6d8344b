import ArgumentParser
import FolioApp
import FolioBook
import FolioRender
import Foundation

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a script of actions at a fixed frame rate and write every frame to PNG, headless.",
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

            --video runs ffmpeg on the frames once they are written; when ffmpeg is missing the frames \
            stay and the exit status is 69.
            """)

    @OptionGroup var render: RenderOptions

    @Option(help: ArgumentHelp("The actions to play, or @FILE to read them from a file.", valueName: "script"))
    var script: String

    @Option(parsing: .unconditional, help: "Frames per second of animation time (1…240).")
    var fps: Double = 30

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for frame-00001.png, frame-00002.png, …", valueName: "dir"))
    var output: String

    @Option(help: ArgumentHelp("Also encode the frames to a video with ffmpeg: .mp4, .webm, .gif, …", valueName: "file"))
    var video: String?

    @Flag(help: "Replace the frames of an earlier recording in DIR, and an existing --video file.")
    var force = false

    /// Frame names have five digits; a recording never outgrows them.
    static let maxFrames = 99_999

    func validate() throws {
        guard (1...240).contains(fps) else { throw ValidationError("--fps must be 1…240 (got \(fps))") }
        // A script on the command line is checked here too, so that it gets this command's usage
        // line; a script file is read in `run`, where a missing or broken file gets its own status.
        if !script.hasPrefix("@") { _ = try loadScript() }
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
        let earlier = try prepareFolder()
        if let video { try checkVideo(video) }
        Interrupt.catchSignals(notice: "interrupted; stopping after the frame in flight")
        let session = try render.session(library: library)
        defer { session.close() }
        let start = ContinuousClock.now
        let player = runner()
        let frames = try writeFrames(player, session)
        let wall = (ContinuousClock.now - start) / .seconds(1)
        if Interrupt.requested {
            throw Failure(.interrupted, "interrupted after \(frames) of \(count) frames; frames 1…\(frames) are in \(output)")
        }
        removeFrames(earlier.filter { $0 > frames })
        for note in player.notes { warn(note) }
        let animation = player.time(ofFrame: frames - 1)
        print(String(format: "%d frames (%.2f s of animation at %g fps) in %.2f s: %.1f frames/s to PNG in ",
                     frames, animation, fps, wall, Double(frames) / wall) + output)
        if let video { try encode(video) }
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
            // In a file: bad data (65); on the command line: a bad argument (64).
            if script.hasPrefix("@") { throw Failure(.data, "\(script.dropFirst()): \(error.description)") }
            throw ValidationError(error.description)
        }
    }

    private func framePath(_ n: Int) -> String {
        (output as NSString).appendingPathComponent(String(format: "frame-%05d.png", n))
    }

    /// Makes the output folder; returns the numbers of the frames of an earlier recording in
    /// it, which are kept unless `--force` is given.
    private func prepareFolder() throws -> [Int] {
        try OutputFile.makeFolder(output)
        let names = try FileName.list(output)
        let earlier = names.compactMap { $0.wholeMatch(of: /frame-(\d+)\.png/).flatMap { Int($0.1) } }.sorted()
        if !earlier.isEmpty, !force {
            throw Failure(.cannotCreate, "\(output) holds \(earlier.count) frames of an earlier recording "
                + "(\(framePath(earlier[0]))…); --force replaces them, or choose another folder")
        }
        return earlier
    }

    /// The video may not replace a file unless forced, nor ever one of the frames it is made from.
    private func checkVideo(_ video: String) throws {
        let name = (video as NSString).lastPathComponent
        let folder = OutputFile.folder(of: (video as NSString).standardizingPath)
        if name.wholeMatch(of: /frame-\d+\.png/) != nil,
           (folder as NSString).resolvingSymlinksInPath == ((output as NSString).standardizingPath as NSString).resolvingSymlinksInPath {
            throw Failure(.usage, "--video \(video) would overwrite a frame of the recording")
        }
        try OutputFile(video, replace: force ? .always : .never).prepare()
    }

    /// Removes the earlier recording's frames past the new one's last.
    private func removeFrames(_ numbers: [Int]) {
        for n in numbers where unlink(FileName.bytes(framePath(n))) != 0 {
            warn("\(framePath(n)): cannot remove the earlier frame: \(FileError.reason())")
        }
    }

    /// Draws every frame while earlier ones are read back and encoded on worker threads;
    /// returns how many were written.
    private func writeFrames(_ runner: ScriptRunner, _ session: HeadlessSession) throws -> Int {
        let reader = FrameReader(width: session.target.width, height: session.target.height, depth: 3)
        defer { reader.destroy() }
        let writer = FrameWriter(compression: render.compression)
        var written = 0
        func save(_ image: RGBAImage) {
            written += 1
            writer.submit(image, to: framePath(written))
        }
        while !Interrupt.requested, let scene = runner.nextFrame() {
            session.draw(scene)
            if let image = reader.read(session.target) { save(image) }
        }
        reader.flush().forEach(save)
        try writer.finish()
        return written
    }

    /// Runs ffmpeg over the written frames.
    private func encode(_ video: String) throws {
        guard let ffmpeg = executable(named: "ffmpeg") else {
            warn("ffmpeg is not installed; frames are in \(output)")
            throw ExitCode(69)   // EX_UNAVAILABLE: the video asked for was not made
        }
        // GIF: a palette made from the frames themselves; others: even sides and 4:2:0 colour,
        // which H.264 needs and every player takes.
        let filter = video.lowercased().hasSuffix(".gif")
            ? "split[a][b];[a]palettegen[p];[b][p]paletteuse"
            : "pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-y", "-loglevel", "error", "-framerate", "\(fps)",
                             "-i", (output as NSString).appendingPathComponent("frame-%05d.png"), "-vf", filter, video]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RecordError(message: "ffmpeg failed (exit status \(process.terminationStatus)); frames are in \(output)")
        }
        print(video)
    }
}

/// A recording that could not finish, in words.
struct RecordError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The first executable called `name` on PATH.
private func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

private func warn(_ message: String) { report(message) }
