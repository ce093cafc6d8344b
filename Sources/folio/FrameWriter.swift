import Dispatch
import FolioBook
import FolioImage
import Foundation

/// Encodes and writes PNG frames on worker threads while the render thread goes on. At most
/// `inFlight` frames wait at once, so memory stays bounded when encoding is the slower side.
final class FrameWriter: @unchecked Sendable {
    // @unchecked: `failure` is guarded by `lock`; the rest is immutable.
    private let queue = DispatchQueue(label: "folio.png", attributes: .concurrent)
    private let group = DispatchGroup()
    private let slots: DispatchSemaphore
    private let compression: Int
    private let lock = NSLock()
    private var failure: Error?

    init(compression: Int, inFlight: Int = ProcessInfo.processInfo.activeProcessorCount * 2) {
        self.compression = compression
        slots = DispatchSemaphore(value: max(inFlight, 1))
    }

    /// Queues a frame (rows bottom to top, as read back from GL) to be written to `path`.
    func submit(_ image: RGBAImage, to path: String) {
        slots.wait()
        group.enter()
        queue.async { [self] in
            defer { slots.signal(); group.leave() }
            do {
                try PNG.write(image, to: OutputFile(path, replace: .always), compression: compression, bottomUp: true)
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
    }

    /// Waits for every queued frame; throws the first write error.
    func finish() throws {
        group.wait()
        if let failure = lock.withLock({ failure }) { throw failure }
    }
}
