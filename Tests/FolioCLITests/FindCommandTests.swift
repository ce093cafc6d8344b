import FolioBook
import FolioImage
import Foundation
import Testing

/// `folio outline`, `folio search`, `folio text` and `folio capture --search` on the generated
/// `navigation.pdf` (FolioDocumentsTests/Fixtures/make_documents.py): 420 × 595 pages labelled
/// i, ii, 1; "lazy dog" on page 1's second line and across page 2's line break.
@Suite struct FindCommandTests {
    private func folio(_ arguments: [String]) throws -> FolioProcess.Result {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        return try FolioProcess.run(folio.path, arguments, timeout: 60)
    }

    private func document(_ name: String = "navigation.pdf") throws -> String {
        try #require(DocumentCaptureTests.documents, "python3-cairo / python3-pil missing").appendingPathComponent(name).path
    }

    @Test func outlineListsTheContentsAsTextAndJSON() throws {
        let text = try folio(["outline", try document()])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == "Part one — page 1 (i)\n  Section A — page 2 (ii)\nPart two — page 3 (1)\n")
        let json = try folio(["outline", try document(), "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["title"] as? String } == ["Part one", "Part two"])
        #expect(entries.map { $0["page"] as? Int } == [1, 3])
        #expect(((entries[0]["children"] as? [[String: Any]])?.first?["label"] as? String) == "ii")
        // Entries in a ring, one pointing past the last page: listed once, without a word from poppler.
        let ring = try folio(["outline", try document("outline-loop.pdf")])
        #expect(ring.status == 0 && ring.stderr.isEmpty, "\(ring.stderr)")
        #expect(ring.stdout.hasPrefix("Ring A — page 1\n  Ring B\n"), "\(ring.stdout)")
    }

    /// A PDF named by a relative path was refused by every command but `capture` ("The pathname
    /// … is not an absolute path": poppler opens URIs): each takes the path a user types
    /// (`bench --search` opens it the same way).
    @Test func everyCommandTakesARelativePath() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let path = try document()
        let folder = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        for arguments in [["outline", name], ["text", name, "--page", "3"], ["search", name, "Lazy Dog"]] {
            let run = try FolioProcess.run(folio.path, arguments, directory: folder, timeout: 60)
            #expect(run.status == 0 && !run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stderr)")
        }
    }

