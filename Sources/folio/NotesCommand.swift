import ArgumentParser
import FolioFind
import FolioLayout
import FolioBook
import FolioReader
import Foundation
import FolioState

/// The user's state store where there is one, opened once a run: captures read it and never
/// make it.
let existingStateStore: StateStore? = {
    let path = StateStore.path()
    return FileManager.default.fileExists(atPath: path) ? StateStore.open(path: path).store : nil
}()

/// Paints the highlights and bookmarks kept for `book` on its pages (a capture of it).
func paintKeptHighlights(of book: Book) {
    guard let document = book.document, let store = existingStateStore else { return }
    commandDocuments.marks.setHighlights(store.highlights(of: book), for: document)
    commandDocuments.marks.setRibbons(Bookmarks(store: store, documents: commandDocuments).documentPages(of: book), for: document)
}

/// `folio notes BOOK`: what the state store keeps of a book (its bookmarks, highlights and
/// notes), printed or exported; `--mark` adds or takes away bookmarks as M does in the viewer,
/// `--highlight` highlights a phrase as Shift+H does, `--import` reads an export back.
struct Notes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a book's bookmarks, highlights and notes from the state store, as text, JSON, Markdown or HTML; change them.",
        discussion: """
        The book is found by what it is, not where it is: a copy, or the book moved or renamed, \
        shows the same marks. The store is $XDG_DATA_HOME/folio/state.sqlite (docs/reading.md). \
        --mark PAGE marks PAGE (1-based, as laid out now) or takes its mark away, as M does in the \
        viewer, one line each. --highlight PHRASE highlights the first place PHRASE occurs (in \
        --colour, with --note), as Shift+H does. --import FILE adds the highlights of a JSON export \
        (this command's --json); a highlight already there is replaced, so importing twice adds nothing twice.
        """)

    @Argument(help: "A book: a document (PDF, EPUB, MOBI, FB2, XPS, DjVu, comic archive) or a folder of page images.")
    var book: String

    @Option(help: "Password of a protected PDF (or set FOLIO_PASSWORD).")
    var password: String?

    @Option(help: "Mark this page, or take its mark away (repeatable).")
    var mark: [Int] = []

    @Option(help: "Highlight the first place this phrase occurs (repeatable).")
    var highlight: [String] = []

    @Option(help: "The colour of --highlight: yellow, green, blue or pink.")
    var colour: String = Highlight.Colour.yellow.rawValue

    @Option(help: "A note written on each --highlight.")
    var note: String?

    @Option(name: .customLong("import"), help: "Add the highlights of a JSON export (--json) of this book.")
    var importFile: String?

    @Flag(help: "Print JSON: {\"title\", \"file\", \"readingSeconds\", \"pagesRead\", \"bookmarks\": [{\"page\", \"chapter\", \"offset\"}], \"highlights\": [{\"text\", \"note\", \"colour\", \"page\", \"chapter\", \"start\", \"end\", \"boxes\"}]}.")
    var json = false

    @Flag(help: "Print Markdown: the title, the highlights as quotes with their notes, then the bookmarks.")
    var markdown = false

    @Flag(help: "Print HTML: the same as --markdown, as a page of its own.")
    var html = false

    func validate() throws {
        if [json, markdown, html].filter({ $0 }).count > 1 { throw ValidationError("--json, --markdown and --html: choose one") }
        if let page = mark.first(where: { $0 < 1 }) { throw ValidationError("--mark \(page): pages are numbered from 1") }
        if Highlight.Colour(rawValue: colour) == nil {
            throw ValidationError("--colour \(colour): one of \(Highlight.Colour.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if note != nil && highlight.isEmpty { throw ValidationError("--note is written on a --highlight: name the phrase") }
    }

    struct Export: Codable {
        struct Mark: Codable {
            var page: Int
            var chapter: Int?
            var offset: Int?
        }

        struct Passage: Codable {
            var text: String
            var note: String?
            var colour: String
            /// The page number it starts on as laid out now (1-based).
            var page: Int?
            /// A reflowable book's anchor: characters `start..<end` of chapter `chapter`.
            var chapter: Int?
            var start: Int?
            var end: Int?
            /// A fixed page's anchor: its lines' boxes, [x0, y0, x1, y1] fractions of the paper.
            var boxes: [[Double]]?
        }

        var title: String
        var file: String
        /// Seconds read and pages turned in the viewer.
        var readingSeconds: Double
        var pagesRead: Int
        var bookmarks: [Mark]
        var highlights: [Passage]?
    }

    func run() throws {
        let library = try loadLibrary(book, password: password)
        guard library.books.count == 1, let book = library.books.first else {
            throw Failure(.usage, "\(self.book): holds \(library.books.count) books; name one of them")
        }
        let opened = StateStore.open()
        guard let store = opened.store else {
            opened.notices.dropLast().forEach(report)
            throw Failure(.cannotCreate, opened.notices.last ?? "the state store cannot be used")
        }
        opened.notices.forEach(report)
        let bookmarks = Bookmarks(store: store, documents: commandDocuments)
        if let page = mark.first(where: { $0 > book.pages.count }) {
            throw Failure(.usage, "--mark \(page): the book has \(book.pages.count) page\(book.pages.count == 1 ? "" : "s")")
        }
        for page in mark {
            let image = PageImage(number: page), change = bookmarks.change(page: image, of: book)
            guard change != nil else { throw Failure(.cannotCreate, bookmarks.notice(change, page: image)) }
            // Said once it is committed: a process killed after this line loses nothing it said.
            print(bookmarks.notice(change, page: image))
            fflush(nil)
        }
        let source = book.document.flatMap { try? commandDocuments.open($0) }
        let reflowing = ReadingPosition.reflowable(book, in: commandDocuments)
        for phrase in highlight {
            let made = try Self.highlight(phrase, in: source, reflowing: reflowing, colour: Highlight.Colour(rawValue: colour) ?? .yellow, note: note)
            guard store.add(made.highlight, to: book) != nil else { throw Failure(.cannotCreate, "\(FileName.printable(store.path)): cannot be written") }
            print("highlighted “\(FileName.printable(made.highlight.text))” on page \(made.page + 1)")
            fflush(nil)
        }
        if let importFile {
            let passages = try Self.imported(importFile)
            guard store.add(passages, to: book) != nil else { throw Failure(.cannotCreate, "\(FileName.printable(store.path)): cannot be written") }
            print("imported \(passages.count) highlight\(passages.count == 1 ? "" : "s")")
        }
        // Changes made: their lines say it all, unless an export is asked for too.
        if !(mark.isEmpty && highlight.isEmpty && importFile == nil) && !json && !markdown && !html { return }
        let marks = bookmarks.pages(of: book).map { page in
            let text = reflowing?.textPosition(ofPage: page.index)
            return Export.Mark(page: page.number, chapter: text?.chapter, offset: text?.offset)
        }
        let passages = store.highlights(of: book).map { Self.passage($0, reflowing: reflowing) }
        if json {
            let time = store.readingTime(of: book)
            print(try jsonLine(Export(title: book.title, file: self.book, readingSeconds: time?.seconds ?? 0, pagesRead: time?.pages ?? 0,
                                      bookmarks: marks, highlights: passages)))
        } else if markdown || html {
            let text = Self.markdown(title: book.title, highlights: passages, bookmarks: marks)
            print(markdown ? text : Self.html(title: book.title, highlights: passages, bookmarks: marks))
        } else {
            let lines = passages.map { "page \($0.page.map(String.init) ?? "?"): “\($0.text)”" + ($0.note.map { " — \($0)" } ?? "") }
                + marks.map { "page \($0.page): bookmark" }
            print(lines.isEmpty ? "no bookmarks or highlights" : lines.map(FileName.printable).joined(separator: "\n"))
        }
    }

    /// The highlight of the first place `phrase` occurs in `source`, and its page index.
    static func highlight(_ phrase: String, in source: (any PageSource)?, reflowing: (any ReflowableSource)?,
                          colour: Highlight.Colour, note: String?) throws -> (highlight: Highlight, page: Int) {
        let wanted: Phrase
        do { wanted = try Phrase(phrase) } catch { throw Failure(.usage, "--highlight: \(error)") }
        guard let source else { throw Failure(.usage, "--highlight: this book has no text") }
        for page in 0..<source.pageCount {
            guard let text = (try? source.text(page: page)) ?? nil, let hit = text.hits(of: wanted, page: page).first else { continue }
            let anchor = Highlight.anchor(words: hit.words, of: text, page: page, start: reflowing?.textPosition(ofPage: page))
            let words = text.words[hit.words].map(\.text).joined(separator: " ")
            return (Highlight(anchor: anchor, text: words, note: note, colour: colour), page)
        }
        throw Failure(.usage, "--highlight: “\(FileName.printable(phrase))” is not in the book")
    }

    /// A highlight as exported, with the page it starts on now.
    static func passage(_ h: Highlight, reflowing: (any ReflowableSource)?) -> Export.Passage {
        var p = Export.Passage(text: h.text, note: h.note, colour: h.colour.rawValue)
        switch h.anchor {
        case let .text(chapter, start, end):
            (p.chapter, p.start, p.end) = (chapter, start, end)
            p.page = reflowing?.page(at: TextPosition(chapter: chapter, offset: start)).map { $0 + 1 }
        case let .page(page, boxes):
            (p.page, p.boxes) = (page + 1, boxes.map { [$0.x0, $0.y0, $0.x1, $0.y1] })
        }
        return p
    }

    /// The highlights of an export read back: at most 64 MiB of JSON, each with an anchor.
    static func imported(_ path: String) throws -> [Highlight] {
        let bytes = try InputFile.read(path, maxBytes: 64 << 20)
        // Only the highlights are read: an export cut down to them imports as well.
        struct Imported: Decodable { var highlights: [Export.Passage]? }
        let export: Imported
        do { export = try JSONDecoder().decode(Imported.self, from: Data(bytes)) } catch {
            throw Failure(.data, "\(FileName.printable(path)): not an export of `folio notes --json` (\(Self.describe(error)))")
        }
        return try (export.highlights ?? []).enumerated().map { i, p in
            let anchor: Highlight.Anchor
            if let chapter = p.chapter, let start = p.start, let end = p.end, chapter >= 0, start >= 0, start <= end {
                anchor = .text(chapter: chapter, start: start, end: end)
            } else if let page = p.page, page >= 1, let boxes = p.boxes,
                      case let regions = Highlight.boxes(quads: boxes.flatMap { $0 }.map { "\($0)" }.joined(separator: " ")), !regions.isEmpty,
                      boxes.allSatisfy({ $0.count == 4 }) {
                anchor = .page(page - 1, boxes: regions)
            } else {
                throw Failure(.data, "\(FileName.printable(path)): highlight \(i + 1) has no place (chapter, start and end, or page and boxes)")
            }
            return Highlight(anchor: anchor, text: p.text, note: p.note, colour: Highlight.Colour(rawValue: p.colour) ?? .yellow)
        }
    }

    /// Where and what a JSON decoding failed on, in a few words ("highlights.0.text: missing").
    static func describe(_ error: Error) -> String {
        func path(_ keys: [CodingKey]) -> String { keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") }
        switch error {
        case let DecodingError.keyNotFound(key, c): return "\(path(c.codingPath + [key])): missing"
        case let DecodingError.typeMismatch(_, c), let DecodingError.valueNotFound(_, c): return "\(path(c.codingPath)): not what it should be"
        case let DecodingError.dataCorrupted(c): return c.codingPath.isEmpty ? "not JSON" : "\(path(c.codingPath)): unreadable"
        default: return "unreadable"
        }
    }

    static func markdown(title: String, highlights: [Export.Passage], bookmarks: [Export.Mark]) -> String {
        var out = "# \(FileName.printable(title))\n\n## Highlights\n"
        out += highlights.isEmpty ? "\nNone.\n" : highlights.map { h in
            "\n> \(FileName.printable(h.text))\n\n— page \(h.page.map(String.init) ?? "?"), \(h.colour)" + (h.note.map { "\n\n\(FileName.printable($0))" } ?? "") + "\n"
        }.joined()
        out += "\n## Bookmarks\n\n" + (bookmarks.isEmpty ? "None." : bookmarks.map { "- Page \($0.page)" }.joined(separator: "\n"))
        return out
    }

    static func html(title: String, highlights: [Export.Passage], bookmarks: [Export.Mark]) -> String {
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                .replacingOccurrences(of: "\"", with: "&quot;")
        }
        let items = highlights.map { h in
            "<blockquote class=\"\(h.colour)\"><p>\(escaped(h.text))</p><footer>page \(h.page.map(String.init) ?? "?")</footer></blockquote>"
                + (h.note.map { "\n<p class=\"note\">\(escaped($0))</p>" } ?? "")
        }
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>\(escaped(title))</title></head><body>
            <h1>\(escaped(title))</h1>
            <h2>Highlights</h2>
            \(items.isEmpty ? "<p>None.</p>" : items.joined(separator: "\n"))
            <h2>Bookmarks</h2>
            \(bookmarks.isEmpty ? "<p>None.</p>" : "<ul>" + bookmarks.map { "<li>Page \($0.page)</li>" }.joined() + "</ul>")
            </body></html>
            """
    }
}
