import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import FolioReader
import FolioRender
import Foundation
import Testing

/// `folio flip`'s transition drawn: at turn 0 the picture is the first image, at turn 1 the
/// second, halfway the right halves of each, for all 8 styles.
@Suite(.serialized) struct FlipRenderTests {
    /// Quadrant colours (top left, top right, bottom left, bottom right) of the two images.
    static let a: [(Int, Int, Int)] = [(220, 40, 40), (40, 180, 60), (200, 40, 200), (40, 200, 200)]
    static let b: [(Int, Int, Int)] = [(40, 60, 220), (230, 210, 40), (250, 140, 20), (20, 20, 20)]
    static let size = Vec2(160, 100)

    static func image(_ quadrants: [(Int, Int, Int)]) -> RGBAImage {
        var img = RGBAImage(width: Int(size.x), height: Int(size.y))
        for y in 0..<img.height {
            for x in 0..<img.width {
                let c = quadrants[(y < img.height / 2 ? 0 : 2) + (x < img.width / 2 ? 0 : 1)]
                img.setPixel(x, y, (UInt8(c.0), UInt8(c.1), UInt8(c.2), 255))
            }
        }
        return img
    }

    /// The quadrant colours seen at turn `progress`: each quadrant's centre classified as the
    /// nearest of the eight colours (shading darkens, it does not change the hue much).
    static func seen(_ flip: FlipTransition, progress: Double) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-flip-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = try flip.library(first: image(a), second: image(b), folder: folder)
        let view = size * 1.25
        let img = try GLHarness.shared.render(flip.scene(progress: progress, viewSize: view), width: Int(view.x), height: Int(view.y),
                                              library: library)
        let palette = a.enumerated().map { ("A\($0.offset)", $0.element) } + b.enumerated().map { ("B\($0.offset)", $0.element) }
        return [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)].map { fx, fy in
            let x = Int(view.x / 2 + (fx - 0.5) * size.x), y = Int(view.y / 2 + (fy - 0.5) * size.y)
            let p = img.pixel(x, y)
            let c = (Double(p.r), Double(p.g), Double(p.b))
            let n = max(c.0 + c.1 + c.2, 1)
            return palette.min { l, r in
                func d(_ q: (Int, Int, Int)) -> Double {
                    let m = Double(max(q.0 + q.1 + q.2, 1))
                    return pow(c.0 / n - Double(q.0) / m, 2) + pow(c.1 / n - Double(q.1) / m, 2) + pow(c.2 / n - Double(q.2) / m, 2)
                        + 0.0001 * abs(n - m)
                }
                return d(l.1) < d(r.1)
            }!.0
        }
    }

    @Test(arguments: TurnStyle.all)
    func startsOnTheFirstEndsOnTheSecondAndHalfwayShowsTheRightHalves(_ style: TurnStyle) throws {
        let flip = FlipTransition(size: Self.size, style: style)
        #expect(try Self.seen(flip, progress: 0) == ["A0", "A1", "A2", "A3"])
        #expect(try Self.seen(flip, progress: 1) == ["B0", "B1", "B2", "B3"])
        // Halfway the sheet stands on edge: the first image's staying half and the second's revealed half.
        let expected: [String] = switch (style.direction, style.orientation) {
        case (.forward, .horizontal): ["A0", "B1", "A2", "B3"]
        case (.backward, .horizontal): ["B0", "A1", "B2", "A3"]
        case (.forward, .vertical): ["A0", "A1", "B2", "B3"]
        case (.backward, .vertical): ["B0", "B1", "A2", "A3"]
        }
        #expect(try Self.seen(flip, progress: 0.5) == expected, "\(style)")
    }

    /// A second image of another size is drawn at the first's size: its halves were left their
    /// own shape and each sat on a strip of white paper (two bars instead of the image).
    @Test func theSecondImageTakesTheFirstsSize() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-flip-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let flip = FlipTransition(size: Self.size)
        let tall = RGBAImage(width: 60, height: 200, fill: (40, 60, 220, 255))
        let library = try flip.library(first: Self.image(Self.a), second: tall, folder: folder)
        for page in library.books[0].pages {
            let half = try PNG.read(path: page.path)
            #expect(half.width == 80 && half.height == 100, "\(page): \(half.width)×\(half.height)")
        }
    }

    @Test(arguments: TurnDeform.allCases)
    func everyDeformationLandsOnTheSecond(_ deform: TurnDeform) throws {
        let flip = FlipTransition(size: Self.size, deform: deform)
        #expect(try Self.seen(flip, progress: 0) == ["A0", "A1", "A2", "A3"])
        #expect(try Self.seen(flip, progress: 1) == ["B0", "B1", "B2", "B3"])
    }
}
