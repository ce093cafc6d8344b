import FolioBook
import FolioImage
import Foundation
import Testing

/// Reference-image comparison in the manner of filament's render-diff: a pixel fails when any
/// channel differs by more than `channelTolerance`; the image fails when more than
/// `failingFraction` of its pixels fail. `FOLIO_RECORD=1` writes the references anew; a missing one fails. On
/// failure the actual image and a diff image go to `.build/render-diffs/`.
enum ImageAssert {
    static var referenceFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")
    }

    static var diffFolder: URL { GLHarness.packageRoot.appendingPathComponent(".build/render-diffs") }

    struct Result {
        var failingPixels: Int
        var total: Int
        var maxDelta: Int
        var diff: RGBAImage
        var fraction: Double { Double(failingPixels) / Double(max(total, 1)) }
    }

    static func compare(_ a: RGBAImage, _ b: RGBAImage, channelTolerance: Int) -> Result? {
        guard a.width == b.width, a.height == b.height else { return nil }
        var failing = 0, maxDelta = 0
        var diff = RGBAImage(width: a.width, height: a.height, fill: (0, 0, 0, 255))
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            var d = 0
            for c in 0..<3 { d = max(d, abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c]))) }
            maxDelta = max(maxDelta, d)
            if d > channelTolerance {
                failing += 1
                diff.pixels[i] = 255
            } else {
                diff.pixels[i + 1] = UInt8(min(255, d * 40))
            }
        }
        return Result(failingPixels: failing, total: a.width * a.height, maxDelta: maxDelta, diff: diff)
    }

    /// Writes a failed comparison's two images and its diff to `diffFolder`; returns the paths
    /// of the actual image and the diff.
    @discardableResult
    static func saveFailure(_ image: RGBAImage, _ expected: RGBAImage, diff: RGBAImage, named name: String) -> (String, String) {
        try? FileManager.default.createDirectory(at: diffFolder, withIntermediateDirectories: true)
        let actual = diffFolder.appendingPathComponent("\(name)-actual.png").path
        let diffPath = diffFolder.appendingPathComponent("\(name)-diff.png").path
        try? PNG.write(image, to: actual)
        try? PNG.write(expected, to: diffFolder.appendingPathComponent("\(name)-expected.png").path)
        try? PNG.write(diff, to: diffPath)
        return (actual, diffPath)
    }

    static func matchesReference(_ image: RGBAImage, named name: String, channelTolerance: Int = 5,
                                 failingFraction: Double = 0.001, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = referenceFolder.appendingPathComponent("\(name).png")
        let record = ProcessInfo.processInfo.environment["FOLIO_RECORD"] == "1"
        if record {
            try? FileManager.default.createDirectory(at: referenceFolder, withIntermediateDirectories: true)
            do { try PNG.write(image, to: url.path, compression: 9) } catch {
                Issue.record("cannot write reference \(url.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        // Recording is explicit: a missing reference is a failure, never written in passing.
        guard FileManager.default.fileExists(atPath: url.path) else {
            try? FileManager.default.createDirectory(at: diffFolder, withIntermediateDirectories: true)
            let actual = diffFolder.appendingPathComponent("\(name)-actual.png").path
            try? PNG.write(image, to: actual)
            Issue.record("reference \(name).png is missing (this frame: \(actual)); FOLIO_RECORD=1 records it", sourceLocation: sourceLocation)
            return
        }
        guard let reference = try? PNG.read(path: url.path) else {
            Issue.record("cannot read reference \(url.path)", sourceLocation: sourceLocation)
            return
        }
        guard let r = compare(image, reference, channelTolerance: channelTolerance) else {
            Issue.record("\(name): size \(image.width)×\(image.height) differs from the reference \(reference.width)×\(reference.height)", sourceLocation: sourceLocation)
            return
        }
        if r.fraction > failingFraction {
            let (actual, diff) = saveFailure(image, reference, diff: r.diff, named: name)
            Issue.record("\(name): \(r.failingPixels) of \(r.total) pixels differ by more than \(channelTolerance)/255 (max \(r.maxDelta)); see \(actual) and \(diff)", sourceLocation: sourceLocation)
        }
    }
}

/// Pixel helpers for content checks.
extension RGBAImage {
    /// Mean luminance (0…255) over a rectangle of pixels, top-left origin.
    func meanLuma(x: Int, y: Int, width w: Int, height h: Int) -> Double {
        var sum = 0.0
        for yy in y..<(y + h) {
            for xx in x..<(x + w) {
                let p = pixel(xx, yy)
                sum += 0.2126 * Double(p.r) + 0.7152 * Double(p.g) + 0.0722 * Double(p.b)
            }
        }
        return sum / Double(w * h)
    }

    func luma(_ x: Int, _ y: Int) -> Double { meanLuma(x: x, y: y, width: 1, height: 1) }
}