    @Test func searchPrintsOneJSONLinePerHitWithItsPageAndBoxes() throws {
        let run = try folio(["search", try document(), "Lazy Dog"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(lines.map { $0["page"] as? Int } == [1, 2])
        #expect(lines.map { $0["index"] as? Int } == [0, 1])
        #expect(lines.map { $0["label"] as? String } == ["i", "ii"])
        let boxes = try #require(lines[0]["boxes"] as? [[Double]])
        // "lazy dog" ends page 1's second line (baseline y = 130 of 595, from x = 50 of 420).
        #expect(boxes.count == 1 && boxes[0][0] > 0.3 && boxes[0][1] < 125 / 595 && boxes[0][3] > 125 / 595, "\(boxes)")
        #expect((lines[1]["boxes"] as? [[Double]])?.count == 2, "across a line break")
        #expect((lines[1]["snippet"] as? String)?.contains("lazy dog days") == true)
    }

    @Test func searchExitStatusSaysWhatWasFound() throws {
        let none = try folio(["search", try document(), "zebra"])
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.isEmpty, "\(none.stderr)")
        let empty = try folio(["search", try document(), "  "])
        #expect(empty.status == 64 && empty.stderr.contains("empty"), "\(empty.stderr)")
        let noText = try folio(["search", try document("comic.cbz"), "anything"])
        #expect(noText.status == 65 && noText.stderr.contains("this book has no text to search"), "\(noText.stderr)")
        let missing = try folio(["search", try document("nowhere.pdf"), "x"])
        #expect(missing.status == 66 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    @Test func textPrintsAPagesLines() throws {
        let run = try folio(["text", try document(), "--page", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Café crème at the lazy\ndog days of summer\nsite\nscript\n")
        let bad = try folio(["text", try document(), "--page", "9"])
        #expect(bad.status == 64 && bad.stderr.contains("pages 1…3"), "\(bad.stderr)")
    }

    /// What a drag from inside "The" (x 0.12…0.21, y 0.14…0.18 of page 1) to inside "lazy" on
    /// the line below selects: the words between, a line break where the lines break.
    @Test func textOfARegionIsWhatADragSelects() throws {
        let run = try folio(["text", try document(), "--page", "1", "--region", "0.2,0.15,0.3,0.06"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "The quick brown fox\njumps over the lazy\n")
        let bad = try folio(["text", try document(), "--page", "1", "--region", "0.2,0.15,2,0.06"])
        #expect(bad.status == 64 && bad.stderr.contains("four fractions"), "\(bad.stderr)")
    }

    /// Pixels that `--search` and `--select` changed: every one marker yellow (red and green
    /// kept, blue taken), enough of them to be the words, and the same pixels for the phrase
    /// found as for the same words selected (a drag from inside the first word to inside the
    /// last). Flat: page 1's "quick brown"; curled: page 2's "dog days" on the back of the page
    /// being turned; zoomed 3×: the top of page 1, its crop rasterised with the marks.
    @Test(arguments: [
        (["--page", "1"], "quick brown", "1:0.25,0.15,0.2,0.01"),
        (["--page", "1", "--turn", "0.8", "--deform", "curl"], "dog days", "2:0.15,0.2,0.15,0.01"),
        (["--page", "1", "--zoom", "3", "--pan=-250,-280"], "quick brown", "1:0.25,0.15,0.2,0.01"),
    ])
    func captureSearchAndSelectMarkTheWordsOnThePaper(state: [String], phrase: String, selection: String) throws {
        let dir = try #require(DocumentCaptureTests.documents)
        func capture(_ extra: [String]) throws -> RGBAImage {
            let out = dir.appendingPathComponent("\(UUID().uuidString).png").path
            let run = try folio(["capture", try document(), "-o", out, "--size", "640x360", "--book", "0"] + state + extra)
            try #require(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.isEmpty, "\(run.stderr)")
            return try PNG.read(path: out)
        }
        let plain = try capture([])
        /// The pixels `marked` changed, after checking that they are marker yellow.
        func changed(_ marked: RGBAImage, _ what: String) -> Set<Int> {
            var changed: Set<Int> = [], yellow = 0
            for y in 0..<plain.height {
                for x in 0..<plain.width {
                    let a = plain.pixel(x, y), b = marked.pixel(x, y)
                    guard abs(Int(a.b) - Int(b.b)) > 24 else { continue }
                    changed.insert(y * plain.width + x)
                    if Int(b.b) < Int(b.g) - 60 && Int(b.r) >= Int(b.g) - 40 { yellow += 1 }
                }
            }
            #expect(changed.count > 40, "\(what): the mark shows (\(changed.count) pixels changed)")
            #expect(yellow * 10 >= changed.count * 8, "\(what): \(yellow) of \(changed.count) changed pixels are marker yellow")
            return changed
        }
        let found = changed(try capture(["--search", phrase]), "--search")
        let selected = changed(try capture(["--select", selection]), "--select")
        #expect(found.intersection(selected).count * 10 >= max(found.count, selected.count) * 8,
                "the words selected are marked where the phrase is found: \(found.count) and \(selected.count) pixels, \(found.intersection(selected).count) shared")
    }

    @Test func captureSelectSaysWhatIsWrongInOneLine() throws {
        let out = try #require(DocumentCaptureTests.documents).appendingPathComponent("\(UUID().uuidString).png").path
        for (select, says) in [("9:0.1,0.1,0.2,0.2", "pages 1…3"), ("1:0.1,0.1,2,0.2", "four fractions"), ("0.1,0.1,0.2,0.2", "PAGE:x,y,w,h")] {
            let run = try folio(["capture", try document(), "-o", out, "--size", "64x36", "--book", "0", "--select", select])
            #expect(run.status == 64 && run.stderr.contains(says) && run.stderr.split(separator: "\n").count == 1, "\(select): \(run.stderr)")
        }
    }
}
