import CZlib
import FolioBook
import Foundation

/// One small entry of a ZIP file (an EPUB's container or package document) found through the
/// central directory at the file's end: a few reads whatever the file's size. Every offset and
/// length is checked against the file, and an entry is read only up to `maxBytes`; anything
/// else (not a ZIP, an entry missing, stored in another way, too large) is nil.
enum ZipEntry {
    /// Entries larger than this are not what names a book.
    static let maxBytes = 1 << 20

    static func read(_ name: String, from file: RandomAccessFile) -> [UInt8]? {
        guard let (offset, method, packed, size) = find(Array(name.utf8), in: file), size <= maxBytes, packed <= maxBytes,
              let local = file.read(at: offset, count: 30), local.count == 30, u32(local, 0) == 0x0403_4b50 else { return nil }
        let start = offset + 30 + Int(u16(local, 26)) + Int(u16(local, 28))
        guard let data = file.read(at: start, count: packed), data.count == packed else { return nil }
        switch method {
        case 0: return size == packed ? data : nil
        case 8: return inflate(data, size: size)
        default: return nil
        }
    }

    /// The entry's local header offset, method and sizes, from the central directory.
    private static func find(_ name: [UInt8], in file: RandomAccessFile) -> (Int, UInt16, Int, Int)? {
        // The end record is in the last 22 bytes plus a comment of at most 65,535.
        let tailStart = max(0, file.size - 22 - 65_535)
        guard let tail = file.read(at: tailStart, count: file.size - tailStart), tail.count >= 22,
              let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { u32(tail, $0) == 0x0605_4b50 }) else { return nil }
        let entries = Int(u16(tail, end + 10)), length = Int(u32(tail, end + 12)), start = Int(u32(tail, end + 16))
        guard length <= 16 << 20, start + length <= file.size, let directory = file.read(at: start, count: length),
              directory.count == length else { return nil }
        var at = 0
        for _ in 0..<entries {
            guard at + 46 <= directory.count, u32(directory, at) == 0x0201_4b50 else { return nil }
            let nameLength = Int(u16(directory, at + 28)), extra = Int(u16(directory, at + 30)), comment = Int(u16(directory, at + 32))
            guard at + 46 + nameLength <= directory.count else { return nil }
            if directory[(at + 46)..<(at + 46 + nameLength)].elementsEqual(name) {
                return (Int(u32(directory, at + 42)), u16(directory, at + 10), Int(u32(directory, at + 20)), Int(u32(directory, at + 24)))
            }
            at += 46 + nameLength + extra + comment
        }
        return nil
    }

    /// Raw deflate data of an entry, inflated to the `size` its directory says.
    private static func inflate(_ data: [UInt8], size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = data
        let status = input.withUnsafeMutableBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        return status == Z_STREAM_END && Int(stream.total_out) == size ? out : nil
    }

    private static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    private static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) | UInt32(u16(b, i + 2)) << 16 }
}

/// A regular file opened for reads at offsets (`InputFile.open`: never a FIFO or a device).
final class RandomAccessFile {
    let size: Int
    private let fd: Int32

    init(_ path: String) throws(FileError) {
        fd = try InputFile.open(path)
        var st = stat()
        _ = fstat(fd, &st)
        size = Int(st.st_size)
    }

    deinit { close(fd) }

    /// Up to `count` bytes at `offset` (fewer at the end); nil when the read fails.
    func read(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: max(0, min(count, size - offset)))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(offset + filled)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            filled += n
        }
        return Array(bytes[0..<filled])
    }
}
