import Foundation

/// Handles on one document for a library whose document objects are not to be shared between
/// threads (poppler's documents, djvulibre's contexts), lent one per thread: an idle one, a new
/// one while fewer than the limit exist, else the next one given back. A use still running after
/// `PageSources.decodeTimeout` (poppler cannot stop a page part-way: forms nested to draw 2^40
/// times) stops counting against the limit: uses asked for after it get a handle of their own
/// instead of waiting behind it, up to `PageSources.maxOverdue` such uses. Does not: open the
/// first handle (the pool always keeps one, so a file gone since cannot leave it with none) or
/// know what a handle is used for.
public final class HandlePool<Handle>: @unchecked Sendable {
    // @unchecked: every field but `open` and `close` (immutable) is guarded by `pool`; a handle
    // is used by one thread at a time, the one it is lent to.
    private let pool = NSCondition()
    private let open: () throws -> Handle
    private let close: (Handle) -> Void
    private var idle: [Handle]
    private var handles: Int
    private var maxHandles: Int
    /// Uses of a handle under way, by number, and when each began; those past the decode timeout.
    private var started: [Int: Date] = [:]
    private var overdue: Set<Int> = []
    private var uses = 0
    /// False once a handle failed to open (the file changed or went): the pool then makes do
    /// with the handles it has, rather than trying again for each use.
    private var opens = true

    /// A pool of `limit` handles at most, starting with `first`, `open` making more and `close`
    /// ending each (when the pool goes, or an overdue one comes back to a full pool).
    public init(first: Handle, limit: Int, open: @escaping () throws -> Handle, close: @escaping (Handle) -> Void = { _ in }) {
        idle = [first]
        handles = 1
        maxHandles = max(1, limit)
        self.open = open
        self.close = close
    }

    deinit {
        for handle in idle { close(handle) }
    }

    /// Handles open now, lent or idle.
    public var count: Int { pool.withLock { handles } }

    /// Runs `body` with a handle of its own.
    public func with<T>(_ body: (Handle) throws -> T) rethrows -> T {
        pool.lock()
        while idle.isEmpty && !mayOpen { waitLocked() }
        var lent = idle.popLast()
        if lent == nil { handles += 1 }
        pool.unlock()
        if lent == nil { lent = try? open() }
        guard let handle = lent else {
            // The file changed or went since it opened: make do with the handles there are
            // (the first always stays), waiting for one of them.
            pool.withLock {
                handles -= 1
                maxHandles = handles
                opens = false
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
                    close(handle)
                } else {
                    idle.append(handle)
                }
            }
            pool.signal()
        }
        return try body(handle)
    }

    /// Whether a use finding no idle handle opens one (`pool` locked): while opening works, and
    /// fewer than the limit are open, the overdue not counted.
    private var mayOpen: Bool { opens && handles - overdue.count < maxHandles }

    /// Waits, with `pool` locked, until a handle comes back or a use passes the decode timeout
    /// (it is then overdue, and no longer counts against `maxHandles`).
    private func waitLocked() {
        let timeout = PageSources.decodeTimeout, now = Date()
        var soonest: Date?
        for (use, began) in started where !overdue.contains(use) {
            let due = began.addingTimeInterval(timeout)
            if due > now {
                soonest = min(soonest ?? due, due)
            } else if overdue.count < PageSources.maxOverdue {
                overdue.insert(use)
            }
        }
        guard idle.isEmpty && !mayOpen else { return }
        if let soonest { _ = pool.wait(until: soonest) } else { pool.wait() }
    }
}
