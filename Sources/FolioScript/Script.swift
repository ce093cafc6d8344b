import FolioLayout
import FolioReader
import FolioMath

// MARK: Language

/// A recording script: actions separated by `;` or newlines; `#` starts a comment.
///
/// ```
/// open; next 3; wait 0.5
/// style curl fan; prev; curl 0.8,-0.45   # grab near the bottom corner
/// goto 12; close
/// ```
///
/// | action | effect |
/// |---|---|
/// | `open`, `close` | open the centred book / close the open one |
/// | `next [N]`, `prev [N]` | turn N pages (default 1), queued so they chain without a pause |
/// | `first`, `last` | turn to the first / last spread |
/// | `goto N` | turn to the spread showing page N (1 = the first page, as `--page`) |
/// | `wait S` | hold for S seconds |
/// | `shelf next`, `shelf prev` | move the shelf by one cover |
/// | `book N` | move the shelf to book N (0-based) |
/// | `style W…` | set style words (see `StyleChoice`); takes no time |
/// | `duration S`, `curve C`, `shadow X`, `eye D` | set the turn's duration (seconds) and timing curve, the shadow strength, the eye distance (see `Tune`); take no time |
/// | `curl X,Y` | a mouse-style curl turn grabbed at X,Y in fractions of the page, as `--curl` (X across from the spine, 0 < \|X\| ≤ 1, negative on the left page; Y from the page centre, up, -0.5…0.5) |
public struct Script: Sendable, Equatable {
    /// One action and where it was written.
    public struct Step: Sendable, Equatable {
        public var action: ScriptAction
        /// Position among the script's actions, from 1.
        public var index: Int
        public var line: Int
        public var column: Int
        /// The action as written, for messages.
        public var text: String

        /// `text` with this step's position, worded like a parse error.
        public func message(_ text: String) -> String {
            ScriptError(message: text, line: line, column: column, index: index).description
        }
    }

    public var steps: [Step]

    /// Parses `text`; the error names the first bad action and its position.
    public init(_ text: String) throws(ScriptError) {
        steps = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.prefix { $0 != "#" }
            for part in code.split(separator: ";", omittingEmptySubsequences: false) {
                let words = part.split(whereSeparator: \.isWhitespace)
                guard let first = words.first else { continue }
                let column = code.distance(from: code.startIndex, to: first.startIndex) + 1, index = steps.count + 1
                do {
                    let action = try ScriptAction(name: first.lowercased(), arguments: words.dropFirst().map(String.init))
                    steps.append(Step(action: action, index: index, line: n + 1, column: column, text: part.trimmingWhitespace))
                } catch {
                    throw ScriptError(message: error.message, line: n + 1, column: column, index: index, hint: error.hint)
                }
            }
        }
        if steps.isEmpty { throw ScriptError(message: "the script has no actions", line: 1, column: 1, index: 0) }
    }
}

/// One thing a script does.
public enum ScriptAction: Sendable, Equatable {
    case open, close
    case next(Int), previous(Int)
    case first, last
    case goto(page: Int)
    case wait(seconds: Double)
    case shelfNext, shelfPrevious
    case book(Int)
    case style([StyleChoice])
    /// Grab point in fractions of the page: x across from the spine (negative: the left page), y from the page centre.
    case curl(grab: Vec2)
    case tune(Tune)

    /// The action names, for messages.
    public static let names = ["open", "close", "next", "prev", "first", "last", "goto", "wait", "shelf", "book", "style", "curl", "duration", "curve", "shadow", "eye"]

