import CPoppler
import Foundation

/// The objects of one PDF file, found by scanning it (`PageHazards`).
final class ObjectReader {
    /// The file, mapped (not read into memory).
    private let bytes: Data
    /// Object number → where its value starts in the file.
    private var offsets: [Int: Int] = [:]
    /// Objects read out of object streams.
    private var compressed: [Int: PDFValue] = [:]
    private var cache: [Int: PDFValue] = [:]
    private(set) var pages: [(dict: [String: PDFValue], resources: [String: PDFValue])] = []

    /// Nil when the file cannot hold a hazard that this reader could find: it names no Type 3
    /// font, form, shading or JBIG2 stream (streams and their dictionaries are never in object
    /// streams; fonts and shadings may be).
    init?(path: String) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        bytes = data
        let plain = ["Type3", "/Form", "ShadingType", "JBIG2Decode"].contains { Self.find(Array($0.utf8), in: data, from: 0) != nil }
        guard plain || Self.find(Array("ObjStm".utf8), in: data, from: 0) != nil else { return nil }
        indexObjects()
        readObjectStreams()
        guard plain || compressed.values.contains(where: {
            if case let .dict(d) = $0 { d["Subtype"] == .name("Type3") || d["ShadingType"] != nil } else { false }
        }) else { return nil }
        collectPages()
    }

    /// Page `index`'s content (its streams joined), resources and content streams.
    func page(_ index: Int) -> (content: [UInt8], resources: [String: PDFValue], parts: [PDFValue])? {
        guard pages.indices.contains(index) else { return nil }
        let p = pages[index]
        let parts: [PDFValue] = switch p.dict["Contents"].map(resolve) {
        case let .array(a)?: a
        case .stream?: [p.dict["Contents"]!]
        default: []
        }
        return (parts.reduce(into: []) { $0 += (streamData($1) ?? []) + [0x0A] }, p.resources, parts)
    }

    /// Why a shading is not to be drawn (`PageHazards`), or nil.
    func shadingRefusal(_ shading: PDFValue) -> String? {
        let dict: [String: PDFValue]
        switch shading {
        case let .dict(d), let .stream(d, _): dict = d
        default: return nil
        }
        guard dict["ShadingType"].map(resolve) == .number(1) else { return nil }
        func numbers(_ key: String, _ fallback: [Double]) -> [Double] {
            guard case let .array(a)? = dict[key].map(resolve) else { return fallback }
            let n = a.compactMap { if case let .number(x) = resolve($0) { x } else { nil } }
            return n.count == fallback.count ? n : fallback
        }
        let m = numbers("Matrix", [1, 0, 0, 1, 0, 0]), domain = numbers("Domain", [0, 1, 0, 1])
        // The step poppler takes through the domain: the matrix's inverse applied to (10, 10).
        let det = m[0] * m[3] - m[1] * m[2]
        guard det != 0, det.isFinite else { return nil }
        let stepX = 10 * (m[3] - m[2]) / det, stepY = 10 * (m[0] - m[1]) / det
        guard stepX > 0, stepY > 0 else { return "not drawn: a function-based shading turned or mirrored by its matrix, which poppler never finishes" }
        let patches = ((domain[1] - domain[0]) / stepX).rounded(.up) * ((domain[3] - domain[2]) / stepY).rounded(.up)
        guard patches <= Double(PageHazards.maxPatches) else {
            return "not drawn: a function-based shading of more than \(PageHazards.maxPatches) pieces"
        }
        return nil
    }

    /// Why a JBIG2 stream is not to be decoded (its page larger than
    /// `PageHazards.maxJBIG2Pixels`), or nil; other streams nil.
    func jbig2Refusal(_ value: PDFValue) -> String? {
        guard let (dict, data) = rawStream(value) else { return nil }
        let filters: [PDFValue] = switch dict["Filter"].map(resolve) {
        case let .array(a)?: a.map(resolve)
        case let f?: [f]
        case nil: []
        }
        // Read when it is the only filter (a JBIG2 stream compressed again is not looked into).
        guard filters == [.name("JBIG2Decode")] else { return nil }
        guard let (w, h) = Self.jbig2PageSize(data), w * h > PageHazards.maxJBIG2Pixels else { return nil }
        return "not drawn: a JBIG2 image of \(w) × \(h) pixels, more than \(PageHazards.maxJBIG2Pixels)"
    }

    /// The page size a JBIG2 stream's page information segment gives (an unknown height, striped,
    /// as 1), from its first 64 segments; nil without one.
    static func jbig2PageSize(_ d: [UInt8]) -> (Int, Int)? {
        func be32(_ at: Int) -> Int? { at + 4 <= d.count ? d[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } : nil }
        var at = 0
        for _ in 0..<64 {
            guard let number = be32(at), at + 5 < d.count else { return nil }
            let flags = d[at + 4], referred = Int(d[at + 5] >> 5)
            // The long form of the referred-to count is not read.
            guard referred < 5 else { return nil }
            let referenceSize = number <= 256 ? 1 : number <= 65536 ? 2 : 4
            at += 6 + referred * referenceSize + (flags & 0x40 != 0 ? 4 : 1)
            guard let length = be32(at) else { return nil }
            at += 4
            if flags & 0x3F == 48 {
                guard let w = be32(at), let h = be32(at + 4) else { return nil }
                return (w, h == 0xFFFF_FFFF ? 1 : h)
            }
            guard length != 0xFFFF_FFFF else { return nil }
            at += length
        }
        return nil
    }

    /// `value` with an indirect reference followed (an unknown object is null).
    func resolve(_ value: PDFValue) -> PDFValue {
        guard case let .ref(n) = value else { return value }
        if let v = cache[n] { return v }
        var v = compressed[n] ?? .null
        if let at = offsets[n] {
            var p = Parser(bytes: bytes, at: at)
            v = p.value(allowStream: true) ?? .null
        }
        cache[n] = v
        return v
    }

    /// A stream's dictionary and its data as stored (at most 64 MiB), or nil.
    private func rawStream(_ value: PDFValue) -> ([String: PDFValue], [UInt8])? {
        guard case let .stream(dict, start) = resolve(value) else { return nil }
        var end: Int
        if case let .number(n)? = dict["Length"].map(resolve), n >= 0, start + Int(n) <= bytes.count {
            end = start + Int(n)
        } else {
            guard let e = Self.find(Array("endstream".utf8), in: bytes, from: start) else { return nil }
            end = e
        }
        end = max(start, end)
        // A content stream is never this large: a stream that is is not read.
        guard end - start <= 64 << 20 else { return nil }
        return (dict, [UInt8](bytes[start..<end]))
    }

    /// A stream's data, decoded (raw or Flate), or nil.
    func streamData(_ value: PDFValue) -> [UInt8]? {
        guard let (dict, raw) = rawStream(value) else { return nil }
        let filters: [PDFValue] = switch dict["Filter"].map(resolve) {
        case let .array(a)?: a
        case let f?: [f]
        case nil: []
        }
        switch filters {
        case []: return raw
        case [.name("FlateDecode")] where dict["DecodeParms"] == nil: return Self.inflate(raw, limit: 16 << 20)
        default: return nil
        }
    }

    private func indexObjects() {
        let obj = Array("obj".utf8)
        var from = 0
        while let at = Self.find(obj, in: bytes, from: from) {
            from = at + 3
            // "N G obj": digits, space, digits, space before it; a delimiter after.
            var i = at - 1
            func skipSpace() { while i >= 0, ParserBytes.isSpace(bytes[i]) { i -= 1 } }
            func digits() -> Int? {
                var value = 0, scale = 1, any = false
                while i >= 0, bytes[i] >= 0x30, bytes[i] <= 0x39, scale < 1_000_000_000 {
                    value += Int(bytes[i] - 0x30) * scale
                    scale *= 10
                    i -= 1
                    any = true
                }
                return any ? value : nil
            }
            guard i >= 0, ParserBytes.isSpace(bytes[i]) else { continue }
            skipSpace()
            guard digits() != nil, i >= 0, ParserBytes.isSpace(bytes[i]) else { continue }
            skipSpace()
            guard let number = digits(), i < 0 || ParserBytes.isSpace(bytes[i]) || ParserBytes.isDelimiter(bytes[i]) else { continue }
            guard from >= bytes.count || ParserBytes.isSpace(bytes[from]) || ParserBytes.isDelimiter(bytes[from]) else { continue }
            // A later definition (an incremental update) replaces an earlier one.
            offsets[number] = from
        }
    }

    private func readObjectStreams() {
        for n in offsets.keys.sorted() {
            guard case let .stream(dict, _) = resolve(.ref(n)), dict["Type"] == .name("ObjStm"),
                  case let .number(count)? = dict["N"], case let .number(first)? = dict["First"],
                  count >= 0, count < 1_000_000, let data = streamData(.ref(n)) else { continue }
            var header = Parser(bytes: data[...], at: 0)
            var entries: [(Int, Int)] = []
            for _ in 0..<Int(count) {
                guard case let .number(num)? = header.value(allowStream: false),
                      case let .number(off)? = header.value(allowStream: false) else { break }
                entries.append((Int(num), Int(off)))
            }
            for (num, off) in entries where offsets[num] == nil && compressed[num] == nil {
                let at = Int(first) + off
                guard at >= 0, at < data.count else { continue }
                var p = Parser(bytes: data[...], at: at)
                compressed[num] = p.value(allowStream: false)
            }
        }
    }

    /// The pages in order, each with the resources it has or inherits, from the catalog the
    /// trailer names (or the last catalog in the file).
    private func collectPages() {
        var root: PDFValue?
        if let t = Self.findLast(Array("trailer".utf8), in: bytes) {
            var p = Parser(bytes: bytes, at: t + 7)
            if case let .dict(d)? = p.value(allowStream: false) { root = d["Root"] }
        }
        if root == nil {
            root = (offsets.keys.sorted() + compressed.keys.sorted()).last { n in
                if case let .dict(d) = resolve(.ref(n)) { d["Type"] == .name("Catalog") } else { false }
            }.map(PDFValue.ref)
        }
        guard case let .dict(catalog)? = root.map(resolve), let tree = catalog["Pages"] else { return }
        var seen: Set<Int> = []
        func walk(_ node: PDFValue, inherited: [String: PDFValue], depth: Int) {
            guard depth < 64, pages.count < 1_000_000 else { return }
            if let n = node.refNumber, !seen.insert(n).inserted { return }
            guard case let .dict(d) = resolve(node) else { return }
            var resources = inherited
            if case let .dict(r) = d["Resources"].map(resolve) ?? .null { resources = r }
            if case let .array(kids)? = d["Kids"].map(resolve) {
                for kid in kids { walk(kid, inherited: resources, depth: depth + 1) }
            } else {
                pages.append((d, resources))
            }
        }
        walk(tree, inherited: [:], depth: 0)
    }

    static func find(_ needle: [UInt8], in hay: Data, from: Int) -> Int? {
        guard let first = needle.first, from >= 0 else { return nil }
        return hay.withUnsafeBytes { h -> Int? in
            var at = from
            while at + needle.count <= h.count {
                guard let hit = memchr(h.baseAddress! + at, Int32(first), h.count - at) else { return nil }
                at = UnsafeRawPointer(hit) - h.baseAddress!
                if at + needle.count <= h.count, needle.withUnsafeBytes({ memcmp(h.baseAddress! + at, $0.baseAddress!, needle.count) }) == 0 {
                    return at
                }
                at += 1
            }
            return nil
        }
    }

    private static func findLast(_ needle: [UInt8], in hay: Data) -> Int? {
        var last: Int?, from = 0
        while let at = find(needle, in: hay, from: from) {
            last = at
            from = at + 1
        }
        return last
    }

    /// `data` inflated (zlib), at most `limit` bytes of it; what came before an error.
    static func inflate(_ data: [UInt8], limit: Int) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = data
        input.withUnsafeMutableBufferPointer { inBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            while out.count < limit {
                let status = chunk.withUnsafeMutableBufferPointer { c in
                    stream.next_out = c.baseAddress
                    stream.avail_out = UInt32(c.count)
                    return CPoppler.inflate(&stream, Z_NO_FLUSH)
                }
                out += chunk[0..<(chunk.count - Int(stream.avail_out))]
                guard status == Z_OK else { break }
            }
        }
        return Array(out.prefix(limit))
    }
}

