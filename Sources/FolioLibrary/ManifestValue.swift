import Foundation

/// A parsed manifest value and the line it starts on, so that a wrong field can be reported
/// as `file:line`. JSON is parsed here (Foundation's parser reports no positions); plists go
/// through `PropertyListSerialization`, which reports none either, so their lines are nil.
struct ManifestValue: Equatable {
    enum Kind: Equatable {
        /// Members in file order; for plists, in key order.
        case object([(key: String, value: ManifestValue)])
        case array([ManifestValue])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null

        static func == (a: Kind, b: Kind) -> Bool {
            switch (a, b) {
            case let (.object(x), .object(y)): return x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
            case let (.array(x), .array(y)): return x == y
            case let (.string(x), .string(y)): return x == y
            case let (.number(x), .number(y)): return x == y
            case let (.bool(x), .bool(y)): return x == y
            case (.null, .null): return true
            default: return false
            }
        }
    }

    var kind: Kind
    var line: Int?

    /// The member named `key` of an object (the last one if repeated, as JSON parsers do).
    subscript(key: String) -> ManifestValue? {
        guard case let .object(members) = kind else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// What the value is, in words for an error message.
    var typeName: String {
        switch kind {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// A manifest that does not parse, with the position of the first error (line is nil when
/// the parser does not say).
struct ManifestSyntaxError: Error, Equatable {
    var line: Int?
    var column: Int?
    var message: String
}

extension ManifestValue {
    /// Parses a JSON or XML/binary plist manifest, telling them apart by their first bytes.
    static func parse(_ data: [UInt8]) throws -> ManifestValue {
        let start = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if start == UInt8(ascii: "<") || data.starts(with: Array("bplist".utf8)) { return try parsePlist(data) }
        var parser = JSONParser(bytes: data)
        return try parser.parseDocument()
    }

    static func parsePlist(_ data: [UInt8]) throws -> ManifestValue {
        if data.starts(with: Array("bplist".utf8)) { try checkBinaryPlist(data) }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(data), options: [], format: nil)
        } catch {
            let nsError = error as NSError
            let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            throw ManifestSyntaxError(line: nil, column: nil, message: "not a valid property list: \(detail)")
        }
        return ManifestValue(plist: object)
    }

    /// Refuses binary plists holding objects no manifest has. Foundation on Linux crashes
    /// turning a set (marker 0xC_) into Swift values, so every object the offset table names is
    /// looked at first; anything this cannot read is left to Foundation's own checks.
    static func checkBinaryPlist(_ data: [UInt8]) throws {
        guard data.count >= 40 else { return }
        let trailer = data.count - 32
        func int(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at + size <= data.count else { return nil }
            let v = data[at..<at + size].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return v <= UInt64(Int.max) ? Int(v) : nil
        }
        guard let offsetSize = int(trailer + 6, 1), let count = int(trailer + 8, 8), let table = int(trailer + 24, 8),
              count <= data.count, table < data.count else { return }
        // Null, booleans, integers, reals, dates, data, strings, arrays and dictionaries.
        let known: Set<UInt8> = [0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0xA, 0xD]
        for i in 0..<count {
            guard let offset = int(table + i * offsetSize, offsetSize), offset < data.count else { return }
            let marker = data[offset] >> 4
            guard known.contains(marker) else {
                throw ManifestSyntaxError(line: nil, column: nil,
                                          message: "not a valid property list: object \(i) has type 0x\(String(marker, radix: 16, uppercase: true)), which no manifest uses")
            }
        }
    }

    init(plist: Any) {
        switch plist {
        case let d as [String: Any]:
            kind = .object(d.keys.sorted().map { ($0, ManifestValue(plist: d[$0]!)) })
        case let a as [Any]:
            kind = .array(a.map(ManifestValue.init(plist:)))
        case let s as String:
            kind = .string(s)
        case let b as Bool where type(of: plist) == Bool.self:
            kind = .bool(b)
        case let n as NSNumber:
            kind = .number(n.doubleValue)
        case let d as Date:
            kind = .string(ISO8601DateFormatter().string(from: d))
        default:
            kind = .null  // <data> has no meaning in a manifest; reported as a wrong type
        }
        line = nil
    }
}

/// A small strict JSON parser (RFC 8259) that records the line of every value.
struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is not JSON, but editors write it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3; lineStart = 3 }
    }

    mutating func parseDocument() throws -> ManifestValue {
        skipSpace()
        guard i < bytes.count else { throw error("the file is empty") }
        let v = try value(depth: 0)
        skipSpace()
        guard i == bytes.count else { throw error("unexpected \(describe(bytes[i])) after the end of the document") }
        return v
    }

    func error(_ message: String) -> ManifestSyntaxError {
        ManifestSyntaxError(line: line, column: i - lineStart + 1, message: message)
    }

    func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : String(format: "byte 0x%02X", b)
    }

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x0A: line += 1; i += 1; lineStart = i
            case 0x20, 0x09, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func expect(_ c: Character, _ context: String) throws {
        skipSpace()
        guard i < bytes.count else { throw error("the file ends \(context): expected '\(c)'") }
        guard bytes[i] == c.asciiValue! else { throw error("expected '\(c)' \(context), found \(describe(bytes[i]))") }
        i += 1
    }

    mutating func value(depth: Int) throws -> ManifestValue {
        skipSpace()
        guard i < bytes.count else { throw error("the file ends where a value was expected") }
        // Deep nesting is never a manifest; refuse it before it exhausts the stack.
        guard depth < 256 else { throw error("nested too deeply") }
        let at = line
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(key: String, value: ManifestValue)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return ManifestValue(kind: .object(members), line: at) }
            repeat {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    throw i < bytes.count ? error("expected a member name in quotes, found \(describe(bytes[i]))")
                                          : error("the file ends inside an object")
                }
                let key = try string()
                try expect(":", "after the member name \"\(key)\"")
                members.append((key, try value(depth: depth + 1)))
            } while try separator(close: "}", what: "an object")
            return ManifestValue(kind: .object(members), line: at)
        case UInt8(ascii: "["):
            i += 1
            var items: [ManifestValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return ManifestValue(kind: .array(items), line: at) }
            repeat { items.append(try value(depth: depth + 1)) } while try separator(close: "]", what: "an array")
            return ManifestValue(kind: .array(items), line: at)
        case UInt8(ascii: "\""):
            return ManifestValue(kind: .string(try string()), line: at)
        case UInt8(ascii: "t"): try literal("true"); return ManifestValue(kind: .bool(true), line: at)
        case UInt8(ascii: "f"): try literal("false"); return ManifestValue(kind: .bool(false), line: at)
        case UInt8(ascii: "n"): try literal("null"); return ManifestValue(kind: .null, line: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return ManifestValue(kind: .number(try number()), line: at)
        default:
            throw error("unexpected \(describe(bytes[i])) where a value was expected")
        }
    }

    /// After an item: true on ',', false on the closing bracket.
    mutating func separator(close: Character, what: String) throws -> Bool {
        skipSpace()
        guard i < bytes.count else { throw error("the file ends inside \(what): expected ',' or '\(close)'") }
        if bytes[i] == UInt8(ascii: ",") { i += 1; return true }
        if bytes[i] == close.asciiValue! { i += 1; return false }
        throw error("expected ',' or '\(close)' in \(what), found \(describe(bytes[i]))")
    }

    mutating func literal(_ word: String) throws {
        let w = Array(word.utf8)
        guard bytes.count - i >= w.count, bytes[i..<i + w.count].elementsEqual(w) else {
            throw error("unexpected \(describe(bytes[i])) where a value was expected")
        }
        i += w.count
    }

    mutating func number() throws -> Double {
        let start = i
        func digits() -> Int {
            let s = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            return i - s
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        let intStart = i
        guard digits() > 0 else { throw error("a number needs digits") }
        guard bytes[intStart] != 0x30 || i - intStart == 1 else { i = intStart; throw error("numbers may not start with 0") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw error("a number needs digits after '.'") }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        return Double(String(decoding: bytes[start..<i], as: UTF8.self))!
    }

    mutating func string() throws -> String {
        i += 1  // opening quote
        var out = [UInt8]()
        while true {
            guard i < bytes.count else { throw error("the file ends inside a string") }
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw error("the file ends inside a string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), bytes.count - i >= 6,
                       bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair in \\u escape") }
                        scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    i -= 1
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string")
                }
            case 0x0A:
                i -= 1
                throw error("a string is not closed before the end of the line")
            case 0..<0x20:
                i -= 1
                throw error("control character in a string (write it as an escape)")
            default:
                out.append(b)
            }
        }
    }

    mutating func hex4() throws -> UInt32 {
        guard bytes.count - i >= 4, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
            throw error("a \\u escape needs four hex digits")
        }
        i += 4
        return v
    }
}
