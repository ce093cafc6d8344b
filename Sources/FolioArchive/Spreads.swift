import FolioBook

/// A page of a comic archive: a picture, half of one, or a blank page.
enum ArchivePage: Equatable {
    /// Picture `entry` (an index into `ArchiveDocument.entries`), whole.
    case whole(Int)
    /// The left or right half of picture `entry`, a double-page spread.
    case half(Int, left: Bool)
    /// A blank page, put in so that a spread opens on a left-hand page.
    case blank

    var entry: Int? {
        switch self {
        case let .whole(e), let .half(e, _): e
        case .blank: nil
        }
    }
}

/// Double-page spreads in a comic: a scan of two facing pages is one picture twice as wide as
/// the book's pages. Shown whole it was shrunk into one page's place, at half the size of every
/// other page; a printed comic prints it over a left-hand and a right-hand page, and so does
/// Folio: the picture's halves are two pages, the first (the left half, or the right one in a
/// book read right to left) on the left of the spine when the book reads left to right and on
/// the right when it reads right to left: on an odd page index, both ways (page 0, the first,
/// lies alone). Where the page before would put it on the other side, a blank page is put in,
/// as comic readers and printers do. The first picture is kept whole: a wrap-round cover (the
/// back and the front in one picture) is the book's face on the shelf.
///
/// Where the book's ComicInfo marks its double pages (`DoublePage="True"`), those marks say
/// which pictures are spreads (a page scanned sideways is then told from one), each still wider
/// than high; else their shape does.
///
/// Does not: split a book whose pages are themselves wider than high (landscape comics, or a
/// book of nothing but spreads).
enum Spreads {
    /// How much wider than the book's page a picture is, at least, to be a spread (a spread is
    /// twice as wide; a page trimmed a little differently is not).
    static let widthRatio = 1.6

    /// The pages of pictures of `sizes` (nil: not known), whose pages are `paper` (width /
    /// height) in a book reading `direction`.
    static func pages(sizes: [(width: Double, height: Double)?], paper: Double?, direction: ReadingDirection,
                      marked: Set<Int>? = nil) -> [ArchivePage] {
        var pages: [ArchivePage] = []
        pages.reserveCapacity(sizes.count)
        for (entry, size) in sizes.enumerated() {
            guard entry > 0, let paper, paper < 1, let size, size.height > 0,
                  marked.map({ $0.contains(entry) && size.width > size.height }) ?? (size.width / size.height >= widthRatio * paper) else {
                pages.append(.whole(entry))
                continue
            }
            if pages.count % 2 == 0 { pages.append(.blank) }
            let leftFirst = direction != .rtl
            pages += [.half(entry, left: leftFirst), .half(entry, left: !leftFirst)]
        }
        return pages
    }
}
