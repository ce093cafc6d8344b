/// One page image of a book in the three numberings Folio uses, converted here and nowhere else
/// (docs/behaviour.md §3): its index among the book's images (0 the first: a document's page
/// `index`, the `index`-th image file), the page number a reader sees (`index + 1`, in titles,
/// go-to and search) and the layout page that shows it (`index + 2`: layout page 0 is the
/// cover, 1 the inside of the cover, a blank endpaper).
public struct PageImage: Hashable, Comparable, Sendable {
    public let index: Int

    public init(index: Int) { self.index = index }

    /// The image layout page `n` shows; nil for the cover and the endpaper.
    public init?(layoutPage n: Int) {
        guard n >= 2 else { return nil }
        index = n - 2
    }

    /// The image a reader calls page `number` (1 the first). Numbers past what any book has
    /// stay past it (held at `Int`'s bounds), for the range checks that refuse them.
    public init(number: Int) { index = number.adding(saturating: -1) }

    /// The page number a reader sees.
    public var number: Int { index.adding(saturating: 1) }

    /// The layout page that shows it.
    public var layoutPage: Int { index.adding(saturating: 2) }

    public static func < (a: PageImage, b: PageImage) -> Bool { a.index < b.index }
}

private extension Int {
    /// `self + n`, held at `Int`'s bounds where it would overflow.
    func adding(saturating n: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(n)
        return overflow ? (n > 0 ? .max : .min) : sum
    }
}
