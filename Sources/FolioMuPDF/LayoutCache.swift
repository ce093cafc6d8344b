import FolioBook
import Foundation

/// The page counts of EPUB layouts made before, kept between runs: a long book opens again
/// without being laid out to count its pages (the Mahabharata: 9 s to count 6,069 pages, then
/// none). One file per book and layout, named by a hash of what the counts depend on and holding
/// that text whole before the counts (a hash that collides reads as a miss): the book file's
/// identity (device, inode, size, modification and change times), the program's own file (a new
/// build prepares books anew), the typography, the page shape and the text size. The counts
/// are MuPDF's own (its EPUB "accelerator"), which it keeps only for the page box, text size and
/// stylesheet they were counted for; the bridge checks their form before MuPDF reads them.
///
/// It is no source of truth: a file missing, unreadable, foreign or stale costs a layout. It
/// does not keep what a page shows, nor anything of books other than EPUBs.
public struct LayoutCache: Sendable {
    /// The folder holding the files (made when the first is written).
    public let folder: String

    /// Counts are written below this size and read only up to it: a book has at most
    /// `folio_mu_max_spine` chapters of four bytes, and its key is short.
    static let largestFile = 64 << 10
    /// Files kept; the oldest beyond these are removed when one is written.
    static let filesKept = 256

    public init(folder: String) { self.folder = folder }

    /// `$XDG_CACHE_HOME/folio/layouts` (`~/.cache/folio/layouts`).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> LayoutCache {
        LayoutCache(folder: folder("layouts", environment: environment))
    }

    /// Folio's folder `name` of what it keeps between runs: `$XDG_CACHE_HOME/folio/name`
    /// (`~/.cache/folio/name`).
    public static func folder(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return base + "/folio/" + name
    }

    /// What the counts of `path`'s layout depend on, or nil when the file cannot be looked at.
    static func key(path: String, typography: Typography, pageAspect: Double, fontSize: Double) -> String? {
        var book = stat(), program = stat()
        guard stat(FileName.bytes(path), &book) == 0, stat("/proc/self/exe", &program) == 0 else { return nil }
        func identity(_ s: stat) -> String {
            "\(s.st_dev):\(s.st_ino):\(s.st_size):\(s.st_mtim.tv_sec).\(s.st_mtim.tv_nsec):\(s.st_ctim.tv_sec).\(s.st_ctim.tv_nsec)"
        }
        return "folio layout 1\nbook \(identity(book))\nprogram \(identity(program))\n\(typography)\naspect \(pageAspect.bitPattern) size \(fontSize.bitPattern)\n"
    }

    /// The file holding `key`'s counts.
    private func file(_ key: String) -> String {
        // FNV-1a, 64 bits: names spread over the folder; the key inside tells collisions apart.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return folder + "/" + String(hash, radix: 16) + ".counts"
    }

    /// The counts kept for `key`, or nil.
    func read(_ key: String) -> [UInt8]? {
        let fd = open(file(key), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0, st.st_size <= Self.largestFile else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let got = bytes.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
        let head = Array(key.utf8)
        guard got == bytes.count, bytes.count > head.count, bytes.starts(with: head) else { return nil }
        return Array(bytes[head.count...])
    }

    /// Keeps `counts` for `key`, whole or not at all: written to a new file beside it and renamed
    /// over it (a link in its place is replaced, never followed). The oldest files beyond
    /// `filesKept` are removed. Failures are silent: the next run lays out again.
    func write(_ counts: [UInt8], for key: String) {
        let bytes = Array(key.utf8) + counts
        guard bytes.count <= Self.largestFile, (try? OutputFile.makeFolder(folder)) != nil else { return }
        OutputFile.removeLeftovers(in: folder)
        var template = Array(OutputFile.temporaryName(in: folder, kind: "counts-").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return }
        let target = file(key), aside = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let closed = close(fd) == 0
        guard written == bytes.count, closed, rename(aside, target) == 0 else {
            unlink(aside)
            return
        }
        prune()
    }

    /// Removes the least recently written files beyond `filesKept`.
    private func prune() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder), names.count > Self.filesKept else { return }
        let dated = names.filter { $0.hasSuffix(".counts") }.compactMap { name -> (String, Int)? in
            var st = stat()
            return lstat(folder + "/" + name, &st) == 0 ? (name, st.st_mtim.tv_sec) : nil
        }
        for (name, _) in dated.sorted(by: { $0.1 < $1.1 }).dropLast(Self.filesKept) { unlink(folder + "/" + name) }
    }
}
