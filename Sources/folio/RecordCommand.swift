import ArgumentParser
import FolioReader
import FolioScript
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
              duration S | curve C set the turn's seconds | timing curve
              shadow X | eye D     set the shadow strength | eye distance

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
    @OptionGroup var tuning: TuningOptions
    @OptionGroup var layer: LayerOptions

    @Option(help: ArgumentHelp("The actions to play, or @FILE to read them from a file.", valueName: "script"))
    var script: String

    @Option(parsing: .unconditional, help: "Frames per second of animation time (1…240).")
    var fps: Double = 30

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for frame-00001.png, frame-00002.png and so on (optional with --video).", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Encode the frames to a video with ffmpeg, at --fps and --size: .mp4, .webm, .gif, …", valueName: "file"))
    var video: String?

    @Flag(name: .shortAndLong, help: "No progress line and no summary.")
    var quiet = false

    @Flag(help: "Replace the frames of an earlier recording in DIR, and an existing --video file.")
    var force = false

    func validate() throws {
        try RenderOptions.checkFPS(fps)
        guard output != nil || video != nil else { throw ValidationError("give -o DIR for PNG frames, --video FILE, or both") }
        // A script on the command line is checked here too, so that it gets this command's usage
        // line; a script file is read in `run`, where a missing or broken file gets its own status.
        if !script.hasPrefix("@") { _ = try loadScript() }
    }

    func run() throws {
        let script = try loadScript()
        try layOutReflowableBooks()
        let library = try loadLibrary(render.source, password: render.password)
        // The hits are marked before the first page is rasterised.
        if let phrase = layer.uiSearch { try markHits(of: phrase, in: library, option: "--ui-search") }
        let (settings, count) = try frames(of: script, library: library)
        var sequence = self.sequence
        try sequence.prepare()
        Interrupt.catchSignals(notice: "interrupted; stopping after the frame in flight")
        let pipeline = try render.pipeline(library: library, settings: settings)
        defer { pipeline.destroy() }
        try play(script, frames: count, into: sequence, with: pipeline)
    }

    /// Lays reflowable books opened from now on out for the pages the frames show at their size.
    func layOutReflowableBooks() throws {
        let (width, height) = try parseSize(render.size)
        layOutBooks(forWidth: width, height: height, single: PageMode.auto.isSingle(viewSize: try render.viewSize))
    }

    /// The controller settings of these options and how many frames `script` makes of
    /// `library`: counted on a controller of its own (no drawing: quick), so that a script of
    /// days is refused before any work.
    func frames(of script: Script, library: Library) throws -> (settings: BookController.Settings, count: Int) {
        var settings = BookController.Settings()
        settings.viewSize = try render.viewSize
        try tuning.apply(to: &settings)
        let counter = ScriptRunner(script: script, controller: BookController(library: library.bookInfos, settings: settings), fps: fps)
        guard let count = counter.run(limit: FrameSequence.maxFrames) else {
            throw Failure(.usage, "the script makes more than \(FrameSequence.maxFrames) frames at \(fps) fps "
                + "(\(Int(Double(FrameSequence.maxFrames) / fps)) s of animation); record it in parts or lower --fps")
        }
        return (settings, count)
    }

    /// Where the frames go, as these options say (to be prepared before drawing).
    var sequence: FrameSequence {
        FrameSequence(folder: output, video: video, fps: fps, compression: render.compression,
                      force: force, quiet: quiet, label: "folio record", reads: render.reads)
    }

    /// Plays `script` (`count` frames) on `pipeline`, whose controller has the settings of
    /// `frames(of:library:)`, into the prepared `sequence`.
    func play(_ script: Script, frames count: Int, into sequence: FrameSequence, with pipeline: FramePipeline) throws {
        // The script drives the pipeline's controller; its view is --view fitted to --size.
        let playing = ScriptRunner(script: script, controller: pipeline.controller, fps: fps)
        let start = ContinuousClock.now
        let frames = try sequence.write(pipeline, total: count, next: playing.nextFrame, decorate: layer.draw(on:))
        let wall = (ContinuousClock.now - start) / .seconds(1)
        for note in playing.notes { report(note) }
        let animation = playing.time(ofFrame: frames - 1)
        if !quiet {
            print(String(format: "%d frames (%.2f s of animation at %g fps) in %.2f s: %.1f frames/s to ",
                         frames, animation, fps, wall, Double(frames) / wall) + sequence.targets)
        }
        try sequence.checkVideoMade()
    }

    /// The script text, or the file it names after '@', parsed.
    func loadScript() throws -> Script {
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
}
