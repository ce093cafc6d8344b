import Foundation
import Testing
import FolioReader
import FolioScript
import FolioBook
import FolioLayout
import FolioMath

/// A controller with book 0 (`images` page images) open and at rest on its first spread.
private func reading(_ images: Int) -> BookController {
    let c = BookController(library: [BookInfo(title: "B", imageCount: images)])
    c.handle(.showBook(0), at: 0)
    return c
}

@Suite struct KeyBurstTests {
    /// Presses → `count` times, `interval` seconds apart, drawing 60 frames a second; returns
    /// the time the book came to rest after the last press, and the most turns ever waiting.
    private func burst(_ c: BookController, count: Int, interval: Double) -> (settled: Double, waiting: Int) {
        var t = 0.0, waiting = 0
        let last = Double(count - 1) * interval
        for i in 0..<count {
            let press = Double(i) * interval
            while t < press {
                c.update(to: t)
                t += 1.0 / 60
            }
            #expect(c.handle(.nextPage, at: press))
            waiting = max(waiting, c.queuedTurns)
        }
        t = last
        while c.isAnimating, t < last + 30 {
            t += 1.0 / 60
            c.update(to: t)
        }
        return (t - last, waiting)
    }

    /// 20 presses over 3.6 s (the case that kept animating for 14.5 s): every turn plays, and
    /// the book is at rest within a second of the last press.
    @Test func twentyPressesSettleWithinASecondOfTheLast() {
        let c = reading(60)
        let (settled, waiting) = burst(c, count: 20, interval: 0.18)
        #expect(c.spread == 20 && c.phase == .reading)
        #expect(settled <= 1.0, "settled \(settled) s after the last press")
        #expect(waiting <= 2, "turns waiting at most: \(waiting)")
    }

    /// A fast burst (a press every 50 ms) still turns every page and settles as quickly.
    @Test func aFastBurstTurnsEveryPage() {
        let c = reading(60)
        let (settled, _) = burst(c, count: 20, interval: 0.05)
        #expect(c.spread == 20)
        #expect(settled <= 1.0, "settled \(settled) s after the last press")
    }

    /// One press alone takes the whole turn duration: only bursts hurry.
    @Test func aSinglePressTurnsAtItsOwnPace() {
        let c = reading(10)
        #expect(c.handle(.nextPage, at: 1))
        c.update(to: 1 + c.settings.turnDuration - 0.05)
        #expect(c.isAnimating && c.phase == .turning)
        c.update(to: 1 + c.settings.turnDuration)
        #expect(!c.isAnimating && c.spread == 1)
    }

    /// The turn under way never jumps when a press hurries it.
    @Test func hurryingATurnKeepsItsPlace() {
        let c = reading(10)
        #expect(c.handle(.nextPage, at: 0))
        c.update(to: 0.3)
        let before = c.viewState().turn?.progress ?? -1
        #expect(c.handle(.nextPage, at: 0.3))
        #expect(abs((c.viewState().turn?.progress ?? -1) - before) < 1e-9)
        c.update(to: 0.31)
        #expect((c.viewState().turn?.progress ?? -1) >= before)
    }
}

@Suite struct DirectOpenTests {
    /// A single book named on the command line is shown open at once, no opening played.
    @Test func showBookOpensAtOnce() {
        let c = BookController(library: [BookInfo(title: "A", imageCount: 8), BookInfo(title: "B", imageCount: 4)])
        #expect(c.handle(.showBook(1), at: 0.2))
        #expect(c.phase == .reading && c.book == 1 && c.openProgress == 1 && !c.isAnimating)
        #expect(c.handle(.nextPage, at: 0.2))
        #expect(!BookController(library: []).handle(.showBook(0), at: 0))
    }
}

@Suite struct PageNumberTests {
    /// Page n as a reader counts it (the title's "pages 12–13", go-to-page, `--page`, `goto`)
    /// is on the spread those numbers name, for every page of a book.
    @Test func everyPageNumberIsOnTheSpreadThatShowsIt() {
        let info = BookInfo(imageCount: 36)
        for n in 1...36 {
            let s = info.spread(containing: PageImage(number: n).layoutPage)
            // Spread s shows images 2s and 2s + 1, numbered from 1 (`FramePipeline.pageTitle`).
            #expect(n == 2 * s || n == 2 * s + 1, "page \(n) on spread \(s)")
        }
        #expect(info.spread(containing: PageImage(number: 12).layoutPage) == 6)
        #expect(info.spread(containing: PageImage(number: 0).layoutPage) == 0)
    }

