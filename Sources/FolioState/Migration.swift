import FolioBook
import Foundation

/// The JSON files of older versions, read once into a new store: `positions.json`
/// (`{"<book file or folder>": <position>}`) and `bookmarks.json` (`{"<book file or folder>":
/// [<position>]}`), a position a bare page number or `{"page", "fontSize", "pageAspect",
/// "chapter", "offset"}`. A book file still where it was gets its identity (so it is found
/// wherever it goes from now on); any other entry keeps the path it was known by. The files
/// are left as they are (an older version may still read them); one that cannot be read is
/// named in a line and not migrated.
enum Migration {
    /// Older files larger than this were never written by Folio (some 50,000 books).
    static let maxBytes = 4 << 20

    /// Fills `db` (in the caller's transaction) from the files in `folder`; the lines to tell.
    static func migrate(from folder: String, into db: SQLiteConnection) throws -> [String] {
        var notices: [String] = []
        var rows: [String: Int64] = [:]
        func row(_ key: String) throws -> Int64 {
            if let id = rows[key] { return id }
            var keys = ["path:" + key]
            if let identity = try? BookIdentity(file: key) { keys = [identity.hash] + (identity.identifier.map { [$0] } ?? []) + keys }
            let found = try keys.lazy.compactMap { try db.query("SELECT book FROM book_keys WHERE key = ?", [.text($0)]).first?.first?.int }.first
            let id: Int64
            if let found {
                id = Int64(found)
            } else {
                try db.query("INSERT INTO books (title, path) VALUES (?, ?)", [.text((key as NSString).lastPathComponent), .text(key)])
                id = db.lastInsertedRow
            }
            for k in keys { try db.query("INSERT OR IGNORE INTO book_keys (key, book) VALUES (?, ?)", [.text(k), .int(id)]) }
            rows[key] = id
            return id
        }
        if let positions = read([String: ReadingPosition].self, folder + "/positions.json", &notices) {
            for (key, position) in positions.sorted(by: { $0.key < $1.key }) {
                try db.query("INSERT OR REPLACE INTO positions (book, page, font_size, page_aspect, chapter, offset) VALUES (?, ?, ?, ?, ?, ?)",
                             [.int(try row(key))] + position.columns)
            }
        }
        if let bookmarks = read([String: [ReadingPosition]].self, folder + "/bookmarks.json", &notices) {
            for (key, marks) in bookmarks.sorted(by: { $0.key < $1.key }) {
                let id = try row(key)
                for mark in marks {
                    try db.query("INSERT INTO bookmarks (book, page, font_size, page_aspect, chapter, offset) VALUES (?, ?, ?, ?, ?, ?)", [.int(id)] + mark.columns)
                }
            }
        }
        return notices
    }

    /// The file decoded; nil when it is missing, or cannot be read (said in `notices`).
    private static func read<T: Decodable>(_ type: T.Type, _ file: String, _ notices: inout [String]) -> T? {
        var st = stat()
        guard stat(FileName.bytes(file), &st) == 0 else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(InputFile.read(file, maxBytes: maxBytes)))
        } catch let error as FileError {
            notices.append("\(error.description); not migrated, left as it is")
        } catch {
            notices.append("\(FileName.printable(file)): not what Folio wrote; not migrated, left as it is")
        }
        return nil
    }
}
