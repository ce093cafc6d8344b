import Foundation
import Testing

/// Hyphenation patterns kept as libhyphen compiles them, between runs (keptpatterns.c): the
/// first run that hyphenates a language keeps its patterns in `$XDG_CACHE_HOME/folio/patterns`,
/// later runs read them back, and a kept file that is damaged, stale, a link or unwritable costs
/// a compile, never a hyphen or a file of the user's. English patterns here (a copy, so that the
/// test can change it); German ones, the reason, take 2.5 s to compile.
@Suite(.serialized) struct KeptPatternsTests {
    static let english = "/usr/share/hyphen/hyph_en_US.dic"

    /// A folder holding the typeset test books (`xmlchapters.epub`: English, justified) and a
    /// data folder whose `hyphen` holds a copy of the English patterns.
    private func setUp() throws -> (root: URL, book: URL, patterns: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-kept-patterns-\(UUID().uuidString)")
        let books = root.appendingPathComponent("books"), hyphen = root.appendingPathComponent("data/hyphen")
        try FileManager.default.createDirectory(at: books, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: hyphen, withIntermediateDirectories: true)
        let script = FolioProcess.packageRoot.appendingPathComponent("Tests/FolioDocumentsTests/Fixtures/make_typeset_ebooks.py")
        let made = try FolioProcess.run("/usr/bin/python3", [script.path, books.path], timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")
        let patterns = hyphen.appendingPathComponent("hyph_en_US.dic")
        try FileManager.default.copyItem(atPath: Self.english, toPath: patterns.path)
        return (root, books.appendingPathComponent("xmlchapters.epub"), patterns)
    }

    /// The first page's text, hyphenated with the patterns under `root/data`, caches in `cache`.
    private func firstPage(_ book: URL, root: URL, cache: URL) throws -> String {
        let binary = try #require(FolioProcess.binary, "build folio first: swift build")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = cache.path
        let r = try FolioProcess.run(binary.path, ["text", book.path, "--page", "1"], environment: environment, timeout: 120)
        try #require(r.status == 0 && !r.timedOut, "\(r.stderr)")
        return r.stdout
    }

    private func inode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: KeptPatternsTests.english), "needs hyphen-en-us (Makefile's BUILD_PACKAGES)"))
    func patternsAreKeptReadBackAndReplacedWhenTheyCannotBeUsed() throws {
        let (root, book, patterns) = try setUp()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = root.appendingPathComponent("cache"), folder = cache.appendingPathComponent("folio/patterns")
        let hyphenated = try firstPage(book, root: root, cache: cache)
        #expect(hyphenated.split(separator: "\n").filter { $0.hasSuffix("-") }.count > 3, "\(hyphenated)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        try #require(kept.count == 1 && kept[0].hasSuffix(".patterns"), "\(kept)")
        let file = folder.appendingPathComponent(kept[0]).path
        let compiled = try Data(contentsOf: URL(fileURLWithPath: file))
        let first = try inode(file)

        // Read back: the same file, not compiled again and replaced, and the same hyphens.
        #expect(try firstPage(book, root: root, cache: cache) == hyphenated)
        #expect(try inode(file) == first)

        // A byte changed in place: compiled again, the file replaced by what the compile keeps.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        try handle.seek(toOffset: UInt64(compiled.count / 2))
        try handle.write(contentsOf: Data([compiled[compiled.count / 2] ^ 0x55]))
        try handle.close()
        #expect(try firstPage(book, root: root, cache: cache) == hyphenated)
        let repaired = try inode(file)
        #expect(repaired != first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == compiled)

        // The pattern file changed (its size and time): its kept compile is stale, and replaced.
        let more = try FileHandle(forWritingTo: patterns)
        try more.seekToEnd()
        try more.write(contentsOf: Data("% a comment added\n".utf8))
        try more.close()
        #expect(try firstPage(book, root: root, cache: cache) == hyphenated)
        #expect(try inode(file) != repaired)

        // A link in the kept file's place, to what it would hold: the file it leads to is neither
        // read (then the link would stay) nor written; a file is kept in the link's place.
        let victim = root.appendingPathComponent("victim")
        try FileManager.default.copyItem(atPath: file, toPath: victim.path)
        let held = try Data(contentsOf: victim)
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: victim.path)
        #expect(try firstPage(book, root: root, cache: cache) == hyphenated)
        #expect(try Data(contentsOf: victim) == held)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.type] as? FileAttributeType == .typeRegular)

        // Damaged in ways its checksum does not catch (the checksum made again over the damage):
        // bytes changed and the file cut short, as a hostile copy would be. What is read back
        // forms libhyphen's tree or is compiled again; the page is always set.
        let good = try Data(contentsOf: URL(fileURLWithPath: file))
        let body = try #require(good.indices.filter { good[$0] == 10 }.dropFirst(4).first) + 1
        func sealed(_ damaged: Data) -> Data {
            var bytes = damaged
            var sum: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes[body..<(bytes.count - 8)] { sum = (sum ^ UInt64(byte)) &* 0x100_0000_01b3 }
            for k in 0..<8 { bytes[bytes.count - 8 + k] = UInt8(truncatingIfNeeded: sum >> (8 * k)) }
            return bytes
        }
        // Every transition of the words' first state led past the last state (read as it is, a
        // read outside the states at the first letter). The file's form (keptpatterns.c,
        // `put_level`), a level: the minimums (4 bytes), `nohyphenl` and `nohyphen` (a length and
        // one, then its bytes), the set's name (20), `utf8`, the count of states, the states,
        // whether a level follows (1); a state: its match as `nohyphen`, its fallback, its count
        // of transitions, each a byte and a state. English patterns
        // have two levels: the compound level libhyphen makes, then the words'.
        func int32(_ at: Int) -> Int { Int(Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(good[at + $1]) << (8 * $1) })) }
        func string(_ at: Int) -> Int { at + 4 + max(int32(at) - 1, 0) }
        /// Where the transitions of state 0 of the level at `at` start, their count, and where the level ends.
        func level(_ at: Int) -> (transitions: Int, count: Int, end: Int) {
            let states = string(at + 8) + 24
            var state = states + 4, first = (0, 0)
            for index in 0..<int32(states) {
                let transitions = string(state) + 4
                if index == 0 { first = (transitions + 4, int32(transitions)) }
                state = transitions + 4 + 5 * int32(transitions)
            }
            return (first.0, first.1, state + 1)
        }
        let words = level(level(body).end)
        try #require(words.count > 20, "the words' first state leads to letters")
        var past = good
        for t in 0..<words.count {
            past.replaceSubrange((words.transitions + 5 * t + 1)..<(words.transitions + 5 * t + 5), with: [0xFF, 0xFF, 0xFF, 0x7F])
        }
        try sealed(past).write(to: URL(fileURLWithPath: file))
        #expect(try firstPage(book, root: root, cache: cache) == hyphenated)
        let span = good.count - body - 8
        for round in 0..<12 {
            // Places and values spread over the states by two primes, the same in every run.
            var bytes = good.prefix(round % 4 == 3 ? body + (round * 104_729) % span + 8 : good.count)
            for k in 0...(round % 3) {
                let at = body + (round * 7_919 + k * 104_729) % max(bytes.count - body - 8, 1)
                bytes[at] = round % 2 == 0 ? bytes[at] ^ UInt8(1 << ((round + k) % 8)) : UInt8(truncatingIfNeeded: round * 37 + k * 101)
            }
            try sealed(Data(bytes)).write(to: URL(fileURLWithPath: file))
            #expect(try firstPage(book, root: root, cache: cache).split(separator: "\n").count > 10, "round \(round)")
        }

        // Patterns with a replacement (non-standard hyphenation: `.schif1fahrt/ff=f,5,2`) are
        // compiled at every run and not kept: libhyphen follows a replacement's place and cut
        // unchecked, and Folio leaves the words it applies to whole.
        let extra = try FileHandle(forWritingTo: patterns)
        try extra.seekToEnd()
        try extra.write(contentsOf: Data(".schif1fahrt/ff=f,5,2\n".utf8))
        try extra.close()
        let beforeReplacement = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(try firstPage(book, root: root, cache: cache).split(separator: "\n").filter { $0.hasSuffix("-") }.count > 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == beforeReplacement, "nothing kept for them")

        // No folder can be made for them: hyphenated all the same, nothing kept.
        let blocked = root.appendingPathComponent("blocked")
        try Data().write(to: blocked)
        #expect(try firstPage(book, root: root, cache: blocked) == hyphenated)
    }
}

