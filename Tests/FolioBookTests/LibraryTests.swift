@testable import FolioLibrary
import XCTest
@testable import FolioBook

final class JSONParserTests: XCTestCase {
    func parse(_ text: String) throws -> ManifestValue { try ManifestValue.parse(Array(text.utf8)) }

    func testValuesAndTheirLines() throws {
        let v = try parse("""
        {
          "a": [1, -2.5e2, true, false, null],
          "s": "tab\\t quote\\" \\u00e9 \\ud83d\\udcd6 /",
          "o": {}
        }
        """)
        XCTAssertEqual(v.line, 1)
        XCTAssertEqual(v["a"]?.line, 2)
        XCTAssertEqual(v["a"], ManifestValue(kind: .array([
            .init(kind: .number(1), line: 2), .init(kind: .number(-250), line: 2), .init(kind: .bool(true), line: 2),
            .init(kind: .bool(false), line: 2), .init(kind: .null, line: 2)]), line: 2))
        XCTAssertEqual(v["s"]?.kind, .string("tab\t quote\" é 📖 /"))
        XCTAssertEqual(v["o"]?.line, 4)
        XCTAssertEqual(v["o"]?.kind, .object([]))
    }

    func testSyntaxErrorsGiveLineAndColumn() {
        let cases: [(String, Int, Int, String)] = [
            ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}'"),
            ("[1, 2,\n]", 2, 1, "where a value was expected"),
            ("{\"a\": tru}", 1, 7, "where a value was expected"),
            ("{\"a\": \"x\n\"}", 1, 9, "not closed"),
            ("{\"a\": 01}", 1, 7, "may not start with 0"),
            ("{\"a\": 1} x", 1, 10, "after the end"),
            ("", 1, 1, "empty"),
            ("{\"a\": [1, 2", 1, 12, "ends inside an array"),
        ]
        for (text, line, column, words) in cases {
            XCTAssertThrowsError(try parse(text), text) { error in
                guard let e = error as? ManifestSyntaxError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.line, line, text)
                XCTAssertEqual(e.column, column, text)
                XCTAssertTrue(e.message.contains(words), "\(e.message) should say \(words)")
            }
        }
    }
}

final class LibraryTests: XCTestCase {
    let png = TestPNG.page()

    /// A page image named on its own ("Open with" on a page) is the book of its folder, at it.
    func testAPageImageOpensTheBookOfItsFolderAtIt() {
        let dir = TempDir()
        for name in ["p1.png", "p2.png", "p10.png"] { dir.write("book/\(name)", png) }
        dir.write("book/.hidden.png", png)
        let lib = Library.load(from: dir.path + "/book/p10.png")
        XCTAssertEqual(lib.books.map(\.title), ["book"])
        XCTAssertEqual(lib.books.first?.pages.count, 3)
        XCTAssertEqual(lib.namedPage, Library.PagePlace(book: 0, image: 2))
        XCTAssertEqual(lib.problems, [])
        // One the folder does not list is a book of one page, as before.
        let hidden = Library.load(from: dir.path + "/book/.hidden.png")
        XCTAssertEqual(hidden.books.map(\.pages.count), [1])
        XCTAssertNil(hidden.namedPage)
    }

    /// With a manifest in the folder: the manifest's book that holds the page; a page no book
    /// of it holds opens the folder's images as one book.
    func testAPageImageBesideAManifestOpensTheBookHoldingIt() {
        let dir = TempDir()
        for name in ["a.png", "b.png", "c.png", "loose.png"] { dir.write("shelf/\(name)", png) }
        dir.write("shelf/Library.json", text: """
        {"books": [{"title": "X", "pages": ["c.png", "a.png"]}, {"title": "Y", "pages": ["b.png", "a.png"]}]}
        """)
        let lib = Library.load(from: dir.path + "/shelf/b.png")
        XCTAssertEqual(lib.books.map(\.title), ["X", "Y"])
        XCTAssertEqual(lib.namedPage, Library.PagePlace(book: 1, image: 0))
        XCTAssertEqual(Library.load(from: dir.path + "/shelf/a.png").namedPage, Library.PagePlace(book: 0, image: 1))
        let loose = Library.load(from: dir.path + "/shelf/loose.png")
        XCTAssertEqual(loose.books.map(\.pages.count), [4])
        XCTAssertEqual(loose.namedPage, Library.PagePlace(book: 0, image: 3))
        XCTAssertEqual(loose.problems, [])
    }

    func testNaturalSort() {
        let names = ["page10.png", "page2.png", "Page1.png", "page02.png", "page1b.png", "a.png", "page100.png", "page9.png"]
        XCTAssertEqual(names.sorted(by: naturalLess),
                       ["a.png", "Page1.png", "page1b.png", "page02.png", "page2.png", "page9.png", "page10.png", "page100.png"])
    }

