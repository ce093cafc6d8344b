import FolioImage
import Foundation
import Synchronization

/// Boxes marked on documents' pages (highlights, search hits, the words selected), drawn into the page's own
/// pixels as it is rasterised: the mark is as sharp as the page at any size it is drawn (a
/// zoomed page's crops are rasterised at the zoomed scale and marked there), and it lies on
/// the paper, turning and curling with it. Marks set after a page was rendered show when it is
/// rendered again (the caller drops the cached page). One set of marks per `DocumentRegistry`
/// (`DocumentRegistry.marks`): the documents a pipeline opens are marked for it alone, and a
/// decode reads the marks of the registry it renders through. Thread-safe. Does not: find
/// what to mark.
public final class PageMarks: Sendable {
    /// The marker's colour, multiplied into the page: print stays dark, paper turns yellow.
    public static let colour: (r: UInt8, g: UInt8, b: UInt8) = (255, 210, 40)
    /// Multiplied again over the hit the reader is on: the yellow deepens to orange.
    public static let currentColour: (r: UInt8, g: UInt8, b: UInt8) = (255, 150, 60)

    public init() {}

    private let marks = Mutex<[String: [Int: [PageRegion]]]>([:])
    /// The words selected, on pages of one document at most (the two of a spread).
    private let selected = Mutex<(path: String, pages: [Int: [PageRegion]])?>(nil)
    /// The search hit the reader is on, marked in its own colour.
    private let current = Mutex<(path: String, page: Int, boxes: [PageRegion])?>(nil)
    /// The sentence being read aloud (page index → its boxes), in its own colour.
    private let spoken = Mutex<(path: String, pages: [Int: [PageRegion]])?>(nil)
    public static let spokenColour: (r: UInt8, g: UInt8, b: UInt8) = (190, 220, 255)

    /// Marks `boxes` (page index → the sentence's lines there) of `path` as the sentence read
    /// aloud, in place of the one before; none clear it.
    public func setSpoken(_ boxes: [Int: [PageRegion]], of path: String) {
        spoken.withLock { $0 = boxes.isEmpty ? nil : (path, boxes) }
    }

    /// The boxes of the sentence read aloud on page `index` of `path`.
    func spokenBoxes(_ path: String, page index: Int) -> [PageRegion] {
        spoken.withLock { $0.flatMap { $0.path == path ? $0.pages[index] : nil } } ?? []
    }

    /// The reader's highlights of each document, painted under the other marks.
    private let highlights = Mutex<[String: [Highlight]]>([:])
    /// Multiplied over a corner of a highlight that carries a note: its marker.
    public static let noteColour: (r: UInt8, g: UInt8, b: UInt8) = (235, 120, 40)

    /// The pages of each document the reader bookmarked, a ribbon painted over their head.
    private let ribbons = Mutex<[String: Set<Int>]>([:])
    public static let ribbonColour: (r: UInt8, g: UInt8, b: UInt8) = (176, 36, 44)

    /// Paints a ribbon on pages `pages` (indices) of `path`, in place of those before.
    public func setRibbons(_ pages: Set<Int>, for path: String) {
        ribbons.withLock { $0[path] = pages.isEmpty ? nil : pages }
    }

    /// Paints `list` on the document at `path`, in place of its highlights before.
    public func setHighlights(_ list: [Highlight], for path: String) {
        highlights.withLock { $0[path] = list.isEmpty ? nil : list }
    }

    /// The highlights painted on the document at `path`.
    public func highlights(_ path: String) -> [Highlight] { highlights.withLock { $0[path] ?? [] } }

    /// What page `index` of `source` (the document at `path`) shows of its highlights: each
    /// one's boxes there, its colour, and whether it has a note. The page's words are read only
    /// when a highlight may lie on it.
    func highlighted(_ path: String, page index: Int, of source: any PageSource) -> [(boxes: [PageRegion], highlight: Highlight)] {
        let list = highlights(path)
        guard !list.isEmpty else { return [] }
        let start = list.contains { if case .text = $0.anchor { true } else { false } }
            ? (source as? any ReflowableSource)?.textPosition(ofPage: index) : nil
        let onPage = list.filter {
            switch $0.anchor {
            case let .page(page, _): page == index
            case let .text(chapter, _, end): start.map { $0.chapter == chapter && end > $0.offset } ?? false
            }
        }
        guard !onPage.isEmpty else { return [] }
        let text = onPage.contains { if case .text = $0.anchor { true } else { false } } ? (try? source.text(page: index)) ?? nil : nil
        return onPage.map { ($0.boxes(on: index, text: text, start: start), $0) }.filter { !$0.boxes.isEmpty }
    }

    /// `image` (of page `index` of `source`, at `path`, showing `shown` of its paper placed by
    /// `placing`) with the reader's marks: its highlights and their note markers, the sentence
    /// read aloud, and a bookmark's ribbon.
    func paintReadersMarks(_ image: inout RGBAImage, path: String, page index: Int, of source: any PageSource,
                                placing: (PageRegion) -> PageRegion = { $0 }, shown: PageRegion = .whole) {
        for (boxes, highlight) in highlighted(path, page: index, of: source) {
            let placed = boxes.map(placing)
            Self.mark(&image, boxes: placed, colour: highlight.colour.rgb, shown: shown)
            guard highlight.note?.isEmpty == false, let last = placed.last else { continue }
            // The marker: a small square at the end of the last line, its side a third of the line's height.
            let side = (last.y1 - last.y0) * 0.4, across = side * Double(image.height) / Double(max(image.width, 1)) * shown.width / shown.height
            Self.mark(&image, boxes: [PageRegion(x0: last.x1 - across, y0: last.y0, x1: last.x1, y1: last.y0 + side)], colour: Self.noteColour, shown: shown)
        }
        Self.mark(&image, boxes: spokenBoxes(path, page: index).map(placing), colour: Self.spokenColour, shown: shown)
        if ribbons.withLock({ $0[path]?.contains(index) ?? false }) {
            // Over the head of the page, in its outer margin: the right one for a page on the right
            // (an even index in a left-to-right book: the first page is on the right).
            let right = (index % 2 == 0) == (source.direction == .ltr)
            Self.paintRibbon(&image, region: placing(PageRegion(x0: right ? 0.91 : 0.04, y0: 0, x1: right ? 0.96 : 0.09, y1: 0.08)), shown: shown)
        }
    }

