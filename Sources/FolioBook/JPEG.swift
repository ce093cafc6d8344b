import CJPEG
import Foundation

/// Decodes JPEG through libjpeg-turbo: baseline and progressive, greyscale, RGB, CMYK and
/// YCCK (Adobe's inverted CMYK included). A photo larger than the page needs is decoded at
/// 1/2, 1/4 or 1/8 scale inside libjpeg, which is several times faster and never holds the
/// full-size pixels. libjpeg's error longjmp stays in C (`Sources/CJPEG/shim.h`).
public enum JPEG {
    /// Whether `data` starts like a JPEG (SOI marker).
    public static func sniff(_ data: [UInt8]) -> Bool { data.count >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF }

    /// The image's size from its header, checked against `maxPixels`.
    public static func size(of data: [UInt8], path: String = "<memory>", maxPixels: Int = PNG.defaultMaxPixels) throws -> (width: Int, height: Int) {
        var header = folio_jpeg_header()
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let status = data.withUnsafeBufferPointer { folio_jpeg_decode($0.baseAddress, $0.count, &header, 1, nil, 0, 0, &message) }
        guard status == 0 else { throw PageError.invalid(path: path, message: "not a valid JPEG: " + string(message)) }
        guard header.width > 0, header.height > 0 else { throw PageError.invalid(path: path, message: "JPEG has zero size") }
        let (w, h) = (Int(header.width), Int(header.height))
        guard w * h <= maxPixels else { throw PNGError.tooLarge(path: path, width: w, height: h, limit: maxPixels) }
        return (w, h)
    }

    /// The largest of 1, 2, 4, 8 that still gives the image at least the size it has when
    /// fitted into `fit`: what the screen needs, never less.
    static func denominator(width: Int, height: Int, fit: PixelSize) -> Int {
        let scale = min(Double(fit.width) / Double(width), Double(fit.height) / Double(height))
        var d = 1
        while d < 8, 1 / Double(d * 2) >= scale { d *= 2 }
        return d
    }

    /// Decodes to RGBA8, at a reduced scale when fitting it into `fit` would shrink it by half
    /// or more. A file that ends early decodes (the rest grey) and reports that in `warning`.
    public static func decode(_ data: [UInt8], path: String = "<memory>", fit: PixelSize? = nil,
                              maxPixels: Int = PNG.defaultMaxPixels) throws -> (image: RGBAImage, warning: String?) {
        let (width, height) = try size(of: data, path: path, maxPixels: maxPixels)
        let denom = fit.map { denominator(width: width, height: height, fit: $0) } ?? 1
        var w: Int32 = 0, h: Int32 = 0
        folio_jpeg_scaled_size(Int32(width), Int32(height), Int32(denom), &w, &h)
        var pixels = [UInt8](repeating: 0, count: Int(w) * Int(h) * 4)
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        var header = folio_jpeg_header()
        let status = data.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer {
                folio_jpeg_decode(src.baseAddress, src.count, &header, Int32(denom), $0.baseAddress, w, h, &message)
            }
        }
        guard status != 1 else { throw PageError.invalid(path: path, message: "not a valid JPEG: " + string(message)) }
        return (RGBAImage(width: Int(w), height: Int(h), pixels: pixels), status == 2 ? string(message) : nil)
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
