import FolioBook
import FolioImage
import Foundation
import Testing

/// `folio flip`: a still, the whole turn as frames, and one clear line for bad input.
@Suite struct FlipCommandTests {
    static func image(_ path: String, left: (UInt8, UInt8, UInt8), right: (UInt8, UInt8, UInt8)) throws {
        var img = RGBAImage(width: 40, height: 30)
        for y in 0..<30 { for x in 0..<40 { let c = x < 20 ? left : right; img.setPixel(x, y, (c.0, c.1, c.2, 255)) } }
        try PNG.write(img, to: path)
    }

    @Test func writesAStillAndEveryFrameOfTheTurn() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-flip-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.image(dir + "/a.png", left: (220, 40, 40), right: (40, 180, 60))
        try Self.image(dir + "/b.png", left: (40, 60, 220), right: (230, 210, 40))

        let still = try FolioProcess.run(folio.path, ["flip", dir + "/a.png", dir + "/b.png", "--turn", "1", "-o", dir + "/still.png"],
                                         timeout: 60)
        #expect(still.status == 0, "\(still.stderr)")
        let img = try PNG.read(path: dir + "/still.png")
        // 1.25 times the first image; at turn 1 the second image's right half shows on the right.
        #expect(img.width == 50 && img.height == 38)
        let p = img.pixel(35, 19)
        #expect(p.r > 180 && p.g > 160 && p.b < 90, "\(p)")

        let record = try FolioProcess.run(folio.path, ["flip", dir + "/a.png", dir + "/b.png", "--record", dir + "/frames",
                                                       "--turn-duration", "0.2", "--fps", "10", "--style", "backward,vertical,reverse",
                                                       "--deform", "cone"], timeout: 60)
        #expect(record.status == 0, "\(record.stderr)")
        let frames = try FileManager.default.contentsOfDirectory(atPath: dir + "/frames").filter { $0.hasPrefix("frame-") }
        #expect(frames.sorted() == ["frame-00001.png", "frame-00002.png", "frame-00003.png"])

        for (arguments, message) in [(["--style", "sideways"], "unknown word 'sideways'"), (["--turn", "2"], "--turn must be between 0 and 1"),
                                     (["--shadow", "7"], "--shadow wants a strength 0…3")] {
            let bad = try FolioProcess.run(folio.path, ["flip", dir + "/a.png", dir + "/b.png", "-o", dir + "/x.png"] + arguments, timeout: 30)
            #expect(bad.status != 0 && bad.stderr.contains(message), "\(bad.stderr)")
        }
        let missing = try FolioProcess.run(folio.path, ["flip", dir + "/nope.png", dir + "/b.png", "-o", dir + "/x.png"], timeout: 30)
        #expect(missing.status == 66 && missing.stderr.contains("cannot read") && !FileManager.default.fileExists(atPath: dir + "/x.png"))

        // The output naming an input image (directly or through a link) replaced it.
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.png"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.png", withDestinationPath: dir + "/a.png")
        for out in [dir + "/a.png", dir + "/link.png", dir + "/./b.png"] {
            let onto = try FolioProcess.run(folio.path, ["flip", dir + "/a.png", dir + "/b.png", "-o", out], timeout: 30)
            #expect(onto.status == 73 && onto.stderr.contains("that flip reads; not replaced"), "\(onto.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/a.png")) == before)
    }
}

/// The settings options on the other commands: checked where they enter, and reaching the scene.
@Suite struct TuningOptionsTests {
    @Test func outOfRangeValuesGetOneLineAndInRangeOnesReachTheLayout() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        for (arguments, message) in [(["capture", "--eye", "10", "-o", "/nonexistent/x.png"], "--eye wants a distance in layout units 400…100000, not '10'"),
                                     (["record", "--script", "open", "-o", "/nonexistent", "--turn-duration", "0"], "--turn-duration wants seconds 0.05…10"),
                                     (["view", "--curve", "bouncy"], "--curve wants one of two-stage, linear"),
                                     (["layout", "--book", "0", "--turn-duration", "1"], "a still has no time")] {
            let run = try FolioProcess.run(folio.path, arguments, timeout: 30)
            #expect(run.status != 0 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        let layout = try FolioProcess.run(folio.path, ["layout", "--book", "0", "--page", "5", "--turn", "0.25", "--curve", "linear",
                                                       "--eye", "3000", "--shadow", "0"], timeout: 30)
        #expect(layout.status == 0, "\(layout.stderr)")
        #expect(layout.stdout.contains("\"eye\": 3000") && layout.stdout.contains("\"angle\": -0.785398"))
        #expect(!layout.stdout.contains("\"cast\": 0.") , "no cast shadow at strength 0")
    }
}
