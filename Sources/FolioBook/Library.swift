import Foundation

/// The order a book's pages are read in.
public enum ReadingDirection: String, Sendable, Codable {
    /// Left to right: the spine on the left of the text block, pages turn right to left.
    case ltr
    /// Right to left (manga, Arabic, Hebrew): spine on the right, pages turn left to right.
    case rtl
}

/// Something wrong with the user's input, worded for a person; the rest still loads.
public struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// How much a problem matters.
    public enum Severity: String, Sendable {
        /// Something was skipped on purpose (a stray non-image file); nothing is lost.
        case note
        /// Something the user asked for could not be used (a broken page, a bad field).
        case error
    }

    public var file: String
    public var line: Int?
    public var message: String
    public var severity: Severity

    public init(file: String, line: Int? = nil, message: String, severity: Severity = .error) {
        self.file = file
        self.line = line
        self.message = message
        self.severity = severity
    }

    /// `file:line: message`, as compilers print it; notes say so.
    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return FileName.printable(severity == .note ? "\(place): note: \(message)" : "\(place): \(message)")
    }

    /// `problems` for a person to read: a message said about more than `keep` files (a folder
    /// of 20,000 text files) becomes one line, in the place of its first, naming the count and
    /// the first few files. Said of more than `keep` entries of one manifest (`books[7]: no
    /// pages given`, whatever the index), it becomes one line naming the count and the first
    /// few entries: a manifest of millions of empty books gives one line, not millions.
    public static func summarised(_ problems: [Problem], keep: Int = 3) -> [Problem] {
        // Entries of a manifest differ only by their index.
        let entry = #/\[\d+\]/#
        func kind(_ p: Problem) -> String { p.line == nil ? p.message : p.file + "\u{0}" + p.message.replacing(entry, with: "[]") }
        var byKind: [String: [Problem]] = [:]
        for p in problems { byKind[kind(p), default: []].append(p) }
        var said = Set<String>()
        var out: [Problem] = []
        for p in problems {
            let k = kind(p), alike = byKind[k]!
            guard alike.count > keep else { out.append(p); continue }
            guard said.insert(k).inserted else { continue }
            if p.line != nil {
                // The entries' own paths (`books[0]`), which a one-line manifest tells apart.
                let places = alike.prefix(keep).map { $0.message.prefix { $0 != ":" } }.joined(separator: ", ")
                let message = p.message.replacing(entry, with: "[…]")
                out.append(Problem(file: p.file, message: "\(alike.count) entries: \(message) (\(places), …)", severity: p.severity))
                continue
            }
            let folder = (p.file as NSString).deletingLastPathComponent
            let names = alike.prefix(keep).map { ($0.file as NSString).lastPathComponent }.joined(separator: ", ")
            out.append(Problem(file: folder, message: "\(alike.count) files: \(p.message) (\(names), …)", severity: p.severity))
        }
        return out
    }
}

/// A book: a cover and page images, in reading order.
public struct Book: Sendable, Equatable {
    public var title: String
    public var author: String?
    /// The cover image, if any: a file by its absolute path (or a document's page).
    public var cover: PageRef?
    /// The page images, in reading order (files by absolute path).
    public var pages: [PageRef]
    public var direction: ReadingDirection
    /// Page size in layout units (the reference is 362 × 568).
    public var pageWidth: Double
    public var pageHeight: Double

    /// Whether the pages are print on paper, as the book's manifest says (`"printed"`); nil:
    /// as its format says (`isPrinted`).
    public var printed: Bool?

    /// Whether the pages are print on paper: a reader's theme recolours them and the other
    /// side of a sheet shows through. A document's are, unless its manifest says otherwise;
    /// page images (photographs, scans of art) and comics are not unless their manifest says
    /// they are printed, and are shown as they are.
    public var isPrinted: Bool {
        if let printed { return printed }
        guard let path = document else { return false }
        return PageSources.format(of: path)?.printed ?? false
    }

    /// The document whose pages the book shows (its first page's); nil for a book of images.
    public var document: String? { pages.first?.documentPage?.path }

    /// The image a cover shows: the book's cover, or its first page.
    public var coverImage: PageRef? { cover ?? pages.first }

    /// Whether the page count is an estimate: the book is one reflowable document still being
    /// laid out (shown as "≈720"). Asks only a document open now in `documents` (listing a
    /// shelf opens nothing).
    public func pagesEstimated(in documents: DocumentRegistry) -> Bool {
        guard let path = document, let source = documents.opened(path) else { return false }
        return source.pagesEstimated && source.pageCount == pages.count
    }

    /// The page count as a reader is told it: "720", or "≈720" while the book is laid out.
    public func pageCountLabel(in documents: DocumentRegistry) -> String {
        (pagesEstimated(in: documents) ? "≈" : "") + String(pages.count)
    }

