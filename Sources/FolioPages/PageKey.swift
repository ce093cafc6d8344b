import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import Foundation

extension PageKey {
    /// The image `face` shows in `library` (`FaceContent.key`); nil for faces without one
    /// (endpapers, blanks, pages past the last, a book with no cover image or none at all, a
    /// crop, which only the store makes).
    public init?(_ face: FaceContent, in library: Library) {
        guard library.books.indices.contains(face.book), let key = face.key else { return nil }
        let book = library.books[face.book]
        switch key {
        case .cover: guard book.coverImage != nil else { return nil }
        case let .page(_, image): guard book.pages.indices.contains(image.index) else { return nil }
        case .crop: return nil
        }
        self = key
    }

    /// Its page image.
    func page(in library: Library) -> PageRef? {
        switch self {
        case let .cover(b): library.books[b].coverImage
        case let .page(b, image), let .crop(b, image): library.books[b].pages[image.index]
        }
    }
}

/// Where the store puts images for the GPU: implemented over GL textures by the frame
/// pipeline, by a recorder in tests. The store decides what goes up and what is freed.
public protocol PageTextures: AnyObject {
    /// Makes `image` the texture of `key` (replacing any), which every face showing it draws
    /// with; returns the bytes it holds. `mipmaps` false: it is shown at most a little smaller
    /// than it is (a crop).
    func upload(_ image: RGBAImage, for key: PageKey, mipmaps: Bool) -> Int
    /// Frees the texture of `key`, if it has one.
    func remove(_ key: PageKey)
    /// Gives `key`'s texture to `other` (freeing any `other` had): the same image is now
    /// another page (a book laid out again).
    func move(_ key: PageKey, to other: PageKey)
}

/// Supplies page images from memory for books that have no files (or whose files the host
/// reads itself): generated pages, a network source, a document decoder of the host's own.
public protocol PageContentSource: AnyObject {
    /// Whether the source supplies every image of book `book`: its files are then never read.
    func suppliesImages(ofBook book: Int) -> Bool
    /// The image `face` shows (`.cover(b)`, which the open book's front cover shows too, or
    /// `.page(b, n)` with image index `n − 2`), or nil to show paper for now. Called on the
    /// render thread when the face is on screen and has no texture: return an image already in
    /// memory, and call `FramePipeline.contentChanged()` when later ones are ready.
    func image(for face: FaceContent) -> RGBAImage?
}

/// One page image in the store (or the crops of one): which image it holds (`version`, new with
/// each decode), which one its textures were made from, and the bytes it holds on each side,
/// counted where they are allocated.
public struct Residency: Sendable {
    public enum State: Sendable, Equatable {
        /// Decoded; no texture made from it yet.
        case decoded
        /// Its textures show the image decoded last.
        case uploaded
        /// Its textures show an earlier image (a preview, a rendering for a smaller display):
        /// drawn until the new one goes up.
        case stale
    }

    public var version: Int
    /// The version the textures were made from; 0 while there are none.
    public var textureVersion = 0
    public var cpuBytes = 0
    public var gpuBytes = 0
    /// The decoded pixels, until they are let go after the upload (the viewer).
    public internal(set) var image: RGBAImage?
    /// The display height a scalable page was rendered for (a larger one renders it again).
    var renderedFor: Int?
    /// The height of the image its textures were made from.
    var textureHeight = 0
    /// A `.crop` row's rasters: the crops of its page held (its `version` is the serial of the
    /// one shown), their pixels counted in `cpuBytes` (a crop row holds nothing else).
    var crops: [CropRenderings.Raster] = [] {
        didSet { cpuBytes = crops.reduce(0) { $0 + $1.byteCount } }
    }

    public var state: State {
        textureVersion == 0 ? .decoded : textureVersion == version ? .uploaded : .stale
    }

    public var bytes: Int { cpuBytes + gpuBytes }
}
