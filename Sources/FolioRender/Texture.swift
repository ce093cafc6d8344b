import COpenGL
import FolioImage

/// How a texture is made.
public struct TextureDescriptor: Sendable {
    public var mipmaps: Bool = true
    /// Trilinear filtering; off, mipmaps use `LINEAR_MIPMAP_NEAREST` (about 30% cheaper on llvmpipe).
    public var trilinear: Bool = false
    public var clampToEdge: Bool = true
    /// Anisotropic filtering (1: off): keeps text sharp on a page seen at a steep angle.
    public var anisotropy: Float = 1
    public init(mipmaps: Bool = true, trilinear: Bool = false, clampToEdge: Bool = true, anisotropy: Float = 1) {
        self.mipmaps = mipmaps
        self.trilinear = trilinear
        self.clampToEdge = clampToEdge
        self.anisotropy = anisotropy
    }

    /// Page textures filtered as `filtering` says (by default, as suits the current context).
    public static func pages(_ filtering: TextureFiltering = .forCurrentRenderer) -> TextureDescriptor {
        switch filtering {
        case .software: TextureDescriptor()
        case .gpu: TextureDescriptor(trilinear: true, anisotropy: min(8, GLInfo.maxAnisotropy))
        }
    }
}

/// How page textures are filtered. Tests name one, so that a machine with a GPU compares its
/// frames with references made the same way.
public enum TextureFiltering: String, Sendable, CaseIterable {
    /// Mipmaps without blending between levels, no anisotropy: what a software renderer affords.
    case software
    /// Trilinear and 8× anisotropic: keeps text sharp on a steep page on a GPU. Not the default
    /// on llvmpipe: there it triples a frame's cost and its anisotropic sampler garbles small type
    /// even on flat pages (docs/engineering-notes.md).
    case gpu

    /// `.software` on Mesa's CPU rasterisers, `.gpu` elsewhere.
    public static var forCurrentRenderer: TextureFiltering { GLInfo.isSoftware ? .software : .gpu }
}

/// A 2D texture, RGBA8, or one channel (R8 read as grey, opaque) for a mipmapped image that is
/// all opaque grey (a PDF or DjVu page of black type on white, a grey scan): a quarter of the
/// memory, and a software renderer's texture taps read a quarter of the bytes
/// (docs/performance.md). Free it with `destroy()` while the context is current.
public struct Texture: Equatable {
    let name: GLuint
    public let width: Int
    public let height: Int
    /// Bytes a texel holds at level 0: 1 (grey) or 4.
    public let bytesPerTexel: Int
    /// Whether every texel is opaque: what is drawn of it hides what lies beneath.
    public let opaque: Bool
    private let owner: GLOwner

    /// Uploads an image (rows top to bottom; v = 0 is the image's top row).
    public init(image: RGBAImage, descriptor: TextureDescriptor = TextureDescriptor()) {
        var t: GLuint = 0
        glGenTextures(1, &t)
        name = t
        owner = GLOwner("texture")
        width = image.width
        height = image.height
        glBindTexture(E(GL_TEXTURE_2D), t)
        glPixelStorei(E(GL_UNPACK_ALIGNMENT), 1)
        if descriptor.mipmaps, let grey = Self.greyLevels(image) {
            bytesPerTexel = 1
            opaque = true
            grey.withUnsafeBytes {
                glTexImage2D(E(GL_TEXTURE_2D), 0, I(GL_R8), GLsizei(image.width), GLsizei(image.height), 0,
                             E(GL_RED), E(GL_UNSIGNED_BYTE), $0.baseAddress)
            }
            var swizzle = [GLint(GL_RED), GLint(GL_RED), GLint(GL_RED), GLint(GL_ONE)]
            glTexParameteriv(E(GL_TEXTURE_2D), E(GL_TEXTURE_SWIZZLE_RGBA), &swizzle)
        } else {
            bytesPerTexel = 4
            opaque = Self.isOpaque(image)
            image.pixels.withUnsafeBytes {
                glTexImage2D(E(GL_TEXTURE_2D), 0, I(GL_RGBA8), GLsizei(image.width), GLsizei(image.height), 0,
                             E(GL_RGBA), E(GL_UNSIGNED_BYTE), $0.baseAddress)
            }
        }
        let minFilter = descriptor.mipmaps ? (descriptor.trilinear ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR_MIPMAP_NEAREST) : GL_LINEAR
        if descriptor.mipmaps { glGenerateMipmap(E(GL_TEXTURE_2D)) }
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_MIN_FILTER), minFilter)
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        if descriptor.mipmaps && descriptor.anisotropy > 1 {
            glTexParameterf(E(GL_TEXTURE_2D), E(GL_TEXTURE_MAX_ANISOTROPY), descriptor.anisotropy)
        }
        let wrap = descriptor.clampToEdge ? GL_CLAMP_TO_EDGE : GL_REPEAT
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_WRAP_S), wrap)
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_WRAP_T), wrap)
    }

    /// The image's one channel, if every pixel is opaque grey (nil at the first that is not,
    /// before it has filled more than the pixels it checked).
    static func greyLevels(_ image: RGBAImage) -> [UInt8]? {
        let n = image.width * image.height
        return image.pixels.withUnsafeBufferPointer { p -> [UInt8]? in
            var grey: [UInt8] = []
            grey.reserveCapacity(n)
            for i in 0..<n {
                let r = p[4 * i]
                guard p[4 * i + 1] == r, p[4 * i + 2] == r, p[4 * i + 3] == 255 else { return nil }
                grey.append(r)
            }
            return grey
        }
    }

    /// Whether every pixel's alpha is 255: the pixels ANDed as words, the alpha byte of the
    /// result read: 0.1 ms for a 6-megapixel photo, against 3.4 for a scan byte by byte.
    static func isOpaque(_ image: RGBAImage) -> Bool {
        image.pixels.withUnsafeBytes { raw in
            let all = raw.withMemoryRebound(to: UInt32.self) { $0.reduce(UInt32.max, &) }
            return UInt32(littleEndian: all) >> 24 == 0xFF
        }
    }

    /// An empty render target texture.
    init(renderTarget width: Int, height: Int) {
        var t: GLuint = 0
        glGenTextures(1, &t)
        name = t
        owner = GLOwner("texture")
        self.width = width
        self.height = height
        bytesPerTexel = 4
        opaque = false
        glBindTexture(E(GL_TEXTURE_2D), t)
        glTexImage2D(E(GL_TEXTURE_2D), 0, I(GL_RGBA8), GLsizei(width), GLsizei(height), 0, E(GL_RGBA), E(GL_UNSIGNED_BYTE), nil)
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(E(GL_TEXTURE_2D), E(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
    }

    public func bind(unit: Int) {
        glActiveTexture(E(GL_TEXTURE0) + GLenum(unit))
        glBindTexture(E(GL_TEXTURE_2D), name)
    }

    public func destroy() {
        owner.release()
        var t = name
        glDeleteTextures(1, &t)
    }
}
