import CSQLite
import Foundation

/// A failure of the database, with SQLite's code (damage is `SQLITE_CORRUPT` or `SQLITE_NOTADB`).
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// The file is not a database, or its pages contradict each other.
    var isDamage: Bool { code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }
    /// Another connection holds the lock it needed.
    var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
    var description: String { message }
}

/// A value bound to a statement or read from a row.
enum SQLValue: Equatable {
    case int(Int64)
    case real(Double)
    case text(String)
    case null

    init(_ value: Int?) { self = value.map { .int(Int64($0)) } ?? .null }
    init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }

    var int: Int? { if case let .int(v) = self { Int(v) } else { nil } }
    var real: Double? {
        switch self {
        case let .real(v): v
        case let .int(v): Double(v)
        default: nil
        }
    }
    var text: String? { if case let .text(v) = self { v } else { nil } }
}

/// One connection to an SQLite database, used by one thread at a time: `StateStore` holds it in
/// a `Mutex` (hence unchecked: the lock, not the type, keeps it to one thread).
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Opens (creating) the database at `path`; waits up to `busyTimeout` ms for another
    /// process's lock before a statement fails.
    init(path: String, busyTimeout: Int32) throws(SQLiteError) {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(db)
            throw SQLiteError(code: status, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
    }

    deinit { sqlite3_close(handle) }

    /// Runs `sql` (several statements, no parameters).
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status) }
    }

    /// Runs one statement with `arguments` bound to its `?`s; the rows it gives.
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue] = []) throws(SQLiteError) -> [[SQLValue]] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw error(prepared) }
        defer { sqlite3_finalize(statement) }
        for (i, value) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case let .int(v): sqlite3_bind_int64(statement, index, v)
            case let .real(v): sqlite3_bind_double(statement, index, v)
            case let .text(v): sqlite3_bind_text(statement, index, v, -1, sqliteTransient)
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var rows: [[SQLValue]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw error(status) }
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: .int(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                case SQLITE_TEXT: .text(String(cString: sqlite3_column_text(statement, column)))
                default: .null
                }
            })
        }
    }

    /// The row id of the last row inserted.
    var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in one transaction that holds the write lock from its start (`BEGIN
    /// IMMEDIATE`), so that what it reads is still so when it writes, whoever else writes:
    /// committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func error(_ status: Int32) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// SQLite copies a string bound with it (`SQLITE_TRANSIENT`, a macro Swift does not import).
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
