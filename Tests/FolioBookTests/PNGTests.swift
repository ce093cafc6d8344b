@testable import FolioBook
import FolioImage
import XCTest

final class PNGTests: XCTestCase {
    /// Every colour type with every bit depth PNG allows, plain and Adam7-interlaced, decodes
    /// to the RGBA8 the samples describe. 13 × 11 leaves every interlace pass partial.
    func testEveryColourTypeAndBitDepthDecodesToRGBA8() throws {
        let depths = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        let (w, h) = (13, 11)
        for (type, list) in depths.sorted(by: { $0.key < $1.key }) {
            for depth in list {
                for interlaced in [false, true] {
                    let maxSample = (1 << depth) - 1
                    let palette: [(UInt8, UInt8, UInt8)] = (0...maxSample).map { (i: Int) in
                        let r = i * 37 % 256, g = 255 - i * 11 % 256, b = i * 5 % 256
                        return (UInt8(r), UInt8(g), UInt8(b))
                    }
                    // 8-bit values (scaled up to the depth) so the expected RGBA8 is exact.
                    func v8(_ x: Int, _ y: Int, _ c: Int) -> Int { (x * 19 + y * 7 + c * 53) % 256 }
                    func sample(_ x: Int, _ y: Int) -> [Int] {
                        if type == 3 || depth < 8 { return [(x + y * 3) % (maxSample + 1)] }
                        return (0..<TestPNG.channels[type]!).map { c in depth == 16 ? v8(x, y, c) * 257 : v8(x, y, c) }
                    }
                    let png = TestPNG.make(width: w, height: h, colorType: type, bitDepth: depth, interlaced: interlaced,
                                           palette: type == 3 ? palette : [], sample: sample)
                    let name = "type \(type), \(depth)-bit\(interlaced ? ", interlaced" : "")"
                    let img = try PNG.decode(png, path: name)
                    XCTAssertEqual(img.width, w, name)
                    XCTAssertEqual(img.height, h, name)
                    for y in 0..<h {
                        for x in 0..<w {
                            let s = sample(x, y)
                            let expected: [Int]
                            switch type {
                            case 3: let c = palette[s[0]]; expected = [Int(c.0), Int(c.1), Int(c.2), 255]
                            case 0 where depth < 8: let g = s[0] * 255 / maxSample; expected = [g, g, g, 255]
                            case 0: expected = [v8(x, y, 0), v8(x, y, 0), v8(x, y, 0), 255]
                            case 2: expected = [v8(x, y, 0), v8(x, y, 1), v8(x, y, 2), 255]
                            case 4: expected = [v8(x, y, 0), v8(x, y, 0), v8(x, y, 0), v8(x, y, 1)]
                            default: expected = (0..<4).map { v8(x, y, $0) }
                            }
                            let p = img.pixel(x, y)
                            let got = [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
                            // Colour of (nearly) transparent pixels is not kept exactly by libpng.
                            let colourMatters = expected[3] > 8
                            // Interlaced 16-bit goes through 16-bit premultiplied linear (see PNG.decode),
                            // which loses a little in dark translucent colours.
                            let tolerance = depth == 16 && interlaced ? 3 : 1
                            for c in 0..<4 where c == 3 || colourMatters {
                                guard abs(got[c] - expected[c]) <= (c == 3 ? 1 : tolerance) else {
                                    return XCTFail("\(name): pixel (\(x), \(y)) is \(got), expected \(expected)")
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// tRNS gives palette entries their alpha, and makes one grey or RGB colour transparent.
    func testTransparencyChunk() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        let pal = try PNG.decode(TestPNG.make(width: 3, height: 1, colorType: 3, bitDepth: 8, palette: palette,
                                              transparency: [0, 128]) { x, _ in [x] })
        XCTAssertEqual(pal.pixel(0, 0).a, 0)
        XCTAssertEqual(pal.pixel(1, 0).a, 128)
        XCTAssertEqual(pal.pixel(2, 0).a, 255)
        XCTAssertEqual(pal.pixel(2, 0).b, 255)

        let grey = try PNG.decode(TestPNG.make(width: 2, height: 1, colorType: 0, bitDepth: 4,
                                               transparency: [0, 5]) { x, _ in [x == 0 ? 5 : 9] })
        XCTAssertEqual(grey.pixel(0, 0).a, 0)
        XCTAssertEqual(grey.pixel(1, 0).a, 255)
        XCTAssertEqual(grey.pixel(1, 0).r, 153)  // 9 · 17

        let rgb = try PNG.decode(TestPNG.make(width: 2, height: 1, colorType: 2, bitDepth: 16, interlaced: true,
                                              transparency: [0, 1, 0, 2, 0, 3]) { x, _ in x == 0 ? [1, 2, 3] : [1, 2, 4] })
        XCTAssertEqual(rgb.pixel(0, 0).a, 0)
        XCTAssertEqual(rgb.pixel(1, 0).a, 255)
    }

    func testRoundTripThroughEncoder() throws {
        var img = RGBAImage(width: 5, height: 3, fill: (10, 20, 30, 255))
        img.setPixel(4, 2, (200, 100, 50, 128))
        XCTAssertEqual(try PNG.decode(PNG.encode(img, compression: 6)), img)
        XCTAssertEqual(try PNG.decode(PNG.encode(img, bottomUp: true)), img.flippedVertically())
    }

    // MARK: Broken input: a typed error naming the file, and no large allocation

    func assertInvalid(_ bytes: [UInt8], mentions words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try PNG.decode(bytes, path: "/books/x.png"), file: file, line: line) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("/books/x.png"), "should name the file: \(text)", file: file, line: line)
            XCTAssertTrue(text.localizedCaseInsensitiveContains(words), "\(text) should mention \(words)", file: file, line: line)
        }
    }

    func testBrokenFilesGiveTypedErrors() {
        let good = TestPNG.page()
        assertInvalid([], mentions: "empty")
        assertInvalid(Array("GIF89a not a png at all".utf8), mentions: "signature")
        assertInvalid(Array(good.prefix(20)), mentions: "truncated")
        // Cut inside the image data: libpng's own words come back.
        assertInvalid(Array(good.prefix(good.count - 40)), mentions: "not a valid PNG")
        // A flipped byte inside IDAT breaks its CRC.
        var corrupt = good
        corrupt[60] ^= 0xFF
        assertInvalid(corrupt, mentions: "not a valid PNG")
        // A flipped byte in IHDR is caught by the header check.
        var badHeader = good
        badHeader[17] ^= 0x01
        assertInvalid(badHeader, mentions: "CRC")
    }

    func testZeroSizedAndAbsurdHeadersAreRefusedBeforeDecoding() {
        // Only the header is valid: were it trusted, decoding would allocate first and fail later.
        func header(_ w: Int, _ h: Int) -> [UInt8] {
            [137, 80, 78, 71, 13, 10, 26, 10] + TestPNG.chunk("IHDR", TestPNG.be32(w) + TestPNG.be32(h) + [8, 6, 0, 0, 0])
        }
        assertInvalid(header(0, 100), mentions: "zero size")
        assertInvalid(header(100, 0), mentions: "zero size")
        assertInvalid(header(0x8000_0000, 10), mentions: "invalid dimensions")
        XCTAssertThrowsError(try PNG.decode(header(100_000, 100_000), path: "/books/huge.png")) { error in
            guard case let PNGError.tooLarge(path, w, h, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual([path, "\(w)", "\(h)"], ["/books/huge.png", "100000", "100000"])
        }
        XCTAssertThrowsError(try PNG.header(of: header(64, 64), maxPixels: 1000))
    }

    func testFilesThatCannotBeRead() throws {
        let dir = TempDir()
        XCTAssertThrowsError(try PNG.read(path: dir.path + "/missing.png")) { error in
            XCTAssertEqual(error as? PNGError, .unreadable(path: dir.path + "/missing.png", reason: "No such file or directory"))
        }
        XCTAssertThrowsError(try PNG.read(path: dir.mkdir("folder.png"))) { error in
            XCTAssertEqual(error as? PNGError, .unreadable(path: dir.path + "/folder.png", reason: "is a folder, not a file"))
        }
        let ok = dir.write("ok.png", TestPNG.page(width: 3, height: 2))
        XCTAssertEqual(try PNG.header(path: ok), PNG.Header(width: 3, height: 2, bitDepth: 8, colorType: 6, interlaced: false))
        XCTAssertEqual(try PNG.read(path: ok).width, 3)
    }
}
