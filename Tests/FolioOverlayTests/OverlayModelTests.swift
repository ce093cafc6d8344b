import FolioOverlay
import Testing

/// The layer's model: which panels each state shows and where, what a point on the bar means,
/// and how visible the layer is at a time passed in.
@Suite struct OverlayModelTests {
    static let reading = OverlayContent(progress: OverlayProgress(label: "17–18 · 36", fraction: 0.5))
    static let help = [HelpSection(title: "Anywhere", rows: [HelpRow(keys: "H, ?", summary: "these keys")]),
                       HelpSection(title: "In a book", rows: (0..<17).map { HelpRow(keys: "K\($0)", summary: "does \($0)") })]

    @Test func eachStateShowsItsPanels() {
        let layout = OverlayLayout(width: 1280, height: 720)
        #expect(layout.panels(OverlayContent()).isEmpty)
        #expect(layout.panels(Self.reading).map(\.role) == [.bar])
        #expect(layout.panels(OverlayContent(shelfTitle: "Alice", shelfAuthor: "Lewis Carroll")).map(\.role) == [.shelfTitle])
        var all = Self.reading
        all.entry = "Go to page 12"
        all.notice = "page 3 cannot be read"
        all.help = Self.help
        #expect(layout.panels(all).map(\.role) == [.bar, .entry, .notice, .help])
        // The bar shows the spread's labels, the title its author.
        #expect(layout.panels(Self.reading)[0].texts.map(\.string) == ["17–18 · 36"])
        #expect(layout.panels(OverlayContent(shelfTitle: "Alice", shelfAuthor: "Lewis Carroll"))[0].texts.map(\.string) == ["Alice", "Lewis Carroll"])
    }

    /// A book read part way shows a short bar under its title on the shelf, filled as far; the
    /// time left is written under the progress bar's track.
    @Test func theShelfShowsHowFarABookIsReadAndTheBarTheTimeLeft() throws {
        let layout = OverlayLayout(width: 1280, height: 720)
        var shelf = OverlayContent(shelfTitle: "Alice", shelfAuthor: "Lewis Carroll")
        #expect(layout.panels(shelf)[0].boxes.isEmpty)
        shelf.shelfRead = 0.25
        let boxes = layout.panels(shelf)[0].boxes
        #expect(boxes.count == 2 && boxes[1].color == .accent)
        #expect(abs(boxes[1].frame.width - boxes[0].frame.width * 0.25) < 1 && boxes[1].frame.y == boxes[0].frame.y)
        let text = try #require(layout.panels(shelf)[0].texts.last)
        #expect(boxes[0].frame.y >= text.frame.maxY, "the bar lies under the lines")
        let timed = OverlayContent(progress: OverlayProgress(label: "17–18 · 36", fraction: 0.5, detail: "12 min left in the chapter · 1 h in the book"))
        #expect(layout.panels(timed)[0].texts.map(\.string) == ["17–18 · 36", "12 min left in the chapter · 1 h in the book"])
    }

    /// The wheel reads on through a long note a paragraph at a time, "…" standing for those
    /// passed, never past its last paragraph; another note starts at its top.
    @Test func aLongNoteScrollsByParagraphs() {
        var state = LayerState()
        state.note = "one\ntwo\nthree"
        #expect(state.noteShown == "one\ntwo\nthree")
        state.scrollNote(by: 1)
        #expect(state.noteShown == "…\ntwo\nthree")
        state.scrollNote(by: 5)
        #expect(state.noteShown == "…\nthree")
        state.scrollNote(by: -9)
        #expect(state.noteShown == "one\ntwo\nthree")
        state.scrollNote(by: 2)
        state.note = "another"
        #expect(state.noteSkip == 0 && state.noteShown == "another")
    }

