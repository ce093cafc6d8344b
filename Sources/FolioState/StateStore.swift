import CSQLite
import FolioBook
import Foundation
import Synchronization

/// What the reader keeps between runs, in one SQLite database (`$XDG_DATA_HOME/folio/state.sqlite`):
/// where each book was left, its bookmarks, its reading time, and tables ready for per-book
/// settings and highlights (schema: docs/reading.md). Books are rows found by their keys
/// (`BookIdentity`: a hash of the file, what the book says it is), so a book moved, renamed
/// or copied is the same row.
///
/// Write-ahead logging: readers never wait for a writer, and a process killed mid-write leaves
/// the last transaction committed. Every read-modify-write is one transaction holding the
/// write lock from its start, so two viewers at once lose nothing: the second waits (up to
/// `busyTimeout`) and then reads what the first wrote. A file that is not a database, or fails
/// SQLite's check, is renamed aside (`state.sqlite.damaged`, `-2`, … with its `-wal` and
/// `-shm`) and said in one line; it is never emptied or removed.
public final class StateStore: Sendable {
    public let path: String
    private let connection: Mutex<SQLiteConnection>
    /// Each book file's identity, while the file is unchanged (`FileStamp`).
    private let identities = Mutex<[String: (stamp: FileStamp, identity: BookIdentity)]>([:])

    /// How long a statement waits for another process's write, in milliseconds.
    static let busyTimeout: Int32 = 10_000
    /// The schema this version writes (`PRAGMA user_version`).
    static let schemaVersion = 1

