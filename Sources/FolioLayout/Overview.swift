import FolioMath

/// The overview of a book: its pages small, lying on the desk as spreads in rows (the endpaper's
/// place left empty, so each pair is a spread the book opens at), to jump by sight.
///
/// Pure geometry in view units (origin at the view centre, y up): where each page image lies,
/// which image a point is on, how far the rows scroll, and the scene of the rows in view.
/// Right-to-left books mirror the rows: their first spread is at the top right. Does not: keep
/// the scroll or the selection between frames, know the page store, or draw.
public struct Overview: Sendable, Equatable {
    /// A rectangle in view units.
    public struct Box: Sendable, Equatable {
        public var minX, minY, maxX, maxY: Double
        public var centre: Vec2 { Vec2((minX + maxX) / 2, (minY + maxY) / 2) }
        public var width: Double { maxX - minX }
        public var height: Double { maxY - minY }
    }

    public let book: BookInfo
    public let viewSize: Vec2
    /// How far the rows are scrolled up, view units from the first row at the top (0 … `maxScroll`).
    public private(set) var scroll: Double

    /// A small page's size, the spreads in a row and the gaps between them.
    public let pageSize: Vec2
    public let spreadsPerRow: Int
    public let gap: Double
    public let margin: Double

    /// About this many rows show at once (more when the pages are wide).
    public static let rowsShown = 3.0

    public init(book: BookInfo, viewSize: Vec2, scroll: Double = 0) {
        self.book = book
        self.viewSize = viewSize
        margin = 0.06 * viewSize.y
        gap = 0.05 * viewSize.y
        let aspect = book.pageSize.y > 0 ? max(book.pageSize.x / book.pageSize.y, 0.1) : 1
        // Rows of `rowsShown` pages' height; wide pages are made smaller so two spreads fit a row.
        var h = (viewSize.y - 2 * margin - 2 * gap) / Self.rowsShown
        h = min(h, (viewSize.x - 2 * margin - gap) / 4 / aspect)
        pageSize = Vec2(h * aspect, h)
        spreadsPerRow = max(1, Int((viewSize.x - 2 * margin + gap) / (2 * pageSize.x + gap)))
        self.scroll = 0
        self.scroll = clamp(scroll, 0, maxScroll)
    }

    /// Scrolls to `scroll`, kept between the first row at the top and the last at the bottom.
    public mutating func scroll(to scroll: Double) { self.scroll = clamp(scroll, 0, maxScroll) }

    /// Slots in reading order: the endpaper's (empty), then one per page image.
    private var slots: Int { book.imageCount + 1 }
    public var rows: Int { ((slots + 1) / 2 + spreadsPerRow - 1) / spreadsPerRow }
    private var rowPitch: Double { pageSize.y + gap }
    public var maxScroll: Double { max(0, Double(rows) * rowPitch - gap + 2 * margin - viewSize.y) }
    private var rowWidth: Double { Double(spreadsPerRow) * (2 * pageSize.x + gap) - gap }
    /// The top of the first row, where the scroll puts it.
    private var top: Double { viewSize.y / 2 - margin + scroll }

    /// Where page image `image` lies, or nil past the book's pages.
    public func box(of image: Int) -> Box? {
        guard (0..<book.imageCount).contains(image) else { return nil }
        let k = image + 1
        let spread = k / 2, row = spread / spreadsPerRow, column = spread % spreadsPerRow
        var x = -rowWidth / 2 + Double(column) * (2 * pageSize.x + gap) + Double(k % 2) * pageSize.x
        if book.direction == .rtl { x = -x - pageSize.x }
        let maxY = top - Double(row) * rowPitch
        return Box(minX: x, minY: maxY - pageSize.y, maxX: x + pageSize.x, maxY: maxY)
    }

    /// The page image under `point`, or nil (a gap, the endpaper's place, past the last page).
    public func image(at point: Vec2) -> Int? {
        let down = top - point.y
        guard down >= 0 else { return nil }
        let row = Int(down / rowPitch)
        guard down - Double(row) * rowPitch < pageSize.y else { return nil }
        let x = (book.direction == .rtl ? -point.x : point.x) + rowWidth / 2
        guard x >= 0, x < rowWidth else { return nil }
        let column = Int(x / (2 * pageSize.x + gap))
        let across = x - Double(column) * (2 * pageSize.x + gap)
        guard across < 2 * pageSize.x else { return nil }
        let k = 2 * (row * spreadsPerRow + column) + (across < pageSize.x ? 0 : 1)
        let image = k - 1
        return (0..<book.imageCount).contains(image) ? image : nil
    }

