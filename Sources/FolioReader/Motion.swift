import FolioLayout
import FolioMath

/// One animated value: from → to, starting at `start` seconds, shaped by a curve.
struct Motion: Equatable {
    enum Curve: Equatable { case timing(TimingCurve), turn(TurnCurve), spring(Spring) }

    var from: Double
    var to: Double
    var start: Double
    var duration: Double
    var curve: Curve
    /// Units a second it starts at: a motion that takes over from another keeps its speed
    /// (otherwise it would stop dead and set off again), fading by the Hermite term
    /// f (1 − f)², which starts at that slope and is 0 with zero slope at the end.
    var velocity = 0.0

    func fraction(at t: Double) -> Double {
        duration > 0 ? clamp((t - start) / duration, 0, 1) : 1
    }

    func value(at t: Double) -> Double {
        let f = fraction(at: t)
        let e: Double = switch curve {
        case let .timing(c): c(f)
        case let .turn(c): c(f)
        case let .spring(s): s.value(at: f * s.duration)
        }
        return mix(from, to, e) + velocity * duration * f * (1 - f) * (1 - f)
    }

    /// Units a second at `t` (a central difference, a thousandth of the duration wide).
    func rate(at t: Double) -> Double {
        let h = max(duration, 1e-6) * 1e-3
        return (value(at: t + h) - value(at: t - h)) / (2 * h)
    }

    func isDone(at t: Double) -> Bool { t >= start + duration }
}

/// Release velocity from recent samples of a tracked value (per second).
struct VelocityTracker: Equatable {
    /// Only the last 0.1 s count: a pause before release means no flick.
    static let window = 0.1
    private var samples: [(time: Double, value: Double)] = []

    static func == (a: VelocityTracker, b: VelocityTracker) -> Bool {
        a.samples.elementsEqual(b.samples) { $0.time == $1.time && $0.value == $1.value }
    }

    mutating func add(_ value: Double, at time: Double) {
        samples.append((time, value))
        samples.removeAll { $0.time < time - Self.window }
    }

    func velocity(at time: Double) -> Double {
        let recent = samples.filter { $0.time >= time - Self.window }
        guard let first = recent.first, let last = recent.last, last.time > first.time else { return 0 }
        return (last.value - first.value) / (last.time - first.time)
    }
}
