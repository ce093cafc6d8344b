import ArgumentParser
import FolioBook
import FolioImage
import FolioKit
import FolioLayout
import FolioRender
import Foundation

/// The frames of an animation drawn by a headless pipeline: numbered PNGs in a folder
/// (frame-00001.png, …), a video piped into ffmpeg, or both. What `record` and `flip` write.
///
/// Does not: decide what is drawn (the caller hands scenes in), or replace a user's files
/// unless `force` says so.
struct FrameSequence {
    /// Folder for the PNG frames; nil writes the video only.
    var folder: String?
    /// The video ffmpeg makes (.mp4, .webm, .gif, …).
    var video: String?
    var fps: Double
    var compression: Int
    /// Replace the frames of an earlier recording and an existing video.
    var force = false
    /// No progress line.
    var quiet = false
    /// The command, as the progress line names it ("folio record").
    var label: String
    /// What the command reads (the book recorded): the video never replaces it.
    var reads: [String] = []

    /// Frame names have five digits; a recording never outgrows them.
    static let maxFrames = 99_999

    /// ffmpeg, found by `prepare` when a video is asked for.
    private(set) var ffmpeg: String?
    /// The frames of an earlier recording in the folder, found by `prepare`.
    private(set) var earlier: [Int] = []

    func framePath(_ n: Int, in folder: String) -> String {
        (folder as NSString).appendingPathComponent(String(format: "frame-%05d.png", n))
    }

    /// Checks every output before anything is drawn: ffmpeg is there when a video alone is
    /// asked for, the folder exists and holds no earlier frames (unless forced), and the video
    /// replaces nothing (unless forced) and never one of the frames.
    mutating func prepare() throws {
        ffmpeg = video == nil ? nil : executable(named: "ffmpeg")
        if let video, ffmpeg == nil, folder == nil {
            throw Failure(.unavailable, "ffmpeg is not installed: cannot write \(video)")
        }
        if let folder {
            try OutputFile.makeFolder(folder)
            earlier = try FileName.list(folder).compactMap { $0.wholeMatch(of: /frame-(\d+)\.png/).flatMap { Int($0.1) } }.sorted()
            if !earlier.isEmpty, !force {
                throw Failure(.cannotCreate, "\(folder) holds \(earlier.count) frames of an earlier recording "
                    + "(\(framePath(earlier[0], in: folder))…); --force replaces them, or choose another folder")
            }
        }
        if let video {
            let name = (video as NSString).lastPathComponent
            if let folder, name.wholeMatch(of: /frame-\d+\.png/) != nil,
               FileName.sameFile(OutputFile.folder(of: (video as NSString).standardizingPath), folder) {
                throw Failure(.usage, "--video \(video) would overwrite a frame of the recording")
            }
            // ffmpeg would wait for a reader of a FIFO without end, deaf to Ctrl-C.
            if let type = FileName.type(of: video), type == .fifo || type == .socket {
                throw Failure(.cannotCreate, "\(FileName.printable(video)) is \(type == .fifo ? "a FIFO (named pipe)" : "a socket"); "
                    + "a video is written to a file or a device")
            }
            try OutputFile(video, replace: force ? .always : .never, reads: reads).prepare()
        }
    }

    /// Draws every scene `next` gives until nil (or Ctrl-C, or ffmpeg failing) while earlier
    /// frames are read back: encoded to PNG on worker threads, piped to ffmpeg from a thread of
    /// its own. Returns how many frames were drawn. `total` is the frames the script makes (the
    /// progress line's time left, a GIF's palette). `decorate` draws over each frame (the on-screen layer).
    ///
    /// Nothing is half replaced: the video is written beside its name and renamed into place
    /// only once ffmpeg made it whole; frames replacing an earlier recording are written into a
    /// folder of their own inside DIR and moved in only when all are written (then the earlier
    /// frames past the new last one are removed), so a failed or interrupted run leaves the
    /// earlier recording as it was.
    func write(_ pipeline: FramePipeline, total: Int, next: () -> Scene?, decorate: (FramePipeline) -> Void = { _ in }) throws -> Int {
        var drawn = 0
        if let video, let ffmpeg {
            try OutputFile(video, replace: force ? .always : .never, reads: reads).produce { temp in
                drawn = try write(pipeline, total: total, video: (ffmpeg, temp), next: next, decorate: decorate)
                // Thrown before the video is renamed into place: an earlier one stays as it was.
                if Interrupt.requested { throw interrupted(after: drawn) }
            }
        } else {
            drawn = try write(pipeline, total: total, video: nil, next: next, decorate: decorate)
        }
        if Interrupt.requested { throw interrupted(after: drawn) }
        return drawn
    }

