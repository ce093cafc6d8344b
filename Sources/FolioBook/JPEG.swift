import CJPEG
import FolioImage
import Foundation

/// Decodes JPEG through libjpeg-turbo: baseline and progressive, greyscale, RGB, CMYK and
/// YCCK (Adobe's inverted CMYK included). A photo larger than the page needs is decoded at
/// 1/2, 1/4 or 1/8 scale inside libjpeg, which is several times faster and never holds the
/// full-size pixels. libjpeg's error longjmp stays in C (`Sources/CJPEG/shim.h`). The EXIF
/// orientation is honoured: sizes and pixels are those of the picture as it is to be seen.
/// A progressive file whose coefficients would need more than `coefficientBudget` bytes (libjpeg
/// holds them whole, whatever the scale) is decoded at 1/8 scale from its DC scans alone
/// (`folio_jpeg_decode_dc`; a CMYK one is refused with one line); one of more than 500 scans is
/// refused with one line. A decode still
/// running after `PageSources.decodeTimeout` is given up, freeing its thread.
public enum JPEG {
    /// Whether `data` starts like a JPEG (SOI marker).
    public static func sniff(_ data: [UInt8]) -> Bool { data.count >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF }

    /// Bytes libjpeg may hold for a progressive image's coefficients (2 per sample, all
    /// scans' worth at once): 16 000 × 16 000 in colour would take 770 MB.
    public static let coefficientBudget = Int(FOLIO_JPEG_MEMORY)

    /// The picture's size as it is seen (its EXIF orientation applied), checked against `maxPixels`.
    public static func size(of data: [UInt8], path: String = "<memory>", maxPixels: Int = PNG.defaultMaxPixels) throws -> (width: Int, height: Int) {
        let (w, h) = try storedSize(of: data, path: path, maxPixels: maxPixels)
        return orientation(of: data) >= 5 ? (h, w) : (w, h)
    }

    /// The size of the stored pixels, from the header.
    private static func storedSize(of data: [UInt8], path: String, maxPixels: Int) throws -> (width: Int, height: Int) {
        var header = folio_jpeg_header()
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let status = data.withUnsafeBufferPointer { folio_jpeg_decode($0.baseAddress, $0.count, &header, 1, nil, 0, 0, 0, &message) }
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
    /// Given up after `timeout` seconds (`PageSources.decodeTimeout` when nil).
    public static func decode(_ data: [UInt8], path: String = "<memory>", fit: PixelSize? = nil,
                              maxPixels: Int = PNG.defaultMaxPixels, timeout: TimeInterval? = nil) throws -> (image: RGBAImage, warning: String?) {
        let (width, height) = try storedSize(of: data, path: path, maxPixels: maxPixels)
        let orientation = orientation(of: data)
        // `fit` is for the picture as seen: turned a quarter, its sides swap.
        let stored = fit.map { orientation >= 5 ? PixelSize(width: $0.height, height: $0.width) : $0 }
        let denom = stored.map { denominator(width: width, height: height, fit: $0) } ?? 1
        var w: Int32 = 0, h: Int32 = 0
        folio_jpeg_scaled_size(Int32(width), Int32(height), Int32(denom), &w, &h)
        var pixels = [UInt8](repeating: 0, count: Int(w) * Int(h) * 4)
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        var header = folio_jpeg_header()
        let seconds = timeout ?? PageSources.decodeTimeout
        let deadline = folio_jpeg_now() + seconds
        var status = data.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer {
                folio_jpeg_decode(src.baseAddress, src.count, &header, Int32(denom), $0.baseAddress, w, h, deadline, &message)
            }
        }
        var image = RGBAImage(width: Int(w), height: Int(h), pixels: pixels)
        var warning: String?
        if status == 3 {
            // Its coefficients do not fit: the DC scans alone give it at 1/8 scale.
            (image, status) = eighth(data, width: width, height: height, deadline: deadline, message: &message)
            if denom < 8, status == 0 {
                warning = "progressive JPEG of \(width)×\(height) shown at 1/8 scale (in full it needs more than \(coefficientBudget >> 20) MiB to decode)"
            }
        }
        guard status != 3 else {
            throw PageError.invalid(path: path, message: "progressive CMYK JPEG of \(width)×\(height) needs more than "
                + "\(coefficientBudget >> 20) MiB to decode; not shown")
        }
        guard status != 4 else { throw PageError.invalid(path: path, message: "progressive JPEG of more than \(FOLIO_JPEG_MAX_SCANS) scans; not shown") }
        guard status != 5 else { throw PageError.invalid(path: path, message: PageSources.abandoned(after: seconds)) }
        guard status != 1 else { throw PageError.invalid(path: path, message: "not a valid JPEG: " + string(message)) }
        return (image.oriented(exif: orientation), status == 2 ? string(message) : warning)
    }

    /// A progressive JPEG of `width × height` at 1/8 scale from its DC scans alone, and the
    /// status of `folio_jpeg_decode_dc` (0: done).
    static func eighth(_ data: [UInt8], width: Int, height: Int, deadline: Double = 0,
                       message: inout [CChar]) -> (image: RGBAImage, status: Int32) {
        var w: Int32 = 0, h: Int32 = 0
        folio_jpeg_scaled_size(Int32(width), Int32(height), 8, &w, &h)
        var pixels = [UInt8](repeating: 0, count: Int(w) * Int(h) * 4)
        let status = data.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { folio_jpeg_decode_dc(src.baseAddress, src.count, $0.baseAddress, w, h, deadline, &message) }
        }
        return (RGBAImage(width: Int(w), height: Int(h), pixels: pixels), status)
    }

    /// The EXIF orientation (1…8) of a JPEG's APP1 segment, 1 when there is none: how a
    /// camera held sideways or upside down says its pixels are to be turned.
    public static func orientation(of data: [UInt8]) -> Int {
        var i = 2
        // Markers up to the start of the scan: APP1 comes early when it is there at all.
        while i + 4 <= data.count, data[i] == 0xFF, data[i + 1] != 0xDA {
            let length = Int(data[i + 2]) << 8 | Int(data[i + 3])
            let body = i + 4, end = min(data.count, i + 2 + length)
            if data[i + 1] == 0xE1, end - body > 14, Array(data[body..<body + 6]) == Array("Exif\0\0".utf8) {
                return tiffOrientation(Array(data[body + 6..<end])) ?? 1
            }
            guard length >= 2 else { return 1 }
            i += 2 + length
        }
        return 1
    }

    /// Tag 0x0112 of a TIFF header's first IFD.
    private static func tiffOrientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8, t[0] == t[1], t[0] == 0x49 || t[0] == 0x4D else { return nil }
        let little = t[0] == 0x49
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= t.count else { return nil }
            return little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for n in 0..<min(count, 256) {
            let entry = ifd + 2 + 12 * n
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let value = u16(entry + 8), (1...8).contains(value) { return value }
        }
        return nil
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
