import Testing
import FolioReader
import FolioScript
import FolioLayout
import FolioMath

/// Turn timing, shadow strength, eye distance and the cone key: reachable and range-checked.
@Suite struct TuningTests {
    @Test func valuesAreRangeCheckedWithOneClearSentence() throws {
        #expect(try Tune.make("duration", "0.5", label: "--turn-duration").get() == .turnDuration(0.5))
        #expect(try Tune.make("curve", "Ease-In-Out", label: "--curve").get() == .curve(.easeInOut))
        #expect(try Tune.make("eye", "3000", label: "--eye").get() == .eye(3000))
        for (name, bad) in [("duration", "0"), ("duration", "nan"), ("shadow", "-1"), ("shadow", "4"), ("eye", "10"), ("curve", "bouncy")] {
            guard case let .failure(e) = Tune.make(name, bad, label: "--\(name)") else {
                Issue.record("\(name) \(bad) accepted")
                continue
            }
            #expect(e.message.hasPrefix("--\(name) wants ") && e.message.hasSuffix("not '\(bad)'"))
        }
    }

    @Test func scriptWordsSetTheControllersSettings() throws {
        let script = try Script("duration 0.4; curve linear; shadow 0.5; eye 2500")
        let c = BookController(library: [BookInfo(imageCount: 8)])
        let runner = ScriptRunner(script: script, controller: c, fps: 10)
        _ = runner.run()
        #expect(c.settings.turnDuration == 0.4 && c.settings.turnCurve == .linear)
        #expect(c.settings.shadow == 0.5 && c.settings.eye == 2500)
        #expect(c.scene().camera.eyeDistance == 2500)
        #expect(throws: ScriptError.self) { try Script("open; eye 5") }
    }

    @Test(arguments: [(TurnCurve.linear, 0.25), (.twoStage, TimingCurve.twoStage(0.25)), (.easeInOut, TimingCurve.easeInOut(0.25))])
    func aTurnFollowsItsCurveAndDuration(_ curve: TurnCurve, _ expected: Double) throws {
        var s = BookController.Settings()
        s.turnCurve = curve
        s.turnDuration = 2
        let c = BookController(library: [BookInfo(imageCount: 8)], settings: s)
        c.handle(.open, at: 0)
        c.update(to: 1)
        c.handle(.nextPage, at: 1)
        c.update(to: 1.5)
        let turn = try #require(c.viewState().turn)
        #expect(abs(turn.progress - expected) < 1e-9)
        c.update(to: 2.9)
        #expect(c.phase == .turning)
        c.update(to: 3)
        #expect(c.phase == .reading)
    }

    @Test func theOKeyTogglesTheCone() {
        #expect(KeyMap.actions(for: .o, phase: .reading) == [.toggleCone])
        #expect(KeyMap.help.contains("rigid flip ↔ cone"))
        let c = BookController(library: [BookInfo(imageCount: 8)])
        c.handle(.open, at: 0)
        c.update(to: 1)
        #expect(c.handle(.toggleCone, at: 1) && c.settings.deform == .cone)
        #expect(c.handle(.toggleCone, at: 1) && c.settings.deform == .rigid)
    }

    @Test func aStillTakesTheCurveTheShadowAndTheEye() throws {
        var still = StillState()
        still.book = 0
        still.turn = 0.25
        still.curve = .linear
        still.shadow = 0.5
        still.eye = 3000
        let library = [BookInfo(imageCount: 8)]
        let v = try still.resolve(library: library)
        #expect(abs((v.turn?.progress ?? 0) - 0.25) < 1e-9 && v.shadow == 0.5 && v.eye == 3000)
        still.curve = .twoStage
        #expect(try still.resolve(library: library).turn?.progress == TimingCurve.twoStage(0.25))
        still.eye = 1
        #expect(throws: StillStateError.self) { try still.resolve(library: library) }
    }
}