    init(name: String, arguments a: [String]) throws(ArgumentError) {
        switch name {
        case "open": try Self.none(a, name); self = .open
        case "close": try Self.none(a, name); self = .close
        case "first": try Self.none(a, name); self = .first
        case "last": try Self.none(a, name); self = .last
        case "next": self = .next(try Self.count(a, name))
        case "prev": self = .previous(try Self.count(a, name))
        case "goto": self = .goto(page: try Self.whole(a, name, "a page number (1 = the first page)"))
        case "book": self = .book(try Self.whole(a, name, "a book number (0 = first)"))
        case "wait":
            guard a.count == 1, let s = Double(a[0]), (0...Self.maxWait).contains(s) else {
                throw ArgumentError("'wait' wants seconds from 0 to \(Int(Self.maxWait)), e.g. 'wait 0.5'")
            }
            self = .wait(seconds: s)
        case "shelf":
            guard a.count == 1, a[0] == "next" || a[0] == "prev" else { throw ArgumentError("'shelf' wants 'next' or 'prev'") }
            self = a[0] == "next" ? .shelfNext : .shelfPrevious
        case "style": self = .style(try Self.styles(a))
        case "curl": self = .curl(grab: try Self.point(a))
        case "duration", "curve", "shadow", "eye":
            guard a.count == 1 else { throw ArgumentError("'\(name)' wants one value") }
            switch Tune.make(name, a[0], label: "'\(name)'") {
            case let .success(t): self = .tune(t)
            case let .failure(e): throw ArgumentError(e.message)
            }
        default: throw ArgumentError("unknown action '\(name)'", hint: "actions are \(Self.names.joined(separator: ", "))")
        }
    }

    private static func none(_ a: [String], _ name: String) throws(ArgumentError) {
        if !a.isEmpty { throw ArgumentError("'\(name)' takes no arguments, got '\(a.joined(separator: " "))'") }
    }

    private static func whole(_ a: [String], _ name: String, _ what: String) throws(ArgumentError) -> Int {
        guard a.count == 1, let n = Int(a[0]), n >= 0 else { throw ArgumentError("'\(name)' wants \(what)") }
        return n
    }

    private static func count(_ a: [String], _ name: String) throws(ArgumentError) -> Int {
        guard a.count <= 1 else { throw ArgumentError("'\(name)' wants at most one count") }
        guard let n = a.isEmpty ? 1 : Int(a[0]), (1...maxCount).contains(n) else {
            throw ArgumentError("'\(name)' wants a count from 1 to \(maxCount), not '\(a[0])'")
        }
        return n
    }

    /// The longest `wait`, seconds, and the most pages one `next` / `prev` turns: numbers past
    /// these are typing slips, and would make recordings without end.
    public static let maxWait = 3600.0
    public static let maxCount = 10_000

    private static func styles(_ a: [String]) throws(ArgumentError) -> [StyleChoice] {
        guard !a.isEmpty else { throw ArgumentError("'style' wants one or more of: \(StyleChoice.words.joined(separator: ", "))") }
        var choices: [StyleChoice] = []
        for word in a {
            guard let c = StyleChoice(word.lowercased()) else {
                throw ArgumentError("unknown style '\(word)'", hint: "styles are \(StyleChoice.words.joined(separator: ", "))")
            }
            choices.append(c)
        }
        return choices
    }

    /// "X,Y", spaces allowed around the comma.
    private static func point(_ a: [String]) throws(ArgumentError) -> Vec2 {
        let parts = a.joined().split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
            throw ArgumentError("'curl' wants a grab point X,Y in fractions of the page, e.g. 'curl 0.8,-0.45'")
        }
        guard x != 0 else { throw ArgumentError("'curl' wants X ≠ 0: positive grabs the right page, negative the left") }
        guard abs(x) <= 1, abs(y) <= 0.5 else {
            throw ArgumentError("'curl' wants a point on the page: 0 < |X| ≤ 1 from the spine, -0.5 ≤ Y ≤ 0.5 from the centre (got \(x),\(y))")
        }
        return Vec2(x, y)
    }

    /// A bad action, before its position is known.
    struct ArgumentError: Error {
        var message: String
        var hint: String?
        init(_ message: String, hint: String? = nil) { (self.message, self.hint) = (message, hint) }
    }
}

