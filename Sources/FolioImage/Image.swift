/// An 8-bit RGBA image, rows top to bottom.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes, row-major, top row first.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4, "pixel count does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The colour of paper with nothing printed on it: a book's blank faces and the pages of
    /// books Folio sets itself (reflowable e-books).
    public static let blankPaper: (UInt8, UInt8, UInt8, UInt8) = (247, 242, 230, 255)

    /// A solid image.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)) {
        var p = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: p.count, by: 4) {
            p[i] = fill.0; p[i + 1] = fill.1; p[i + 2] = fill.2; p[i + 3] = fill.3
        }
        self.init(width: width, height: height, pixels: p)
    }

    @inlinable public func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    public mutating func setPixel(_ x: Int, _ y: Int, _ c: (UInt8, UInt8, UInt8, UInt8)) {
        let i = (y * width + x) * 4
        pixels[i] = c.0; pixels[i + 1] = c.1; pixels[i + 2] = c.2; pixels[i + 3] = c.3
    }

    /// The same image upside down (GL reads rows bottom to top).
    public func flippedVertically() -> RGBAImage {
        let row = width * 4
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            let src = (height - 1 - y) * row
            out.replaceSubrange(y * row..<(y + 1) * row, with: pixels[src..<src + row])
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }
}
