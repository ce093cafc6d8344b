import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import Foundation
import Testing

/// What every driver script begins with: bounded waits and a failure that ends the viewer.
private let scriptHelpers = #"""
set -u
pid=""
fail() { echo "FAIL: $*"; [ -n "$pid" ] && kill "$pid" 2>/dev/null; exit 3; }
# Retries a command every 0.1 s for up to $1 seconds.
within() { local n=$(( $1 * 10 )); shift; for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done; return 1; }
shots() { [ "$(grep -c '\.png$' "$SHOTS/stdout.txt")" -ge "$1" ]; }
titled() { xdotool getwindowname "$wid" | grep -q -- "$1"; }
gone() { ! kill -0 "$pid" 2>/dev/null; }
# The viewer's window once it shows.
window() { wid=$(timeout 30 xdotool search --sync --name '^Folio' | head -n 1); [ -n "$wid" ] || fail "no Folio window"; }
# Q, then the viewer's exit status. The window is gone before the key's release arrives:
# xdotool's complaint is expected.
quit() { xdotool key --window "$wid" q 2>/dev/null; within 15 gone || fail "Q did not quit"; wait "$pid"; echo "exit=$?"; }
# The viewer on $DOC, its book opened with Enter: the title shows page 1 of $1.
openDocument() {
    "$FOLIO" view "$DOC" >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
    pid=$!
    window
    xdotool key --window "$wid" Return
    within 20 titled "— page 1 of $1" || fail "the book did not open; the title says: $(xdotool getwindowname "$wid")"
}

"""#

/// Drives `folio view` (with and without 4× MSAA) under Xvfb with key events from xdotool: a
/// screenshot of the shelf, Enter and → (pressed while the book opens: the turn waits for it),
/// a screenshot of the spread, Q. Every wait is bounded; the script prints `exit=N` for the viewer's exit code.
private let driveViewer = scriptHelpers + #"""
"$FOLIO" view --check-display || fail "--check-display found no display under Xvfb"
"$FOLIO" view --msaa "$MSAA" --screenshot-dir "$SHOTS" >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
pid=$!
window
within 10 titled "(1/" || fail "no shelf; the title says: $(xdotool getwindowname "$wid")"
# The covers decode in the background: on a loaded machine the first frames show paper.
sleep 2
xdotool key --window "$wid" F12
within 20 shots 1 || fail "no screenshot of the shelf"
xdotool key --window "$wid" Return Right
within 20 titled "pages 2" || fail "the page did not turn; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" F12
within 20 shots 2 || fail "no screenshot of the book"
quit
"""#

/// A pinch without a touch screen: the right button held while the pointer moves up spreads
/// the centred book open; held while it moves down, pinches the book closed.
private let pinchViewer = scriptHelpers + #"""
# Holds the right button and moves the pointer by $1 pixels (negative: up) in 8 steps.
pinch() { xdotool mousemove --window "$wid" 640 400 mousedown 3
          for _ in 1 2 3 4 5 6 7 8; do xdotool mousemove_relative -- 0 $(( $1 / 8 )); sleep 0.03; done
          xdotool mouseup 3; }