    /// A `--page` past the book is refused in page numbers, as it was given.
    @Test func aPagePastTheEndIsNamedAsGiven() {
        var s = StillState()
        s.book = 0
        s.page = PageImage(number: 7).layoutPage
        #expect(throws: (any Error).self) { try s.resolve(library: [BookInfo(imageCount: 6)]) }
        do {
            _ = try s.resolve(library: [BookInfo(imageCount: 6)])
        } catch {
            #expect("\(error)".contains("pages 1…6") && "\(error)".contains("not 7"), "\(error)")
        }
    }
}

@Suite struct SettingsFileTests {
    private func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func theFileLivesInTheXDGConfigFolder() {
        #expect(SettingsFile(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]).path == "/c/folio/settings.json")
        #expect(SettingsFile(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]).path == "/h/.config/folio/settings.json")
        #expect(SettingsFile(environment: ["HOME": "/h"]).path == "/h/.config/folio/settings.json")
    }

    /// Saved, then loaded as a later run would: every field comes back; no file gives the
    /// reader's defaults (the curl, paper, show-through).
    @Test func roundTrip() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = SettingsFile(environment: ["XDG_CONFIG_HOME": dir.path])
        let first = file.load()
        #expect(first.settings == ReaderSettings() && first.problem == nil)
        #expect(first.settings.deform == .curl && first.settings.theme == .paper && first.settings.showThrough)
        var s = ReaderSettings()
        s.deform = .rigid
        s.theme = .night
        s.showThrough = false
        s.pages = .one
        s.fitWidth = true
        s.fontSize = 14
        try file.save(s)
        let again = SettingsFile(environment: ["XDG_CONFIG_HOME": dir.path]).load()
        #expect(again.settings == s && again.problem == nil)
    }

    /// A field missing keeps its default (a file from an older version).
    @Test func missingFieldsKeepTheirDefaults() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = SettingsFile(path: dir.path + "/settings.json")
        try Data(#"{"theme": "sepia"}"#.utf8).write(to: URL(fileURLWithPath: file.path))
        let loaded = file.load()
        #expect(loaded.settings.theme == .sepia && loaded.settings.deform == .curl && loaded.problem == nil)
    }

    /// A damaged file is moved aside whole, reported once, and never overwritten; the next
    /// load starts from the defaults without a word; a second damaged file does not replace
    /// the first one kept.
    @Test func aDamagedFileIsKeptAsideAndReportedOnce() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = SettingsFile(path: dir.path + "/settings.json")
        let damaged = Data(#"{"theme": "purple"}"#.utf8)
        try damaged.write(to: URL(fileURLWithPath: file.path))
        #expect(throws: (any Error).self) { try file.save(ReaderSettings()) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == damaged, "a damaged file is never overwritten")
        let loaded = file.load()
        #expect(loaded.settings == ReaderSettings())
        let problem = try #require(loaded.problem)
        #expect(problem.contains("settings.json") && problem.contains("settings.json.damaged"), "\(problem)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path + ".damaged")) == damaged)
        #expect(file.load().problem == nil, "reported once")

        try Data("not json".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(file.load().problem?.contains("settings.json.damaged-2") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path + ".damaged")) == damaged)
        try file.save(ReaderSettings())
        #expect(file.load() == (ReaderSettings(), nil))
    }

    /// A folder where the file should be is left alone and said once a run.
    @Test func aFolderInItsPlaceIsLeftAlone() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = SettingsFile(path: dir.path)
        let loaded = file.load()
        #expect(loaded.settings == ReaderSettings() && loaded.problem != nil)
        #expect(throws: (any Error).self) { try file.save(ReaderSettings()) }
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: dir.path, isDirectory: &isFolder) && isFolder.boolValue)
    }
}

@Suite struct SinglePageTests {
    /// A tall view shows one page: the two-page spread's right-hand page stays on screen, →
    /// steps one page image at a time, and a wide view goes back to the spread showing it.
    @Test func aTallViewShowsOnePageAndKeepsThePlace() {
        let c = reading(9)
        #expect(c.go(to: PageImage(number: 4).layoutPage, animated: false, at: 0))
        #expect(c.shownPages.map(\.number) == [4, 5] && !c.singlePage)
        #expect(c.handle(.setViewSize(Vec2(720, 1280)), at: 0))
        #expect(c.singlePage && c.shownPages.map(\.number) == [5] && c.viewState().singlePage)
        #expect(c.handle(.nextPage, at: 0))
        c.update(to: 5)
        #expect(c.shownPages.map(\.number) == [6])
        #expect(c.handle(.lastPage, at: 5))
        c.update(to: 10)
        #expect(c.shownPages.map(\.number) == [9])
        #expect(!c.handle(.nextPage, at: 10))
        #expect(c.go(to: PageImage(number: 2).layoutPage, animated: false, at: 10) && c.shownPages.map(\.number) == [2])
        #expect(c.handle(.setViewSize(Vec2(1280, 720)), at: 10))
        #expect(!c.singlePage && c.shownPages.map(\.number) == [2, 3])
    }

