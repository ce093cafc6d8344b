import COpenGL
import FolioImage
import FolioLayout
import Synchronization

/// GPU textures for the images a scene shows, one for each image (`PageKey`: a cover is the
/// closed book's and the open book's front), made from images handed to it (`upload`): the
/// renderer looks them up by face (`FaceContent.key`). A face without one shows plain paper.
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
    /// Each image's texture.
    private var textures: [PageKey: (texture: Texture, version: Int)] = [:]
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
        face.key.flatMap { textures[$0]?.texture } ?? paper
    }

    /// Makes `image` the texture of `key`, replacing any it had; filtered as `descriptor` says
    /// (nil: as the store's `descriptor`). Returns the bytes it holds, mipmaps included (an
    /// estimate: GL does not say).
    @discardableResult
    public func upload(_ image: RGBAImage, for key: PageKey, descriptor: TextureDescriptor? = nil) -> Int {
        remove(key)
        let descriptor = descriptor ?? self.descriptor
        uploads += 1
        let texture = Texture(image: image, descriptor: descriptor)
        textures[key] = (texture, uploads)
        // Its texels, plus a third for the mipmap chain.
        return image.width * image.height * texture.bytesPerTexel * (descriptor.mipmaps ? 4 : 3) / 3
    }

    /// Frees the texture of `key`, if it has one.
    public func remove(_ key: PageKey) {
        textures.removeValue(forKey: key)?.texture.destroy()
    }

    /// Gives `key`'s texture to `other`, freeing any `other` had; it gets a new version (what
    /// was drawn of `other` is stale).
    public func move(_ key: PageKey, to other: PageKey) {
        guard key != other, let moved = textures.removeValue(forKey: key) else { return }
        remove(other)
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
        for key in Array(textures.keys) { remove(key) }
    }

    /// Which image `face` shows: a new number whenever it gets one, 0 while it shows paper.
    /// What was drawn from an earlier version is stale; uploads of other faces change nothing.
    public func version(of face: FaceContent) -> Int { face.key.flatMap { textures[$0]?.version } ?? 0 }

    public func destroy() {
        removeAll()
        paperTexture?.destroy()
        paperTexture = nil
    }
}
