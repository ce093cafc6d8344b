import Foundation
import Testing

/// `folio bench --documents`: a PDF and a DjVu book measured, each beside its reference tool
/// (`mutool draw`, `ddjvu`) in the same run. Checks what the line and the JSON say, never how fast.
@Suite struct BenchDocumentsTests {
    /// A folder holding a two-page PDF (cairo) and the three-page DjVu book of make_djvu.py.
    static let folder: URL? = {
        guard let djvu = DjVuCaptureTests.documents else { return nil }
        let dir = djvu.appendingPathComponent("bench")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pdf = """
            import cairo, sys
            s = cairo.PDFSurface(sys.argv[1], 420, 595)
            cr = cairo.Context(s)
            for n in range(2):
                cr.rectangle(40, 40 + n * 200, 200, 100)
                cr.fill()
                cr.show_page()
            s.finish()
            """
        guard let made = try? FolioProcess.run("/usr/bin/python3", ["-c", pdf, dir.appendingPathComponent("a.pdf").path], timeout: 60),
              made.status == 0, (try? FileManager.default.copyItem(at: djvu.appendingPathComponent("book.djvu"),
                                                                  to: dir.appendingPathComponent("book.djvu"))) != nil
        else { return nil }
        return dir
    }()

    /// Whether `tool` is on PATH (mupdf-tools is not needed by the tests: without it a PDF's line
    /// says so).
    private static func installed(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    private func bench(_ extra: [String]) throws -> String {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = try #require(Self.folder, "djvulibre-bin or python3-cairo missing")
        let run = try FolioProcess.run(folio.path, ["bench", "--scenes", "carousel", "--frames", "1", "--no-capture", "-q",
                                                    "--documents", dir.path] + extra, timeout: 120)
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test func eachDocumentHasItsLineWithTheReferenceToolAndTheRatios() throws {
        let lines = try bench([]).split(separator: "\n").map(String.init)
        let number = #"[0-9]+\.[0-9]"#
        let djvu = try #require(lines.first { $0.hasPrefix("book.djvu") }, "\(lines)")
        let folio = "first page \(number) ms, \(number) pages/s on 1 thread \\(\(number) ms CPU a page\\), \(number) on [0-9]+"
        #expect(djvu.wholeMatch(of: try Regex("book.djvu \\(DjVu, 3 pages, 3 drawn 931 px high\\): \(folio); "
            + "ddjvu: first page \(number) ms, \(number) pages/s \\(\(number) ms CPU a page\\); "
            + "Folio/ddjvu: [0-9.]+× on 1 thread, [0-9.]+× on [0-9]+")) != nil, "\(djvu)")
        let pdf = try #require(lines.first { $0.hasPrefix("a.pdf") }, "\(lines)")
        let mutool = Self.installed("mutool")
            ? "mutool draw: first page \(number) ms, \(number) pages/s \\(\(number) ms CPU a page\\); "
                + "Folio/mutool draw: [0-9.]+× on 1 thread, [0-9.]+× on [0-9]+"
            : "no reference tool installed"
        #expect(pdf.prefixMatch(of: try Regex("a.pdf \\(PDF, 2 pages, 2 drawn 931 px high\\): \(folio); \(mutool); through MuPDF: ")) != nil,
                "\(pdf)")
    }

    @Test func theJSONNamesEachDocumentItsRatesAndItsTool() throws {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(try bench(["--json"]).utf8)) as? [String: Any])
        let documents = try #require(report["documents"] as? [[String: Any]])
        #expect(documents.map { ($0["file"] as? NSString)?.lastPathComponent } == ["a.pdf", "book.djvu"])
        for (doc, (format, tool)) in zip(documents, [("PDF", "mutool draw"), ("DjVu", "ddjvu")]) {
            #expect(doc["format"] as? String == format)
            #expect(doc["height"] as? Int == 931)
            for key in ["first_page_ms", "pages_per_second", "cpu_ms_per_page", "pages_per_second_workers"] {
                #expect((doc[key] as? Double ?? 0) > 0, "\(format) \(key)")
            }
            guard Self.installed(tool == "ddjvu" ? "ddjvu" : "mutool") else { continue }
            let measured = try #require(doc["tool"] as? [String: Any], "\(format): \(doc)")
            #expect(measured["name"] as? String == tool)
            #expect((measured["pages_per_second"] as? Double ?? 0) > 0, "\(tool)")
        }
        #expect(documents[0]["mupdf"] != nil, "PDFs through MuPDF too")
        // Each scene's CPU: the process's and the drawing thread's (a GPU's CPU-bound part).
        let scenes = try #require(report["scenes"] as? [[String: Any]])
        for scene in scenes {
            let (all, thread) = (scene["cpu_ms"] as? Double ?? 0, scene["render_thread_ms"] as? Double ?? 0)
            #expect(thread > 0 && thread <= all, "\(scene)")
        }
    }
}
