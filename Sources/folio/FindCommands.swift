import ArgumentParser
import FolioBook
import FolioLibrary
import FolioFind
import FolioMuPDF
import Foundation
import Synchronization

/// The document a finding command reads: a PDF or comic archive (through its engine), or a
/// folder of page images (its contents are the file names; it has no text).
/// A long e-book's layout shows its chapters counted on a terminal (`label`), unless `quiet`.
func openDocument(_ path: String, password: String?, label: String = "folio", quiet: Bool = false) throws -> PageSource {
    let path = try resolveSource(path, password: password)
    if PageSources.format(of: path) != nil {
        let laying = SharedProgressLine(ProgressLine(label + ": laying out", unit: "chapters", total: nil, quiet: quiet))
        MuPDF.layoutProgress = { laid, _ in laying.advance(to: laid) }
        defer {
            MuPDF.layoutProgress = nil
            laying.finish()
        }
        do { return try commandDocuments.open(path) } catch let e as PageError { throw Failure(.data, e.description) }
    }
    let library = Library.load(from: path, documents: commandDocuments, logProblems: false)
    guard let book = library.books.first, library.books.count == 1, !book.pages.isEmpty else {
        throw Failure(.data, "\(path): not a document or a folder of page images")
    }
    return ImageFolder(pages: book.pages)
}

/// The document a finding command reads, its password, and how a reflowable one is laid out.
struct FindSource: ParsableArguments {
    @Argument(help: "A document (PDF, EPUB, FB2, XPS, DjVu, plain text, comic archive) or a folder of page images.")
    var document: String

    @Option(help: "Password of a protected PDF (or set FOLIO_PASSWORD).")
    var password: String?

    @OptionGroup var layout: DocumentOptions
}

/// A folder's page images as a document: what it says of itself is its file names.
private final class ImageFolder: PageSource {
    let pages: [PageRef]
    init(pages: [PageRef]) { self.pages = pages }
    var pageCount: Int { pages.count }
    var title: String? { nil }
    func pageSize(_ index: Int) -> (width: Double, height: Double)? { commandDocuments.naturalSize(pages[index]) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender { try commandDocuments.render(pages[index], fit: fit) }
    var outline: [OutlineEntry] {
        let folder = (pages[0].path as NSString).deletingLastPathComponent + "/"
        return OutlineEntry.fileNames(pages.map { $0.path.hasPrefix(folder) ? String($0.path.dropFirst(folder.count)) : $0.path })
    }
}

/// `text` as a phrase to search for; a usage error (64) when it is empty or too long.
func parsePhrase(_ text: String, _ prefix: String = "") throws -> Phrase {
    do { return try Phrase(text) } catch { throw Failure(.usage, prefix + error.description) }
}

/// A number of a page region, short (a ten-thousandth of the page is below a pixel).
private func fraction(_ x: Double) -> Double { (x * 10_000).rounded() / 10_000 }

func jsonLine<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return printableJSON(try encoder.encode(value))
}

/// `folio outline DOC`: the document's contents.
struct Outline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a document's contents (outline): indented text, or JSON.",
        discussion: "Each entry shows its page number and the label printed on that page when it differs. A folder of images or a comic archive lists its file names. At most 10,000 entries are read.")

    @OptionGroup var input: FindSource

    @Flag(help: "Print JSON: [{\"title\", \"page\" (1-based or null), \"label\", \"children\"}].")
    var json = false

    struct Entry: Encodable {
        var title: String
        var page: Int?
        var label: String?
        var children: [Entry]
    }

    func run() throws {
        let source = try openDocument(input.document, password: input.password, label: "folio outline")
        func entry(_ e: OutlineEntry) -> Entry {
            Entry(title: e.title, page: e.page.map { $0 + 1 }, label: e.page.flatMap { source.label(ofPage: $0) },
                  children: e.children.map(entry))
        }
        let entries = source.outline.map(entry)
        if json { print(try jsonLine(entries)); return }
        if entries.isEmpty { report("\(FileName.printable(input.document)): has no contents"); return }
        func show(_ e: Entry, depth: Int) {
            let label = e.label.map { $0 == e.page.map(String.init) ? "" : " (\(FileName.printable($0)))" } ?? ""
            let page = e.page.map { " — page \($0)\(label)" } ?? ""
            print(String(repeating: "  ", count: depth) + FileName.printable(e.title.isEmpty ? "(untitled)" : e.title) + page)
            for c in e.children { show(c, depth: depth + 1) }
        }
        for e in entries { show(e, depth: 0) }
    }
}

