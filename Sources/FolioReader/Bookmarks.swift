import FolioBook
import Foundation

/// Marked pages of each book, kept beside the reading positions (`ReadingPositions`) as
/// `bookmarks.json`: `{"<book file or folder>": [positions]}`, the book known as its position
/// is, each mark stored as a position is (a page number, or for a reflowable book its layout and
/// place in the text), so that a mark made in one layout lands on the same text in another.
/// Written whole and atomically; a file that cannot be read as that is
/// never written over: it is renamed aside (`bookmarks.json.damaged`, `…damaged-2`, …) first,
/// and the notice says where.
public struct Bookmarks: Sendable {
    public let file: String
    /// Where a reflowable book's document is found to place marks made in another layout.
    public let documents: DocumentRegistry

    public init(file: String, documents: DocumentRegistry = DocumentRegistry()) {
        self.file = file
        self.documents = documents
    }

    /// The bookmarks file of the user's state directory, beside the positions file.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, documents: DocumentRegistry = DocumentRegistry()) {
        let positions = ReadingPositions(environment: environment).file
        self.init(file: (positions as NSString).deletingLastPathComponent + "/bookmarks.json", documents: documents)
    }

    public enum Loaded: Sendable, Equatable {
        case marks([String: [ReadingPosition]])
        /// The file is there but is not bookmarks: leave it as it is.
        case damaged
    }

    /// Every bookmark saved (none when there is no file).
    public func load() -> Loaded {
        var st = stat()
        guard stat(FileName.bytes(file), &st) == 0 else { return .marks([:]) }
        guard let bytes = try? InputFile.read(file, maxBytes: ReadingPositions.maxBytes),
              let marks = try? JSONDecoder().decode([String: [ReadingPosition]].self, from: Data(bytes)) else { return .damaged }
        return .marks(marks)
    }

    /// The pages marked in `book` as it is laid out now, ascending.
    public func pages(of book: Book) -> [Int] {
        guard case let .marks(all) = load(), let key = ReadingPositions.key(of: book) else { return [] }
        return Set(landing(all[key] ?? [], in: book)).sorted()
    }

    /// The page each of `marks` is at in `book` as laid out now (a mark made in another layout
    /// costs counting the characters of its chapter's pages; one without its place in the text,
    /// a layout as it says).
    private func landing(_ marks: [ReadingPosition], in book: Book) -> [Int] {
        let source = marks.contains { $0.fontSize != nil } ? ReadingPositions.reflowable(book, in: documents) : nil
        return marks.map { $0.page(in: source) }
    }

    /// Marks `page` of `book`, or takes the mark away when it is there. Returns what the reader
    /// is told: "bookmarked page 12", "bookmark on page 12 removed", or why it was not saved.
    @discardableResult
    public func toggle(page: Int, of book: Book) -> String {
        guard let key = ReadingPositions.key(of: book) else { return "this book cannot be bookmarked" }
        var all: [String: [ReadingPosition]] = [:]
        var notice = ""
        switch load() {
        case let .marks(m): all = m
        case .damaged:
            guard let aside = setAside() else { return "bookmarks not saved: \(file) cannot be read and cannot be moved aside" }
            notice = " (the unreadable \(file) was kept as \(aside))"
        }
        var marks = all[key] ?? []
        // A mark made at another text size is the one on this page when it lands here now.
        let landing = landing(marks, in: book)
        let removing = landing.contains(page)
        if removing { marks = zip(marks, landing).filter { $0.1 != page }.map(\.0) } else { marks.append(ReadingPosition(page: page, of: book, in: documents)) }
        all[key] = marks.isEmpty ? nil : marks
        do {
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try OutputFile(file, replace: .always).write([UInt8](encoder.encode(all)))
        } catch {
            return "bookmarks not saved: \(error)"
        }
        return (removing ? "bookmark on page \(page) removed" : "bookmarked page \(page)") + notice
    }

    /// Renames the file aside under a name not taken; the new name, nil when it cannot.
    private func setAside() -> String? {
        for n in 1...100 {
            let aside = file + ".damaged" + (n == 1 ? "" : "-\(n)")
            guard !FileManager.default.fileExists(atPath: aside) else { continue }
            return rename(FileName.bytes(file), FileName.bytes(aside)) == 0 ? aside : nil
        }
        return nil
    }

    /// The marked page after `page` (round to the first), nil when none is marked.
    public static func next(after page: Int, in pages: [Int]) -> Int? {
        pages.first { $0 > page } ?? pages.first
    }
}
