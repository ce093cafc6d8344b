import ArgumentParser
import FolioBook
import FolioLayout
import FolioRender
import Foundation

/// A folder of numbered frames (frame-00001.png, …) drawn by a headless session, and the
/// video ffmpeg makes of them: what `record` and `flip --record` write.
struct FrameSequence {
    var folder: String
    var fps: Double
    var compression: Int
    /// The command named in warnings ("record", "flip").
    var command = "record"

    func framePath(_ n: Int) -> String {
        (folder as NSString).appendingPathComponent(String(format: "frame-%05d.png", n))
    }

    /// Makes the folder and removes the frames of an earlier recording, which a shorter one
    /// would otherwise leave behind.
    func prepare() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in try fm.contentsOfDirectory(atPath: folder) where name.wholeMatch(of: /frame-\d+\.png/) != nil {
            try fm.removeItem(atPath: (folder as NSString).appendingPathComponent(name))
        }
    }

    /// Draws every scene `next` gives until nil while earlier frames are read back and encoded
    /// on worker threads; returns how many were written.
    func write(_ session: HeadlessSession, next: () -> Scene?) throws -> Int {
        let reader = FrameReader(width: session.target.width, height: session.target.height, depth: 3)
        defer { reader.destroy() }
        let writer = FrameWriter(compression: compression)
        var written = 0
        func save(_ image: RGBAImage) {
            written += 1
            writer.submit(image, to: framePath(written))
        }
        while let scene = next() {
            session.draw(scene)
            if let image = reader.read(session.target) { save(image) }
        }
        reader.flush().forEach(save)
        try writer.finish()
        return written
    }

    /// Runs ffmpeg over the written frames.
    func encode(_ video: String) throws {
        guard let ffmpeg = executable(named: "ffmpeg") else {
            FileHandle.standardError.write(Data("folio \(command): ffmpeg is not installed; frames are in \(folder)\n".utf8))
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
                             "-i", (folder as NSString).appendingPathComponent("frame-%05d.png"), "-vf", filter, video]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RecordError(message: "ffmpeg failed (exit status \(process.terminationStatus)); frames are in \(folder)")
        }
        print(video)
    }
}

/// The first executable called `name` on PATH.
private func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
