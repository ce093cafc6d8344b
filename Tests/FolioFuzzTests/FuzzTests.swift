import FolioArchive
@testable import FolioBook
import FolioDjVu
import FolioImage
import FolioLayout
import FolioPDF
@testable import FolioLibrary
@testable import FolioMuPDF
import FolioReader
import FolioScript
import FolioState
import Foundation
import Testing

// Mutation fuzzing of everything that reads what a user or a file gives: the manifest parsers
// (JSON, XML and binary plists) and the loader behind them, the record-script parser and its
// player, the picture readers (PNG whole and streamed, JPEG and WebP as a comic's pages), and
// the e-books Folio prepares for MuPDF (FB2, EPUB and Kindle books). Each input must come back as a value or an
// error, quickly; a crash, a trap or a hang fails the run.
//
// `make test` runs a fixed number of inputs from a fixed seed (a few seconds, the same inputs
// every time). For a longer hunt: `make fuzz` (FOLIO_FUZZ_SECONDS, default 300, per target;
// FOLIO_FUZZ_SEED picks other inputs). A failing input is written to the temporary folder and
// its path printed, to be replayed and kept as a regression test.

/// SplitMix64: small, fast and the same on every machine.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// How long and from where a run goes.
struct FuzzBudget {
    var seed: UInt64
    var iterations: Int
    var seconds: Double?

    static func current(iterations: Int) -> FuzzBudget {
        let env = ProcessInfo.processInfo.environment
        let seed = env["FOLIO_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_123
        if let s = env["FOLIO_FUZZ_SECONDS"].flatMap(Double.init), s > 0 {
            return FuzzBudget(seed: seed, iterations: .max, seconds: s)
        }
        return FuzzBudget(seed: seed, iterations: iterations, seconds: nil)
    }
}

/// Byte-level mutations, with a dictionary of tokens that reach deeper than random bytes.
struct Mutator {
    var random: Random
    let dictionary: [[UInt8]]

    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var b = input
        for _ in 0...random.below(4) {
            switch random.below(7) {
            case 0 where !b.isEmpty:  // flip a bit
                let i = random.below(b.count)
                b[i] ^= 1 << UInt8(random.below(8))
            case 1 where !b.isEmpty:  // set a byte to an interesting value
                b[random.below(b.count)] = random.pick([0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x2C, 0x5B, 0x7B, 0x0A])
            case 2 where !b.isEmpty:  // delete a run
                let i = random.below(b.count)
                b.removeSubrange(i..<min(b.count, i + 1 + random.below(16)))
            case 3:  // insert a token
                b.insert(contentsOf: random.pick(dictionary), at: random.below(b.count + 1))
            case 4 where b.count > 1:  // duplicate a run
                let i = random.below(b.count), n = 1 + random.below(min(64, b.count - i))
                b.insert(contentsOf: b[i..<i + n], at: random.below(b.count + 1))
            case 5 where !b.isEmpty:  // truncate
                b.removeSubrange(random.below(b.count)...)
            default:  // replace a run with a token
                guard !b.isEmpty else { continue }
                let i = random.below(b.count)
                b.replaceSubrange(i..<min(b.count, i + 1 + random.below(8)), with: random.pick(dictionary))
            }
        }
        return b
    }
}

/// Runs `body` over mutated inputs until the budget is spent; fails on a slow input (the limit
/// is wide: on shared, loaded cores a 17-byte manifest once took 2 s of wall time).
func fuzz(_ name: String, seeds: [[UInt8]], dictionary: [String], iterations: Int,
          maxSecondsPerInput: Double = 10, _ body: ([UInt8]) throws -> Void) {
    let budget = FuzzBudget.current(iterations: iterations)
    // Each target its own stream from the seed (String.hashValue is random per process).
    let salt = name.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
    var mutator = Mutator(random: Random(state: budget.seed ^ salt), dictionary: dictionary.map { Array($0.utf8) })
    let start = Date()
    var done = 0
    var corpus = seeds
    while done < budget.iterations {
        if let s = budget.seconds, Date().timeIntervalSince(start) > s { break }
        let input = mutator.mutate(mutator.random.pick(corpus))
        let t0 = Date()
        do { try body(input) } catch {}
        let took = Date().timeIntervalSince(t0)
        if took > maxSecondsPerInput {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("folio-fuzz-\(name)-slow-\(done).bin")
            try? Data(input).write(to: file)
            Issue.record("\(name): an input took \(took) s (saved at \(file.path))")
        }
        // Keep some mutants as seeds, so mutations compound.
        if mutator.random.below(8) == 0 { corpus.append(input) }
        if corpus.count > 256 { corpus.remove(at: seeds.count + mutator.random.below(corpus.count - seeds.count)) }
        done += 1
    }
    print("fuzz \(name): \(done) inputs (\(corpus.count) in the corpus) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, seed \(budget.seed)")
}

