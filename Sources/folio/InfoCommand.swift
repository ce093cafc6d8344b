import ArgumentParser
import FolioBook
import FolioImage
import FolioLibrary
import Foundation

/// `folio info [SOURCE]`: what a library holds and everything wrong with it.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the books of a library, their pages and reading direction, and every problem found.",
        discussion: """
        SOURCE is a Library.json or Library.plist, a book manifest (Book.json / Book.plist), a folder \
        holding one, a document (PDF, EPUB, MOBI, FB2, XPS, CBZ/CBT/CB7/CBR), a folder of PNG, JPEG or \
        WebP pages, or a folder of such folders and documents (docs/manifest.md). Every page and cover is checked by its image \
        header (or fully decoded with --decode); each bad file gets one line (more than three alike: \
        one line with the count). A page still decoding after --page-timeout seconds is reported and \
        passed over; past five such pages of one document its later pages are not tried (one line \
        says how many). Exits 0 when at least one book opens, 66 when SOURCE is missing, 65 when no \
        book in it can be opened (77 when it may not be read).
        """)

    @Argument(help: "The library to inspect (default: the bundled sample library).")
    var source: String?

    @Flag(help: "Decode every page instead of checking its header (slower; finds damaged image data).")
    var decode = false

    @Option(help: "With --decode: render each page to fit this many pixels high (PDF pages are rasterised for it; large JPEGs decoded at a reduced scale).")
    var pageHeight = 4096

    @Option(help: "With --decode: seconds one page may take; a page still decoding then is given up (a PDF page goes on aside), reported, and passed over while the others are checked.")
    var pageTimeout: Double = 60

    @Flag(help: "List every page file.")
    var pages = false

    @Flag(name: .shortAndLong, help: "No progress line on a terminal.")
    var quiet = false

    @Option(help: "Password of protected PDFs (or set FOLIO_PASSWORD).")
    var password: String?

    @OptionGroup var document: DocumentOptions

    func validate() throws {
        guard pageTimeout > 0, pageTimeout.isFinite else { throw ValidationError("--page-timeout must be a number of seconds above 0") }
    }

    /// Decodes page `path` on a thread of its own, waiting at most `pageTimeout`: a page that
    /// never finishes (a PDF engine cannot be stopped mid-page) is left to finish aside, in
    /// `aside`, and the next pages are checked meanwhile.
    private func decodeBounded(_ page: PageRef, fit: PixelSize, aside: inout [Worker<Void>]) throws {
        let decoding = Worker { PixelPool.shared.giveBack(try commandDocuments.render(page, fit: fit).image) }
        // A little past the engines' own deadline (`PageSources.decodeTimeout`), so that those
        // that can stop a page say so themselves.
        guard let outcome = decoding.wait(until: .now() + pageTimeout * 1.1 + 0.2) else {
            aside.append(decoding)
            throw PageError.invalid(path: page.description, message: "still decoding after \(pageTimeout.formatted()) s; passed over")
        }
        try outcome.get()
    }

    /// Pages of documents past their overdue pages (`PageSources.maxOverdue` still decoding
    /// aside, and one more): such a document lends no handle until one of them ends, so each
    /// later page would only wait out its time (a PDF of 500 pages, 5 of them never finishing:
    /// 495 × 66 s). They are not tried; one line says how many.
    private struct Untried {
        var first: PageRef
        var count: Int
        var aside: Int
    }

    func run() throws {
        let start = Date()
        let source = try resolveSource(source, password: password)
        Interrupt.catchSignals(notice: "interrupted; stopping")
        PageSources.decodeTimeout = pageTimeout
        let library = Library.load(from: source, documents: commandDocuments, logProblems: false)
        try stopIfInterrupted(reading: source)
        UnusableInput.check(library)
        let loaded = Date()
        var problems = library.problems
        // Check each file once, however many books use it.
        var checked = Set<PageRef>()
        let files = library.books.flatMap { [$0.cover].compactMap { $0 } + $0.pages }.filter { checked.insert($0).inserted }
        let progress = ProgressLine("folio info", unit: "files", total: files.count, quiet: quiet)
        var aside: [String: [Worker<Void>]] = [:], untried: [String: Untried] = [:]
        for (i, path) in files.enumerated() {
            if Interrupt.requested {
                progress.finish()
                throw Failure(.interrupted, "interrupted after checking \(i) of \(files.count) files")
            }
            defer { progress.advance() }
            // Image files hold no handles: only a document's pages wait behind its overdue ones.
            let document = path.documentPage?.path
            if decode, let document {
                aside[document]?.removeAll { $0.wait(until: .now()) != nil }
                if let running = aside[document]?.count, running > PageSources.maxOverdue {
                    untried[document, default: Untried(first: path, count: 0, aside: running)].count += 1
                    continue
                }
            }
            do {
                if decode {
                    try decodeBounded(path, fit: PixelSize(width: 4096, height: max(1, min(pageHeight, 16384))), aside: &aside[document ?? "", default: []])
                } else {
                    try commandDocuments.check(path)
                }
            } catch PageError.reportedBefore {
                // A document that did not open: its problem is listed already.
            } catch {
                problems.append(PageSources.problem(path, PNGError.reason(of: error)))
            }
        }
        progress.finish()
        for (_, u) in untried.sorted(by: { $0.key < $1.key }) {
            let after = u.count == 1 ? "" : ", nor the \(u.count - 1) page\(u.count == 2 ? "" : "s") after it"
            problems.append(PageSources.problem(u.first, "not decoded\(after): \(u.aside) pages before it are still decoding"))
        }
        let done = Date()

        let count = library.books.count
        print("\(FileName.printable(library.title)): \(count) book\(count == 1 ? "" : "s") (\(FileName.printable(source)))")
        for (i, book) in library.books.enumerated() {
            let by = book.author.map { " — \(FileName.printable($0))" } ?? ""
            let direction = book.direction == .rtl ? "right to left" : "left to right"
            print("  \(i + 1). \(FileName.printable(book.title))\(by)")
            // The format of a document's book ("PDF, 12 pages"); a folder of images says none.
            let format = book.document.flatMap { PageSources.format(of: $0) }.map { "\($0.name), " } ?? ""
            print("     \(format)\(Self.pages(of: book)), \(direction), page \(Self.number(book.pageWidth)) × \(Self.number(book.pageHeight))"
                  + (book.cover.map { ", cover \(FileName.printable($0.description))" } ?? ""))
            if pages { for p in book.pages { print("       \(FileName.printable(p.description))") } }
        }
        let errors = problems.filter { $0.severity == .error }, notes = problems.filter { $0.severity == .note }
        for (title, list) in [("Problems", errors), ("Notes", notes)] where !list.isEmpty {
            print("\(title) (\(list.count)):")
            for p in Problem.summarised(list) { print("  \(p)") }
        }
        let took = { (a: Date, b: Date) in String(format: "%.2f s", b.timeIntervalSince(a)) }
        print("Opened in \(took(start, loaded)); \(checked.count) file\(checked.count == 1 ? "" : "s") "
              + "\(decode ? "decoded" : "header-checked") in \(took(loaded, done)).")
        if library.books.isEmpty {
            print("No book could be opened.")
            try requireBooks(library, source: source)
        }
    }

    /// "12 pages"; for a reflowable book whose layout did not complete within its time bound,
    /// the whole book's pages as estimated and those laid out: "≈480 pages (12 laid out)".
    static func pages(of book: Book) -> String {
        let n = book.pages.count
        guard let path = book.document, let source = commandDocuments.opened(path) as? any ReflowableSource,
              source.pageCount == n, let estimate = source.estimatedPageCount else { return "\(n) page\(n == 1 ? "" : "s")" }
        return "≈\(estimate) page\(estimate == 1 ? "" : "s") (\(n) laid out)"
    }

    static func number(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x) }
}