/// `folio search DOC PHRASE`: every place the phrase occurs, one JSON line each.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find a phrase in a document: one JSON line per hit.",
        discussion: """
        Case, accents, the kind of quote (' for ’) and line breaks are ignored; the phrase is plain text (no patterns). Each line: \
        {"page": N (1-based), "index": N - 1, "label": the printed page label or null, "boxes": \
        [[x0, y0, x1, y1], …] (fractions of the paper from its top left, one box per line of text), \
        "snippet": the words around it}. Exits 0 when something is found, 1 when nothing is (as grep), \
        65 when the document has no text to search, 64 for an empty or over-long phrase.
        """)

    @OptionGroup var input: FindSource

    @Argument(help: "The phrase to find.")
    var phrase: String

    @Flag(help: "Report on standard error when the first hit came and how long the whole search took.")
    var stats = false

    @Flag(name: .shortAndLong, help: "No progress line on a terminal.")
    var quiet = false

    struct Line: Encodable {
        var page: Int
        var index: Int
        var label: String?
        var boxes: [[Double]]
        var snippet: String
    }

    func run() throws {
        let phrase = try parsePhrase(self.phrase)
        let source = try openDocument(input.document, password: input.password, label: "folio search", quiet: quiet)
        let start = ContinuousClock.now
        var first: Duration?
        let search = Search(phrase, in: PageTextCache(source: source))
        let progress = ProgressLine("folio search", unit: "pages", total: source.pageCount, quiet: quiet)
        var failed: Error?
        search.run(workers: ProcessInfo.processInfo.activeProcessorCount) { page, hits in
            if first == nil { first = ContinuousClock.now - start }
            let label = source.label(ofPage: page)
            for h in hits where failed == nil {
                do {
                    print(try jsonLine(Line(page: page + 1, index: page, label: label,
                                            boxes: h.boxes.map { [$0.x0, $0.y0, $0.x1, $0.y1].map(fraction) }, snippet: h.snippet)))
                } catch { failed = error }
            }
            progress.advance()
        }
        progress.finish()
        if let failed { throw failed }
        let result = search.progress
        if stats {
            let secs = { (d: Duration) in String(format: "%.3f s", Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) }
            report("\(result.hits.count) hits in \(result.pageCount) pages (\(result.pagesWithText) with text); first hit after "
                   + "\(first.map(secs) ?? "-"), all pages in \(secs(ContinuousClock.now - start))")
        }
        if result.noText { throw Failure(.data, "\(input.document): this book has no text to search") }
        if result.hits.isEmpty { throw ExitCode(1) }
    }
}

/// `folio text DOC --page N`: a page's words.
struct TextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text",
        abstract: "Print the text of a document's page, a line per line of text (or its words with boxes as JSON).")

    @OptionGroup var input: FindSource

    @Option(help: "The page, 1 for the first.")
    var page: Int = 1

    @Flag(help: "Print JSON: [{\"text\", \"box\": [x0, y0, x1, y1]}] in fractions of the paper.")
    var json = false

    @Option(help: ArgumentHelp("Only the words the viewer's Shift + drag selects from the region's top-left corner to its "
                               + "bottom-right one (fractions of the paper from its top left), as copied.", valueName: "x,y,w,h"))
    var region: String?

    func validate() throws {
        if let region { _ = try DragRegion(region, option: "--region") }
    }

    struct Word: Encodable {
        var text: String
        var box: [Double]
    }

    func run() throws {
        let source = try openDocument(input.document, password: input.password, label: "folio text")
        guard (1...max(1, source.pageCount)).contains(page), source.pageCount > 0 else {
            throw Failure(.usage, "--page \(page): \(input.document) has pages 1…\(source.pageCount)")
        }
        let text: PageText?
        do { text = try source.text(page: page - 1) } catch { throw Failure(.data, "\(error)") }
        guard var text else { throw Failure(.data, "\(input.document): page \(page) has no text") }
        if let region { text = PageText(words: try DragRegion(region, option: "--region").selection(page: page - 1, of: text).words) }
        if json {
            print(try jsonLine(text.words.map { Word(text: $0.text, box: [$0.box.x0, $0.box.y0, $0.box.x1, $0.box.y1].map(fraction)) }))
            return
        }
        for line in text.lines { print(FileName.printable(line.map(\.text).joined(separator: " "))) }
    }
}

