import Foundation
import Testing
import FolioReader
import FolioScript
import FolioLayout
import FolioMath

private func library() -> [BookInfo] { [BookInfo(title: "A", imageCount: 10), BookInfo(title: "B", imageCount: 4)] }

private func parseError(_ text: String) -> ScriptError? {
    do {
        _ = try Script(text)
        return nil
    } catch {
        return error
    }
}

/// Frames a duration of `seconds` takes at `fps`: ⌈seconds · fps⌉, exact multiples not rounded up.
private func frames(_ seconds: Double, _ fps: Double) -> Int { Int((seconds * fps - 1e-6).rounded(.up)) }

/// Plays `text` to the end on a fresh controller; returns the runner and the controller.
private func play(_ text: String, fps: Double, settings: BookController.Settings = .init()) throws -> (ScriptRunner, BookController) {
    let controller = BookController(library: library(), settings: settings)
    let runner = ScriptRunner(script: try Script(text), controller: controller, fps: fps)
    _ = runner.run()
    return (runner, controller)
}

@Suite struct ScriptParsingTests {
    @Test func parsesEveryActionWithItsPosition() throws {
        let script = try Script("""
            open; next 3
              prev 2;goto 12 # a comment; not an action
            wait 0.5; shelf next; shelf prev; book 1; first; last
            style curl FAN reverse above vertical backward wheel; curl 0.83, -0.44; close
            """)
        #expect(script.steps.map(\.action) == [
            .open, .next(3), .previous(2), .goto(page: 12), .wait(seconds: 0.5), .shelfNext, .shelfPrevious, .book(1),
            .first, .last,
            .style([.deform(.curl), .layout(.fan), .perspective(.reverse), .viewpoint(.above), .orientation(.vertical),
                    .direction(.backward), .shelf(.wheel)]),
            .curl(grab: Vec2(0.83, -0.44)), .close,
        ])
        #expect(script.steps.map(\.index) == Array(1...13))
        let goto = script.steps[3]
        #expect((goto.line, goto.column, goto.text) == (2, 10, "goto 12"))
        #expect(script.steps[1].column == 7)
        #expect(script.steps[12].text == "close")
    }

    @Test func namesTheBadActionAndItsPosition() {
        let e = parseError("open\nnext; prev\nclose; nxt 2")
        #expect(e?.line == 3 && e?.column == 8 && e?.index == 5)
        #expect(e?.description.hasPrefix("script:3: unknown action 'nxt' (action 5, column 8): actions are open, close,") == true)
    }

    @Test(arguments: [
        ("next 0", "'next' wants a count from 1 to 10000, not '0'"),
        ("prev two", "'prev' wants a count from 1 to 10000, not 'two'"),
        ("next 1 2", "'next' wants at most one count"),
        ("goto -1", "'goto' wants a page number (1 = the first page)"),
        ("book", "'book' wants a book number (0 = first)"),
        ("wait soon", "'wait' wants seconds from 0 to 3600, e.g. 'wait 0.5'"),
        ("wait -1", "'wait' wants seconds from 0 to 3600, e.g. 'wait 0.5'"),
        ("wait 1e9", "'wait' wants seconds from 0 to 3600, e.g. 'wait 0.5'"),
        ("next 1e19", "'next' wants a count from 1 to 10000, not '1e19'"),
        ("next 99999999999", "'next' wants a count from 1 to 10000, not '99999999999'"),
        ("shelf up", "'shelf' wants 'next' or 'prev'"),
        ("open now", "'open' takes no arguments, got 'now'"),
        ("style", "'style' wants one or more of: rigid, curl, cone, fan, flat, carousel, wheel, forward, backward, horizontal, vertical, normal, reverse, above, center, below"),
        ("style curl bent", "unknown style 'bent'"),
        ("curl 3", "'curl' wants a grab point X,Y in fractions of the page, e.g. 'curl 0.8,-0.45'"),
        ("curl 300,-250", "'curl' wants a point on the page: 0 < |X| ≤ 1 from the spine, -0.5 ≤ Y ≤ 0.5 from the centre (got 300.0,-250.0)"),
        ("curl 0,10", "'curl' wants X ≠ 0: positive grabs the right page, negative the left"),
    ])
    func explainsBadArguments(text: String, message: String) {
        let e = parseError("open; " + text)
        #expect(e?.message == message)
        #expect(e?.index == 2 && e?.column == 7)
    }

    @Test func refusesAScriptWithoutActions() {
        #expect(parseError(" ; \n# nothing\n")?.description == "script: the script has no actions")
    }
}

@Suite struct ScriptTimingTests {
    @Test func openTakesTheOpenDurationPlusTheFirstFrame() throws {
        for fps in [10.0, 24, 30, 60] {
            let (runner, c) = try play("open", fps: fps)
            #expect(runner.frame == 1 + frames(1, fps))
            #expect(c.phase == .reading && !c.isAnimating)
        }
    }

