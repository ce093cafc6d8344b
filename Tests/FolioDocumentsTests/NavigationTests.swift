import FolioBook
import FolioFind
import Foundation
import XCTest

/// What documents say of themselves (outline, labels, words, links) and the search over it,
/// on `navigation.pdf`: 420 × 595 pages labelled i, ii, 1, 20-point text with baselines at
/// y = 100 and 130 from x = 50, a link on page 2 at (50, 200, 100 × 30) to page 3.
final class NavigationTests: XCTestCase {
    private func source(_ name: String) throws -> PageSource { try Fixtures.documents.open(Fixtures.path(name)) }

    private func flatten(_ entries: [OutlineEntry]) -> [OutlineEntry] { entries.flatMap { [$0] + flatten($0.children) } }

    func testTheOutlineHasItsEntriesAndTheirPages() throws {
        let outline = try source("navigation.pdf").outline
        XCTAssertEqual(outline, [
            OutlineEntry(title: "Part one", page: 0, children: [OutlineEntry(title: "Section A", page: 1)]),
            OutlineEntry(title: "Part two", page: 2),
        ])
    }

    func testLabelsAndAuthorComeFromTheDocument() throws {
        let doc = try source("navigation.pdf")
        XCTAssertEqual((0..<3).map { doc.label(ofPage: $0) }, ["i", "ii", "1"])
        XCTAssertNil(doc.label(ofPage: 3))
        XCTAssertEqual(doc.author, "A. Writer")
        // A document that labels no page has no labels (poppler numbers its pages).
        XCTAssertNil(try source("portrait.pdf").label(ofPage: 4))
    }

