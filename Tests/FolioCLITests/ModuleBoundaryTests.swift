import Foundation
import Testing

/// The rooms of the house (docs/architecture.md): each module imports only the modules below
/// it that its concern needs. No module here draws, so none imports GL, EGL, GLFW or the
/// modules over them; the reader's state machine knows no script, pipeline or page images.
@Suite struct ModuleBoundaryTests {
    /// The Folio modules and C shims each module may import.
    static let allowed: [String: Set<String>] = [
        "FolioMath": [],
        "FolioInput": [],
        "FolioImage": ["FolioMath"],
        "FolioResources": [],
        "FolioLayout": ["FolioMath"],
        "FolioBook": ["CPNG", "CPNGScaled", "CJPEG", "CWebP", "FolioImage", "FolioResources"],
        "FolioLibrary": ["FolioBook"],
        "FolioState": ["CSQLite", "CZlib", "FolioBook"],
        "FolioSpeech": ["CSpeechd"],
        "FolioReader": ["FolioMath", "FolioLayout", "FolioBook", "FolioImage", "FolioInput", "FolioState"],
        "FolioScript": ["FolioReader", "FolioLayout", "FolioMath"],
        "FolioPages": ["FolioBook", "FolioImage", "FolioLayout", "FolioMath"],
        "FolioFind": ["FolioBook"],
        "FolioPDF": ["CPoppler", "FolioBook", "FolioImage"],
        "FolioArchive": ["CArchive", "FolioBook", "FolioImage"],
        "FolioDjVu": ["CDjVu", "FolioBook", "FolioImage"],
        "FolioMuPDF": ["CMuPDFBridge", "FolioBook", "FolioImage"],
        "FolioOverlayText": ["CPangoCairo", "FolioOverlay", "FolioImage"],
        "FolioOverlay": [],
    ]

    /// The system's and the packages' modules any of them may use.
    static let system: Set<String> = ["Foundation", "Glibc", "Darwin", "Dispatch", "Synchronization", "Logging"]

    /// The modules imported by the Swift files of `Sources/<module>`.
    static func imports(of module: String) throws -> Set<String> {
        let folder = FolioProcess.packageRoot.appendingPathComponent("Sources/\(module)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        var found: Set<String> = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && $0 != "public" && $0 != "internal" }
                if words.count == 2, words[0] == "import" { found.insert(String(words[1])) }
            }
        }
        return found
    }

    @Test(arguments: allowed.keys.sorted())
    func importsPointDownAndNoneDraws(_ module: String) throws {
        let extra = try Self.imports(of: module).subtracting(Self.system).subtracting(Self.allowed[module] ?? [])
        #expect(extra.isEmpty, "\(module) imports \(extra.sorted()): not below it in docs/architecture.md")
    }

    /// The reading state machine in particular: nothing that draws, and its files were found
    /// (an empty import list would pass the test above for a moved folder).
    @Test func theReaderImportsNoGL() throws {
        let reader = try Self.imports(of: "FolioReader")
        #expect(reader.isDisjoint(with: ["COpenGL", "CEGL", "CGLFW", "FolioRender", "FolioPlatform", "FolioWindow", "FolioKit"]))
        #expect(!reader.isEmpty, "the reader's files were read")
    }

    /// A file a newcomer reads in one sitting: no source file, Swift or C, runs past 500 lines.
    @Test func noSourceFileIsOver500Lines() throws {
        let root = FolioProcess.packageRoot.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).filter { file in
            [".swift", ".c", ".h"].contains { file.hasSuffix($0) }
        }
        #expect(files.count > 100, "the sources were found")
        #expect(files.contains { $0.hasSuffix(".c") }, "the C sources were found")
        let long = try files.filter { file in
            try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).utf8.lazy.filter { $0 == 10 }.count > 500
        }
        #expect(long.isEmpty, "over 500 lines: \(long.sorted())")
    }

    /// A type is read in one place: declared in one file of its module and extended in one more
    /// at most (an extension in another module, a conformance or a conversion, is that module's).
    @Test func noTypeIsSpreadOverMoreThanTwoFiles() throws {
        let root = FolioProcess.packageRoot.appendingPathComponent("Sources")
        let declaration = try Regex(#"(?m)^(?:(?:public|final|private|internal|fileprivate|open) )*(?:class|struct|enum|actor|protocol) (\w+)"#)
        // A nested type's extension (`extension A.B`) extends B, not A.
        let extensionOf = try Regex(#"(?m)^(?:(?:public|private|internal|fileprivate) )*extension ([\w.]+)"#)
        var spread: [String] = [], types = 0
        for module in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            let folder = root.appendingPathComponent(module)
            var declared: [String: Set<String>] = [:], extended: [String: Set<String>] = [:]
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for m in text.matches(of: declaration) { declared[String(m.output[1].substring ?? ""), default: []].insert(file) }
                for m in text.matches(of: extensionOf) { extended[String(m.output[1].substring ?? ""), default: []].insert(file) }
            }
            types += declared.count
            for (type, files) in declared where files.union(extended[type] ?? []).count > 2 {
                spread.append("\(module).\(type): \(files.union(extended[type] ?? []).sorted())")
            }
        }
        #expect(types > 200, "the types were found")
        #expect(spread.isEmpty, "over more than two files: \(spread.sorted())")
    }
}