    /// The images whose rows are in view, with `marginRows` more above and below.
    public func imagesInView(marginRows: Int = 1) -> Range<Int> {
        guard book.imageCount > 0 else { return 0..<0 }
        let first = max(0, Int((scroll - margin) / rowPitch) - marginRows)
        let last = min(rows - 1, Int((scroll + viewSize.y) / rowPitch) + marginRows)
        guard first <= last else { return 0..<0 }
        let from = max(0, 2 * first * spreadsPerRow - 1), to = min(book.imageCount, 2 * (last + 1) * spreadsPerRow - 1)
        return from..<max(from, to)
    }

    /// The scroll that brings image `image`'s row into view (as little as it takes).
    public func scroll(showing image: Int) -> Double {
        guard let b = box(of: image) else { return scroll }
        let viewTop = viewSize.y / 2 - margin, viewBottom = -viewSize.y / 2 + margin
        if b.maxY > viewTop { return clamp(scroll - (b.maxY - viewTop), 0, maxScroll) }
        if b.minY < viewBottom { return clamp(scroll + (viewBottom - b.minY), 0, maxScroll) }
        return scroll
    }

    /// The scroll that puts image `image`'s row in the middle of the view, as far as the rows go.
    public func scroll(centring image: Int) -> Double {
        guard let b = box(of: image) else { return scroll }
        return clamp(scroll - b.centre.y, 0, maxScroll)
    }

    /// The image `columns` pages and `rows` rows from `image` on screen (arrow keys: left and
    /// right follow the rows as they lie, so reversed in a right-to-left book), clamped to the book.
    public func image(from image: Int, columns: Int, rows: Int) -> Int {
        let step = book.direction == .rtl ? -columns : columns
        return clamp(image + step + rows * 2 * spreadsPerRow, 0, max(book.imageCount - 1, 0))
    }

    /// How high the small pages lie over the desk, and the selected one.
    static let lift = 3.0, raised = 14.0

    /// The rows in view as a scene of book `index`: each page on the desk with its shadow and
    /// edges, the pages of `current` (the spread being read) on the book's cover board, the
    /// `selected` one raised towards the eye.
    public func scene(index: Int, current: Set<Int>, selected: Int?) -> Scene {
        var items: [SceneItem] = []
        for image in imagesInView() {
            guard let b = box(of: image) else { continue }
            let lift = image == selected ? Self.raised : Self.lift
            let size = Vec2(b.width, b.height), page = PageImage(index: image).layoutPage
            let left = Mat4.translation(b.minX, b.centre.y, 0)
            // Halves mirrored about the page's middle: a desk shadow and a board have no edge at
            // their spine side (they were made for a book's halves).
            let middle = Mat4.translation(b.centre.x, b.centre.y, 0)
            let halves = [middle, middle * Mat4.scale(-1, 1, 1)]
            for half in halves {
                items.append(SceneItem(kind: .shadow, book: index, page: page, size: Vec2(size.x / 2, size.y), model: half,
                                       front: .blank, z: -2, thickness: lift + BookBoard.thickness))
                if current.contains(image) {
                    items.append(SceneItem(kind: .board, book: index, page: page, size: Vec2(size.x / 2, size.y),
                                           model: half * Mat4.translation(0, 0, lift - 1), front: .cover(index), z: -1,
                                           thickness: 2 * BookBoard.thickness))
                }
            }
            items.append(SceneItem(kind: .block, book: index, page: page, size: size, model: left * Mat4.translation(0, 0, lift),
                                   front: .blank, z: 0, thickness: 1.5))
            items.append(SceneItem(kind: .page, book: index, page: page, size: size, model: left * Mat4.translation(0, 0, lift),
                                   front: .page(index, page), z: 1))
        }
        return Scene(state: .reading, camera: Camera(viewSize: viewSize), items: items)
    }
}

extension Overview {
    /// The page images spread `spread` of `book` shows: one in single-page mode, else the
    /// left and right pages (the first spread: image 0 alone).
    public static func shown(spread: Int, singlePage: Bool, in book: BookInfo) -> Set<Int> {
        let images = singlePage ? [spread] : [2 * spread - 1, 2 * spread]
        return Set(images.filter { (0..<book.imageCount).contains($0) })
    }

    /// The overview of `book` with the spread being read in the middle row.
    public static func around(spread: Int, singlePage: Bool, of book: BookInfo, viewSize: Vec2) -> (overview: Overview, current: Set<Int>) {
        let current = shown(spread: spread, singlePage: singlePage, in: book)
        let grid = Overview(book: book, viewSize: viewSize)
        return (Overview(book: book, viewSize: viewSize, scroll: grid.scroll(centring: current.min() ?? 0)), current)
    }
}
