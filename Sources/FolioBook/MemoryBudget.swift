import Synchronization

/// One memory limit over every page cache of a library and the GPU textures made from their
/// images: decoded pages (CPU bytes) and uploaded ones (GPU bytes) count alike, whichever book
/// holds them. Each cache evicts only its own pages; one that finds the budget spent by others
/// prefetches less (pages on screen load regardless).
///
/// Thread-safe. Does not: evict anything itself, or know what a page is.
public final class MemoryBudget: Sendable {
    public let limit: Int
    private let state = Mutex<(caches: [ObjectIdentifier: Int], gpu: Int)>(([:], 0))

    public init(limit: Int) { self.limit = limit }

    /// Records what `owner` (a cache) holds now.
    func charge(_ bytes: Int, to owner: ObjectIdentifier) {
        state.withLock { $0.caches[owner] = bytes > 0 ? bytes : nil }
    }

    /// Records the bytes of the GPU textures made from the caches' images.
    public func setGPUBytes(_ bytes: Int) {
        state.withLock { $0.gpu = max(bytes, 0) }
    }

    /// What everyone but `owner` holds, GPU textures included.
    func held(byOthersThan owner: ObjectIdentifier) -> Int {
        state.withLock { s in s.gpu + s.caches.reduce(0) { $0 + ($1.key == owner ? 0 : $1.value) } }
    }

    /// Everything held now.
    public var used: Int {
        state.withLock { s in s.gpu + s.caches.values.reduce(0, +) }
    }
}
