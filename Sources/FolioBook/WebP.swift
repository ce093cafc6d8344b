import CWebP
import FolioImage
import Foundation

/// Decodes WebP (lossy and lossless, with alpha) through libwebp, scaled inside the decoder to
/// what the screen needs: comic archives hold WebP pages more and more, and a page of one was
/// left out of its book without a word. An animated WebP is refused with one line (libwebp's
/// still decoder does not read it).
public enum WebP {
    /// Whether `data` starts like a WebP file (a RIFF container of type WEBP).
    public static func sniff(_ data: [UInt8]) -> Bool {
        data.count >= 12 && data[0..<4].elementsEqual("RIFF".utf8) && data[8..<12].elementsEqual("WEBP".utf8)
    }

    /// The picture's size, checked against `maxPixels`.
    public static func size(of data: [UInt8], path: String = "<memory>", maxPixels: Int = PNG.defaultMaxPixels) throws -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0, animated: Int32 = 0
        let read = data.withUnsafeBufferPointer { folio_webp_info($0.baseAddress, $0.count, &w, &h, &animated) }
        guard read != 0, w > 0, h > 0 else { throw PageError.invalid(path: path, message: "not a valid WebP picture") }
        guard animated == 0 else { throw PageError.invalid(path: path, message: "an animated WebP picture; not shown") }
        guard Int(w) * Int(h) <= maxPixels else { throw PNGError.tooLarge(path: path, width: Int(w), height: Int(h), limit: maxPixels) }
        return (Int(w), Int(h))
    }

    /// Decodes to RGBA8, as large as fits in `fit` (never larger than the picture).
    public static func decode(_ data: [UInt8], path: String = "<memory>", fit: PixelSize? = nil,
                              maxPixels: Int = PNG.defaultMaxPixels) throws -> RGBAImage {
        let (width, height) = try size(of: data, path: path, maxPixels: maxPixels)
        let scale = fit.map { min(1, Double($0.width) / Double(width), Double($0.height) / Double(height)) } ?? 1
        let w = max(1, Int((Double(width) * scale).rounded())), h = max(1, Int((Double(height) * scale).rounded()))
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        let decoded = data.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { folio_webp_decode(src.baseAddress, src.count, $0.baseAddress, Int32(w), Int32(h)) }
        }
        guard decoded != 0 else { throw PageError.invalid(path: path, message: "not a valid WebP picture (libwebp cannot decode it)") }
        return RGBAImage(width: w, height: h, pixels: pixels)
    }
}
