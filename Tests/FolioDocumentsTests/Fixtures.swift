import FolioArchive
import FolioBook
import FolioDjVu
import FolioImage
import FolioPDF
import Foundation
import XCTest

/// The documents of `Fixtures/make_documents.py`, written once per test run into a temporary
/// folder (Debian's python3-cairo and python3-pil write them), with the formats registered.
enum Fixtures {
    /// Pages of `long.pdf`.
    static let longPages = 800

    /// Where the tests open documents (the formats are registered by `folder`).
    static let documents = DocumentRegistry()

    static let folder: String? = {
        PDF.register()
        ComicArchive.register()
        DjVu.register()
        return generate("make_documents.py", arguments: [String(longPages)])
    }()

    /// A new temporary folder that `Fixtures/<script>` wrote its files into; nil if it failed.
    static func generate(_ script: String, arguments: [String] = []) -> String? {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/" + script)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-documents-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = [path.path, dir.path] + arguments
            try p.run()
            p.waitUntilExit()
            return p.terminationStatus == 0 ? dir.path : nil
        } catch {
            return nil
        }
    }

    /// The documents of `Fixtures/make_djvu.py` (djvulibre-bin writes them), formats registered.
    static let djvuFolder: String? = {
        _ = folder
        return generate("make_djvu.py")
    }()

    /// The path of DjVu fixture `name`; skips the test when djvulibre-bin is missing.
    static func djvu(_ name: String) throws -> String {
        guard let djvuFolder else { throw XCTSkip("djvulibre-bin missing: no DjVu test documents") }
        return djvuFolder + "/" + name
    }

    /// The path of fixture `name`; skips the test when the fixtures could not be written.
    static func path(_ name: String) throws -> String {
        guard let folder else { throw XCTSkip("python3-cairo / python3-pil missing: no test documents") }
        return folder + "/" + name
    }

    /// A fresh copy of fixture `name` under another name (documents that failed to open stay
    /// failed for the process, by path).
    static func copy(_ name: String, as newName: String) throws -> String {
        let target = try path(newName)
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: path(name), toPath: target)
        return target
    }
}

/// Colour checks with a tolerance (JPEG and antialiasing move colours a little).
func XCTAssertColour(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ c: (Int, Int, Int), tolerance: Int = 16,
                     _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    let ok = abs(Int(p.r) - c.0) <= tolerance && abs(Int(p.g) - c.1) <= tolerance && abs(Int(p.b) - c.2) <= tolerance
    XCTAssertTrue(ok, "\(message) got (\(p.r), \(p.g), \(p.b)), expected \(c)", file: file, line: line)
}

extension RGBAImage {
    func centre() -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) { pixel(width / 2, height / 2) }
}

/// Page colours of the fixture PDFs, by page index (see make_documents.py).
let pageColours = [(230, 26, 26), (26, 179, 26), (26, 51, 230), (230, 204, 26), (179, 26, 204)]
let white = (255, 255, 255)
