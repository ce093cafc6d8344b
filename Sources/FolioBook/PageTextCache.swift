import Foundation

/// Pages' words kept for search and highlights, the least recently used dropped past `limit`
/// bytes or what the shared `MemoryBudget` leaves. Thread-safe. Does not: read text itself
/// beyond calling the document, or know what a search is.
public final class PageTextCache: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private let budget: MemoryBudget?
    private let limit: Int
    private var pages: [Int: PageText?] = [:]
    private var bytes: [Int: Int] = [:]
    private var recent: [Int] = []
    private var total = 0
    private let source: PageSource

    /// `limit`: bytes kept at most; `budget`: the library's memory limit it is counted in.
    public init(source: PageSource, limit: Int = 64 << 20, budget: MemoryBudget? = nil) {
        self.source = source
        self.limit = limit
        self.budget = budget
    }

    deinit { budget?.charge(0, to: ObjectIdentifier(self)) }

    public var pageCount: Int { source.pageCount }

    /// Page `index`'s words (nil: no text layer, or an unreadable page), read once while kept.
    public func text(page index: Int) -> PageText? {
        if let kept = lock.withLock({ pages[index] }) {
            lock.withLock { touch(index) }
            return kept
        }
        let text = (try? source.text(page: index)) ?? nil
        let size = 64 + (text?.words.reduce(0) { $0 + $1.text.utf8.count + 48 } ?? 0)
        lock.withLock {
            guard pages[index] == nil else { return }
            pages[index] = .some(text)
            bytes[index] = size
            total += size
            touch(index)
            let allowed = budget.map { min(limit, max(0, $0.limit - $0.held(byOthersThan: ObjectIdentifier(self)))) } ?? limit
            while total > allowed, recent.count > 1 {
                let old = recent.removeFirst()
                pages[old] = nil
                total -= bytes.removeValue(forKey: old) ?? 0
            }
            budget?.charge(total, to: ObjectIdentifier(self))
        }
        return text
    }

    private func touch(_ index: Int) {
        if let i = recent.lastIndex(of: index) { recent.remove(at: i) }
        recent.append(index)
    }
}