"$FOLIO" view --screenshot-dir "$SHOTS" >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
pid=$!
window
within 10 titled "(1/" || fail "no shelf; the title says: $(xdotool getwindowname "$wid")"
pinch -320
within 20 titled " — page" || fail "the spread did not open the book; the title says: $(xdotool getwindowname "$wid")"
sleep 1.5
xdotool key --window "$wid" F12
within 20 shots 1 || fail "no screenshot of the open book"
pinch 240
within 20 titled "(1/" || fail "the pinch did not close the book; the title says: $(xdotool getwindowname "$wid")"
quit
"""#

/// "Open with Folio" on one page image: the book of its folder opens at that page (PAGE is the
/// third of six, which the spread of pages 2–3 shows), then Q.
private let openAPage = scriptHelpers + #"""
"$FOLIO" view "$PAGE" >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
pid=$!
window
within 20 titled "pages 2–3 of 6" || fail "the book did not open at the page; the title says: $(xdotool getwindowname "$wid")"
quit
"""#

/// `--search 7` in portrait.pdf (page numbers printed on its pages): N turns to page 7, M
/// bookmarks that spread, Home goes back to the start and Shift+M returns to the bookmark.
private let findInViewer = scriptHelpers + #"""
"$FOLIO" view "$DOC" --search 7 >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
pid=$!
window
xdotool key --window "$wid" Return
hit() { xdotool key --window "$wid" n; sleep 0.3; titled "pages 6–7.*search hit 1 of 1"; }
within 20 hit || fail "N did not turn to the hit; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" m
within 10 titled "bookmarked page 6" || fail "M did not bookmark; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" Home
within 20 titled "— page 1 of 10" || fail "Home did not go to the first page; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" shift+m
within 20 titled "pages 6–7.*bookmark: page 6" || fail "Shift+M did not return to the bookmark; the title says: $(xdotool getwindowname "$wid")"
quit
"$FOLIO" notes "$DOC" | grep -qx "page 6: bookmark" || fail "no bookmark saved: $("$FOLIO" notes "$DOC" 2>&1)"
"""#

/// navigation.pdf: a click on page 1's link (at 50, 300 of its 420 x 595 points; the right-hand
/// page at 1280 x 720 spans about x 640…1045, y 74…646) turns to page 3; Alt+← comes back.
private let followLink = scriptHelpers + #"""
openDocument 3
sleep 1
follow() { xdotool mousemove --window "$wid" 736 377 click 1; sleep 0.5; titled "pages 2–3 of 3.*link to page 3"; }
within 20 follow || fail "the link was not followed; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" alt+Left
within 20 titled "— page 1 of 3.*back to page 1" || fail "Alt+← did not come back; the title says: $(xdotool getwindowname "$wid")"
quit
"""#

/// G shows the overview (the title says so); a click at ($X, $Y), on the sixth page, closes it
/// and turns to its spread.
private let overviewClick = scriptHelpers + #"""
openDocument 10
xdotool key --window "$wid" g
within 20 titled "— overview" || fail "no overview; the title says: $(xdotool getwindowname "$wid")"
xdotool mousemove --window "$wid" "$X" "$Y" click 1
within 20 titled "pages 6–7 of 10$" || fail "the click did not go to page 6; the title says: $(xdotool getwindowname "$wid")"
quit
"""#

/// navigation.pdf: the same two lines selected, then Shift+H highlights them, `i` (typed) opens
/// the note field, the note is typed and Enter keeps it, X opens the notes panel and Escape
/// closes it; the store holds the highlight with its note.
private let highlightText = scriptHelpers + #"""
openDocument 3
sleep 1
choose() { xdotool mousemove --window "$wid" 692 160 keydown shift mousedown 1 mousemove --window "$wid" 800 180 \
               mousemove --window "$wid" 910 192 mouseup 1 keyup shift; sleep 0.5; }
choose
xdotool key --window "$wid" shift+h
within 10 titled "highlighted in yellow" || fail "Shift+H did not highlight; the title says: $(xdotool getwindowname "$wid")"
choose
xdotool type --window "$wid" "i"
sleep 0.3
xdotool type --window "$wid" "a quick note"
xdotool key --window "$wid" Return
within 10 titled "note kept" || fail "the note was not kept; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" x
sleep 0.5
xdotool key --window "$wid" Escape
sleep 0.3
quit
"$FOLIO" notes "$DOC" --json | grep -q '"note":"a quick note"' || fail "no note in the store: $("$FOLIO" notes "$DOC" 2>&1)"
"""#

/// navigation.pdf: Shift + drag from "The" (50, 100 of 420 x 595 points) to "dog" at the end of
/// the second line (about 260, 130) selects the two lines; Ctrl+C puts them on the clipboard.
private let copyText = scriptHelpers + #"""
openDocument 3
sleep 1
copy() { xdotool mousemove --window "$wid" 692 160 keydown shift mousedown 1 mousemove --window "$wid" 800 180 \
             mousemove --window "$wid" 910 192 mouseup 1 keyup shift key --window "$wid" ctrl+c
         sleep 0.5; titled "copied 9 words"; }
