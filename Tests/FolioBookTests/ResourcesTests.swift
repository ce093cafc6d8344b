@testable import FolioBook
import FolioResources
import XCTest

/// Where Folio looks for its data folders (docs/install.md), on fake layouts in a temporary folder.
final class ResourcesTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-resources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    private func makeDirectory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    private func found(_ folder: String, executable: String, _ environment: [String: String] = [:]) -> String? {
        Resources.candidates(folder, executable: path(executable), environment: environment)
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    func testAnInstalledPrefixComesFirst() throws {
        try makeDirectory("prefix/bin")
        try makeDirectory("prefix/share/folio/Shaders")
        try makeDirectory("data/folio/Shaders")
        XCTAssertEqual(found("Shaders", executable: "prefix/bin/folio", ["XDG_DATA_HOME": path("data")]),
                       path("prefix/share/folio/Shaders"))
    }

    func testThenTheXDGDataDirectoriesInOrder() throws {
        try makeDirectory("prefix/bin")
        try makeDirectory("home/.local/share/folio/Textures")
        try makeDirectory("a/folio/Textures")
        try makeDirectory("b/folio/Textures")
        let dirs = ["XDG_DATA_DIRS": "relative/ignored:\(path("b")):\(path("a"))"]
        XCTAssertEqual(found("Textures", executable: "prefix/bin/folio", dirs.merging(["HOME": path("home")]) { $1 }),
                       path("home/.local/share/folio/Textures"), "XDG_DATA_HOME defaults to ~/.local/share")
        XCTAssertEqual(found("Textures", executable: "prefix/bin/folio", dirs), path("b/folio/Textures"))
    }

    func testTheDefaultDataDirectories() {
        XCTAssertEqual(Resources.dataDirectories(["HOME": "/h", "XDG_DATA_HOME": ""]),
                       ["/h/.local/share", "/usr/local/share", "/usr/share"])
    }

    func testTheSourceTreeTheBinaryWasBuiltIn() throws {
        try makeDirectory("src/.build/x86_64/debug")
        try makeDirectory("src/Shaders")
        FileManager.default.createFile(atPath: path("src/Package.swift"), contents: Data())
        // A folder called Shaders without Package.swift beside it is not a source tree.
        try makeDirectory("src/.build/Shaders")
        XCTAssertEqual(found("Shaders", executable: "src/.build/x86_64/debug/folio", ["XDG_DATA_DIRS": path("none")]),
                       path("src/Shaders"))
        XCTAssertNil(found("Textures", executable: "src/.build/x86_64/debug/folio", ["XDG_DATA_DIRS": path("none")]))
    }

    func testTheRunningExecutableIsARealAbsolutePath() {
        let exe = Resources.executablePath
        XCTAssertTrue(exe.hasPrefix("/"), exe)
        XCTAssertEqual(URL(fileURLWithPath: exe).resolvingSymlinksInPath().path, exe)
    }
}
