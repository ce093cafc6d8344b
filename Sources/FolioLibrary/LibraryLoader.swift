import FolioBook
import Foundation
import Logging

extension Library {
    /// Loads a library from any source a user might name (schema: `docs/manifest.md`):
    /// - a library manifest (`Library.json` / `Library.plist`, or any manifest with `books`),
    /// - a book manifest (`Book.json` / `Book.plist`, or any manifest without `books`),
    /// - a folder holding one of those manifests,
    /// - a document a registered format opens (a PDF, a comic archive: `PageSources`),
    /// - a page image (PNG, JPEG): the book of the folder it is in, with `namedPage` saying
    ///   where it is (see `LibraryLoader.bookOfPage`),
    /// - a folder of PNG, JPEG or WebP images (one book, natural order), or
    /// - a folder of such book folders and documents (one book each).
    ///
    /// Never throws and reads no page image (only the first page's header when a book gives no
    /// page size; a document is opened to count its pages): whatever cannot be used becomes a `Problem`, logged once under
    /// `folio.book` (unless `logProblems` is false: a caller that prints them itself), and
    /// everything else still loads. Once Ctrl-C or SIGTERM has arrived (`Interrupt`), the walk
    /// stops at the next entry and what was read so far is returned: the caller checks
    /// `Interrupt.requested` and gives up. Documents are opened through `documents` (the
    /// registry that will show them, so that each opens once).
    public static func load(from source: String, documents: DocumentRegistry = DocumentRegistry(), logProblems: Bool = true) -> Library {
        var loader = LibraryLoader(documents: documents)
        let path = LibraryLoader.absolute(source)
        var library = loader.load(path)
        library.unopened = loader.unopened
        // A library without books always says why, even when nothing in it was wrong as such.
        if library.books.isEmpty, !library.problems.contains(where: { $0.severity == .error }) {
            library.problems.append(Problem(file: path, message: "no book found here"))
        }
        for p in library.problems where logProblems {
            LibraryLoader.logger.log(level: p.severity == .note ? .info : .warning, "\(p.description)")
        }
        return library
    }
}

/// Names that mark a folder's manifest, looked for in this order.
let libraryManifestNames = ["Library.json", "Library.plist"]
let bookManifestNames = ["Book.json", "Book.plist"]

struct LibraryLoader {
    static let logger = Logger(label: "folio.book")
    /// A manifest lists books; one larger than this is not one (and is not read into memory).
    static let maxManifestBytes = 16 << 20

    /// Where documents are opened (to count their pages, read their metadata).
    let documents: DocumentRegistry
    var problems: [Problem] = []
    /// Manifests being read, by path and by device and inode, so that one naming itself, or
    /// reached again through a link to a folder it is in (`a -> .`), stops with a problem
    /// instead of reading itself down a path that grows without end.
    var open: Set<String> = []
    var openFiles: [FileID: String] = [:]
    /// Documents that did not open (`Library.unopened`).
    var unopened: [String] = []

    struct FileID: Hashable {
        var device: UInt64, inode: UInt64
    }

    mutating func load(_ source: String) -> Library {
        guard !Interrupt.requested else { return Library(title: Self.name(source), books: [], problems: problems) }
        switch Self.kind(of: source) {
        case nil:
            problems.append(Problem(file: source, message: "no such file or folder"))
            return Library(title: Self.name(source), books: [], problems: problems)
        case false? where PageSources.format(of: source) != nil:
            let book = documentBook(source)
            return Library(title: book.title, books: [book], problems: problems)
        case false?:
            // A page image (PNG, JPEG), not a manifest.
            if documents.naturalSize(.image(source)) != nil { return bookOfPage(source) }
            return loadManifest(source, expectLibrary: nil)
        case true?:
            if let m = Self.existing(libraryManifestNames, in: source) { return loadManifest(m, expectLibrary: true) }
            if let m = Self.existing(bookManifestNames, in: source) { return loadManifest(m, expectLibrary: false) }
            return loadFolder(source)
        }
    }

    // MARK: Pages

