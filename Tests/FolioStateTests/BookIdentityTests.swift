@testable import FolioState
import FolioBook
import Foundation
import Testing

/// A folder of its own for one test, removed when it ends.
final class Scratch {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("folio-state-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` to `name` in the folder; its path.
    @discardableResult
    func write(_ name: String, _ bytes: Data) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: file))
        return file
    }

    /// An EPUB written by Python's zipfile: the container, a package naming `identifier` by
    /// `unique-identifier` (beside another identifier), and one chapter of `text`.
    func epub(_ name: String, identifier: String, text: String = "Words.", deflated: Bool) throws -> String {
        let file = path + "/" + name
        let script = """
            import sys, zipfile
            method = zipfile.ZIP_DEFLATED if sys.argv[3] == "1" else zipfile.ZIP_STORED
            with zipfile.ZipFile(sys.argv[1], "w", method) as z:
                z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
                z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container><rootfiles>'
                           '<rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
                z.writestr("OPS/book.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
                           'unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
                           '<dc:identifier id="isbn">978-0-00-000000-0</dc:identifier>'
                           '<dc:identifier id="uid">\\n  ' + sys.argv[2] + '  </dc:identifier></metadata>'
                           '<manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest>'
                           '<spine><itemref idref="c"/></spine></package>')
                z.writestr("OPS/c.xhtml", "<html><body><p>" + sys.argv[4] + "</p></body></html>")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file, identifier, deflated ? "1" : "0", text]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return file
    }
}

/// A PDF of `pages` empty pages whose trailer has `/ID [<id> <…>]`, or none.
func testPDF(pages: Int, id: String?) -> Data {
    var objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                   "<< /Type /Pages /Kids [\((0..<pages).map { "\($0 + 3) 0 R" }.joined(separator: " "))] /Count \(pages) >>"]
    objects += (0..<pages).map { _ in "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >>" }
    var text = "%PDF-1.4\n", offsets: [Int] = []
    for (i, object) in objects.enumerated() {
        offsets.append(text.utf8.count)
        text += "\(i + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = text.utf8.count
    text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n" + offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
    let idEntry = id.map { " /ID [<\($0)> <0123456789ABCDEF>]" } ?? ""
    text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R\(idEntry) >>\nstartxref\n\(xref)\n%%EOF\n"
    return Data(text.utf8)
}

@Suite struct BookIdentityTests {
    @Test func md5MatchesRFC1321() {
        for (text, digest) in [("", "d41d8cd98f00b204e9800998ecf8427e"), ("abc", "900150983cd24fb0d6963f7d28e17f72"),
                               (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a")] {
            var md5 = MD5()
            md5.update(Array(text.utf8))
            #expect(md5.hex() == digest, "\(text)")
        }
    }

    /// The partial MD5: the blocks at 0, 1 KiB, 4 KiB, 16 KiB… and the size; a byte changed
    /// between the samples leaves it as it is, one in a sample changes it. Files smaller than
    /// KOReader's first sample (256 bytes) differ too.
    @Test func thePartialHashReadsSampledBlocksAndTheSize() throws {
        let scratch = try Scratch()
        var bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try scratch.write("a.bin", bytes)
        let hash = try BookIdentity(file: file).hash
        var md5 = MD5()
        for offset in [0, 1024, 4096, 16384, 65536] { md5.update(bytes[offset..<min(offset + 1024, bytes.count)]) }
        #expect(hash == "md5:\(md5.hex()):100000")
        bytes[30_000] ^= 0xff
        #expect(try BookIdentity(file: scratch.write("a.bin", bytes)).hash == hash, "not sampled")
        bytes[16_500] ^= 0xff
        #expect(try BookIdentity(file: scratch.write("a.bin", bytes)).hash != hash, "sampled")
        bytes.append(0)
        bytes[16_500] ^= 0xff
        #expect(try BookIdentity(file: scratch.write("a.bin", bytes)).hash != hash, "another size")
        #expect(try BookIdentity(file: scratch.write("b.bin", Data("one".utf8))).hash != BookIdentity(file: scratch.write("c.bin", Data("two".utf8))).hash)
    }

    @Test(arguments: [false, true])
    func anEPUBIsNamedByItsUniqueIdentifier(deflated: Bool) throws {
        let scratch = try Scratch()
        let file = try scratch.epub("b.epub", identifier: "urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427", deflated: deflated)
        let identity = try BookIdentity(file: file)
        #expect(identity.identifier == "epub:urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427", "not the ISBN, the one named")
        #expect(identity.hash.hasPrefix("md5:"))
    }

    @Test func aPDFIsNamedByTheFirstOfItsDocumentIDs() throws {
        let scratch = try Scratch()
        #expect(try BookIdentity(file: scratch.write("c.pdf", testPDF(pages: 2, id: "00FF10AB"))).identifier == "pdf:00ff10ab")
        #expect(try BookIdentity(file: scratch.write("d.pdf", testPDF(pages: 2, id: nil))).identifier == nil)
    }

    /// Not a ZIP, a ZIP whose directory lies, a PDF cut short: a hash and no identifier, no crash.
    @Test func damagedFilesHaveAHashAndNoIdentifier() throws {
        let scratch = try Scratch()
        let epub = try Data(contentsOf: URL(fileURLWithPath: scratch.epub("e.epub", identifier: "x-1", deflated: true)))
        var lying = epub
        // The end record's directory offset pointed far past the end.
        let end = try #require((0...(lying.count - 22)).reversed().first { lying[$0..<$0 + 4] == Data([0x50, 0x4b, 5, 6]) })
        lying.replaceSubrange(end + 16..<end + 20, with: [0xff, 0xff, 0xff, 0x7f])
        for (name, bytes) in [("f.epub", Data("PK\u{3}\u{4}not really".utf8)), ("g.epub", lying), ("h.epub", epub.prefix(epub.count / 2)),
                              ("i.pdf", testPDF(pages: 1, id: "AB").prefix(200))] {
            let identity = try BookIdentity(file: scratch.write(name, bytes))
            #expect(identity.identifier == nil && identity.hash.hasPrefix("md5:"), "\(name)")
        }
    }

    @Test func aFIFOIsNotRead() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.path + "/pipe.pdf", 0o600) == 0)
        #expect(throws: FileError.self) { try BookIdentity(file: scratch.path + "/pipe.pdf") }
    }
}
