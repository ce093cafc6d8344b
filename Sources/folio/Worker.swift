import Foundation

/// Work run on a thread of its own, its result handed to whichever thread waits for it: what a
/// command does beside its own thread (a library loading while the GL context is made, a page
/// decoded with a deadline, a layout while frames are drawn).
final class Worker<T>: @unchecked Sendable {
    // @unchecked: `result` is written once, before `done` is signalled, and read only after.
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    /// Its result, once it has finished.
    func wait() -> Result<T, any Error> {
        wait(until: .distantFuture)!
    }

    /// Its result if it finishes by `deadline`; nil otherwise (the work goes on aside).
    func wait(until deadline: DispatchTime) -> Result<T, any Error>? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        // Handed back, so that every wait after the end returns at once.
        done.signal()
        return result
    }
}
