import FolioBook
import Foundation

/// What a search knows so far: the hits found, how far it has gone, whether it is over.
public struct SearchProgress: Sendable, Equatable {
    public var hits: [SearchHit] = []
    /// Pages searched, out of `pageCount`.
    public var searched = 0
    public var pageCount: Int
    /// Pages that had text.
    public var pagesWithText = 0
    public var finished = false
    public var cancelled = false

    public init(pageCount: Int) { self.pageCount = pageCount }

    /// Finished, and not one page had text: say "this book has no text to search".
    public var noText: Bool { finished && !cancelled && pagesWithText == 0 }

    /// The line a reader sees about it.
    public var summary: String {
        if noText { return "this book has no text to search" }
        let found = hits.count == 1 ? "1 hit" : "\(hits.count) hits"
        return finished ? found : "\(found), \(searched) of \(pageCount) pages searched"
    }
}

/// A phrase searched for through a book, page by page, from a page onwards and round to it.
/// `run` searches on the caller's thread (the command line); `start` on a thread of its own,
/// the reader reading `progress` whenever it draws: the first hit is there as soon as its page
/// is searched, and `cancel` stops it between two pages.
public final class Search: @unchecked Sendable {
    // @unchecked: `state`, `stop` and `background` are guarded by `lock`; the rest is immutable.
    public let phrase: Phrase
    private let texts: PageTextCache
    private let chapters: ChapterFilter?
    private let first: Int
    private let lock = NSLock()
    private var state: SearchProgress
    private var stop = false

    /// Searches `texts` for `phrase`, from page `from` (the page shown) to the end and round.
    public init(_ phrase: Phrase, in texts: PageTextCache, from: Int = 0) {
        self.phrase = phrase
        self.texts = texts
        chapters = texts.chapters.map { ChapterFilter(phrase, in: $0) }
        first = texts.pageCount > 0 ? min(max(0, from), texts.pageCount - 1) : 0
        state = SearchProgress(pageCount: texts.pageCount)
    }

    public var progress: SearchProgress { lock.withLock { state } }

    public func cancel() { lock.withLock { stop = true } }

    /// Searches on a thread of its own, its pages read by `workers` threads, all of them below
    /// the caller's priority: a frame loop drawing meanwhile keeps its pace, the search taking
    /// the cores it leaves.
    public func start(workers: Int = 1) {
        lock.withLock { background = true }
        Thread.detachNewThread { [self] in
            Self.yieldToOthers()
            run(workers: workers)
        }
    }

    /// Whether the threads searching yield to others (`start`).
    private var background = false

    /// Lowers the calling thread's priority: on Linux the nice value is the thread's own, and
    /// `who` 0 names the calling thread (setpriority(2)).
    private static func yieldToOthers() {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        setpriority(which, 0, getpriority(which, 0) + 10)
        #endif
    }

    /// Searches every page, calling `found` with each page's hits as they are found (in the
    /// order searched, on the caller's thread); hits in `progress` stay in page order. With
    /// more than one worker, pages are read and matched on that many threads (the documents'
    /// engines read pages in parallel) and taken in order as they come.
    public func run(workers: Int = 1, found: (_ page: Int, _ hits: [SearchHit]) -> Void = { _, _ in }) {
        let n = texts.pageCount
        // Several workers: that many threads read pages and the caller takes their results.
        let helpers = workers > 1 ? min(workers, n) : 0
        let pages = PageQueue(count: n, workers: helpers)
        for _ in 0..<helpers { Thread.detachNewThread { [self] in read(pages) } }
        for k in 0..<n {
            let page = (first + k) % n
            // One worker: the caller reads each page itself.
            let result = helpers == 0 ? (lock.withLock({ stop }) ? nil : searched(page)) : pages.result(k)
            guard let (hasText, hits) = result else { break }
            if !hits.isEmpty { found(page, hits) }
            lock.withLock {
                state.searched += 1
                if hasText { state.pagesWithText += 1 }
                guard !hits.isEmpty else { return }
                // Pages come in order but for the wrap round to the first: append unless before the last.
                if let last = state.hits.last, last.page > page {
                    state.hits.insert(contentsOf: hits, at: state.hits.firstIndex { $0.page > page } ?? state.hits.count)
                } else {
                    state.hits += hits
                }
            }
        }
        pages.close()
        lock.withLock {
            state.finished = true
            state.cancelled = stop
        }
    }

    /// Page `page`: whether it has text, and the phrase's hits on it.
    private func searched(_ page: Int) -> (Bool, [SearchHit]) {
        if let chapters, !chapters.mayHold(page: page) { return (true, []) }
        let text = texts.text(page: page)
        return (text != nil, text?.hits(of: phrase, page: page) ?? [])
    }

    /// A worker: takes the next page to search until none is left or the search stops.
    private func read(_ pages: PageQueue) {
        if lock.withLock({ background }) { Self.yieldToOthers() }
        while let k = pages.take(stopped: lock.withLock { stop }) {
            pages.put(k, searched((first + k) % texts.pageCount))
        }
        pages.leave()
    }
}

