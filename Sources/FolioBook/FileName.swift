// Files as the operating system has them: names that are bytes, and errors that name the file
// and errno's reason. Every page, manifest and script Folio reads (InputFile.swift) and every
// image it writes (OutputFile.swift) goes through here. It knows nothing of images or books.
import Foundation
import Glibc

/// A file operation that failed, in one line that names the file and the system's reason
/// (errno's text), and what kind of failure it is (a command turns that into its exit code).
public struct FileError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input does not exist or cannot be opened for reading.
        case missingInput
        /// The input is there but is not something Folio reads (a folder, a device, a FIFO).
        case notAFile
        /// The output cannot be created where it was asked for.
        case cannotCreate
        /// Reading or writing failed part-way (disk full, I/O error).
        case io
    }

    public var kind: Kind
    /// The file as the user named it.
    public var path: String
    /// What went wrong, without the path ("cannot write: No space left on device").
    public var reason: String

    public init(_ kind: Kind, _ path: String, _ reason: String) {
        (self.kind, self.path, self.reason) = (kind, path, reason)
    }

    /// "path: reason", one line.
    public var description: String { "\(FileName.printable(path)): \(reason)" }

    /// errno's text ("No space left on device").
    public static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

/// What kind of thing a path names, without following a final symbolic link.
public enum FileType: Sendable, Equatable {
    case regular, directory, characterDevice, blockDevice, fifo, socket, symlink

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFDIR: self = .directory
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symlink
        default: self = .regular
        }
    }

    /// "a folder", "a FIFO", … for messages.
    var phrase: String {
        switch self {
        case .regular: "a file"
        case .directory: "a folder"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .symlink: "a symbolic link"
        }
    }
}

/// File names are bytes; Swift strings are Unicode. A name that is not UTF-8 (a file made on
/// an old Latin-1 system) keeps each byte that is not part of valid UTF-8 as one character of
/// a private-use range (U+10FF00 + byte), so the string goes back to the very same bytes when
/// the file is opened. Every path Folio lists or opens goes through here.
public enum FileName {
    private static let escapeBase: UInt32 = 0x10FF00

    /// The string for a name's bytes (the bytes' UTF-8 where valid).
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let bytes = Array(bytes)
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            // The longest valid UTF-8 sequence starting here, else one escaped byte.
            var taken = false
            for n in (1...4).reversed() where i + n <= bytes.count {
                if let s = String(validating: bytes[i..<i + n], as: UTF8.self), s.unicodeScalars.count == 1 {
                    out.append(contentsOf: s.unicodeScalars)
                    i += n
                    taken = true
                    break
                }
            }
            if !taken {
                out.append(Unicode.Scalar(escapeBase + UInt32(bytes[i]))!)
                i += 1
            }
        }
        return String(out)
    }

    /// Whether `a` and `b` name one existing file or folder, through links and other
    /// spellings of the path.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(bytes(a), &x) == 0, stat(bytes(b), &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// `text` for a person to read: bytes kept by `string` are shown as `\xFF`, control
    /// characters (a newline in a file name, a terminal escape in a PDF's title) as `\x1B`, and
    /// bidirectional overrides and isolates (U+202A–202E, U+2066–2069, which make a terminal
    /// show `gpj.exe` reversed) as `\u{202E}`, so nothing a file carries can break a line of
    /// output, command the terminal or disguise a name. The one function every printed name
    /// and message goes through (`report` applies it to whole lines).
    public static func printable(_ text: String) -> String {
        func control(_ v: UInt32) -> Bool { v < 0x20 || (0x7F...0x9F).contains(v) }
        func bidi(_ v: UInt32) -> Bool { (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) }
        guard text.unicodeScalars.contains(where: { $0.value >= escapeBase || control($0.value) || bidi($0.value) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= escapeBase {
                out += "\\x" + String(format: "%02X", scalar.value - escapeBase)
            } else if control(scalar.value) {
                out += "\\x" + String(format: "%02X", scalar.value)
            } else if bidi(scalar.value) {
                out += "\\u{" + String(format: "%04X", scalar.value) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The bytes a path string stands for, NUL-terminated, for the system's calls.
    public static func bytes(_ path: String) -> [CChar] {
        var out: [UInt8] = []
        for scalar in path.unicodeScalars {
            if (escapeBase...escapeBase + 0xFF).contains(scalar.value) {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return (out + [0]).map { CChar(bitPattern: $0) }
    }

    /// The command line's arguments, with names that are not UTF-8 kept as `string` keeps them.
    public static var arguments: [String] {
        (0..<Int(CommandLine.argc)).map { i in
            guard let arg = CommandLine.unsafeArgv[i] else { return "" }
            return string(UnsafeBufferPointer(start: UnsafeRawPointer(arg).assumingMemoryBound(to: UInt8.self), count: strlen(arg)))
        }
    }

    /// The visible entries of a folder (not starting with '.'), unsorted.
    public static func list(_ folder: String) throws(FileError) -> [String] {
        guard let dir = opendir(bytes(folder)) else { throw FileError(.missingInput, folder, "cannot open the folder: \(FileError.reason())") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in string(raw.prefix { $0 != 0 }) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }

    /// What `path` is, following links; nil when nothing is there.
    public static func type(of path: String) -> FileType? {
        var st = stat()
        return stat(bytes(path), &st) == 0 ? FileType(mode: st.st_mode) : nil
    }
}

/// Natural order: runs of ASCII digits compare as numbers ("page2" < "page10"), ASCII letters
/// ignore case, anything else compares by its UTF-8 bytes. Names equal in that order ("p2" and
/// "p02") fall back to plain order, so the sort is total and the same on every run.
public func naturalLess(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    let order = a.withUTF8 { x in b.withUTF8 { y in naturalOrder(x, y) } }
    return order == 0 ? a < b : order < 0
}

/// -1, 0 or 1 as `x` sorts before, with or after `y` (bytes, for speed: a 5,000-page folder
/// takes some 120,000 comparisons).
private func naturalOrder(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
    func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
    var i = 0, j = 0
    while i < x.count && j < y.count {
        if isDigit(x[i]) && isDigit(y[j]) {
            // Skip leading zeros, then the longer run is the larger number, else the first difference.
            while i < x.count - 1 && x[i] == 0x30 && isDigit(x[i + 1]) { i += 1 }
            while j < y.count - 1 && y[j] == 0x30 && isDigit(y[j + 1]) { j += 1 }
            var ei = i, ej = j
            while ei < x.count && isDigit(x[ei]) { ei += 1 }
            while ej < y.count && isDigit(y[ej]) { ej += 1 }
            if ei - i != ej - j { return ei - i < ej - j ? -1 : 1 }
            while i < ei {
                if x[i] != y[j] { return x[i] < y[j] ? -1 : 1 }
                i += 1; j += 1
            }
            continue
        }
        let cx = lower(x[i]), cy = lower(y[j])
        if cx != cy { return cx < cy ? -1 : 1 }
        i += 1; j += 1
    }
    if i == x.count && j == y.count { return 0 }
    return i == x.count ? -1 : 1
}