    /// The store's file in the user's data folder.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        xdgFolder("XDG_DATA_HOME", else: ".local/share", environment: environment) + "/folio/state.sqlite"
    }

    /// Where older versions kept `positions.json` and `bookmarks.json`.
    public static func legacyFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        xdgFolder("XDG_STATE_HOME", else: ".local/state", environment: environment) + "/folio"
    }

    /// A store opened, or none, and the lines to tell the user (a damaged file set aside, a
    /// file of an older version not migrated).
    public struct Opened: Sendable {
        public var store: StateStore?
        public var notices: [String]
    }

    /// The user's store, created (and filled from the older files) on first use.
    public static func open(environment: [String: String] = ProcessInfo.processInfo.environment) -> Opened {
        open(path: path(environment: environment), migratingFrom: legacyFolder(environment: environment))
    }

    /// The store at `path`, created when missing: then filled from `positions.json` and
    /// `bookmarks.json` in `legacy`. Nil with the reason when it cannot be used.
    public static func open(path: String, migratingFrom legacy: String? = nil) -> Opened {
        var st = stat()
        if stat(FileName.bytes(path), &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            return Opened(store: nil, notices: ["\(FileName.printable(path)): not a file; places and bookmarks are not remembered"])
        }
        var notices: [String] = []
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            do {
                return Opened(store: try StateStore(path: path, legacy: legacy, notices: &notices), notices: notices)
            } catch let error as SQLiteError where error.isDamage {
                guard let aside = setAside(path) else {
                    return Opened(store: nil, notices: ["\(FileName.printable(path)): damaged (\(error)); it cannot be moved aside, places and bookmarks are not remembered"])
                }
                notices = ["\(FileName.printable(path)): damaged (\(error)); kept as \(FileName.printable(aside)), a new one started"]
                return Opened(store: try StateStore(path: path, legacy: legacy, notices: &notices), notices: notices)
            }
        } catch {
            return Opened(store: nil, notices: notices + ["\(FileName.printable(path)): \(error); places and bookmarks are not remembered"])
        }
    }

    private init(path: String, legacy: String?, notices: inout [String]) throws {
        self.path = path
        let db = try SQLiteConnection(path: path, busyTimeout: Self.busyTimeout)
        // Two processes making a new store at once: SQLite answers "locked" at once where waiting
        // could deadlock (both turning the new file to WAL), and the first is done in
        // milliseconds: the other starts again, for as long as the busy timeout.
        let start = ContinuousClock.now
        while true {
            do {
                try Self.prepare(db, legacy: legacy, notices: &notices)
                break
            } catch let error as SQLiteError where error.isBusy && ContinuousClock.now - start < .milliseconds(Int(Self.busyTimeout)) {
                usleep(20_000)
            }
        }
        connection = Mutex(db)
    }

    /// WAL, its durability and keys, checked, and the tables made (and filled) once, by whichever
    /// process takes the write lock first.
    private static func prepare(_ db: SQLiteConnection, legacy: String?, notices: inout [String]) throws {
        try db.query("PRAGMA journal_mode = WAL")
        // Durable against a crash of the process; a power cut may lose the last page turned.
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
        let check = try db.query("PRAGMA quick_check(1)")
        guard let first = check.first?.first?.text, first == "ok" else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: check.first?.first?.text ?? "its check found nothing")
        }
        if try db.query("PRAGMA user_version").first?.first?.int != schemaVersion {
            try db.transaction { try create(db, legacy: legacy, notices: &notices) }
        }
    }

    /// Makes the tables in a new database and fills them from the older files (in the
    /// caller's transaction); nothing when another process did it first.
    private static func create(_ db: SQLiteConnection, legacy: String?, notices: inout [String]) throws {
        let version = try db.query("PRAGMA user_version").first?.first?.int ?? 0
        guard version != schemaVersion else { return }
        guard version == 0 else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "written by a newer Folio (schema \(version)), left as it is")
        }
        try db.execute(schema)
        if let legacy { notices += try Migration.migrate(from: legacy, into: db) }
        try db.execute("PRAGMA user_version = \(schemaVersion)")
    }

    static let schema = """
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            title TEXT, path TEXT, pages INTEGER,
            last_read INTEGER,
            reading_seconds REAL NOT NULL DEFAULT 0,
            pages_read INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE book_keys (
            key TEXT PRIMARY KEY,
            book INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE) WITHOUT ROWID;
        CREATE TABLE positions (
            book INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            page INTEGER NOT NULL, font_size REAL, page_aspect REAL, chapter INTEGER, offset INTEGER);
        CREATE TABLE bookmarks (
            id INTEGER PRIMARY KEY,
            book INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            page INTEGER NOT NULL, font_size REAL, page_aspect REAL, chapter INTEGER, offset INTEGER);
        CREATE INDEX bookmarks_by_book ON bookmarks(book);
        CREATE TABLE book_settings (
            book INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            key TEXT NOT NULL, value TEXT NOT NULL,
            PRIMARY KEY (book, key)) WITHOUT ROWID;
        CREATE TABLE highlights (
            id INTEGER PRIMARY KEY,
            book INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            chapter INTEGER, start_offset INTEGER, end_offset INTEGER,
            page INTEGER, quads TEXT,
            text TEXT NOT NULL DEFAULT '', note TEXT, colour TEXT NOT NULL DEFAULT 'yellow',
            created INTEGER);
        CREATE INDEX highlights_by_book ON highlights(book);
        """

    /// Renames the file (and its `-wal` and `-shm`) aside under a name none of them takes; the
    /// new name, nil when it cannot.
    private static func setAside(_ path: String) -> String? {
        var st = stat()
        for n in 1...99 {
            let aside = path + ".damaged" + (n == 1 ? "" : "-\(n)")
            guard ["", "-wal", "-shm"].allSatisfy({ lstat(FileName.bytes(aside + $0), &st) != 0 }) else { continue }
            // link, then unlink: never onto a name taken meanwhile (rename would replace it).
            guard link(FileName.bytes(path), FileName.bytes(aside)) == 0 else { return nil }
            unlink(FileName.bytes(path))
            for companion in ["-wal", "-shm"] where link(FileName.bytes(path + companion), FileName.bytes(aside + companion)) == 0 {
                unlink(FileName.bytes(path + companion))
            }
            return aside
        }
        return nil
    }

    // MARK: Books

    /// The identity of `book`'s file, computed once while the file is unchanged.
    func identity(of book: Book) -> BookIdentity? {
        guard let file = book.document ?? book.pages.first?.path, let stamp = FileStamp(file) else { return nil }
        let key = book.document ?? "\(file)#\(book.pages.count)"
        if let known = identities.withLock({ $0[key] }), known.stamp == stamp { return known.identity }
        guard let identity = try? BookIdentity(of: book) else { return nil }
        identities.withLock { $0[key] = (stamp, identity) }
        return identity
    }

    /// The keys `book` is found by, most telling first: its hash, its identifier, and the path
    /// older versions knew it by (found only in rows migrated from them).
    private func keys(of book: Book) -> (found: [String], kept: [String])? {
        guard let identity = identity(of: book), let first = book.pages.first else { return nil }
        let kept = [identity.hash] + (identity.identifier.map { [$0] } ?? [])
        return (kept + ["path:" + (book.document ?? (first.path as NSString).deletingLastPathComponent)], kept)
    }

    /// The row of `book`, nil when it was never kept.
    func row(of book: Book, in db: SQLiteConnection) throws -> Int64? {
        guard let keys = keys(of: book) else { return nil }
        for key in keys.found {
            if let id = try db.query("SELECT book FROM book_keys WHERE key = ?", [.text(key)]).first?.first?.int { return Int64(id) }
        }
        return nil
    }

    /// The row of `book`, made when missing; its keys, path, title and page count brought up to
    /// date (in the caller's transaction).
    func keptRow(of book: Book, in db: SQLiteConnection) throws -> Int64? {
        guard let keys = keys(of: book) else { return nil }
        let id: Int64
        if let found = try row(of: book, in: db) {
            id = found
        } else {
            try db.query("INSERT INTO books DEFAULT VALUES")
            id = db.lastInsertedRow
        }
        for key in keys.kept { try db.query("INSERT OR IGNORE INTO book_keys (key, book) VALUES (?, ?)", [.text(key), .int(id)]) }
        try db.query("UPDATE books SET title = ?, path = ?, pages = ? WHERE id = ?",
                     [.text(book.title), SQLValue(book.document ?? book.pages.first?.path), .int(Int64(book.pages.count)), .int(id)])
        return id
    }

    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) -> T? {
        connection.withLock { db in try? body(db) }
    }

    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) -> T? {
        connection.withLock { db in try? db.transaction { try body(db) } }
    }

    // MARK: Positions

    /// Where `book` was left, nil when it never was (or the store cannot be read).
    public func position(of book: Book) -> ReadingPosition? {
        read { db in
            guard let id = try row(of: book, in: db) else { return nil }
            return try db.query("SELECT page, font_size, page_aspect, chapter, offset FROM positions WHERE book = ?", [.int(id)])
                .first.flatMap(ReadingPosition.init(row:))
        } ?? nil
    }

    /// Keeps `position` as where `book` was left, `seconds` more read in it; `book` becomes
    /// the book read last. False when it cannot be written.
    @discardableResult
    public func save(_ position: ReadingPosition, of book: Book, readingSeconds seconds: Double = 0) -> Bool {
        write { db in
            guard let id = try keptRow(of: book, in: db) else { return false }
            try db.query("INSERT OR REPLACE INTO positions (book, page, font_size, page_aspect, chapter, offset) VALUES (?, ?, ?, ?, ?, ?)",
                         [.int(id)] + position.columns)
            try db.query("""
                UPDATE books SET last_read = (SELECT coalesce(max(last_read), 0) + 1 FROM books),
                    reading_seconds = reading_seconds + ?, pages_read = pages_read + 1 WHERE id = ?
                """, [.real(max(0, seconds)), .int(id)])
            return true
        } ?? false
    }

    /// How far into `book` its reader is, 0…1: the page it was left at over its page count
    /// then (both in the layout of that time). Nil when it was never left anywhere.
    public func progress(of book: Book) -> Double? {
        read { db in
            guard let id = try row(of: book, in: db),
                  let row = try db.query("SELECT p.page, b.pages FROM positions p JOIN books b ON b.id = p.book WHERE p.book = ?", [.int(id)]).first,
                  let page = row[0].int, let pages = row[1].int, pages > 0 else { return nil }
            return min(max(Double(page) / Double(pages), 0), 1)
        } ?? nil
    }

    /// Which of `books` was read last: the most recent of the books read whose file is where
    /// it was then (a path compared, no file read: a shelf of thousands costs one query).
    public func lastRead(among books: [Book]) -> Int? {
        var index: [String: Int] = [:]
        for (i, book) in books.enumerated() {
            if let path = book.document ?? book.pages.first?.path, index[path] == nil { index[path] = i }
        }
        return read { db in
            try db.query("SELECT path FROM books WHERE last_read IS NOT NULL ORDER BY last_read DESC LIMIT 100")
                .lazy.compactMap { $0.first?.text.flatMap { index[$0] } }.first
        } ?? nil
    }

    /// `books`' indices, the one read last first, then those read before it, then the unread in
    /// their order (paths compared, as `lastRead` does).
    public func readOrder(of books: [Book]) -> [Int] {
        let read = self.read { db in
            try db.query("SELECT path, last_read FROM books WHERE last_read IS NOT NULL").reduce(into: [String: Int]()) { out, row in
                if let path = row[0].text, let n = row[1].int { out[path] = max(out[path] ?? 0, n) }
            }
        } ?? [:]
        let last = books.map { book in (book.document ?? book.pages.first?.path).flatMap { read[$0] } ?? -1 }
        return books.indices.sorted { (last[$0], -$0) > (last[$1], -$1) }
    }

    /// How long `book` was read, over how many pages (`save`'s seconds and its count).
    public struct ReadingTime: Sendable, Equatable {
        public var seconds: Double
        public var pages: Int

        public init(seconds: Double, pages: Int) { (self.seconds, self.pages) = (seconds, pages) }
    }

    /// The reading time kept for `book`, nil when it was never read.
    public func readingTime(of book: Book) -> ReadingTime? {
        read { db in
            guard let id = try row(of: book, in: db), let row = try db.query("SELECT reading_seconds, pages_read FROM books WHERE id = ?", [.int(id)]).first,
                  let seconds = row[0].real, let pages = row[1].int else { return nil }
            return ReadingTime(seconds: seconds, pages: pages)
        } ?? nil
    }

    // MARK: Bookmarks

    /// `book`'s bookmarks in the order they were made.
    public func bookmarks(of book: Book) -> [ReadingPosition] {
        read { db in
            guard let id = try row(of: book, in: db) else { return [] }
            return try db.query("SELECT page, font_size, page_aspect, chapter, offset FROM bookmarks WHERE book = ? ORDER BY id", [.int(id)])
                .compactMap(ReadingPosition.init(row:))
        } ?? []
    }

    /// Changes `book`'s bookmarks as `change` says, given them as they are now, in one
    /// transaction (no other process writes in between); what `change` returned, nil when the
    /// store cannot be written.
    public func updateBookmarks<T: Sendable>(of book: Book, _ change: ([ReadingPosition]) -> (marks: [ReadingPosition], result: T)) -> T? {
        write { db -> T? in
            guard let id = try keptRow(of: book, in: db) else { return nil }
            let marks = try db.query("SELECT page, font_size, page_aspect, chapter, offset FROM bookmarks WHERE book = ? ORDER BY id", [.int(id)])
                .compactMap(ReadingPosition.init(row:))
            let (next, result) = change(marks)
            guard next != marks else { return result }
            try db.query("DELETE FROM bookmarks WHERE book = ?", [.int(id)])
            for mark in next {
                try db.query("INSERT INTO bookmarks (book, page, font_size, page_aspect, chapter, offset) VALUES (?, ?, ?, ?, ?, ?)", [.int(id)] + mark.columns)
            }
            return result
        } ?? nil
    }
}