/// Which chapters may hold a phrase, read from their text as written (`ChapterTextSource`):
/// one whose letters, case and marks aside, do not hold the phrase's letters in a row cannot
/// hold the phrase, and its pages need not be drawn. Only letters are compared: what lies
/// between them (white space, punctuation, a line's end, a soft hyphen) may differ between the
/// file and its pages, and a list's numbers are drawn without being in the file. Where a
/// chapter's text is not known, or the phrase has no letters, every page is searched.
final class ChapterFilter: @unchecked Sendable {
    // @unchecked: `known` is guarded by `lock`; the rest is immutable.
    private let source: any ChapterTextSource
    private let letters: [Unicode.Scalar]
    private let lock = NSLock()
    private var known: [Int: Bool] = [:]

    init(_ phrase: Phrase, in source: any ChapterTextSource) {
        self.source = source
        letters = phrase.scalars.filter(Self.isLetter)
    }

    /// Whether page `page`'s chapter may hold the phrase.
    func mayHold(page: Int) -> Bool {
        guard !letters.isEmpty, let chapter = source.chapter(ofPage: page) else { return true }
        if let answer = lock.withLock({ known[chapter] }) { return answer }
        let answer = source.chapterText(chapter).map { Self.holds(Phrase.fold($0).filter(Self.isLetter), letters) } ?? true
        lock.withLock { known[chapter] = answer }
        return answer
    }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }

    /// Whether `text` holds `part` in a row.
    static func holds(_ text: [Unicode.Scalar], _ part: [Unicode.Scalar]) -> Bool {
        guard let head = part.first, part.count <= text.count else { return false }
        var at = 0
        while at + part.count <= text.count {
            if text[at] == head, text[at..<at + part.count].elementsEqual(part) { return true }
            at += 1
        }
        return false
    }
}

/// The pages of a search handed out to workers in order and their results taken in order.
private final class PageQueue: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var results: [Int: (Bool, [SearchHit])] = [:]
    private var next = 0
    private var workers: Int
    private var closed = false
    private let count: Int

    init(count: Int, workers: Int) { (self.count, self.workers) = (count, workers) }

    /// The next page to search (its place in the search's order); nil when all are taken, or
    /// the search stopped or is over.
    func take(stopped: Bool) -> Int? {
        condition.withLock {
            guard !stopped, !closed, next < count else { return nil }
            next += 1
            return next - 1
        }
    }

    func put(_ k: Int, _ result: (Bool, [SearchHit])) {
        condition.withLock {
            results[k] = result
            condition.broadcast()
        }
    }

    /// The result of the `k`th page, once a worker has it; nil when none will (stopped).
    func result(_ k: Int) -> (Bool, [SearchHit])? {
        condition.withLock {
            // A page taken comes; one not taken comes while a worker is left to take it.
            while results[k] == nil, k < next || workers > 0 { condition.wait() }
            return results.removeValue(forKey: k)
        }
    }

    /// A worker has stopped taking pages.
    func leave() {
        condition.withLock {
            workers -= 1
            condition.broadcast()
        }
    }

    /// Workers stop taking pages (the caller takes no more results).
    func close() { condition.withLock { closed = true } }
}

/// Which hit the reader is at, and which comes next: plain state for the viewer to keep and
/// its layer to show ("3 of 17").
public struct HitCursor: Sendable, Equatable {
    /// The hit shown, an index into the hits; nil before the first.
    public private(set) var current: Int?

    public init() {}

    /// The hit after the one shown, or the first on or after `page` when none is: wraps round.
    public mutating func next(in hits: [SearchHit], page: Int) -> SearchHit? {
        guard !hits.isEmpty else { return nil }
        let i = current.map { ($0 + 1) % hits.count } ?? (hits.firstIndex { $0.page >= page } ?? 0)
        current = i
        return hits[i]
    }

    /// The hit before the one shown, or the last before `page`: wraps round.
    public mutating func previous(in hits: [SearchHit], page: Int) -> SearchHit? {
        guard !hits.isEmpty else { return nil }
        let i = current.map { ($0 + hits.count - 1) % hits.count } ?? (hits.lastIndex { $0.page < page } ?? hits.count - 1)
        current = i
        return hits[i]
    }

    /// Points at `hit` again after hits were added before it (a search going round to the
    /// first pages); nil when it is no longer among them.
    public mutating func follow(_ hit: SearchHit, in hits: [SearchHit]) {
        current = hits.firstIndex(of: hit)
    }

    /// "3 of 17" (or "17 found" before one is chosen).
    public func label(count: Int) -> String {
        guard let current, current < count else { return "\(count) found" }
        return "\(current + 1) of \(count)"
    }
}

extension PageMarks {
    /// Marks the boxes of `hits` on the document at `path`, replacing its marks.
    public func set(hits: [SearchHit], for path: String) {
        set(Dictionary(grouping: hits, by: \.page).mapValues { $0.flatMap(\.boxes) }, for: path)
    }
}
