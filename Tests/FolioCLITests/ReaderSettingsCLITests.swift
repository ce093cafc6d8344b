import FolioBook
import Foundation
import Testing

/// Three runs of `folio view` on one PDF under Xvfb, with their own XDG_CONFIG_HOME: the PDF
/// opens straight into the book (no Enter); T in the first run switches to sepia, which is
/// written; the second run starts in sepia (F12); the third, given `--theme night`, is night
/// for that run only (F12) and leaves the file as it was.
private let threeRuns = #"""
set -u
pid=""
fail() { echo "FAIL: $*"; [ -n "$pid" ] && kill "$pid" 2>/dev/null; exit 3; }
within() { local n=$(( $1 * 10 )); shift; for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done; return 1; }
shots() { [ "$(grep -c '\.png$' "$SHOTS/stdout.txt")" -ge "$1" ]; }
titled() { xdotool getwindowname "$wid" | grep -q -- "$1"; }
gone() { ! kill -0 "$pid" 2>/dev/null; }
saved() { grep -q "\"theme\" : \"$1\"" "$XDG_CONFIG_HOME/folio/settings.json" 2>/dev/null; }
start() {
    "$FOLIO" view "$DOC" --screenshot-dir "$SHOTS" "$@" >>"$SHOTS/stdout.txt" 2>>"$SHOTS/stderr.txt" &
    pid=$!
    wid=$(timeout 30 xdotool search --sync --name '^Folio' | head -n 1); [ -n "$wid" ] || fail "no Folio window"
    # Open at once: the title names the page without a key pressed.
    within 20 titled "page 1 of 10" || fail "the book did not open by itself; the title says: $(xdotool getwindowname "$wid")"
}
quit() { xdotool key --window "$wid" q 2>/dev/null; within 15 gone || fail "Q did not quit"; wait "$pid" || fail "exit $?"; }
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

@Suite(.serialized) struct ReaderSettingsCLITests {
    @Test(.enabled(if: FolioProcess.available("xvfb-run") && FolioProcess.available("xdotool") && FileManager.default.fileExists(atPath: "/usr/bin/python3"),
                   "needs xvfb-run, xdotool and python3-cairo"))
    func aThemeChosenByKeyIsRememberedAndAnOptionIsForOneRun() throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FolioDocumentsTests/Fixtures/make_documents.py")
        let made = try FolioProcess.run("/usr/bin/python3", [script.path, dir.path, "1"], timeout: 30)
        try #require(made.status == 0, "\(made.stderr)")
        var environment = ProcessInfo.processInfo.environment
        environment["FOLIO"] = folio.path
        environment["SHOTS"] = dir.path
        environment["DOC"] = dir.appendingPathComponent("portrait.pdf").path
        environment["XDG_STATE_HOME"] = dir.path
        environment["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path
        let run = try FolioProcess.run("/usr/bin/timeout", ["-k", "5", "100", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
                                                            "bash", "-c", threeRuns],
                                       environment: environment, timeout: 108)
        let viewerErrors = (try? String(contentsOf: dir.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
        let report = "\(run.stdout)\(run.stderr)\nviewer stderr:\n\(viewerErrors)"
        try #require(run.stdout.contains("done"), "\(report)")
        let output = try String(contentsOf: dir.appendingPathComponent("stdout.txt"), encoding: .utf8)
        let shots = output.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".png") }
        try #require(shots.count == 2, "\(report)")
        // Paper above page 1's band, on the right-hand page.
        func paper(_ path: String) throws -> (r: Int, g: Int, b: Int) {
            let image = try PNG.read(path: path)
            let x = image.width * 77 / 100, y = image.height * 22 / 100
            let i = 4 * (y * image.width + x)
            return (Int(image.pixels[i]), Int(image.pixels[i + 1]), Int(image.pixels[i + 2]))
        }
        let sepia = try paper(shots[0]), night = try paper(shots[1])
        #expect(sepia.r > 200 && sepia.r > sepia.b + 25, "sepia paper: \(sepia)")
        #expect(night.r < 70 && night.g < 70 && night.b < 70, "night paper: \(night)")
    }
}
