import ArgumentParser
import FolioBook
import FolioKit
import Foundation

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render stills, recordings and videos of many documents in one process, resumably.",
        discussion: """
            JOBS: one JSON object a line ('#' starts a comment line). The key capture, record or \
            video names what to make and holds its output path; source names the document; every \
            other key is an option of `folio capture` (capture) or `folio record` (record: -o DIR, \
            video: --video FILE), "page": 4 for --page=4, "vertical": true for --vertical:
              {"source": "a.pdf", "capture": "out/a-cover.png", "size": "640x360"}
              {"source": "a.pdf", "capture": "out/a-spread.png", "book": 0, "page": 4}
              {"source": "a.pdf", "video": "out/a.mp4", "script": "open; next 2", "size": "640x360"}
            Or --folder DIR with --template JOB (repeatable): each document of DIR gets each \
            template, its strings' {name} (file name without extension), {file} and {source} \
            replaced.

            One line per job on standard output, as it ends: \
            {"job":"jobs.jsonl:3","output":"…","status":"ok"}; "skipped" when its output is \
            already complete (a PNG ending in its IEND chunk; a recording's every frame; a video \
            ffprobe reads with every frame), so a stopped batch run again goes on where it \
            stopped; "failed" with a one-line "reason". A broken document fails its jobs only. \
            An incomplete output of an earlier run is replaced; a file of another kind in a \
            capture's place is kept (the job fails).

            --shard K/N runs the jobs whose hash falls in shard K of N: run N shards anywhere \
            (GNU parallel, a Slurm array, a Kubernetes Indexed Job) and every job runs once.

            Exit status: 0 when every job is ok or skipped, 1 when any failed, 130 when \
            interrupted (the job in flight is left for a later run).
            """)

    @Argument(help: "The jobs file (JSON lines).")
    var jobs: String?

    @Option(help: ArgumentHelp("A folder whose documents (and folders of images) each get every --template job.", valueName: "dir"))
    var folder: String?

    @Option(help: ArgumentHelp("A job for each document of --folder (repeatable).", valueName: "json"))
    var template: [String] = []

    @Option(help: ArgumentHelp("Run only the jobs of shard K of N (0 ≤ K < N), split by a hash of each job.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Stop after N jobs have run (ok or failed); a later run goes on from there.", valueName: "N"))
    var limit: Int?

    @Flag(help: "Render every job again, complete outputs too.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress line.")
    var quiet = false

    /// Jobs files larger than this are refused (some millions of jobs).
    static let maxJobsBytes = 256 << 20

    func validate() throws {
        guard (jobs == nil) != (folder == nil) else { throw ValidationError("give a JOBS file or --folder DIR, not both") }
        guard (folder == nil) == template.isEmpty else { throw ValidationError("--folder and --template go together") }
        _ = try shards()
        _ = try templates()
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more (got \(limit))") }
    }

    func run() throws {
        var entries = try entries()
        try Self.checkOutputs(entries, usage: jobs == nil)
        if let (k, n) = try shards() { entries = entries.filter { BatchJob.shard(of: $0.identity, count: n) == k } }
        Interrupt.catchSignals(notice: "interrupted; stopping the job in flight")
        let runner = BatchRunner(force: force)
        defer { runner.finish() }
        let progress = ProgressLine("folio batch", unit: "jobs", total: entries.count, quiet: quiet)
        defer { progress.finish() }
        var (ran, failed) = (0, 0)
        for entry in entries {
            if let limit, ran >= limit { break }
            let stopped = Failure(.interrupted, "interrupted; \(entry.origin) and the jobs after it are left for a later run")
            if Interrupt.requested { throw stopped }
            let outcome: BatchRunner.Outcome
            switch entry.job {
            case let .success(job): outcome = runner.run(job)
            case let .failure(invalid): outcome = .failed(invalid.message)
            }
            // A job the interrupt stopped is not done: it is not reported, and runs next time.
            if Interrupt.requested, case .failed = outcome { throw stopped }
            if outcome != .skipped { ran += 1 }
            if case .failed = outcome { failed += 1 }
            progress.finish()
            print(ResultLine(entry, outcome).text)
            fflush(nil)
            progress.advance()
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// The result line of a job.
    struct ResultLine: Encodable {
        var job: String
        var output: String?
        var status: String
        var reason: String?

        init(_ entry: BatchJob.Entry, _ outcome: BatchRunner.Outcome) {
            job = entry.origin
            output = try? entry.job.get().output
            switch outcome {
            case .ok: status = "ok"
            case .skipped: status = "skipped"
            case let .failed(why): (status, reason) = ("failed", why)
            }
        }

        var text: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(self)).map(printableJSON) ?? "{}"
        }
    }

    /// Refuses, before any job runs, jobs that would write one output (two documents of one name
    /// under a template's `{name}`): the second was "skipped" as done, or its video replaced the
    /// first's, both reported "ok". A usage error (64) for templates, bad data (65) in a jobs file.
    static func checkOutputs(_ entries: [BatchJob.Entry], usage: Bool) throws {
        var first: [String: String] = [:]
        for entry in entries {
            guard let job = try? entry.job.get() else { continue }
            let output = URL(fileURLWithPath: job.output).standardizedFileURL.path
            if let earlier = first[output] {
                throw Failure(usage ? .usage : .data, FileName.printable("\(earlier) and \(entry.origin) both write \(job.output); "
                    + "give each its own output (a template's {file} differs where {name} does not); nothing was run"))
            }
            first[output] = entry.origin
        }
    }

    /// `--shard` as (K, N).
    private func shards() throws -> (Int, Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, (0..<n).contains(k) else {
            throw ValidationError("--shard wants K/N with 0 ≤ K < N, such as 0/4 (got \"\(shard)\")")
        }
        return (k, n)
    }

    /// The `--template` objects.
    private func templates() throws -> [[String: BatchJob.Value]] {
        try template.map { text in
            guard let object = BatchJob.object(text) else {
                throw ValidationError("--template wants a JSON object of strings, numbers and booleans, not '\(text)'")
            }
            return object
        }
    }

    /// Every job given, in order.
    private func entries() throws -> [BatchJob.Entry] {
        if let jobs {
            let bytes = try InputFile.read(jobs, maxBytes: Self.maxJobsBytes)
            guard let text = String(validating: bytes, as: UTF8.self) else { throw Failure(.data, "\(jobs): not UTF-8 text") }
            return BatchJob.parse(lines: text, name: jobs)
        }
        guard let folder else { return [] }
        let templates = try templates()
        let documents = try FileName.list(folder).filter { name in
            guard !name.hasPrefix(".") else { return false }
            var st = stat()
            let isFolder = stat(FileName.bytes((folder as NSString).appendingPathComponent(name)), &st) == 0
                && st.st_mode & S_IFMT == S_IFDIR
            return isFolder || PageSources.format(of: name) != nil
        }.sorted()
        return documents.flatMap { name in
            let path = (folder as NSString).appendingPathComponent(name)
            return templates.enumerated().map { t, object in
                BatchJob.Entry(origin: "\(path) #\(t + 1)", given: "\(t) \(path)") { () throws(BatchJob.Invalid) in
                    try BatchJob(object, document: path)
                }
            }
        }
    }
}
