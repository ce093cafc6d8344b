import FolioBook
import FolioInput
import Foundation

/// Typing a page number in the viewer: digits, then Enter or G goes to that page; Backspace
/// takes a digit back, Escape forgets them. Keys that are not for it pass on (and forget the
/// digits typed), so the key map is untouched while nothing is typed.
public struct PageNumberEntry: Sendable, Equatable {
    /// The digits typed so far.
    public private(set) var digits = ""

    public enum Outcome: Sendable, Equatable {
        /// The key was taken: show `digits`.
        case typing
        /// Go to this page number (1 = the first page image).
        case go(Int)
    }

    public init() {}

    /// What `key` does to the entry; nil when it is not for the entry (handle it as usual).
    public mutating func handle(_ key: Key) -> Outcome? {
        if let d = key.digit {
            // Six digits: a million pages, and no overflow.
            if digits.count < 6 && !(digits.isEmpty && d == 0) { digits.append(String(d)) }
            return .typing
        }
        guard !digits.isEmpty else { return nil }
        switch key {
        case .enter, .g:
            let n = Int(digits)!
            digits = ""
            return .go(n)
        case .backspace:
            digits.removeLast()
            return .typing
        case .escape:
            digits = ""
            return .typing
        default:
            digits = ""
            return nil
        }
    }
}

extension Key {
    /// The digit a number key types.
    public var digit: Int? {
        switch self {
        case .n0: 0
        case .n1: 1
        case .n2: 2
        case .n3: 3
        case .n4: 4
        case .n5: 5
        case .n6: 6
        case .n7: 7
        case .n8: 8
        case .n9: 9
        default: nil
        }
    }
}

/// Where one book was left: its page number and, for a reflowable document (an EPUB), the
/// layout it was laid out in (text size, page shape) and the place in its text (`TextPosition`),
/// which finds the same text again in any layout. Written as a bare page number when there is
/// no size (the only form older files hold); a position without a text place (older files)
/// finds its text by laying the book out as it says.
public struct ReadingPosition: Sendable, Equatable, Codable {
    public var page: Int
    public var fontSize: Double?
    public var pageAspect: Double?
    public var text: TextPosition?

    public init(page: Int, fontSize: Double? = nil, pageAspect: Double? = nil, text: TextPosition? = nil) {
        (self.page, self.fontSize, self.pageAspect, self.text) = (page, fontSize, pageAspect, text)
    }

    private enum CodingKeys: String, CodingKey { case page, fontSize, pageAspect, chapter, offset }

