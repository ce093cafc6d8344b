import FolioBook
import FolioImage
import FolioLayout
import FolioMath

/// MPFlip's transition between any two views: the first, split at its middle, turns over
/// onto the second. Drawn as a book of one sheet: the sheet shows the first view's moving
/// half on its front and the second view's other half on its back; the first's other half
/// stays (the facing page) and the second's moving half lies beneath (the reveal page). All
/// 8 styles (direction × orientation × perspective) and the three deformations of a book's
/// turn apply, with its shading and shadows, without a book's page blocks, cover or gutter.
///
/// Does not: read or write files, or draw (`folio flip` does, through the renderer).
public struct FlipTransition: Sendable, Equatable {
    /// A view's halves: the left and right one (horizontal), the top and bottom one (vertical).
    public enum Half: Int, Sendable { case first, second }

    /// Size of each view, layout units (`folio flip` uses the first image's pixels).
    public var size: Vec2
    public var style: TurnStyle
    public var deform: TurnDeform
    /// Eye distance; nil: in proportion to the half's width, as for a book.
    public var eye: Double?
    /// Strength of the shadows on the halves beneath the sheet (1: the reference's).
    public var shadow = 1.0

    public init(size: Vec2, style: TurnStyle = TurnStyle(), deform: TurnDeform = .rigid) {
        self.size = size
        self.style = style
        self.deform = deform
    }

    /// The book it is drawn as: its pages are the halves (image j shows `half(ofImage: j)`).
    public var book: BookInfo {
        let page = style.orientation == .vertical ? Vec2(size.x, size.y / 2) : Vec2(size.x / 2, size.y)
        return BookInfo(title: "flip", imageCount: 5, pageSize: page)
    }

    /// Which view (0: the first, 1: the second) and half page image `j` of `book` shows. The
    /// first view is spread `from`, the second spread `to`; image 0 (the right of spread 0)
    /// is never shown.
    public func half(ofImage j: Int) -> (view: Int, half: Half)? {
        guard (1...4).contains(j) else { return nil }
        let spread = (j + 1) / 2
        return (spread == from ? 0 : 1, j % 2 == 1 ? .first : .second)
    }

    /// Forwards the sheet turns from the right (or bottom) to the left (top): spread 1 → 2.
    private var from: Int { style.direction == .forward ? 1 : 2 }
    private var to: Int { style.direction == .forward ? 2 : 1 }

    /// The scene at turn progress `progress` (0: the first view, 1: the second) in a view
    /// of `viewSize` layout units; the views are fitted into it with a margin.
    public func scene(progress: Double, viewSize: Vec2) -> Scene {
        var v = ViewState(viewSize: viewSize, phase: .turning, book: 0, openProgress: 1, layout: .flat,
                          spread: Double(from), turn: TurnState(from: from, to: to, progress: clamp(progress, 0, 1)),
                          style: style, deform: deform)
        v.eye = eye
        v.shadow = shadow
        var scene = makeScene(v, books: [book])
        let sheet = scene.items.filter { $0.kind != .block && $0.kind != .cover }
        let caster = sheet.firstIndex { $0.kind == .sheet }
        scene.items = sheet.map { item in
            var i = item
            i.shade.gutter = 0
            if i.shadowCaster != nil { i.shadowCaster = caster }
            return i
        }
        return scene
    }

    /// The transition's pages as a library: the halves of `first` and `second` written as PNGs
    /// into `folder` (which must exist), one book whose image j shows `half(ofImage: j)`.
    public func library(first: RGBAImage, second: RGBAImage, folder: String) throws -> Library {
        // The second image is drawn at the first's size here: a page of another shape than
        // the book's would sit on paper instead.
        let second = (second.width, second.height) == (first.width, first.height) ? second
            : second.resampled(width: first.width, height: first.height)
        let views = [Self.halves(of: first, orientation: style.orientation), Self.halves(of: second, orientation: style.orientation)]
        var pages: [PageRef] = []
        for j in 0..<book.imageCount {
            // Image 0 is never shown: it repeats the first half.
            let (v, half) = self.half(ofImage: j) ?? (0, .first)
            let path = folder + "/half-\(j).png"
            try PNG.write(half == .first ? views[v].first : views[v].second, to: path)
            pages.append(.image(path))
        }
        return Library(title: "flip", books: [Book(title: "flip", pages: pages, pageWidth: book.pageSize.x, pageHeight: book.pageSize.y)])
    }

    /// An image's two halves, split at its middle across the spine: left and right, or top and
    /// bottom for a vertical flip.
    public static func halves(of image: RGBAImage, orientation: TurnStyle.Orientation) -> (first: RGBAImage, second: RGBAImage) {
        if orientation == .vertical {
            let h = image.height / 2
            return (image.cropped(x: 0, y: 0, width: image.width, height: h),
                    image.cropped(x: 0, y: h, width: image.width, height: image.height - h))
        }
        let w = image.width / 2
        return (image.cropped(x: 0, y: 0, width: w, height: image.height),
                image.cropped(x: w, y: 0, width: image.width - w, height: image.height))
    }
}
