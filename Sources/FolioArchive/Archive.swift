import CArchive
import FolioBook
import FolioImage
import Foundation

/// Comic archives as page sources, through libarchive: `.cbz`/`.zip`, `.cbt`/`.tar`,
/// `.cb7`/`.7z` and `.cbr`/`.rar` (the RAR versions libarchive reads). The image entries (PNG,
/// JPEG) are the pages, in natural order of their paths (entries of one name each a page, in
/// archive order); other entries are ignored. Pages are read from the archive into memory,
/// never unpacked to disk. Encrypted entries are read with the password given (`--password`).
/// Entries whose path leaves the archive (`../`, `/`) are passed over, with a note; an entry
/// larger than `maxEntryBytes` (a sparse tar entry of gigabytes) is refused before it is read.
/// A program (ELF, or DOS/Windows "MZ") is refused before libarchive sees it: its readers of
/// self-extracting archives crash on malformed ones (libarchive 3.6's 7-Zip, in the ELF headers).
///
/// A picture twice as wide as the book's pages is a double-page spread, shown over two pages
/// (`Spreads`): the pictures' sizes are read from their headers as the archive is listed.
///
/// Does not: read nested archives.
public enum ComicArchive {
    public static let format = PageSourceFormat(
        name: "comic archive", extensions: ["cbz", "zip", "cbt", "tar", "cb7", "7z", "cbr", "rar"],
        printed: false) { path, password in
        try ArchiveDocument(path: path, password: password)
    }

    /// Lets `Library.load` and page caches open comic archives.
    public static func register() { PageSources.register(format) }

    /// An entry larger than this is refused before it is read (a page is a few MiB).
    public static let maxEntryBytes = 256 << 20

    /// What is read of each picture at open for its size (a JPEG's frame header follows its
    /// metadata, a thumbnail among it), and of all of them together: past that, pictures'
    /// sizes are read as their pages are asked for (and none of them is taken for a spread).
    static let headerBytes = 64 << 10, headersBytes = 32 << 20
}

/// One archive: its image entries, listed once at open. libarchive reads forward only, so
/// pages are read through one open reader that moves forward (pages asked for in order cost
/// one pass over the archive, not one per page) and reopens only to go back; the few pages it
/// passes on the way to a later one are kept for a moment, as workers decoding in parallel
/// ask for pages a little out of order.
final class ArchiveDocument: PageSource, @unchecked Sendable {
    // @unchecked: immutable after init, but for `sizes`, `paper`, `cursor` and `passed`, guarded
    // by `lock`.
    let path: String
    let password: String?
    /// Image entries in reading order: their paths and their places among the archive's
    /// regular files (what tells entries of one name apart).
    let entries: [(name: String, ordinal: Int)]
    /// The book's pages: the entries, a spread's two halves, blank pages (`Spreads`).
    let pages: [ArchivePage]
    private let pageOrdinals: Set<Int>
    let damage: String?
    let notes: [String]
    private let lock = NSLock()
    /// Entries' picture sizes, by entry.
    private var sizes: [Int: (width: Double, height: Double)] = [:]
    /// `paperSize` once asked (its first pages read forward once).
    private var paper: (width: Double, height: Double)??
    private var cursor: Reader?
    /// Bytes of page entries the cursor passed, by ordinal: at most `keepPassed`.
    private var passed: [(ordinal: Int, bytes: [UInt8])] = []
    private static let keepPassed = 8

    var pageCount: Int { pages.count }
    /// What its `ComicInfo.xml` says, if it has one.
    let info: ComicInfo
    var title: String? { info.title }
    var author: String? { info.author }
    var direction: ReadingDirection { info.direction }

