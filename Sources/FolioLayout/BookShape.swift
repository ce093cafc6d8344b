import FolioMath

/// A book's own proportions on the shelf, in the opening and in the camera: every scale that
/// depends on the page size, so a book of any shape keeps it and never jumps.
///
/// Does not: place covers on a shelf (`Carousel`, `Wheel`) or faces in a book (`BookFaces`).
public enum BookShape {
    /// Fraction of the view an open spread may fill at most (the rest is a margin).
    public static let viewFill = 0.95

    /// The scale that fits a cover of `size` into the reference cover's box (362 × 568),
    /// keeping its aspect: 1 for the reference, below 1 for a landscape or larger page.
    public static func coverFit(_ size: Vec2) -> Double {
        let box = BookInfo.referencePageSize
        guard size.x > 0, size.y > 0 else { return 1 }
        return min(box.x / size.x, box.y / size.y)
    }

    /// The scale of an open book whose laid-out page (across × along the spine) is `page`:
    /// the whole spread fits into `viewSize` with a margin, never enlarged. A vertical
    /// (calendar) spread stands upright: two pages tall, one wide.
    public static func openFit(page: Vec2, orientation: TurnStyle.Orientation, viewSize: Vec2) -> Double {
        guard page.x > 0, page.y > 0 else { return 1 }
        let spread = orientation == .vertical ? Vec2(page.y, 2 * page.x) : Vec2(2 * page.x, page.y)
        return min(1, viewFill * viewSize.x / spread.x, viewFill * viewSize.y / spread.y)
    }

    /// The eye distance for pages shown `pageWidth` units wide (across the spine): the
    /// reference's 2000 for 362-wide pages (m34 = −1/2000, about 5.5 page widths), in proportion.
    public static func eyeDistance(pageWidth: Double) -> Double {
        Camera.referenceEyeDistance * pageWidth / BookInfo.referencePageSize.x
    }
}
