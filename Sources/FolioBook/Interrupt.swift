import Foundation
import Glibc
import Synchronization

/// Ctrl-C for commands that run for a while: the first SIGINT only raises a flag that their
/// loops check (so they stop between frames, finish or remove what they were writing, and
/// say so); a second one ends the process at once, as usual.
public enum Interrupt {
    private static let flag = Atomic<Bool>(false)
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Whether an interrupt has arrived.
    public static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Starts catching SIGINT and SIGTERM; `notice` is printed when the first one arrives.
    /// Call once, from the main thread, before the work starts.
    public static func catchSignals(notice: String) {
        for sig in [SIGINT, SIGTERM] {
            // Ignored by the process, so only the dispatch source hears it.
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                flag.store(true, ordering: .relaxed)
                let line = Array("folio: \(notice)\n".utf8)
                _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
                // The next one ends the process at once.
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
            }
            source.resume()
            sources.append(source)
        }
    }
}
