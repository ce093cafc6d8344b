import ArgumentParser
import FolioReader
import FolioScript
import FolioLayout

/// The tunable settings of `view`, `record`, `capture`, `layout` and `flip`: turn timing, shadow
/// strength, eye distance. Each value is range-checked by `Tune.make`.
struct TuningOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Seconds a page turn takes, \(Tune.turnDurations.lowerBound)…\(Tune.turnDurations.upperBound) (view, record, flip recordings).",
                               valueName: "seconds"))
    var turnDuration: String?
    @Option(help: ArgumentHelp("Timing of a turn: \(TurnCurve.allCases.map(\.rawValue).joined(separator: ", ")) (default two-stage). "
                               + "In a still, --turn is then the fraction of the turn's time.", valueName: "curve"))
    var curve: String?
    @Option(help: ArgumentHelp("Strength of the shadows a turning page throws, 0…3 (1: the reference's).", valueName: "strength"))
    var shadow: String?
    @Option(help: ArgumentHelp("Eye distance in layout units, 400…100000 (default: 2000 per 362 units of page width shown).",
                               valueName: "distance"))
    var eye: String?
    @OptionGroup var document: DocumentOptions

    func validate() throws { _ = try tunes() }

    /// The settings given, checked.
    func tunes() throws -> [Tune] {
        try [("duration", "--turn-duration", turnDuration), ("curve", "--curve", curve), ("shadow", "--shadow", shadow), ("eye", "--eye", eye)]
            .compactMap { name, label, value in
                guard let value else { return nil }
                switch Tune.make(name, value, label: label) {
                case let .success(t): return t
                case let .failure(e): throw ValidationError(e.message)
                }
            }
    }

    /// The controller settings with these applied.
    func apply(to settings: inout BookController.Settings) throws {
        for t in try tunes() { t.apply(to: &settings) }
    }

    /// A still has no time: the shadow, the eye and the curve (which maps --turn from time to
    /// progress) apply; a turn duration does not.
    func apply(to still: inout StillState) throws {
        if turnDuration != nil { throw ValidationError("--turn-duration applies to view and record: a still has no time") }
        for t in try tunes() {
            switch t {
            case let .curve(c): still.curve = c
            case let .shadow(x): still.shadow = x
            case let .eye(e): still.eye = e
            case .turnDuration: break
            }
        }
    }
}
