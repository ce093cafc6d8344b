import Foundation

/// Pages' words kept for search and highlights, the least recently used dropped past `limit`
/// bytes. Thread-safe. Does not: read text itself
/// beyond calling the document, or know what a search is.
public final class PageTextCache: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private let limit: Int
    private var pages: [Int: PageText?] = [:]
    private var bytes: [Int: Int] = [:]
    private var recent: [Int] = []
    private var total = 0
    private let source: PageSource

    /// `limit`: bytes kept at most.
    public init(source: PageSource, limit: Int = 64 << 20) {
        self.source = source
        self.limit = limit
    }

    public var pageCount: Int { source.pageCount }

    /// The document's chapters' text, where it can give it without laying them out.
    public var chapters: (any ChapterTextSource)? { source as? any ChapterTextSource }

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
            while total > limit, recent.count > 1 {
                let old = recent.removeFirst()
                pages[old] = nil
                total -= bytes.removeValue(forKey: old) ?? 0
            }
        }
        return text
    }

    private func touch(_ index: Int) {
        if let i = recent.lastIndex(of: index) { recent.remove(at: i) }
        recent.append(index)
    }
}
