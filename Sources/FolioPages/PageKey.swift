import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import Foundation

/// Where a face's image comes from: the rule of which face shows which image, written once.
/// Page numbering (docs/behaviour.md §3): page 0 is the cover, page 1 the inside of the cover
/// (a blank endpaper), page j + 2 the book's image j (`FaceContent.image`); pages past
/// the last image are blank paper.
public enum PageKey: Sendable, Hashable {
    /// A book's cover image: the closed book's cover and the open book's front cover show it.
    case cover(book: Int)
    /// One of a book's page images.
    case page(book: Int, image: PageImage)
    /// The crop of a page image drawn over it while a zoomed view magnifies it (face
    /// `.detail`); its rows hold a `DetailCache.Raster` on the GPU.
    case crop(book: Int, image: PageImage)

    /// The image `face` shows in `library`; nil for faces without one (endpapers, blanks,
    /// pages past the last, a book with no image at all).
    public init?(_ face: FaceContent, in library: Library) {
        guard library.books.indices.contains(face.book) else { return nil }
        let book = library.books[face.book]
        switch face.kind {
        case .cover where book.coverImage != nil: self = .cover(book: face.book)
        case .page where face.page == 0 && book.coverImage != nil: self = .cover(book: face.book)
        case .page:
            guard let image = face.image, book.pages.indices.contains(image.index) else { return nil }
            self = .page(book: face.book, image: image)
        default: return nil
        }
    }

    public var book: Int {
        switch self {
        case let .cover(b), let .page(b, _), let .crop(b, _): b
        }
    }

    var isCrop: Bool {
        if case .crop = self { return true }
        return false
    }

    /// The faces that show it.
    public var faces: [FaceContent] {
        switch self {
        case let .cover(b): [.cover(b), .page(b, 0)]
        case let .page(b, image): [.page(b, image.layoutPage)]
        case let .crop(b, image): [.detail(b, image.layoutPage)]
        }
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
    /// Makes `image` the texture of `faces` (replacing any), one texture they share; returns
    /// the bytes it holds. `mipmaps` false: it is shown at most a little smaller than it is (a
    /// crop).
    func upload(_ image: RGBAImage, for faces: [FaceContent], mipmaps: Bool) -> Int
    /// Frees the texture of `face`, if it has one.
    func remove(_ face: FaceContent)
    /// Gives `face`'s texture to `other` (freeing any `other` had): the same image is now
    /// another page (a book laid out again).
    func move(_ face: FaceContent, to other: FaceContent)
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

/// One page image in the store: which image it holds (`version`, new with each decode), which
/// one its textures were made from, and the bytes it holds on each side, counted where they
/// are allocated.
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
    /// A crop's raster (its pixels are the crop cache's).
    var raster: DetailCache.Raster?

    public var state: State {
        textureVersion == 0 ? .decoded : textureVersion == version ? .uploaded : .stale
    }

    public var bytes: Int { cpuBytes + gpuBytes }
}
