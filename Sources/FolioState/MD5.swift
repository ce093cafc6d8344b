import Foundation

/// MD5 (RFC 1321), for `BookIdentity`'s partial hash, as KOReader's `partial_md5_checksum` is
/// made. Not for security: a book's identity needs no defence against someone forging a
/// collision with their own book.
struct MD5 {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    /// floor(|sin(i + 1)| · 2³²).
    private static let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }

    mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        var start = 0
        while pending.count - start >= 64 {
            block(pending[start..<start + 64])
            start += 64
        }
        pending.removeFirst(start)
    }

    /// The digest as 32 lowercase hex digits.
    mutating func hex() -> String {
        let bits = length &* 8
        update([0x80] + [UInt8](repeating: 0, count: (55 - Int(length % 64) + 64) % 64))
        update((0..<8).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) })
        return [state.0, state.1, state.2, state.3].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
            .map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    private mutating func block(_ chunk: ArraySlice<UInt8>) {
        let base = chunk.startIndex
        let m = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 | UInt32(chunk[base + 4 * i + $1]) << (8 * $1) } }
        var (a, b, c, d) = state
        for i in 0..<64 {
            var f: UInt32, g: Int
            switch i {
            case 0..<16: (f, g) = ((b & c) | (~b & d), i)
            case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * i + 1) % 16)
            case 32..<48: (f, g) = (b ^ c ^ d, (3 * i + 5) % 16)
            default: (f, g) = (c ^ (b | ~d), (7 * i) % 16)
            }
            f = f &+ a &+ Self.constants[i] &+ m[g]
            (a, d, c) = (d, c, b)
            b = b &+ (f << Self.shifts[i] | f >> (32 - Self.shifts[i]))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
