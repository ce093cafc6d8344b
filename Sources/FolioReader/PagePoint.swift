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

    /// The page point under layout point `p` of a book lying open at a spread: zoomed or fitted
    /// to the width, one page or two, right to left or a wall calendar, read through the same
    /// map from the page's frame to its image that draws it (`UVMap.face`). While a page turns,
    /// the page lying on that side (`spreadShown`). Nil off the pages.
    public static func under(_ p: Vec2, controller: BookController) -> PagePoint? {
        guard controller.phase == .reading || controller.phase == .turning, let b = controller.book, let info = controller.laidOutBook,
              let local = PointerGestures.bookPoint(p, controller: controller) else { return nil }
        let vertical = controller.settings.style.orientation == .vertical
        let size = controller.library[b].laidOutPageSize(controller.settings.style.orientation)
        let side: Side = local.x >= 0 ? .right : .left
        let s = abs(local.x) / size.x, t = local.y / size.y + 0.5
        guard (0...1).contains(s), (0...1).contains(t) else { return nil }
        // Spread s shows page images 2s - 1 (left) and 2s (right), counted from 0; one page a
        // sheet shows image s on the right, the blank back of the one before on the left.
        let image: Int, spread = spreadShown(on: side, controller: controller)
        if controller.singlePage {
            guard side == .right else { return nil }
            image = spread
        } else {
            image = 2 * spread - (side == .right ? 0 : 1)
        }
        guard (0..<controller.library[b].imageCount).contains(image) else { return nil }
        let uv = UVMap.face(side, vertical: vertical, direction: info.direction).apply(s: s, t: t)
        return PagePoint(image: image, x: uv.x, y: uv.y)
    }

    /// The spread whose page lies on `side`: at rest the spread shown; while a page turns, the
    /// one it lands on, but for the side the sheet comes down on, which shows the spread it
    /// left until the sheet is past upright. (The sheet in the air is not looked at: a click
    /// there counts for the page it will lie on or lay open.)
    public static func spreadShown(on side: Side, controller: BookController) -> Int {
        guard let turn = controller.viewState().turn else { return controller.spread }
        let landsOn: Side = turn.to > turn.from ? .left : .right
        return side == landsOn && turn.progress < 0.5 ? turn.from : turn.to
    }
}
