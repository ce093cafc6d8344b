import COpenGL
import FolioImage
import FolioLayout
import Synchronization

/// GPU textures for the faces a scene shows, made from images handed to it (`upload`). A
/// face without one shows plain paper. Images flow one way: the store never asks for them.
///
/// Does not: decode, decide what to upload when, or call back into whoever feeds it.
/// Render thread only: it owns GL objects.
public final class TextureStore {
    /// Unique for the life of the process: layers drawn from another store are never reused.
    public let serial: Int
    private static let serials = Atomic<Int>(0)
    /// How textures uploaded from now on are filtered.
    public var descriptor: TextureDescriptor
    private var textures: [FaceContent: (texture: Texture, bytes: Int, version: Int)] = [:]
    /// Counts uploads: each texture gets a version of its own.
    private var uploads = 0
    private var paperTexture: Texture?
    /// Paper colour for blank faces and pages not loaded yet.
    public static let paper: (UInt8, UInt8, UInt8, UInt8) = (247, 242, 230, 255)
    /// Bytes of the page textures held, mipmaps included (an estimate: GL does not say).
    public private(set) var residentBytes = 0

    /// Needs a current context: the default descriptor depends on the renderer.
    public init(descriptor: TextureDescriptor = .pages()) {
        self.descriptor = descriptor
        serial = Self.serials.add(1, ordering: .relaxed).newValue
    }

    /// The texture of a face; plain paper when it has none.
    public func texture(for face: FaceContent) -> Texture {
        textures[face]?.texture ?? paper
    }

    public func contains(_ face: FaceContent) -> Bool { textures[face] != nil }

    /// Makes `image` the texture of `face`, replacing any it had; filtered as `descriptor`
    /// says (nil: as the store's `descriptor`).
    public func upload(_ image: RGBAImage, for face: FaceContent, descriptor: TextureDescriptor? = nil) {
        remove(face)
        let descriptor = descriptor ?? self.descriptor
        // RGBA8, plus a third for the mipmap chain.
        let bytes = image.width * image.height * 4 * (descriptor.mipmaps ? 4 : 3) / 3
        uploads += 1
        textures[face] = (Texture(image: image, descriptor: descriptor), bytes, uploads)
        residentBytes += bytes
    }

    /// Frees the texture of `face`, if it has one.
    public func remove(_ face: FaceContent) {
        guard let t = textures.removeValue(forKey: face) else { return }
        residentBytes -= t.bytes
        t.texture.destroy()
    }

    public var paper: Texture {
        if let p = paperTexture { return p }
        let p = Texture(image: RGBAImage(width: 1, height: 1, fill: Self.paper), descriptor: TextureDescriptor(mipmaps: false))
        paperTexture = p
        return p
    }

    /// Frees textures of faces not in `keep` (those far from the reader), to bound GPU memory.
    public func evict(keeping keep: Set<FaceContent>) {
        for face in Array(textures.keys) where !keep.contains(face) { remove(face) }
    }

    /// The faces that have a texture.
    public var residentFaces: Set<FaceContent> { Set(textures.keys) }

    public var residentCount: Int { textures.count }

    /// Which image `face` shows: a new number whenever it gets one, 0 while it shows paper.
    /// What was drawn from an earlier version is stale; uploads of other faces change nothing.
    public func version(of face: FaceContent) -> Int { textures[face]?.version ?? 0 }

    public func destroy() {
        evict(keeping: [])
        paperTexture?.destroy()
        paperTexture = nil
    }
}
