import ArgumentParser
import FolioReader
import FolioBook
import FolioKit
import FolioLayout
import FolioMath
import Foundation

/// `folio flip A.png B.png`: MPFlip's transition from one image to another, as a still or
/// the whole turn.
struct Flip: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn one image over onto another, as a page flip: a still, or every frame of the turn.",
        discussion: """
            The first image is split at its middle (left | right, or top | bottom with vertical); the \
            half on the turning side flips over, showing the second image's other half on its back, \
            and reveals the second image's half beneath. The second image is drawn at the first's size.

            Styles (--style, comma-separated words): forward | backward (the right or bottom half \
            turns, or the left or top one), horizontal | vertical, normal | reverse perspective: \
            8 combinations.
            """)

    @Argument(help: "The first image (PNG), shown at turn 0.")
    var first: String
    @Argument(help: "The second image (PNG), shown at turn 1.")
    var second: String

    @Option(help: "Progress of the turn in a still, 0…1 (with --curve: the fraction of its time).")
    var turn: Double = 0.5
    @Option(help: ArgumentHelp("Style words, comma-separated: forward|backward, horizontal|vertical, normal|reverse.", valueName: "words"))
    var style = "forward"
    @Option(help: "Turn deformation: rigid, curl or cone.")
    var deform: TurnDeform = .rigid
    @Option(name: .shortAndLong, help: "Output PNG of the still.")
    var output = "flip.png"
    @Option(help: ArgumentHelp("Write every frame of the turn into DIR (frame-00001.png, …) instead of a still.", valueName: "dir"))
    var record: String?
    @Option(help: ArgumentHelp("Encode the turn to a video with ffmpeg (.mp4, .webm, .gif, …), with or without --record.", valueName: "file"))
    var video: String?
    @Flag(help: "Replace an existing output: the still, the frames of an earlier recording in DIR, the video.")
    var force = false
    @Option(help: "Frames per second of the turn (1…240).")
    var fps: Double = 30
    @Option(help: "Image size, WxH (default: the first image with a margin of an eighth on each side, at most 2048 wide or tall).")
    var size: String?
    @OptionGroup var drawing: DrawingOptions
    @OptionGroup var tuning: TuningOptions

    func validate() throws {
        guard (0...1).contains(turn) else { throw ValidationError("--turn must be between 0 and 1 (got \(turn))") }
        try RenderOptions.checkFPS(fps)
        if let size { _ = try parseSize(size) }
        if record == nil && video == nil {
            try checkPNGName(output, option: "-o")
            if tuning.turnDuration != nil { throw ValidationError("--turn-duration applies to --record and --video: a still has no time") }
        }
        _ = try Self.style(style)
    }

    /// Parses the style words; a later word of the same kind wins.
    static func style(_ text: String) throws -> TurnStyle {
        var s = TurnStyle()
        for word in text.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if let d = TurnStyle.Direction(rawValue: word) { s.direction = d }
            else if let o = TurnStyle.Orientation(rawValue: word) { s.orientation = o }
            else if let p = TurnStyle.Perspective(rawValue: word) { s.perspective = p }
            else { throw ValidationError("--style: unknown word '\(word)'; words are forward, backward, horizontal, vertical, normal, reverse") }
        }
        return s
    }

    func run() throws {
        // Missing or broken images get PNG's statuses (66, 65), not a usage error.
        let a = try PNG.read(path: first), b = try PNG.read(path: second)
        if !force {
            for out in [record == nil && video == nil ? output : nil, video].compactMap({ $0 }) {
                if let input = [first, second].first(where: { FileName.sameFile($0, out) }) {
                    throw Failure(.cannotCreate, "\(out) is the image \(input) that flip reads; not replaced (--force replaces it)")
                }
            }
        }
        var settings = BookController.Settings()
        try tuning.apply(to: &settings)
        var flip = FlipTransition(size: Vec2(Double(a.width), Double(a.height)), style: try Self.style(style), deform: deform)
        flip.eye = settings.eye
        flip.shadow = settings.shadow
        let view = flip.size * 1.25
        let (w, h) = try size.map(parseSize) ?? Self.pixels(view)

        // The halves become the pages of a book of one sheet, read from a private folder.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-flip-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = try flip.library(first: a, second: b, folder: folder)
        let pipeline = try headlessPipeline(library: library, width: w, height: h, view: view, msaa: drawing.msaa, shaders: drawing.shaders)
        drawing.look.apply(to: &pipeline.renderer.settings)
        defer { pipeline.destroy() }

        guard record != nil || video != nil else {
            let progress = tuning.curve == nil ? turn : settings.turnCurve(turn)
            let file = OutputFile(output, replace: force ? .always : .onlyPNG)
            try file.prepare()
            pipeline.draw(flip.scene(progress: progress, viewSize: view))
            if let failure = pipeline.renderer.programFailure { throw failure }
            try PNG.write(pipeline.target.readPixels(), to: file, compression: drawing.compression, bottomUp: true)
            print(FileName.printable(output))
            return
        }
        var sequence = FrameSequence(folder: record, video: video, fps: fps, compression: drawing.compression,
                                     force: force, quiet: true, label: "folio flip")
        try sequence.prepare()
        Interrupt.catchSignals(notice: "interrupted; stopping after the frame in flight")
        let count = max(1, Int((settings.turnDuration * fps).rounded(.up)))
        var k = 0
        let written = try sequence.write(pipeline, total: count + 1) {
            guard k <= count else { return nil }
            defer { k += 1 }
            return flip.scene(progress: settings.turnCurve(Double(k) / Double(count)), viewSize: view)
        }
        print("\(written) frames (\(settings.turnDuration) s at \(fps) fps) to \(sequence.targets)")
        try sequence.checkVideoMade()
    }

    /// One pixel per layout unit, scaled down to at most 2048 on the longer side.
    private static func pixels(_ view: Vec2) -> (Int, Int) {
        let s = min(1, 2048 / max(view.x, view.y))
        return (max(1, Int((view.x * s).rounded())), max(1, Int((view.y * s).rounded())))
    }
}
