import Synchronization

/// Page-sized pixel buffers kept between one page image and the next: the page store gives a
/// page's pixels back once they are uploaded or evicted, and the document engines draw the
/// next page into them. A fresh buffer of megabytes is memory the kernel must fault in and
/// zero page by page (and unmap again when freed): measured as a third of a PDF page's time.
///
/// Bounded: it keeps at most `limitBytes`; a buffer given back beyond that is freed. A buffer
/// taken holds whatever it held before (another page's pixels): whoever takes one writes every
/// byte. A buffer still shared (an image someone else holds) is never written into: the first
/// write copies it, as any Swift array's does. Thread-safe.
public final class PixelPool: Sendable {
    /// The pool the document engines draw into and the page store gives back to: enough for
    /// the pages the decode workers have in hand at 1080p and more.
    public static let shared = PixelPool(limitBytes: 48 << 20)

    public let limitBytes: Int
    private let state = Mutex(State())

    private struct State {
        var buffers: [[UInt8]] = []
        var bytes = 0
        var reused = 0
    }

    public init(limitBytes: Int) { self.limitBytes = max(0, limitBytes) }

    /// A buffer of `count` bytes whose contents are undefined: a buffer given back whose
    /// capacity fits (at most twice the bytes asked, so a small page does not pin a large
    /// buffer), or a new one.
    public func take(count: Int) -> [UInt8] {
        let count = max(0, count)
        var kept: [UInt8]? = state.withLock { s in
            var best: Int?
            for (i, b) in s.buffers.enumerated() where b.capacity >= count && b.capacity <= 2 * max(count, 1) {
                if best.map({ b.capacity < s.buffers[$0].capacity }) ?? true { best = i }
            }
            guard let best else { return nil }
            let b = s.buffers.remove(at: best)
            s.bytes -= b.capacity
            s.reused += 1
            return b
        }
        guard kept != nil else {
            return [UInt8](unsafeUninitializedCapacity: count) { _, initialised in initialised = count }
        }
        // Taken out, not copied: a second reference would make the resizing below copy it.
        var buffer = kept.take()!
        // Within its capacity: no allocation either way.
        if buffer.count > count { buffer.removeLast(buffer.count - count) }
        if buffer.count < count { buffer.append(contentsOf: repeatElement(0, count: count - buffer.count)) }
        return buffer
    }

    /// Keeps `pixels` for a later `take` if the pool has room for them; frees them otherwise.
    public func giveBack(_ pixels: consuming [UInt8]) {
        let buffer = pixels
        guard buffer.capacity > 0 else { return }
        state.withLock { s in
            guard s.bytes + buffer.capacity <= limitBytes else { return }
            s.buffers.append(buffer)
            s.bytes += buffer.capacity
        }
    }

    /// Keeps `image`'s pixels (see `giveBack(_:)`).
    public func giveBack(_ image: consuming RGBAImage?) {
        guard let image else { return }
        giveBack(image.pixels)
    }

    /// Bytes held for reuse now.
    public var heldBytes: Int { state.withLock { $0.bytes } }

    /// How many `take`s were served from buffers given back.
    public var reused: Int { state.withLock { $0.reused } }

    /// Frees every buffer held.
    public func empty() {
        state.withLock { s in
            s.buffers.removeAll()
            s.bytes = 0
        }
    }
}
