import CArchive
import FolioBook
import Foundation

/// Comic archives as page sources, through libarchive: `.cbz`/`.zip`, `.cbt`/`.tar`,
/// `.cb7`/`.7z` and `.cbr`/`.rar` (the RAR versions libarchive reads). The image entries (PNG,
/// JPEG) are the pages, in natural order of their paths; other entries are ignored. Pages are
/// read from the archive into memory, never unpacked to disk.
///
/// Does not: read nested archives, or encrypted entries.
public enum ComicArchive {
    public static let format = PageSourceFormat(
        name: "comic archive", extensions: ["cbz", "zip", "cbt", "tar", "cb7", "7z", "cbr", "rar"],
        printed: false) { path, _ in
        try ArchiveDocument(path: path)
    }

    /// Lets `Library.load` and page caches open comic archives.
    public static func register() { PageSources.register(format) }

    /// An entry larger than this is refused before it is read (a page is a few MiB).
    public static let maxEntryBytes = 256 << 20
}

/// One archive: its image entries, listed once at open; each page read opens the archive
/// anew (libarchive reads forward only), so pages read in parallel.
final class ArchiveDocument: PageSource, @unchecked Sendable {
    // @unchecked: immutable after init, but for `sizes`, guarded by `lock`.
    let path: String
    /// Image entry paths, in reading order.
    let entries: [String]
    let damage: String?
    private let lock = NSLock()
    private var sizes: [Int: (width: Double, height: Double)] = [:]

    var pageCount: Int { entries.count }
    var title: String? { nil }

    init(path: String) throws {
        self.path = path
        var names: [String] = []
        var damage: String?
        do {
            try Self.scan(path) { name, _ in
                if PageSources.isImage(name) { names.append(name) }
                return true
            }
        } catch let e as PageError where !names.isEmpty {
            // Damaged past some pages: the pages before the damage still make a book.
            damage = e.reason + "; the \(names.count) pages found before it are kept"
        }
        entries = names.sorted(by: naturalLess)
        self.damage = damage
    }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        guard entries.indices.contains(index) else { return nil }
        if let s = lock.withLock({ sizes[index] }) { return s }
        guard let bytes = try? read(index) else { return nil }
        let size = (try? PageSources.imageSize(of: bytes)).map { (width: Double($0.width), height: Double($0.height)) }
        lock.withLock { sizes[index] = size }
        return size
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let name = "\(path) (\(entries[index]))"
        var page = try PageSources.decode(read(index), path: name, fit: fit)
        page.image = page.image.onPaper(aspect: Book.paperAspect(firstPage: pageSize(0)))
        return page
    }

    /// The bytes of entry `index`.
    private func read(_ index: Int) throws -> [UInt8] {
        let wanted = entries[index]
        var bytes: [UInt8]?
        try Self.scan(path) { name, archive in
            guard name == wanted else { return true }
            bytes = try Self.data(archive, entry: name, path: self.path)
            return false
        }
        guard let bytes else { throw PageError.invalid(path: path, message: "entry \(wanted) is missing") }
        return bytes
    }

    // MARK: libarchive

    /// Calls `visit` with each regular file entry's path until it returns false. Stops with an
    /// error naming the archive when libarchive cannot go on (after the entries before it).
    private static func scan(_ path: String, _ visit: (String, OpaquePointer) throws -> Bool) throws {
        guard let a = archive_read_new() else { throw PageError.invalid(path: path, message: "out of memory") }
        defer { archive_read_free(a) }
        archive_read_support_filter_all(a)
        archive_read_support_format_all(a)
        guard archive_read_open_filename(a, FileName.bytes(path), 1 << 16) == ARCHIVE_OK else {
            throw PageError.invalid(path: path, message: "not a readable archive: \(message(a))")
        }
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(a, &entry)
            if status == ARCHIVE_EOF { return }
            // A warning (an unknown extension field) still gives the entry; a failure does not.
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let e = entry else {
                throw PageError.invalid(path: path, message: "damaged archive: \(message(a))")
            }
            // AE_IFREG (a cast macro Swift does not import): regular files only.
            guard archive_entry_filetype(e) == 0o100000, let p = archive_entry_pathname(e) else { continue }
            let name = String(cString: p)
            // Hidden files and macOS resource forks are not pages.
            guard !name.split(separator: "/").contains(where: { $0.hasPrefix(".") || $0 == "__MACOSX" }) else { continue }
            if try !visit(name, a) { return }
        }
    }

    /// The current entry's data, at most `ComicArchive.maxEntryBytes`.
    private static func data(_ a: OpaquePointer, entry name: String, path: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { archive_read_data(a, $0.baseAddress, $0.count) }
            if n == 0 { return out }
            guard n > 0 else { throw PageError.invalid(path: path, message: "entry \(name) is damaged: \(message(a))") }
            guard out.count + n <= ComicArchive.maxEntryBytes else {
                throw PageError.invalid(path: path, message: "entry \(name) is larger than \(ComicArchive.maxEntryBytes >> 20) MiB")
            }
            out += chunk[0..<n]
        }
    }

    private static func message(_ a: OpaquePointer) -> String {
        archive_error_string(a).map { String(cString: $0) } ?? "unknown error"
    }
}
