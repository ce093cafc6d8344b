import Foundation
@testable import FolioBook

/// Writes PNGs of any colour type, bit depth and interlacing, for the decoder tests. The
/// image data is deflate-"compressed" with stored blocks, which every inflater reads, so no
/// zlib is needed here.
enum TestPNG {
    /// Samples per pixel for each colour type.
    static let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4]

    /// `sample(x, y)` gives the pixel's raw samples (palette index for type 3) at `bitDepth`.
    static func make(width: Int, height: Int, colorType: Int, bitDepth: Int, interlaced: Bool = false,
                     palette: [(UInt8, UInt8, UInt8)] = [], transparency: [UInt8]? = nil,
                     sample: (Int, Int) -> [Int]) -> [UInt8] {
        var out: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        out += chunk("IHDR", be32(width) + be32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, interlaced ? 1 : 0])
        if !palette.isEmpty { out += chunk("PLTE", palette.flatMap { [$0.0, $0.1, $0.2] }) }
        if let transparency { out += chunk("tRNS", transparency) }
        let passes = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes {
            let xs = Array(stride(from: x0, to: width, by: dx)), ys = Array(stride(from: y0, to: height, by: dy))
            guard !xs.isEmpty else { continue }  // empty passes have no rows at all
            for y in ys {
                raw.append(0)  // filter: none
                raw += packRow(xs.map { sample($0, y) }, bitDepth: bitDepth)
            }
        }
        out += chunk("IDAT", zlibStored(raw))
        out += chunk("IEND", [])
        return out
    }

    static func packRow(_ pixels: [[Int]], bitDepth: Int) -> [UInt8] {
        let samples = pixels.flatMap { $0 }
        if bitDepth == 16 { return samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        if bitDepth == 8 { return samples.map { UInt8($0) } }
        var row = [UInt8](repeating: 0, count: (samples.count * bitDepth + 7) / 8)
        for (i, s) in samples.enumerated() {
            let bit = i * bitDepth
            row[bit / 8] |= UInt8(s << (8 - bitDepth - bit % 8))
        }
        return row
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var blocks = stride(from: 0, to: data.count, by: 65535).map { data[$0..<min($0 + 65535, data.count)] }
        if blocks.isEmpty { blocks = [[]] }
        for (i, block) in blocks.enumerated() {
            let n = block.count
            out += [i == blocks.count - 1 ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += block
        }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    /// A small opaque RGBA PNG (8-bit), the page of generated books.
    static func page(width: Int = 16, height: Int = 24, shade: Int = 200) -> [UInt8] {
        make(width: width, height: height, colorType: 6, bitDepth: 8) { x, y in [shade, x * 8 % 256, y * 8 % 256, 255] }
    }
}

/// A fresh temporary folder, removed when the test ends.
final class TempDir {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "folio-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        chmodTree(path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Undo any `chmod 000` a test left, so the folder can be removed.
    private func chmodTree(_ p: String) {
        chmod(p, 0o755)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: p)) ?? [] {
            var isDir: ObjCBool = false
            let child = p + "/" + name
            if FileManager.default.fileExists(atPath: child, isDirectory: &isDir), isDir.boolValue { chmodTree(child) }
        }
    }

    /// Writes `bytes` (or text) at `relative`, creating folders; returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8]) -> String {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        precondition(FileManager.default.createFile(atPath: full, contents: Data(bytes)))
        return full
    }

    @discardableResult
    func write(_ relative: String, text: String) -> String { write(relative, Array(text.utf8)) }

    func mkdir(_ relative: String) -> String {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return full
    }
}
