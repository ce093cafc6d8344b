import FolioBook
import Foundation

/// One job of `folio batch`: a document, what to render of it (a still, a recording's frames,
/// a video) and where to, as the command line of `folio capture` or `folio record` that does
/// the same.
///
/// A job is a JSON object: the key `capture`, `record` or `video` names the kind and holds the
/// output path; `source` the document; every other key is an option of that command (`"page": 4`
/// is `--page=4`, `"vertical": true` is `--vertical`, false leaves a flag out).
///
/// Does not: render, or check that the options make sense (the command's own parser does, so a
/// job accepts exactly what its command does).
struct BatchJob {
    enum Kind: String, CaseIterable {
        case capture, record, video
    }

    /// The text that names the job: its shard is a hash of it.
    var identity: String
    var kind: Kind
    var output: String
    /// The command's arguments, output and source included.
    var arguments: [String]

    /// Options a job may not set: the batch decides them.
    static let reserved: Set<String> = ["output", "o", "force", "quiet", "q", "help", "h", "version"]

    /// A JSON value of a job: what an option can be given as.
    enum Value: Decodable, Equatable, CustomStringConvertible {
        case flag(Bool)
        case text(String)

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) { self = .flag(b) }
            else if let i = try? c.decode(Int.self) { self = .text(String(i)) }
            else if let d = try? c.decode(Double.self) { self = .text(String(d)) }
            else { self = .text(try c.decode(String.self)) }
        }

        var text: String? { if case let .text(t) = self { t } else { nil } }
        var description: String { text ?? (self == .flag(true) ? "true" : "false") }
    }

    /// Why a job cannot be made from what was given: one line.
    struct Invalid: Error { var message: String }

    /// The job `object` describes, with its strings' `{name}`, `{file}` and `{source}` replaced
    /// for `document` when it comes from a template.
    init(_ object: [String: Value], document: String? = nil) throws(Invalid) {
        var fields = object
        if let document {
            let file = (document as NSString).lastPathComponent
            let name = (file as NSString).deletingPathExtension
            let values = ["{name}": name, "{file}": file, "{source}": document]
            for (key, value) in fields {
                guard var t = value.text else { continue }
                for (k, v) in values { t = t.replacingOccurrences(of: k, with: v) }
                fields[key] = .text(t)
            }
            if fields["source"] == nil { fields["source"] = .text(document) }
        }
        let kinds = Kind.allCases.filter { fields[$0.rawValue] != nil }
        guard kinds.count == 1, let kind = kinds.first else {
            throw Invalid(message: "a job names one of capture, record or video with its output path (\(kinds.count) given)")
        }
        guard let output = fields[kind.rawValue]?.text, !output.isEmpty else {
            throw Invalid(message: "\"\(kind.rawValue)\" wants the output path as a string")
        }
        self.kind = kind
        self.output = output
        // The canonical text: the same job names itself the same way from a jobs line or a template.
        identity = fields.keys.sorted().map { "\($0)=\(fields[$0]!)" }.joined(separator: "\u{1F}")
        var arguments = kind == .capture ? ["-o", output] : kind == .record ? ["-o", output, "--quiet"] : ["--video", output, "--quiet"]
        var source: String?
        for key in fields.keys.sorted() where key != kind.rawValue {
            let value = fields[key]!
            if key == "source" {
                guard let path = value.text else { throw Invalid(message: "\"source\" wants a path as a string") }
                source = path
                continue
            }
            guard key.wholeMatch(of: /[a-z][a-z0-9-]*/) != nil, !Self.reserved.contains(key), Kind(rawValue: key) == nil else {
                throw Invalid(message: "\"\(key)\" is not an option a job can set")
            }
            switch value {
            case .flag(true): arguments.append("--\(key)")
            case .flag(false): break
            case let .text(t): arguments.append("--\(key)=\(t)")
            }
        }
        // After "--", a source that starts with "-" is still a path.
        if let source { arguments += ["--", source] }
        self.arguments = arguments
    }

    /// The jobs of a JSON-lines text: one object a line; blank lines and lines starting with
    /// '#' are left out. A line that is no job is kept with its reason, to be reported in its turn.
    static func parse(lines text: String, name: String) -> [Entry] {
        var entries: [Entry] = []
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            entries.append(Entry(origin: "\(name):\(i + 1)", given: trimmed) { () throws(Invalid) in
                guard let object = object(trimmed) else { throw Invalid(message: "not a JSON object of strings, numbers and booleans") }
                return try BatchJob(object)
            })
        }
        return entries
    }

    /// The JSON object `text` holds, if it is one whose values are strings, numbers and booleans.
    static func object(_ text: String) -> [String: Value]? {
        try? JSONDecoder().decode([String: Value].self, from: Data(text.utf8))
    }

    /// Which of `count` shards `identity` belongs to: FNV-1a of its bytes, so a job keeps its
    /// shard whatever comes before or after it, and adding jobs moves none of the others.
    static func shard(of identity: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identity.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }
}

extension BatchJob {
    /// A job as given, or why what was given is none.
    struct Entry {
        /// Where it was given, for the result line: "jobs.jsonl:3", or a template's number and the document.
        var origin: String
        /// What its shard is a hash of.
        var identity: String
        var job: Result<BatchJob, Invalid>

        /// The job `make` makes; named by what was `given` when it fails.
        init(origin: String, given: String, make: () throws(Invalid) -> BatchJob) {
            self.origin = origin
            job = Result(catching: make)
            identity = (try? job.get())?.identity ?? given
        }
    }
}
