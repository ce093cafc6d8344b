import CDjVu
import Foundation
import Synchronization

/// A DjVu file of one page or a bundled document copied into memory (an anonymous file), which
/// djvulibre reads instead of the file: djvulibre maps the file it opens, and a file cut short
/// while it is mapped (written again in place while shown) stopped Folio with SIGBUS at the
/// next page read from it. The copy costs the file's size in memory once, whatever the handles
/// reading it, and the copies open together `budget` bytes at most. An indirect document (its
/// pages files beside it, which djvulibre looks for beside the file it opens), a file past the
/// budget left, and where no anonymous file can be made, are read in place.
final class DjVuSnapshot: Sendable {
    private let fd: Int32
    private let size: Int
    /// The name djvulibre opens the copy by.
    var path: String { "/proc/self/fd/\(fd)" }
    /// Bytes of copies open at once, at most: a sixteenth of the machine's memory, from 256 MiB
    /// to 1 GiB (sixteen documents stay open, `DocumentRegistry.maxOpen`: a shelf of large scans
    /// would otherwise hold them all in memory).
    static let budget = Budget(bytes: min(max(Int(ProcessInfo.processInfo.physicalMemory / 16), 256 << 20), 1 << 30))

    /// Bytes held against a limit.
    final class Budget: Sendable {
        let bytes: Int
        private let held = Mutex<Int>(0)

        init(bytes: Int) { self.bytes = bytes }

        /// Whether `n` more bytes fit: then they are held.
        func reserve(_ n: Int) -> Bool {
            held.withLock { held in
                guard n >= 0, n <= bytes - held else { return false }
                held += n
                return true
            }
        }

        func release(_ n: Int) { held.withLock { $0 -= n } }
    }

    init?(of file: String) {
        // Not blocking on a FIFO put in the file's place since it was checked; a plain file only.
        let source = Glibc.open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard source >= 0 else { return nil }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Self.budget.reserve(Int(info.st_size)) else { return nil }
        size = Int(info.st_size)
        // "AT&TFORM", its size, then "DJVU" (a page), or "DJVM" and its directory, "DIRM", its
        // size, and its flags: bundled where the high bit is set.
        var head = [UInt8](repeating: 0, count: 25)
        let memory = head.withUnsafeMutableBytes({ pread(source, $0.baseAddress, 25, 0) }) == 25
            && head[0..<8].elementsEqual("AT&TFORM".utf8)
            && (head[12..<16].elementsEqual("DJVU".utf8) || (head[12..<20].elementsEqual("DJVMDIRM".utf8) && head[24] & 0x80 != 0))
            ? folio_memory_file("folio-djvu") : -1
        guard memory >= 0 else {
            Self.budget.release(size)
            return nil
        }
        fd = Self.numbered(memory)
        guard Self.copy(source, into: fd, atMost: size), access(path, R_OK) == 0 else {
            close(fd)
            Self.budget.release(size)
            return nil
        }
    }

    deinit {
        close(fd)
        Self.budget.release(size)
    }

    /// Copies what `source` holds into `target`; false when reading or writing failed, or past
    /// `limit` bytes (the file grew since it was looked at).
    private static func copy(_ source: Int32, into target: Int32, atMost limit: Int) -> Bool {
        var copied = 0, buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0, copied + n <= limit else { return false }
            if n == 0 { return true }
            var at = 0
            while at < n {
                let w = buffer.withUnsafeBytes { write(target, $0.baseAddress! + at, n - at) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { return false }
                at += w
            }
            copied += n
        }
    }

    /// The descriptors copies take from, on: each copy has a number, and so a name, of its own.
    /// djvulibre keeps what it read of a file by the file's name while anything of it lives (a
    /// document given up whose thread goes on), and a copy given the number of a copy let go of
    /// was read as that copy: every DjVu file after one that failed to open failed too.
    private static let first: Int32 = 256
    private static let next = Mutex<Int32>(first)

    /// `fd` moved to the next number no copy has had (`next`), from `first` again when the
    /// process may open no more; `fd` itself where it cannot be moved.
    private static func numbered(_ fd: Int32) -> Int32 {
        next.withLock { next in
            var moved = fcntl(fd, F_DUPFD_CLOEXEC, next)
            if moved < 0 {
                next = first
                moved = fcntl(fd, F_DUPFD_CLOEXEC, next)
            }
            guard moved >= 0 else { return fd }
            close(fd)
            next = moved + 1
            return moved
        }
    }
}
