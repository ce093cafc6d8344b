import Foundation
import Glibc
import Synchronization

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
    public var description: String { "\(path): \(reason)" }

    /// errno's text ("No space left on device").
    public static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

/// What kind of thing a path names, without following a final symbolic link.
enum FileType: Equatable {
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

// MARK: Names

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
    static func type(of path: String) -> FileType? {
        var st = stat()
        return stat(bytes(path), &st) == 0 ? FileType(mode: st.st_mode) : nil
    }
}

// MARK: Reading

/// Reads inputs (page images, manifests, scripts) so that nothing a user names can block or
/// exhaust the process: only regular files are read. The type is checked on the open file
/// itself (opened without blocking, then `fstat`), so a FIFO named `a.png` is refused at once
/// instead of waiting for a writer forever, and a file swapped after a check cannot slip by.
public enum InputFile {
    /// An open regular file for reading; close it with `close(2)`.
    public static func open(_ path: String) throws(FileError) -> Int32 {
        let fd = Glibc.open(FileName.bytes(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw FileError(.missingInput, path, FileError.reason(e))
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw FileError(.io, path, FileError.reason(e))
        }
        let type = FileType(mode: st.st_mode)
        guard type == .regular else {
            Glibc.close(fd)
            throw FileError(.notAFile, path, "is \(type.phrase), not a file")
        }
        // Regular files never block; reads go on in the ordinary mode.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// The bytes of a regular file: at most `limit` of them, and never more than `maxBytes`
    /// in all (a larger file is refused before it is read).
    public static func read(_ path: String, limit: Int? = nil, maxBytes: Int = 1 << 30) throws(FileError) -> [UInt8] {
        let fd = try open(path)
        defer { Glibc.close(fd) }
        var st = stat()
        _ = fstat(fd, &st)
        let size = Int(st.st_size)
        if limit == nil, size > maxBytes {
            throw FileError(.notAFile, path, "is \(size) bytes, more than the \(maxBytes)-byte limit for this kind of file")
        }
        let wanted = min(limit ?? maxBytes, maxBytes)
        var bytes = [UInt8](repeating: 0, count: min(wanted, max(size, 0)))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw FileError(.io, path, FileError.reason()) }
            if n == 0 { break }  // shrank since fstat
            filled += n
        }
        return Array(bytes[0..<filled])
    }
}

// MARK: Interrupts

