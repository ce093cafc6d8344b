import Testing
import FolioReader
import FolioInput
import FolioLayout

private func command(_ key: Key, _ phase: Scene.State, modifiers: Modifiers = [], isRepeat: Bool = false,
                     queued: Int = 0) -> Action? {
    let c = KeyMap.actions(for: key, modifiers: modifiers, isRepeat: isRepeat, phase: phase, queuedTurns: queued)
    #expect(c.count <= 1)
    return c.first
}

@Suite struct KeyMapTests {
    @Test(arguments: [
        (Key.left, Action.shelfPrevious), (.right, .shelfNext), (.enter, .open),
        (.w, .toggleShelf), (.f12, .screenshot), (.f, .toggleFullscreen), (.f11, .toggleFullscreen),
        (.h, .help), (.q, .quit),
    ])
    func shelfKeys(key: Key, expected: Action) {
        #expect(command(key, .shelf) == expected)
    }

    @Test(arguments: [
        (Key.right, Action.nextPage), (.space, .nextPage), (.pageDown, .nextPage),
        (.left, .previousPage), (.backspace, .previousPage), (.pageUp, .previousPage),
        (.home, .firstPage), (.end, .lastPage), (.escape, .close),
        (.c, .toggleDeform), (.l, .toggleLayout), (.d, .toggleDirection),
        (.v, .toggleOrientation), (.p, .togglePerspective), (.b, .cycleViewpoint),
        (.plus, .zoomIn), (.minus, .zoomOut),
        (.f12, .screenshot), (.f, .toggleFullscreen), (.h, .help), (.q, .quit),
    ])
    func bookKeys(key: Key, expected: Action) {
        for phase in [Scene.State.opening, .reading, .turning, .closing] {
            #expect(command(key, phase) == expected, "\(key) while \(phase)")
        }
    }

    @Test func searchHitsAndBookmarksTakeNAndMShiftGoesTheOtherWay() {
        #expect(command(.n, .reading) == .nextHit)
        #expect(command(.n, .reading, modifiers: .shift) == .previousHit)
        #expect(command(.m, .reading) == .toggleBookmark)
        #expect(command(.m, .reading, modifiers: .shift) == .nextBookmark)
        #expect(command(.m, .reading, isRepeat: true) == nil, "a held M does not toggle back and forth")
        #expect(command(.n, .shelf) == nil)
    }

    @Test func bookKeysDoNothingOnTheShelfAndShelfKeysNothingInABook() {
        #expect(command(.escape, .shelf) == nil)
        #expect(command(.c, .shelf) == nil)
        #expect(command(.enter, .reading) == nil)
        #expect(command(.w, .reading) == nil)
    }

    @Test func aKeyMeansOneThingInEachContext() {
        for context in [KeyMap.Context.shelf, .book] {
            let keys = KeyMap.bindings.filter { $0.context == context || $0.context == .anywhere }.flatMap { b in b.keys.map { "\($0)+\(b.modifiers.rawValue)" } }
            #expect(Set(keys).count == keys.count, "\(context)")
        }
    }

    @Test func heldKeysTurnPagesBackToBackWithoutPilingUp() {
        // The first repeat waits behind the turn under way; more are dropped until it starts.
        #expect(command(.right, .turning, isRepeat: true, queued: 0) == .nextPage)
        #expect(command(.right, .turning, isRepeat: true, queued: 1) == nil)
        #expect(command(.left, .turning, isRepeat: true, queued: 1) == nil)
        // A fresh press always queues.
        #expect(command(.right, .turning, isRepeat: false, queued: 3) == .nextPage)
    }

    @Test func heldKeysRepeatMovesButNotToggles() {
        #expect(command(.right, .shelf, isRepeat: true) == .shelfNext)
        #expect(command(.plus, .reading, isRepeat: true) == .zoomIn)
        for key in [Key.c, .l, .f, .f12, .q, .enter, .escape, .home] {
            #expect(KeyMap.actions(for: key, isRepeat: true, phase: key == .enter ? .shelf : .reading).isEmpty, "\(key)")
        }
    }

    @Test func ctrlAndAltCombinationsAreLeftToTheDesktop() {
        #expect(command(.q, .shelf, modifiers: .control) == nil)
        #expect(command(.right, .reading, modifiers: .alt) == nil)
        #expect(command(.right, .reading, modifiers: .shift) == .nextPage)
    }

    /// Ctrl with = (+ on the keypad, or Shift+= for Ctrl++) and − sizes a reflowable book's
    /// text; + and − alone still zoom, and on the shelf Ctrl stays the desktop's.
    @Test func ctrlPlusAndMinusSizeTheText() {
        #expect(command(.plus, .reading, modifiers: .control) == .textLarger)
        #expect(command(.plus, .reading, modifiers: [.control, .shift]) == .textLarger)
        #expect(command(.minus, .reading, modifiers: .control) == .textSmaller)
        #expect(command(.plus, .reading, modifiers: .control, isRepeat: true) == .textLarger)
        #expect(command(.plus, .reading) == .zoomIn)
        #expect(command(.minus, .reading) == .zoomOut)
        #expect(command(.plus, .shelf, modifiers: .control) == nil)
        #expect(command(.minus, .reading, modifiers: [.control, .alt]) == nil)
        #expect(KeyMap.help.contains("Ctrl+=") && KeyMap.help.contains("Ctrl+−"))
    }

    @Test func helpListsEveryBinding() {
        let help = KeyMap.help
        for b in KeyMap.bindings {
            #expect(help.contains("  " + b.label + " ") && help.contains(b.summary), "\(b.label)")
        }
        // Every key the viewer answers, as a desktop writes it.
        for keys in ["F, F11", "H, ?", "Shift+N", "Shift+M", "Alt+←", "Ctrl+=", "Tab", "/, Ctrl+F", "Ctrl+C"] {
            #expect(help.contains("  " + keys + " "), "\(keys)")
        }
        #expect(help.contains("On the shelf:") && help.contains("In a book:") && help.contains("Anywhere:"))
        #expect(help.contains("Ctrl + wheel"))
    }

    /// The keys handled before the map (the search field's, the contents', copying) are in it
    /// too, so the card and --help list them: Tab, Ctrl+F, Ctrl+C, Alt+←, Ctrl+=.
    @Test func everyKeyTheViewerAnswersIsInTheMap() {
        #expect(command(.tab, .reading) == .contents)
        #expect(command(.f, .reading, modifiers: .control) == .find)
        #expect(command(.c, .reading, modifiers: .control) == .copy)
        #expect(command(.left, .reading, modifiers: .alt) == .back)
        #expect(command(.f, .reading) == .toggleFullscreen && command(.c, .reading) == .toggleDeform)
        #expect(command(.question, .shelf, modifiers: .shift) == .help, "? is typed with Shift")
    }
}