    /// frames = 1 + Σ ⌈Dᵢ · fps⌉, chained turns as one action.
    @Test(arguments: [10.0, 24, 25, 29.97, 30, 60, 240])
    func frameCountIsAPureFunctionOfScriptAndFrameRate(fps: Double) throws {
        let turn = BookController.Settings().turnDuration
        let (runner, c) = try play("open; next 3; wait 0.25; prev; close", fps: fps)
        #expect(runner.frame == 1 + frames(1, fps) + frames(3 * turn, fps) + frames(0.25, fps) + frames(turn, fps) + frames(1, fps))
        #expect(c.phase == .shelf && runner.notes.isEmpty)
    }

    @Test func curlDragsThreeQuartersOfATurnThenLetsGo() throws {
        var settings = BookController.Settings()
        settings.turnDuration = 0.8
        let (runner, c) = try play("open; curl 0.83,-0.44", fps: 10, settings: settings)
        // Drag 0.6 s, then the controller's landing: the time a turn takes for the way the
        // sheet has left (it lags the pointer: a little over half its turn), 5 frames.
        #expect(runner.frame == 1 + 10 + 6 + 5)
        #expect(c.spread == 1 && c.phase == .reading)
        #expect(c.settings.deform == .rigid)
    }

    @Test func curlOnTheLeftPageTurnsBack() throws {
        let (runner, c) = try play("open; next 2; curl -0.83,0.18", fps: 30)
        #expect(c.spread == 1 && runner.notes.isEmpty)
    }

    /// A script's style and tuning go through the controller's actions: its delegate hears
    /// each change, as it hears a key's.
    @Test func aScriptChangesSettingsThroughActions() throws {
        final class Listener: BookControllerDelegate {
            var changes: [TurnDeform] = []
            func controllerDidChangeLayout(_ controller: BookController) { changes.append(controller.settings.deform) }
        }
        let c = BookController(library: library())
        let listener = Listener()
        c.delegate = listener
        let runner = ScriptRunner(script: try Script("style cone; style rigid"), controller: c, fps: 30)
        _ = runner.run()
        #expect(listener.changes.suffix(2) == [.cone, .rigid])
        #expect(c.settings.queueLag == nil && c.settings.deform == .rigid)
    }

    @Test func styleTakesNoTimeAndShelfMovesTakeTheirs() throws {
        let (runner, c) = try play("style fan curl below; book 1", fps: 30)
        #expect(runner.frame == 1 + frames(0.35, 30))
        #expect(c.scroll == 1 && c.settings.layout == .fan && c.settings.deform == .curl && c.settings.viewpoint == .below)
    }

    @Test func issuesEachActionInTheFrameThePreviousOneEnds() throws {
        let c = BookController(library: library())
        let runner = ScriptRunner(script: try Script("open; next"), controller: c, fps: 10)
        for _ in 0..<10 { _ = runner.nextFrame() }
        #expect(c.phase == .opening)
        _ = runner.nextFrame()
        #expect(c.phase == .turning && c.viewState().turn?.progress == 0)
        #expect(runner.time(ofFrame: 10) >= 1 && runner.time(ofFrame: 10) < 1 + 1e-6)
    }

    @Test func notesWhatDidNothing() throws {
        let (runner, c) = try play("close; open; next 9; goto 99", fps: 10)
        #expect(runner.notes == [
            "script:1: 'close' did nothing here (action 1, column 1)",
            "script:1: 'next 9' turned 5 of 9 pages: the book ends there (action 3, column 14)",
            "script:1: 'goto 99' did nothing here (action 4, column 22)",
        ])
        #expect(c.spread == 5)
    }

    /// A style that moves the open book plays under the actions after it and, last, to its
    /// end: the recording's last frame shows the new style at rest.
    @Test func aStyleChangedLastPlaysToItsEnd() throws {
        let (runner, c) = try play("open; style fan vertical", fps: 30)
        #expect(runner.frame == 1 + frames(1, 30) + frames(StyleBlend.duration, 30))
        #expect(!c.isAnimating && c.viewState().blend == nil && c.settings.layout == .fan)
        let (under, _) = try play("open; style fan; next", fps: 30)
        #expect(under.frame == 1 + frames(1, 30) + frames(0.8, 30))
    }

    @Test func playsTheSameScenesEveryTime() throws {
        func scenes() throws -> [Scene] {
            let runner = ScriptRunner(script: try Script("book 1; open; curl 0.55,0; next; prev 2; close"),
                                      controller: BookController(library: library()), fps: 15)
            return Array(sequence(state: runner) { $0.nextFrame() })
        }
        let a = try scenes()
        #expect(a.count > 50)
        #expect(a == (try scenes()))
    }
}
