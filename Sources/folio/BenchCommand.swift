import ArgumentParser
import FolioBook
import FolioImage
import FolioKit
import FolioLayout
import FolioLibrary
import FolioMath
import FolioReader
import FolioRender
import FolioScript
import Foundation

/// `folio bench`: standard scenes drawn headless, with ms per frame (wall, CPU and GPU time)
/// and the capture pipeline's rates. Figures, not pass/fail.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure rendering and capture speed on standard scenes (headless).")

    @OptionGroup var render: RenderOptions
    @OptionGroup var document: DocumentOptions
    @Option(help: "Frames per scene.")
    var frames = 120
    @Option(help: "Only these scenes (comma-separated): carousel, wheel, opening, fan, rigid, curl, large-book.")
    var scenes: String?
    @Flag(help: "Skip the capture figures (render scenes only).")
    var noCapture = false
    @Option(help: ArgumentHelp("Also measure the documents of this folder (or this document): first page, pages/s at 931 px high, "
                               + "on 1 thread and on every core, against mutool draw (PDF, EPUB and what else MuPDF reads) or ddjvu (DjVu) "
                               + "in the same run.", valueName: "path"))
    var documents: String?
    @Option(parsing: .upToNextOption, help: ArgumentHelp("Only measure searching this document for this phrase: opening it, the first hit, the whole book, "
                                                         + "pages/s, on one thread and on every core.", valueName: "document phrase"))
    var search: [String] = []
    @Flag(help: "Print JSON instead of a table.")
    var json = false
    @Flag(name: .shortAndLong, help: "No progress line on a terminal.")
    var quiet = false

    func validate() throws {
        guard frames > 0, frames <= 100_000 else { throw ValidationError("--frames must be 1…100000 (got \(frames))") }
        guard search.isEmpty || search.count == 2 else { throw ValidationError("--search takes a document and a phrase") }
    }

    /// Turns of render-only and video in the video figure.
    static let videoRounds = 3
    /// Frames of the video figure per capture frame: 180 by default, a recording of a few turns
    /// at 30 fps, so that ffmpeg's start (about 0.1 s, a sixth of a 60-frame run here) weighs as
    /// it does in a recording.
    static let videoLength = 3

    func run() throws {
        if search.count == 2 {
            let results = try SearchBench.measure(search[0], phrase: search[1], password: render.password,
                                                  cores: ProcessInfo.processInfo.activeProcessorCount)
            print(json ? printableJSON(try JSONEncoder().encode(results)) : results.map(\.line).joined(separator: "\n"))
            return
        }
        let start = Date()
        let library = try loadLibrary(render.source, password: render.password)
        let session = try render.pipeline(library: library)
        defer { session.destroy() }
        // Start-up: context, shaders, library and the first frame's textures, read back.
        session.draw(try BenchScene.carousel.scene(frame: 0, of: 1, books: library.bookInfos))
        _ = session.target.readPixels()
        let firstFrame = Date().timeIntervalSince(start)

        let wanted = try scenes.map(BenchScene.parse) ?? BenchScene.allCases
        let ffmpeg = executable(named: "ffmpeg")
        let captureFrames = noCapture ? 0 : min(frames, 60) * (ffmpeg == nil ? 2 : 2 + 2 * Self.videoRounds * Self.videoLength)
        let progress = ProgressLine("folio bench", unit: "frames", total: wanted.count * (frames + 1) + captureFrames, quiet: quiet)
        defer { progress.finish() }
        Interrupt.catchSignals(notice: "interrupted; stopping after this scene")
        var results: [SceneResult] = []
        for scene in wanted {
            results.append(try measure(scene, session: session, progress: progress))
            if Interrupt.requested { throw Failure(.interrupted, "interrupted after \(results.count) of \(wanted.count) scenes") }
        }
        let capture = noCapture ? nil : try measureCapture(session: session, ffmpeg: ffmpeg, progress: progress)
        progress.finish()
        // The viewer turning pages meanwhile: the curl scene, frame after frame, finished on the GPU.
        let turn = try (0..<30).map { try BenchScene.curl.scene(frame: $0, of: 30, books: library.bookInfos) }
        var shown = 0
        let documentResults = try documents.map {
            try DocumentBench.measure($0, height: 931) {
                session.draw(turn[shown % turn.count])
                finishGPU()
                shown += 1
            }
        }
        let report = Report(renderer: GLInfo.renderer, size: [session.target.width, session.target.height], samples: session.target.samples,
                            firstFrameMs: firstFrame * 1000, scenes: results, capture: capture, documents: documentResults)
        print(json ? report.json : ([report.table] + (documentResults ?? []).map(\.line)).joined(separator: "\n"))
    }

    private func measure(_ bench: BenchScene, session: FramePipeline, progress: ProgressLine) throws -> SceneResult {
        let original = session.library
        defer { session.replaceLibrary(original) }
        if bench == .largeBook { session.replaceLibrary(try largeLibrary(pages: 2000, like: original)) }
        defer { if bench == .largeBook { try? FileManager.default.removeItem(at: Self.largeBookFolder) } }
        let infos = session.library.bookInfos
        let scenes = try (0..<frames).map { try bench.scene(frame: $0, of: frames, books: infos) }
        // One warm-up frame so texture uploads and the static layer are not counted.
        session.draw(scenes[0])
        progress.advance()
        finishGPU()
        let timer = GPUTimer()
        defer { timer.destroy() }
        let cpu0 = processCPUSeconds(), thread0 = threadCPUSeconds(), t0 = Date()
        for scene in scenes {
            timer.begin()
            session.draw(scene)
            timer.end()
            progress.advance()
        }
        finishGPU()
        let wall = Date().timeIntervalSince(t0), cpu = processCPUSeconds() - cpu0, thread = threadCPUSeconds() - thread0
        let ms = wall * 1000 / Double(frames)
        return SceneResult(name: bench.rawValue, msPerFrame: ms, fps: 1000 / ms, cpuMs: cpu * 1000 / Double(frames),
                           renderThreadMs: thread * 1000 / Double(frames), gpuMs: timer.finish())
    }

    private static let largeBookFolder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-bench-book-\(getpid())")

    /// A book of `pages` pages made of links to the sample pages, in a temporary folder.
    private func largeLibrary(pages: Int, like library: Library) throws -> Library {
        let dir = Self.largeBookFolder
        try? FileManager.default.removeItem(at: dir)
        try OutputFile.makeFolder(dir.path)
        let samples = library.books.flatMap(\.pages)
        guard !samples.isEmpty else { throw ValidationError("the library has no pages to build a large book from") }
        // Pages of a document are no files to link to: the book names them directly.
        if samples[0].documentPage != nil, let first = library.books.first {
            let pages = (0..<pages).map { samples[$0 % samples.count] }
            return Library(title: "Large", books: [Book(title: "Large book", pages: pages, pageWidth: first.pageWidth, pageHeight: first.pageHeight)])
        }
        for i in 0..<pages {
            let link = dir.appendingPathComponent(String(format: "page-%05d.png", i + 1)).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: samples[i % samples.count].path)
        }
        return Library.load(from: dir.path, documents: commandDocuments)
    }

    /// The curl turn to PNG three ways in one run: render + readback only, encode only, and
    /// the whole pipeline (render, pixel-buffer readback and encoding on worker threads
    /// overlapping); then, with ffmpeg, render + readback piped to an MP4 as `record --video` does.
    private func measureCapture(session: FramePipeline, ffmpeg: String?, progress: ProgressLine) throws -> CaptureResult {
        let n = min(frames, 60)
        let infos = session.library.bookInfos
        let scenes = try (0..<n).map { try BenchScene.curl.scene(frame: $0, of: n, books: infos) }
        let t = session.target
        let reader = FrameReader(width: t.width, height: t.height)
        defer { reader.destroy() }

        // Draws every scene, handing each frame read back to `take`, oldest first.
        func drawAll(_ take: (RGBAImage) -> Void) {
            for scene in scenes {
                session.draw(scene)
                if let img = reader.read(t) { take(img) }
                progress.advance()
            }
            reader.flush().forEach(take)
        }

        var t0 = Date()
        var images: [RGBAImage] = []
        drawAll { images.append($0) }
        let renderFPS = Double(n) / Date().timeIntervalSince(t0)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-bench-\(getpid())")
        try OutputFile.makeFolder(dir.path)
        defer { try? FileManager.default.removeItem(at: dir) }
        t0 = Date()
        let encoder = FrameWriter(compression: render.compression)
        for (i, img) in images.enumerated() { encoder.submit(img, to: dir.appendingPathComponent("e-\(i).png").path) }
        try encoder.finish()
        let encodeFPS = Double(images.count) / Date().timeIntervalSince(t0)

        t0 = Date()
        let writer = FrameWriter(compression: render.compression)
        var written = 0
        func write(_ img: RGBAImage) {
            written += 1
            writer.submit(img, to: dir.appendingPathComponent("c-\(written).png").path)
        }
        drawAll(write)
        try writer.finish()
        let captureFPS = Double(written) / Date().timeIntervalSince(t0)

        // Render + readback alone and piped to ffmpeg, in turns, best of each: on a shared
        // machine a burst of other work then spoils one turn, not the comparison. Both read
        // back the same way (BGR bytes through the same ring of pixel buffers) at the same size;
        // the video's time counts ffmpeg's start and its end (the last frames, the MP4's index).
        // CPU time a frame (ffmpeg's included) too: where the cores are all busy, the rates'
        // ratio tends to the CPU times' ratio, which other load disturbs much less.
        var video: (fps: Double, renderFPS: Double, cpuMs: Double, renderCPUMs: Double)?
        if let ffmpeg {
            let m = n * Self.videoLength
            let turn = try (0..<m).map { try BenchScene.curl.scene(frame: $0, of: m, books: infos) }
            let bgr = FrameReader(width: t.width, height: t.height, depth: 3, layout: .bgr)
            defer { bgr.destroy() }
            var best = (fps: 0.0, renderFPS: 0.0, cpuMs: Double.infinity, renderCPUMs: Double.infinity)
            for _ in 0..<Self.videoRounds {
                t0 = Date()
                var cpu0 = processCPUSeconds(children: true)
                for scene in turn {
                    session.draw(scene)
                    _ = bgr.readBytes(t)
                    progress.advance()
                }
                _ = bgr.flushBytes()
                best.renderFPS = max(best.renderFPS, Double(m) / Date().timeIntervalSince(t0))
                best.renderCPUMs = min(best.renderCPUMs, (processCPUSeconds(children: true) - cpu0) * 1000 / Double(m))
                t0 = Date()
                cpu0 = processCPUSeconds(children: true)
                let recording = try VideoRecording(ffmpeg: ffmpeg, path: dir.appendingPathComponent("bench.mp4").path, fps: 30,
                                                   frames: m, target: t)
                defer { recording.destroy() }
                for scene in turn {
                    session.draw(scene)
                    recording.capture(t)
                    progress.advance()
                }
                try recording.finish()
                best.fps = max(best.fps, Double(m) / Date().timeIntervalSince(t0))
                best.cpuMs = min(best.cpuMs, (processCPUSeconds(children: true) - cpu0) * 1000 / Double(m))
            }
            video = best
        }
        // Where rendering and encoding share the same cores (a software renderer) they cannot
        // both run at full speed: the best the pipeline can do is the two stages back to back.
        let shared = 1 / (1 / renderFPS + 1 / encodeFPS)
        return CaptureResult(frames: n, compression: render.compression, renderOnlyFPS: renderFPS, encodeOnlyFPS: encodeFPS,
                             captureFPS: captureFPS, ratio: captureFPS / min(renderFPS, encodeFPS),
                             ratioToSharedBound: captureFPS / shared,
                             encoderThreads: ProcessInfo.processInfo.activeProcessorCount,
                             videoFPS: video?.fps, videoRenderFPS: video?.renderFPS, videoRatio: video.map { $0.fps / $0.renderFPS },
                             videoFrames: video.map { _ in n * Self.videoLength },
                             videoCPUMs: video?.cpuMs, videoRenderCPUMs: video?.renderCPUMs)
    }
}

