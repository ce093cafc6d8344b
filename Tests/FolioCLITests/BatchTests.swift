import FolioBook
import Foundation
import Testing

/// `folio batch` end to end on tiny generated PDFs (some broken): the same pictures as one
/// `capture` per job, a stopped batch resumed renders only what is missing, shards cover every
/// job once, and GNU parallel running the shards makes what one batch makes.
@Suite(.serialized) struct BatchTests {
    /// A PDF of `colours.count` pages, each a band of its colour on white: written by hand, so
    /// the tests need no generator.
    static func pdf(_ colours: [(Double, Double, Double)]) -> Data {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [\(colours.indices.map { "\(3 + 2 * $0) 0 R" }.joined(separator: " "))] /Count \(colours.count) >>"]
        for (i, (r, g, b)) in colours.enumerated() {
            let content = "\(r) \(g) \(b) rg 20 60 160 160 re f"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] /Contents \(4 + 2 * i) 0 R >>")
            objects.append(TestPDF.stream("", content))
        }
        return TestPDF.document(objects)
    }

    /// A folder with red.pdf, green.pdf, blue.pdf (three pages each) and broken.pdf (not a PDF).
    static func documents() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, c) in [("red", (0.8, 0.1, 0.1)), ("green", (0.1, 0.7, 0.2)), ("blue", (0.1, 0.2, 0.8))] {
            try pdf([c, (c.1, c.2, c.0), (c.2, c.0, c.1)]).write(to: dir.appendingPathComponent("\(name).pdf"))
        }
        try Data("%PDF-1.4\nthis is not a PDF at all\n".utf8).write(to: dir.appendingPathComponent("broken.pdf"))
        return dir
    }

    struct Line: Decodable, Equatable {
        var job: String
        var output: String?
        var status: String
        var reason: String?
    }

    static func lines(_ stdout: String) throws -> [Line] {
        try stdout.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    private func batch(_ arguments: [String], in dir: URL) throws -> (FolioProcess.Result, [Line]) {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let r = try FolioProcess.run(folio.path, ["batch"] + arguments, directory: dir.path, timeout: 120)
        #expect(!r.timedOut)
        return (r, try Self.lines(r.stdout))
    }

    private func write(_ jobs: [String], to name: String, in dir: URL) throws {
        try Data((jobs.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent(name))
    }

    private func bytes(_ path: String, in dir: URL) -> Data? {
        FileManager.default.contents(atPath: dir.appendingPathComponent(path).path)
    }

    @Test func aJobsFileGivesThePicturesOfOneCapturePerJobAndBrokenDocumentsFailAlone() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stills: [(String, [String])] = [
            ("red.pdf", ["--size=160x90"]),
            ("broken.pdf", ["--size=160x90"]),
            ("green.pdf", ["--size=200x120", "--book=0", "--page=2"]),
            ("missing.pdf", ["--size=160x90"]),
            ("blue.pdf", ["--size=160x90", "--book=0", "--page=1", "--turn=0.4", "--deform=curl"]),
            ("green.pdf", ["--size=160x90", "--book=0", "--open=0.5", "--vertical"]),
        ]
        var jobs = stills.enumerated().map { i, job in
            "{\"source\":\"\(job.0)\",\"capture\":\"out/\(i).png\"," + job.1.map { option in
                let (key, value) = (option.dropFirst(2).split(separator: "=").first!, option.split(separator: "=").dropFirst().first)
                return "\"\(key)\":" + (value.map { Double($0) != nil ? String($0) : "\"\($0)\"" } ?? "true")
            }.joined(separator: ",") + "}"
        }
        jobs.insert("# a comment, then a line that is no job", at: 0)
        jobs.insert("{\"source\": \"red.pdf\"", at: 1)
        try write(jobs, to: "jobs.jsonl", in: dir)
        let (run, lines) = try batch(["jobs.jsonl"], in: dir)
        #expect(run.status == 1, "a failed job makes the status 1: \(run.stderr)")
        #expect(lines.map(\.status) == ["failed", "ok", "failed", "ok", "failed", "ok", "ok"], "\(run.stdout)")
        #expect(lines[0].job == "jobs.jsonl:2" && lines[0].reason?.contains("JSON") == true)
        #expect(lines[2].reason?.contains("broken.pdf") == true, "\(lines[2])")
        #expect(lines[4].reason?.contains("missing.pdf") == true, "\(lines[4])")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/1.png").path))

        let folio = try #require(FolioProcess.binary)
        for (i, job) in stills.enumerated() where !["broken.pdf", "missing.pdf"].contains(job.0) {
            let one = try FolioProcess.run(folio.path, ["capture", job.0, "-o", "one-\(i).png"] + job.1, directory: dir.path, timeout: 60)
            try #require(one.status == 0, "\(one.stderr)")
            let batched = try #require(bytes("out/\(i).png", in: dir))
            #expect(batched == bytes("one-\(i).png", in: dir), "job \(i) (\(job)) differs from its capture")
        }
    }

    @Test func aStoppedBatchResumedRendersOnlyWhatIsMissing() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        try write(["red", "green", "blue", "red"].enumerated().map { i, name in
            "{\"source\":\"\(name).pdf\",\"capture\":\"out/\(i).png\",\"size\":\"96x54\",\"book\":0,\"page\":\(i)}"
        }, to: "jobs.jsonl", in: dir)
        let (first, done) = try batch(["jobs.jsonl", "--limit", "2"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(done.map(\.status) == ["ok", "ok"])
        let kept = try (0..<2).map { try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("out/\($0).png").path) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/2.png").path))
        // A PNG cut short (a copy that stopped half-way) is not complete: it is rendered again.
        let whole = try #require(bytes("out/0.png", in: dir))
        try whole.prefix(whole.count - 12).write(to: dir.appendingPathComponent("out/3.png"))

        let (second, rest) = try batch(["jobs.jsonl"], in: dir)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(rest.map(\.status) == ["skipped", "skipped", "ok", "ok"], "\(second.stdout)")
        for i in 0..<2 {
            let now = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("out/\(i).png").path)
            #expect(now[.modificationDate] as? Date == kept[i][.modificationDate] as? Date
                    && now[.systemFileNumber] as? Int == kept[i][.systemFileNumber] as? Int, "out/\(i).png was written again")
        }
        let redone = try #require(bytes("out/3.png", in: dir))
        #expect(redone.suffix(8) == Data([0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]) && redone != whole.prefix(whole.count - 12))
    }

    @Test func aFolderWithATemplateGivesEachDocumentItsJob() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not a document".utf8).write(to: dir.appendingPathComponent("notes.md"))
        let (run, lines) = try batch(["--folder", ".", "--template", "{\"capture\":\"out/{name}.png\",\"size\":\"64x36\"}"], in: dir)
        #expect(run.status == 1, "broken.pdf fails: \(run.stderr)")
        // Documents only (not notes.md), in name order, each named after its file.
        #expect(lines.map(\.output) == ["out/blue.png", "out/broken.png", "out/green.png", "out/red.png"])
        #expect(lines.map(\.status) == ["ok", "failed", "ok", "ok"], "\(run.stdout)")
        #expect(lines.first?.job == "./blue.pdf #1")
    }

    /// Two documents of one name (red.pdf, red.cbz) under a template's {name}: the second job
    /// was "skipped" as done without being rendered, both "ok". Jobs that would write one output
    /// are refused before any runs; so are two such lines of a jobs file.
    @Test func jobsThatWouldWriteOneOutputAreRefusedBeforeAnyRuns() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: dir.appendingPathComponent("red.pdf"), to: dir.appendingPathComponent("red.xps"))
        let (run, lines) = try batch(["--folder", ".", "--template", "{\"capture\":\"out/{name}.png\",\"size\":\"64x36\"}"], in: dir)
        #expect(run.status == 64 && lines.isEmpty, "\(run.status) \(run.stdout) \(run.stderr)")
        #expect(run.stderr == "folio: ./red.pdf #1 and ./red.xps #1 both write out/red.png; give each its own output "
            + "(a template's {file} differs where {name} does not); nothing was run\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
        try write(["{\"capture\": \"a.png\", \"source\": \"red.pdf\"}", "{\"capture\": \"./a.png\", \"source\": \"blue.pdf\"}"], to: "jobs.jsonl", in: dir)
        let (file, _) = try batch(["jobs.jsonl"], in: dir)
        #expect(file.status == 65 && file.stderr.contains("jobs.jsonl:1 and jobs.jsonl:2 both write ./a.png"), "\(file.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.png").path))
    }

    @Test func threeShardsCoverEveryJobExactlyOnceAndKeepTheirJobsWhenJobsAreAdded() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Documents that are not there fail at once, before anything is drawn: quick to count.
        let jobs = (0..<12).map { "{\"source\":\"nothing-\($0).pdf\",\"capture\":\"out/\($0).png\"}" }
        try write(jobs, to: "jobs.jsonl", in: dir)
        try write((100..<104).map { "{\"source\":\"nothing-\($0).pdf\",\"capture\":\"out/\($0).png\"}" } + jobs, to: "more.jsonl", in: dir)
        var seen: [String] = [], shardOf: [String: Int] = [:]
        for k in 0..<3 {
            let (run, lines) = try batch(["jobs.jsonl", "--shard", "\(k)/3"], in: dir)
            #expect(run.status == 1 && lines.allSatisfy { $0.status == "failed" })
            #expect(!lines.isEmpty && lines.count < 12, "shard \(k): \(lines.count) jobs")
            for line in lines { seen.append(line.output ?? ""); shardOf[line.output ?? ""] = k }
            let (_, more) = try batch(["more.jsonl", "--shard", "\(k)/3"], in: dir)
            for line in more where shardOf[line.output ?? ""] != nil { #expect(shardOf[line.output ?? ""] == k, "\(line)") }
        }
        #expect(seen.sorted() == (0..<12).map { "out/\($0).png" }.sorted())
    }

    @Test(.enabled(if: FolioProcess.available("parallel"), "needs GNU parallel (apt-get install parallel)"))
    func gnuParallelRunningThreeShardsMakesWhatOneBatchMakes() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folio = try #require(FolioProcess.binary)
        try write(["red", "green", "blue", "broken", "green"].enumerated().map { i, name in
            "{\"source\":\"\(name).pdf\",\"capture\":\"out/\(i).png\",\"size\":\"96x54\",\"book\":0,\"page\":\(i % 4)}"
        }, to: "jobs.jsonl", in: dir)
        let (one, _) = try batch(["jobs.jsonl"], in: dir)
        #expect(one.status == 1)
        try FileManager.default.moveItem(at: dir.appendingPathComponent("out"), to: dir.appendingPathComponent("one"))
        let shards = try FolioProcess.run("/usr/bin/env", ["parallel", "--will-cite", folio.path, "batch", "jobs.jsonl", "--shard", "{}/3", ":::", "0", "1", "2"],
                                          directory: dir.path, timeout: 120)
        #expect(shards.status == 1, "parallel's status counts the shards that failed a job: \(shards.stderr)")
        let lines = try Self.lines(shards.stdout)
        #expect(lines.count == 5 && lines.filter { $0.status == "ok" }.count == 4, "\(shards.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("one").path).sorted()
        #expect(names == ["0.png", "1.png", "2.png", "4.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).sorted() == names)
        for name in names { #expect(bytes("out/\(name)", in: dir) == bytes("one/\(name)", in: dir), "\(name)") }
    }
    @Test(.enabled(if: FolioProcess.available("ffmpeg") && FolioProcess.available("ffprobe"), "needs ffmpeg (apt-get install ffmpeg)"))
    func recordingsAndVideosAreRecordsFramesAndAreRedoneOnlyWhenIncomplete() throws {
        let dir = try Self.documents()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folio = try #require(FolioProcess.binary)
        try write(["{\"source\":\"red.pdf\",\"record\":\"frames\",\"script\":\"open\",\"size\":\"96x54\",\"fps\":4}",
                   "{\"source\":\"blue.pdf\",\"video\":\"out/blue.mp4\",\"script\":\"open\",\"size\":\"96x54\",\"fps\":4}"],
                  to: "jobs.jsonl", in: dir)
        let (first, made) = try batch(["jobs.jsonl"], in: dir)
        #expect(made.map(\.status) == ["ok", "ok"], "\(first.stderr)")
        let one = try FolioProcess.run(folio.path, ["record", "red.pdf", "-o", "one", "--script", "open", "--size", "96x54", "--fps", "4", "-q"],
                                       directory: dir.path, timeout: 60)
        try #require(one.status == 0, "\(one.stderr)")
        let frames = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("one").path).sorted()
        let batched = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path).sorted()
        #expect(frames.count > 1 && frames == batched)
        for name in frames {
            let a = try PNG.read(path: dir.appendingPathComponent("one/\(name)").path)
            let b = try PNG.read(path: dir.appendingPathComponent("frames/\(name)").path)
            #expect(a == b, "\(name)")
        }

        let (_, again) = try batch(["jobs.jsonl"], in: dir)
        #expect(again.map(\.status) == ["skipped", "skipped"])
        // A frame missing, a video cut short: each is made again.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("frames/\(frames[1])"))
        let video = try #require(bytes("out/blue.mp4", in: dir))
        try video.prefix(video.count / 2).write(to: dir.appendingPathComponent("out/blue.mp4"))
        let (third, redone) = try batch(["jobs.jsonl"], in: dir)
        #expect(redone.map(\.status) == ["ok", "ok"], "\(third.stderr)")
        #expect(bytes("out/blue.mp4", in: dir)?.count == video.count)
    }
}
