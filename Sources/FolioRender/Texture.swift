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

/// A 2D texture, RGBA8, or one channel (R8, read as grey) for a mipmapped opaque image whose
/// every pixel lies between two colours: a page of type in one ink on one paper (a PDF or DjVu
/// page of black on white, a book's page on cream). A quarter of the memory, and a software
/// renderer's texture taps read a quarter of the bytes (docs/performance.md); page.frag maps
/// the grey back to its colours (`ink`, `paper`). Free it with `destroy()` while the context
/// is current.
public struct Texture: Equatable {
    let name: GLuint
    public let width: Int
    public let height: Int
    /// Bytes a texel holds at level 0: 1 (one channel) or 4.
    public let bytesPerTexel: Int
    /// The colours a one-channel texture's 0 and 1 stand for (0…1); black and white otherwise,
    /// so `mix(ink, paper, colour)` is the colour read either way.
    public let ink: SIMD3<Float>
    public let paper: SIMD3<Float>
    private let owner: GLOwner

    /// Uploads an image (rows top to bottom; v = 0 is the image's top row). `twoColours`: it may
    /// be held as one channel between two colours (only for what page.frag draws); otherwise
    /// only a grey one is, whose swizzle reads as grey everywhere.
    public init(image: RGBAImage, descriptor: TextureDescriptor = TextureDescriptor(), twoColours: Bool = false) {
        var t: GLuint = 0
        glGenTextures(1, &t)
        name = t
        owner = GLOwner("texture")
        width = image.width
        height = image.height
        glBindTexture(E(GL_TEXTURE_2D), t)
        glPixelStorei(E(GL_UNPACK_ALIGNMENT), 1)
        let one = descriptor.mipmaps ? Self.oneChannel(image) : nil
        if let one, twoColours || (one.ink == .zero && one.paper == SIMD3(repeating: 1)) {
            bytesPerTexel = 1
            (ink, paper) = (one.ink, one.paper)
            one.levels.withUnsafeBytes {
                glTexImage2D(E(GL_TEXTURE_2D), 0, I(GL_R8), GLsizei(image.width), GLsizei(image.height), 0,
                             E(GL_RED), E(GL_UNSIGNED_BYTE), $0.baseAddress)
            }
            var swizzle = [GLint(GL_RED), GLint(GL_RED), GLint(GL_RED), GLint(GL_ONE)]
            glTexParameteriv(E(GL_TEXTURE_2D), E(GL_TEXTURE_SWIZZLE_RGBA), &swizzle)
        } else {
            bytesPerTexel = 4
            (ink, paper) = (.zero, SIMD3(repeating: 1))
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

    /// The image as one channel between its darkest and its lightest colour, if every pixel is
    /// opaque and lies on the line between them to within 1.5 levels in green and blue (red is
    /// the channel kept): nil at the first that does not. A black-and-white page gives black and
    /// white exactly, so it is read back level for level. Plain integer loops: every page image
    /// passes through here, in debug builds too.
    static func oneChannel(_ image: RGBAImage) -> (levels: [UInt8], ink: SIMD3<Float>, paper: SIMD3<Float>)? {
        let n = image.width * image.height
        guard n > 0 else { return nil }
        return image.pixels.withUnsafeBufferPointer { buffer -> (levels: [UInt8], ink: SIMD3<Float>, paper: SIMD3<Float>)? in
            guard let p = buffer.baseAddress else { return nil }
            var dark = 0, light = 0, darkSum = Int.max, lightSum = -1
            for o in stride(from: 0, to: 4 * n, by: 4) {
                guard p[o + 3] == 255 else { return nil }
                let sum = Int(p[o]) + Int(p[o + 1]) + Int(p[o + 2])
                if sum < darkSum { darkSum = sum; dark = o }
                if sum > lightSum { lightSum = sum; light = o }
            }
            let (r0, g0, b0) = (Int(p[dark]), Int(p[dark + 1]), Int(p[dark + 2]))
            let (dr, dg, db) = (Int(p[light]) - r0, Int(p[light + 1]) - g0, Int(p[light + 2]) - b0)
            // One colour all over keeps it as its ink and paper both.
            guard dr > 0 || (dg == 0 && db == 0) else { return nil }
            var levels = [UInt8](repeating: 0, count: n)
            var between = true
            if dr > 0 {
                levels.withUnsafeMutableBufferPointer { out in
                    for i in 0..<n {
                        let o = 4 * i, t = Int(p[o]) - r0
                        // Off the line by (green, blue) − t · (dg, db) / dr, in whole multiples of dr.
                        let offG = (Int(p[o + 1]) - g0) * dr - t * dg, offB = (Int(p[o + 2]) - b0) * dr - t * db
                        guard t >= 0, t <= dr, 2 * abs(offG) <= 3 * dr, 2 * abs(offB) <= 3 * dr else { between = false; return }
                        out[i] = UInt8((t * 255 + dr / 2) / dr)
                    }
                }
            } else {
                // The darkest and the lightest are one colour: so must every pixel be (two
                // colours of the same sum are not one).
                for o in stride(from: 0, to: 4 * n, by: 4) where p[o] != p[dark] || p[o + 1] != p[dark + 1] || p[o + 2] != p[dark + 2] {
                    between = false
                    break
                }
            }
            guard between else { return nil }
            let colour = { (o: Int) in SIMD3<Float>(Float(p[o]), Float(p[o + 1]), Float(p[o + 2])) / 255 }
            return (levels, colour(dark), colour(light))
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
        (ink, paper) = (.zero, SIMD3(repeating: 1))
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