    @Test(arguments: [(640, 360, 1.0), (1280, 720, 1.0), (1920, 1080, 1.0), (2560, 1440, 2.0), (320, 900, 1.0)])
    func panelsLieInsideTheWindowAndApart(width: Int, height: Int, scale: Double) {
        let layout = OverlayLayout(width: width, height: height, scale: scale)
        var all = Self.reading
        all.entry = "no page 9999 — 1–36"
        all.notice = String(repeating: "a long notice ", count: 40)
        all.help = Self.help
        let panels = layout.panels(all)
        for p in panels {
            #expect(p.frame.x >= 0 && p.frame.y >= 0 && p.frame.maxX <= Double(width) && p.frame.maxY <= Double(height), "\(p.role) at \(p.frame)")
            for t in p.texts { #expect(t.frame.maxX <= p.frame.width + 0.5 && t.frame.maxY <= p.frame.height + 0.5, "\(t.string)") }
        }
        let bar = panels[0].frame, entry = panels[1].frame, notice = panels[2].frame
        #expect(entry.maxY <= notice.y && notice.maxY <= bar.y)
        // The bar sits at the bottom, its type grows with the window.
        #expect(bar.maxY > Double(height) * 0.85)
    }

    @Test func typeFollowsTheWindowAndThePixelDensity() {
        let small = OverlayLayout(width: 640, height: 360), normal = OverlayLayout(width: 1280, height: 720)
        let large = OverlayLayout(width: 1920, height: 1080), hidpi = OverlayLayout(width: 2560, height: 1440, scale: 2)
        #expect(normal.unit == 1)
        #expect(small.unit == 0.75)
        #expect(large.unit == 1.5)
        #expect(hidpi.unit == 2)
    }

    @Test func theBarMapsPointsToFractionsOfTheBook() throws {
        let layout = OverlayLayout(width: 1280, height: 720)
        let bar = layout.barFrame
        let y = bar.y + bar.height / 2
        #expect(layout.barFraction(x: bar.x + 1, y: y) == 0)
        let right = try #require(layout.barFraction(x: bar.maxX - 1, y: y))
        #expect(right == 1)
        let mid = try #require(layout.barFraction(x: bar.x + bar.width * 0.4, y: y))
        #expect(mid > 0.3 && mid < 0.6)
        // Off the bar nothing, unless a drag goes on.
        #expect(layout.barFraction(x: 640, y: 300) == nil)
        #expect(layout.barFraction(x: bar.x + 1, y: bar.y - 2) == nil)
        #expect(layout.barFraction(x: -50, y: 300, dragging: true) == 0)
        #expect(layout.barFraction(x: 5000, y: 0, dragging: true) == 1)
        // Increasing along the track.
        let xs = stride(from: bar.x, to: bar.maxX, by: 20).compactMap { layout.barFraction(x: $0, y: y) }
        #expect(xs == xs.sorted())
    }

    @Test func theBarsFillFollowsTheFraction() {
        let layout = OverlayLayout(width: 1280, height: 720)
        func fillWidth(_ f: Double) -> Double { layout.panels(OverlayContent(progress: OverlayProgress(label: "", fraction: f)))[0].boxes[2].frame.width }
        #expect(fillWidth(0) < fillWidth(0.25) && fillWidth(0.25) < fillWidth(1))
        #expect(abs(fillWidth(1) - 2 * fillWidth(0.5)) < 1)
    }

    @Test func theLayerFadesInStaysAndFadesOut() {
        var fade = OverlayFade()
        #expect(fade.opacity(at: 5) == 0)
        #expect(fade.nextChange(after: 5) == nil)
        fade.wake(at: 10)
        #expect(fade.opacity(at: 10) == 0)
        #expect(abs(fade.opacity(at: 10 + fade.fadeIn / 2) - 0.5) < 1e-9)
        #expect(fade.opacity(at: 10 + fade.fadeIn) == 1)
        #expect(fade.nextChange(after: 10.05) == 10.05)
        #expect(fade.opacity(at: 12.9) == 1)
        #expect(fade.nextChange(after: 11) == 10 + fade.hold)
        let middle = 10 + fade.hold + fade.fadeOut / 2
        #expect(abs(fade.opacity(at: middle) - 0.5) < 1e-9)
        #expect(fade.opacity(at: 10 + fade.hold + fade.fadeOut + 0.001) == 0)
        #expect(fade.nextChange(after: 20) == nil)
        // Woken while fading out, it rises from where it was, not from nothing.
        fade.wake(at: middle)
        #expect(abs(fade.opacity(at: middle) - 0.5) < 1e-9)
        #expect(fade.opacity(at: middle + fade.fadeIn) == 1)
        #expect(fade.opacity(at: middle + fade.hold - 0.01) == 1)
    }

    @Test func answersAndNoticesStayAFewSecondsAndPinTheLayer() {
        var state = LayerState()
        #expect(!state.isPinned)
        state.typing = "Go to page 99"
        #expect(state.isPinned && state.entry == "Go to page 99")
        state.answer("no page 99 — 1–36", at: 100)
        #expect(state.typing == nil && state.entry == "no page 99 — 1–36")
        state.notice("page 3 cannot be read", at: 101)
        #expect(state.nextChange(after: 100.05) == 100.05) // still fading in
        #expect(state.nextChange(after: 100.5) == 100 + LayerState.answerSeconds)
        let early = state.expire(at: 102)
        #expect(!early)
        let answerGone = state.expire(at: 100 + LayerState.answerSeconds)
        #expect(answerGone)
        #expect(state.entry == nil && state.notice != nil && state.isPinned)
        let noticeGone = state.expire(at: 101 + LayerState.noticeSeconds)
        #expect(noticeGone)
        #expect(state.notice == nil && !state.isPinned)
        state.helpShown = true
        #expect(state.isPinned)
    }
}

extension OverlayModelTests {
    @Test func aKeyShowsTheLayerAtOnce() {
        var fade = OverlayFade()
        fade.show(at: 4)
        #expect(fade.opacity(at: 4) == 1)
        #expect(fade.opacity(at: 4 + fade.hold + fade.fadeOut + 0.001) == 0)
        fade.show(at: 20)
        #expect(fade.opacity(at: 20) == 1)
    }
}

extension OverlayModelTests {
    /// The search field: typed text shows as typed with a bar after it, Backspace erases,
    /// control characters never enter, the field stops at its limit and shows its tail, and
    /// once closed the line shows what the search found.
    @Test func theSearchFieldEditsAndShowsWhatWasFound() {
        var state = LayerState()
        state.typeInField("lost")
        #expect(state.field == nil && state.entry == nil, "text typed with the field closed goes nowhere")
        state.openField(.find)
        #expect(state.entry == "Find: ▏" && state.isPinned)
        state.typeInField("zebr")
        state.typeInField("a\u{7}\n")
        #expect(state.entry == "Find: zebra▏")
        state.eraseInField()
        state.eraseInField()
        #expect(state.field == "zeb")
        state.openField(.find, with: "")
        state.eraseInField()
        #expect(state.field == "", "Backspace in an empty field")
        state.typeInField(String(repeating: "x", count: LayerState.searchLimit + 50) + "y")
        #expect(state.field?.count == LayerState.searchLimit)
        #expect(state.entry == "Find: …" + String(repeating: "x", count: 60) + "▏")
        state.searchLine = "“zebra” 3 of 17"
        #expect(state.entry?.hasPrefix("Find: ") == true, "the field goes before the count")
        state.closeField()
        #expect(state.entry == "“zebra” 3 of 17" && !state.isPinned)
        state.typing = "Go to page 4"
        #expect(state.entry == "Go to page 4", "a page number typed goes first")
    }
}

extension OverlayModelTests {
    static func rows(_ n: Int) -> [ContentsList.Row] {
        (0..<n).map { ContentsList.Row(title: "Chapter \($0 + 1)", label: "\($0 * 10 + 1)", depth: $0 % 2, target: $0 * 10) }
    }

