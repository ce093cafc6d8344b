import FolioLayout

/// One tunable setting of the controller with its value: what `--turn-duration`, `--curve`,
/// `--shadow` and `--eye` and the script words `duration`, `curve`, `shadow`, `eye` set.
/// Values are range-checked where they enter (`Tune.make`), so a controller never holds a
/// turn that takes forever, a negative shadow or an eye inside the page.
public enum Tune: Sendable, Equatable {
    case turnDuration(Double)
    case curve(TurnCurve)
    case shadow(Double)
    case eye(Double)

    /// Seconds a turn may take.
    public static let turnDurations = 0.05...10.0
    /// Shadow strengths (0: none, 1: the reference's).
    public static let shadows = 0.0...3.0
    /// Eye distances, layout units (the reference's is 2000).
    public static let eyes = 400.0...100_000.0

    /// The setting `name` (duration, curve, shadow, eye) with `value` as written, or why not:
    /// a sentence naming the setting as `label` spells it (`--eye`, `'eye'`).
    public static func make(_ name: String, _ value: String, label: String) -> Result<Tune, TuneError> {
        func number(_ range: ClosedRange<Double>, _ unit: String, _ make: (Double) -> Tune) -> Result<Tune, TuneError> {
            guard let x = Double(value), x.isFinite, range.contains(x) else {
                return .failure(TuneError(message: "\(label) wants \(unit)\(Self.format(range.lowerBound))…\(Self.format(range.upperBound)), not '\(value)'"))
            }
            return .success(make(x))
        }
        switch name {
        case "duration": return number(turnDurations, "seconds ", Tune.turnDuration)
        case "shadow": return number(shadows, "a strength ", Tune.shadow)
        case "eye": return number(eyes, "a distance in layout units ", Tune.eye)
        case "curve":
            guard let c = TurnCurve(rawValue: value.lowercased()) else {
                return .failure(TuneError(message: "\(label) wants one of \(TurnCurve.allCases.map(\.rawValue).joined(separator: ", ")), not '\(value)'"))
            }
            return .success(.curve(c))
        default:
            return .failure(TuneError(message: "unknown setting '\(name)'"))
        }
    }

    /// Sets this value in `s`.
    public func apply(to s: inout BookController.Settings) {
        switch self {
        case let .turnDuration(d): s.turnDuration = d
        case let .curve(c): s.turnCurve = c
        case let .shadow(x): s.shadow = x
        case let .eye(e): s.eye = e
        }
    }

    private static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }
}

/// A setting value out of range or unknown, in one sentence.
public struct TuneError: Error, Equatable {
    public var message: String
}