    /// The go-to action carries a page image: going to the first image a spread shows lands on
    /// that spread, in either page mode, from the first spread to the last (the progress bar
    /// turns so).
    @Test func goingToASpreadsFirstImageLandsOnIt() {
        for single in [false, true] {
            let c = reading(9)
            if single { #expect(c.handle(.setViewSize(Vec2(720, 1280)), at: 0) && c.singlePage) }
            let last = c.laidOutBook?.lastSpread ?? 0
            #expect(last == (single ? 8 : 4))
            var t = 0.0
            for s in (0...last).reversed() {
                let first = BookController.shownPages(spread: s, singlePage: single, imageCount: 9).first ?? PageImage(index: 0)
                #expect(c.handle(.goTo(first), at: t))
                t += 100
                c.update(to: t)
                #expect(c.spread == s, "single \(single): spread \(s) through image \(first) landed on \(c.spread)")
            }
        }
    }

    /// E cycles auto → one → two → auto whatever the view's shape (auto can be chosen again,
    /// and in this wide view is two pages); a mode changed mid-turn waits for it to land.
    @Test func theKeyCyclesThroughAutoAndAModeChangeWaitsForTheTurn() {
        let c = reading(9)
        #expect(c.settings.pages == .auto)
        #expect(c.handle(.togglePages, at: 0) && c.singlePage && c.settings.pages == .one)
        #expect(c.handle(.togglePages, at: 0) && !c.singlePage && c.settings.pages == .two)
        #expect(c.handle(.togglePages, at: 0) && !c.singlePage && c.settings.pages == .auto)
        #expect(c.handle(.togglePages, at: 0) && c.singlePage && c.settings.pages == .one)
        #expect(c.handle(.nextPage, at: 1))
        #expect(c.handle(.togglePages, at: 1.1))
        #expect(c.singlePage, "not while the page turns")
        c.update(to: 5)
        #expect(!c.singlePage && c.shownPages.map(\.number) == [2, 3])
    }

    /// Captures follow the same rule: `--pages auto` in a tall view is one page, and the page
    /// named is the one shown.
    @Test func aTallStillShowsThePageNamed() throws {
        var s = StillState()
        s.viewSize = Vec2(360, 640)
        s.book = 0
        s.page = PageImage(number: 5).layoutPage
        let v = try s.resolve(library: [BookInfo(imageCount: 9)])
        #expect(v.singlePage && v.spread == 4)
        let scene = makeScene(v, books: [BookInfo(imageCount: 9)])
        let shown = scene.items.filter { $0.visible && $0.front.kind == .page }.map(\.front.image?.index)
        #expect(shown.contains(4) && !shown.contains(3), "page 5 alone: \(shown)")
        s.pages = .two
        #expect(try !s.resolve(library: [BookInfo(imageCount: 9)]).singlePage)
    }
}

@Suite struct FitWidthTests {
    /// One page in a tall view, fitted to the width: → scrolls down the page, then turns to
    /// the top of the next; ← goes back up, then to the bottom of the page before.
    @Test func nextScrollsDownThePageThenTurns() {
        let c = reading(5)
        #expect(c.handle(.setViewSize(Vec2(720, 900)), at: 0) && c.singlePage)
        #expect(c.handle(.toggleFitWidth, at: 0) && c.viewState().fitWidth)
        let travel = fitWidthTravel(c.viewState(), book: c.laidOutBook!)
        #expect(travel > 0 && c.settings.pan.y == -travel, "the page's top first")
        var scrolls = 0
        while c.settings.pan.y < travel, scrolls < 10 {
            #expect(c.handle(.nextPage, at: 0))
            scrolls += 1
        }
        #expect(scrolls >= 1 && c.shownPages.map(\.number) == [1] && !c.isAnimating, "scrolled \(scrolls) times, no turn")
        #expect(c.handle(.nextPage, at: 0))
        c.update(to: 5)
        #expect(c.shownPages.map(\.number) == [2] && c.settings.pan.y == -travel, "the next page from its top")
        #expect(c.handle(.previousPage, at: 5))
        c.update(to: 10)
        #expect(c.shownPages.map(\.number) == [1] && c.settings.pan.y == travel, "back to the bottom of the page before")
        #expect(c.handle(.toggleFitWidth, at: 10) && c.settings.pan == .zero && !c.viewState().fitWidth)
        #expect(!BookController(library: [BookInfo(imageCount: 3)]).handle(.toggleFitWidth, at: 0))
    }
}