@Suite struct FuzzTests {
    static let manifestSeeds: [String] = [
        #"{ "title": "Shelf", "books": [ { "title": "A", "pages": ["a/1.png", "a/2.png"], "direction": "rtl", "pageSize": [362, 568] }, "b", { "pages": "c" } ] }"#,
        #"{ "direction": "ltr", "pageSize": [1e20, 568], "cover": "c.png" }"#,
        #"[1, 2, {"a": [true, false, null, -0, 1e-300, "\u00e9\ud83d\ude00"]}]"#,
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>books</key><array><dict><key>title</key><string>A</string>
        <key>pageSize</key><array><integer>362</integer><real>1e-300</real></array></dict></array></dict></plist>
        """,
    ]

    static let jsonTokens = ["{", "}", "[", "]", ",", ":", "\"", "\\u", "\\ud800", "1e309", "-0", "1e-400", "99999999999999999999",
                             "null", "true", "\"books\"", "\"pages\"", "\"pageSize\"", "\"../..\"", "\"/etc/passwd\"", "\u{FEFF}",
                             "<plist>", "<dict>", "<key>", "</key>", "<real>", "nan", "<integer>", "bplist00",
                             String(repeating: "[", count: 300)]

    @Test func manifestParsers() throws {
        var binarySeeds: [[UInt8]] = []
        let plist: [String: Any] = ["books": [["title": "A", "pageSize": [362, 568.5], "pages": ["1.png"]]], "title": "T"]
        binarySeeds.append([UInt8](try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)))
        fuzz("manifest-parse", seeds: Self.manifestSeeds.map { Array($0.utf8) } + binarySeeds, dictionary: Self.jsonTokens,
             iterations: 20_000) { bytes in
            do {
                _ = try ManifestValue.parse(bytes)
            } catch is ManifestSyntaxError {
            }
        }
    }

    @Test func manifestLoader() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = try PNG.encode(RGBAImage(width: 4, height: 6, fill: (200, 190, 180, 255)))
        try Data(page).write(to: dir.appendingPathComponent("a/1.png"))
        let manifest = dir.appendingPathComponent("Library.json")
        fuzz("manifest-load", seeds: Self.manifestSeeds.map { Array($0.utf8) }, dictionary: Self.jsonTokens, iterations: 600) { bytes in
            try Data(bytes).write(to: manifest)
            let library = Library.load(from: manifest.path, logProblems: false)
            for book in library.books {
                #expect(Book.isPageSize(book.pageWidth, book.pageHeight), "\(book.pageWidth)×\(book.pageHeight)")
                #expect(book.pages.allSatisfy { $0.path.hasPrefix(dir.path) || $0.path.hasPrefix("/private" + dir.path) }, "a page outside the manifest's folder")
            }
            if library.books.isEmpty { #expect(!library.problems.isEmpty, "no books and no reason") }
        }
    }

    @Test func recordScripts() {
        let seeds = ["open; next 3; wait 0.5; prev; close", "style curl fan; open; curl 0.83,-0.44; goto 12; last; first",
                     "shelf next; shelf prev; book 1; open\n# comment\nnext 2 # more", "open; style vertical reverse below; next; curl -0.55,0.18"]
        let tokens = ["open", "close", "next", "prev", "wait", "goto", "book", "curl", "style", "shelf", ";", "\n", "#", " ",
                      "1e19", "-1", "nan", "inf", "99999999999999999999", "0.0001", "3600", "10000", "1e-300", ",", "-0",
                      "rigid", "cone", "wheel", "vertical", "backward"]
        let library = [BookInfo(title: "A", imageCount: 12), BookInfo(title: "B", imageCount: 3)]
        // Half the inputs are written action by action, so that most of them parse and play.
        var random = Random(state: FuzzBudget.current(iterations: 0).seed)
        let numbers = ["1", "2", "0", "-1", "0.5", "1e19", "nan", "3600", "10000", "1e-300", "-0", "12", "300,-250", "-200,100",
                       "1e300,0", "0.0001,-0.0001", "next", "prev", "curl fan", "vertical reverse below", "rigid"]
        var played = 0
        fuzz("script", seeds: seeds.map { Array($0.utf8) }, dictionary: tokens, iterations: 5000) { mutant in
            var bytes = mutant
            if random.below(2) == 0 {
                let actions = (0...random.below(8)).map { _ in
                    let name = random.pick(["open", "close", "next", "prev", "first", "last", "goto", "wait", "shelf", "book", "style", "curl"])
                    return random.below(3) == 0 ? name : name + " " + random.pick(numbers)
                }
                bytes = Array(actions.joined(separator: "; ").utf8)
            }
            let script = try Script(String(decoding: bytes, as: UTF8.self))
            played += 1
            // Played without drawing, as `record` counts a script before it draws: bounded.
            _ = ScriptRunner(script: script, controller: BookController(library: library), fps: 30).run(limit: 2000)
        }
        #expect(played > 100, "most mutants should still parse and play")
    }

    /// An FB2 is one file of markup that goes through the prepared copy (the C bridge's
    /// hand-written readers: contents, tables sized by their content, words hyphenated) before
    /// MuPDF lays it out.
    @Test func ebookMarkup() throws {
        let dir = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = #"<table><tr><td colspan="2">Across</td></tr><tr><td rowspan="2">Name</td><td>A speech of some words, and more.</td></tr>"#
            + "<tr><td>tragical-comical-historical</td></tr></table>"
        let seeds = [
            """
            <?xml version="1.0" encoding="utf-8"?>
            <FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" xmlns:l="http://www.w3.org/1999/xlink">
            <description><title-info><book-title>Fuzz</book-title><lang>en</lang></title-info></description>
            <body><title><p>The Book</p></title><section><title><p>One</p></title><p>Text &amp; more<a l:href="#n1" type="note">1</a>.</p>
            \(table)<section><title><p>Deeper</p></title><poem><stanza><v>A line of verse</v></stanza></poem></section></section>
            <section><p>Untitled, with a word-of-many-parts and a dash—here.</p>\(table)</section></body>
            <body name="notes"><section id="n1"><title><p>1</p></title><p>A note.</p></section></body></FictionBook>
            """,
        ].map { Array($0.utf8) }
        let file = dir.appendingPathComponent("book.fb2").path
        var opened = 0
        fuzz("fb2", seeds: seeds, dictionary: ["<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", #"<td colspan="99999">"#,
                                                #"<td rowspan="0">"#, "<section>", "</section>", "<title>", "</title>", "<p>", "</p>",
                                                "<!--", "-->", "&#x0;", "&nbsp;", "<", "—", "\u{AD}", "日本"],
             iterations: 300) { input in
            try readEBook(input, at: file)
            opened += 1
        }
        #expect(opened > 20, "most mutants should still open")
    }

    /// A plain-text book is made an EPUB (the C bridge's text.c: its encoding guessed, its
    /// lines made paragraphs, verse and headings) before it is set as one.
    @Test func plainText() throws {
        let dir = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gutenberg = "Title: Fuzz\r\nAuthor: Someone\r\nLanguage: English\r\n\r\nCHAPTER I.\r\nThe Name\r\n\r\n"
            + "A paragraph wrapped at seventy characters, as Project Gutenberg wraps its\r\nplain text, and more words after it.\r\n\r\n"
            + "    A line of verse\r\n    And another one\r\n\r\nBook 2\r\n\r\nPREFACE\r\n"
        let seeds = [Array(gutenberg.utf8), Array("第一章 开始\n\u{3000}\u{3000}这是一段文字。\n第二章\n文字。\n".data(using: .utf16LittleEndian)!),
                     [0xEF, 0xBB, 0xBF] + Array("Chapter 1\n\nText.\n".utf8), [0xB5, 0xDA, 0xD2, 0xBB, 0xD5, 0xC2, 0x0A, 0xCE, 0xC4]]
        let file = dir.appendingPathComponent("book.txt").path
        var opened = 0
        fuzz("text", seeds: seeds, dictionary: ["\r\n", "\n\n", "\r", "CHAPTER XIV.", "Chapter ", "第十二章", "\u{3000}", "Title: ", "&", "<",
                                                 "\u{FEFF}", "\u{0}", "\u{FF}\u{FE}", "    "],
             iterations: 300) { input in
            try readEBook(input, at: file)
            opened += 1
        }
        #expect(opened > 20, "most mutants should still open")
    }

    /// An EPUB's chapter and stylesheet, mutated: headings kept with their text and their ids
    /// moved, generated content, tables, entities, the head's styles (the C bridge's copy).
    @Test func epubMarkup() throws {
        let dir = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let css = #"@namespace epub "http://www.idpf.org/2007/ops"; [epub|type~="z3998:stage-direction"]::before { content: "("; }"#
            + #" i::after { content: "4 x"; font-style: normal; } td.p { hyphens: none; width: 20%; } h2 { page-break-after: avoid; }"#
            + #" @font-face { font-family: F; src: url(f.ttf); } .small { font-size: 12px; } body { font-size: 10pt; }"#
            + #" @media screen and (orientation: portrait) { p { text-align: right; } } @media print { p { color: red; } }"#
            + #" i { font-family: "Times New Roman", Times, serif; font-variant: small-caps; }"#
            + #" @page WordSection1 { size: 8.5in 11in; @top-center { content: "x"; } } div.d table { display: inline-table; }"#
            + #" html { font-size: 62.5%; } p.r { font-size: 1.2rem; line-height: 18px; width: calc(80% - 2em); /* position: absolute; */ }"#
        let chapter = #"<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html [<!ENTITY e "&#x201C;">]>"#
            + #"<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en"><head><title>t</title>"#
            + #"<link rel="stylesheet" href="s.css"/><style>p:first-child { margin: 0 auto; width: 50%; }</style></head>"#
            + #"<body epub:type="bodymatter z3998:drama"><section id="s1"><h2 id="h">One &e;</h2><p>Text <i>it</i> and more.</p>"#
            + #"<section id="s2"><a id="x"></a><h3>Two</h3><p>Words of a paragraph, hyphen-ated.</p></section>"#
            + #"<table><tr><td class="p" colspan="2">Across</td></tr><tr><td rowspan="2">Name</td><td><p>Verse</p><p>more</p></td></tr>"#
            + #"<tr><td><i epub:type="z3998:stage-direction">Exit</i></td></tr></table><!-- <td> --><h2>Three</h2><p>End.</p></section>"#
            + #"<center><a name="n">Old</a></center><p align="right">Right</p><table border="1"><tr><td width="30%">A</td><td>B</td></tr></table>"#
            + #"<div class="d" style=""><table style="display:inline-table"><tr><td>In an inline table</td></tr></table></div>"#
            + #"<p style="font-family: F">Set in the book's font</p><div><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20">"#
            + #"<image width="30" height="20" href="f.ttf"/></svg></div></body></html>"#
        let container = #"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">"#
            + #"<rootfiles><rootfile full-path="c.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#
        let package = #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">"#
            + #"<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">f</dc:identifier><dc:title>F</dc:title>"#
            + #"<dc:identifier>urn:uuid:00112233-4455-6677-8899-aabbccddeeff</dc:identifier>"#
            + #"<dc:language>en</dc:language></metadata><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>"#
            + #"<item id="s" href="s.css" media-type="text/css"/></manifest><spine><itemref idref="c"/></spine></package>"#
        // A font obfuscated by Adobe's algorithm (the urn:uuid's 16 bytes over its first 1024),
        // which undone begins as a TrueType font does and is none.
        let key: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
        let font = (Array("true".utf8) + [UInt8](repeating: 7, count: 1200)).enumerated().map { $0 < 1024 ? $1 ^ key[$0 % 16] : $1 }
        let encryption = #"<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">"#
            + #"<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://ns.adobe.com/pdf/enc#RC"/><enc:CipherData>"#
            + #"<enc:CipherReference URI="f.ttf"/></enc:CipherData></enc:EncryptedData></encryption>"#
        let file = dir.appendingPathComponent("book.epub").path
        var opened = 0, random = Random(state: 11)
        fuzz("epub", seeds: [Array(chapter.utf8), Array(css.utf8), Array(encryption.utf8)],
             dictionary: ["<h2>", "</h2>", "<h3 id=\"y\">", "<section>", "</section>", "<table>", "</table>", "<tr>", "<td>", "</td>",
                          #"<td colspan="16">"#, "::after", "::before", "content:", "\"\\", "<!--", "<![CDATA[", "&e;", "<", ">", "/>",
                          "<style>", "</style>", "@media", "{", "}", "<math>", "<svg>", #"align="center""#, #"border="1""#,
                          #"width="50%""#, "font-size: 13px", "<a name=\"p\">", "</a>", "<EncryptedData>", "Algorithm=\"",
                          "http://www.idpf.org/2008/embedding", "@media ", "not ", "(orientation: portrait)", "viewBox=\"0 0 ",
                          "small-caps", "\"Times New Roman\"", "calc(", "@page", "inline-table", "rem", "\u{FEFF}", "/*", "*/",
                          #"style="""#, "line-height: 18pt", "local(", "src: "],
             iterations: 150) { input in
            // The mutant is the chapter, the stylesheet or the encryption.xml, as its seed was.
            let kind = input.starts(with: Array("<?xml".utf8)) ? 0 : input.starts(with: Array("<encryption".utf8)) ? 2 : random.below(3)
            let entries: [(String, [UInt8])] = [("mimetype", Array("application/epub+zip".utf8)), ("META-INF/container.xml", Array(container.utf8)),
                                                 ("META-INF/encryption.xml", kind == 2 ? input : Array(encryption.utf8)),
                                                 ("c.opf", Array(package.utf8)), ("c.xhtml", kind == 0 ? input : Array(chapter.utf8)),
                                                 ("s.css", kind == 1 ? input : Array(css.utf8)), ("f.ttf", font)]
            try readEBook(storedZip(entries), at: file)
            opened += 1
        }
        #expect(opened > 20, "most mutants should still open")
    }

    /// Kindle books, mutated byte by byte: the Palm database, the MOBI and EXTH headers, the
    /// NCX index, a KF8 book's skeleton, fragment and FDST records and its text (the C bridge's
    /// hand-written readers, mobi.c, ncx.c, kf8.c). The seeds are the document tests' books.
    @Test func kindleBooks() throws {
        let dir = try scratchFolder(filledBy: "make_ebooks.py")
        defer { try? FileManager.default.removeItem(at: dir) }
        let seeds = try ["book.mobi", "kindle.mobi", "kf8.azw3"].map { try [UInt8](Data(contentsOf: dir.appendingPathComponent($0))) }
        let file = dir.appendingPathComponent("fuzzed.mobi").path
        var opened = 0, random = Random(state: 13)
        fuzz("kindle", seeds: seeds, dictionary: ["BOOKMOBI", "MOBI", "EXTH", "INDX", "TAGX", "FDST", "SKEL", "\u{0}\u{0}\u{0}\u{0}",
                                                  "\u{FF}\u{FF}\u{FF}\u{FF}", "\u{7F}\u{FF}\u{FF}\u{FF}", "kindle:pos:fid:0001:off:",
                                                  "filepos=", "<", "<head>", "aid=\"0\""],
             iterations: 150) { input in
            // Half the time the seed's database header, record table and first record are put
            // back, so that the mutations reach the text and the indexes behind them.
            var bytes = input
            if random.below(2) == 0, let seed = seeds.first(where: { $0.prefix(32) == bytes.prefix(32) }), seed.count > 86 {
                let first = Int(seed[86]) << 24 | Int(seed[87]) << 16 | Int(seed[88]) << 8 | Int(seed[89])
                let kept = min(first, seed.count, bytes.count)
                bytes.replaceSubrange(0..<kept, with: seed[0..<kept])
            }
            try readEBook(bytes, at: file)
            opened += 1
        }
        #expect(opened > 10, "some mutants should still open")
    }

    /// A comic's JPEG and WebP pages (and PNG), mutated: their sizes read from their headers as
    /// an archive is listed, and each decoded for a small page.
    @Test func pictures() throws {
        let seeds = [
            "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgUFBcUFxsbGxsbGyAeICEhISAgICAhISEkJCQqKiokJCQhISQkKCgqKi4vLi"
                + "srKisvLzIyMjw8OTlGRkhWVmf/xABMAAEBAAAAAAAAAAAAAAAAAAAABgEBAQAAAAAAAAAAAAAAAAAABAcQAQAAAAAAAAAAAAAAAAAAAAARAQAAAAAAAAAA"
                + "AAAAAAAAAAD/wAARCAACAAQDASIAAhEAAxEA/9oADAMBAAIRAxEAPwCTABVN/9k=",
            "UklGRjIAAABXRUJQVlA4ICYAAABwAQCdASoIAAYAA4BaJaACdAFAAAD+6WkRcJy6/rb8c/mudwAAAA==",
            "UklGRh4AAABXRUJQVlA4TBEAAAAvBcAAAAfQwU70p/+BiOh/AAA=",
        ].map { [UInt8](Data(base64Encoded: $0)!) } + [try PNG.encode(RGBAImage(width: 3, height: 2), compression: 6)]
        var decoded = 0
        fuzz("pictures", seeds: seeds, dictionary: ["\u{FF}\u{D8}", "\u{FF}\u{C0}", "\u{FF}\u{C2}", "\u{FF}\u{DA}", "\u{FF}\u{D9}", "RIFF", "WEBP",
                                                    "VP8 ", "VP8L", "VP8X", "ANIM", "ANMF", "ALPH", "\u{FF}\u{FF}\u{FF}\u{7F}"],
             iterations: 2000) { input in
            _ = try? PageSources.imageSize(of: input)
            let page = try PageSources.decode(input, path: "fuzzed", fit: PixelSize(width: 16, height: 16), maxPixels: 1 << 22)
            #expect(page.image.pixels.count == page.image.width * page.image.height * 4)
            decoded += 1
        }
        #expect(decoded > 20, "some mutants should still decode")
    }

    /// A comic archive, its ComicInfo.xml (or the whole zip) mutated: listed through libarchive,
    /// its pictures' sizes read, its spreads and manga direction found, its pages drawn.
    @Test func comicArchives() throws {
        let dir = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let info = #"<?xml version="1.0"?><ComicInfo><Series>Fuzz &amp; Co</Series><Number>2</Number><Title>Pages</Title>"#
            + #"<Writer>A. Writer</Writer><Manga>YesAndRightToLeft</Manga><Pages><Page Image="1" DoublePage="True"/>"#
            + #"<Page Image="2" DoublePage="False"/></Pages></ComicInfo>"#
        let pages: [(name: String, data: [UInt8])] = [
            ("001.png", try PNG.encode(RGBAImage(width: 4, height: 6), compression: 6)),
            ("002.png", try PNG.encode(RGBAImage(width: 8, height: 6), compression: 6)),
            ("./sub/003.png", try PNG.encode(RGBAImage(width: 4, height: 6), compression: 6)),
        ]
        let zipped = storedZip([("ComicInfo.xml", Array(info.utf8))] + pages)
        let file = dir.appendingPathComponent("book.cbz").path
        var opened = 0, random = Random(state: 17)
        fuzz("comic", seeds: [Array(info.utf8), zipped],
             dictionary: ["<Page Image=\"0\" DoublePage=\"True\"/>", "<Manga>", "</Manga>", "&#x0;", "&lt;", "<Pages>", "PK\u{3}\u{4}",
                          "\u{FF}\u{FF}\u{FF}\u{FF}", "../", "/etc/", "\u{0}"],
             iterations: 150) { input in
            // The mutant is the ComicInfo.xml, zipped with the pages, or the zip itself.
            let bytes = input.starts(with: Array("<?xml".utf8)) && random.below(4) > 0
                ? storedZip([("ComicInfo.xml", input)] + pages) : input
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let book = try ComicArchive.format.open(file, nil)
            for page in 0..<min(book.pageCount, 4) { _ = try? book.render(page: page, fit: PixelSize(width: 16, height: 16)) }
            _ = book.paperSize
            opened += 1
        }
        #expect(opened > 20, "most mutants should still open")
    }

    /// A book's identity, which finds a moved book's place: an EPUB's package identifier through
    /// a ZIP's central directory read by hand, a PDF's trailer `/ID`, mutated (the zip's offsets,
    /// lengths and names, the package's tags, the trailer's strings).
    @Test func bookIdentities() throws {
        let dir = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = #"<?xml version="1.0"?><container><rootfiles><rootfile full-path="OPS/p.opf"/></rootfiles></container>"#
        let package = #"<package unique-identifier="u"><metadata><dc:identifier id="u">urn:uuid:1234</dc:identifier></metadata></package>"#
        let epub = storedZip([("mimetype", Array("application/epub+zip".utf8)), ("META-INF/container.xml", Array(container.utf8)),
                              ("OPS/p.opf", Array(package.utf8))])
        let pdf = Array("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << /Size 2 /ID [<0A1B2C> (lit\\)eral)] >>\nstartxref\n9\n%%EOF\n".utf8)
        let file = dir.appendingPathComponent("book").path
        var named = 0
        fuzz("identity", seeds: [epub, pdf], dictionary: ["PK\u{1}\u{2}", "PK\u{5}\u{6}", "PK\u{3}\u{4}", "\u{FF}\u{FF}\u{FF}\u{FF}",
                                                          "/ID [", "<", ">", "(", ")", "\\", "startxref 0", "unique-identifier=",
                                                          "<dc:identifier id=\"u\">", "full-path=\""],
             iterations: 400) { input in
            try Data(input).write(to: URL(fileURLWithPath: file))
            if try BookIdentity(file: file).identifier != nil { named += 1 }
        }
        #expect(named > 20, "some mutants should still name their book")
    }

    /// DjVu documents, mutated byte by byte: opened (directory, outline and metadata read as
    /// djvulibre's expressions), each page drawn small, its text and links read. The seeds are
    /// the document tests' own book, bundled, and a covered one.
    @Test func djvuDocuments() throws {
        let dir = try scratchFolder(filledBy: "make_djvu.py")
        defer { try? FileManager.default.removeItem(at: dir) }
        let seeds = try ["book.djvu", "covered.djvu"].map { try [UInt8](Data(contentsOf: dir.appendingPathComponent($0))) }
        let format = DjVu.format(decodeTimeout: 5)
        var opened = 0, tried = 0
        fuzz("djvu", seeds: seeds, dictionary: ["AT&TFORM", "DJVM", "DIRM", "NAVM", "ANTz", "TXTz", "INFO", "Sjbz", "BG44", "FG44",
                                                "INCL", "\u{FF}\u{FF}\u{FF}\u{FF}", "\u{0}\u{0}\u{0}\u{0}", "(bookmarks", "#99"],
             iterations: 60) { input in
            // Each mutant a file of its own: djvulibre maps the file, and its threads may still
            // read a document let go of, which a file cut short under them stops with SIGBUS.
            let file = dir.appendingPathComponent("fuzzed-\(tried).djvu").path
            if tried > 0 { try? FileManager.default.removeItem(atPath: dir.appendingPathComponent("fuzzed-\(tried - 1).djvu").path) }
            tried += 1
            try Data(input).write(to: URL(fileURLWithPath: file))
            try readPages(of: format.open(file, nil))
            opened += 1
        }
        #expect(opened > 5, "some mutants should still open")
    }

    /// PDFs, mutated byte by byte (poppler repairs what it can): the document tests' pages of
    /// rotated, cropped and transparent content, form fields and a damaged cross-reference
    /// table, opened, drawn small, their text, links and labels read.
    @Test func pdfDocuments() throws {
        let dir = try scratchFolder(filledBy: "make_pdf_cases.py")
        defer { try? FileManager.default.removeItem(at: dir) }
        let seeds = try ["rotated.pdf", "form.pdf", "fillable.pdf", "transparency.pdf", "bad-xref.pdf"]
            .map { try [UInt8](Data(contentsOf: dir.appendingPathComponent($0))) }
        var opened = 0, tried = 0
        fuzz("pdf", seeds: seeds, dictionary: ["obj", "endobj", "stream", "endstream", "/Length 99999999", "<<", ">>", "[", "]",
                                                           "/Kids [3 0 R 3 0 R]", "/Parent 2 0 R", "0 R", "/Count -1", "/First 7 0 R",
                                                           "xref", "trailer", "(", ")", "\\", "/Filter /FlateDecode", "/Encrypt"],
             iterations: 60) { input in
            let file = dir.appendingPathComponent("fuzzed-\(tried).pdf").path
            if tried > 0 { try? FileManager.default.removeItem(atPath: dir.appendingPathComponent("fuzzed-\(tried - 1).pdf").path) }
            tried += 1
            try Data(input).write(to: URL(fileURLWithPath: file))
            try readPages(of: PDF.format.open(file, nil))
            opened += 1
        }
        #expect(opened > 10, "most mutants should still open")
    }

    @Test func pngReader() throws {
        let dir = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        var seeds: [[UInt8]] = []
        for (w, h) in [(1, 1), (7, 5), (40, 30), (90, 12)] {
            var img = RGBAImage(width: w, height: h)
            for y in 0..<h { for x in 0..<w { img.setPixel(x, y, (UInt8(x * 9 % 256), UInt8(y * 13 % 256), 77, UInt8((x + y) * 20 % 256))) } }
            seeds.append(try PNG.encode(img, compression: 6))
        }
        let file = dir.appendingPathComponent("page.png").path
        var random = Random(state: 7)
        fuzz("png", seeds: seeds, dictionary: ["IHDR", "IDAT", "IEND", "PLTE", "tRNS", "gAMA", "\u{0}\u{0}\u{40}\u{0}", "\u{FF}\u{FF}\u{FF}\u{FF}"],
             iterations: 400) { input in
            // Half the time, a valid CRC for the IHDR the mutation made, so other colour types,
            // depths, interlacing and sizes get past the header check.
            var bytes = input
            if random.below(2) == 0, bytes.count >= 33 {
                bytes[24] = random.pick([1, 2, 4, 8, 16])
                bytes[25] = random.pick([0, 2, 3, 4, 6])
                bytes[28] = random.pick([0, 1])
                let crc = crc32(bytes[12..<29])
                bytes.replaceSubrange(29..<33, with: [24, 16, 8, 0].map { UInt8((crc >> $0) & 0xFF) })
            }
            if let img = try? PNG.decode(bytes, maxPixels: 1 << 22) {
                #expect(img.pixels.count == img.width * img.height * 4)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            if let img = try? PNG.read(path: file, maxPixels: 1 << 22, maxSide: 8) {
                #expect(img.width <= 8 && img.height <= 8 && img.pixels.count == img.width * img.height * 4)
            }
        }
    }
}

