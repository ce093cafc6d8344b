import CPoppler
import FolioBook
import Foundation

/// poppler document handles on one file, lent one per thread (poppler's document objects are
/// not thread-safe): an idle one, a new one while fewer than the limit exist, else the next one
/// given back. poppler cannot stop a page part-way, so a use still running after
/// `PageSources.decodeTimeout` (forms nested to draw 2^40 times) stops counting against the
/// limit: uses asked for after it get a handle of their own instead of waiting behind it, up to
/// `maxOverdue` such uses. Does not: open the first handle (the pool always keeps one, so a
/// file gone since cannot leave it with none) or know what a handle is used for.
final class HandlePool: @unchecked Sendable {
    // @unchecked: every field but `open` (immutable) is guarded by `pool`.
    private let pool = NSCondition()
    private let open: () throws -> OpaquePointer
    private var idle: [OpaquePointer]
    private var handles: Int
    private var maxHandles: Int
    /// Uses of a handle under way, by number, and when each began; those past the decode timeout.
    private var started: [Int: Date] = [:]
    private var overdue: Set<Int> = []
    private var uses = 0
    /// Overdue uses at most that others pass by (each holds a handle and a busy thread).
    private static let maxOverdue = 4

    /// A pool of `limit` handles at most, starting with `first`, `open` making more.
    init(first: OpaquePointer, limit: Int, open: @escaping () throws -> OpaquePointer) {
        idle = [first]
        handles = 1
        maxHandles = max(1, limit)
        self.open = open
    }

    deinit {
        for doc in idle { g_object_unref(UnsafeMutableRawPointer(doc)) }
    }

    /// Runs `body` with a handle of its own.
    func with<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        pool.lock()
        while idle.isEmpty && handles - overdue.count >= maxHandles { waitLocked() }
        var doc = idle.popLast()
        if doc == nil { handles += 1 }
        pool.unlock()
        if doc == nil { doc = try? open() }
        guard let handle = doc else {
            // The file changed or went since it opened: make do with the handles there are
            // (the first always stays), waiting for one of them.
            pool.withLock {
                handles -= 1
                maxHandles = handles
            }
            return try with(body)
        }
        let use = pool.withLock {
            uses += 1
            started[uses] = Date()
            return uses
        }
        defer {
            pool.withLock {
                started[use] = nil
                // Late: its place was given to another handle meanwhile.
                if overdue.remove(use) != nil, handles - overdue.count > maxHandles {
                    handles -= 1
                    g_object_unref(UnsafeMutableRawPointer(handle))
                } else {
                    idle.append(handle)
                }
            }
            pool.signal()
        }
        return try body(handle)
    }

    /// Waits, with `pool` locked, until a handle comes back or a use passes the decode timeout
    /// (it is then overdue, and no longer counts against `maxHandles`).
    private func waitLocked() {
        let timeout = PageSources.decodeTimeout, now = Date()
        var soonest: Date?
        for (use, began) in started where !overdue.contains(use) {
            let due = began.addingTimeInterval(timeout)
            if due > now {
                soonest = min(soonest ?? due, due)
            } else if overdue.count < Self.maxOverdue {
                overdue.insert(use)
            }
        }
        guard idle.isEmpty && handles - overdue.count >= maxHandles else { return }
        if let soonest { _ = pool.wait(until: soonest) } else { pool.wait() }
    }
}
