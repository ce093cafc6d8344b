/// How a reflowable book's text is set: the reader's choices (typeface, line spacing, margins,
/// justification, hyphenation, the publisher's styles) and the page's frame they make.
/// Does not: lay anything out (the engine does, from these), or know which engine.
public struct Typography: Sendable, Hashable, Codable {
    /// The typeface of the text: the publisher's, or one of the reader's.
    public enum Face: String, Sendable, Hashable, Codable, CaseIterable {
        case publisher, serif, sans, mono
    }

    /// How far the text block stands in from the page's edges.
    public enum Margins: String, Sendable, Hashable, Codable, CaseIterable {
        case narrow, normal, wide

        /// The margins' size against `normal`'s.
        var scale: Double {
            switch self {
            case .narrow: 0.55
            case .normal: 1
            case .wide: 1.5
            }
        }
    }

    public var face: Face
    /// An installed typeface by its family name ("OpenDyslexic", "DejaVu Serif"), found through
    /// fontconfig; where it is installed it stands in for `face`.
    public var family: String?
    /// Line height in ems.
    public var lineSpacing: Double
    public var margins: Margins
    /// Paragraphs set flush to both sides (the publisher's own alignments kept).
    public var justify: Bool
    /// Soft hyphens put where the book's language's patterns allow.
    public var hyphenate: Bool
    /// Whether the publisher's styles stand (colours, sizes, faces); off, the text is set plainly.
    public var publisherStyles: Bool

    public init(face: Face = .publisher, family: String? = nil, lineSpacing: Double = 1.4, margins: Margins = .normal,
                justify: Bool = true, hyphenate: Bool = true, publisherStyles: Bool = true) {
        self.face = face
        // A family name is one line of letters, spaces and a few marks; anything else is none.
        self.family = family.flatMap { name in
            name.count <= 100 && !name.isEmpty && name.allSatisfy({ $0.isLetter || $0.isNumber || " -_.".contains($0) }) ? name : nil
        }
        self.lineSpacing = min(max(lineSpacing.isFinite ? lineSpacing : 1.4, Self.lineSpacings.lowerBound), Self.lineSpacings.upperBound)
        self.margins = margins
        self.justify = justify
        self.hyphenate = hyphenate
        self.publisherStyles = publisherStyles
    }

    public static let lineSpacings = 1.0...2.5

    private enum CodingKeys: String, CodingKey { case face, family, lineSpacing, margins, justify, hyphenate, publisherStyles }

    /// A key missing (a file of an older version, or written by hand) keeps its default; a
    /// spacing out of range is brought within it.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let standard = Typography()
        self.init(face: try c.decodeIfPresent(Face.self, forKey: .face) ?? standard.face,
                  family: try c.decodeIfPresent(String.self, forKey: .family),
                  lineSpacing: try c.decodeIfPresent(Double.self, forKey: .lineSpacing) ?? standard.lineSpacing,
                  margins: try c.decodeIfPresent(Margins.self, forKey: .margins) ?? standard.margins,
                  justify: try c.decodeIfPresent(Bool.self, forKey: .justify) ?? standard.justify,
                  hyphenate: try c.decodeIfPresent(Bool.self, forKey: .hyphenate) ?? standard.hyphenate,
                  publisherStyles: try c.decodeIfPresent(Bool.self, forKey: .publisherStyles) ?? standard.publisherStyles)
    }
    /// Books are set like this unless the reader chose otherwise: justified and hyphenated, as
    /// printed books are (and Foliate's and Apple Books' defaults).
    public static let standard = Typography()
}

/// Where a reflowable page's text block and furniture lie on its paper, in points (origin at
/// the paper's top-left). Proportioned like a printed book: the inner margin (at the spine)
/// narrower than the outer, the foot deeper than the head, all growing with the page.
public struct PageFrame: Sendable, Equatable {
    public var width, height: Double
    public var top, bottom, inner, outer: Double

    /// The frame of a page of `width` × `height` points with `margins`.
    public init(width: Double, height: Double, margins: Typography.Margins) {
        self.width = width
        self.height = height
        let s = margins.scale
        // Against the reference page (362 × 568 pt): 34 pt head, 48 pt foot, 26 pt inner, 36 pt outer.
        top = 0.06 * height * s
        bottom = 0.085 * height * s
        inner = 0.072 * width * s
        outer = 0.1 * width * s
    }

    /// The text block's size.
    public var block: (width: Double, height: Double) { (width - inner - outer, height - top - bottom) }

    /// The block's left edge on a page on the right of the spine (`onRight`) or on its left.
    public func blockLeft(onRight: Bool) -> Double { onRight ? inner : outer }

    /// The size of the running head's and folio's type: a little smaller than the text's.
    public func furnitureSize(fontSize: Double) -> Double { max(6, fontSize * 0.8) }

    /// The running head's baseline above the block, and the folio's below it (points from the
    /// block's top), each midway in its margin.
    public func headBaseline(fontSize: Double) -> Double { -top / 2 + furnitureSize(fontSize: fontSize) / 3 }
    public func footBaseline(fontSize: Double) -> Double { block.height + bottom / 2 + furnitureSize(fontSize: fontSize) / 3 }

    /// The block as fractions of the paper.
    public func blockRegion(onRight: Bool) -> PageRegion {
        let left = blockLeft(onRight: onRight)
        return PageRegion(x0: left / width, y0: top / height, x1: (left + block.width) / width, y1: (top + block.height) / height)
    }
}
