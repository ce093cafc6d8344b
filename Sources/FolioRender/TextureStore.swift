import COpenGL
import FolioBook
import FolioLayout
import Synchronization

/// GPU textures for the faces a scene shows, made on first use from images a provider gives.
/// A face whose image is not available (yet) shows plain paper; it is asked again next frame.
///
/// Render thread only: it owns GL objects.
public final class TextureStore {
    /// Returns the image of a face, or nil when it is not loaded (yet). Called on the render thread.
    public typealias Provider = (FaceContent) -> RGBAImage?

    public var provider: Provider
    /// Unique for the life of the process: layers drawn from another store are never reused.
    public let serial: Int
    private static let serials = Atomic<Int>(0)
    public var descriptor: TextureDescriptor
    private var textures: [FaceContent: Texture] = [:]
    private var paperTexture: Texture?
    /// Paper colour for blank faces and pages not loaded yet.
    public static let paper: (UInt8, UInt8, UInt8, UInt8) = (247, 242, 230, 255)

    /// Needs a current context: the default descriptor depends on the renderer.
    public init(descriptor: TextureDescriptor = .pages(), provider: @escaping Provider) {
        self.descriptor = descriptor
        self.provider = provider
        serial = Self.serials.add(1, ordering: .relaxed).newValue
    }

    /// The texture of a face; plain paper when its image is missing.
    public func texture(for face: FaceContent) -> Texture {
        if let t = textures[face] { return t }
        if face.kind != .blank, let image = provider(face) {
            let t = Texture(image: image, descriptor: descriptor)
            textures[face] = t
            generation += 1
            return t
        }
        return paper
    }

    public var paper: Texture {
        if let p = paperTexture { return p }
        let p = Texture(image: RGBAImage(width: 1, height: 1, fill: Self.paper), descriptor: TextureDescriptor(mipmaps: false))
        paperTexture = p
        return p
    }

    /// Frees textures of faces not in `keep` (those far from the reader), to bound GPU memory.
    public func evict(keeping keep: Set<FaceContent>) {
        for (face, t) in textures where !keep.contains(face) {
            t.destroy()
            textures[face] = nil
        }
    }

    public var residentCount: Int { textures.count }

    /// Grows whenever a face gets its real image: what was drawn with paper in its place is stale.
    public private(set) var generation = 0

    public func destroy() {
        textures.values.forEach { $0.destroy() }
        textures = [:]
        paperTexture?.destroy()
        paperTexture = nil
    }
}
