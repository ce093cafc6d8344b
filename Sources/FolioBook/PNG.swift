import CPNG
import CPNGScaled
import FolioImage
import Foundation

/// Why a PNG could not be read or written; carries libpng's own words and the path.
public enum PNGError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalid(path: String, message: String)
    case tooLarge(path: String, width: Int, height: Int, limit: Int)
    case writeFailed(path: String, message: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): return "\(path): cannot read: \(reason)"
        case let .invalid(path, message): return "\(path): not a valid PNG: \(message)"
        case let .tooLarge(path, w, h, limit): return "\(path): image is \(w)×\(h), larger than the \(limit)-pixel limit"
        case let .writeFailed(path, message): return "\(path): cannot write PNG: \(message)"
        }
    }
}

/// Reads and writes PNG through libpng's simplified API.
public enum PNG {
    /// Images with more pixels than this are refused before any pixel memory is allocated
    /// (a header can claim 2³¹ × 2³¹).
    public static let defaultMaxPixels = 1 << 28

    /// Pages up to this many pixels (16 MB decoded) are decoded whole, whatever size they are
    /// shown at (`read(path:maxPixels:maxSide:fit:)`).
    public static let wholePixels = 1 << 22

    /// The largest side a page is read at when the caller names none.
    public static let defaultMaxSide = 4096

