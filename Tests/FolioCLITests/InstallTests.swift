import FolioBook
import FolioImage
import Foundation
import Testing

/// The installed layout (docs/install.md) without a release build: the debug binary copied
/// into `PREFIX/bin` of a temporary prefix, the shaders and sample library into
/// `PREFIX/share/folio`, run from `/` with no FOLIO_* variable and XDG folders that hold nothing.
@Suite(.serialized) struct InstallTests {
    private static let hasMan = FolioProcess.available("man")
    private static let hasValidator = FolioProcess.available("desktop-file-validate")

    /// A fake prefix; removed by the caller.
    private func makePrefix() throws -> URL {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let fm = FileManager.default
        let prefix = fm.temporaryDirectory.appendingPathComponent("folio-prefix-\(UUID().uuidString)")
        try fm.createDirectory(at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try fm.createDirectory(at: prefix.appendingPathComponent("share/folio"), withIntermediateDirectories: true)
        // A copy, not a link: the binary resolves links to find its own place.
        try fm.copyItem(at: folio, to: prefix.appendingPathComponent("bin/folio"))
        for folder in ["Shaders", "Textures"] {
            try fm.copyItem(at: FolioProcess.packageRoot.appendingPathComponent(folder),
                            to: prefix.appendingPathComponent("share/folio/\(folder)"))
        }
        return prefix
    }

    /// The environment of a user who set nothing for Folio, with empty XDG data folders.
    private func environment(home: URL) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOLIO_") }
        env["HOME"] = home.path
        env["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        env["XDG_DATA_DIRS"] = home.appendingPathComponent("none").path
        return env
    }

    private func folio(_ prefix: URL, _ arguments: [String]) throws -> FolioProcess.Result {
        try FolioProcess.run(prefix.appendingPathComponent("bin/folio").path, arguments,
                             environment: environment(home: prefix), directory: "/", timeout: 60)
    }

    @Test func theInstalledBinaryFindsItsFilesFromItsPrefix() throws {
        let prefix = try makePrefix()
        defer { try? FileManager.default.removeItem(at: prefix) }
        let info = try folio(prefix, ["info"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("(\(prefix.path)/share/folio/Textures)"), "\(info.stdout)")

        let png = prefix.appendingPathComponent("shelf.png").path
        let capture = try folio(prefix, ["capture", "--size", "128x72", "-o", png])
        #expect(capture.status == 0, "\(capture.stderr)")
        // The shelf: books in the middle, the plain backdrop in the corners.
        let image = try PNG.read(path: png)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 3]) }
        let corner = pixel(2, 2), middle = pixel(64, 36)
        #expect(zip(corner, middle).map { abs(Int($0) - Int($1)) }.max()! > 40, "corner \(corner), middle \(middle)")
    }

    @Test func withoutTheShadersItSaysWhereItLooked() throws {
        let prefix = try makePrefix()
        defer { try? FileManager.default.removeItem(at: prefix) }
        try FileManager.default.removeItem(at: prefix.appendingPathComponent("share/folio/Shaders"))
        let r = try folio(prefix, ["capture", "--size", "32x18", "-o", prefix.appendingPathComponent("x.png").path])
        #expect(r.status != 0)
        #expect(r.stderr.contains("cannot find the Shaders/ folder"), "\(r.stderr)")
        #expect(r.stderr.contains("XDG data directories"), "\(r.stderr)")
    }

    /// What "Open with Folio" on a page image runs: the book of the folder it is in, open at
    /// that page (capture and layout as the viewer); an explicit --page goes first.
    @Test func aPageImageOpensItsFolderAtIt() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("folio-open-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir); try? fm.removeItem(atPath: dir.path + "-out.png") }
        // Six pages of one colour each: red, green, blue, yellow, cyan, magenta.
        let colours: [(UInt8, UInt8, UInt8)] = [(220, 0, 0), (0, 200, 0), (0, 0, 220), (220, 220, 0), (0, 200, 200), (220, 0, 220)]
        for (i, c) in colours.enumerated() {
            try PNG.write(RGBAImage(width: 181, height: 284, fill: (c.0, c.1, c.2, 255)), to: dir.appendingPathComponent("page-\(i + 1).png").path)
        }
        func capture(_ source: String, _ extra: [String] = []) throws -> RGBAImage {
            // Not in the folder of pages, where it would be a page.
            let out = dir.path + "-out.png"
            let r = try FolioProcess.run(folio.path, ["capture", source, "--size", "256x144", "-o", out] + extra, timeout: 60)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            return try PNG.read(path: out)
        }
        // The right-hand page of the spread, a little right of the spine.
        func rightPage(_ image: RGBAImage) -> [Int] {
            let at = (72 * image.width + 160) * 4
            return image.pixels[at..<at + 3].map(Int.init)
        }
        // page-3.png is page 3 (layout page 4): the right page of spread 1.
        let third = try capture(dir.appendingPathComponent("page-3.png").path)
        let p = rightPage(third)
        #expect(p[2] > p[0] + 60 && p[2] > p[1] + 60, "not the blue page: \(p)")
        // Compared apart from the expectation, which would list every pixel of a failure.
        let same = third.pixels == (try capture(dir.path, ["--book", "0", "--page", "3"])).pixels
        #expect(same, "the page installed draws as the page given")
        // --page given explicitly wins: page 1 is the first image, red.
        let first = rightPage(try capture(dir.appendingPathComponent("page-3.png").path, ["--page", "1"]))
        #expect(first[0] > first[1] + 60 && first[0] > first[2] + 60, "not the red page: \(first)")
        let layout = try FolioProcess.run(folio.path, ["layout", dir.appendingPathComponent("page-5.png").path], timeout: 60)
        // page-5.png is image 4, layout page 6: the book is open, its page 6 shown.
        #expect(layout.status == 0 && layout.stdout.contains("\"state\": \"reading\""), "\(layout.stderr)")
        #expect(layout.stdout.contains("\"page\": 6,"), "\(layout.stdout)")
    }

    /// `make install` then `make uninstall` in a fresh prefix leave the prefix as it was: every
    /// file gone, every folder install made gone, a folder that was there before kept. The debug
    /// binary stands in for the release build (a `swift` stub names its folder).
    @Test(.enabled(if: FolioProcess.available("make"), "needs make"))
    func uninstallRemovesTheFoldersInstallMade() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("folio-make-\(UUID().uuidString)")
        let prefix = dir.appendingPathComponent("prefix")
        try fm.createDirectory(at: prefix.appendingPathComponent("share/applications"), withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let stub = dir.appendingPathComponent("swift")
        try "#!/bin/sh\ncase \"$*\" in *--show-bin-path*) echo '\(folio.deletingLastPathComponent().path)';; esac\n"
            .write(to: stub, atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stub.path)
        func make(_ target: String) throws {
            let r = try FolioProcess.run("/usr/bin/env", ["make", "-s", "-C", FolioProcess.packageRoot.path, target,
                                                          "PREFIX=\(prefix.path)", "SWIFT=\(stub.path)"], timeout: 120)
            #expect(r.status == 0, "make \(target): \(r.stderr)")
        }
        try make("install")
        #expect(fm.fileExists(atPath: prefix.appendingPathComponent("share/man/man1/folio.1").path))
        try make("uninstall")
        let left = try fm.subpathsOfDirectory(atPath: prefix.path).sorted()
        #expect(left == ["share", "share/applications"], "\(left)")
    }

    /// CI installs every package the Makefile names for building and for the tests, so a
    /// package added to one list and not to `.ci/run` fails here, not on a fresh machine.
    @Test func ciInstallsEveryPackageTheMakefileNames() throws {
        let root = FolioProcess.packageRoot
        // A file's lines with continued lines (ending in a backslash) joined.
        func lines(_ name: String) throws -> [Substring] {
            try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
                .replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
        }
        let installed = Set(try lines(".ci/run").filter { $0.hasPrefix("apt-get install") }.flatMap { $0.split(separator: " ").map(String.init) })
        for list in ["BUILD_PACKAGES", "TEST_PACKAGES"] {
            let value = try #require(try lines("Makefile").first { $0.hasPrefix(list + " :=") }, "no \(list) in the Makefile")
            let packages = value.split(separator: " ").dropFirst(2).map(String.init)
            #expect(!packages.isEmpty)
            for p in packages { #expect(installed.contains(p), ".ci/run does not install \(p) (\(list))") }
        }
    }

    @Test func versionIsTheOneInVersionSwift() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let r = try FolioProcess.run(folio.path, ["--version"], timeout: 30)
        let source = try String(contentsOf: FolioProcess.packageRoot.appendingPathComponent("Sources/folio/Version.swift"), encoding: .utf8)
        #expect(r.status == 0)
        #expect(source.contains("let folioVersion = \"\(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))\"\n"), "\(r.stdout)")
    }

    @Test(.enabled(if: hasValidator, "needs desktop-file-validate (apt-get install desktop-file-utils)"))
    func theDesktopEntryValidatesAndOpensFilesAndFolders() throws {
        let entry = FolioProcess.packageRoot.appendingPathComponent("data/folio.desktop")
        let r = try FolioProcess.run("/usr/bin/env", ["desktop-file-validate", entry.path], timeout: 30)
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
        let text = try String(contentsOf: entry, encoding: .utf8)
        #expect(text.contains("\nExec=folio view %f\n"))
        for type in ["inode/directory", "image/png", "image/jpeg", "application/pdf", "application/epub+zip", "application/x-mobipocket-ebook",
                     "application/x-fictionbook+xml", "image/vnd.djvu", "application/vnd.comicbook+zip", "application/vnd.comicbook-rar", "text/plain"] {
            #expect(text.contains(type + ";"), "MimeType lacks \(type)")
        }
    }

    /// docs/folio.1 renders without a warning and names every option of every command (it is
    /// generated by `make man`: a new option without a new page fails here).
    @Test(.enabled(if: hasMan, "needs man (apt-get install man-db)"))
    func theManualPageRendersAndIsCurrent() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let page = FolioProcess.packageRoot.appendingPathComponent("docs/folio.1").path
        var env = ProcessInfo.processInfo.environment
        env["MANPAGER"] = "cat"
        env["MANWIDTH"] = "100"
        let r = try FolioProcess.run("/usr/bin/env", ["man", "-l", page], environment: env, timeout: 30)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let source = try String(contentsOfFile: page, encoding: .utf8)
        for command in ["view", "capture", "layout", "info", "bench", "record"] {
            #expect(r.stdout.contains("\n     \(command)"), "no section for \(command)")
            let help = try FolioProcess.run(folio.path, [command, "--help"], timeout: 30).stdout
            for option in Set(help.matches(of: /--[a-z][a-z-]*/).map { String($0.output.dropFirst(2)) }) {
                // `.It Fl -size Ar size`, or `.It Fl o , -output Ar output` with a short name.
                #expect(source.contains(".It Fl -\(option)") || source.contains(" , -\(option)"),
                        "folio \(command) --\(option) is not in docs/folio.1: run make man")
            }
        }
    }
}