    /// The book a page image named on its own belongs to ("Open with" on one page of a
    /// folder of pages): the folder's manifest when one of its books holds the page (the first
    /// such book), else the folder's images as one book; `namedPage` is where the page is.
    /// Only an image its folder does not list (a hidden file) is a book of one page.
    mutating func bookOfPage(_ image: String) -> Library {
        let folder = Self.parent(image)
        let hasManifest = Self.existing(libraryManifestNames + bookManifestNames, in: folder) != nil
        for useManifest in hasManifest ? [true, false] : [false] {
            // Each attempt with its own problems: those of a manifest passed over are not shown.
            var loader = LibraryLoader(documents: documents)
            var library = useManifest ? loader.load(folder) : loader.loadFolder(folder)
            for (b, book) in library.books.enumerated() {
                guard let i = book.pages.firstIndex(of: .image(image)) else { continue }
                library.namedPage = Library.PagePlace(book: b, image: i)
                library.problems = problems + library.problems
                return library
            }
        }
        let book = sized(Book(title: Self.name(image), pages: [.image(image)]))
        return Library(title: book.title, books: [book], problems: problems)
    }

    // MARK: Folders

    /// A folder of images is one book; a folder of folders and documents is a library of them.
    mutating func loadFolder(_ folder: String) -> Library {
        let title = Self.name(folder)
        guard let names = list(folder) else { return Library(title: title, books: [], problems: problems) }
        let entries = names.filter { Self.kind(of: Self.join(folder, $0)) == true || PageSources.format(of: $0) != nil }
            .sorted(by: naturalLess)
        if !entries.isEmpty && !names.contains(where: PageSources.isImage) {
            var books: [Book] = []
            let own = Self.fileID(folder)
            for sub in entries where !Interrupt.requested {
                let path = Self.join(folder, sub)
                if own != nil, Self.fileID(path) == own {
                    problems.append(Problem(file: path, message: "links back to the folder it is in; skipped", severity: .note))
                } else if Self.kind(of: path) == false {
                    books.append(documentBook(path))
                } else if let m = Self.existing(bookManifestNames, in: path) {
                    books += loadManifest(m, expectLibrary: false).books
                } else if let pages = imageFiles(in: path, quietIfEmpty: true) {
                    if pages.isEmpty {
                        problems.append(Problem(file: path, message: "skipped: no page images and no book manifest", severity: .note))
                    } else {
                        books.append(sized(Book(title: sub, pages: pages)))
                    }
                }
            }
            return Library(title: title, books: books, problems: problems)
        }
        let pages = imageFiles(in: folder) ?? []
        let book = sized(Book(title: title, pages: pages))
        return Library(title: title, books: [book], problems: problems)
    }

    /// The image files (PNG, JPEG) of a folder in natural order (page2 before page10). Hidden files,
    /// subfolders and manifests are passed over; other files are skipped with a note.
    /// Nil when the folder cannot be listed (a problem says why).
    mutating func imageFiles(in folder: String, quietIfEmpty: Bool = false) -> [PageRef]? {
        guard let names = list(folder) else { return nil }
        var images: [String] = []
        var notes: [Problem] = []
        for name in names.sorted(by: naturalLess) where !Interrupt.requested {
            let path = Self.join(folder, name)
            // Not a folder: a file, or a dangling link that will show as a missing page.
            guard Self.kind(of: path) != true else { continue }
            if PageSources.isImage(name) {
                images.append(name)
            } else if !(libraryManifestNames + bookManifestNames).contains(name) {
                notes.append(Problem(file: path, message: "skipped: not a page image (PNG, JPEG or WebP)", severity: .note))
            }
        }
        if images.isEmpty && !quietIfEmpty {
            notes.append(Problem(file: folder, message: "the folder holds no page images; the book has no pages", severity: .note))
        }
        if !quietIfEmpty || !images.isEmpty { problems += notes }
        return images.map { .image(Self.join(folder, $0)) }
    }

    /// The visible entries of a folder, unsorted; nil (with a problem) if it cannot be read.
    mutating func list(_ folder: String) -> [String]? {
        do {
            return try FileName.list(folder)
        } catch {
            problems.append(Problem(file: folder, message: error.reason))
            return nil
        }
    }

    // MARK: Documents

    /// A book of every page of a document; the title, author and direction from its metadata
    /// (the title else its file name).
    /// One that cannot be opened is reported here and shows one placeholder page.
    mutating func documentBook(_ path: String) -> Book {
        let title = (Self.name(path) as NSString).deletingPathExtension
        guard let pages = documentPages(path) else { return Book(title: title, pages: [.document(path, index: 0)]) }
        let source = try? documents.open(path)
        let book = Book(title: Self.meant(source?.title) ?? title, author: Self.meant(source?.author), pages: pages,
                        direction: source?.direction ?? .ltr)
        return sized(book)
    }

