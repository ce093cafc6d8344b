import FolioBook
@testable import FolioMuPDF
import Foundation
import Testing

/// Books made to hurt the preparation of their copy (typeset.c, css.c, mobi.c, kf8.c): each
/// opens, or is refused in one line, in well under the time limit, with its text whole. Each
/// took minutes, crashed or lost its text before (make_ebooks.py, "Hostile").
@Suite(.timeLimit(.minutes(1))) struct HostileBookTests {
    /// Fixture `name` of make_ebooks.py.
    private func path(_ name: String) throws -> String {
        try #require(EBooks.folder, "python3 writes the test books") + "/" + name
    }

    /// The words of page `index` of book `name`.
    private func words(_ name: String, page index: Int = 0) throws -> [String] {
        let doc = try MuPDFDocument(path: path(name), fontSize: 11)
        return try #require(try doc.text(page: index)).words.map(\.text)
    }

    /// Markup cut short at a '<' (a download broken off) was read past its end: a crash.
    @Test(arguments: ["cut-short.epub", "cut-short.mobi", "cut-short.fb2"])
    func markupCutShortAtATagOpens(name: String) throws {
        #expect(try words(name).prefix(2) == ["ALPHA", "words"])
    }

    /// A chapter in UTF-16 came out empty (the copy's UTF-8 put its characters out of step).
    @Test func aChapterInUTF16IsRead() throws {
        #expect(try words("utf16.epub") == ["ALPHA", "words"])
    }

    /// 300,000 tags no '>' closes, after a heading: each looked for its end to the markup's end.
    @Test func tagsThatNeverCloseAreText() throws {
        #expect(try words("unclosed.epub").prefix(3) == ["T", "ALPHA", "words"])
    }

    /// A word of 400,000 letters took MuPDF minutes to draw and to read: it is cut into pieces
    /// a line holds, a soft hyphen between them.
    @Test func aWordLongerThanALineIsCut() throws {
        let words = try words("long-word.epub")
        #expect(words.first == "ALPHA")
        #expect(words.count > 5)
        #expect(words.allSatisfy { $0.count <= 80 }, "\(words.map(\.count).max() ?? 0) letters")
    }

    /// Runs longer than a line that break where they are (words parted by zero-width spaces, a
    /// web address's slashes) are not cut.
    @Test func runsThatBreakAreNotCut() throws {
        let doc = try MuPDFDocument(path: path("breakable.epub"), fontSize: 11)
        let text = try #require(try doc.text(page: 0))
        #expect(!text.words.contains { $0.text.hasSuffix("-") }, "\(text.words.map(\.text))")
        #expect(text.words.count > 3)
    }

    /// A head of 50,000 styles, a stylesheet of 50,000 faces: MuPDF read each.
    @Test(arguments: ["styles.epub", "faces.epub"])
    func styleBombsAreCut(name: String) throws {
        #expect(try words(name) == ["ALPHA", "words"])
    }

    /// KF8 parts with 50,000 heads never closed, and 40,000 pictures named among 30,000 records:
    /// each head looked for its end, each picture counted the records.
    @Test(arguments: ["kf8-heads.azw3", "kf8-embeds.azw3"])
    func aKF8BooksRepeatedTagsCostOnePass(name: String) throws {
        #expect(try words(name).prefix(2) == ["ALPHA", "words"])
    }

    /// A megabyte skeleton given 1,000 fragments at its start was moved whole for each: the
    /// moving is bounded, the fragments past the bound left out.
    @Test func aKF8SkeletonsFragmentsMoveItABoundedAmount() throws {
        let text = try words("kf8-fragments.azw3", page: 0).prefix { $0 != "ALPHA" }.joined().replacingOccurrences(of: "-", with: "")
        #expect(text.allSatisfy { $0 == "Q" })
        #expect(text.count > 10 && text.count < 200, "\(text.count) fragments put in")
    }

    /// Text records that all start at one place claimed 8 MB of text from 20 KB (266 MB from a
    /// 530 KB file, read before the memory limit refused it): refused in one line.
    @Test func textRecordsThatCannotHoldTheirTextAreRefused() throws {
        #expect {
            _ = try MuPDFDocument(path: path("overlapping.mobi"), fontSize: 11)
        } throws: { "\($0)".contains("cannot hold the 8192000 bytes of text it claims") }
    }

    /// A MOBI that MuPDF takes for a tar archive too (whole 512-byte blocks, six zero bytes at
    /// 257) was read as an archive, past the checks of its records, and its last record, past
    /// the file's end, crashed MuPDF's reader: it is refused in one line.
    @Test func aMOBIShapedLikeATarArchiveIsCheckedAsAMOBI() throws {
        #expect {
            _ = try MuPDFDocument(path: path("tar-shaped.mobi"), fontSize: 11)
        } throws: { "\($0)".contains("past the end of the file") }
    }

    /// 30,000 titled sections, which MuPDF resolved one by one through the whole book at every
    /// layout (six minutes), and Folio as it listed the contents (50 s): the contents list the
    /// first 2,000.
    @Test func anFB2OfThirtyThousandTitlesOpens() throws {
        let doc = try MuPDFDocument(path: path("titles.fb2"), fontSize: 11)
        let text = try #require(try doc.text(page: 0))
        #expect(text.words.first?.text == "ALPHA")
        #expect(doc.outline.count == 2000)
    }
}
