import Foundation
import Synchronization

/// The GL objects alive in one context. A surface makes one with its context, says when the
/// context becomes current on a thread, and ends it with the context: objects still alive
/// then are named on standard error (and stop a debug build), and destroying an object while
/// another context is current (where its name means something else, or nothing) stops a debug
/// build at that call. Objects made with no ledger current (a host's own context) are not counted.
///
/// Does not: make, bind or delete any GL object.
public final class GLContextLedger: Sendable {
    private let live = Mutex<[String: Int]>([:])
    private let label: String
    private static let threadKey = "Folio.GLContextLedger"

    /// `label` names the context in reports (its platform, say).
    public init(label: String) { self.label = label }

    /// The ledger of the context current on the calling thread, as its surface last said.
    public static var current: GLContextLedger? {
        Thread.current.threadDictionary[threadKey] as? GLContextLedger
    }

    /// The context became current on the calling thread.
    public func madeCurrent() { Thread.current.threadDictionary[Self.threadKey] = self }

    /// No context of a surface is current on the calling thread any more.
    public static func releasedCurrent() { Thread.current.threadDictionary[threadKey] = nil }

    /// What is alive, by kind (`"texture"`: 3).
    public var alive: [String: Int] { live.withLock { $0.filter { $0.value != 0 } } }

    /// The context is being destroyed: reports what outlived it; none is the normal case.
    public func end() {
        if Self.current === self { Self.releasedCurrent() }
        let left = alive
        guard !left.isEmpty else { return }
        let list = left.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)\($0.value == 1 ? "" : "s")" }.joined(separator: ", ")
        let message = "GL objects outlived their context (\(label)): \(list)"
        #if DEBUG
        fatalError(message)
        #else
        FileHandle.standardError.write(Data("folio: \(message)\n".utf8))
        #endif
    }

    fileprivate func count(_ kind: String, _ change: Int) { live.withLock { $0[kind, default: 0] += change } }
}

/// One GL object's membership of the ledger current when it was made.
struct GLOwner: Equatable, Sendable {
    private let ledger: GLContextLedger?
    private let kind: String

    /// Counts a new object of `kind` in the current context's ledger (if there is one).
    init(_ kind: String) {
        self.kind = kind
        ledger = GLContextLedger.current
        ledger?.count(kind, 1)
    }

    /// The object is being deleted: its context must be the current one.
    func release() {
        guard let ledger else { return }
        #if DEBUG
        if GLContextLedger.current !== ledger {
            fatalError("a GL \(kind) was destroyed while its context was not current")
        }
        #endif
        ledger.count(kind, -1)
    }

    static func == (a: GLOwner, b: GLOwner) -> Bool { a.ledger === b.ledger && a.kind == b.kind }
}