    init(path: String, password: String? = nil) throws {
        (self.path, self.password) = (path, password)
        let magic = try InputFile.read(path, limit: 4)
        if magic.starts(with: [0x7F, 0x45, 0x4C, 0x46]) || magic.starts(with: [0x4D, 0x5A]) {
            throw PageError.invalid(path: path, message: "is a program (a self-extracting archive?), not a comic archive; not opened")
        }
        // libarchive reads an empty file as an empty archive; an empty PDF or EPUB is refused too.
        if magic.isEmpty { throw PageError.invalid(path: path, message: "the file is empty (0 bytes), not a comic archive") }
        var found: [(name: String, ordinal: Int, size: (width: Double, height: Double)?)] = []
        var damage: String?
        var outside: [String] = [], unread: [String] = []
        var info = ComicInfo()
        var headers = ComicArchive.headersBytes
        do {
            let reader = try Reader(path: path, password: password)
            while let (name, ordinal) = try reader.next() {
                guard PageSources.isImage(name) else {
                    if Self.unreadPicture(name) { unread.append(name) }
                    if ComicInfo.names(name), let bytes = try? reader.data(entry: name, limit: ComicInfo.limit) { info = ComicInfo(xml: bytes) }
                    continue
                }
                guard !Self.leavesArchive(name) else { outside.append(name); continue }
                // PNG and WebP say their size in their first bytes, a JPEG after its metadata.
                var head = reader.prefix(min(headers, 4096)), size = try? PageSources.imageSize(of: head)
                if size == nil, head.count == 4096 {
                    head += reader.prefix(min(headers - head.count, ComicArchive.headerBytes - head.count))
                    size = try? PageSources.imageSize(of: head)
                }
                headers -= head.count
                found.append((name, ordinal, size.map { (Double($0.width), Double($0.height)) }))
            }
        } catch let e as PageError where !found.isEmpty {
            // Damaged past some pages: the pages before the damage still make a book.
            damage = e.reason + "; the \(found.count) pages found before it are kept"
        }
        // Stable: entries of one name keep archive order.
        let sorted = found.enumerated().sorted {
            naturalLess($0.element.name, $1.element.name) || (!naturalLess($1.element.name, $0.element.name) && $0.offset < $1.offset)
        }.map(\.element)
        entries = sorted.map { ($0.name, $0.ordinal) }
        pageOrdinals = Set(found.map(\.ordinal))
        for (entry, page) in sorted.enumerated() { sizes[entry] = page.size }
        let paper = Book.paperSize(pageCount: sorted.count) { sorted[$0].size }
        pages = Spreads.pages(sizes: sorted.map(\.size), paper: paper.map { $0.width / $0.height }, direction: info.direction,
                              marked: info.doublePages)
        var names: [String: Int] = [:]
        for e in found { names[e.name, default: 0] += 1 }
        let repeated = names.filter { $0.value > 1 }.keys.sorted(by: naturalLess)
        var notes: [String] = []
        if !repeated.isEmpty {
            notes.append((repeated.count == 1 ? "a name is" : "\(repeated.count) names are")
                + " given to more than one entry (\(Self.some(repeated))); each entry is a page of its own, in archive order")
        }
        if !unread.isEmpty {
            notes.append((unread.count == 1 ? "an entry is a picture" : "\(unread.count) entries are pictures")
                + " in a format Folio does not read (\(Self.some(unread.sorted(by: naturalLess)))); not pages")
        }
        let spreads = pages.filter { if case .half(_, left: _) = $0 { true } else { false } }.count / 2
        if spreads > 0 {
            let blanks = pages.filter { $0 == .blank }.count
            notes.append((spreads == 1 ? "a picture is a double-page spread, shown" : "\(spreads) pictures are double-page spreads, each shown")
                + " over a left-hand and a right-hand page"
                + (blanks == 0 ? "" : blanks == 1 ? " (a blank page put in before one)" : " (\(blanks) blank pages put in before them)"))
        }
        if !outside.isEmpty {
            notes.append((outside.count == 1 ? "an image entry's path leaves" : "\(outside.count) image entries' paths leave")
                + " the archive (\(Self.some(outside))); not pages")
        }
        self.damage = damage
        self.notes = notes
        self.info = info
    }

