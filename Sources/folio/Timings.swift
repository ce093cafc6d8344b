import Foundation

/// Where a command's start-up goes: with `FOLIO_TIMINGS` set, each `mark` writes to standard
/// error the milliseconds since the one before (the first: since the process started), of the
/// wall clock and of CPU over all the process's threads, `timing: library 212.4 ms (CPU 180.2 ms)`
/// (docs/performance.md reads the capture's this way: on a loaded machine only the CPU tells).
/// Does nothing, and reads no clock, when the variable is unset.
enum Timings {
    private static let enabled = ProcessInfo.processInfo.environment["FOLIO_TIMINGS"] != nil
    nonisolated(unsafe) private static var last: (wall: Double, cpu: Double)?

    static func mark(_ step: String) {
        guard enabled else { return }
        let now = (wall: seconds(CLOCK_MONOTONIC), cpu: seconds(CLOCK_PROCESS_CPUTIME_ID))
        let since = last ?? (processStart(now: now.wall), 0)
        last = now
        let text = String(format: "timing: %@ %.1f ms (CPU %.1f ms)\n", step, (now.wall - since.wall) * 1000, (now.cpu - since.cpu) * 1000)
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// The process's start on the monotonic clock, from /proc (its start in clock ticks after
    /// boot, the 22nd field of `stat`); `now` where that cannot be read.
    private static func processStart(now: Double) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return now }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return now }
        // /proc counts from boot, as CLOCK_BOOTTIME does; the monotonic clock leaves out suspends.
        let offset = seconds(CLOCK_BOOTTIME) - seconds(CLOCK_MONOTONIC)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK))) - offset
    }
}