    public init(from decoder: Decoder) throws {
        if let page = try? decoder.singleValueContainer().decode(Int.self) {
            self.init(page: page)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let chapter = try c.decodeIfPresent(Int.self, forKey: .chapter), offset = try c.decodeIfPresent(Int.self, forKey: .offset)
        let text = chapter.flatMap { chapter in offset.map { TextPosition(chapter: chapter, offset: $0) } }
        try self.init(page: c.decode(Int.self, forKey: .page), fontSize: c.decodeIfPresent(Double.self, forKey: .fontSize),
                      pageAspect: c.decodeIfPresent(Double.self, forKey: .pageAspect), text: text)
    }

    /// The page number this position is at in `book` as laid out now: for a place in a
    /// reflowable document's text, the page holding it at the size and page shape shown
    /// (`source` is that document, nil for any other book).
    public func page(in source: (any ReflowableSource)?) -> Int {
        guard let fontSize, let source,
              let index = source.page(of: TextPlace(fontSize: fontSize, page: page - 1, pageAspect: pageAspect, text: text)) else { return page }
        return index + 1
    }

    /// Page number `page` of `book` as laid out now: for a reflowable document (found in
    /// `documents`) with its layout and its place in the text, so that any layout finds it. The
    /// place in the text is left out when finding it would draw more than `countedPages` pages
    /// (a jump deep into a book of one long chapter, as FB2 and MOBI books are); those are drawn,
    /// and the next position of that page goes on counting (`ReadingSession` saves it again,
    /// `countedPages` a frame, until it has its place).
    public init(page: Int, of book: Book, in documents: DocumentRegistry) {
        let place = ReadingPositions.reflowable(book, in: documents)?.textPlace(ofPage: page - 1, drawingAtMost: Self.countedPages)
        self.init(page: page, fontSize: place?.fontSize, pageAspect: place?.pageAspect, text: place?.text)
    }

    /// Pages a position saved may draw to find its place in the text (on the viewer's thread):
    /// about a frame's time.
    public static let countedPages = 16

    public func encode(to encoder: Encoder) throws {
        guard let fontSize else {
            var c = encoder.singleValueContainer()
            try c.encode(page)
            return
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(page, forKey: .page)
        try c.encode(fontSize, forKey: .fontSize)
        try c.encodeIfPresent(pageAspect, forKey: .pageAspect)
        try c.encodeIfPresent(text?.chapter, forKey: .chapter)
        try c.encodeIfPresent(text?.offset, forKey: .offset)
    }
}

/// Where each book was left, kept in the XDG state directory (`$XDG_STATE_HOME/folio`, else
/// `~/.local/state/folio`) as `positions.json`: `{"<book file or folder>": <page number>}`, or
/// for a reflowable book `{"page": <page number>, "fontSize": <points it was laid out at>,
/// "pageAspect": <its pages' width / height>, "chapter": <n>, "offset": <characters into it>}`.
/// A missing file counts as empty; writes replace its content whole. A file that is there but
/// cannot be used (damaged JSON, a number out of range, larger than `maxBytes`) is never written
/// over: `setAsideIfDamaged` moves it to `positions.json.bad-DATE` and says so, and until then
/// `save` leaves it alone.
public struct ReadingPositions: Sendable {
    public let file: String
    /// Where a reflowable book's document is found, to place a position saved in another layout.
    public let documents: DocumentRegistry

    public init(file: String, documents: DocumentRegistry = DocumentRegistry()) {
        self.file = file
        self.documents = documents
    }

    /// The positions file of the user's state directory.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, documents: DocumentRegistry = DocumentRegistry()) {
        self.init(file: xdgFolder("XDG_STATE_HOME", else: ".local/state", environment: environment) + "/folio/positions.json",
                  documents: documents)
    }

    /// How a book is known across runs: its document, else the folder of its first page.
    public static func key(of book: Book) -> String? {
        guard let first = book.pages.first else { return nil }
        return book.document ?? (first.path as NSString).deletingLastPathComponent
    }

    /// A positions file larger than this is not read (it would hold some 50,000 books).
    public static let maxBytes = 4 << 20

    /// Every position saved ([:] when there is no file), or nil with the reason when the file
    /// is there but cannot be used. Read as inputs are (`InputFile`: regular files only, bounded).
    public func read() -> Result<[String: ReadingPosition], FileError> {
        var st = stat()
        guard stat(FileName.bytes(file), &st) == 0 else { return .success([:]) }
        do {
            let bytes = try InputFile.read(file, maxBytes: Self.maxBytes)
            guard let positions = try? JSONDecoder().decode([String: ReadingPosition].self, from: Data(bytes)) else {
                return .failure(FileError(.notAFile, file, "damaged: not a JSON object of reading positions"))
            }
            return .success(positions)
        } catch {
            return .failure(error)
        }
    }

    /// Every position saved; empty when the file is missing or cannot be used.
    public func load() -> [String: ReadingPosition] { (try? read().get()) ?? [:] }

    /// When the file is there but cannot be used, renames it to `positions.json.bad-DATE` (kept
    /// for the user, out of the way of new positions) and returns the line that says so; nil
    /// when the file is fine or missing. A file that cannot be moved stays, and `save` keeps
    /// leaving it alone.
    public func setAsideIfDamaged(now: Date = Date()) -> String? {
        var st = stat()
        guard case let .failure(error) = read(), stat(FileName.bytes(file), &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let aside = file + ".bad-" + format.string(from: now)
        guard lstat(FileName.bytes(aside), &st) != 0, rename(FileName.bytes(file), FileName.bytes(aside)) == 0 else {
            return "\(error.description); reading positions are not saved until it is moved away"
        }
        return "\(error.description); kept as \(aside), reading positions start afresh"
    }

    /// The page number `book` was left at, if any: for a reflowable document, the page that
    /// holds the place in the text it was left at, whatever size it is laid out at now.
    public func page(of book: Book) -> Int? {
        Self.key(of: book).flatMap { load()[$0] }?.page(in: Self.reflowable(book, in: documents))
    }

    /// `book`'s document when the book is the whole of one reflowable document.
    static func reflowable(_ book: Book, in documents: DocumentRegistry) -> (any ReflowableSource)? {
        guard let path = book.document, let source = documents.reflowable(path), source.pageCount == book.pages.count else { return nil }
        return source
    }

    /// Remembers `page` for `book`; false when the file cannot be written.
    @discardableResult
    public func save(page: Int, of book: Book) -> Bool {
        guard let key = Self.key(of: book) else { return false }
        // Something other than a file in its place is left alone.
        var st = stat()
        if stat(FileName.bytes(file), &st) == 0, st.st_mode & S_IFMT != S_IFREG { return false }
        // A file that cannot be read is the user's, not ours to overwrite.
        guard case var .success(positions) = read() else { return false }
        let position = ReadingPosition(page: page, of: book, in: documents)
        guard positions[key] != position else { return true }
        positions[key] = position
        do {
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            // Written as every output is: a link (a managed dotfile) is written through and
            // stays a link, the file's mode is kept, no reader sees half a file.
            try OutputFile(file, replace: .always).write([UInt8](encoder.encode(positions)))
            return true
        } catch {
            return false
        }
    }
}