    /// A title or author a document's metadata gives, unless it is a program's slip: a Perl
    /// reference printed for its value ("ARRAY(0x2c7cf020)", as some PDF producers write the
    /// author), which on a shelf card reads as Folio's own fault.
    static func meant(_ value: String?) -> String? {
        guard let value else { return nil }
        let slip = ["ARRAY(0x", "HASH(0x", "SCALAR(0x", "CODE(0x"].contains { value.hasPrefix($0) } && value.hasSuffix(")")
            && value.dropLast().split(separator: "x", maxSplits: 1).last?.allSatisfy(\.isHexDigit) == true
        return slip ? nil : value
    }

    /// The pages of a document, or nil (with a problem) when it cannot be opened.
    mutating func documentPages(_ path: String) -> [PageRef]? {
        do {
            let source = try documents.open(path)
            if source.pageCount == 0 { problems.append(Problem(file: path, message: "the document has no pages", severity: .note)) }
            if let damage = source.damage { problems.append(Problem(file: path, message: damage)) }
            problems += source.notes.map { Problem(file: path, message: $0, severity: .note) }
            return (0..<source.pageCount).map { .document(path, index: $0) }
        } catch {
            problems.append(Problem(file: path, message: PNGError.reason(of: error) + "; showing a placeholder page"))
            unopened.append(path)
            return nil
        }
    }

    /// A manifest's page entry: a document stands for all its pages (`doc.pdf#page=3` for one).
    mutating func pages(named path: String) -> [PageRef] {
        guard PageSources.format(of: path) != nil, Self.kind(of: path) == false else { return [PageRef(named: path)] }
        return documentPages(path) ?? [.document(path, index: 0)]
    }

    // MARK: Manifests

    /// Reads a manifest. `expectLibrary` nil: a library if it has `books`, else a book.
    mutating func loadManifest(_ path: String, expectLibrary: Bool?) -> Library {
        let title = Self.name(Self.parent(path))
        guard open.insert(path).inserted else {
            problems.append(Problem(file: path, message: "the manifest includes itself; ignored the second time"))
            return Library(title: title, books: [], problems: problems)
        }
        defer { open.remove(path) }
        let id = Self.fileID(path)
        if let id {
            if let first = openFiles[id] {
                problems.append(Problem(file: path, message: "links back to itself (\(first)); ignored"))
                return Library(title: title, books: [], problems: problems)
            }
            openFiles[id] = path
        }
        defer { if let id { openFiles[id] = nil } }
        let root: ManifestValue
        do {
            root = try ManifestValue.parse(InputFile.read(path, maxBytes: Self.maxManifestBytes))
        } catch let e as ManifestSyntaxError {
            // A file that is no manifest from its first character on, named as none (a book.epub
            // when no registered format reads EPUB, a page of HTML, which is not a property list):
            // say that, not where the JSON or the property list went wrong.
            let named = ["json", "plist"].contains((path as NSString).pathExtension.lowercased())
            guard named || (e.line != nil && (e.line != 1 || e.column != 1)) else {
                problems.append(Problem(file: path, message: "neither a library or book manifest nor a kind of document this program opens"))
                return Library(title: title, books: [], problems: problems)
            }
            let column = e.column.map { "column \($0): " } ?? ""
            problems.append(Problem(file: path, line: e.line, message: column + e.message))
            return Library(title: title, books: [], problems: problems)
        } catch {
            problems.append(Problem(file: path, message: "cannot read the manifest: \((error as? FileError)?.reason ?? "\(error)")"))
            return Library(title: title, books: [], problems: problems)
        }
        var reader = ManifestReader(file: path, base: Self.parent(path))
        defer { problems += reader.problems }
        guard case .object = root.kind else {
            reader.report(root, "", "the top level must be an object, found \(root.typeName)")
            return Library(title: title, books: [], problems: problems + reader.problems)
        }
        guard expectLibrary ?? (root["books"] != nil) else {
            let book = reader.book(root, at: "", defaultTitle: title, pagesDefaultToFolder: true, loader: &self)
            return Library(title: book.map(\.title) ?? title, books: book.map { [$0] } ?? [], problems: problems + reader.problems)
        }
        reader.allow(root, ["title", "books"], at: "")
        let libraryTitle = reader.string(root, "title", at: "") ?? title
        var books: [Book] = []
        if let list = reader.field(root, "books", at: "", expected: "a list of books", { v -> [ManifestValue]? in
            if case let .array(items) = v.kind { return items } else { return nil }
        }) {
            for (i, entry) in list.enumerated() where !Interrupt.requested {
                let at = "books[\(i)]"
                if case let .string(p) = entry.kind {
                    // A path to a book folder or book manifest, inside this manifest's folder.
                    guard let target = reader.resolve(p, entry, at: at) else { continue }
                    books += load(target).books
                } else if let book = reader.book(entry, at: at, defaultTitle: "Book \(i + 1)", pagesDefaultToFolder: false, loader: &self) {
                    books.append(book)
                }
            }
        }
        return Library(title: libraryTitle, books: books, problems: problems + reader.problems)
    }

