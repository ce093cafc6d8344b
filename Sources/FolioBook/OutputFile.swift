import Foundation
import Glibc
import Synchronization

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
///   `prepare` before any work is done; a file the command reads (`reads`: the book it was
///   given), under any name or link to it, is never replaced, whatever the policy.
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
    /// What the command reads, never replaced.
    public let reads: [String]

    public init(_ path: String, replace: Replace, reads: [String] = []) {
        (self.path, self.replace, self.reads) = (path, replace, reads)
    }

    /// Checks, before any work, that the output can be written: its folder exists and the
    /// name is something Folio writes, and may be replaced if it exists.
    public func prepare() throws(FileError) {
        guard !isStandardOutput else { return }
        _ = try destination()
    }

    /// Whether the path names standard output: `-`, or `/dev/stdout` and its spellings, which
    /// are written through the open descriptor (by name, a pipe behind them cannot be reopened).
    public var isStandardOutput: Bool { ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains(path) }

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
                throw FileError(.cannotCreate, path, "cannot create: the folder \(FileName.printable(folder)) does not exist (\(FileError.reason()))")
            }
            guard FileType(mode: dst.st_mode) == .directory else {
                throw FileError(.cannotCreate, path, "cannot create: \(FileName.printable(folder)) is \(FileType(mode: dst.st_mode).phrase), not a folder")
            }
            return (target, nil)
        }
        let type = FileType(mode: st.st_mode)
        switch type {
        case .regular:
            if let input = reads.first(where: { FileName.sameFile($0, target) }) {
                throw FileError(.cannotCreate, path, "it is \(FileName.printable(input)), which this command reads; never replaced, not even with --force")
            }
            // A file made read-only is not replaced behind its owner's back.
            guard access(FileName.bytes(target), W_OK) == 0 else {
                throw FileError(.cannotCreate, path, "cannot write: \(FileError.reason())")
            }
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
        if isStandardOutput { return try Self.writeAll(STDOUT_FILENO, bytes, path: path) }
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

    /// Writes the file through `make`, which fills the path it is given (ffmpeg encoding a
    /// video): a new file beside the target, given the target's extension, renamed into place
    /// only when `make` returns and removed when it throws, so a failed or killed run never
    /// leaves a partial file under the name nor touches the file that was there. A device or
    /// FIFO is handed to `make` as it is.
    public func produce(_ make: (String) throws -> Void) throws {
        let (target, existing) = try destination()
        if let st = existing, FileType(mode: st.st_mode) != .regular { return try make(target) }
        let ext = (target as NSString).pathExtension
        try writeAside(to: target, keeping: existing, suffix: ext.isEmpty ? "" : "." + ext) { _, temp in try make(temp) }
    }

    /// A temporary file in the same folder, renamed over `target` once complete.
    private func writeAside(_ bytes: [UInt8], to target: String, keeping old: stat?) throws(FileError) {
        do {
            try writeAside(to: target, keeping: old, suffix: "") { fd, _ in try Self.writeAll(fd, bytes, path: path) }
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(.io, path, "cannot write: \(error)")
        }
    }

    /// A temporary file in the same folder, filled by `fill` (given it open, and its path),
    /// renamed over `target` once complete.
    private func writeAside(to target: String, keeping old: stat?, suffix: String, fill: (Int32, String) throws -> Void) throws {
        let folder = Self.folder(of: target)
        Self.removeLeftovers(in: folder)
        var template = FileName.bytes(Self.temporaryName(in: folder) + suffix)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        guard fd >= 0 else { throw FileError(.cannotCreate, path, "cannot create: \(FileError.reason())") }
        let temp = FileName.string(template.dropLast().map { UInt8(bitPattern: $0) })
        var published = false
        defer { if !published { unlink(FileName.bytes(temp)) } }
        do {
            try fill(fd, temp)
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
            // File systems without hard links (FAT) get a check and a rename instead.
            var st = stat()
            let linked = link(FileName.bytes(temp), FileName.bytes(target)) == 0
            guard linked || ((errno == EPERM || errno == EOPNOTSUPP) && lstat(FileName.bytes(target), &st) != 0) else {
                throw FileError(.cannotCreate, path, "cannot create: \(FileError.reason())")
            }
            if !linked {
                guard rename(FileName.bytes(temp), FileName.bytes(target)) == 0 else {
                    throw FileError(.cannotCreate, path, "cannot create: \(FileError.reason())")
                }
                published = true
            }
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

    /// A name for `mkstemp` or `mkdtemp` beside an output (`kind`: "frames-" for a folder of
    /// them): hidden, and carrying this process's id, so that what a killed writer left is told
    /// from what a running one is writing (`removeLeftovers`).
    public static func temporaryName(in folder: String, kind: String = "") -> String {
        folder + "/.folio-\(kind)\(getpid())-XXXXXX"
    }

    /// Removes what writers killed before they finished (SIGKILL, a crash) left in `folder`:
    /// the files and folders of `temporaryName` (or, with `prefix` "folio-ffmpeg-", ffmpeg's
    /// logs) whose process no longer runs; a running writer's are kept. Once per folder a run.
    public static func removeLeftovers(in folder: String, prefix: String = ".folio-") {
        let key = prefix + "\u{0}" + folder
        guard cleaned.withLock({ $0.insert(key).inserted }) else { return }
        guard let dir = opendir(FileName.bytes(folder)) else { return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in FileName.string(raw.prefix { $0 != 0 }) }
            if name.hasPrefix(prefix) { names.append(name) }
        }
        closedir(dir)
        for name in names {
            // The process id after the prefix (and "frames-"), then "-".
            let rest = name.dropFirst(prefix.count)
            let digits = (rest.hasPrefix("frames-") ? rest.dropFirst(7) : rest).prefix { $0.isASCII && $0.isNumber }
            guard let pid = pid_t(digits), pid > 0, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = folder + "/" + name
            var st = stat()
            guard lstat(FileName.bytes(path), &st) == 0 else { continue }
            if FileType(mode: st.st_mode) == .directory {
                for inner in (try? FileName.list(path)) ?? [] { unlink(FileName.bytes(path + "/" + inner)) }
                rmdir(FileName.bytes(path))
            } else {
                unlink(FileName.bytes(path))
            }
        }
    }

    private static let cleaned = Mutex(Set<String>())

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