/// One word of a `style` action: sets one setting of the controller.
public enum StyleChoice: Sendable, Equatable {
    case deform(TurnDeform)
    case layout(BookLayout)
    case shelf(ShelfStyle)
    case direction(TurnStyle.Direction)
    case orientation(TurnStyle.Orientation)
    case perspective(TurnStyle.Perspective)
    case viewpoint(Viewpoint)

    /// Every word, in the order of the cases: rigid, curl, cone, flat, fan, carousel, wheel, …
    public static let words: [String] = all.map(\.word)

    private static let all: [StyleChoice] = TurnDeform.allCases.map(deform) + BookLayout.allCases.map(layout)
        + ShelfStyle.allCases.map(shelf) + TurnStyle.Direction.allCases.map(direction)
        + TurnStyle.Orientation.allCases.map(orientation) + TurnStyle.Perspective.allCases.map(perspective)
        + Viewpoint.allCases.map(viewpoint)

    /// The choice a word names; nil for an unknown word.
    public init?(_ word: String) {
        guard let c = Self.all.first(where: { $0.word == word }) else { return nil }
        self = c
    }

    /// The word that names this choice in a script.
    public var word: String {
        switch self {
        case let .deform(v): v.rawValue
        case let .layout(v): v.rawValue
        case let .shelf(v): v.rawValue
        case let .direction(v): v.rawValue
        case let .orientation(v): v.rawValue
        case let .perspective(v): v.rawValue
        case let .viewpoint(v): v.rawValue
        }
    }

    /// Sets this choice in `s`.
    public func apply(to s: inout BookController.Settings) {
        switch self {
        case let .deform(v): s.deform = v
        case let .layout(v): s.layout = v
        case let .shelf(v): s.shelf = v
        case let .direction(v): s.style.direction = v
        case let .orientation(v): s.style.orientation = v
        case let .perspective(v): s.style.perspective = v
        case let .viewpoint(v): s.viewpoint = v
        }
    }
}

/// A script that does not parse: "script:3: unknown action 'nxt' (action 3, column 14): …".
public struct ScriptError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int
    /// Position of the bad action among the script's actions, from 1 (0: the whole script).
    public var index: Int
    /// What would have been right, after the position.
    public var hint: String?

    public init(message: String, line: Int, column: Int, index: Int, hint: String? = nil) {
        (self.message, self.line, self.column, self.index, self.hint) = (message, line, column, index, hint)
    }

    public var description: String {
        let place = index == 0 ? "script: \(message)" : "script:\(line): \(message) (action \(index), column \(column))"
        return hint.map { "\(place): \($0)" } ?? place
    }
}

private extension Substring {
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

// MARK: Playing

/// Plays a script on a `BookController` at a fixed frame rate, one frame per call.
///
/// Timing rules (the frame count is a pure function of the script, the controller's
/// settings and the frame rate; no clock is read):
/// - Frame k (k = 0, 1, …) shows the controller at time t_k = k / fps (a part in a billion
///   later, see `time(ofFrame:)`).
/// - The first action is issued at t_0; each later one at the first frame at which the one
///   before has ended, before that frame is drawn. Actions that take no time (`style`, or one
///   the controller refuses, which is noted in `notes`) end at once, so the next one is issued
///   in the same frame.
/// - An action ends when the controller stops animating: `open` after the open spring (1 s),
///   `close` after the close duration, a turn after the turn duration, a shelf move after
///   0.35 s. `next N` / `prev N` issue N turns at once; the controller queues them and plays
///   them back to back, so they end N turn durations later with no pause between them.
///   `wait S` ends at the first frame at or after its issue time + S.
///   `curl X,Y` drags the page linearly from the grab point towards its mirror image across
///   the spine for 3/4 of the turn duration, lets go there, and ends when the page has landed
///   (the controller's landing: max(0.15 s, the turn duration times the part of its turn the
///   sheet has left, about half: it lags the pointer).
/// - The recording ends with the frame in which the last action ended, so an action of
///   duration D issued at a frame lasts ⌈D · fps⌉ frames, and
///   frames = 1 + Σ ⌈Dᵢ · fps⌉ (chained turns count as one action of N turn durations);
///   a `style` that moves the open book (half a second, `StyleBlend`) plays on under the
///   actions after it, and past the last one to its end.
public final class ScriptRunner {
    public let fps: Double
    /// Frames produced so far.
    public private(set) var frame = 0
    /// Actions that did nothing or less than asked, worded like parse errors.
    public private(set) var notes: [String] = []

