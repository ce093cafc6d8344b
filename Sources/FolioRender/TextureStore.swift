import COpenGL
import FolioImage
import FolioLayout
import Synchronization

/// GPU textures for the faces a scene shows, made from images handed to it (`upload`): the
/// renderer looks them up. A face without one shows plain paper.
///
/// Does not: decode, decide what to upload or free when (the page store does), or call back
/// into whoever feeds it.
/// Render thread only: it owns GL objects.
public final class TextureStore {
    /// Unique for the life of the process: layers drawn from another store are never reused.
    public let serial: Int
    private static let serials = Atomic<Int>(0)
    /// How textures uploaded from now on are filtered.
    public var descriptor: TextureDescriptor
    /// Each face's texture: faces showing one image (a cover is the closed book's and the open
    /// book's front) share one, freed with the last of them.
    private var textures: [FaceContent: (texture: Texture, version: Int)] = [:]
    /// Counts uploads: each texture gets a version of its own.
    private var uploads = 0
    private var paperTexture: Texture?
    /// Paper colour for blank faces and pages not loaded yet.
    public static let paper = RGBAImage.blankPaper

    /// Needs a current context: the default descriptor depends on the renderer.
    public init(descriptor: TextureDescriptor = .pages()) {
        self.descriptor = descriptor
        serial = Self.serials.add(1, ordering: .relaxed).newValue
    }

    /// The texture of a face; plain paper when it has none.
    public func texture(for face: FaceContent) -> Texture {
        textures[face]?.texture ?? paper
    }

    /// Makes `image` the texture of each of `faces`, one texture they share, replacing any they
    /// had; filtered as `descriptor` says (nil: as the store's `descriptor`). Returns the bytes
    /// it holds, mipmaps included (an estimate: GL does not say).
    @discardableResult
    public func upload(_ image: RGBAImage, for faces: [FaceContent], descriptor: TextureDescriptor? = nil) -> Int {
        faces.forEach(remove)
        let descriptor = descriptor ?? self.descriptor
        uploads += 1
        let texture = Texture(image: image, descriptor: descriptor)
        for face in faces { textures[face] = (texture, uploads) }
        // Its texels, plus a third for the mipmap chain.
        return image.width * image.height * texture.bytesPerTexel * (descriptor.mipmaps ? 4 : 3) / 3
    }

    /// Frees the texture of `face`, if it has one and no other face shows it.
    public func remove(_ face: FaceContent) {
        guard let texture = textures.removeValue(forKey: face)?.texture,
              !textures.values.contains(where: { $0.texture.name == texture.name }) else { return }
        texture.destroy()
    }

    /// Gives `face`'s texture to `other`, freeing any `other` had; it gets a new version
    /// (what was drawn of `other` is stale).
    public func move(_ face: FaceContent, to other: FaceContent) {
        guard face != other, textures[face] != nil else { return }
        // `face` still holds its texture here, so one the two share is kept.
        remove(other)
        guard let moved = textures.removeValue(forKey: face) else { return }
        uploads += 1
        textures[other] = (moved.texture, uploads)
    }

    public var paper: Texture {
        if let p = paperTexture { return p }
        let p = Texture(image: RGBAImage(width: 1, height: 1, fill: Self.paper), descriptor: TextureDescriptor(mipmaps: false))
        paperTexture = p
        return p
    }

    /// Frees every texture (the pages go up again when next shown).
    public func removeAll() {
        for face in Array(textures.keys) { remove(face) }
    }

    /// Which image `face` shows: a new number whenever it gets one, 0 while it shows paper.
    /// What was drawn from an earlier version is stale; uploads of other faces change nothing.
    public func version(of face: FaceContent) -> Int { textures[face]?.version ?? 0 }

    public func destroy() {
        removeAll()
        paperTexture?.destroy()
        paperTexture = nil
    }
}
