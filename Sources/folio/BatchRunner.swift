import ArgumentParser
import FolioReader
import FolioBook
import FolioKit
import FolioMuPDF
import Foundation

/// Runs the jobs of a batch one after another on one headless pipeline: one GL context, shaders
/// compiled once, the page images of one document at a time within the pipeline's memory
/// budget. Each job is what `folio capture` or `folio record` does with the job's arguments,
/// through the same functions. A job whose output is already complete is skipped.
///
/// Does not: read jobs files, split them into shards or print (the command does), or render
/// two documents at once (shards in several processes do).
final class BatchRunner {
    enum Outcome: Equatable {
        case ok
        case skipped
        case failed(String)
    }

    /// Render every job, complete outputs too.
    private let force: Bool
    private var pipeline: FramePipeline?
    /// The options a pipeline is made with that a reset cannot change.
    private var pipelineKey: [String] = []
    /// The text size and page shape the documents open now were laid out for.
    private var layout: (fontSize: Double, pageAspect: Double, pagesFirst: Int)?

    init(force: Bool) { self.force = force }

    /// Frees the pipeline and its context.
    func finish() {
        pipeline?.destroy()
        pipeline = nil
    }

    /// Runs `job`: its one-line reason when it fails.
    func run(_ job: BatchJob) -> Outcome {
        do {
            // A job without --font-size lays books out at the default size, whatever the job before asked.
            MuPDF.fontSize = MuPDF.defaultFontSize
            MuPDF.laysOutInBackground = false
            switch job.kind {
            case .capture: return try capture(Capture.parse(job.arguments))
            case .record, .video: return try record(Record.parse(job.arguments), kind: job.kind)
            }
        } catch {
            let words = Failure(error)?.message ?? Capture.message(for: error)
            return .failed(words.split(separator: "\n").first.map(String.init) ?? words)
        }
    }

    private func capture(_ command: Capture) throws -> Outcome {
        if !force, Self.isCompletePNG(command.output) { return .skipped }
        try OutputFile.makeFolder(OutputFile.folder(of: command.output))
        // A PNG an earlier run left incomplete is replaced; anything else is kept, as `capture`
        // keeps it without its own --force.
        let file = OutputFile(command.output, replace: .onlyPNG, reads: command.render.reads)
        try file.prepare()
        try command.layOutReflowableBooks()
        command.layOutOnlyToThePagesShown()
        let library = try document(command.render)
        let still = try command.still(of: library)
        try command.draw(still, of: library, with: pipeline(for: command.render, library: library), to: file)
        return .ok
    }

    private func record(_ command: Record, kind: BatchJob.Kind) throws -> Outcome {
        var command = command
        let script = try command.loadScript()
        try command.layOutReflowableBooks()
        let library = try document(command.render)
        let (settings, count) = try command.frames(of: script, library: library)
        let complete = kind == .video ? Self.isCompleteVideo(command.video ?? "", frames: count)
            : Self.isCompleteRecording(command.output ?? "", frames: count)
        if !force, complete { return .skipped }
        // What an earlier run left incomplete is replaced: the job names it as its output.
        command.force = true
        if let video = command.video { try OutputFile.makeFolder(OutputFile.folder(of: video)) }
        var sequence = command.sequence
        try sequence.prepare()
        try command.play(script, frames: count, into: sequence,
                         with: pipeline(for: command.render, library: library, settings: settings))
        return .ok
    }

    /// The library a job shows. One with an error (a damaged document, a page that cannot be
    /// read: placeholders in their place) fails the job, where `capture` draws it with a
    /// warning: a catalogue wants no picture of a placeholder.
    private func document(_ render: RenderOptions) throws -> Library {
        // Reflowable books opened for an earlier job at another text size or page shape, or laid
        // out to other pages, are opened again, laid out for this one's pages as `capture` lays them out.
        let wanted = (MuPDF.fontSize, MuPDF.pageAspect, MuPDF.laysOutInBackground ? MuPDF.pagesLaidOutFirst : .max)
        if let layout, layout != wanted { commandDocuments.closeAll() }
        layout = wanted
        let library = try loadLibrary(render.source, password: render.password)
        if let problem = library.problems.first(where: { $0.severity == .error }) { throw Failure(.data, problem.description) }
        return library
    }

    /// The pipeline, reset to `library` at the job's size; a new one (shaders compiled again)
    /// only when the job asks for another view, multisampling, shader folder or detail layer.
    private func pipeline(for render: RenderOptions, library: Library,
                          settings: BookController.Settings = .init()) throws -> FramePipeline {
        let key = [render.view, render.msaa.map(String.init) ?? "", render.shaders ?? "", String(render.noDetail)]
        if let pipeline, key == pipelineKey {
            let (w, h) = try parseSize(render.size)
            guard pipeline.reset(library: library, settings: settings, width: w, height: h) else {
                throw Failure(.failure, "cannot draw at \(w)×\(h)")
            }
            pipeline.renderer.settings.cornerRadius = render.cornerRadius
            return pipeline
        }
        finish()
        let made = try render.pipeline(library: library, settings: settings)
        (pipeline, pipelineKey) = (made, key)
        return made
    }

    // MARK: Complete outputs

    /// A regular file that starts with PNG's signature and ends with its IEND chunk: written
    /// whole (a PNG is written aside and renamed into place, and IEND is its last chunk).
    static func isCompletePNG(_ path: String) -> Bool {
        guard let fd = try? InputFile.open(path) else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 20 else { return false }
        func bytes(at offset: off_t) -> [UInt8] {
            var b = [UInt8](repeating: 0, count: 12)
            let n = b.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 12, offset) }
            return n == 12 ? b : []
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        return bytes(at: 0).prefix(8).elementsEqual(signature) && bytes(at: off_t(st.st_size) - 12) == iend
    }

    /// A recording's folder holding frames 1…`frames`, each a complete PNG, and none after.
    static func isCompleteRecording(_ folder: String, frames: Int) -> Bool {
        let sequence = FrameSequence(folder: folder, video: nil, fps: 1, compression: 0, label: "")
        return (1...max(frames, 1)).allSatisfy { isCompletePNG(sequence.framePath($0, in: folder)) }
            && !FileManager.default.fileExists(atPath: sequence.framePath(frames + 1, in: folder))
    }

    /// A video ffprobe reads without an error, with `frames` packets in its first video stream
    /// (one per frame: H.264, VP9 and GIF as `record` makes them).
    static func isCompleteVideo(_ path: String, frames: Int) -> Bool {
        guard FileManager.default.fileExists(atPath: path), let ffprobe = executable(named: "ffprobe"),
              let probe = try? Self.output(of: ffprobe, ["-v", "error", "-select_streams", "v:0", "-count_packets",
                                                         "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", "file:" + path])
        else { return false }
        return probe.status == 0 && Int(probe.text.trimmingCharacters(in: .whitespacesAndNewlines)) == frames
    }

    /// What `tool` prints and its exit status (its complaints are not read).
    private static func output(of tool: String, _ arguments: [String]) throws -> (text: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: text, as: UTF8.self), process.terminationStatus)
    }
}
