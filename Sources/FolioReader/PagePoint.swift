import FolioLayout
import FolioMath

/// A place on a page of the open book: which page image (0-based) and where on its paper, in
/// fractions from the top-left corner (`PageRegion`'s terms, as links and words are given).
public struct PagePoint: Sendable, Equatable {
    public var image: Int
    public var x, y: Double

    public init(image: Int, x: Double, y: Double) {
        (self.image, self.x, self.y) = (image, x, y)
    }

    /// The page point under layout point `p` of a book lying open at a spread (not while a page
    /// turns); nil off the pages, and for right-to-left books and wall calendars, whose pages
    /// lie otherwise.
    public static func under(_ p: Vec2, controller: BookController) -> PagePoint? {
        guard controller.phase == .reading, let b = controller.book, controller.settings.style.orientation == .horizontal,
              controller.library[b].direction == .ltr,
              let local = PointerGestures.bookPoint(p, controller: controller) else { return nil }
        let size = controller.library[b].laidOutPageSize(.horizontal)
        let right = local.x >= 0
        let x = right ? local.x / size.x : 1 + local.x / size.x, y = 0.5 - local.y / size.y
        guard (0...1).contains(x), (0...1).contains(y) else { return nil }
        // Spread s shows page images 2s - 1 (left) and 2s (right), counted from 0.
        let image = 2 * controller.spread - (right ? 0 : 1)
        guard (0..<controller.library[b].imageCount).contains(image) else { return nil }
        return PagePoint(image: image, x: x, y: y)
    }
}
