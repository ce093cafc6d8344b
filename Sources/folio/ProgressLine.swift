import Foundation

/// A one-line report of long work on standard error — count, rate, time left — redrawn at most
/// five times a second from a fifth of a second in (quick work shows none), and only when
/// standard error is a terminal: scripts, logs and CI get nothing. It reads the wall clock for
/// the user's eyes only; nothing it measures feeds a result.
final class ProgressLine {
    private let label: String
    private let unit: String
    private let total: Int?
    private let enabled: Bool
    /// When the first item was done, and the count then: the rate is measured from there, so
    /// that start-up work (loading, the first textures) does not read as slowness.
    private var first: (at: ContinuousClock.Instant, count: Int)?
    private var lastDraw = ContinuousClock.now
    private var drawn = false
    private var count = 0

    /// `total` nil: no time left is shown. `quiet` turns it off on a terminal too.
    init(_ label: String, unit: String, total: Int?, quiet: Bool = false) {
        self.label = label
        self.unit = unit
        self.total = total
        enabled = !quiet && isatty(STDERR_FILENO) == 1
    }

    /// Counts `n` more items done.
    func advance(by n: Int = 1) {
        count += n
        guard enabled else { return }
        let now = ContinuousClock.now
        guard let first else {
            self.first = (now, count)
            return
        }
        if now - lastDraw < .milliseconds(200) { return }
        lastDraw = now
        drawn = true
        let elapsed = (now - first.at) / .seconds(1)
        write("\r\u{1B}[K" + text(rate: elapsed > 0 ? Double(count - first.count) / elapsed : 0))
    }

    /// Counts `n` items done in all.
    func advance(to n: Int) { advance(by: n - count) }

    /// Clears the line, so what is printed next starts on a clean one.
    func finish() {
        if drawn { write("\r\u{1B}[K") }
        drawn = false
    }

    private func text(rate: Double) -> String {
        var line = "\(label): \(count)" + (total.map { "/\($0)" } ?? "") + " \(unit)"
        line += String(format: ", %.1f/s", rate)
        if let total, rate > 0 {
            line += ", " + Self.duration(Double(max(total - count, 0)) / rate) + " left"
        }
        return line
    }

    static func duration(_ s: Double) -> String {
        let whole = Int(s.rounded(.up))
        return whole < 60 ? "\(whole) s" : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    private func write(_ s: String) { FileHandle.standardError.write(Data(s.utf8)) }
}

/// A progress line told from another thread (a book's layout worker) while the command waits
/// for it: each report under a lock.
final class SharedProgressLine: @unchecked Sendable {
    // @unchecked: `line` is touched only under `lock`.
    private let lock = NSLock()
    private let line: ProgressLine

    init(_ line: ProgressLine) { self.line = line }

    func advance(to n: Int) { lock.withLock { line.advance(to: n) } }
    func finish() { lock.withLock { line.finish() } }
}