within 20 copy || fail "nothing was copied; the title says: $(xdotool getwindowname "$wid")"
echo "clipboard<<$(xclip -o -selection clipboard)>>"
echo "primary<<$(xclip -o -selection primary)>>"
# A plain click lets the selection go and turns nothing; with nothing to let go, a click turns.
xdotool mousemove --window "$wid" 800 300 click 1
sleep 1
titled "page 1 of 3" || fail "the click that let the selection go turned the page: $(xdotool getwindowname "$wid")"
xdotool click 1
within 10 titled "pages 2–3 of 3" || fail "a click with nothing to let go did not turn: $(xdotool getwindowname "$wid")"
quit
"""#

/// Escape in full screen (F11) leaves full screen and keeps the book open; the next Escape
/// closes the book.
private let escapeLeavesFullScreen = scriptHelpers + #"""
"$FOLIO" view "$DOC" >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
pid=$!
window
within 20 titled "page 1 of" || fail "the book did not open; the title says: $(xdotool getwindowname "$wid")"
size() { xdotool getwindowgeometry "$wid" | awk '/Geometry/ {print $2}'; }
sized() { [ "$(size)" = "$1" ]; }
windowed=$(size)
xdotool key --window "$wid" F11
within 10 sized 1280x800 || fail "F11 did not fill the screen: $(size), $windowed before"
xdotool key --window "$wid" Escape
within 10 sized "$windowed" || fail "Escape did not leave full screen: $(size)"
titled "page 1 of" || fail "Escape in full screen closed the book; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" Escape
within 10 titled "(1/1)" || fail "the next Escape did not close the book; the title says: $(xdotool getwindowname "$wid")"
quit
"""#

/// H shows the help card on the shelf (a screenshot with it), Escape takes it away (one without).
private let showHelp = scriptHelpers + #"""
"$FOLIO" view --screenshot-dir "$SHOTS" >"$SHOTS/stdout.txt" 2>"$SHOTS/stderr.txt" &
pid=$!
window
within 10 titled "(1/" || fail "no shelf; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" h F12
within 20 shots 1 || fail "no screenshot with the help card"
xdotool key --window "$wid" Escape F12
within 20 shots 2 || fail "no screenshot after Escape"
quit
"""#

/// Opens a PDF, types a page number, quits, opens it again: it reopens where it was left.
private let readDocument = scriptHelpers + #"""
# The book may still be opening: ask again until the title shows the page.
go7() { xdotool key --window "$wid" 7 Return; sleep 0.3; titled "pages 6–7"; }
read_once() {
    "$FOLIO" view "$DOC" >>"$SHOTS/stdout.txt" 2>>"$SHOTS/stderr.txt" &
    pid=$!
    window
    xdotool key --window "$wid" Return
}
read_once
within 20 go7 || fail "typing 7 Enter did not go to page 7; the title says: $(xdotool getwindowname "$wid")"
quit
read_once
within 20 titled "pages 6–7" || fail "the book did not reopen at page 7; the title says: $(xdotool getwindowname "$wid")"
quit
# Moved and renamed, it is the same book.
mv "$DOC" "$SHOTS/moved.pdf"
DOC="$SHOTS/moved.pdf"
read_once
within 20 titled "pages 6–7" || fail "the moved book did not reopen at page 7; the title says: $(xdotool getwindowname "$wid")"
quit
echo "done"
"""#

/// A shelf of three PDFs: the third opened (page 1 of 3) and closed, the next run's shelf starts
/// at it and its title says a third of it is read.
private let continueReading = scriptHelpers + #"""
mkdir "$SHOTS/shelf"
cp "$DOC" "$SHOTS/shelf/a.pdf"; cp "$SHOTS/landscape.pdf" "$SHOTS/shelf/b.pdf"; cp "$SHOTS/navigation.pdf" "$SHOTS/shelf/c.pdf"
"$FOLIO" view "$SHOTS/shelf" >>"$SHOTS/stdout.txt" 2>>"$SHOTS/stderr.txt" &
pid=$!
window
within 10 titled "(1/3)$" || fail "no shelf; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" Right Right
within 10 titled "(3/3)" || fail "Right did not move to the third book; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" Return
within 20 titled "— page 1 of 3" || fail "the third book did not open; the title says: $(xdotool getwindowname "$wid")"
# The place is kept once the book has opened (the title shows the page while it opens).
sleep 1.5
quit
"$FOLIO" view "$SHOTS/shelf" >>"$SHOTS/stdout.txt" 2>>"$SHOTS/stderr.txt" &
pid=$!
window
within 10 titled "(3/3) — 33%" || fail "the shelf did not start at the book read last; the title says: $(xdotool getwindowname "$wid")"
quit
echo "done"
"""#

/// Three runs of `folio view` on one PDF under Xvfb, with their own XDG_CONFIG_HOME: the PDF
/// opens straight into the book (no Enter); T in the first run switches to sepia, which is
/// written; the second run starts in sepia (F12); the third, given `--theme night`, is night
/// for that run only (F12) and leaves the file as it was.
private let threeRuns = scriptHelpers + #"""
saved() { grep -q "\"theme\" : \"$1\"" "$XDG_CONFIG_HOME/folio/settings.json" 2>/dev/null; }
start() {
    "$FOLIO" view "$DOC" --screenshot-dir "$SHOTS" "$@" >>"$SHOTS/stdout.txt" 2>>"$SHOTS/stderr.txt" &
    pid=$!
    window
    # Open at once: the title names the page without a key pressed.
    within 20 titled "page 1 of 10" || fail "the book did not open by itself; the title says: $(xdotool getwindowname "$wid")"
}
shoot() { sleep 1; xdotool key --window "$wid" F12; within 20 shots "$1" || fail "no screenshot $1"; }

