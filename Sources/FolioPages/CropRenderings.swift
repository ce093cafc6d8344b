import FolioBook
import FolioImage
import FolioLayout

/// The crops the page store renders of zoomed vector pages (`PageSource.render(page:crop:
/// paperAspect:)`): which part of a page a crop covers, and which renderings are under way.
///
/// A crop is rendered for the visible part grown by `margin` on each side, so a small pan is
/// still covered. One rendering per page runs at a time; a newer request for the page waits
/// behind it and replaces any request already waiting. What a rendering brings is held in the
/// store's table (the rasters of a page's `.crop` row, `Residency.crops`) under the store's one
/// budget, and comes back to it through the store's inbox. Render thread only (the store's).
/// Does not: hold rasters, decide what is visible, make textures, or report bad pages (the
/// store that shows the whole page does).
struct CropRenderings {
    /// Crops larger than this (either side) are cut down around the visible part.
    let maxSide: Int
    /// Fraction of the visible part's size rendered beyond it on each side.
    let margin = 0.125

    /// A page at one scale: the page, the width / height of the paper it is put on (its
    /// book's, as the store decodes it), the size of the whole paper at that scale, and the
    /// book's layout (a crop of another layout is another page's).
    struct Key: Sendable, Hashable {
        var page: PageRef
        var paper: Double
        var scale: PixelSize
        var layout: Int
    }

    /// A part of a page to show: `visible` of page `key.page` rasterised at `key.scale`, held in
    /// the table's row `row` (a `.crop` key).
    struct Want: Sendable, Equatable {
        var row: PageKey
        var key: Key
        var visible: PageRegion
    }

    /// A rendered crop. Its image has a one-pixel transparent border around the crop's pixels
    /// (copies of the edge colours): a texture of it fades into the page beneath at its edges
    /// instead of repeating its last row beyond them.
    struct Raster: Sendable {
        let key: Key
        let crop: PageCrop
        let image: RGBAImage
        /// Unique for each rendering: the row's `version` while it is the one shown.
        let serial: Int
        /// Rendered before its page's marks last changed: shown until a newer one comes.
        var stale: Bool
        /// When it was last shown (`PageStore.detail`): the least recently shown goes first.
        var used: Int

        var byteCount: Int { image.byteCount }
    }

    /// The rendering under way for each row, and whether its page's marks changed since it
    /// began; the next request for each row.
    private var inflight: [PageKey: (want: Want, remarked: Bool)] = [:]
    private var waiting: [PageKey: Want] = [:]
    /// Rows with nothing sharper to give (bitmaps) or that failed: not asked again.
    private var refused: Set<PageKey> = []
    private var serials = 0
    /// Crops rendered so far.
    private(set) var rendered = 0

    init(maxSide: Int) { self.maxSide = maxSide }

    var rendering: Int { inflight.count }

    /// Asks for `want`; the rendering to start now, if any. Nothing starts when what renders
    /// (with the page's marks as they are) or waits for the row covers it; a rendering
    /// already under way for the row has it wait.
    mutating func request(_ want: Want) -> (want: Want, crop: PageCrop)? {
        guard !refused.contains(want.row), !want.visible.isEmpty else { return nil }
        let current = inflight[want.row].flatMap { $0.remarked ? nil : $0.want }
        if [waiting[want.row], current].contains(where: { $0.map { serves($0.key, crop(for: $0), want) } ?? false }) { return nil }
        if inflight[want.row] != nil {
            waiting[want.row] = want
            return nil
        }
        inflight[want.row] = (want, false)
        return (want, crop(for: want))
    }

    /// Book `book` was laid out again: its pages are asked again, even those that gave nothing.
    mutating func relaid(book: Int) {
        refused = refused.filter { $0.book != book }
    }

    /// Nothing renders from now on (the store closes): what is under way is forgotten.
    mutating func cancel() {
        (inflight, waiting) = ([:], [:])
    }

    /// The marks of `rows`' pages changed: what renders for them now is stale when it comes.
    mutating func remark(_ rows: Set<PageKey>) {
        for row in rows { inflight[row]?.remarked = true }
    }

    /// The rendering of `want` finished with `image` (bordered; nil: nothing sharper to give,
    /// or it failed, and the row is not asked again while `current`, of its book's layout now):
    /// the raster to hold, and the request that waited behind it.
    mutating func finish(_ want: Want, crop: PageCrop, image: RGBAImage?, current: Bool) -> (raster: Raster?, next: Want?) {
        // One rendering a row at a time: this is the row's.
        guard let flight = inflight.removeValue(forKey: want.row) else { return (nil, nil) }
        let next = waiting.removeValue(forKey: want.row)
        guard let image else {
            if current { refused.insert(want.row) }
            return (nil, nil)
        }
        serials += 1
        rendered += 1
        return (Raster(key: want.key, crop: crop, image: image, serial: serials, stale: flight.remarked, used: 0), next)
    }

    /// The part rendered for `want`: the visible part and the margin, inside the page, cut
    /// down around the visible part's centre to `maxSide` pixels a side.
    func crop(for want: Want) -> PageCrop {
        let v = want.visible, m = margin
        let grown = PageRegion(x0: v.x0 - m * v.width, y0: v.y0 - m * v.height, x1: v.x1 + m * v.width, y1: v.y1 + m * v.height)
            .intersection(.whole)
        var crop = PageCrop(covering: grown, of: want.key.scale)
        let side = max(1, maxSide)
        let centre = PageCrop(covering: v, of: want.key.scale)
        if crop.width > side {
            crop.x = min(max(crop.x, centre.x + centre.width / 2 - side / 2), crop.x + crop.width - side)
            crop.width = side
        }
        if crop.height > side {
            crop.y = min(max(crop.y, centre.y + centre.height / 2 - side / 2), crop.y + crop.height - side)
            crop.height = side
        }
        return crop
    }

    /// Whether a crop of page and scale `key` serves `want`: it covers its visible part, or
    /// is all of it that one crop may hold (`maxSide`).
    func serves(_ key: Key, _ crop: PageCrop, _ want: Want) -> Bool {
        key == want.key && (crop.region.contains(want.visible) || crop == self.crop(for: want))
    }

    /// `image` inside a one-pixel border of its edge colours, transparent.
    static func bordered(_ image: RGBAImage) -> RGBAImage {
        let w = image.width, h = image.height, row = (w + 2) * 4
        var out = RGBAImage(width: w + 2, height: h + 2, fill: (0, 0, 0, 0))
        out.pixels.withUnsafeMutableBufferPointer { o in
            image.pixels.withUnsafeBufferPointer { src in
                for y in 0..<h {
                    let d = (y + 1) * row
                    (o.baseAddress! + d + 4).update(from: src.baseAddress! + y * w * 4, count: w * 4)
                    // Each side's border pixel takes the colour next to it, with no alpha.
                    for c in 0..<3 {
                        o[d + c] = src[y * w * 4 + c]
                        o[d + row - 4 + c] = src[(y * w + w - 1) * 4 + c]
                    }
                }
                for x in 0..<row where x % 4 != 3 {
                    o[x] = o[row + x]
                    o[(h + 1) * row + x] = o[h * row + x]
                }
            }
        }
        return out
    }
}