    /// What a PNG's signature and IHDR chunk say, checked without decoding any pixels.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var bitDepth: Int
        /// 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
        public var colorType: Int
        public var interlaced: Bool
    }

    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    /// Bytes a header check needs: the 8-byte signature and the 25-byte IHDR chunk.
    static let headerSize = 33

    /// Checks the signature and IHDR chunk (length, type, CRC, fields) and the pixel limit.
    /// Only the first 33 bytes are looked at.
    public static func header(of data: [UInt8], path: String = "<memory>", maxPixels: Int = defaultMaxPixels) throws -> Header {
        func fail(_ m: String) -> PNGError { .invalid(path: path, message: m) }
        guard !data.isEmpty else { throw fail("file is empty") }
        guard data.count >= 8, data[0..<8].elementsEqual(signature) else {
            throw fail("not a PNG file (wrong signature)")
        }
        guard data.count >= headerSize else { throw fail("file is truncated inside the header") }
        func u32(_ i: Int) -> UInt32 { data[i..<i + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        guard u32(8) == 13, data[12..<16].elementsEqual(Array("IHDR".utf8)) else { throw fail("first chunk is not a valid IHDR") }
        guard crc32(data[12..<29]) == u32(29) else { throw fail("IHDR CRC error") }
        let w = Int(u32(16)), h = Int(u32(20)), depth = Int(data[24]), type = Int(data[25])
        guard w > 0, h > 0 else { throw fail("image has zero size (\(w)×\(h))") }
        guard w < 1 << 31, h < 1 << 31 else { throw fail("invalid dimensions \(w)×\(h)") }
        let depths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard depths[type]?.contains(depth) == true else { throw fail("invalid colour type \(type) with bit depth \(depth)") }
        guard data[26] == 0, data[27] == 0, data[28] <= 1 else { throw fail("unknown compression, filter or interlace method") }
        guard w * h <= maxPixels else { throw PNGError.tooLarge(path: path, width: w, height: h, limit: maxPixels) }
        return Header(width: w, height: h, bitDepth: depth, colorType: type, interlaced: data[28] == 1)
    }

    /// Checks a file's PNG header, reading only its first 33 bytes.
    public static func header(path: String, maxPixels: Int = defaultMaxPixels) throws -> Header {
        try header(of: readBytes(path: path, limit: headerSize), path: path, maxPixels: maxPixels)
    }

    /// Decodes any PNG libpng reads (palette, grey, grey + alpha, 16-bit, interlaced, tRNS) to
    /// RGBA8. The header is checked before any pixel memory is allocated.
    public static func decode(_ data: [UInt8], path: String = "<memory>", maxPixels: Int = defaultMaxPixels) throws -> RGBAImage {
        let head = try header(of: data, path: path, maxPixels: maxPixels)
        let (w, h) = (head.width, head.height)
        // libpng 1.6.39's simplified reader scrambles the rows of interlaced 16-bit images when
        // it reduces them to 8 bits (the tests catch it); its 16-bit linear output is right, so
        // those images are read that way and reduced here.
        if head.bitDepth == 16 && head.interlaced {
            var linear = [UInt16](repeating: 0, count: w * h * 4)
            try finishRead(data, path: path, format: folio_png_format_rgba | UInt32(PNG_FORMAT_FLAG_LINEAR), into: &linear, rowStride: w * 4)
            return RGBAImage(width: w, height: h, pixels: gammaEncode(premultipliedLinear: linear))
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        try finishRead(data, path: path, format: folio_png_format_rgba, into: &pixels, rowStride: w * 4)
        return RGBAImage(width: w, height: h, pixels: pixels)
    }

    /// Runs libpng's simplified reader over `data` into `buffer` (`rowStride` in components).
    private static func finishRead<T>(_ data: [UInt8], path: String, format: UInt32, into buffer: inout [T], rowStride: Int) throws {
        var image = png_image()
        image.version = folio_png_image_version
        defer { png_image_free(&image) }
        // libpng keeps the pointer between begin and finish, so both run inside one closure.
        let failure: String? = data.withUnsafeBytes { raw in
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else { return message(of: &image) }
            image.format = format
            // 16-bit files without gAMA/sRGB are almost always sRGB-encoded; without this flag
            // libpng takes them as linear and brightens them on the way to 8 bits.
            image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
            let ok = buffer.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(rowStride), nil) }
            return ok != 0 ? nil : message(of: &image)
        }
        if let failure { throw PNGError.invalid(path: path, message: failure) }
    }

    /// Premultiplied linear RGBA16 (libpng's linear format) to straight RGBA8 with the 2.2 gamma
    /// libpng's simplified API uses for sRGB.
    private static func gammaEncode(premultipliedLinear p: [UInt16]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: p.count)
        for i in stride(from: 0, to: p.count, by: 4) {
            let a = Double(p[i + 3])
            out[i + 3] = UInt8((a / 257).rounded())
            guard a > 0 else { continue }
            for c in 0..<3 { out[i + c] = UInt8((pow(min(1, Double(p[i + c]) / a), 1 / 2.2) * 255).rounded()) }
        }
        return out
    }

    /// Reads a PNG file to RGBA8, no larger than `maxSide` × `maxSide` nor, when it is larger
    /// than `wholePixels`, than `fit` (aspect kept, as `scaledToFit`); the header is checked
    /// before the rest of the file is read.
    ///
    /// Memory follows the size the image is shown at, not the size its header claims: an image
    /// that fits is decoded whole; a larger one is read a row at a time and scaled down as the
    /// rows arrive, so a 12000 × 12000 page shown 400 pixels high costs its 400-pixel copy and
    /// two rows, and a file that claims more than it holds fails before much memory is taken.
    /// Pages of a few megapixels are decoded whole whatever `fit` says: a zoom then needs no
    /// second reading of the file.
    public static func read(path: String, maxPixels: Int = defaultMaxPixels, maxSide: Int = defaultMaxSide,
                            fit: PixelSize? = nil) throws -> RGBAImage {
        let head = try header(path: path, maxPixels: maxPixels)
        let size = readSize(of: head, maxSide: maxSide, fit: fit)
        guard size.width < head.width || size.height < head.height else {
            return try decode(readBytes(path: path), path: path, maxPixels: maxPixels)
        }
        let fd: Int32
        do { fd = try InputFile.open(path) } catch { throw PNGError.unreadable(path: path, reason: error.reason) }
        defer { close(fd) }
        return try scaled(path: path, to: size) { folio_png_read_scaled(fd, UInt32(size.width), UInt32(size.height), &$0) }
    }

    /// A PNG in memory decoded as `read(path:maxPixels:maxSide:fit:)` reads a file: a large one
    /// scaled to `fit` as its rows are inflated, never whole.
    public static func decode(_ data: [UInt8], path: String, maxPixels: Int = defaultMaxPixels, maxSide: Int = defaultMaxSide,
                              fit: PixelSize) throws -> RGBAImage {
        let head = try header(of: data, path: path, maxPixels: maxPixels)
        let size = readSize(of: head, maxSide: maxSide, fit: fit)
        guard size.width < head.width || size.height < head.height else { return try decode(data, path: path, maxPixels: maxPixels) }
        return try scaled(path: path, to: size) { result in
            data.withUnsafeBufferPointer { folio_png_read_scaled_memory($0.baseAddress, $0.count, UInt32(size.width), UInt32(size.height), &result) }
        }
    }

    /// The image `read` (a scaled reader of the C side) makes, `size` large, or its error.
    private static func scaled(path: String, to size: PixelSize, _ read: (inout folio_png_scaled) -> Int32) throws -> RGBAImage {
        var result = folio_png_scaled()
        defer { free(result.pixels) }
        guard read(&result) != 0, let pixels = result.pixels else {
            let message = withUnsafeBytes(of: &result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw PNGError.invalid(path: path, message: message)
        }
        return RGBAImage(width: size.width, height: size.height, pixels: [UInt8](UnsafeBufferPointer(start: pixels, count: size.width * size.height * 4)))
    }

    /// Whether an image of header `head` read for `fit` is smaller than it is read for any size
    /// (shown larger, it is sharper read again).
    public static func isScaled(_ head: Header, maxSide: Int, fit: PixelSize) -> Bool {
        readSize(of: head, maxSide: maxSide, fit: fit) != readSize(of: head, maxSide: maxSide, fit: nil)
    }

    /// The size `read(path:maxPixels:maxSide:fit:)` gives an image of header `head`.
    public static func readSize(of head: Header, maxSide: Int, fit: PixelSize?) -> PixelSize {
        var bound = PixelSize(width: maxSide, height: maxSide)
        if let fit, head.width * head.height > wholePixels {
            bound = PixelSize(width: max(1, min(fit.width, maxSide)), height: max(1, min(fit.height, maxSide)))
        }
        guard head.width > bound.width || head.height > bound.height else { return PixelSize(width: head.width, height: head.height) }
        let scale = min(Double(bound.width) / Double(head.width), Double(bound.height) / Double(head.height))
        return PixelSize(width: max(1, min(bound.width, Int((Double(head.width) * scale).rounded()))),
                         height: max(1, min(bound.height, Int((Double(head.height) * scale).rounded()))))
    }

    /// Reads a regular file's bytes (at most `limit` of them), turning every failure into
    /// `PNGError.unreadable`. A page read whole is at most 4096 × 4096 pixels, so a file of more
    /// than 256 MB is not one.
    public static func readBytes(path: String, limit: Int? = nil) throws -> [UInt8] {
        do {
            return try InputFile.read(path, limit: limit, maxBytes: 1 << 28)
        } catch {
            throw PNGError.unreadable(path: path, reason: error.reason)
        }
    }

    /// Encodes RGBA8 to PNG bytes. `compression` 0 (none, fastest) … 9 (smallest); `bottomUp`
    /// says the rows are stored bottom to top, as `glReadPixels` returns them.
    public static func encode(_ img: RGBAImage, compression: Int = 1, bottomUp: Bool = false) throws -> [UInt8] {
        let row = img.width * 4
        return try encode(width: img.width, height: img.height, rowStride: bottomUp ? -row : row, compression: compression) { body in
            img.pixels.withUnsafeBytes { body($0.baseAddress!) }
        }
    }

    private static func encode(width: Int, height: Int, rowStride: Int, compression: Int,
                               pixels: ((UnsafeRawPointer) -> [UInt8]?) -> [UInt8]?) throws -> [UInt8] {
        guard width > 0, height > 0 else { throw PNGError.writeFailed(path: "<memory>", message: "image has zero size") }
        var failure = ""
        let bytes = pixels { base -> [UInt8]? in
            var buffer = folio_png_buffer()
            defer { free(buffer.data) }
            let ok = folio_png_encode_rgba(base.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height),
                                           rowStride, Int32(clamp(compression, 0, 9)), &buffer)
            guard ok != 0, let data = buffer.data else {
                failure = withUnsafeBytes(of: &buffer.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                return nil
            }
            return [UInt8](UnsafeBufferPointer(start: data, count: buffer.size))
        }
        guard let bytes else { throw PNGError.writeFailed(path: "<memory>", message: failure) }
        return bytes
    }

    /// Encodes RGBA8 to PNG and writes it (see `OutputFile` for what happens to what is there).
    public static func write(_ img: RGBAImage, to file: OutputFile, compression: Int = 1, bottomUp: Bool = false) throws {
        let bytes: [UInt8]
        do {
            bytes = try encode(img, compression: compression, bottomUp: bottomUp)
        } catch PNGError.writeFailed(_, let m) {
            throw PNGError.writeFailed(path: file.path, message: m)
        }
        try file.write(bytes)
    }

    /// Writes RGBA8 to a PNG file at `path`, replacing what is there (tests, references).
    public static func write(_ img: RGBAImage, to path: String, compression: Int = 1, bottomUp: Bool = false) throws {
        try write(img, to: OutputFile(path, replace: .always), compression: compression, bottomUp: bottomUp)
    }

    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// The CRC-32 of PNG chunks (and zip): reflected polynomial 0xEDB88320.
func crc32<C: Collection>(_ bytes: C, start: UInt32 = 0) -> UInt32 where C.Element == UInt8 {
    var c = ~start
    for b in bytes {
        c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8)
    }
    return ~c
}

private let crcTable: [UInt32] = (0..<256).map { n in
    (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
}

@inlinable func clamp<T: Comparable>(_ x: T, _ lo: T, _ hi: T) -> T { min(max(x, lo), hi) }

extension PNGError {
    /// The error's words without the path, for a `Problem` that names the file itself.
    public static func reason(of error: Error) -> String {
        if let e = error as? PageError { return e.reason }
        guard let e = error as? PNGError else { return "\(error)" }
        switch e {
        case let .unreadable(_, reason): return "cannot read: \(reason)"
        case let .invalid(_, message): return "not a valid PNG: \(message)"
        case let .tooLarge(_, w, h, limit): return "image is \(w)×\(h), more than the \(limit)-pixel limit"
        case let .writeFailed(_, message): return "cannot write: \(message)"
        }
    }
}
