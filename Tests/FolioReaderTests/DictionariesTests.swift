import FolioReader
import Foundation
import Testing

/// Look-up through stand-ins for `sdcv` and `dict` (shell scripts in a folder given as the
/// tools' path): the entry found, the word not found, no dictionary, a tool that hangs.
@Suite struct DictionariesTests {
    private struct Tools {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-dict-\(UUID().uuidString)").path

        init(_ scripts: [String: String]) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, body) in scripts {
                let path = folder + "/" + name
                try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            }
        }

        var dictionaries: Dictionaries {
            var d = Dictionaries(environment: ["PATH": folder])
            d.timeout = 2
            return d
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// sdcv with a dictionary listed: its entry; its "Nothing similar" is no entry.
    static let sdcv = """
        if [ "$1" = "-l" ]; then printf "Dictionary's name   Word count\\nTest Dictionary    2\\n"; exit 0; fi
        for w; do :; done
        if [ "$w" = "whale" ]; then printf -- "-->Test Dictionary\\n-->whale\\n\\na very large sea mammal\\n"; else echo "Nothing similar to $w, sorry :("; fi
        """

    @Test func theWordSelectedIsFoundInTheDictionary() throws {
        let tools = try Tools(["sdcv": Self.sdcv])
        defer { tools.remove() }
        guard case let .entry(text) = tools.dictionaries.lookUp("whale") else { Issue.record("no entry"); return }
        #expect(text.contains("a very large sea mammal"))
        #expect(tools.dictionaries.lookUp("zqzq") == .notFound("no entry for “zqzq” in the dictionaries installed"))
    }

    /// Without sdcv's dictionaries, dict is asked (the local server only: `-h localhost`);
    /// status 20 is no match, status 41 (no server) is no dictionary.
    @Test func dictIsAskedOnTheLocalServer() throws {
        let answering = try Tools(["sdcv": "printf \"Dictionary's name   Word count\\n\"", "dict": """
            [ "$1" = "-h" ] && [ "$2" = "localhost" ] || exit 41
            [ "$3" = "whale" ] && { echo "1 definition found"; echo "whale: a sea mammal"; exit 0; }
            exit 20
            """])
        defer { answering.remove() }
        #expect(answering.dictionaries.lookUp("whale") == .entry("1 definition found\nwhale: a sea mammal\n"))
        #expect(answering.dictionaries.lookUp("zqzq") == .notFound("no entry for “zqzq” in the dictionaries installed"))
        let serverless = try Tools(["dict": "exit 41"])
        defer { serverless.remove() }
        #expect(serverless.dictionaries.lookUp("whale") == .noDictionary(Dictionaries.installHint))
        let none = try Tools([:])
        defer { none.remove() }
        #expect(none.dictionaries.lookUp("whale") == .noDictionary(Dictionaries.installHint))
    }

    /// A tool that never answers is ended at the time bound: the look-up says there is no
    /// dictionary rather than hang the viewer.
    @Test func aToolThatHangsIsEnded() throws {
        let tools = try Tools(["sdcv": "echo $$ > \"$(dirname \"$0\")/pid\"; exec sleep 60"])
        defer { tools.remove() }
        var d = tools.dictionaries
        // Time enough for the tool to start and say who it is on a loaded machine.
        d.timeout = 1.5
        #expect(d.lookUp("whale") == .noDictionary(Dictionaries.installHint))
        let pid = try #require(Int32(String(contentsOfFile: tools.folder + "/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "the tool is gone once the look-up returns")
    }

    @Test func theWordIsTheFirstWithoutItsPunctuation() {
        #expect(Dictionaries.word(in: "“Whale,” said he") == "Whale")
        #expect(Dictionaries.word(in: "--rm -rf") == "rm")
        #expect(Dictionaries.word(in: "  ...  ") == nil)
        #expect(Dictionaries.word(in: String(repeating: "a", count: 65)) == nil)
    }
}