    // MARK: Paths

    /// The device and inode of what `path` names, through links; nil when nothing is there.
    static func fileID(_ path: String) -> FileID? {
        var st = stat()
        return stat(FileName.bytes(path), &st) == 0 ? FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)) : nil
    }

    /// True for a folder, false for anything else that is there, nil when nothing is.
    static func kind(of path: String) -> Bool? {
        FileName.type(of: path).map { $0 == .directory }
    }

    static func existing(_ names: [String], in folder: String) -> String? {
        names.map { join(folder, $0) }.first { kind(of: $0) == false }
    }

    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

    static func parent(_ path: String) -> String { normalize(path + "/..") }

    static func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    static func absolute(_ path: String) -> String {
        normalize(path.hasPrefix("/") ? path : join(FileManager.default.currentDirectoryPath, path))
    }

    /// Removes `.`, `..` and empty components without touching the disk (symlinks are kept).
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for c in path.split(separator: "/") {
            if c == "." { continue }
            if c == ".." { _ = parts.popLast() } else { parts.append(c) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// A book's page size from its paper's aspect (height 568, the reference): its document's
    /// (the shape most of its first pages have), or its first image's; the reference size when
    /// that cannot be read (the page will show a placeholder) or is not a page's shape (a note
    /// says so: one strip must not shape the whole book).
    mutating func sized(_ book: Book) -> Book {
        guard let first = book.pages.first, let size = documents.paperSize(first), size.width > 0, size.height > 0 else { return book }
        guard let width = Book.pageWidth(paper: size.width, size.height) else {
            problems.append(Problem(file: first.description, message: "its pages are \(Int(size.width))×\(Int(size.height)), not the shape of a page "
                + "(\(Book.pageSizeRule)); the book uses the reference page size", severity: .note))
            return book
        }
        var b = book
        b.pageHeight = Book.referencePageHeight
        b.pageWidth = width
        return b
    }
}

/// Reads books out of one manifest's values, collecting a problem for each bad field with
/// the file, line and field path (`books[2].direction`).
struct ManifestReader {
    let file: String
    /// The manifest's folder: every path must stay inside it.
    let base: String
    var problems: [Problem] = []

    static let bookFields = ["title", "author", "cover", "pages", "direction", "pageSize", "printed"]

    mutating func report(_ v: ManifestValue, _ at: String, _ message: String, severity: Problem.Severity = .error) {
        problems.append(Problem(file: file, line: v.line, message: at.isEmpty ? message : "\(at): \(message)", severity: severity))
    }

    static func dot(_ at: String, _ key: String) -> String { at.isEmpty ? key : "\(at).\(key)" }

    /// Notes members this format does not know (most often a misspelt field).
    mutating func allow(_ object: ManifestValue, _ keys: [String], at: String) {
        guard case let .object(members) = object.kind else { return }
        for m in members where !keys.contains(m.key) {
            report(m.value, Self.dot(at, m.key), "unknown field, ignored (known: \(keys.joined(separator: ", ")))", severity: .note)
        }
    }

    /// The member `key` converted by `extract`, or nil: absent (silently) or of the wrong type
    /// (with a problem saying what was expected).
    mutating func field<T>(_ object: ManifestValue, _ key: String, at: String, expected: String,
                           _ extract: (ManifestValue) -> T?) -> T? {
        guard let v = object[key] else { return nil }
        if let t = extract(v) { return t }
        report(v, Self.dot(at, key), "expected \(expected), found \(v.typeName)")
        return nil
    }

    mutating func string(_ object: ManifestValue, _ key: String, at: String) -> String? {
        field(object, key, at: at, expected: "a string") { if case let .string(s) = $0.kind { s } else { nil } }
    }

    /// The absolute path of `path` (relative to the manifest's folder), or nil with a problem
    /// when it leaves that folder: a manifest may only name files beside or below itself.
    mutating func resolve(_ path: String, _ v: ManifestValue, at: String) -> String? {
        guard !path.isEmpty else { report(v, at, "empty path"); return nil }
        let full = LibraryLoader.normalize(path.hasPrefix("/") ? path : LibraryLoader.join(base, path))
        guard full == base || full.hasPrefix(LibraryLoader.join(base, "")) else {
            report(v, at, "\"\(path)\" points outside the manifest's folder \(base); refused (paths must stay inside it)")
            return nil
        }
        return full
    }

    /// A book from an object of book fields; nil (with a problem) when it is not an object.
    /// `pagesDefaultToFolder`: a book manifest without `pages` takes the images beside it.
    mutating func book(_ v: ManifestValue, at: String, defaultTitle: String, pagesDefaultToFolder: Bool,
                       loader: inout LibraryLoader) -> Book? {
        guard case .object = v.kind else {
            report(v, at, "expected a book (an object with \(Self.bookFields.joined(separator: ", "))), found \(v.typeName)")
            return nil
        }
        allow(v, Self.bookFields, at: at)
        var book = Book(title: defaultTitle, pages: [])
        var titleFromFolder: String?
        if let pages = v["pages"] {
            switch pages.kind {
            case let .string(p):
                if let target = resolve(p, pages, at: Self.dot(at, "pages")) {
                    if LibraryLoader.kind(of: target) == false {
                        book.pages = loader.pages(named: target)
                        titleFromFolder = (LibraryLoader.name(target) as NSString).deletingPathExtension
                    } else {
                        book.pages = loader.imageFiles(in: target) ?? []
                        titleFromFolder = LibraryLoader.name(target)
                    }
                }
            case let .array(items):
                for (i, item) in items.enumerated() where !Interrupt.requested {
                    let where_ = "\(Self.dot(at, "pages"))[\(i)]"
                    guard case let .string(p) = item.kind else {
                        report(item, where_, "expected a path, found \(item.typeName)")
                        continue
                    }
                    if let full = resolve(p, item, at: where_) { book.pages += loader.pages(named: full) }
                }
            default:
                report(pages, Self.dot(at, "pages"), "expected a folder path or a list of page paths, found \(pages.typeName)")
            }
        } else if pagesDefaultToFolder {
            book.pages = loader.imageFiles(in: base) ?? []
        } else {
            report(v, at, "no pages given; the book is empty", severity: .note)
        }
        book.title = string(v, "title", at: at) ?? titleFromFolder ?? defaultTitle
        book.author = string(v, "author", at: at)
        book.printed = field(v, "printed", at: at, expected: "true or false") { if case let .bool(b) = $0.kind { b } else { nil } }
        if let c = string(v, "cover", at: at) { book.cover = resolve(c, v["cover"]!, at: Self.dot(at, "cover")).map(PageRef.init(named:)) }
        if let d = v["direction"] {
            if case let .string(s) = d.kind, let dir = ReadingDirection(rawValue: s) {
                book.direction = dir
            } else {
                report(d, Self.dot(at, "direction"), "expected \"ltr\" or \"rtl\", found \(d.kind == .null ? "null" : describe(d))")
            }
        }
        if let size = field(v, "pageSize", at: at, expected: "[width, height] with two positive numbers", { s -> (Double, Double)? in
            guard case let .array(wh) = s.kind, wh.count == 2, case let .number(w) = wh[0].kind, case let .number(h) = wh[1].kind,
                  w > 0, h > 0, w.isFinite, h.isFinite else { return nil }
            return (w, h)
        }) {
            if Book.isPageSize(size.0, size.1) {
                (book.pageWidth, book.pageHeight) = size
            } else {
                report(v["pageSize"]!, Self.dot(at, "pageSize"),
                       "[\(size.0), \(size.1)] is not a page size (\(Book.pageSizeRule)); the book's own shape is used")
                book = loader.sized(book)
            }
        } else if v["pageSize"] == nil {
            book = loader.sized(book)
        }
        return book
    }

    func describe(_ v: ManifestValue) -> String {
        if case let .string(s) = v.kind { return "\"\(s)\"" }
        return v.typeName
    }
}