/// A new temporary folder for a fuzzer's files; filled by the document tests' fixture script
/// `script` when one is named (the seeds are their books).
func scratchFolder(filledBy script: String? = nil) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-fuzz-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    guard let script else { return dir }
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    python.arguments = [URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../FolioDocumentsTests/Fixtures/" + script).standardized.path, dir.path]
    try python.run()
    python.waitUntilExit()
    try #require(python.terminationStatus == 0, "the document tests' \(script)")
    return dir
}

/// Reads `book` as a reader does: its outline, and its first pages drawn small, their text,
/// labels and links.
func readPages(of book: PageSource) {
    _ = book.outline
    for page in 0..<min(book.pageCount, 3) {
        _ = try? book.render(page: page, fit: PixelSize(width: 24, height: 32))
        _ = try? book.text(page: page)
        _ = book.links(page: page)
        _ = book.label(ofPage: page)
    }
}

/// Writes `bytes` to `file` and reads it as a reader does: opened, its contents and the text of
/// its first two pages.
func readEBook(_ bytes: [UInt8], at file: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    let doc = try MuPDFDocument(path: file, fontSize: 11)
    _ = doc.outline
    for page in 0..<min(doc.pageCount, 2) { _ = try? doc.text(page: page) }
}

/// A zip of `entries` stored, not compressed (an EPUB's `mimetype` must be so, and first).
func storedZip(_ entries: [(name: String, data: [UInt8])]) -> [UInt8] {
    func le(_ v: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    var out: [UInt8] = [], central: [UInt8] = []
    for (name, data) in entries {
        let crc = Int(crc32(data)), offset = out.count, n = Array(name.utf8)
        let common = le(20, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(crc, 4) + le(data.count, 4) + le(data.count, 4) + le(n.count, 2)
        out += le(0x0403_4B50, 4) + common + le(0, 2) + n + data
        central += le(0x0201_4B50, 4) + le(20, 2) + common + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + n
    }
    return out + central + le(0x0605_4B50, 4) + le(0, 4) + le(entries.count, 2) + le(entries.count, 2) + le(central.count, 4) + le(out.count, 4) + le(0, 2)
}