    /// A ribbon over `region` of the paper (its top at the page's head): solid, its foot cut in a V.
    private static func paintRibbon(_ image: inout RGBAImage, region: PageRegion, shown: PageRegion) {
        let w = Double(image.width), h = Double(image.height)
        let x0 = (region.x0 - shown.x0) / shown.width * w, x1 = (region.x1 - shown.x0) / shown.width * w
        let y1 = (region.y1 - shown.y0) / shown.height * h, top = (region.y0 - shown.y0) / shown.height * h
        let notch = (x1 - x0) / 2, middle = (x0 + x1) / 2
        for y in max(0, Int(top))..<min(image.height, max(0, Int(y1.rounded()))) {
            // The V: rows within `notch` of the foot leave out the middle, wider towards the foot.
            let cut = max(0, Double(y) - (y1 - notch))
            for x in max(0, Int(x0.rounded()))..<min(image.width, max(0, Int(x1.rounded()))) where abs(Double(x) + 0.5 - middle) >= cut {
                let i = (y * image.width + x) * 4
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = (ribbonColour.r, ribbonColour.g, ribbonColour.b)
            }
        }
    }

    /// Marks `boxes` (page index → fractions of the document's paper) on the document at
    /// `path`, replacing its marks; an empty map clears them.
    public func set(_ boxes: [Int: [PageRegion]], for path: String) {
        marks.withLock { $0[path] = boxes.isEmpty ? nil : boxes }
    }

    /// Marks `boxes` (a selection of words) on page `index` of `path`, in place of the
    /// selection marked before; no boxes clear it.
    public func select(_ boxes: [PageRegion], page index: Int, of path: String) {
        select([index: boxes], of: path)
    }

    /// Marks `boxes` (page index → a selection of words on it) on `path`, in place of the
    /// selection marked before; no boxes clear it.
    public func select(_ boxes: [Int: [PageRegion]], of path: String) {
        let pages = boxes.filter { !$0.value.isEmpty }
        selected.withLock { $0 = pages.isEmpty ? nil : (path, pages) }
    }

    /// Marks `boxes` on page `index` of `path` as the hit the reader is on, in place of the one
    /// before; no boxes clear it.
    public func setCurrent(_ boxes: [PageRegion], page index: Int, of path: String) {
        current.withLock { $0 = boxes.isEmpty ? nil : (path, index, boxes) }
    }

    /// The boxes of the hit the reader is on, when it lies on page `index` of `path`.
    public func currentBoxes(_ path: String, page index: Int) -> [PageRegion] {
        current.withLock { $0.flatMap { $0.path == path && $0.page == index ? $0.boxes : nil } } ?? []
    }

    /// The boxes marked on page `index` of `path`: hits, and the selection.
    public func boxes(_ path: String, page index: Int) -> [PageRegion] {
        let chosen = selected.withLock { $0.flatMap { $0.path == path ? $0.pages[index] : nil } } ?? []
        return marks.withLock { $0[path]?[index] ?? [] } + chosen
    }

    /// `image`, showing `shown` of the paper (the whole, or a crop), with `boxes` marked and
    /// `current` (the hit the reader is on) marked again in its own colour.
    static func mark(_ image: inout RGBAImage, boxes: [PageRegion], current: [PageRegion] = [], shown: PageRegion = .whole) {
        mark(&image, boxes: boxes, colour: colour, shown: shown)
        mark(&image, boxes: current, colour: currentColour, shown: shown)
    }

    private static func mark(_ image: inout RGBAImage, boxes: [PageRegion], colour: (r: UInt8, g: UInt8, b: UInt8), shown: PageRegion) {
        guard !boxes.isEmpty, image.width > 0, image.height > 0, !shown.isEmpty else { return }
        let w = Double(image.width), h = Double(image.height)
        for b in boxes {
            let r = b.intersection(shown)
            guard !r.isEmpty else { continue }
            let x0 = Int(((r.x0 - shown.x0) / shown.width * w).rounded()), x1 = Int(((r.x1 - shown.x0) / shown.width * w).rounded())
            let y0 = Int(((r.y0 - shown.y0) / shown.height * h).rounded()), y1 = Int(((r.y1 - shown.y0) / shown.height * h).rounded())
            for y in max(0, y0)..<min(image.height, max(y0, y1)) {
                for x in max(0, x0)..<min(image.width, max(x0, x1)) {
                    let i = (y * image.width + x) * 4
                    image.pixels[i] = UInt8(Int(image.pixels[i]) * Int(colour.r) / 255)
                    image.pixels[i + 1] = UInt8(Int(image.pixels[i + 1]) * Int(colour.g) / 255)
                    image.pixels[i + 2] = UInt8(Int(image.pixels[i + 2]) * Int(colour.b) / 255)
                }
            }
        }
    }
}
