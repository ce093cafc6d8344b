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

            Existing frame-*.png files in DIR are replaced. --video runs ffmpeg on the frames once they \
            are written; when ffmpeg is missing the frames stay and the exit status is 69.
            """)

    @OptionGroup var render: RenderOptions

    @Option(help: ArgumentHelp("The actions to play, or @FILE to read them from a file.", valueName: "script"))
    var script: String

    @Option(help: "Frames per second of animation time (0 < fps ≤ 240).")
    var fps: Double = 30

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for frame-00001.png, frame-00002.png, …", valueName: "dir"))
    var output: String

    @Option(help: ArgumentHelp("Also encode the frames to a video with ffmpeg: .mp4, .webm, .gif, …", valueName: "file"))
    var video: String?

    func validate() throws {
        guard fps > 0, fps <= 240 else { throw ValidationError("--fps must be more than 0 and at most 240 (got \(fps))") }
        // Checked here too so that a bad script gets this command's usage line.
        _ = try loadScript()
    }

    func run() throws {
        let script = try loadScript()
        let library = try loadLibrary(render.source, password: render.password)
        var settings = BookController.Settings()
        settings.viewSize = try render.viewSize
        let runner = ScriptRunner(script: script, controller: BookController(library: library.bookInfos, settings: settings), fps: fps)
        try prepareFolder()
        let session = try render.session(library: library)
        defer { session.close() }
        let start = ContinuousClock.now
        let frames = try writeFrames(runner, session)
        let wall = (ContinuousClock.now - start) / .seconds(1)
        for note in runner.notes { warn(note) }
        let animation = runner.time(ofFrame: frames - 1)
        print(String(format: "%d frames (%.2f s of animation at %g fps) in %.2f s: %.1f frames/s to PNG in ",
                     frames, animation, fps, wall, Double(frames) / wall) + output)
        if let video { try encode(video) }
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

    private func framePath(_ n: Int) -> String {
        (output as NSString).appendingPathComponent(String(format: "frame-%05d.png", n))
    }

    /// Makes the output folder and removes the frames of an earlier recording, which a
    /// shorter one would otherwise leave behind.
    private func prepareFolder() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: output, withIntermediateDirectories: true)
        for name in try fm.contentsOfDirectory(atPath: output) where name.wholeMatch(of: /frame-\d+\.png/) != nil {
            try fm.removeItem(atPath: (output as NSString).appendingPathComponent(name))
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
        while let scene = runner.nextFrame() {
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

private func warn(_ message: String) {
    FileHandle.standardError.write(Data("folio record: \(message)\n".utf8))
}
