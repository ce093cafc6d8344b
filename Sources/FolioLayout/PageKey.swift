/// Which image a face shows: the rule of which face shows which image, written once, and what
/// the page store and the textures are keyed by. Page numbering (docs/behaviour.md §3): page 0
/// is the cover, page 1 the inside of the cover (a blank endpaper), page j + 2 the book's image
/// j (`FaceContent.image`); pages past the last image are blank paper.
public enum PageKey: Sendable, Hashable {
    /// A book's cover image: the closed book's cover and the open book's front cover show it.
    case cover(book: Int)
    /// One of a book's page images.
    case page(book: Int, image: PageImage)
    /// The crop of a page image drawn over it while a zoomed view magnifies it (face
    /// `.detail`); the page store holds its raster.
    case crop(book: Int, image: PageImage)

    public var book: Int {
        switch self {
        case let .cover(b), let .page(b, _), let .crop(b, _): b
        }
    }

    public var isCrop: Bool {
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
}

extension FaceContent {
    /// The image the face shows, whether or not its book has it (the page store's
    /// `PageKey(_:in:)` asks the library); nil for blanks and endpapers.
    public var key: PageKey? {
        switch kind {
        case .cover: .cover(book: book)
        case .page: page == 0 ? .cover(book: book) : image.map { .page(book: book, image: $0) }
        case .detail: PageImage(layoutPage: page).map { .crop(book: book, image: $0) }
        case .blank: nil
        }
    }
}