/// What says a file is unchanged: the same file (device, inode), size and modification time.
struct FileStamp: Equatable {
    var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

    init?(_ path: String) {
        var st = stat()
        guard stat(FileName.bytes(path), &st) == 0 else { return nil }
        (device, inode, size) = (UInt64(st.st_dev), UInt64(st.st_ino), Int64(st.st_size))
        (seconds, nanoseconds) = (st.st_mtim.tv_sec, st.st_mtim.tv_nsec)
    }
}

extension ReadingPosition {
    /// A row of `page, font_size, page_aspect, chapter, offset`.
    init?(row: [SQLValue]) {
        guard row.count == 5, let page = row[0].int else { return nil }
        let text = row[3].int.flatMap { chapter in row[4].int.map { TextPosition(chapter: chapter, offset: $0) } }
        self.init(page: page, fontSize: row[1].real, pageAspect: row[2].real, text: text)
    }

    var columns: [SQLValue] {
        [.int(Int64(page)), SQLValue(fontSize), SQLValue(pageAspect), SQLValue(text?.chapter), SQLValue(text?.offset)]
    }
}

/// An XDG base folder: `variable` when it holds an absolute path (the XDG specification ignores
/// a relative one), else `fallback` in the home folder.
public func xdgFolder(_ variable: String, else fallback: String, environment: [String: String]) -> String {
    environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (environment["HOME"] ?? NSHomeDirectory()) + "/" + fallback
}