    func testWordsAreInReadingOrderWithTheirBoxes() throws {
        let text = try XCTUnwrap(try source("navigation.pdf").text(page: 0))
        XCTAssertEqual(text.words.map(\.text), ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"])
        XCTAssertEqual(text.lines.count, 2)
        let the = text.words[0].box, jumps = text.words[4].box
        XCTAssertEqual(the.x0, 50 / 420, accuracy: 0.01)
        // Each line's box holds its baseline's letters: above y = 100 (130), below the line before.
        XCTAssertTrue(the.y0 < 95 / 595 && the.y1 > 95 / 595 && the.y1 < 110 / 595, "\(the)")
        XCTAssertTrue(jumps.y0 < 125 / 595 && jumps.y1 > 125 / 595 && jumps.y0 > the.y1 - 0.01, "\(jumps)")
        XCTAssertEqual(jumps.x0, 50 / 420, accuracy: 0.01)
    }

    func testLinksGoToPagesAndAddressesAndLandWhereDrawn() throws {
        let links = try source("navigation.pdf").links(page: 1)
        let inner = try XCTUnwrap(links.first { $0.target == .page(2) })
        XCTAssertEqual(inner.box.x0, 50 / 420, accuracy: 0.005)
        XCTAssertEqual(inner.box.y0, 200 / 595, accuracy: 0.005)
        XCTAssertEqual(inner.box.x1, 150 / 420, accuracy: 0.005)
        XCTAssertEqual(inner.box.y1, 230 / 595, accuracy: 0.005)
        XCTAssertEqual(Set(links.map(\.target)), [.page(2), .uri("https://example.org/"), .uri("javascript:alert(1)")])
        XCTAssertEqual(try source("navigation.pdf").links(page: 0).map(\.target), [.page(2)])
        XCTAssertEqual(try source("navigation.pdf").links(page: 2), [])
    }

    func testAnOutlineInARingEndsAndATargetOutsideTheDocumentIsNowhere() throws {
        let doc = try source("outline-loop.pdf")
        let all = flatten(doc.outline)
        XCTAssertLessThanOrEqual(all.count, 10_000)
        XCTAssertEqual(all.first?.title, "Ring A")
        XCTAssertEqual(all.first?.page, 0)
        XCTAssertTrue(all.contains { $0.title == "Ring B" && $0.page == nil }, "page 99 of a one-page document is nowhere")
        XCTAssertEqual(doc.links(page: 0), [], "a link to a page that does not exist is dropped")
    }

    func testTenThousandOutlineEntriesAreReadAtMost() throws {
        let outline = try source("outline-12k.pdf").outline
        XCTAssertEqual(flatten(outline).count, 10_000)
        XCTAssertEqual(outline.last?.title, "Entry 9999")
    }

    func testAComicArchivesContentsAreItsFileNames() throws {
        let outline = try source("comic.cbz").outline
        XCTAssertEqual(outline.map(\.title), ["p1", "p2", "p10"])
        XCTAssertEqual(outline.map(\.page), [0, 1, 2])
        XCTAssertEqual(OutlineEntry.fileNames(["a/1.png", "a/2.png", "b/1.png", "c.jpg"]), [
            OutlineEntry(title: "a", page: 0, children: [OutlineEntry(title: "1", page: 0), OutlineEntry(title: "2", page: 1)]),
            OutlineEntry(title: "b", page: 2, children: [OutlineEntry(title: "1", page: 2)]),
            OutlineEntry(title: "c", page: 3),
        ])
    }

    // MARK: Search

    private func search(_ phrase: String, _ name: String = "navigation.pdf", from: Int = 0) throws -> SearchProgress {
        let s = Search(try Phrase(phrase), in: PageTextCache(source: try source(name)), from: from)
        s.run()
        return s.progress
    }

    func testAPhraseIsFoundAcrossLinesWhateverItsCaseAndAccents() throws {
        let hits = try search("LAZY   dog").hits
        XCTAssertEqual(hits.map(\.page), [0, 1])
        XCTAssertEqual(hits[0].boxes.count, 1, "on one line")
        XCTAssertEqual(hits[1].boxes.count, 2, "across a line break")
        XCTAssertTrue(hits[1].snippet.contains("lazy dog days"), hits[1].snippet)
        XCTAssertEqual(try search("cafe creme").hits.map(\.page), [1])
        XCTAssertEqual(try search("CAFE\u{301} cre\u{300}me").hits.map(\.page), [1], "combining accents")
    }

    /// Chinese, Japanese and Korean text a line's end breaks is found across the break, as a
    /// reader reads it, with no space there: "雑誌にメディア" in a line ending "雑誌に" and one
    /// starting "メディア" (nothing was found). Words on one line stay apart, and Latin words a
    /// line's end parts keep their space.
    func testTextWithoutSpacesIsFoundAcrossALineBreak() throws {
        let text = PageText(words: [TextWord(text: "新しい雑誌に", box: PageRegion(x0: 0.1, y0: 0.1, x1: 0.9, y1: 0.15)),
                                    TextWord(text: "メディアの話", box: PageRegion(x0: 0.1, y0: 0.16, x1: 0.6, y1: 0.21)),
                                    TextWord(text: "end", box: PageRegion(x0: 0.7, y0: 0.16, x1: 0.8, y1: 0.21)),
                                    TextWord(text: "of", box: PageRegion(x0: 0.1, y0: 0.22, x1: 0.2, y1: 0.27))])
        XCTAssertEqual(text.hits(of: try Phrase("雑誌にメディア"), page: 0).count, 1)
        XCTAssertEqual(text.hits(of: try Phrase("話 end"), page: 0).count, 1, "on one line, a space between")
        XCTAssertEqual(text.hits(of: try Phrase("end of"), page: 0).count, 1)
        XCTAssertEqual(text.hits(of: try Phrase("endof"), page: 0).count, 0)
    }

    /// A keyboard's ' and " find a set book's ’ and “ ”: "friend's answer" found nothing in a
    /// Standard Ebooks book, which prints "friend’s", nor "d'une" in a French PDF.
    func testTheKeyboardsQuotesFindTheBooks() throws {
        let box = PageRegion(x0: 0, y0: 0, x1: 0.1, y1: 0.1)
        let text = PageText(words: ["my", "friend\u{2019}s", "answer:", "\u{201C}Quite", "so\u{201D}", "d\u{2019}une"].map { TextWord(text: $0, box: box) })
        for phrase in ["friend's answer", "\"quite so\"", "friend\u{2019}s", "D'UNE"] {
            XCTAssertEqual(text.hits(of: try Phrase(phrase), page: 0).count, 1, phrase)
        }
        XCTAssertEqual(text.hits(of: try Phrase("friends"), page: 0).count, 0)
    }

    func testAHitCoversItsLettersOnly() throws {
        let text = try XCTUnwrap(try source("navigation.pdf").text(page: 0))
        let hit = try XCTUnwrap(try search("uic").hits.first)
        let quick = text.words[1].box, box = try XCTUnwrap(hit.boxes.first)
        // A quarter of a letter's room either side of the letters found.
        XCTAssertEqual(box.x0, quick.x0 + quick.width * 0.75 / 5, accuracy: 1e-9)
        XCTAssertEqual(box.x1, quick.x0 + quick.width * 4.25 / 5, accuracy: 1e-9)
    }

    func testBadPhrasesAreRefusedOrFindNothing() throws {
        XCTAssertThrowsError(try Phrase("  \n ")) { XCTAssertEqual($0 as? Phrase.Problem, .empty) }
        XCTAssertThrowsError(try Phrase(String(repeating: "a", count: 10_001))) { XCTAssertEqual($0 as? Phrase.Problem, .tooLong(10_001)) }
        XCTAssertEqual(try search(String(repeating: "lazy ", count: 2_000)).hits, [])
        XCTAssertEqual(try search(".*").hits, [])
        XCTAssertEqual(try search("(quick|lazy)[a-z]+").hits, [])
        let hebrew = PageText(words: [TextWord(text: "שָׁלוֹם", box: PageRegion(x0: 0.5, y0: 0.1, x1: 0.7, y1: 0.2)),
                                      TextWord(text: "עולם", box: PageRegion(x0: 0.2, y0: 0.1, x1: 0.4, y1: 0.2))])
        XCTAssertEqual(hebrew.hits(of: try Phrase("שלום עולם"), page: 0).count, 1, "right to left, points ignored")
    }

    /// A hit's box covers its letters whole: punctuation beside a word is marked with it rather
    /// than the box cut (in proportion) into the word's last letter; inside a longer word the
    /// cut leaves a little room past the last letter found.
    func testAHitBoxCoversItsLastLetterWhole() throws {
        func box(_ phrase: String, in words: [String]) throws -> PageRegion? {
            let text = PageText(words: words.enumerated().map { i, w in
                TextWord(text: w, box: PageRegion(x0: Double(i), y0: 0.1, x1: Double(i) + 0.9, y1: 0.2))
            })
            return text.hits(of: try Phrase(phrase), page: 0).first?.boxes.first
        }
        XCTAssertEqual(try box("database", in: ["a", "database."])?.x1, 1.9, "the point is marked with the word")
        XCTAssertEqual(try box("mickey mouse", in: ["“Mickey", "Mouse”,"])?.x0, 0, "the opening quote too")
        XCTAssertEqual(try box("mickey mouse", in: ["“Mickey", "Mouse”,"])?.x1, 1.9)
        let inside = try XCTUnwrap(try box("mouse", in: ["Mousetrap"]))
        XCTAssertGreaterThan(inside.x1, 0.9 * 5 / 9, "past the e")
        XCTAssertLessThan(inside.x1, 0.9 * 6 / 9, "short of the t's end")
    }

    func testABookWithoutTextSaysSo() throws {
        let progress = try search("anything", "comic.cbz")
        XCTAssertTrue(progress.noText)
        XCTAssertEqual(progress.summary, "this book has no text to search")
        XCTAssertFalse(try search("nothing here").noText)
    }

    func testALongBookIsSearchedFromThePageShownRoundToItAndCanBeStopped() throws {
        let name = "long.pdf", pages = Fixtures.longPages
        var order: [Int] = []
        let s = Search(try Phrase("7"), in: PageTextCache(source: try source(name)), from: 700)
        s.run { page, _ in order.append(page) }
        XCTAssertEqual(order.first, 700, "page 701 first")
        XCTAssertEqual(s.progress.searched, pages)
        XCTAssertEqual(s.progress.hits.map(\.page), s.progress.hits.map(\.page).sorted(), "kept in page order")
        let stopped = Search(try Phrase("7"), in: PageTextCache(source: try source(name)))
        stopped.cancel()
        stopped.run()
        XCTAssertTrue(stopped.progress.finished && stopped.progress.cancelled)
        XCTAssertEqual(stopped.progress.searched, 0)
        XCTAssertFalse(stopped.progress.noText)
    }

    func testTheHitCursorGoesRoundTheHits() throws {
        let hits = [3, 8, 20].map { SearchHit(page: $0, boxes: [], snippet: "") }
        var cursor = HitCursor()
        XCTAssertEqual(cursor.label(count: 3), "3 found")
        XCTAssertEqual(cursor.next(in: hits, page: 5)?.page, 8)
        XCTAssertEqual(cursor.label(count: 3), "2 of 3")
        XCTAssertEqual(cursor.next(in: hits, page: 5)?.page, 20)
        XCTAssertEqual(cursor.next(in: hits, page: 5)?.page, 3)
        var back = HitCursor()
        XCTAssertEqual(back.previous(in: hits, page: 5)?.page, 3)
        XCTAssertEqual(back.previous(in: hits, page: 5)?.page, 20)
    }

    func testPageTextIsCachedWithinItsLimit() throws {
        let cache = PageTextCache(source: try source("long.pdf"), limit: 2_000)
        for page in 0..<50 { XCTAssertEqual(cache.text(page: page)?.string, String(page + 1)) }
    }

    // MARK: Marks

    func testMarkedBoxesAreDrawnIntoThePageAndItsCrops() throws {
        let path = try Fixtures.copy("navigation.pdf", as: "marked.pdf")
        let locator = PageRef.document(path, index: 0)
        let fox = try XCTUnwrap(try Fixtures.documents.open(path).text(page: 0)?.words[3].box)
        Fixtures.documents.marks.set([0: [fox]], for: path)
        defer { Fixtures.documents.marks.set([:], for: path) }
        let image = try Fixtures.documents.render(locator, fit: PixelSize(width: 420, height: 595)).image
        // The paper between the word's top and its letters' tops is marker yellow; outside, white.
        let (x, y) = (Int((fox.x0 + fox.x1) / 2 * 420), Int(fox.y0 * 595) + 1)
        XCTAssertColour(image.pixel(x, y), (255, 210, 40), "inside the mark")
        XCTAssertColour(image.pixel(x, Int(fox.y1 * 595) + 6), white, "below the mark")
        let full = PixelSize(width: 840, height: 1190)
        let crop = PageCrop(covering: PageRegion(x0: fox.x0 - 0.05, y0: fox.y0 - 0.05, x1: fox.x1 + 0.05, y1: fox.y1 + 0.05), of: full)
        let part = try XCTUnwrap(try Fixtures.documents.renderCrop(locator, crop: crop, paperAspect: 420.0 / 595))
        XCTAssertColour(part.pixel(Int((fox.x0 + fox.x1) / 2 * 840) - crop.x, Int(fox.y0 * 1190) + 2 - crop.y), (255, 210, 40), "inside, in a crop")
        XCTAssertColour(part.pixel(2, 2), white, "outside, in a crop")
    }

    // MARK: The reader's ways

    func testTheChapterReadIsTheLastEntryStartedAtEachLevel() throws {
        let outline = try source("navigation.pdf").outline
        XCTAssertEqual(outline.chapter(at: 0).map(\.title), ["Part one"])
        XCTAssertEqual(outline.chapter(at: 1).map(\.title), ["Part one", "Section A"])
        XCTAssertEqual(outline.chapter(at: 2).map(\.title), ["Part two"])
        XCTAssertEqual(outline.rows.map(\.depth), [0, 1, 0])
    }

    func testTheLinkUnderThePointerAndComingBack() throws {
        let links = try source("navigation.pdf").links(page: 1)
        XCTAssertEqual(links.link(atX: 100 / 420, y: 215 / 595)?.target, .page(2))
        XCTAssertNil(links.link(atX: 0.9, y: 0.9))
        var back = BackStack(limit: 2)
        back.leave(1)
        back.leave(1)
        back.leave(5)
        back.leave(9)
        XCTAssertEqual(back.back(), 9)
        XCTAssertEqual(back.back(), 5)
        XCTAssertNil(back.back(), "two kept at most")
    }

    func testADragSelectsTheWordsBetweenItsEndsInReadingOrder() throws {
        let text = try XCTUnwrap(try source("navigation.pdf").text(page: 0))
        let quick = text.words[1].box, over = text.words[5].box
        // Dragged backwards, from "over" up to "quick".
        let s = Selection(page: 0, text: text, from: ((over.x0 + over.x1) / 2, (over.y0 + over.y1) / 2),
                          to: (quick.x0 + 0.001, (quick.y0 + quick.y1) / 2))
        XCTAssertEqual(s.text, "quick brown fox\njumps over")
        // One box a line, from its first word selected to its last.
        XCTAssertEqual(s.boxes.count, 2)
        XCTAssertEqual(s.boxes[0].x0, quick.x0, accuracy: 1e-9)
        XCTAssertEqual(s.boxes[0].x1, text.words[3].box.x1, accuracy: 1e-9)
        XCTAssertEqual(s.boxes[1].x1, over.x1, accuracy: 1e-9)
    }

    func testOnlyWebAndMailLinksMayOpenAndNothingGoesThroughAShell() throws {
        for uri in ["https://example.org/", "http://example.org/a?b=c", "mailto:someone@example.org", "HTTPS://EXAMPLE.ORG"] {
            XCTAssertNil(LinkPolicy.refusal(uri), uri)
        }
        for uri in ["javascript:alert(1)", "file:///etc/passwd", "xdg-open", "sh -c 'rm -rf ~'", "launch:calc.exe",
                    "https://example.org/; rm -rf ~", "http://a\nb", ":nothing", ""] {
            let notice = try XCTUnwrap(LinkPolicy.refusal(uri), uri)
            XCTAssertTrue(notice.hasPrefix("link not opened"), notice)
            XCTAssertFalse(notice.contains("\n"), "one line: \(notice)")
        }
        // Refused before anything starts; an opener that is not there is a notice, not a crash.
        XCTAssertEqual(LinkPolicy.open("javascript:alert(1)", opener: "/nonexistent/opener"), LinkPolicy.refusal("javascript:alert(1)"))
        XCTAssertTrue(LinkPolicy.open("https://example.org/", opener: "/nonexistent/opener")?.contains("cannot start") == true)
    }
}