    private let controller: BookController
    private var pending: ArraySlice<Script.Step>
    private var active: Active?
    private var finished = false

    /// What the action under way waits for.
    private enum Active {
        /// The controller to stop animating; then put back the deformation a curl replaced.
        case animation(restoring: TurnDeform?)
        case wait(until: Double)
        case drag(Drag)
    }

    private struct Drag {
        /// The controller's grab point, in the frame of the grabbed side (x > 0).
        var grab: Vec2
        var left: Bool
        var start: Double
        var release: Double
        var restoring: TurnDeform
    }

    /// How far a scripted curl drags before letting go, as turn progress.
    static let releaseProgress = 0.75

    /// A runner that starts `script` on `controller` at frame 0; `fps` must be positive.
    public init(script: Script, controller: BookController, fps: Double) {
        precondition(fps > 0 && fps.isFinite, "fps must be positive")
        self.fps = fps
        self.controller = controller
        pending = script.steps[...]
        // A script's turns play at their pace, however many it queues.
        change(at: controller.time) { $0.queueLag = nil }
    }

    /// Time of frame `k` in seconds.
    public func time(ofFrame k: Int) -> Double {
        // A hair past k / fps (a part in a billion): a motion that lasts a whole number of
        // frames then ends on its last frame, not one later through rounding in the sums of
        // durations the controller makes when it chains turns.
        Double(k) / fps * (1 + 1e-9)
    }

    /// Advances to the next frame and returns its scene; nil once the script has played.
    public func nextFrame() -> Scene? {
        step() ? controller.scene() : nil
    }

    /// Advances to the next frame without making its scene; false once the script has played.
    private func step() -> Bool {
        guard !finished else { return false }
        let t = time(ofFrame: frame)
        controller.update(to: t)
        advance(at: t)
        // A style changed last still moves the book (`StyleBlend`): the recording shows it arrive.
        finished = active == nil && pending.isEmpty && !controller.isAnimating
        frame += 1
        return true
    }

    /// Plays the whole script without drawing; returns the number of frames it makes, or nil
    /// when it makes more than `limit` (it stops there: a script may run for days).
    public func run(limit: Int = .max) -> Int? {
        while step() {
            if frame > limit { return nil }
        }
        return frame
    }

    /// Ends the actions that are done at `t` and issues the ones after them.
    private func advance(at t: Double) {
        while true {
            if let a = active {
                active = proceed(a, at: t)
                if active != nil { return }
            }
            guard let step = pending.popFirst() else { return }
            active = issue(step, at: t)
        }
    }

    /// The action's state after `t`; nil when it has ended.
    private func proceed(_ a: Active, at t: Double) -> Active? {
        switch a {
        case let .animation(restoring):
            guard !controller.isAnimating else { return a }
            if let restoring { change(at: t) { $0.deform = restoring } }
            return nil
        case let .wait(until):
            return t >= until ? nil : a
        case let .drag(d):
            guard t >= d.release else {
                movePointer(d, progress: Self.releaseProgress * (t - d.start) / (d.release - d.start), at: t)
                return a
            }
            movePointer(d, progress: Self.releaseProgress, at: t)
            controller.handle(.pageDragEnded, at: t)
            return proceed(.animation(restoring: d.restoring), at: t)
        }
    }

