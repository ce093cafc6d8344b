import Dispatch
import FolioBook
import FolioImage
import FolioLayout
import Foundation
import Synchronization

/// Runs the store's decodes and crop renderings. The store never hands it more decodes than it
/// has workers, and one crop rendering a page at most, so a concurrent queue is enough; a test
/// runs the jobs itself, when and in the order it wants.
public protocol DecodeExecutor: Sendable {
    func execute(_ job: @escaping @Sendable () -> Void)
}

/// Decodes on a concurrent dispatch queue: what every host uses.
public struct BackgroundDecoding: DecodeExecutor {
    private let queue = DispatchQueue(label: "folio.pages.decode", qos: .userInitiated, attributes: .concurrent)

    public init() {}

    public func execute(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }
}

/// How one page is decoded, decided on the store's thread and carried to a worker: the file,
/// the size, the paper it goes on and the placeholder shown if it is bad.
struct DecodeOrder: Sendable {
    var documents: DocumentRegistry
    var page: PageRef
    var fit: PixelSize
    var knownBroken: Bool
    var paperAspect: Double?
    var placeholder: PixelSize
    var maxPixels: Int
    var maxSide: Int
    var wholePageHeight: Int
}

/// A decoded page: its image, what went wrong, whether a file was read, and the display height
/// it was rendered for when a larger one would render it sharper.
struct Decoded: Sendable {
    var image: RGBAImage
    var problem: Problem?
    var broken: Bool
    var read: Bool
    var renderedFor: Int?
}

/// One decode handed to the executor, for its book's layout `layout`. Cancelled before it
/// starts, it reads nothing.
final class DecodeJob: Sendable {
    let serial: Int
    let layout: Int
    private let cancelled = Atomic<Bool>(false)

    init(serial: Int, layout: Int) {
        self.serial = serial
        self.layout = layout
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    func cancel() { cancelled.store(true, ordering: .releasing) }
    func resume() { cancelled.store(false, ordering: .releasing) }
}

/// What background work finished, waiting for the frame's thread: the page store's decodes and
/// the pipeline's relayouts cross back through one of these. Posting one that `wakes` wakes
/// whoever waits on it and calls `wake` (the viewer's loop wakes up), until stopped.
/// Thread-safe. Does not: run anything.
public final class Inbox<Item: Sendable>: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSCondition()
    private var items: [Item] = []
    private var wake: (@Sendable () -> Void)?

    public init(wake: (@Sendable () -> Void)?) { self.wake = wake }

    public func post(_ item: Item, wakes: Bool = true) {
        lock.withLock {
            items.append(item)
            lock.broadcast()
            // Under the lock: once `stop()` returns no call is running or will start.
            if wakes { wake?() }
        }
    }

    /// What was posted since the last call, in order.
    public func take() -> [Item] {
        lock.withLock {
            defer { items = [] }
            return items
        }
    }

    /// Waits until something was posted or `deadline` passes; true if something is waiting.
    public func wait(until deadline: Date) -> Bool {
        lock.withLock {
            while items.isEmpty {
                if !lock.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// No more wakes (the owner goes).
    public func stop() { lock.withLock { wake = nil } }
}

/// Work finished on a worker, for the store's thread.
enum Arrival: Sendable {
    /// A decode of image `key` by job `serial`; nil: the job was cancelled before it read anything.
    case page(key: PageKey, serial: Int, decoded: Decoded?)
    /// A crop rendered for `want`: the part rendered and its pixels, bordered (nil: the page has
    /// nothing sharper to give, or it failed).
    case crop(want: CropRenderings.Want, crop: PageCrop, image: RGBAImage?)
}

extension DecodeOrder {
    /// Reads and decodes the page (on a worker; touches nothing of the store).
    func run() -> Decoded {
        let place = { brokenPlaceholder(placeholder) }
        if knownBroken { return Decoded(image: place(), problem: nil, broken: true, read: false) }
        do {
            var whole = fit
            if wholePageHeight > 0, fit.height > wholePageHeight, documents.rendersCrops(page) { whole.height = wholePageHeight }
            let r = try documents.render(page, fit: whole, maxPixels: maxPixels, maxSide: maxSide)
            let problem = r.warning.map { PageSources.problem(page, $0) }
            let image = paperAspect.map { r.image.onPaper(aspect: $0, maxSide: maxSide) } ?? r.image
            // Capped, it is as large as the page is ever rendered whole: no display renders it again.
            return Decoded(image: image.scaledToFit(maxWidth: maxSide, maxHeight: maxSide), problem: problem, broken: false,
                           read: true, renderedFor: r.scalable && whole == fit ? fit.height : nil)
        } catch PageError.reportedBefore {
            return Decoded(image: place(), problem: nil, broken: true, read: false)
        } catch {
            // Reported once, by whoever takes the store's problems: no log line here to repeat it.
            let problem = PageSources.problem(page, PNGError.reason(of: error) + "; showing a placeholder page")
            return Decoded(image: place(), problem: problem, broken: true, read: true)
        }
    }
}

/// Runs decodes only when told, on the caller's thread, in the order handed in: tests and
/// tools see every step of the store deterministically.
public final class ManualDecoding: DecodeExecutor, @unchecked Sendable {
    // @unchecked: `waiting` is guarded by `lock`.
    private let lock = NSLock()
    private var waiting: [@Sendable () -> Void] = []

    public init() {}

    public func execute(_ job: @escaping @Sendable () -> Void) { lock.withLock { waiting.append(job) } }

    /// Decodes handed in and not run yet.
    public var count: Int { lock.withLock { waiting.count } }

    /// Runs every decode handed in so far; returns how many ran.
    @discardableResult
    public func runAll() -> Int {
        let jobs = lock.withLock {
            defer { waiting = [] }
            return waiting
        }
        for job in jobs { job() }
        return jobs.count
    }
}

/// One broken-page placeholder per size, made on first use (slow to draw in a debug build; a
/// book of broken pages shows one image many times). Two workers may both make one: harmless.
private let placeholders = Mutex<[PixelSize: RGBAImage]>([:])

private func brokenPlaceholder(_ size: PixelSize) -> RGBAImage {
    if let image = placeholders.withLock({ $0[size] }) { return image }
    let image = RGBAImage.placeholder(width: size.width, height: size.height, kind: .broken)
    placeholders.withLock { $0[size] = image }
    return image
}