/// The standard scenes; each frame is a still of an animation sweeping its range.
enum BenchScene: String, CaseIterable {
    case carousel, wheel, opening, fan, rigid, curl
    case largeBook = "large-book"

    static func parse(_ list: String) throws -> [BenchScene] {
        try list.split(separator: ",").map {
            guard let s = BenchScene(rawValue: $0.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("unknown scene '\($0)'; scenes: \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return s
        }
    }

    func scene(frame: Int, of count: Int, books: [BookInfo]) throws -> Scene {
        // Progress through the sweep, never exactly 0 or 1 so a turn is always in flight.
        let t = (Double(frame) + 0.5) / Double(max(count, 1))
        var s = StillState()
        switch self {
        case .carousel:
            s.scroll = t * Double(max(books.count - 1, 1))
        case .wheel:
            s.shelf = .wheel
            s.scroll = t * Double(max(books.count - 1, 1))
        case .opening:
            // The first book opening from the shelf: every frame a full redraw.
            s.book = 0
            s.open = t
        case .fan:
            s.book = 0
            s.layout = .fan
            s.spread = 1 + t * 2
        case .rigid:
            s.book = 0
            s.page = 7
            s.turn = t
        case .curl:
            s.book = 0
            s.page = 7
            s.turn = t
            s.deform = .curl
        case .largeBook:
            s.book = 0
            s.page = 1001
            s.turn = t
            s.deform = .curl
        }
        return try s.scene(library: books)
    }
}

struct SceneResult: Codable {
    var name: String
    var msPerFrame: Double
    var fps: Double
    var cpuMs: Double
    /// CPU of the thread that draws: Folio's own work and the driver's calls (with a GPU, a
    /// frame's CPU-bound part; on llvmpipe also its vertex shading and binning).
    var renderThreadMs: Double
    var gpuMs: Double?

    enum CodingKeys: String, CodingKey {
        case name, fps
        case msPerFrame = "ms_per_frame"
        case cpuMs = "cpu_ms"
        case renderThreadMs = "render_thread_ms"
        case gpuMs = "gpu_ms"
    }
}

struct CaptureResult: Codable {
    var frames: Int
    var compression: Int
    var renderOnlyFPS: Double
    var encodeOnlyFPS: Double
    var captureFPS: Double
    /// Capture rate over the slower of render-only and encode-only (goal: at least 0.9).
    var ratio: Double
    /// Capture rate over both stages run back to back on the same cores, the bound when the
    /// renderer is the CPU itself.
    var ratioToSharedBound: Double
    var encoderThreads: Int
    /// Render + readback piped to ffmpeg (MP4, H.264), `videoFrames` frames, whole run including
    /// ffmpeg's start and end, best of `videoRounds`; nil without ffmpeg.
    var videoFPS: Double?
    /// Render + readback only, measured in turns with `videoFPS`, best of `videoRounds`.
    var videoRenderFPS: Double?
    /// `videoFPS` over `videoRenderFPS` (goal: at least 0.8).
    var videoRatio: Double?
    /// Frames of each video turn.
    var videoFrames: Int?
    /// CPU ms a frame, this process and ffmpeg: the video path, and render + readback alone.
    var videoCPUMs: Double?
    var videoRenderCPUMs: Double?

    enum CodingKeys: String, CodingKey {
        case frames, compression, ratio
        case videoFPS = "video_fps"
        case videoRenderFPS = "video_render_only_fps"
        case videoCPUMs = "video_cpu_ms"
        case videoRenderCPUMs = "video_render_only_cpu_ms"
        case videoRatio = "video_ratio"
        case videoFrames = "video_frames"
        case ratioToSharedBound = "ratio_to_shared_bound"
        case renderOnlyFPS = "render_only_fps"
        case encodeOnlyFPS = "encode_only_fps"
        case captureFPS = "capture_fps"
        case encoderThreads = "encoder_threads"
    }
}

struct Report: Codable {
    var renderer: String
    var size: [Int]
    var samples: Int
    var firstFrameMs: Double
    var scenes: [SceneResult]
    var capture: CaptureResult?
    var documents: [DocumentResult]?

    enum CodingKeys: String, CodingKey {
        case renderer, size, samples, scenes, capture, documents
        case firstFrameMs = "first_frame_ms"
    }

    var json: String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        // The keys named above are snake case already; the documents' are made so.
        e.keyEncodingStrategy = .convertToSnakeCase
        return printableJSON((try? e.encode(self)) ?? Data())
    }

    var table: String {
        func f(_ x: Double) -> String { String(format: "%.2f", x) }
        var lines = ["renderer: \(renderer)   size: \(size[0])x\(size[1])   MSAA: \(samples)x   first frame: \(f(firstFrameMs)) ms",
                     "scene         ms/frame      fps   cpu ms   thread ms   gpu ms"]
        for s in scenes {
            lines.append(s.name.padding(toLength: 12, withPad: " ", startingAt: 0) + f(s.msPerFrame).leftPad(10) + f(s.fps).leftPad(9)
                + f(s.cpuMs).leftPad(9) + f(s.renderThreadMs).leftPad(12) + (s.gpuMs.map(f) ?? "-").leftPad(9))
        }
        guard let c = capture else { return lines.joined(separator: "\n") }
        lines.append("capture (curl, \(c.frames) frames, PNG level \(c.compression), \(c.encoderThreads) encoder threads): "
            + "render-only \(f(c.renderOnlyFPS)) fps, encode-only \(f(c.encodeOnlyFPS)) fps, pipeline \(f(c.captureFPS)) fps, "
            + "ratio \(f(c.ratio)) of the slower, \(f(c.ratioToSharedBound)) of both back to back on shared cores")
        if let video = c.videoFPS, let render = c.videoRenderFPS, let ratio = c.videoRatio,
           let cpu = c.videoCPUMs, let renderCPU = c.videoRenderCPUMs {
            lines.append("video (curl, \(c.videoFrames ?? 0) frames piped to ffmpeg, MP4 H.264; in turns with render-only, best of "
                + "\(Bench.videoRounds)): video \(f(video)) fps, render-only \(f(render)) fps, ratio \(f(ratio)); "
                + "CPU ms/frame with ffmpeg's: video \(f(cpu)), render-only \(f(renderCPU)), ratio \(f(renderCPU / cpu))")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

/// User + system CPU seconds of the calling thread.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// User + system CPU seconds of this process (all threads: llvmpipe's rasterisers included),
/// and with `children` those of its children that have ended (ffmpeg).
func processCPUSeconds(children: Bool = false) -> Double {
    func seconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    return seconds(RUSAGE_SELF.rawValue) + (children ? seconds(RUSAGE_CHILDREN.rawValue) : 0)
}