    /// Starts `step` at `t`; returns what it waits for (nil: it has ended already).
    private func issue(_ step: Script.Step, at t: Double) -> Active? {
        let c = controller
        switch step.action {
        case .open: return animate(step, c.handle(.open, at: t))
        case .close: return animate(step, c.handle(.close, at: t))
        case let .next(n): return turn(step, n, .nextPage, at: t)
        case let .previous(n): return turn(step, n, .previousPage, at: t)
        case .first: return animate(step, c.handle(.firstPage, at: t))
        case .last: return animate(step, c.handle(.lastPage, at: t))
        case let .goto(page): return animate(step, c.go(to: PageImage(number: page).layoutPage, at: t))
        case .shelfNext: return animate(step, c.handle(.shelfNext, at: t))
        case .shelfPrevious: return animate(step, c.handle(.shelfPrevious, at: t))
        case let .book(i): return animate(step, c.handle(.select(i), at: t))
        case let .wait(s): return .wait(until: t + s)
        case let .style(choices):
            change(at: t) { s in choices.forEach { $0.apply(to: &s) } }
            return nil
        case let .curl(grab): return beginCurl(step, grab: grab, at: t)
        case let .tune(setting):
            change(at: t) { setting.apply(to: &$0) }
            return nil
        }
    }

    /// Changes the controller's settings through its action, as a key would: its delegate hears it.
    private func change(at t: Double, _ edit: (inout BookController.Settings) -> Void) {
        var s = controller.settings
        edit(&s)
        controller.handle(.setSettings(s), at: t)
    }

    private func animate(_ step: Script.Step, _ accepted: Bool) -> Active? {
        if !accepted { notes.append(step.message("'\(step.text)' did nothing here")) }
        return accepted ? .animation(restoring: nil) : nil
    }

    private func turn(_ step: Script.Step, _ n: Int, _ action: Action, at t: Double) -> Active? {
        // Stops at the first refusal: the book ends there, and the rest would be refused too.
        var done = 0
        while done < n, controller.handle(action, at: t) { done += 1 }
        if done > 0, done < n { notes.append(step.message("'\(step.text)' turned \(done) of \(n) pages: the book ends there")) }
        return animate(step, done > 0)
    }

    /// Grabs the page at `fraction` of its size with the curl deformation for the gesture.
    private func beginCurl(_ step: Script.Step, grab fraction: Vec2, at t: Double) -> Active? {
        let previous = controller.settings.deform
        change(at: t) { $0.deform = .curl }
        let grab = controller.book.map { b -> Vec2 in
            let page = controller.library[b].laidOutPageSize(controller.settings.style.orientation)
            return Vec2(fraction.x * page.x, fraction.y * page.y)
        } ?? fraction
        guard controller.phase == .reading, controller.handle(.pageDragBegan(viewPoint(grab)), at: t),
              let held = controller.viewState().turn?.grab else {
            change(at: t) { $0.deform = previous }
            return animate(step, false)
        }
        let hold = controller.settings.turnDuration * Self.releaseProgress
        return .drag(Drag(grab: held, left: grab.x < 0, start: t, release: t + hold, restoring: previous))
    }

    private func movePointer(_ d: Drag, progress p: Double, at t: Double) {
        let local = CurlTurn.pointer(grab: d.grab, progress: p)
        controller.handle(.pageDragMoved(viewPoint(Vec2(d.left ? -local.x : local.x, local.y))), at: t)
    }

    /// Open book's frame (page units, spine on the y axis) → view units, as a pointer sees it.
    private func viewPoint(_ p: Vec2) -> Vec2 {
        guard let b = controller.book else { return p }
        let v = bookFrame(controller.viewState(), book: controller.laidOutBook ?? controller.library[b]).project(Vec3(p.x, p.y, 0))
        return Vec2(v.x, v.y)
    }
}