    func testFolderOfImages() {
        let dir = TempDir()
        for name in ["p10.png", "p2.png", "p1.PNG"] { dir.write("book/\(name)", png) }
        dir.write("book/notes.txt", text: "hello")
        dir.write("book/.hidden.png", png)
        dir.write("book/.DS_Store", text: "x")
        _ = dir.mkdir("book/extras")
        let lib = Library.load(from: dir.path + "/book")
        XCTAssertEqual(lib.books.count, 1)
        XCTAssertEqual(lib.books[0].title, "book")
        XCTAssertEqual(lib.books[0].pages.map { ($0.path as NSString).lastPathComponent }, ["p1.PNG", "p2.png", "p10.png"])
        XCTAssertEqual(lib.books[0].direction, .ltr)
        // Page size follows the first page's aspect (16 × 24).
        XCTAssertEqual(lib.books[0].pageWidth / lib.books[0].pageHeight, 16.0 / 24, accuracy: 0.01)
        XCTAssertEqual(lib.problems, [Problem(file: dir.path + "/book/notes.txt", message: "skipped: not a page image (PNG, JPEG or WebP)", severity: .note)])
    }

    /// Page images are pictures unless the book's manifest says they are printed on paper (a
    /// theme then recolours them and the other side shows through); a value that is no
    /// boolean is one problem naming the field, and the book stays as its format says.
    func testAManifestSaysWhetherPageImagesArePrinted() {
        let dir = TempDir()
        for name in ["a", "b", "c"] { dir.write("\(name)/p1.png", png) }
        dir.write("a/Book.json", text: #"{"title": "Text", "printed": true}"#)
        dir.write("c/Book.json", text: #"{"title": "Odd", "printed": "yes"}"#)
        XCTAssertEqual(Library.load(from: dir.path + "/a").books.map(\.isPrinted), [true])
        XCTAssertEqual(Library.load(from: dir.path + "/b").books.map(\.isPrinted), [false])
        let odd = Library.load(from: dir.path + "/c")
        XCTAssertEqual(odd.books.map(\.isPrinted), [false])
        XCTAssertEqual(odd.problems.map(\.message), ["printed: expected true or false, found a string"])
    }

    func testEmptyAndSinglePageFolders() {
        let dir = TempDir()
        _ = dir.mkdir("empty")
        dir.write("one/only.png", png)
        let empty = Library.load(from: dir.path + "/empty")
        XCTAssertEqual(empty.books.map(\.pages.count), [0])
        XCTAssertEqual(empty.problems.map(\.severity), [.note])
        XCTAssertEqual(Library.load(from: dir.path + "/one").books.map(\.pages.count), [1])
    }

    func testFolderOfBookFolders() {
        let dir = TempDir()
        dir.write("shelf/Book 10/a.png", png)
        dir.write("shelf/Book 2/a.png", png)
        dir.write("shelf/Book 2/b.png", png)
        dir.write("shelf/Manga/1.png", png)
        dir.write("shelf/Manga/Book.json", text: #"{ "title": "右から", "direction": "rtl" }"#)
        _ = dir.mkdir("shelf/Empty")
        let lib = Library.load(from: dir.path + "/shelf")
        XCTAssertEqual(lib.title, "shelf")
        XCTAssertEqual(lib.books.map(\.title), ["Book 2", "Book 10", "右から"])
        XCTAssertEqual(lib.books.map(\.pages.count), [2, 1, 1])
        XCTAssertEqual(lib.books.map(\.direction), [.ltr, .ltr, .rtl])
        XCTAssertEqual(lib.problems.map(\.file), [dir.path + "/shelf/Empty"])
    }

    func testLibraryManifest() {
        let dir = TempDir()
        dir.write("alice/cover.png", png)
        for i in 1...3 { dir.write("alice/pages/\(i).png", png) }
        dir.write("manga/p1.png", png)
        dir.write("manga/p2.png", png)
        let manifest = dir.write("Library.json", text: """
        { "title": "My shelf",
          "books": [
            { "title": "Alice", "author": "Lewis Carroll", "cover": "alice/cover.png", "pages": "alice/pages",
              "direction": "ltr", "pageSize": [362, 568] },
            { "title": "Manga", "pages": ["manga/p2.png", "./manga/p1.png"], "direction": "rtl", "pageSize": [400, 600] }
          ] }
        """)
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.title, "My shelf")
        XCTAssertEqual(lib.problems, [])
        XCTAssertEqual(lib.books, [
            Book(title: "Alice", author: "Lewis Carroll", cover: .image(dir.path + "/alice/cover.png"),
                 pages: (1...3).map { .image(dir.path + "/alice/pages/\($0).png") }, direction: .ltr, pageWidth: 362, pageHeight: 568),
            Book(title: "Manga", pages: [.image(dir.path + "/manga/p2.png"), .image(dir.path + "/manga/p1.png")], direction: .rtl,
                 pageWidth: 400, pageHeight: 600),
        ])
        XCTAssertEqual(Library.load(from: manifest), lib)
    }

    func testPlistFormReadsTheSameLibrary() {
        let dir = TempDir()
        dir.write("a/1.png", png)
        dir.write("Library.plist", text: """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
          <key>title</key><string>Plist shelf</string>
          <key>books</key>
          <array>
            <dict>
              <key>title</key><string>A</string>
              <key>pages</key><array><string>a/1.png</string></array>
              <key>direction</key><string>rtl</string>
              <key>pageSize</key><array><integer>300</integer><real>450.5</real></array>
            </dict>
          </array>
        </dict>
        </plist>
        """)
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.problems, [])
        XCTAssertEqual(lib.title, "Plist shelf")
        XCTAssertEqual(lib.books, [Book(title: "A", pages: [.image(dir.path + "/a/1.png")], direction: .rtl, pageWidth: 300, pageHeight: 450.5)])

        let broken = dir.write("bad/Library.plist", text: "<plist><dict><key>title</key></plist>")
        let bad = Library.load(from: dir.path + "/bad")
        XCTAssertEqual(bad.books, [])
        XCTAssertEqual(bad.problems.count, 1)
        XCTAssertEqual(bad.problems.first?.file, broken)
        XCTAssertTrue(bad.problems.first?.message.contains("property list") == true)
    }

    func testBookManifestMarksAFolderRightToLeft() {
        let dir = TempDir()
        for i in [3, 1, 2] { dir.write("comic/\(i).png", png) }
        dir.write("comic/Book.json", text: #"{ "direction": "rtl", "author": "A. Artist" }"#)
        let lib = Library.load(from: dir.path + "/comic")
        XCTAssertEqual(lib.problems, [])
        XCTAssertEqual(lib.books.count, 1)
        XCTAssertEqual(lib.books[0].title, "comic")
        XCTAssertEqual(lib.books[0].author, "A. Artist")
        XCTAssertEqual(lib.books[0].direction, .rtl)
        XCTAssertEqual(lib.books[0].pages, [1, 2, 3].map { .image(dir.path + "/comic/\($0).png") })
        // A library can name the book folder by path.
        dir.write("Library.json", text: #"{ "books": ["comic", "comic/Book.json"] }"#)
        XCTAssertEqual(Library.load(from: dir.path).books.map(\.direction), [.rtl, .rtl])
    }

    // MARK: Broken manifests: file, line and field

    func testSyntaxErrorNamesFileAndLine() {
        let dir = TempDir()
        let path = dir.write("Library.json", text: """
        {
          "books": [
            { "title": "A", "pages": [] }
            { "title": "B" }
          ]
        }
        """)
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.books, [])
        XCTAssertEqual(lib.problems.count, 1)
        XCTAssertEqual(lib.problems[0].file, path)
        XCTAssertEqual(lib.problems[0].line, 4)
        XCTAssertTrue(lib.problems[0].description.hasPrefix("\(path):4: column 5: expected ',' or ']'"), lib.problems[0].description)
    }

    /// A document of a kind no format reads (a Microsoft Reader book: the formats registered are
    /// process-wide, and other tests of this process register MuPDF's EPUB) is not read as a
    /// broken manifest; a manifest named as one still gets its line and column.
    func testADocumentNoFormatReadsIsNotCalledABrokenManifest() {
        let dir = TempDir()
        let book = dir.write("book.lit", [0x49, 0x54, 0x4F, 0x4C, 0x49, 0x54, 0x4C, 0x53])
        let lib = Library.load(from: book, logProblems: false)
        XCTAssertEqual(lib.problems, [Problem(file: book, message: "neither a library or book manifest nor a kind of document this program opens")])
        // A page of HTML was called "not a valid property list" (it starts with "<").
        let page = dir.write("page.html", text: "<html><body><p>words</p></body></html>")
        XCTAssertEqual(Library.load(from: page, logProblems: false).problems,
                       [Problem(file: page, message: "neither a library or book manifest nor a kind of document this program opens")])
        let manifest = dir.write("Book.json", text: "PK")
        XCTAssertTrue(Library.load(from: manifest, logProblems: false).problems[0].description.hasPrefix("\(manifest):1: column 1: "))
    }

    func testWrongFieldTypesNameLineAndField() {
        let dir = TempDir()
        dir.write("a/1.png", png)
        let path = dir.write("Library.json", text: """
        {
          "books": [
            { "title": "Fine", "pages": "a" },
            {
              "title": 42,
              "pages": ["a/1.png", 7],
              "direction": "upside-down",
              "pageSize": [0, 10],
              "colour": "blue"
            },
            "not a folder"
          ]
        }
        """)
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.books.map(\.title), ["Fine", "Book 2"])
        XCTAssertEqual(lib.books[1].pages, [.image(dir.path + "/a/1.png")])
        let found = lib.problems.map { "\($0.line ?? 0) \($0.message)" }
        let expected = [
            "9 books[1].colour: unknown field",
            "6 books[1].pages[1]: expected a path, found a number",
            "5 books[1].title: expected a string, found a number",
            "7 books[1].direction: expected \"ltr\" or \"rtl\", found \"upside-down\"",
            "8 books[1].pageSize: expected [width, height] with two positive numbers, found an array",
        ]
        for e in expected { XCTAssertTrue(found.contains { $0.hasPrefix(e) }, "missing \(e) in \(found)") }
        XCTAssertTrue(lib.problems.allSatisfy { $0.file == path || $0.file.hasSuffix("not a folder") })
        XCTAssertTrue(lib.problems.contains { $0.file == dir.path + "/not a folder" && $0.message == "no such file or folder" })
    }

    func testPathsOutsideTheManifestFolderAreRefused() {
        let dir = TempDir()
        dir.write("outside/secret.png", png)
        dir.write("lib/in/1.png", png)
        let path = dir.write("lib/Library.json", text: """
        { "books": [
          { "title": "Escape", "pages": "../outside" },
          { "title": "Mixed", "pages": ["in/1.png", "in/../../outside/secret.png", "\(dir.path)/outside/secret.png", "\(dir.path)/lib/in/1.png"],
            "cover": "/etc/passwd" }
        ] }
        """)
        let lib = Library.load(from: dir.path + "/lib")
        XCTAssertEqual(lib.books.map(\.title), ["Escape", "Mixed"])
        XCTAssertEqual(lib.books[0].pages, [])
        XCTAssertEqual(lib.books[1].pages, [.image(dir.path + "/lib/in/1.png"), .image(dir.path + "/lib/in/1.png")])
        XCTAssertNil(lib.books[1].cover)
        let refusals = lib.problems.filter { $0.message.contains("points outside the manifest's folder") }
        XCTAssertEqual(refusals.map(\.line), [2, 3, 3, 4])
        XCTAssertTrue(refusals.allSatisfy { $0.file == path })
        XCTAssertTrue(refusals[0].message.hasPrefix("books[0].pages: \"../outside\""), refusals[0].message)
    }

    func testMissingSourcesAndFoldersKeepTheRestOfTheLibrary() {
        let dir = TempDir()
        dir.write("good/1.png", png)
        dir.write("Library.json", text: #"{ "books": [ { "pages": "gone" }, { "title": "Good", "pages": "good" }, { "title": "Listed", "pages": ["missing.png"] } ] }"#)
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.books.map(\.title), ["gone", "Good", "Listed"])
        XCTAssertEqual(lib.books.map(\.pages.count), [0, 1, 1])
        XCTAssertEqual(lib.problems.map(\.description), ["\(dir.path)/gone: cannot open the folder: No such file or directory"])

        let none = Library.load(from: dir.path + "/nothing-here")
        XCTAssertEqual(none.books, [])
        XCTAssertEqual(none.problems.map(\.message), ["no such file or folder"])
    }

    func testUnreadableFolder() throws {
        let dir = TempDir()
        dir.write("locked/1.png", png)
        dir.write("ok/1.png", png)
        chmod(dir.path + "/locked", 0)
        defer { chmod(dir.path + "/locked", 0o755) }
        if (try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/locked")) != nil {
            throw XCTSkip("running as root: chmod 000 does not stop this process reading the folder")
        }
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.books.map(\.title), ["ok"])
        XCTAssertEqual(lib.problems.map(\.description), ["\(dir.path)/locked: cannot open the folder: Permission denied"])
        let direct = Library.load(from: dir.path + "/locked")
        XCTAssertEqual(direct.problems.map(\.message), ["cannot open the folder: Permission denied"])
    }

    func testManifestIncludingItselfStops() {
        let dir = TempDir()
        dir.write("Library.json", text: #"{ "books": ["."] }"#)
        let lib = Library.load(from: dir.path)
        XCTAssertEqual(lib.books, [])
        XCTAssertTrue(lib.problems.contains { $0.message.contains("includes itself") })
    }
}