start
xdotool key --window "$wid" t
within 10 saved sepia || fail "T did not write sepia"
quit
start
shoot 1
quit
start --theme night
shoot 2
quit
saved sepia || fail "--theme night was written"
echo "done"
"""#

/// Y, then Shift+J, in an EPUB under Xvfb: each lays the book out again and is written to the
/// settings (typeface serif, hyphenation off), and the viewer quits cleanly.
private let typographyKeys = scriptHelpers + #"""
has() { grep -q -- "$1" "$XDG_CONFIG_HOME/folio/settings.json" 2>/dev/null; }
"$FOLIO" view "$DOC" >>"$SHOTS/stdout.txt" 2>>"$SHOTS/stderr.txt" &
pid=$!
window
within 20 titled "page 1 of" || fail "the book did not open by itself; the title says: $(xdotool getwindowname "$wid")"
xdotool key --window "$wid" y
within 15 has '"face" : "serif"' || fail "Y did not set the serif typeface"
xdotool key --window "$wid" shift+j
within 15 has '"hyphenate" : false' || fail "Shift+J did not turn hyphenation off"
quit
echo "done"
"""#

// Serialized: two viewers under Xvfb at once starve each other of the cores that decode covers.
@Suite(.serialized) struct ViewCommandTests {
    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"),
          arguments: [0, 4])
    func opensABookTurnsAPageTakesScreenshotsAndQuits(msaa: Int) throws {
        try Self.underXvfb(driveViewer, msaa: msaa) { paths, report in
            try #require(paths.count == 2, "\(report)")
            #expect(Set(paths).count == 2, "screenshot names must be unique")
            let shelf = try PNG.read(path: paths[0]), book = try PNG.read(path: paths[1])
            #expect(shelf.width == book.width && shelf.height == book.height)

            // The shelf stands on its dark backdrop; the open book fills the middle with paper.
            #expect(Self.luminance(shelf, x: 8, y: 8) < 70)
            #expect(Self.paperFraction(shelf) < 0.1)
            #expect(Self.paperFraction(book) > 0.25)
            // The outer margin of the right-hand page.
            #expect(Self.isPaper(book, x: book.width * 77 / 100, y: book.height / 2))
        }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func aRightButtonDragPinchesTheBookOpenAndClosed() throws {
        try Self.underXvfb(pinchViewer) { paths, report in
            try #require(paths.count == 1, "\(report)")
            #expect(Self.paperFraction(try PNG.read(path: paths[0])) > 0.25, "\(report)")
        }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func nTurnsToTheSearchHitAndMBookmarksIt() throws {
        let doc = try #require(DocumentCaptureTests.documents, "python3-cairo missing").appendingPathComponent("portrait.pdf").path
        try Self.underXvfb(findInViewer, environment: ["DOC": doc]) { _, _ in }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func aClickOnALinkTurnsToItsPageAndAltLeftComesBack() throws {
        let doc = try #require(DocumentCaptureTests.documents, "python3-cairo missing").appendingPathComponent("navigation.pdf").path
        try Self.underXvfb(followLink, environment: ["DOC": doc]) { _, _ in }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func aClickInTheOverviewTurnsToThatPage() throws {
        let doc = try #require(DocumentCaptureTests.documents, "python3-cairo missing").appendingPathComponent("portrait.pdf").path
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        // The sixth page's place in the 1280 × 720 window, from the page size the viewer lays out.
        let info = try FolioProcess.run(folio.path, ["info", doc], timeout: 30).stdout
        let size = try #require(info.firstMatch(of: /page (\d+) × (\d+)/), "\(info)")
        let book = BookInfo(imageCount: 10, pageSize: Vec2(Double(size.1)!, Double(size.2)!))
        let centre = try #require(Overview.around(spread: 0, singlePage: false, of: book, viewSize: Vec2(1280, 720)).overview.box(of: 5)).centre
        try Self.underXvfb(overviewClick, environment: ["DOC": doc, "X": "\(Int(640 + centre.x))", "Y": "\(Int(360 - centre.y))"]) { _, _ in }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FolioProcess.available("xclip"),
                   "needs xvfb-run, xdotool and xclip (apt-get install xvfb xauth xdotool xclip)"))
    func shiftDragSelectsTheLinesAndCtrlCCopiesThem() throws {
        let doc = try #require(DocumentCaptureTests.documents, "python3-cairo missing").appendingPathComponent("navigation.pdf").path
        try Self.underXvfb(copyText, environment: ["DOC": doc]) { _, report in
            #expect(report.contains("clipboard<<The quick brown fox\njumps over the lazy dog>>"), "\(report)")
            #expect(report.contains("primary<<The quick brown fox\njumps over the lazy dog>>"), "middle click pastes it too: \(report)")
        }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func shiftHHighlightsAndITypesANoteWithRealKeys() throws {
        let doc = try #require(DocumentCaptureTests.documents, "python3-cairo missing").appendingPathComponent("navigation.pdf").path
        try Self.underXvfb(highlightText, environment: ["DOC": doc]) { _, _ in }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FileManager.default.fileExists(atPath: "/usr/bin/python3"),
                   "needs xvfb-run, xdotool and python3-cairo"))
    func escapeLeavesFullScreenBeforeItClosesTheBook() throws {
        let doc = try #require(DocumentCaptureTests.documents, "python3-cairo missing").appendingPathComponent("navigation.pdf").path
        try Self.underXvfb(escapeLeavesFullScreen, environment: ["DOC": doc]) { _, _ in }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func theHKeyShowsTheHelpCardOnScreen() throws {
        try Self.underXvfb(showHelp) { paths, report in
            try #require(paths.count == 2, "\(report)")
            let help = try PNG.read(path: paths[0]), after = try PNG.read(path: paths[1])
            // Left of the centred first cover the shelf is empty backdrop; the card's left column
            // of keys lies there in white type.
            func ink(_ image: RGBAImage) -> Int {
                var n = 0
                for y in image.height * 30 / 100..<image.height * 70 / 100 {
                    for x in image.width * 14 / 100..<image.width * 30 / 100 {
                        let p = image.pixel(x, y)
                        if p.r > 200 && p.g > 200 && p.b > 190 { n += 1 }
                    }
                }
                return n
            }
            #expect(ink(help) > 120, "\(report)")
            #expect(ink(after) < 20, "\(report)")
        }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool"),
                   "needs xvfb-run and xdotool (apt-get install xvfb xauth xdotool)"))
    func aPageImageOpensItsBookAtIt() throws {
        let pages = FileManager.default.temporaryDirectory.appendingPathComponent("folio-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: pages) }
        for i in 1...6 {
            try PNG.write(RGBAImage(width: 181, height: 284, fill: (240, 235, 225, 255)), to: pages.appendingPathComponent("p\(i).png").path)
        }
        try Self.underXvfb(openAPage, environment: ["PAGE": pages.appendingPathComponent("p3.png").path]) { _, _ in }
    }

    /// Runs a driver script under Xvfb with FOLIO, SHOTS and MSAA set (and `environment`); once it
    /// has exited 0 with `exit=0`, `check` gets the screenshots' paths and a report of everything said.
    private static func underXvfb(_ script: String, msaa: Int = 0, environment extra: [String: String] = [:],
                                  check: ([String], String) throws -> Void) throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let shots = FileManager.default.temporaryDirectory.appendingPathComponent("folio-view-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: shots) }
        var environment = ProcessInfo.processInfo.environment
        environment["FOLIO"] = folio.path
        environment["SHOTS"] = shots.path
        environment["MSAA"] = "\(msaa)"
        environment["XDG_STATE_HOME"] = shots.path
        environment["XDG_DATA_HOME"] = shots.path
        // The viewer reads the reader's settings: none of the user's.
        environment["XDG_CONFIG_HOME"] = shots.path
        environment.merge(extra) { $1 }

        // `timeout` ends the whole group (Xvfb and the viewer too) should anything hang.
        let run = try FolioProcess.run("/usr/bin/timeout", ["-k", "5", "55", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
                                                            "bash", "-c", script],
                                       environment: environment, timeout: 62)
        let viewerOutput = (try? String(contentsOf: shots.appendingPathComponent("stdout.txt"), encoding: .utf8)) ?? ""
        let viewerErrors = (try? String(contentsOf: shots.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
        let report = "\(run.stdout)\(run.stderr)\nviewer stdout:\n\(viewerOutput)\nviewer stderr:\n\(viewerErrors)"
        #expect(!run.timedOut, "\(report)")
        try #require(run.status == 0, "\(report)")
        #expect(run.stdout.contains("exit=0"), "\(report)")
        try check(viewerOutput.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".png") }, report)
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FileManager.default.fileExists(atPath: "/usr/bin/python3"),
                   "needs xvfb-run, xdotool and python3-cairo"))
    func goesToATypedPageAndReopensThere() throws {
        try Self.readingDocument(readDocument, seconds: 80) { dir, _ in
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("folio/state.sqlite").path), "kept in the state store")
        }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FileManager.default.fileExists(atPath: "/usr/bin/python3"),
                   "needs xvfb-run, xdotool and python3-cairo"))
    func aThemeChosenByKeyIsRememberedAndAnOptionIsForOneRun() throws {
        try Self.readingDocument(threeRuns, seconds: 100) { dir, report in
            let output = try String(contentsOf: dir.appendingPathComponent("stdout.txt"), encoding: .utf8)
            let shots = output.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".png") }
            try #require(shots.count == 2, "\(report)")
            #expect(report.components(separatedBy: "exit=0").count == 4, "three runs, each exiting 0: \(report)")
            // Paper above page 1's band, on the right-hand page.
            func paper(_ path: String) throws -> (r: Int, g: Int, b: Int) {
                let image = try PNG.read(path: path)
                return Self.pixel(image, x: image.width * 77 / 100, y: image.height * 22 / 100)
            }
            let sepia = try paper(shots[0]), night = try paper(shots[1])
            #expect(sepia.r > 200 && sepia.r > sepia.b + 25, "sepia paper: \(sepia)")
            #expect(night.r < 70 && night.g < 70 && night.b < 70, "night paper: \(night)")
        }
    }

    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FileManager.default.fileExists(atPath: "/usr/bin/python3"),
                   "needs xvfb-run, xdotool and python3-cairo"))
    func theShelfStartsAtTheBookReadLast() throws {
        try Self.readingDocument(continueReading, seconds: 80) { _, _ in }
    }

    /// Runs `script` under Xvfb on portrait.pdf (ten pages made for it) with FOLIO, SHOTS, DOC
    /// and the XDG state and config folders in a fresh folder; once it printed "done", `check`
    /// gets the folder and a report of everything said.
    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FileManager.default.fileExists(atPath: "/usr/bin/python3"),
                   "needs xvfb-run, xdotool and python3"))
    func typographyKeysAreRememberedInAnEPUB() throws {
        try Self.readingDocument(typographyKeys, seconds: 80, fixture: ("make_typeset_ebooks.py", "margin0.epub")) { _, report in
            #expect(report.contains("exit=0"), "\(report)")
        }
    }

    private static func readingDocument(_ script: String, seconds: Int, fixture: (maker: String, document: String) = ("make_documents.py", "portrait.pdf"),
                                        check: (URL, String) throws -> Void) throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let maker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FolioDocumentsTests/Fixtures/" + fixture.maker)
        let made = try FolioProcess.run("/usr/bin/python3", [maker.path, dir.path, "1"], timeout: 30)
        try #require(made.status == 0, "\(made.stderr)")
        var environment = ProcessInfo.processInfo.environment
        environment["FOLIO"] = folio.path
        environment["SHOTS"] = dir.path
        environment["DOC"] = dir.appendingPathComponent(fixture.document).path
        environment["XDG_STATE_HOME"] = dir.path
        environment["XDG_DATA_HOME"] = dir.path
        environment["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path
        let run = try FolioProcess.run("/usr/bin/timeout", ["-k", "5", "\(seconds)", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
                                                            "bash", "-c", script],
                                       environment: environment, timeout: Double(seconds + 8))
        let viewerErrors = (try? String(contentsOf: dir.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
        let report = "\(run.stdout)\(run.stderr)\nviewer stderr:\n\(viewerErrors)"
        try #require(run.stdout.contains("done"), "\(report)")
        try check(dir, report)
    }

    @Test func withoutADisplayItSaysSoAndSuggestsCapture() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        for arguments in [["view"], ["view", "--check-display"]] {
            let run = try FolioProcess.run(folio.path, arguments, environment: environment, timeout: 20)
            #expect(!run.timedOut)
            #expect(run.status != 0)
            #expect(run.stderr.contains("display") && run.stderr.contains("folio capture"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "one message, not a trace: \(run.stderr)")
        }
    }

    @Test func helpPrintsTheKeyMap() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let run = try FolioProcess.run(folio.path, ["view", "--help"], timeout: 20)
        #expect(run.status == 0)
        for line in ["open the centred book", "next page", "else the book", "screenshot", "quit", "Ctrl + wheel",
                     "  Tab ", "  /, Ctrl+F ", "  Alt+← ", "  Ctrl+= ", "  Shift+N ", "  F, F11 "] {
            #expect(run.stdout.contains(line), "\(line)")
        }
    }

    private static func pixel(_ image: RGBAImage, x: Int, y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * image.width + x) * 4
        return (Int(image.pixels[i]), Int(image.pixels[i + 1]), Int(image.pixels[i + 2]))
    }

    private static func luminance(_ image: RGBAImage, x: Int, y: Int) -> Int {
        let p = pixel(image, x: x, y: y)
        return (p.r * 3 + p.g * 6 + p.b) / 10
    }

    /// Light and warm, like the page paper (247, 242, 230) in the renderer's light.
    private static func isPaper(_ image: RGBAImage, x: Int, y: Int) -> Bool {
        let p = pixel(image, x: x, y: y)
        return p.r > 200 && p.g > 190 && p.b > 165 && p.r >= p.b
    }

    private static func paperFraction(_ image: RGBAImage) -> Double {
        var count = 0
        for y in stride(from: 0, to: image.height, by: 4) {
            for x in stride(from: 0, to: image.width, by: 4) where isPaper(image, x: x, y: y) { count += 1 }
        }
        return Double(count) / Double(((image.height + 3) / 4) * ((image.width + 3) / 4))
    }
}