/// The progress line: on a terminal (a pseudo-terminal made by script(1)) while work goes
/// on, never when standard error is a file.
@Suite struct ProgressTests {
    @Test(.enabled(if: FolioProcess.available("script"), "needs script (apt-get install bsdutils)"))
    func infoShowsProgressOnATerminalOnly() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        // A book of 200 links to the sample pages: decoding them takes about a second here.
        let fm = FileManager.default
        let book = fm.temporaryDirectory.appendingPathComponent("folio-progress-\(UUID().uuidString)")
        try fm.createDirectory(at: book, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: book) }
        let pages = FolioProcess.packageRoot.appendingPathComponent("Textures/alice/pages")
        let samples = try fm.contentsOfDirectory(atPath: pages.path).filter { $0.hasSuffix(".png") }.sorted()
        for i in 0..<200 {
            try fm.createSymbolicLink(atPath: book.appendingPathComponent(String(format: "page-%03d.png", i)).path,
                                      withDestinationPath: pages.appendingPathComponent(samples[i % samples.count]).path)
        }
        let command = "\(folio.path) info --decode \(book.path)"
        let terminal = try FolioProcess.run("/usr/bin/env", ["script", "-qec", command, "/dev/null"], timeout: 120)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("\r\u{1B}[Kfolio info: "), "\(terminal.stdout)")
        #expect(terminal.stdout.contains("/200 files, ") && terminal.stdout.contains(" left"), "\(terminal.stdout)")
        let file = try FolioProcess.run(folio.path, ["info", "--decode", book.path], timeout: 120)
        #expect(file.status == 0 && file.stderr.isEmpty, "\(file.stderr)")
        let quiet = try FolioProcess.run("/usr/bin/env", ["script", "-qec", command + " --quiet", "/dev/null"], timeout: 120)
        #expect(!quiet.stdout.contains("folio info: "), "\(quiet.stdout)")
    }
}