/// A drag across a page as `x,y,w,h` (fractions of the paper from its top left): from its
/// top-left corner to its bottom-right one, as the viewer's Shift + drag.
struct DragRegion {
    var x, y, w, h: Double

    /// Reads `text`; a usage error naming `option` when it is not four fractions of the paper.
    init(_ text: String, option: String) throws {
        let v = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard v.count == 4, let x = v[0], let y = v[1], let w = v[2], let h = v[3],
              [x, y, w, h].allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else {
            throw ValidationError("\(option) must be x,y,w,h: four fractions of the paper, 0…1 (got \(text))")
        }
        (self.x, self.y, self.w, self.h) = (x, y, w, h)
    }

    /// The words of `text` (page `page`) the drag selects.
    func selection(page: Int, of text: PageText) -> Selection {
        Selection(page: page, text: text, from: (x, y), to: (x + w, y + h))
    }
}

/// `folio capture --select PAGE:x,y,w,h`: the words a Shift + drag across that region of page
/// `PAGE` (1 for the first) of the document book `book` shows would select, marked on the page
/// as the viewer marks them. A page without text, or not in the document, is a usage error.
func markSelection(_ spec: String, in library: Library, book: Int) throws {
    let parts = spec.split(separator: ":", maxSplits: 1)
    guard parts.count == 2, let page = Int(parts[0]) else {
        throw Failure(.usage, "--select must be PAGE:x,y,w,h, e.g. 1:0.1,0.15,0.5,0.1 (got \(spec))")
    }
    let region: DragRegion
    do { region = try DragRegion(String(parts[1]), option: "--select") } catch { throw Failure(.usage, "\(error)") }
    guard library.books.indices.contains(book), let path = library.books[book].document,
          let source = try? commandDocuments.open(path) else {
        throw Failure(.usage, "--select: the book shown is not a document with text")
    }
    guard (1...max(1, source.pageCount)).contains(page), source.pageCount > 0 else {
        throw Failure(.usage, "--select \(spec): \(path) has pages 1…\(source.pageCount)")
    }
    guard let text = (try? source.text(page: page - 1)) ?? nil else { throw Failure(.usage, "--select: page \(page) of \(path) has no text") }
    let words = region.selection(page: page - 1, of: text)
    commandDocuments.marks.select(words.boxes, page: page - 1, of: path)
}

/// Each phrase's search of each document, made once a run: a recording draws the layer, and
/// the count it shows, in every frame.
private let searched = Mutex<[String: [String: SearchProgress]]>([:])

/// Marks every hit of `phrase` on the pages of `library`'s documents (`PageMarks`): pages
/// rendered from then on show them. A document without a hit gets one line saying so.
/// Returns each document's search, by its path; `option` names the phrase in a usage error.
@discardableResult
func markHits(of text: String, in library: Library, option: String = "--search") throws -> [String: SearchProgress] {
    let phrase = try parsePhrase(text, option + ": ")
    if let known = searched.withLock({ $0[phrase.text] }) { return known }
    var found: [String: SearchProgress] = [:]
    let documents = Set(library.books.compactMap(\.document))
    for path in documents.sorted() {
        guard let source = try? commandDocuments.open(path) else { continue }
        let search = Search(phrase, in: PageTextCache(source: source))
        search.run(workers: ProcessInfo.processInfo.activeProcessorCount)
        let progress = search.progress
        if progress.hits.isEmpty { report("\(FileName.printable(path)): \(progress.noText ? "this book has no text to search" : "\"\(phrase.text)\" not found")") }
        commandDocuments.marks.set(hits: progress.hits, for: path)
        found[path] = progress
    }
    searched.withLock { $0[phrase.text] = found }
    return found
}
