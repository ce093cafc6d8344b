import FolioBook
import FolioImage
import FolioLayout
import FolioState
import Foundation

/// The reader's habits that the viewer remembers between runs: how pages turn, the theme,
/// show-through, the text size and typography of reflowable books. Options on the command line override them
/// for one run and are not written; changing one in the viewer (a key) writes it.
public struct ReaderSettings: Sendable, Equatable, Codable {
    /// How keys turn pages (a drag of a rigid sheet curls: a rigid flip cannot follow the hand).
    public var deform: TurnDeform = .curl
    public var theme: Theme = .paper
    /// One page or two (`auto`: one in a window taller than it is wide).
    public var pages: PageMode = .auto
    /// One page shown fits the view's width (`BookController.Settings.fitWidth`).
    public var fitWidth = false
    /// The other side's print showing through the paper.
    public var showThrough = true
    /// Text size of reflowable books, points (`fontSizes`).
    public var fontSize = 11.0
    /// How reflowable books are set (typeface, spacing, margins, justification, hyphenation).
    public var typography = Typography.standard

    public static let fontSizes = 6.0...72.0

    public init() {}

    private enum CodingKeys: String, CodingKey { case deform, theme, pages, fitWidth, showThrough, fontSize, typography }

    /// A key missing (a file written by an older version, or by hand) keeps its default; a
    /// value of the wrong kind or out of range makes the whole file damaged.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deform = try c.decodeIfPresent(TurnDeform.self, forKey: .deform) ?? deform
        theme = try c.decodeIfPresent(Theme.self, forKey: .theme) ?? theme
        pages = try c.decodeIfPresent(PageMode.self, forKey: .pages) ?? pages
        fitWidth = try c.decodeIfPresent(Bool.self, forKey: .fitWidth) ?? fitWidth
        showThrough = try c.decodeIfPresent(Bool.self, forKey: .showThrough) ?? showThrough
        fontSize = try c.decodeIfPresent(Double.self, forKey: .fontSize) ?? fontSize
        typography = try c.decodeIfPresent(Typography.self, forKey: .typography) ?? typography
        guard Self.fontSizes.contains(fontSize) else {
            throw DecodingError.dataCorruptedError(forKey: .fontSize, in: c,
                                                   debugDescription: "fontSize must be \(Self.fontSizes.lowerBound)…\(Self.fontSizes.upperBound)")
        }
    }
}

/// `settings.json` in the XDG config folder (`$XDG_CONFIG_HOME/folio`, else `~/.config/folio`).
///
/// Written whole or not at all (`OutputFile`: no reader ever sees half a file). A file that is
/// there but cannot be read as settings is never overwritten: `load` moves it aside
/// (`settings.json.damaged`, or `-2`, `-3`… beside an older one) and says so once; the next
/// run finds no file and starts from the defaults.
public struct SettingsFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The settings file of the user's config folder.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(path: xdgFolder("XDG_CONFIG_HOME", else: ".config", environment: environment) + "/folio/settings.json")
    }

    /// A settings file larger than this is damaged (it holds a few short fields).
    public static let maxBytes = 64 << 10

    /// The settings saved (defaults where there are none), and a line for the user when the
    /// file was damaged or could not be read.
    public func load() -> (settings: ReaderSettings, problem: String?) {
        guard FileManager.default.fileExists(atPath: path) else { return (ReaderSettings(), nil) }
        switch read() {
        case let .success(settings):
            return (settings, nil)
        case let .failure(reason):
            guard reason.damaged else { return (ReaderSettings(), "\(path): \(reason.message); settings not remembered") }
            if let aside = moveAside() {
                return (ReaderSettings(), "\(path): \(reason.message); kept as \(aside), defaults used")
            }
            return (ReaderSettings(), "\(path): \(reason.message); it could not be moved aside, settings not remembered")
        }
    }

    /// Writes `settings`; refuses (throws) to replace a file that is not settings.
    public func save(_ settings: ReaderSettings) throws {
        if FileManager.default.fileExists(atPath: path), case let .failure(reason) = read() {
            throw FileError(.cannotCreate, path, "not replaced: \(reason.message)")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try OutputFile(path, replace: .always).write([UInt8](encoder.encode(settings)))
    }

    private struct Unreadable: Error {
        var message: String
        /// The file was read and is not settings (as opposed to a folder, or no permission).
        var damaged: Bool
    }

    private func read() -> Result<ReaderSettings, Unreadable> {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, maxBytes: Self.maxBytes)
        } catch {
            // A regular file refused is one too large to be settings; anything else (a
            // folder, no permission) is left as it is.
            let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
            return .failure(Unreadable(message: error.reason, damaged: error.kind == .notAFile && type == .typeRegular))
        }
        do {
            return .success(try JSONDecoder().decode(ReaderSettings.self, from: Data(bytes)))
        } catch {
            return .failure(Unreadable(message: "not valid settings (\(Self.reason(error)))", damaged: true))
        }
    }

    /// Renames the file beside itself under a name not taken; the new name, or nil.
    private func moveAside() -> String? {
        for n in 1...99 {
            let aside = path + ".damaged" + (n == 1 ? "" : "-\(n)")
            // link + unlink: never onto an existing name (rename would replace it).
            if link(path, aside) == 0 {
                unlink(path)
                return aside
            }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let DecodingError.dataCorrupted(c): return c.debugDescription
        case let DecodingError.typeMismatch(_, c), let DecodingError.valueNotFound(_, c):
            return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        case let DecodingError.keyNotFound(key, _): return "\(key.stringValue) missing"
        default: return "\(error)"
        }
    }
}
