/// What a document says about itself beyond its pages' pictures: who wrote it, which way it
/// reads, how its pages are labelled, its contents, its text and its links. Every document
/// engine (poppler, MuPDF, djvulibre, archives) answers what it can; the defaults below are
/// what a folder of images has: nothing.
///
/// Places on a page are `PageRegion`s: fractions of the paper the page is drawn on (as
/// `PageSource.render` places it), x right and y down, so a highlight maps straight onto the
/// page's texture coordinates whatever size the page is drawn at.

/// One entry of a document's contents; `page` is a page index, nil for an entry that points
/// nowhere in the document (a heading only, or a target that does not exist).
public struct OutlineEntry: Sendable, Hashable {
    public var title: String
    public var page: Int?
    public var children: [OutlineEntry]

    public init(title: String, page: Int?, children: [OutlineEntry] = []) {
        self.title = title
        self.page = page
        self.children = children
    }
}

/// One word of a page's text and where it lies.
public struct TextWord: Sendable, Hashable {
    public var text: String
    public var box: PageRegion

    public init(text: String, box: PageRegion) {
        self.text = text
        self.box = box
    }
}

/// A page's text in reading order.
public struct PageText: Sendable, Hashable {
    public var words: [TextWord]

    public init(words: [TextWord]) { self.words = words }

    /// The words joined by single spaces.
    public var string: String { words.map(\.text).joined(separator: " ") }

    /// Whether `word` begins a line after `previous`: it starts left of it, or below it.
    public func startsLine(_ word: TextWord, after previous: TextWord) -> Bool {
        word.box.x0 < previous.box.x0 || word.box.y0 >= previous.box.y1
    }

    /// The words in lines: a word that starts left of the one before, or below it, begins a line.
    public var lines: [[TextWord]] {
        var lines: [[TextWord]] = []
        for w in words {
            if let prev = lines.last?.last, !startsLine(w, after: prev) {
                lines[lines.count - 1].append(w)
            } else {
                lines.append([w])
            }
        }
        return lines
    }

    /// Boxes to mark the words, one per line: its words' boxes and the spaces between them.
    public var lineBoxes: [PageRegion] {
        lines.map { line in
            line.dropFirst().reduce(line[0].box) {
                PageRegion(x0: min($0.x0, $1.box.x0), y0: min($0.y0, $1.box.y0), x1: max($0.x1, $1.box.x1), y1: max($0.y1, $1.box.y1))
            }
        }
    }
}

/// Where a link goes.
public indirect enum LinkTarget: Sendable, Hashable {
    /// A page index of the same document.
    case page(Int)
    /// Anything outside it, as written in the document (not yet checked for what it may open).
    case uri(String)
    /// A note of the same document (a footnote, an endnote): its text, shown over the page, the
    /// page index it is on, and the links it holds.
    case note(page: Int, text: String, links: [NoteLink] = [])
}

/// A link inside a note: its words and where it goes.
public struct NoteLink: Sendable, Hashable {
    public var label: String
    public var target: LinkTarget

    public init(label: String, target: LinkTarget) {
        (self.label, self.target) = (label, target)
    }
}

/// A link: the area to click and where it goes.
public struct PageLink: Sendable, Hashable {
    public var box: PageRegion
    public var target: LinkTarget

    public init(box: PageRegion, target: LinkTarget) {
        self.box = box
        self.target = target
    }
}

extension PageSource {
    public var author: String? { nil }
    public var direction: ReadingDirection { .ltr }
    public func label(ofPage index: Int) -> String? { nil }
    public var outline: [OutlineEntry] { [] }
    public func text(page index: Int) throws -> PageText? { nil }
    public func links(page index: Int) -> [PageLink] { [] }
}
