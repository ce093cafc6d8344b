import FolioBook
import Foundation

/// What a book is, whatever its path: so that a book moved, renamed or copied opens where it
/// was left, with its bookmarks.
///
/// - `hash`: the file's partial MD5 (as KOReader's: 1 KiB at 1 KiB, 4 KiB, 16 KiB, … 1 GiB in,
///   as far as the file goes, but from 0 where KOReader starts at 256 bytes, so that small
///   files and headers count) and its size, `md5:<hex>:<bytes>`; a folder of page images is
///   its first page's, with the count of pages. A dozen reads whatever the size.
/// - `identifier`: what the book says it is, kept through edits that change its bytes (new
///   metadata, an annotation saved into a PDF): an EPUB's unique identifier (the package's
///   `dc:identifier` that `unique-identifier` names), `epub:<identifier>`; a PDF's permanent
///   document ID (the first of the trailer's `/ID` pair), `pdf:<hex>`. Nil for other books.
public struct BookIdentity: Sendable, Hashable {
    public var hash: String
    public var identifier: String?

    public init(hash: String, identifier: String? = nil) {
        (self.hash, self.identifier) = (hash, identifier)
    }

    /// The identity of the book file at `path` (a regular file: `InputFile.open`).
    public init(file path: String) throws(FileError) {
        let file = try RandomAccessFile(path)
        let magic = file.read(at: 0, count: 5) ?? []
        let identifier: String? = if magic.starts(with: Array("%PDF-".utf8)) {
            Self.pdfID(file).map { "pdf:" + $0 }
        } else if magic.starts(with: [0x50, 0x4b, 3, 4]) {
            Self.epubIdentifier(file).map { "epub:" + $0 }
        } else {
            nil
        }
        self.init(hash: Self.partialHash(file), identifier: identifier)
    }

    /// The identity of `book`: its document's, else its first page's with the count of pages.
    public init(of book: Book) throws(FileError) {
        guard let first = book.pages.first else { throw FileError(.notAFile, book.title, "has no pages") }
        if let document = book.document {
            try self.init(file: document)
        } else {
            let page = try Self(file: first.path)
            self.init(hash: "pages:\(book.pages.count):" + page.hash)
        }
    }

    /// The offsets the partial MD5 reads 1 KiB at: 0, then 1024 · 4ⁱ for i = 0 … 10.
    static let sampleOffsets = [0] + (0...10).map { 1024 << (2 * $0) }

    static func partialHash(_ file: RandomAccessFile) -> String {
        var md5 = MD5()
        for offset in sampleOffsets {
            guard let block = file.read(at: offset, count: 1024), !block.isEmpty else { break }
            md5.update(block)
        }
        return "md5:\(md5.hex()):\(file.size)"
    }

    /// The first string of the last `/ID [<…> <…>]` of the trailer (or of the cross-reference
    /// stream `startxref` points to), as lowercase hex.
    static func pdfID(_ file: RandomAccessFile) -> String? {
        let tailStart = max(0, file.size - 8192)
        guard let tail = file.read(at: tailStart, count: 8192) else { return nil }
        if let id = lastID(in: tail) { return id }
        let text = String(decoding: tail, as: UTF8.self)
        guard let match = text.matches(of: /startxref\s+(\d{1,15})/).last, let offset = Int(match.output.1),
              let dictionary = file.read(at: offset, count: 8192) else { return nil }
        return lastID(in: dictionary)
    }

    private static func lastID(in bytes: [UInt8]) -> String? {
        // Latin-1: every byte one character, so a literal string's bytes come back as they are.
        let text = String(bytes.map { Character(Unicode.Scalar($0)) })
        guard let match = text.matches(of: /\/ID\s*\[\s*(?:<([0-9A-Fa-f\s]*)>|\(((?:\\.|[^\\)])*)\))/).last else { return nil }
        if let hex = match.output.1 {
            let digits = hex.filter(\.isHexDigit).lowercased()
            return digits.isEmpty ? nil : digits
        }
        let literal = match.output.2.map { $0.unicodeScalars.map { String(UInt8($0.value), radix: 16).leftPadded(to: 2) }.joined() }
        return literal?.isEmpty == false ? literal : nil
    }

    /// The package's unique identifier: the container names the package document, whose
    /// `unique-identifier` names one of its `dc:identifier` elements by id.
    static func epubIdentifier(_ file: RandomAccessFile) -> String? {
        guard let container = ZipEntry.read("META-INF/container.xml", from: file) else { return nil }
        var path: String?
        startTags(String(decoding: container, as: UTF8.self)) { name, tag, _ in
            path = name == "rootfile" ? attribute("full-path", in: tag) : nil
            return path != nil
        }
        guard let path, let package = ZipEntry.read(path, from: file) else { return nil }
        var unique: String?, identifier: String?
        startTags(String(decoding: package, as: UTF8.self)) { name, tag, text in
            if name == "package" { unique = attribute("unique-identifier", in: tag) }
            if name == "identifier", let unique, attribute("id", in: tag) == unique {
                identifier = text.trimmingCharacters(in: .whitespacesAndNewlines)
                return true
            }
            return false
        }
        return identifier?.isEmpty == false ? identifier : nil
    }

    /// Calls `body` with each start tag of `xml` in turn (its name without a namespace prefix,
    /// the tag, the text after it) until it returns true. One pass, whatever the markup: no
    /// pattern that could go back over a file made to be slow.
    private static func startTags(_ xml: String, _ body: (_ name: Substring, _ tag: Substring, _ text: Substring) -> Bool) {
        var at = xml.startIndex
        while let open = xml[at...].firstIndex(of: "<"), let close = xml[open...].firstIndex(of: ">") {
            let tag = xml[xml.index(after: open)..<close]
            let text = xml[xml.index(after: close)...].prefix { $0 != "<" }
            let name = tag.prefix { !$0.isWhitespace && $0 != "/" }
            if body(name.split(separator: ":").last ?? name, tag, text) { return }
            at = text.endIndex
        }
    }

    /// The value of attribute `name` in a start tag.
    private static func attribute(_ name: String, in tag: Substring) -> String? {
        var rest = tag
        while let found = rest.firstRange(of: name) {
            defer { rest = rest[found.upperBound...] }
            // The whole name: not the end of another (`id` in `xml:id` is fine, in `uid` not).
            if found.lowerBound > tag.startIndex, !" \t\r\n:".contains(tag[tag.index(before: found.lowerBound)]) { continue }
            let after = rest[found.upperBound...].drop { $0.isWhitespace }
            guard after.first == "=" else { continue }
            let value = after.dropFirst().drop { $0.isWhitespace }
            guard let quote = value.first, quote == "\"" || quote == "'" else { continue }
            return String(value.dropFirst().prefix { $0 != quote })
        }
        return nil
    }
}
