#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// A timing curve: maps the fraction of elapsed time (0 … 1) to the fraction of progress.
/// The named curves are Core Animation's cubic Béziers.
public struct TimingCurve: Sendable, Equatable {
    public var c1: Vec2
    public var c2: Vec2

    public init(_ c1: Vec2, _ c2: Vec2) {
        self.c1 = c1
        self.c2 = c2
    }

    public static let linear = TimingCurve(Vec2(0, 0), Vec2(1, 1))
    public static let easeIn = TimingCurve(Vec2(0.42, 0), Vec2(1, 1))
    public static let easeOut = TimingCurve(Vec2(0, 0), Vec2(0.58, 1))
    public static let easeInOut = TimingCurve(Vec2(0.42, 0), Vec2(0.58, 1))
    /// A page let go settling onto the stack: leaves at ease-out's speed (1.6 times the mean)
    /// and slows over most of the way, so the last frames' steps shrink to nothing (ease-out's
    /// last step at 30 frames a second was still a sixth of its largest: the page stopped dead).
    public static let landing = TimingCurve(Vec2(0.5, 0.8), Vec2(0.15, 1))

    /// Progress at time fraction `t` (clamped to 0 … 1).
    public func callAsFunction(_ t: Double) -> Double {
        let x = clamp(t, 0, 1)
        return bezier(solve(x), c1.y, c2.y)
    }

    private func bezier(_ u: Double, _ p1: Double, _ p2: Double) -> Double {
        let v = 1 - u
        return 3 * v * v * u * p1 + 3 * v * u * u * p2 + u * u * u
    }

    /// The Bézier parameter whose x is `x`: x(u) is monotonic, so bisection always converges.
    private func solve(_ x: Double) -> Double {
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if bezier(mid, c1.x, c2.x) < x { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// A sheet past upright falling onto the stack: it leaves at ease-in's last speed (1/0.58
    /// of the mean, so no kink at the half), gathers a little speed and then slows over most of
    /// the way, so the last frames' steps shrink to nothing. Ease-out (its former second stage)
    /// slowed at a constant rate: at 30 frames a second its last steps were a third, a quarter
    /// and a tenth of its largest, and the sheet stopped dead on the page.
    public static let fall = TimingCurve(Vec2(0.2, 0.2 / 0.58), Vec2(0.25, 1))

    /// A two-stage motion eased in over the first half and out over the second, so the
    /// whole eases in and out with no pause at the half (the rigid flip's timing).
    public static func twoStage(_ t: Double) -> Double {
        t < 0.5 ? 0.5 * easeIn(2 * t) : 0.5 + 0.5 * fall(2 * t - 1)
    }
}

/// A damped spring from 0 to 1 (UIKit's `usingSpringWithDamping:initialSpringVelocity:`).
///
/// `velocity` is in whole distances per second. The stiffness is chosen so the motion has
/// settled to within `tolerance` of the target by `duration`.
public struct Spring: Sendable, Equatable {
    public var damping: Double
    public var velocity: Double
    public var duration: Double
    public var tolerance: Double

    public init(damping: Double = 0.7, velocity: Double = 0.7, duration: Double = 1, tolerance: Double = 1e-3) {
        self.damping = clamp(damping, 0.05, 0.999)
        self.velocity = velocity
        self.duration = duration
        self.tolerance = tolerance
    }

    /// The open spring: damping 0.9, initial velocity 0.7, 1 s. Damped at 0.7 (the ratio
    /// first specified) the cover swept its half turn in a third of a second and the book
    /// overshot by 4.6% of its travel, then drifted back; at 0.9 the half turn takes about
    /// half a second and the 0.15% overshoot left at 1 s is taken out (`value`): docs/behaviour.md §2.
    public static let open = Spring(damping: 0.9)

    /// Undamped angular frequency, from the envelope e^(−ζω t) reaching the tolerance.
    public var omega: Double { -log(tolerance) / (damping * duration) }

    /// Progress at `t` seconds; exactly 1 from `duration` on, arriving there at zero speed.
    /// The spring's own motion is still a little off its target at `duration` (the open
    /// spring's 0.15%, a pixel of the open book): what is left, and its speed, are taken out
    /// over the whole motion (a smoothstep and x³ − x² of the time fraction, both nothing at the
    /// start), instead of in one step on the last frame.
    public func value(at t: Double) -> Double {
        guard t > 0 else { return 0 }
        guard t < duration else { return 1 }
        let end = free(at: duration), x = t / duration
        return free(at: t).value + (1 - end.value) * x * x * (3 - 2 * x) - end.speed * duration * x * x * (x - 1)
    }

    /// The spring's own damped motion at `t`, not yet brought onto its target: progress and its
    /// speed per second.
    private func free(at t: Double) -> (value: Double, speed: Double) {
        let w = omega, z = damping
        let wd = w * (1 - z * z).squareRoot()
        // Displacement from the target: u(0) = 1, u'(0) = −velocity.
        let b = (z * w - velocity) / wd
        let e = exp(-z * w * t), c = cos(wd * t), s = sin(wd * t)
        return (1 - e * (c + b * s), e * (z * w * (c + b * s) + wd * (s - b * c)))
    }
}

/// The timing of a page turn, by name (`--curve`, the script's `curve`): the seeds' two-stage
/// ease (ease in up to upright, ease out down) or one of Core Animation's curves over the whole.
public enum TurnCurve: String, Sendable, CaseIterable, Codable {
    case twoStage = "two-stage", linear, easeIn = "ease-in", easeOut = "ease-out", easeInOut = "ease-in-out"

    /// Turn progress at time fraction `t` (0 … 1).
    public func callAsFunction(_ t: Double) -> Double {
        switch self {
        case .twoStage: TimingCurve.twoStage(t)
        case .linear: TimingCurve.linear(t)
        case .easeIn: TimingCurve.easeIn(t)
        case .easeOut: TimingCurve.easeOut(t)
        case .easeInOut: TimingCurve.easeInOut(t)
        }
    }
}
