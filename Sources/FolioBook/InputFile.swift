import Foundation
import Glibc

/// Reads inputs (page images, manifests, scripts) so that nothing a user names can block or
/// exhaust the process: only regular files are read. The target's type is checked with `stat`
/// before it is opened, so a link in a book folder to a device (a watchdog, a tape) is never
/// opened at all, and again on the open file itself (opened without blocking, then `fstat`),
/// so a FIFO named `a.png` is refused at once instead of waiting for a writer forever, and a
/// file swapped after the check cannot slip by.
public enum InputFile {
    /// An open regular file for reading; close it with `close(2)`.
    public static func open(_ path: String) throws(FileError) -> Int32 {
        var before = stat()
        if stat(FileName.bytes(path), &before) == 0, FileType(mode: before.st_mode) != .regular {
            throw FileError(.notAFile, path, "is \(FileType(mode: before.st_mode).phrase), not a file")
        }
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
