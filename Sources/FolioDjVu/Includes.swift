import CDjVu
import FolioBook
import Foundation
import Glibc

/// Which component files include which (their INCL chunks), read from the chunk headers before
/// djvulibre decodes any page: djvulibre follows inclusions recursively, so files that include
/// each other in a cycle take it down (a stack overflow), and an indirect document's inclusion
/// of a file its directory does not list would open that file by name.
enum DjVuIncludes {
    /// Inclusions deeper than this refuse the document (real ones are one level: shared
    /// annotations).
    static let maxIncludeDepth = 32

    /// Refuses a document whose component files include each other in a cycle, more than
    /// `maxIncludeDepth` deep, or a file its directory does not list.
    static func check(_ document: OpaquePointer, _ files: [DjVuExpressions.Component], path: String) throws {
        let type = ddjvu_document_get_type(document)
        let folder = (path as NSString).deletingLastPathComponent
        var includes: [String: [String]] = [:]
        if type == DDJVU_DOCTYPE_BUNDLED {
            let fd = try InputFile.open(path)
            defer { close(fd) }
            let file = ChunkReader(fd: fd)
            // The directory (DIRM) of a bundled document gives each component's offset, in order.
            guard let dirm = file.bytes(12, 15), dirm[4..<8].elementsEqual("DIRM".utf8),
                  Int(dirm[13]) << 8 | Int(dirm[14]) == files.count,
                  let offsets = file.bytes(27, 4 * files.count) else { return }
            for (i, component) in files.enumerated() { includes[component.id] = file.includes(at: Int(ChunkReader.be32(offsets, 4 * i))) }
        } else if type == DDJVU_DOCTYPE_INDIRECT {
            for component in files {
                let name = folder.isEmpty ? component.name : folder + "/" + component.name
                // Checked with `stat` before it is opened (a FIFO would block djvulibre's read).
                let fd: Int32
                do {
                    fd = try InputFile.open(name)
                } catch where error.kind == .notAFile {
                    throw PageError.invalid(path: path, message: "component file \"\(component.name)\" \(error.reason): not opened")
                } catch {
                    continue  // missing: its page says so
                }
                includes[component.id] = ChunkReader(fd: fd).includes(at: 0)
                close(fd)
            }
        } else {
            return
        }
        try checkGraph(includes, path: path)
    }

    /// Walks the inclusions from every component (depth first, without recursion).
    private static func checkGraph(_ includes: [String: [String]], path: String) throws {
        enum State { case onPath, done }
        var state: [String: State] = [:]
        for root in includes.keys.sorted() where state[root] == nil {
            var stack: [(id: String, next: Int)] = [(root, 0)]
            state[root] = .onPath
            while let top = stack.last {
                let children = includes[top.id] ?? []
                guard top.next < children.count else {
                    state[top.id] = .done
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let child = children[top.next]
                guard includes[child] != nil else {
                    throw PageError.invalid(path: path, message: "component \"\(top.id)\" includes \"\(child)\", which the document does not list: not opened")
                }
                switch state[child] {
                case .onPath:
                    let cycle = stack.drop { $0.id != child }.map(\.id) + [child]
                    throw PageError.invalid(path: path, message: "its component files include each other in a cycle (\(cycle.joined(separator: " → "))): not opened")
                case .done:
                    continue
                case nil:
                    guard stack.count < maxIncludeDepth else {
                        throw PageError.invalid(path: path, message: "its component files include each other more than \(maxIncludeDepth) deep: not opened")
                    }
                    state[child] = .onPath
                    stack.append((child, 0))
                }
            }
        }
    }
}

/// Reads the chunk headers of an IFF file (DjVu's container) with `pread`, bounded.
private struct ChunkReader {
    let fd: Int32

    func bytes(_ offset: Int, _ count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        var b = [UInt8](repeating: 0, count: count)
        let n = b.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return n == count ? b : nil
    }

    static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    /// The ids the INCL chunks of the FORM at `offset` name ("AT&T" before it passed over).
    func includes(at offset: Int) -> [String] {
        var at = offset
        if let magic = bytes(at, 4), magic.elementsEqual("AT&T".utf8) { at += 4 }
        guard let head = bytes(at, 12), head[0..<4].elementsEqual("FORM".utf8) else { return [] }
        let end = at + 8 + Int(Self.be32(head, 4))
        var p = at + 12, ids: [String] = [], chunks = 0
        while p + 8 <= end, chunks < 100_000, let h = bytes(p, 8) {
            let size = Int(Self.be32(h, 4))
            if h[0..<4].elementsEqual("INCL".utf8), size <= 4096, let id = bytes(p + 8, size) {
                ids.append(String(decoding: id, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters)))
            }
            p += 8 + size + (size & 1)
            chunks += 1
        }
        return ids
    }
}
