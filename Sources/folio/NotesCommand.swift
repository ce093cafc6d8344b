import ArgumentParser
import FolioBook
import FolioReader
import Foundation
import FolioState

/// `folio notes BOOK`: what the state store keeps of a book (its bookmarks), printed or
/// exported; `--mark` adds or takes away bookmarks as M does in the viewer.
struct Notes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a book's bookmarks from the state store, as text, JSON or Markdown; --mark adds or removes one.",
        discussion: """
        The book is found by what it is, not where it is: a copy, or the book moved or renamed, \
        shows the same bookmarks. The store is $XDG_DATA_HOME/folio/state.sqlite (docs/reading.md). \
        --mark PAGE marks PAGE (1-based, as laid out now) or takes its mark away, as M does in the \
        viewer, one line each; several are made in the order given.
        """)

    @Argument(help: "A book: a document (PDF, EPUB, MOBI, FB2, XPS, DjVu, comic archive) or a folder of page images.")
    var book: String

    @Option(help: "Password of a protected PDF (or set FOLIO_PASSWORD).")
    var password: String?

    @Option(help: "Mark this page, or take its mark away (repeatable).")
    var mark: [Int] = []

    @Flag(help: "Print JSON: {\"title\", \"file\", \"readingSeconds\", \"pagesRead\", \"bookmarks\": [{\"page\", \"chapter\", \"offset\"}]}.")
    var json = false

    @Flag(help: "Print Markdown: the title, then a list of the bookmarks.")
    var markdown = false

    func validate() throws {
        if json && markdown { throw ValidationError("--json and --markdown: choose one") }
        if let page = mark.first(where: { $0 < 1 }) { throw ValidationError("--mark \(page): pages are numbered from 1") }
    }

    struct Export: Encodable {
        struct Mark: Encodable {
            var page: Int
            var chapter: Int?
            var offset: Int?
        }

        var title: String
        var file: String
        /// Seconds read and pages turned in the viewer.
        var readingSeconds: Double
        var pagesRead: Int
        var bookmarks: [Mark]
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
            throw Failure(.usage, "--mark \(page): the book has \(book.pages.count) pages")
        }
        for page in mark {
            let change = bookmarks.change(page: page, of: book)
            guard change != nil else { throw Failure(.cannotCreate, bookmarks.notice(change, page: page)) }
            // Said once it is committed: a process killed after this line loses nothing it said.
            print(bookmarks.notice(change, page: page))
            fflush(nil)
        }
        // Marks made: their lines say it all, unless an export is asked for too.
        if !mark.isEmpty && !json && !markdown { return }
        let pages = bookmarks.pages(of: book)
        let source = ReadingPosition.reflowable(book, in: commandDocuments)
        let marks = pages.map { page in
            let text = source?.textPosition(ofPage: page - 1)
            return Export.Mark(page: page, chapter: text?.chapter, offset: text?.offset)
        }
        if json {
            let time = store.readingTime(of: book)
            print(try jsonLine(Export(title: book.title, file: self.book, readingSeconds: time?.seconds ?? 0, pagesRead: time?.pages ?? 0,
                                      bookmarks: marks)))
        } else if markdown {
            print("# \(FileName.printable(book.title))\n\n## Bookmarks\n")
            print(marks.isEmpty ? "None." : marks.map { "- Page \($0.page)" }.joined(separator: "\n"))
        } else {
            print(marks.isEmpty ? "no bookmarks" : marks.map { "page \($0.page)" }.joined(separator: "\n"))
        }
    }
}
