import CSpeechd
import Foundation
import Synchronization

/// A voice that speaks one sentence after another and says how many it has finished. Does not:
/// choose what to read, mark it or turn pages (the pipeline's read-aloud does).
public protocol SpeechOutput: AnyObject {
    /// Queues `text` to be spoken after what is being spoken; false when the voice refused it.
    func speak(_ text: String) -> Bool
    /// Sentences spoken to their end since the last call.
    func takeFinished() -> Int
    func pause()
    func resume()
    /// Stops speaking and forgets what was queued.
    func stop()
    /// Speed, -100 (slowest) … 100 (fastest), 0 the voice's own.
    var rate: Int { get set }
}

/// Speech through speech-dispatcher (`libspeechd`), whose usual voice is espeak-ng: one
/// connection, opened when reading aloud starts (the service started by the library when it is
/// installed but not running).
public final class SpeechDispatcher: SpeechOutput {
    private let connection: UnsafeMutablePointer<SPDConnection>
    /// Sentences ended, counted by the library's thread (its callbacks carry no context: one
    /// count for the process, as there is one connection).
    private static let ended = Atomic<Int>(0)
    private var seen = 0

    /// What stands in the way of speech, as the reader is told.
    public static let unavailable = "no speech service: install speech-dispatcher and espeak-ng (apt install speech-dispatcher espeak-ng)"

    /// A connection, or nil with the reason.
    public static func open() -> Result<SpeechDispatcher, SpeechError> {
        var error: UnsafeMutablePointer<CChar>?
        guard let c = spd_open2("folio", "reader", nil, SPD_MODE_THREADED, nil, 1, &error) else {
            let reason = error.map { String(cString: $0) } ?? ""
            free(error)
            return .failure(SpeechError(message: reason.isEmpty ? unavailable : "\(unavailable) (\(reason.trimmingCharacters(in: .whitespacesAndNewlines)))"))
        }
        return .success(SpeechDispatcher(c))
    }

    private init(_ c: UnsafeMutablePointer<SPDConnection>) {
        connection = c
        c.pointee.callback_end = { _, _, _ in SpeechDispatcher.ended.add(1, ordering: .relaxed) }
        spd_set_notification_on(c, SPD_END)
        seen = Self.ended.load(ordering: .relaxed)
    }

    deinit { spd_close(connection) }

    public func speak(_ text: String) -> Bool { spd_say(connection, SPD_TEXT, text) >= 0 }

    public func takeFinished() -> Int {
        let now = Self.ended.load(ordering: .relaxed)
        defer { seen = now }
        return now - seen
    }

    public func pause() { spd_pause(connection) }
    public func resume() { spd_resume(connection) }

    public func stop() {
        spd_cancel(connection)
        seen = Self.ended.load(ordering: .relaxed)
    }

    public var rate = 0 {
        didSet { spd_set_voice_rate(connection, Int32(min(max(rate, -100), 100))) }
    }
}

public struct SpeechError: Error, CustomStringConvertible {
    public var message: String

    public init(message: String) { self.message = message }
    public var description: String { message }
}