    /// What an interrupted recording leaves: new frames in a folder that held none, an earlier
    /// recording's frames as they were, no video.
    private func interrupted(after drawn: Int) -> Failure {
        var left: [String] = []
        if let folder { left.append(earlier.isEmpty ? "the frames are in \(folder)" : "\(folder) keeps the earlier frames") }
        if let video, ffmpeg != nil { left.append("\(video) is not written") }
        return Failure(.interrupted, FileName.printable("interrupted after \(drawn) frames; " + left.joined(separator: "; ")))
    }

    /// `write` with the video going to `video.path` (a temporary file); the frames are staged
    /// when they replace earlier ones.
    private func write(_ pipeline: FramePipeline, total: Int, video: (ffmpeg: String, path: String)?, next: () -> Scene?,
                       decorate: (FramePipeline) -> Void) throws -> Int {
        let progress = ProgressLine(label, unit: "frames", total: total, quiet: quiet)
        defer { progress.finish() }
        var recording: VideoRecording?
        if let video {
            recording = try VideoRecording(ffmpeg: video.ffmpeg, path: video.path, name: self.video, fps: fps, frames: total, target: pipeline.target)
        }
        defer { recording?.destroy() }
        let stage = try folder.flatMap { earlier.isEmpty ? nil : try StagedFolder(in: $0) }
        defer { stage?.discard() }
        let reader = folder.map { _ in FrameReader(width: pipeline.target.width, height: pipeline.target.height, depth: 3) }
        defer { reader?.destroy() }
        let writer = folder.map { _ in FrameWriter(compression: compression) }
        var written = 0
        func save(_ image: RGBAImage) {
            written += 1
            if let folder { writer?.submit(image, to: framePath(written, in: stage?.path ?? folder)) }
        }
        var drawn = 0
        while !Interrupt.requested, recording?.failed != true, let scene = next() {
            pipeline.draw(scene)
            if let failure = pipeline.renderer.programFailure { throw failure }
            decorate(pipeline)
            drawn += 1
            if let image = reader?.read(pipeline.target) { save(image) }
            recording?.capture(pipeline.target)
            progress.advance()
        }
        reader?.flush().forEach(save)
        try writer?.finish()
        try recording?.finish()
        if let folder, let stage, !Interrupt.requested {
            try stage.publish(names: (0..<written).map { framePath($0 + 1, in: "") }, into: folder)
            for n in earlier where n > written && unlink(FileName.bytes(framePath(n, in: folder))) != 0 {
                report("\(FileName.printable(framePath(n, in: folder))): cannot remove the earlier frame: \(FileError.reason())")
            }
        }
        return drawn
    }

    /// Where the frames go, in words: "PNG in DIR and out.mp4" (a video only when ffmpeg makes it).
    var targets: String {
        FileName.printable([folder.map { "PNG in \($0)" }, ffmpeg == nil ? nil : video].compactMap { $0 }.joined(separator: " and "))
    }

    /// After the frames are written: a video asked for beside the frames, with no ffmpeg.
    func checkVideoMade() throws {
        if let folder, video != nil, ffmpeg == nil {
            throw Failure(.unavailable, "ffmpeg is not installed; frames are in \(folder)")
        }
    }
}

/// A folder of new files made inside the one they will replace files in (the same file
/// system: each moves in by a rename). Removed, with what is left in it, by `discard`.
private struct StagedFolder {
    let path: String

    init(in folder: String) throws {
        OutputFile.removeLeftovers(in: folder)
        var template = FileName.bytes(OutputFile.temporaryName(in: folder, kind: "frames-"))
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw Failure(.cannotCreate, "\(FileName.printable(folder)): cannot write the new frames: \(FileError.reason())")
        }
        path = FileName.string(template.dropLast().map { UInt8(bitPattern: $0) })
    }

    /// Moves `names` from here into `folder`, each replacing its namesake.
    func publish(names: [String], into folder: String) throws {
        for name in names where rename(FileName.bytes(path + "/" + name), FileName.bytes(folder + "/" + name)) != 0 {
            throw Failure(.cannotCreate, "\(FileName.printable(folder + "/" + name)): cannot replace the earlier frame: \(FileError.reason())")
        }
    }

    func discard() {
        for name in (try? FileName.list(path)) ?? [] { unlink(FileName.bytes(path + "/" + name)) }
        rmdir(FileName.bytes(path))
    }
}

/// The first executable called `name` on PATH.
func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