    public static let referencePageWidth = 362.0
    public static let referencePageHeight = 568.0

    /// Whether `width` × `height` (layout units) can be a page: each side 16…16384 and neither
    /// more than 8 times the other. Anything else (a strip, 1e20, 1e-300) would make a book the
    /// camera cannot frame and sizes the layout cannot count in.
    public static func isPageSize(_ width: Double, _ height: Double) -> Bool {
        let sides = 16.0...16384
        return sides.contains(width) && sides.contains(height) && max(width / height, height / width) <= 8
    }

    /// The width of a book's pages at the reference height, from the natural size of its paper
    /// (`paperSize`); nil when that is not a page's shape (the book then keeps the reference
    /// size). Documents put every page on paper of this shape, so their pages fit the book's.
    public static func pageWidth(paper width: Double, _ height: Double) -> Double? {
        guard width > 0, height > 0 else { return nil }
        let w = (referencePageHeight * width / height).rounded()
        return isPageSize(w, referencePageHeight) ? w : nil
    }

    /// Width / height of the paper a document's pages are put on (see `pageWidth`).
    public static func paperAspect(paper size: (width: Double, height: Double)?) -> Double {
        (size.flatMap { pageWidth(paper: $0.width, $0.height) } ?? referencePageWidth) / referencePageHeight
    }

    /// How many of a document's first pages say the shape of its paper.
    public static let paperVoters = 9

    /// The natural size of the paper a document's pages are put on: the size of the first of
    /// its first `paperVoters` pages whose shape (width at the reference height, to a unit) the
    /// most of them have, the earliest on a tie. A scan's square cover or a PDF's odd title page
    /// used to shape the whole book, every other page letterboxed on it; now the odd page sits
    /// centred on the others' paper, as any page of another shape does. Nil when no page's size
    /// can be told.
    public static func paperSize(pageCount: Int, pageSize: (Int) -> (width: Double, height: Double)?) -> (width: Double, height: Double)? {
        let sizes = (0..<min(max(pageCount, 0), paperVoters)).compactMap(pageSize)
        let shapes = sizes.map { $0.width > 0 && $0.height > 0 ? (referencePageHeight * $0.width / $0.height).rounded() : -1 }
        var votes: [Double: Int] = [:]
        for shape in shapes { votes[shape, default: 0] += 1 }
        let most = votes.values.max() ?? 0
        return shapes.firstIndex { votes[$0] == most }.map { sizes[$0] }
    }

    /// `isPageSize`'s rule in words, for messages.
    public static let pageSizeRule = "each side 16…16384 units, neither more than 8 times the other"

    public init(title: String, author: String? = nil, cover: PageRef? = nil, pages: [PageRef],
                direction: ReadingDirection = .ltr, pageWidth: Double = Book.referencePageWidth,
                pageHeight: Double = Book.referencePageHeight, printed: Bool? = nil) {
        self.printed = printed
        self.title = title
        self.author = author
        self.cover = cover
        self.pages = pages
        self.direction = direction
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
    }
}

/// Books to show on the shelf, and the problems met while finding them.
public struct Library: Sendable, Equatable {
    public var title: String
    public var books: [Book]
    public var problems: [Problem]
    /// The page the source named, when it named one page image: the library is then the book
    /// of its folder, to be opened there (`Library.load`).
    public var namedPage: PagePlace?

    /// Documents that could not be opened at all (damaged, encrypted without the password,
    /// unreadable): each shows one placeholder page.
    public var unopened: [String] = []

    /// Whether nothing of the library could be shown: every book's pages are placeholders of
    /// documents that did not open. A command still draws them, but must not end as if it
    /// had shown what it was given.
    public var isUnusable: Bool {
        !books.isEmpty && !unopened.isEmpty && books.allSatisfy { book in
            book.pages.allSatisfy { page in page.documentPage.map { unopened.contains($0.path) } ?? false }
        }
    }

    /// A page of a library: book index and page image index, both from 0.
    public struct PagePlace: Sendable, Equatable {
        public var book: Int
        public var image: Int

        public init(book: Int, image: Int) {
            self.book = book
            self.image = image
        }
    }

    public init(title: String, books: [Book], problems: [Problem] = []) {
        self.title = title
        self.books = books
        self.problems = problems
    }
}

extension Book {
    /// The label of page image `index` (0-based) as a reader names it: the label printed in the
    /// document where it has labels ("iv", "17"), else the image's number from 1. The one place
    /// the on-screen layer asks for page numbers; the document is opened through `documents`.
    public func pageLabel(image index: Int, in documents: DocumentRegistry) -> String {
        if pages.indices.contains(index), let (path, page) = pages[index].documentPage,
           let label = (try? documents.open(path))?.label(ofPage: page), !label.isEmpty {
            return label
        }
        return String(index + 1)
    }
}