/// The resources a content stream uses, in order: fonts set (`Tf`), forms and images drawn
/// (`Do`), patterns filled or stroked with (`scn`, `SCN`), shadings painted (`sh`).
enum ContentUses {
    static func scan(_ content: [UInt8]) -> [(kind: String, name: String)] {
        var uses: [(String, String)] = []
        var p = Parser(bytes: content[...], at: 0)
        var names: [String] = []
        while let token = p.contentToken() {
            switch token {
            case let .name(n): names.append(n)
            case let .op(op):
                switch op {
                case "Tf": if let n = names.last { uses.append(("Font", n)) }
                case "Do": if let n = names.last { uses.append(("XObject", n)) }
                case "scn", "SCN": if let n = names.last { uses.append(("Pattern", n)) }
                case "sh": if let n = names.last { uses.append(("Shading", n)) }
                default: break
                }
                names.removeAll()
            case .other: break
            }
        }
        return uses
    }
}

/// PDF's white space and delimiters.
enum ParserBytes {
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x0C || c == 0 }
    static func isDelimiter(_ c: UInt8) -> Bool { "()<>[]{}/%".utf8.contains(c) }
}

/// A PDF tokenizer and object parser over bytes (the mapped file, or a stream's decoded data),
/// never reading past them.
struct Parser<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    let bytes: Bytes
    var i: Int

    init(bytes: Bytes, at: Int) {
        self.bytes = bytes
        i = bytes.startIndex + at
    }

    private var end: Int { bytes.endIndex }

    private mutating func skipSpace() {
        while i < end {
            if ParserBytes.isSpace(bytes[i]) { i += 1 } else if bytes[i] == 0x25 {  // % comment
                while i < end, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
            } else { return }
        }
    }

    private mutating func regular() -> String {
        let start = i
        while i < end, !ParserBytes.isSpace(bytes[i]), !ParserBytes.isDelimiter(bytes[i]) { i += 1 }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func name() -> String {
        i += 1
        var out: [UInt8] = []
        while i < end, !ParserBytes.isSpace(bytes[i]), !ParserBytes.isDelimiter(bytes[i]) {
            if bytes[i] == 0x23, i + 2 < end, let v = UInt8(String(decoding: bytes[i + 1...i + 2], as: UTF8.self), radix: 16) {
                out.append(v)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func skipString() {
        var depth = 0
        while i < end {
            let c = bytes[i]
            i += 1
            if c == 0x5C { i += 1 } else if c == 0x28 { depth += 1 } else if c == 0x29 {
                depth -= 1
                if depth == 0 { return }
            }
        }
    }

    private mutating func skipHex() {
        while i < end, bytes[i] != 0x3E { i += 1 }
        i += 1
    }

    /// The next object; with `allowStream`, a dictionary followed by `stream` is a stream.
    mutating func value(allowStream: Bool, depth: Int = 0) -> PDFValue? {
        guard depth < 64 else { return nil }
        skipSpace()
        guard i < end else { return nil }
        let c = bytes[i]
        switch c {
        case 0x2F: return .name(name())
        case 0x28:
            skipString()
            return .string
        case 0x5B:
            i += 1
            var items: [PDFValue] = []
            while true {
                skipSpace()
                guard i < end else { return .array(items) }
                if bytes[i] == 0x5D {
                    i += 1
                    return .array(items)
                }
                guard let v = value(allowStream: false, depth: depth + 1) else { return .array(items) }
                items.append(v)
            }
        case 0x3C where i + 1 < end && bytes[i + 1] == 0x3C:
            i += 2
            var dict: [String: PDFValue] = [:]
            while true {
                skipSpace()
                guard i < end else { return .dict(dict) }
                if bytes[i] == 0x3E {
                    i += 2
                    break
                }
                guard bytes[i] == 0x2F else {
                    // Not a key: step over whatever it is.
                    if value(allowStream: false, depth: depth + 1) == nil { return .dict(dict) }
                    continue
                }
                let key = name()
                dict[key] = value(allowStream: false, depth: depth + 1) ?? .null
            }
            guard allowStream else { return .dict(dict) }
            let save = i
            skipSpace()
            if i + 6 <= end, Array(bytes[i..<i + 6]) == Array("stream".utf8) {
                i += 6
                if i < end, bytes[i] == 0x0D { i += 1 }
                if i < end, bytes[i] == 0x0A { i += 1 }
                return .stream(dict, i)
            }
            i = save
            return .dict(dict)
        case 0x3C:
            skipHex()
            return .string
        default:
            let word = regular()
            if word.isEmpty {
                i += 1
                return .null
            }
            if word == "true" || word == "false" { return .bool(word == "true") }
            // Bounded, so that any number converts to Int (and "nan", "inf" are no numbers).
            guard word.utf8.allSatisfy({ "0123456789+-.".utf8.contains($0) }), let n = Double(word), abs(n) < 1e15 else { return .null }
            // "N G R": an indirect reference.
            let save = i
            if n >= 0, n == n.rounded() {
                skipSpace()
                let g = regular()
                skipSpace()
                if Int(g) != nil, i < end, bytes[i] == 0x52, i + 1 >= end || ParserBytes.isSpace(bytes[i + 1]) || ParserBytes.isDelimiter(bytes[i + 1]) {
                    i += 1
                    return .ref(Int(n))
                }
            }
            i = save
            return .number(n)
        }
    }

    enum ContentToken { case name(String), op(String), other }

    /// The next token of a content stream; inline images and strings stepped over.
    mutating func contentToken() -> ContentToken? {
        skipSpace()
        guard i < end else { return nil }
        switch bytes[i] {
        case 0x2F: return .name(name())
        case 0x28: skipString()
        case 0x3C where i + 1 < end && bytes[i + 1] == 0x3C: i += 2
        case 0x3E where i + 1 < end && bytes[i + 1] == 0x3E: i += 2
        case 0x3C: skipHex()
        case 0x5B, 0x5D, 0x7B, 0x7D: i += 1
        default:
            let word = regular()
            if word.isEmpty {
                i += 1
                return .other
            }
            if word == "ID" {
                // Inline image data up to "EI" standing alone.
                while i + 2 < end, !(ParserBytes.isSpace(bytes[i]) && bytes[i + 1] == 0x45 && bytes[i + 2] == 0x49
                    && (i + 3 >= end || ParserBytes.isSpace(bytes[i + 3]))) { i += 1 }
                i += 3
                return .other
            }
            if let f = word.utf8.first, (f >= 0x30 && f <= 0x39) || f == 0x2D || f == 0x2B || f == 0x2E { return .other }
            return .op(word)
        }
        return .other
    }
}