/// Ctrl-C for commands that run for a while: the first SIGINT only raises a flag that their
/// loops check (so they stop between frames, finish or remove what they were writing, and
/// say so); a second one ends the process at once, as usual.
public enum Interrupt {
    private static let flag = Atomic<Bool>(false)
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Whether an interrupt has arrived.
    public static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Starts catching SIGINT and SIGTERM; `notice` is printed when the first one arrives.
    /// Call once, from the main thread, before the work starts.
    public static func catchSignals(notice: String) {
        for sig in [SIGINT, SIGTERM] {
            // Ignored by the process, so only the dispatch source hears it.
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                flag.store(true, ordering: .relaxed)
                FileHandle.standardError.write(Data("folio: \(notice)\n".utf8))
                // The next one ends the process at once.
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// For tests: forget an interrupt.
    public static func reset() { flag.store(false, ordering: .relaxed) }
    /// For tests and callers that stop for their own reasons.
    public static func request() { flag.store(true, ordering: .relaxed) }
}

// MARK: Writing

/// One file a command writes — a capture, a recorded frame, a benchmark's scratch frame, a
/// screenshot — written so that nothing the user had is lost:
///
/// - A **symbolic link** is written through: its target gets the image, the link stays.
/// - A **character device or FIFO** (`/dev/stdout`, a pipe to a viewer) is written in place;
///   a failure there (`/dev/full`) is reported, and the node is never removed. A FIFO that no
///   process reads is refused instead of blocking. Folders, block devices and sockets are refused.
/// - A **new file** is written beside its final name and renamed into place once complete,
///   so no reader ever sees half an image, and an interrupted process leaves none behind.
/// - An **existing regular file** keeps its mode, owner, group and hard links: when it has one
///   link and its owner can be kept, the new content is written aside (given the old file's mode
///   and owner) and renamed over it; otherwise (hard links, someone else's file, a folder Folio
///   may not write in) the file is rewritten in place, after the space for the new content is
///   reserved, so a full disk fails before the old content is touched.
/// - Whether an existing file may be replaced is the caller's `Replace` policy, checked by
///   `prepare` before any work is done.
///
/// It does not encode images, choose names or make folders (`makeFolder` does, one level at a
/// time, with errno's reason).
public struct OutputFile: Sendable {
    /// What may be replaced.
    public enum Replace: Sendable {
        /// Any regular file (frames of the recording under way, `--force`).
        case always
        /// Only a file that already is a PNG image (a capture written again); anything else is
        /// kept unless the user forces it.
        case onlyPNG
        /// Nothing: the name must be new (screenshots).
        case never
    }

    /// The path as the user gave it, for messages.
    public let path: String
    public let replace: Replace

    public init(_ path: String, replace: Replace) {
        (self.path, self.replace) = (path, replace)
    }

    /// Checks, before any work, that the output can be written: its folder exists and the
    /// name is something Folio writes, and may be replaced if it exists.
    public func prepare() throws(FileError) {
        _ = try destination()
    }

    /// Where the bytes go: the path with its symbolic links followed, and what is there.
    private func destination() throws(FileError) -> (path: String, existing: stat?) {
        guard !path.isEmpty else { throw FileError(.cannotCreate, "\"\"", "the output path is empty") }
        let target = Self.followLinks(path)
        var st = stat()
        guard lstat(FileName.bytes(target), &st) == 0 else {
            let e = errno
            guard e == ENOENT else { throw FileError(.cannotCreate, path, "cannot write: \(FileError.reason(e))") }
            let folder = Self.folder(of: target)
            var dst = stat()
            guard stat(FileName.bytes(folder), &dst) == 0 else {
                throw FileError(.cannotCreate, path, "cannot create: the folder \(folder) does not exist (\(FileError.reason()))")
            }
            guard FileType(mode: dst.st_mode) == .directory else {
                throw FileError(.cannotCreate, path, "cannot create: \(folder) is \(FileType(mode: dst.st_mode).phrase), not a folder")
            }
            return (target, nil)
        }
        let type = FileType(mode: st.st_mode)
        switch type {
        case .regular:
            switch replace {
            case .always: break
            case .never: throw FileError(.cannotCreate, path, "exists; not replaced")
            case .onlyPNG:
                let head = (try? InputFile.read(target, limit: 8)) ?? []
                guard head.isEmpty || head == PNG.signature else {
                    throw FileError(.cannotCreate, path, "exists and is not a PNG image; not replaced (--force replaces it)")
                }
            }
        case .characterDevice, .fifo:
            break
        default:
            throw FileError(.cannotCreate, path, "cannot write: it is \(type.phrase); Folio writes files, character devices and FIFOs")
        }
        return (target, st)
    }

    /// Writes `bytes` as the file's whole content (see the type's rules).
    public func write(_ bytes: [UInt8]) throws(FileError) {
        let (target, existing) = try destination()
        guard let st = existing else { return try writeAside(bytes, to: target, keeping: nil) }
        switch FileType(mode: st.st_mode) {
        case .regular:
            let ownerKept = getuid() == 0 || (st.st_uid == geteuid() && Self.inGroup(st.st_gid))
            if st.st_nlink == 1, ownerKept, access(FileName.bytes(Self.folder(of: target)), W_OK) == 0 {
                try writeAside(bytes, to: target, keeping: st)
            } else {
                try writeInPlace(bytes, to: target, device: false)
            }
        default:
            try writeInPlace(bytes, to: target, device: true)
        }
    }

    /// A temporary file in the same folder, renamed over `target` once complete.
    private func writeAside(_ bytes: [UInt8], to target: String, keeping old: stat?) throws(FileError) {
        let folder = Self.folder(of: target)
        var template = FileName.bytes(folder + "/.folio-XXXXXX")
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileError(.cannotCreate, path, "cannot create: \(FileError.reason())") }
        let temp = FileName.string(template.dropLast().map { UInt8(bitPattern: $0) })
        var published = false
        defer { if !published { unlink(FileName.bytes(temp)) } }
        do {
            try Self.writeAll(fd, bytes, path: path)
        } catch {
            Glibc.close(fd)
            throw error
        }
        // mkstemp makes 0600 files: give the new file what any new file gets, or the old one's.
        let mode = old.map { $0.st_mode & 0o7777 } ?? (0o666 & ~Self.umaskValue)
        fchmod(fd, mode)
        if let old { fchown(fd, old.st_uid, old.st_gid) }
        guard Glibc.close(fd) == 0 else { throw FileError(.io, path, "cannot write: \(FileError.reason())") }
        if replace == .never {
            // link(2) publishes only where nothing is: two writers never take the same name.
            guard link(FileName.bytes(temp), FileName.bytes(target)) == 0 else { throw FileError(.cannotCreate, path, "cannot create: \(FileError.reason())") }
        } else {
            guard rename(FileName.bytes(temp), FileName.bytes(target)) == 0 else { throw FileError(.cannotCreate, path, "cannot create: \(FileError.reason())") }
            published = true
        }
    }

    /// Rewrites an existing file or writes to a device or FIFO, without removing or replacing it.
    private func writeInPlace(_ bytes: [UInt8], to target: String, device: Bool) throws(FileError) {
        // O_NONBLOCK: a FIFO with no reader fails at once (ENXIO) instead of waiting.
        let fd = open(FileName.bytes(target), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let why = errno == ENXIO ? "no process is reading the FIFO" : FileError.reason()
            throw FileError(.cannotCreate, path, "cannot write: \(why)")
        }
        defer { Glibc.close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if !device {
            // Reserve the space first: a full disk fails here, with the old content intact.
            let e = posix_fallocate(fd, 0, off_t(bytes.count))
            guard e == 0 else { throw FileError(.io, path, "cannot write: \(FileError.reason(e)); the file is unchanged") }
        }
        try Self.writeAll(fd, bytes, path: path)
        if !device, ftruncate(fd, off_t(bytes.count)) != 0 {
            throw FileError(.io, path, "cannot write: \(FileError.reason())")
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(FileError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw FileError(.io, path, "cannot write: \(FileError.reason())") }
            done += n
        }
    }

    /// `path` with every symbolic link of its last component followed (a dangling link gives
    /// the path it points to, which is then created).
    static func followLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(FileName.bytes(current), &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            let target = FileName.string(buffer[0..<n].map { UInt8(bitPattern: $0) })
            current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
        }
        return current
    }

    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func inGroup(_ gid: gid_t) -> Bool {
        if getegid() == gid { return true }
        var groups = [gid_t](repeating: 0, count: 256)
        let n = getgroups(Int32(groups.count), &groups)
        return n > 0 && groups[0..<Int(n)].contains(gid)
    }

    /// The process's umask, read once (reading it means setting it, which is not thread-safe).
    private static let umaskValue: mode_t = {
        let m = umask(0o022)
        umask(m)
        return m
    }()

    /// Makes `folder` and any missing parents; errno's reason when it cannot.
    public static func makeFolder(_ folder: String) throws(FileError) {
        var st = stat()
        if stat(FileName.bytes(folder), &st) == 0 {
            guard FileType(mode: st.st_mode) == .directory else {
                throw FileError(.cannotCreate, folder, "cannot be used as a folder: it is \(FileType(mode: st.st_mode).phrase)")
            }
            return
        }
        let parent = Self.folder(of: folder)
        if parent != folder, parent != "." { try makeFolder(parent) }
        guard mkdir(FileName.bytes(folder), 0o777) == 0 || errno == EEXIST else {
            throw FileError(.cannotCreate, folder, "cannot create the folder: \(FileError.reason())")
        }
    }
}
