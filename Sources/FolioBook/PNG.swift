import CPNG
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

    /// The width and height in the header, read without decoding the pixels.
    public static func header(of data: [UInt8], path: String = "<memory>") throws -> (width: Int, height: Int) {
        var image = png_image()
        image.version = folio_png_image_version
        defer { png_image_free(&image) }
        let ok = data.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw PNGError.invalid(path: path, message: message(of: &image)) }
        return (Int(image.width), Int(image.height))
    }

    /// Decodes any PNG libpng reads (palette, grey, 16-bit, interlaced, transparency) to RGBA8.
    public static func decode(_ data: [UInt8], path: String = "<memory>", maxPixels: Int = defaultMaxPixels) throws -> RGBAImage {
        guard !data.isEmpty else { throw PNGError.invalid(path: path, message: "file is empty") }
        var image = png_image()
        image.version = folio_png_image_version
        defer { png_image_free(&image) }
        let ok = data.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw PNGError.invalid(path: path, message: message(of: &image)) }
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0 else { throw PNGError.invalid(path: path, message: "image has zero size") }
        guard w * h <= maxPixels else { throw PNGError.tooLarge(path: path, width: w, height: h, limit: maxPixels) }
        image.format = folio_png_format_rgba
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        let done = data.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w * 4), nil) }
        }
        guard done != 0 else { throw PNGError.invalid(path: path, message: message(of: &image)) }
        return RGBAImage(width: w, height: h, pixels: pixels)
    }

    /// Reads a PNG file to RGBA8.
    public static func read(path: String, maxPixels: Int = defaultMaxPixels) throws -> RGBAImage {
        try decode(readBytes(path: path), path: path, maxPixels: maxPixels)
    }

    /// Reads a file's bytes, turning every failure into `PNGError.unreadable`.
    public static func readBytes(path: String) throws -> [UInt8] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw PNGError.unreadable(path: path, reason: "no such file")
        }
        guard !isDir.boolValue else { throw PNGError.unreadable(path: path, reason: "is a directory") }
        guard let d = FileManager.default.contents(atPath: path) else {
            throw PNGError.unreadable(path: path, reason: "permission denied or I/O error")
        }
        return [UInt8](d)
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

    /// Writes RGBA8 to a PNG file.
    public static func write(_ img: RGBAImage, to path: String, compression: Int = 1, bottomUp: Bool = false) throws {
        let bytes: [UInt8]
        do {
            bytes = try encode(img, compression: compression, bottomUp: bottomUp)
        } catch PNGError.writeFailed(_, let m) {
            throw PNGError.writeFailed(path: path, message: m)
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw PNGError.writeFailed(path: path, message: "cannot create the file")
        }
    }

    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

@inlinable func clamp<T: Comparable>(_ x: T, _ lo: T, _ hi: T) -> T { min(max(x, lo), hi) }
