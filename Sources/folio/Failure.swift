import ArgumentParser
import FolioReader
import FolioScript
import FolioBook
import FolioRender
import Foundation

/// Why a command stops: one line for standard error and the exit status command-line users
/// expect (sysexits.h). Every error a command meets becomes one of these in `init(_:)`, so no
/// framework's own dump of an error reaches the user.
struct Failure: Error, CustomStringConvertible {
    enum Status: Int32 {
        /// Anything else that stops a command (no GL context, a shader missing).
        case failure = 1
        /// A bad option or argument.
        case usage = 64
        /// The input is there but wrong (a manifest with no usable book, a broken script file).
        case data = 65
        /// The input does not exist or cannot be opened.
        case noInput = 66
        /// A tool the command needs is missing (ffmpeg).
        case unavailable = 69
        /// The output cannot be created.
        case cannotCreate = 73
        /// Reading or writing failed part-way (disk full).
        case io = 74
        /// The input cannot be read for lack of permission.
        case noPermission = 77
        /// Folio's own shaders cannot be used (missing, or not compiled or linked by the driver).
        case configuration = 78
        /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
        case interrupted = 130
    }

    var status: Status
    var message: String
    var description: String { message }

    init(_ status: Status, _ message: String) {
        (self.status, self.message) = (status, message)
    }

    /// An error worded for the user, with its status; nil for ArgumentParser's own (help
    /// requests, usage errors), which it prints itself with its usage text.
    init?(_ error: Error) {
        switch error {
        case let f as Failure:
            self = f
        case let e as FileError:
            let status: Status = switch e.kind {
            case .missingInput: .noInput
            case .notAFile: .data
            case .cannotCreate: .cannotCreate
            case .io: .io
            }
            self.init(status, e.description)
        case let e as PNGError:
            switch e {
            case .unreadable: self.init(.noInput, e.description)
            case .invalid, .tooLarge: self.init(.data, e.description)
            case .writeFailed: self.init(.io, e.description)
            }
        case let e as ValidationError:
            self.init(.usage, e.message)
        case let e as RenderError:
            switch e {
            case .shaderCompile, .programLink, .shaderMissing, .shadersFolderNotFound: self.init(.configuration, e.description)
            case .framebufferIncomplete, .sizeTooLarge: self.init(.failure, e.description)
            }
        case let e as StillStateError:
            self.init(.usage, e.message)
        case let e as CocoaError:
            // Foundation's file errors: the path and errno's words, never the whole dump.
            let path = e.filePath ?? e.url?.path ?? "a file"
            let known: [CocoaError.Code: Int32] = [
                .fileNoSuchFile: ENOENT, .fileReadNoSuchFile: ENOENT, .fileReadNoPermission: EACCES,
                .fileWriteNoPermission: EACCES, .fileWriteOutOfSpace: ENOSPC, .fileWriteVolumeReadOnly: EROFS,
                .fileWriteFileExists: EEXIST, .fileReadTooLarge: EFBIG,
            ]
            let code = (e.userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) } ?? known[e.code]
            let reading = e.code.rawValue < CocoaError.Code.fileWriteUnknown.rawValue
            self.init(reading ? .noInput : .cannotCreate, "\(path): \(code.map { FileError.reason($0) } ?? e.localizedDescription)")
        case let e as POSIXError:
            self.init(.io, FileError.reason(e.code.rawValue))
        default:
            // ArgumentParser's own (help requests, parse errors) it prints itself.
            if String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") { return nil }
            // Anything else (no GL context, a shader missing) has its own one-line words.
            self.init(.failure, "\(error)")
        }
    }
}

/// One line on standard error, "folio: …". Never fails: a closed or full stderr loses the line.
/// Each line of `line` is escaped (`FileName.printable`), whatever names it carries.
func report(_ line: String) {
    let text = line.split(separator: "\n", omittingEmptySubsequences: false).map { FileName.printable(String($0)) }.joined(separator: "\n")
    let bytes = Array("folio: \(text)\n".utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// JSON as JSONEncoder writes it, with what it leaves raw that could command a terminal or
/// disguise text escaped as `\uXXXX` (as it may be inside a JSON string, the only place these
/// occur): DEL and the C1 controls, bidirectional overrides and isolates, line and paragraph
/// separators.
func printableJSON(_ data: Data) -> String {
    var out = String.UnicodeScalarView()
    for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
        let v = scalar.value
        if (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x2028 || v == 0x2029 {
            out.append(contentsOf: String(format: "\\u%04X", v).unicodeScalars)
        } else {
            out.append(scalar)
        }
    }
    return String(out)
}

/// The problems of a library on standard error, runs of the same message summarised.
func report(_ problems: [Problem]) {
    for p in Problem.summarised(problems) { report(p.description) }
}

/// The status a command ends with when it did its work (drew placeholders, listed the
/// problems) but the input it was named could not be used at all: 77 when it may not be
/// read, 65 otherwise. Set once, while the library loads; read when the command ends.
enum UnusableInput {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var status: Failure.Status?

    /// Notes `library`, loaded from `source`, if nothing of it can be shown.
    static func check(_ library: Library) {
        guard library.isUnusable else { return }
        let denied = library.unopened.contains { access(FileName.bytes($0), R_OK) != 0 && errno == EACCES }
        lock.withLock { status = denied ? .noPermission : .data }
    }

    static var current: Failure.Status? { lock.withLock { status } }
}

/// Runs the command line: parse errors get ArgumentParser's usage text (status 64); any other
/// error one line and its status; output that could not be written to standard output (a
/// full disk, /dev/full) status 74.
func runCommandLine() -> Never {
    var command: ParsableCommand
    do {
        command = try Folio.parseAsRoot(Array(FileName.arguments.dropFirst()))
    } catch {
        Folio.exit(withError: error)
    }
    var status: Int32 = 0
    do {
        try command.run()
    } catch let code as ExitCode {
        status = code.rawValue
    } catch {
        guard let failure = Failure(error) else {
            fflush(nil)
            Folio.exit(withError: error)
        }
        report(failure.message)
        status = failure.status.rawValue
    }
    if status == 0, let unusable = UnusableInput.current { status = unusable.rawValue }
    // print() buffers in stdio: the last of it is written here, and any failure to write it,
    // then or earlier, shows as the flush failing.
    if fflush(nil) != 0 {
        report("standard output: cannot write: \(FileError.reason())")
        if status == 0 { status = Failure.Status.io.rawValue }
    }
    exit(status)
}

/// Refuses output names whose extension promises a format Folio does not write.
func checkPNGName(_ path: String, option: String) throws {
    guard !path.isEmpty else { throw ValidationError("\(option) \"\": the output path is empty") }
    let ext = (path as NSString).pathExtension.lowercased()
    guard ext.isEmpty || ext == "png" else {
        throw ValidationError("\(option) \(path): Folio writes PNG images only; name the file .png")
    }
}