    /// The contents list opens on the current chapter, scrolled to show it; the arrows move
    /// the choice within the rows and the list follows it; the wheel scrolls within bounds.
    @Test func theContentsListChoosesAndScrolls() {
        var list = ContentsList(rows: Self.rows(100), current: 50, visible: 10)
        #expect(list.selected == 50 && list.top == 41 && list.shown.count == 10 && list.shown.first?.title == "Chapter 42")
        list.move(by: 1)
        #expect(list.selected == 51 && list.top == 42)
        list.move(by: -20)
        #expect(list.selected == 31 && list.top == 31)
        list.move(by: -1000)
        #expect(list.selected == 0 && list.top == 0)
        list.move(by: 1000)
        #expect(list.selected == 99 && list.top == 90)
        list.scroll(by: 5)
        #expect(list.top == 90)
        list.scroll(by: -95)
        #expect(list.top == 0 && list.selected == 99)
        var short = ContentsList(rows: Self.rows(3), current: nil, visible: 10)
        #expect(short.selected == 0 && short.top == 0 && short.shown.count == 3)
        short.scroll(by: 4)
        #expect(short.top == 0)
        var empty = ContentsList(rows: [], current: 7)
        empty.move(by: 1)
        #expect(empty.current == nil && empty.shown.isEmpty)
    }

    /// The panel lies left between the entry line and the bar, holds as many rows as fit, and a
    /// point maps to the row drawn there (scrolled), nothing on its padding or past its rows.
    @Test func aClickOnTheContentsPanelHitsTheRowDrawnThere() throws {
        for (w, h) in [(640, 360), (1920, 1080)] {
            let layout = OverlayLayout(width: w, height: h)
            let f = layout.contentsFrame
            #expect(f.x > 0 && f.maxY < layout.barFrame.y && f.maxX < Double(w))
            var list = ContentsList(rows: Self.rows(100), current: 60, visible: layout.contentsRows)
            list.scroll(by: 0)
            let panel = try #require(layout.panels(OverlayContent(contents: list)).first { $0.role == .contents })
            // The current chapter's title is drawn in the card's accent colour, bold.
            let title = try #require(panel.texts.first { $0.string == "Chapter 61" })
            #expect(title.color == CardTone.paper.accent && title.bold)
            let row = f.y + title.frame.y + title.frame.height / 2
            #expect(layout.contentsRow(x: f.x + 40, y: row, in: list) == 60)
            #expect(layout.contentsRow(x: f.x + 40, y: row - title.frame.height, in: list) == 59)
            #expect(layout.contentsRow(x: f.x + 40, y: row + title.frame.height, in: list) == nil, "61 is below the rows shown")
            #expect(layout.contentsRow(x: f.x + 40, y: f.y + 2, in: list) == nil)
            #expect(layout.contentsRow(x: f.maxX + 5, y: row, in: list) == nil)
            let short = ContentsList(rows: Self.rows(2), current: 0, visible: layout.contentsRows)
            #expect(layout.contentsRow(x: f.x + 40, y: f.maxY - 3, in: short) == nil)
        }
    }
}