    /// Whether an entry's path points outside the archive (absolute, or up through `..`): such
    /// an entry is made to be unpacked elsewhere, and is no page of this book.
    static func leavesArchive(_ name: String) -> Bool {
        name.hasPrefix("/") || name.split(separator: "/").contains("..")
    }

    /// Whether an entry's name is a picture's of a kind Folio does not decode (GIF, BMP, TIFF,
    /// AVIF, HEIC, JPEG XL): left out of the book, with a note, where it was left out unsaid.
    static func unreadPicture(_ name: String) -> Bool {
        ["gif", "bmp", "tif", "tiff", "avif", "heic", "heif", "jxl"].contains((name as NSString).pathExtension.lowercased())
    }

    /// The first three of `names`, and "…" when there are more.
    private static func some(_ names: [String]) -> String {
        names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
    }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        guard pages.indices.contains(index) else { return nil }
        switch pages[index] {
        case let .whole(entry): return entrySize(entry)
        case let .half(entry, _): return entrySize(entry).map { ($0.width / 2, $0.height) }
        case .blank: return paperSize
        }
    }

    /// Picture `entry`'s size, read from its header.
    private func entrySize(_ entry: Int) -> (width: Double, height: Double)? {
        if let s = lock.withLock({ sizes[entry] }) { return s }
        guard let bytes = try? read(entry: entry) else { return nil }
        let size = (try? PageSources.imageSize(of: bytes)).map { (width: Double($0.width), height: Double($0.height)) }
        lock.withLock { sizes[entry] = size }
        return size
    }

    var paperSize: (width: Double, height: Double)? {
        if let paper = lock.withLock({ paper }) { return paper }
        // The pictures' shape: a spread's halves are of it, and a blank page is it.
        let size = Book.paperSize(pageCount: entries.count, pageSize: entrySize)
        lock.withLock { paper = size }
        return size
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let aspect = Book.paperAspect(paper: paperSize)
        guard let entry = pages[index].entry else {
            let size = fit.fitting(aspect: aspect)
            return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: (255, 255, 255, 255)), scalable: false)
        }
        let name = "\(path) (\(entries[entry].name))"
        guard case let .half(_, left) = pages[index] else {
            var page = try PageSources.decode(read(entry: entry), path: name, fit: fit)
            page.image = page.image.onPaper(aspect: aspect)
            return page
        }
        // The whole spread for twice the width, and the half of it this page shows.
        var page = try PageSources.decode(read(entry: entry), path: name, fit: PixelSize(width: fit.width.multipliedReportingOverflow(by: 2).partialValue, height: fit.height))
        let half = page.image.width / 2
        page.image = page.image.cropped(x: left ? 0 : page.image.width - max(half, 1), y: 0, width: max(half, 1), height: page.image.height).onPaper(aspect: aspect)
        return page
    }

    /// The bytes of picture `entry`.
    private func read(entry index: Int) throws -> [UInt8] {
        let (wanted, ordinal) = entries[index]
        return try lock.withLock {
            if let i = passed.firstIndex(where: { $0.ordinal == ordinal }) { return passed.remove(at: i).bytes }
            if cursor.map({ $0.ordinal >= ordinal }) ?? true { cursor = try Reader(path: path, password: password) }
            while let reader = cursor, let (name, at) = try reader.next() {
                if at == ordinal { return try reader.data(entry: name) }
                // A page passed on the way, likely asked for next by another worker.
                guard at >= ordinal - Self.keepPassed, pageOrdinals.contains(at), let bytes = try? reader.data(entry: name) else { continue }
                passed.append((at, bytes))
                if passed.count > Self.keepPassed { passed.removeFirst() }
            }
            cursor = nil
            throw PageError.invalid(path: path, message: "entry \(wanted) is missing")
        }
    }
    // MARK: libarchive

    /// An archive open for reading, entry by entry.
    private final class Reader {
        let path: String
        let archive: OpaquePointer
        /// The place of the entry last returned among the archive's regular files (-1 before any).
        private(set) var ordinal = -1
        private var encrypted = false
        /// The size the entry last returned says it has, if it says.
        private var size: Int64?

        init(path: String, password: String?) throws {
            self.path = path
            guard let a = archive_read_new() else { throw PageError.invalid(path: path, message: "out of memory") }
            archive = a
            archive_read_support_filter_all(a)
            archive_read_support_format_all(a)
            if let password { archive_read_add_passphrase(a, password) }
            // Thrown from here, the reader is whole, and its deinit frees the archive (freed here
            // as well, it was freed twice: a file of text named .cbz crashed Folio).
            guard archive_read_open_filename(a, FileName.bytes(path), 1 << 16) == ARCHIVE_OK else {
                throw PageError.invalid(path: path, message: "not a readable archive: \(ArchiveDocument.message(a))")
            }
        }

        deinit { archive_read_free(archive) }

        /// The next regular file entry's path and place; nil at the end. Throws naming the
        /// archive when libarchive cannot go on (after the entries before it).
        func next() throws -> (String, Int)? {
            var entry: OpaquePointer?
            while true {
                let status = archive_read_next_header(archive, &entry)
                if status == ARCHIVE_EOF { return nil }
                // A warning (an unknown extension field) still gives the entry; a failure does not.
                guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let e = entry else {
                    throw PageError.invalid(path: path, message: "damaged archive: \(ArchiveDocument.message(archive))")
                }
                // AE_IFREG (a cast macro Swift does not import): regular files only.
                guard archive_entry_filetype(e) == 0o100000, let p = archive_entry_pathname(e) else { continue }
                ordinal += 1
                encrypted = archive_entry_is_encrypted(e) != 0
                size = archive_entry_size_is_set(e) != 0 ? archive_entry_size(e) : nil
                let name = String(cString: p)
                // Hidden files and macOS resource forks are not pages ("./" names no hidden folder).
                guard !name.split(separator: "/").contains(where: { ($0.hasPrefix(".") && $0 != ".." && $0 != ".") || $0 == "__MACOSX" }) else { continue }
                return (name, ordinal)
            }
        }

        /// The next `count` bytes of the current entry's data, or as many as it has; what came
        /// before the damage where it is damaged.
        func prefix(_ count: Int) -> [UInt8] {
            guard count > 0 else { return [] }
            var out = [UInt8](repeating: 0, count: count), filled = 0
            while filled < count {
                let n = out.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress! + filled, count - filled) }
                guard n > 0 else { break }
                filled += n
            }
            return Array(out.prefix(filled))
        }

        /// The current entry's data, at most `ComicArchive.maxEntryBytes`.
        func data(entry name: String, limit: Int = ComicArchive.maxEntryBytes) throws -> [UInt8] {
            // Refused by the size it declares, before any of it is read: a sparse tar entry
            // holds gigabytes of zeros in a few bytes of archive.
            if let size, size > Int64(limit) {
                throw PageError.invalid(path: path, message: "entry \(name) is \(size >> 20) MiB, larger than \(limit >> 20) MiB; not read")
            }
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                if n == 0 { return out }
                guard n > 0 else {
                    let why = encrypted ? "is encrypted (--password gives the password)" : "is damaged"
                    throw PageError.invalid(path: path, message: "entry \(name) \(why): \(ArchiveDocument.message(archive))")
                }
                guard out.count + n <= limit else {
                    throw PageError.invalid(path: path, message: "entry \(name) is larger than \(limit >> 20) MiB")
                }
                out += chunk[0..<n]
            }
        }
    }

    fileprivate static func message(_ a: OpaquePointer) -> String {
        archive_error_string(a).map { String(cString: $0) } ?? "unknown error"
    }
}
