@testable import FolioBook
import Foundation
import XCTest

/// `HandlePool` lends each thread a handle of its own and opens no more than its limit.
final class HandlePoolTests: XCTestCase {
    /// Counts handles opened, closed and lent at once (guarded by `lock`).
    private final class Counts: @unchecked Sendable {
        let lock = NSLock()
        var opened = 0, closed = 0, lent = 0, most = 0
    }

    /// Eight threads at once on a pool of three: three uses hold the three handles (the first
    /// and two opened), the other five wait for them; none opens a fourth.
    func testAPoolNeverOpensMoreHandlesThanItsLimit() {
        let counts = Counts()
        let entered = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0), done = DispatchGroup()
        let pool = HandlePool(first: 0, limit: 3, open: { counts.lock.withLock { counts.opened += 1; return counts.opened } })
        for _ in 0..<8 {
            done.enter()
            Thread {
                pool.with { _ in
                    counts.lock.withLock { counts.lent += 1; counts.most = max(counts.most, counts.lent) }
                    entered.signal()
                    gate.wait()
                    counts.lock.withLock { counts.lent -= 1 }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<3 { XCTAssertEqual(entered.wait(timeout: .now() + 60), .success) }
        XCTAssertEqual(pool.count, 3)
        for _ in 0..<8 { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(counts.opened, 2, "the first handle and two more")
        XCTAssertEqual(counts.most, 3, "never more than three lent at once")
    }

    /// Handles opened by uses nested on one thread are closed with the pool, the first too.
    func testEveryHandleIsClosedWithThePool() throws {
        let counts = Counts()
        var pool: HandlePool<Int>? = HandlePool(first: 0, limit: 3, open: {
            counts.lock.withLock { counts.opened += 1; return counts.opened }
        }, close: { _ in counts.lock.withLock { counts.closed += 1 } })
        do {
            let lender = try XCTUnwrap(pool)
            let lent = lender.with { a in lender.with { b in lender.with { c in [a, b, c] } } }
            XCTAssertEqual(lent.sorted(), [0, 1, 2])
        }
        XCTAssertEqual(counts.closed, 0)
        pool = nil
        XCTAssertEqual(counts.closed, 3)
    }

    /// A handle that cannot be opened (the file went) while the only one is lent, its use past
    /// the decode timeout: the use waits for that one, trying to open no other again.
    func testAFailedOpenWaitsForTheHandleThere() {
        struct Gone: Error {}
        let before = PageSources.decodeTimeout
        defer { PageSources.decodeTimeout = before }
        PageSources.decodeTimeout = 0
        let counts = Counts()
        let entered = DispatchSemaphore(value: 0), tried = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let pool = HandlePool(first: 7, limit: 2, open: { () throws -> Int in
            counts.lock.withLock { counts.opened += 1 }
            tried.signal()
            throw Gone()
        })
        done.enter()
        Thread {
            pool.with { _ in
                entered.signal()
                gate.wait()
            }
            done.leave()
        }.start()
        done.enter()
        Thread {
            tried.wait()
            gate.signal()
            done.leave()
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + 60), .success)
        let got = pool.with { $0 }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(got, 7)
        XCTAssertEqual(counts.opened, 1, "one try, then a wait")
        XCTAssertEqual(pool.count, 1)
    }
}
