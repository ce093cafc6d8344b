import Foundation

/// A book laid out again at another text size, ready to be shown: `source` is the document
/// `document` in its new layout, `page` the page index holding the text that was shown first.
/// Made on a background thread, applied on the pipeline's (`FramePipeline.apply`).
public struct DocumentRelaid: Sendable {
    public var book: Int
    public var document: String
    public var source: any ReflowableSource
    public var page: Int

    public init(book: Int, document: String, source: any ReflowableSource, page: Int) {
        (self.book, self.document, self.source, self.page) = (book, document, source, page)
    }
}

/// Relayouts finished on other threads, waiting for the next frame; posting one wakes the
/// viewer's loop. Thread-safe. Does not: lay anything out, or apply what it holds.
final class RelayoutInbox: @unchecked Sendable {
    // @unchecked: `waiting` is only touched under `lock`.
    private let lock = NSLock()
    private var waiting: [Result<DocumentRelaid, RelayoutFailure>] = []
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    func post(_ outcome: Result<DocumentRelaid, RelayoutFailure>) {
        lock.withLock { waiting.append(outcome) }
        wake()
    }

    func take() -> [Result<DocumentRelaid, RelayoutFailure>] {
        lock.withLock {
            defer { waiting = [] }
            return waiting
        }
    }
}

/// Why a relayout gave nothing, in words naming the file.
struct RelayoutFailure: Error {
    var message: String
}
