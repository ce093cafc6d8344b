import FolioBook
import FolioImage
import FolioInput
import FolioKit
import FolioLayout
import FolioLibrary
import FolioMath
import FolioOverlay
import FolioPages
import FolioPlatform
import FolioReader
import FolioRender
import FolioSpeech
import FolioState
import Foundation
import Synchronization
import Testing

/// A surface whose input, clock and size the test sets, drawing through a headless context:
/// the viewer's loop, run in-process.
private final class ScriptedSurface: Surface {
    let context: HeadlessContext
    var framebufferSize: (width: Int, height: Int) = (320, 180)
    var time = 0.0
    var queued: [TimedInputEvent] = []
    private(set) var presented = 0
    private(set) var titles: [String] = []

    init() throws { context = try HeadlessContext.make(rasteriser: .software) }

    func events(wait: Bool, timeout: Double?) -> [TimedInputEvent] {
        defer { queued = [] }
        return queued
    }
    /// Signalled by every wake (work finished on another thread).
    let woken = DispatchSemaphore(value: 0)
    var wake: @Sendable () -> Void { { [woken] in woken.signal() } }
    func present(_ frame: Framebuffer) { presented += 1 }
    func makeCurrent() { context.makeCurrent() }
    func setTitle(_ title: String) { titles.append(title) }
    private(set) var isFullscreen = false
    func toggleFullscreen() { isFullscreen.toggle() }
    func destroy() { context.destroy() }
    private(set) var pointers: [PointerShape] = []
    private(set) var clipboard: String?
    func setPointer(_ shape: PointerShape) { pointers.append(shape) }
    func copyToClipboard(_ text: String) { clipboard = text }
}

/// A vector document of four pages: whole pages render grey, crops blue, each crop counted;
/// the test runs them when it says (`ManualDecoding`), as a slow page would arrive.
private final class SlowCrops: PageSource {
    static let format = PageSourceFormat(name: "slow crops", extensions: ["slowcrops"]) { _, _ in SlowCrops() }
    static let crops = Atomic<Int>(0)
    static let grey: (UInt8, UInt8, UInt8, UInt8) = (150, 150, 150, 255)
    let pageCount = 4
    let title: String? = "Slow crops"
    var rendersCrops: Bool { true }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let size = fit.fitting(aspect: 362.0 / 568)
        return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: Self.grey), scalable: true)
    }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        Self.crops.add(1, ordering: .relaxed)
        return RGBAImage(width: crop.width, height: crop.height, fill: (40, 60, 200, 255))
    }
}

/// A document whose pages never finish rendering until the test lets them go: a page poppler
/// cannot be stopped on (its renders take no cancellation).
private final class StuckPages: PageSource {
    static let format = PageSourceFormat(name: "stuck pages", extensions: ["stuckpages"]) { _, _ in StuckPages() }
    static let release = DispatchSemaphore(value: 0)
    let pageCount = 4
    let title: String? = "Stuck"

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        Self.release.wait()
        Self.release.signal()
        return PageRender(image: RGBAImage(width: 8, height: 8, fill: (20, 20, 20, 255)), scalable: false)
    }
}

/// A reflowable document of two pages per point of text size on the reference page (fewer on
/// wider pages), its text spread evenly over them: grey pages at 11 pt on the reference page,
/// blue ones in any other layout.
private final class Reflowing: ReflowableSource {
    static let format = PageSourceFormat(name: "reflowing", extensions: ["reflowing"]) { _, _ in Reflowing(fontSize: 11) }
    /// The same book, but no layout of it succeeds.
    static let breaking = PageSourceFormat(name: "breaking", extensions: ["breaking"]) { _, _ in Reflowing(fontSize: 11, breaks: true) }
    static let reference = 362.0 / 568
    let fontSize: Double
    let pageAspect: Double
    let breaks: Bool
    let title: String? = "Reflowing"
    let reflowable = true
    init(fontSize: Double, pageAspect: Double = reference, breaks: Bool = false) {
        (self.fontSize, self.pageAspect, self.breaks) = (fontSize, pageAspect, breaks)
    }

    struct Broke: Error, CustomStringConvertible {
        var description: String { "book.breaking: the layout broke" }
    }

    static func pages(at size: Double, aspect: Double = reference) -> Int { Int((size * 2 * reference / aspect).rounded()) }
    var pageCount: Int { Self.pages(at: fontSize, aspect: pageAspect) }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (568 * pageAspect, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let size = fit.fitting(aspect: pageAspect)
        let fill: (UInt8, UInt8, UInt8, UInt8) = fontSize == 11 && pageAspect == Self.reference ? (150, 150, 150, 255) : (40, 60, 200, 255)
        return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: fill), scalable: false)
    }

    func page(of place: TextPlace) -> Int? { place.page * pageCount / Self.pages(at: place.fontSize, aspect: place.pageAspect ?? pageAspect) }

    /// "zebra" on every fifth page (indices 0, 5, 10 …) in any layout, "horse" elsewhere.
    func text(page index: Int) throws -> PageText? {
        PageText(words: [TextWord(text: index % 5 == 0 ? "zebra" : "horse", box: PageRegion(x0: 0, y0: 0, x1: 1, y1: 1))])
    }

    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        try relaid(fontSize: fontSize, pageAspect: pageAspect, keeping: place)
    }

    func relaid(fontSize: Double, pageAspect: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        if breaks { throw Broke() }
        let relaid = Reflowing(fontSize: fontSize, pageAspect: pageAspect)
        return (relaid, relaid.page(of: place) ?? 0)
    }
}

/// A reflowable document opened on its first chapters: 6 grey pages counted of an estimated
/// book, laid out whole (20 pages) when the test runs the layout.
private final class LayingOut: ReflowableSource {
    static let format = PageSourceFormat(name: "laying out", extensions: ["layingout"]) { _, _ in LayingOut(whole: false) }
    let whole: Bool
    let fontSize = 11.0
    let title: String? = "Laying out"
    let reflowable = true
    init(whole: Bool) { self.whole = whole }

    var pageCount: Int { whole ? 20 : 6 }
    var pagesEstimated: Bool { !whole }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let size = fit.fitting(aspect: 362.0 / 568)
        return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: (150, 150, 150, 255)), scalable: false)
    }

    func page(of place: TextPlace) -> Int? { place.page }

    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        (LayingOut(whole: true), place.page)
    }
}

/// A reflowable book of two pages a point of text size (grey at 11 pt, blue at any other),
/// laid out at another size only as far as the place (its count an estimate), and whole when
/// laid out again at its own size.
private final class Relaying: ReflowableSource {
    static let format = PageSourceFormat(name: "relaying", extensions: ["relaying"]) { _, _ in Relaying(fontSize: 11, whole: true) }
    let fontSize: Double
    let whole: Bool
    let title: String? = "Relaying"
    let reflowable = true
    init(fontSize: Double, whole: Bool) { (self.fontSize, self.whole) = (fontSize, whole) }

    var pageCount: Int { Int(fontSize) * 2 }
    var pagesEstimated: Bool { !whole }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let size = fit.fitting(aspect: 362.0 / 568)
        let fill: (UInt8, UInt8, UInt8, UInt8) = fontSize == 11 ? (150, 150, 150, 255) : (40, 60, 200, 255)
        return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: fill), scalable: false)
    }

    func page(of place: TextPlace) -> Int? { place.page * pageCount / (Int(place.fontSize) * 2) }

    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        let relaid = Relaying(fontSize: fontSize, whole: fontSize == self.fontSize)
        return (relaid, relaid.page(of: place) ?? 0)
    }
}

/// A white page of 362 × 568 points rendered to fit `fit`.
private func whitePage(_ fit: PixelSize) -> PageRender {
    let size = fit.fitting(aspect: 362.0 / 568)
    return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: (255, 255, 255, 255)), scalable: false)
}

/// A document of eight white pages with a text layer — "zebra" on pages 2 and 6 (indices 1
/// and 5) covering the whole page, so its mark turns the page yellow; other words elsewhere —
/// and an outline.
private final class ZebraPages: PageSource {
    static let format = PageSourceFormat(name: "zebra pages", extensions: ["zebrapages"]) { _, _ in ZebraPages() }
    let pageCount = 8
    let title: String? = "Zebras"

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender { whitePage(fit) }

    func text(page index: Int) throws -> PageText? {
        let word = [1, 5].contains(index) ? "zebra" : "horse"
        return PageText(words: [TextWord(text: word, box: PageRegion(x0: 0, y0: 0, x1: 1, y1: 1))])
    }

    /// Three entries, the last one level down: pages 1, 5 and 7.
    var outline: [OutlineEntry] {
        [OutlineEntry(title: "Start", page: 0), OutlineEntry(title: "Middle", page: 4, children: [OutlineEntry(title: "Deep", page: 6)])]
    }
}

/// A document of four white pages, each with two lines of two words — "alpha beta" in the top
/// fifth, "gamma delta" below — and on the first a link to the third in the lower half.
private final class WordPages: PageSource {
    static let format = PageSourceFormat(name: "word pages", extensions: ["wordpages"]) { _, _ in WordPages(direction: .ltr) }
    /// The same document read right to left.
    static let rightToLeft = PageSourceFormat(name: "right-to-left word pages", extensions: ["rtlwordpages"]) { _, _ in WordPages(direction: .rtl) }
    let direction: ReadingDirection
    init(direction: ReadingDirection) { self.direction = direction }
    static let alpha = PageRegion(x0: 0.1, y0: 0.1, x1: 0.4, y1: 0.2)
    static let link = PageRegion(x0: 0.1, y0: 0.6, x1: 0.9, y1: 0.8)
    let pageCount = 4
    let title: String? = "Words"

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender { whitePage(fit) }

    func text(page index: Int) throws -> PageText? {
        PageText(words: [TextWord(text: "alpha", box: Self.alpha), TextWord(text: "beta", box: PageRegion(x0: 0.5, y0: 0.1, x1: 0.9, y1: 0.2)),
                         TextWord(text: "gamma", box: PageRegion(x0: 0.1, y0: 0.3, x1: 0.4, y1: 0.4)),
                         TextWord(text: "delta", box: PageRegion(x0: 0.5, y0: 0.3, x1: 0.9, y1: 0.4))])
    }

    func links(page index: Int) -> [PageLink] { index == 0 ? [PageLink(box: Self.link, target: .page(2))] : [] }
}

/// Four pages of sentences, one running on from each page to the next: "Word0 ends. Across the" |
/// "turn. Word1 ends. Across the" | … ; for reading aloud.
private final class SentencePages: PageSource {
    static let format = PageSourceFormat(name: "sentence pages", extensions: ["sentencepages"]) { _, _ in SentencePages() }
    let pageCount = 4
    let title: String? = "Sentences"

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender { whitePage(fit) }

    func text(page index: Int) throws -> PageText? {
        let words = (index > 0 ? ["turn."] : []) + ["Word\(index)", "ends.", "Across", "the"]
        return PageText(words: words.enumerated().map { i, w in
            TextWord(text: w, box: PageRegion(x0: 0.1, y0: 0.1 + Double(i) * 0.1, x1: 0.6, y1: 0.18 + Double(i) * 0.1))
        })
    }
}

/// Two white pages with a form on the first: a text field across its top (id 1) and a check box
/// (id 2); it keeps what is filled and writes a file where a filled copy is saved.
private final class FormPages: FillableSource, @unchecked Sendable {
    static let format = PageSourceFormat(name: "form pages", extensions: ["formpages"]) { _, _ in FormPages.shared }
    static let shared = FormPages()
    let pageCount = 2
    let title: String? = "Form"
    var values: [Int: FormValue] = [:]

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }
    func render(page index: Int, fit: PixelSize) throws -> PageRender { whitePage(fit) }

    func fields(page index: Int) -> [FormField] {
        guard index == 0 else { return [] }
        var text = "", on = false
        if case let .text(t)? = values[1] { text = t }
        if case let .check(c)? = values[2] { on = c }
        return [FormField(id: 1, name: "name", box: PageRegion(x0: 0.1, y0: 0.1, x1: 0.9, y1: 0.2), kind: .text(text), readOnly: false),
                FormField(id: 2, name: "agree", box: PageRegion(x0: 0.1, y0: 0.5, x1: 0.4, y1: 0.6), kind: .check(on), readOnly: false)]
    }

    func fill(_ id: Int, with value: FormValue) { values[id] = value }

    func saveFilled(to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data("filled".utf8)) else { throw FileError(.cannotCreate, path, "cannot") }
    }
}

/// A voice that speaks nothing: it keeps what it was given, and a test says when sentences end.
private final class RecordingVoice: SpeechOutput, @unchecked Sendable {
    var spoken: [String] = []
    var finished = 0
    var paused = false, stopped = false
    var rate = 0

    func speak(_ text: String) -> Bool {
        spoken.append(text)
        return true
    }

    func takeFinished() -> Int {
        defer { finished = 0 }
        return finished
    }

    func pause() { paused = true }
    func resume() { paused = false }
    func stop() { stopped = true }
}

/// A book of 200 picture pages, each one colour: red for even indices, blue for odd, green
/// for index 9; for the overview.
private final class ColourPages: PageSource {
    static let format = PageSourceFormat(name: "colour pages", extensions: ["colourpages"], printed: false) { _, _ in ColourPages() }
    static func colour(_ index: Int) -> (r: UInt8, g: UInt8, b: UInt8) { index == 9 ? (30, 200, 40) : index % 2 == 0 ? (220, 40, 40) : (40, 40, 220) }
    let pageCount = 200
    let title: String? = "Colours"

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (362, 568) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let size = fit.fitting(aspect: 362.0 / 568), (r, g, b) = Self.colour(index)
        return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: (r, g, b, 255)), scalable: false)
    }
}

/// How far apart two colours are: the sum of the channels' differences.
private func differs(_ a: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ b: (r: UInt8, g: UInt8, b: UInt8)) -> Int {
    abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b))
}

extension FramePipelineTests {
    /// A live pipeline showing a book of `FormPages` (its values cleared) with a state store of
    /// its own, the book on the shelf, not open.
    fileprivate func withFormBook(_ body: (FramePipeline, ScriptedSurface, Recorder, StateStore, String) throws -> Void) throws {
        let kept = try TemporaryStore("form")
        defer { kept.remove() }
        FormPages.shared.values = [:]
        try withDocument(FormPages.format) { doc in
            try live(configure: { $0.showsLayer = true; $0.positions = ReadingPositions(store: kept.store, documents: $0.documents) }) { p, s, rec in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                try body(p, s, rec, kept.store, doc)
            }
        }
    }
}

/// A state store in a folder of its own, for one test; `remove()` takes the folder away.
private struct TemporaryStore {
    let folder: String
    let store: StateStore

    init(_ name: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(name)-\(UUID().uuidString)").path
        store = try #require(StateStore.open(path: folder + "/state.sqlite").store)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

private final class Recorder: FramePipelineDelegate {
    var turns: [(Action, TurnOrigin)] = []
    var commands: [Action] = []
    var problems: [String] = []
    func pipeline(_ pipeline: FramePipeline, problem: String) { problems.append(problem) }
    func pipeline(_ pipeline: FramePipeline, didStartTurn action: Action, origin: TurnOrigin) { turns.append((action, origin)) }
    func pipeline(_ pipeline: FramePipeline, asksFor action: Action, at time: Double) { commands.append(action) }
    /// Links clicked, as the viewer finds them (a click on one does not turn the page).
    var links: [PageLink] = []
    /// Links followed from a note's card.
    var followed: [LinkTarget] = []
    func pipeline(_ pipeline: FramePipeline, follows target: LinkTarget, from image: Int, at time: Double) -> Bool {
        followed.append(target)
        return true
    }
    func pipeline(_ pipeline: FramePipeline, clickedAt point: PagePoint, at time: Double) -> Bool {
        guard let link = pipeline.link(at: point) else { return false }
        links.append(link)
        return true
    }
}

/// The viewer's loop logic, in-process: deferred turns, idling, resizing, images reaching the
/// screen without a frame ever waiting, and where a turn came from.
@Suite(.serialized) struct FramePipelineTests {
    static let library = Library.load(from: GLHarness.textures)

    /// Runs `body` on a live pipeline (frames never wait for images) over the sample library.
    private func live(uploadBudget: Int = 24 << 20, configure: (inout PipelineConfiguration) -> Void = { _ in },
                      _ body: (FramePipeline, ScriptedSurface, Recorder) throws -> Void) throws {
        // One GL user at a time in this process: the harness's lock.
        try GLHarness.shared.run { _ in
            let surface = try ScriptedSurface()
            var configuration = PipelineConfiguration(shaders: GLHarness.shaders)
            configuration.samples = 4
            configuration.filtering = .software
            configuration.uploadBudgetBytes = uploadBudget
            configure(&configuration)
            let pipeline = try FramePipeline(surface: surface, library: Self.library, configuration: configuration)
            let recorder = Recorder()
            pipeline.delegate = recorder
            defer {
                pipeline.destroy()
                GLHarness.shared.restoreContext()
            }
            try body(pipeline, surface, recorder)
        }
    }

    /// Steps the loop at 30 frames a second from the surface's time until `until`, or until
    /// `done` holds; returns whether it did.
    @discardableResult
    private func step(_ p: FramePipeline, _ s: ScriptedSurface, until: Double, done: () -> Bool = { false }) -> Bool {
        while s.time < until {
            for e in s.events(wait: false, timeout: nil) { p.handle(e) }
            p.frame(at: s.time)
            if done() { return true }
            s.time += 1.0 / 30
        }
        return done()
    }

    /// Runs the decodes `p` asked `decoding` for, a frame taking them after each round, until a
    /// frame asks for none.
    private func decodeAll(_ decoding: ManualDecoding, _ p: FramePipeline, _ s: ScriptedSurface) {
        while decoding.runAll() > 0 { step(p, s, until: s.time + 1.0 / 30) }
    }

    private func key(_ k: Key, at t: Double) -> TimedInputEvent {
        TimedInputEvent(.key(k, modifiers: [], isRepeat: false), at: t)
    }

    /// Replacing the library keeps who listens to the controller and who supplies its pages.
    @Test func replacingTheLibraryKeepsTheControllersDelegateAndDataSource() throws {
        final class Listener: BookControllerDelegate, PageDataSource {
            var turns = 0
            func controller(_ controller: BookController, didFinishTurnFrom from: Int, to: Int, completed: Bool) { turns += 1 }
            func page(before page: LayoutPage) -> LayoutPage? { page.index > 2 ? page.advanced(by: -2) : nil }
            func page(after page: LayoutPage) -> LayoutPage? { page.advanced(by: 2) }
        }
        try live { p, _, _ in
            let listener = Listener()
            p.controller.delegate = listener
            p.controller.dataSource = listener
            var other = Self.library
            other.books = Array(other.books.suffix(1))
            let before = p.controller
            p.replaceLibrary(other)
            #expect(p.controller !== before && p.library == other && p.controller.library.count == 1)
            #expect(p.controller.delegate === listener && p.controller.dataSource === listener)
            #expect(p.perform(.showBook(0), at: 0) && p.perform(.nextPage, at: 0))
            p.controller.update(to: 5)
            #expect(listener.turns == 1, "the delegate hears a turn in the new library")
        }
    }

    @Test func aTurnAskedForWhileTheBookOpensPlaysOnceItIsOpen() throws {
        try live { p, s, rec in
            s.queued = [key(.enter, at: 0), key(.right, at: 0.1)]
            step(p, s, until: 0.2)
            #expect(p.controller.phase == .opening)
            #expect(rec.turns.isEmpty, "the turn waits for the book to open")
            #expect(step(p, s, until: 5) { p.controller.spread == 1 && !p.controller.isAnimating })
            #expect(rec.turns.count == 1 && rec.turns.first?.0 == .nextPage && rec.turns.first?.1 == .key)
            #expect(s.titles.last?.contains("pages 2–3 of") == true, "title: \(s.titles.last ?? "none")")
        }
    }

    /// The on-screen layer in the viewer's loop: a page that does not exist gets an answer and
    /// no turn, a click on the progress bar jumps through the goto action, ? shows the help card
    /// and Escape takes it away (the book stays open), and the layer fades once left alone.
    @Test func theLayerAnswersJumpsHelpsAndFades() throws {
        try live(configure: { $0.showsLayer = true }) { p, s, rec in
            s.queued = [key(.enter, at: 0)]
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            let count = Self.library.books[0].pages.count
            var t = s.time
            s.queued = [key(.n9, at: t), key(.n9, at: t), key(.n9, at: t)]
            step(p, s, until: t + 0.1)
            #expect(p.layer.entry == "Go to page 999")
            s.queued = [key(.enter, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.entry == "no page 999 — 1–\(count)")
            #expect(rec.turns.isEmpty && p.controller.spread == 0)
            // The bar's right end: the last spread.
            let bar = OverlayLayout(width: 320, height: 180).barFrame
            t = s.time
            s.queued = [TimedInputEvent(.mouseDown(.left, x: bar.maxX - 2, y: bar.y + bar.height / 2, modifiers: []), at: t),
                        TimedInputEvent(.mouseUp(.left, x: bar.maxX - 2, y: bar.y + bar.height / 2, modifiers: []), at: t + 0.05)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == count / 2 && !p.controller.isAnimating })
            #expect(rec.turns.count == 1 && rec.turns.first?.0 == .goTo(PageImage(number: 2 * (count / 2))) && rec.turns.first?.1 == .gesture)
            s.queued = [key(.question, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.helpShown && p.layer.fade.opacity(at: s.time) == 1)
            s.queued = [key(.escape, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(!p.layer.helpShown && p.controller.phase == .reading, "Escape closed the card, not the book")
            // Left alone it fades (once the answer's seconds are over too); the pointer brings it back.
            s.time += LayerState.answerSeconds + 5
            step(p, s, until: s.time + 0.01)
            #expect(p.layer.fade.opacity(at: s.time) == 0)
            s.queued = [TimedInputEvent(.mouseMove(x: 100, y: 100), at: s.time)]
            step(p, s, until: s.time + 0.3)
            #expect(p.layer.fade.opacity(at: s.time) == 1)
        }
    }

    /// Ctrl+= on a reflowable book: the pages shown stay while it is laid out again in the
    /// background, then the book has its new page count, shows the page holding the same text
    /// (without a turn), its new pages, and a notice; on a book of fixed pages the key says so.
    @Test func ctrlEqualsReLaysAReflowableBookOutAndKeepsThePlace() throws {
        let relayouts = ManualDecoding()
        try withDocument(Reflowing.format) { doc in try live(configure: { $0.showsLayer = true; $0.waitsForImages = true; $0.relayingOut = relayouts }) { p, s, rec in
            let ctrlEquals = TimedInputEvent(.key(.plus, modifiers: .control, isRepeat: false), at: 0)
            // The sample library's books are pictures: fixed pages.
            s.queued = [key(.enter, at: 0)]
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            p.handle(TimedInputEvent(ctrlEquals.event, at: s.time))
            #expect(p.layer.entry == "this book has fixed pages" && p.wantedTextSize == nil && rec.commands.isEmpty)

            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            // Image 16 of 22 (index 15) at 11 pt: index 15 × 24 / 22 = 16 of 24 at 12 pt.
            #expect(p.perform(.goTo(PageImage(number: 16)), at: s.time))
            #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating })
            #expect(p.controller.shownPages.map(\.number).contains(16))
            let grey = p.snapshot(at: s.time).flippedVertically().pixel(215, 90)
            #expect(grey.r == grey.b && grey.r > 100 && grey.r < 200, "the page at 11 pt: \(grey)")
            let turns = rec.turns.count
            p.handle(TimedInputEvent(ctrlEquals.event, at: s.time))
            #expect(p.wantedTextSize == 12 && rec.commands == [.textLarger])
            // Until a frame takes the new layout, the book is as it was; the wake says when.
            step(p, s, until: s.time + 0.1)
            #expect(p.controller.library[0].imageCount == 22)
            #expect(relayouts.runAll() == 1)
            #expect(s.woken.wait(timeout: .now()) == .success && p.controller.library[0].imageCount == 22)
            p.frame(at: s.time)
            #expect(p.controller.library[0].imageCount == 24 && p.library.books[0].pages.count == 24)
            #expect(p.controller.shownPages.map(\.number).contains(17), "\(p.controller.shownPages)")
            #expect(p.controller.phase == .reading && !p.controller.isAnimating && rec.turns.count == turns, "no turn")
            #expect(p.layer.notice == "text 12 pt — 24 pages" && p.wantedTextSize == nil)
            let blue = p.snapshot(at: s.time).flippedVertically().pixel(215, 90)
            #expect(blue.b > 150 && blue.r < 100, "the page at 12 pt: \(blue)")
            // Two steps while a layout runs: that one lands, then one for the size asked last.
            p.handle(TimedInputEvent(ctrlEquals.event, at: s.time))
            p.handle(TimedInputEvent(ctrlEquals.event, at: s.time))
            #expect(p.wantedTextSize == 14 && relayouts.count == 1)
            relayouts.runAll()
            p.frame(at: s.time)
            #expect(p.library.books[0].pages.count == Reflowing.pages(at: 13) && relayouts.count == 1 && p.wantedTextSize == 14)
            relayouts.runAll()
            p.frame(at: s.time)
            #expect(p.library.books[0].pages.count == Reflowing.pages(at: 14) && relayouts.count == 0 && p.wantedTextSize == nil)
            #expect(p.layer.notice == "text 14 pt — 28 pages", "\(String(describing: p.layer.notice))")
        } }
    }

    /// Y, K and J (and with Shift) step a reflowable book's typography: the host hears it before
    /// the book is laid out again with it, keeping its place, and the layer names the choice; two
    /// steps while a layout runs lay it out once more after; a book of fixed pages says it has none.
    @Test func typographyKeysLayAReflowableBookOutAgain() throws {
        let relayouts = ManualDecoding()
        try withDocument(Reflowing.format) { doc in try live(configure: { $0.showsLayer = true; $0.relayingOut = relayouts }) { p, s, rec in
            s.queued = [key(.enter, at: 0)]
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            p.handle(TimedInputEvent(.key(.y, modifiers: [], isRepeat: false), at: s.time))
            #expect(p.layer.entry == "this book has fixed pages" && rec.commands.isEmpty && relayouts.count == 0)

            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            p.handle(TimedInputEvent(.key(.y, modifiers: [], isRepeat: false), at: s.time))
            #expect(rec.commands == [.typography(.face)] && p.typography.face == .serif && relayouts.count == 1)
            // The card lists every choice, its keys and what it is now, beside the page.
            let rows = try #require(p.layer.typography)
            #expect(rows.contains(HelpRow(keys: "Y", summary: "typeface: serif")) && rows.contains(HelpRow(keys: "Ctrl+= Ctrl+−", summary: "text: 11 pt")),
                    "\(rows)")
            let card = try #require(ReaderLayer.layout(width: 1280, height: 720).panels(p.layerContent).first { $0.role == .typography })
            #expect(card.frame.x > 640, "the card leaves the left of the spread to the page")
            // Shift+Y and Shift+J while that layout runs: it lands, then one more with both.
            p.handle(TimedInputEvent(.key(.y, modifiers: .shift, isRepeat: false), at: s.time))
            p.handle(TimedInputEvent(.key(.j, modifiers: .shift, isRepeat: false), at: s.time))
            #expect(p.typography == Typography(face: .serif, margins: .wide, hyphenate: false))
            #expect(rec.commands == [.typography(.face), .typography(.margins), .typography(.hyphenate)] && relayouts.count == 1)
            relayouts.runAll()
            p.frame(at: s.time)
            #expect(relayouts.count == 1)
            relayouts.runAll()
            p.frame(at: s.time)
            #expect(relayouts.count == 0 && p.controller.phase == .reading)
            // K steps the spacing on from the standard 1.4.
            p.handle(TimedInputEvent(.key(.k, modifiers: [], isRepeat: false), at: s.time))
            #expect(p.typography.lineSpacing == 1.7 && p.layer.typography?.contains(HelpRow(keys: "K", summary: "line spacing: 1.7")) == true)
            // A click on the card's typeface row steps the typeface as Y does; the card stays.
            let shown = try #require(ReaderLayer.layout(width: 320, height: 180).panels(p.layerContent).first { $0.role == .typography })
            let face = try #require(shown.texts.first { $0.string.hasPrefix("typeface:") })
            let (x, y) = (shown.frame.x + face.frame.x + face.frame.width / 2, shown.frame.y + face.frame.y + face.frame.height / 2)
            s.queued = [TimedInputEvent(.mouseDown(.left, x: x, y: y, modifiers: []), at: s.time),
                        TimedInputEvent(.mouseUp(.left, x: x, y: y, modifiers: []), at: s.time + 0.05)]
            step(p, s, until: s.time + 0.1)
            #expect(p.typography.face == Typography.Face.allCases[(Typography.Face.allCases.firstIndex(of: .serif)! + 1) % Typography.Face.allCases.count])
            #expect(rec.commands.last == .typography(.face) && p.layer.typography != nil && rec.turns.isEmpty, "\(rec.turns)")
            s.queued = [key(.escape, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.typography == nil && p.controller.phase == .reading, "Escape closed the card, not the book")
        } }
    }

    /// A layout that fails is one line naming the file; the book stays as it was, and the next
    /// step starts from the size it shows.
    @Test func aRelayoutThatFailsIsReportedAndTheBookStaysAsItWas() throws {
        let relayouts = ManualDecoding()
        try withDocument(Reflowing.breaking) { doc in try live(configure: { $0.relayingOut = relayouts }) { p, s, rec in
            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            #expect(p.changeTextSize(by: 1, at: s.time) == 12 && relayouts.runAll() == 1)
            p.frame(at: s.time)
            #expect(rec.problems == ["book.breaking: the layout broke"])
            #expect(p.wantedTextSize == nil && p.library.books[0].pages.count == 22 && p.controller.library[0].imageCount == 22)
            #expect(p.changeTextSize(by: 1, at: s.time) == 12 && relayouts.count == 1)
        } }
    }

    /// A reflowable book in a window that changes shape is laid out again for the window's page
    /// shape once the size has settled, in the background: the old pages stay until then, the
    /// new ones are wider (they reach where there was desk) and hold the same text.
    @Test func aResizedWindowLaysAReflowableBookOutForItsPageShapeKeepingThePlace() throws {
        let relayouts = ManualDecoding()
        try withDocument(Reflowing.format) { doc in try live(configure: { $0.followsPageShape = true; $0.showsLayer = true; $0.waitsForImages = true; $0.relayingOut = relayouts }) { p, s, rec in
            p.replaceLibrary(Library.load(from: doc, logProblems: false))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            #expect(p.perform(.goTo(PageImage(number: 16)), at: s.time))
            #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating })
            // A 16:9 view keeps the reference page: nothing to lay out.
            #expect(p.pageShapeWake == nil && p.library.books[0].pageWidth == 362)
            // Wider: two pages of 453 × 568 units (the view's 400 × 180 pixels shared as 16:9 shares the reference page).
            s.framebufferSize = (400, 180)
            s.queued = [TimedInputEvent(.resize(width: 400, height: 180), at: s.time)]
            let resized = s.time
            step(p, s, until: resized + 0.3)
            #expect(p.library.books[0].pages.count == 22 && p.pageShapeWake == resized + FramePipeline.pageShapeSettles,
                    "not yet: the size may still change")
            #expect(relayouts.count == 0)
            let before = p.snapshot(at: s.time).flippedVertically()
            let old = before.pixel(250, 90), desk = before.pixel(305, 90)
            #expect(old.r == old.b && old.r > 100 && old.r < 200, "the old page stays: \(old)")
            #expect(desk.b < 150 && !(desk.r == desk.b && desk.r > 100 && desk.r < 200), "desk beyond it: \(desk)")
            step(p, s, until: resized + 0.5)
            #expect(relayouts.runAll() == 1, "one layout, for the size the window settled at")
            p.frame(at: s.time)
            let count = Reflowing.pages(at: 11, aspect: 453.0 / 568)
            #expect(p.library.books[0].pages.count == count && p.library.books[0].pageWidth == 453 && p.controller.library[0].pageSize.x == 453)
            // Index 15 of 22 holds the text that index 15 × 18 / 22 = 12 holds now: page 13.
            #expect(p.controller.shownPages.map(\.number).contains(13), "\(p.controller.shownPages)")
            #expect(p.pageShapeWake == nil && rec.problems.isEmpty, "\(rec.problems)")
            #expect(p.layer.notice == "laid out for the window — \(count) pages", "\(String(describing: p.layer.notice))")
            let after = p.snapshot(at: s.time).flippedVertically()
            #expect(after.pixel(305, 90).b > 150 && after.pixel(305, 90).r < 100, "the wider page: \(after.pixel(305, 90))")
        } }
    }

    /// A book opened on its first chapters shows its first pages at once, its page count
    /// marked as an estimate in the title and on the bar, while the rest is laid out in the
    /// background; once that lands the count is exact and the reader is where they were.
    @Test func aBookStillBeingLaidOutShowsItsFirstPagesAndAnEstimatedCount() throws {
        let relayouts = ManualDecoding()
        try withDocument(LayingOut.format) { doc in try live(configure: { $0.showsLayer = true; $0.waitsForImages = true; $0.relayingOut = relayouts }) { p, s, rec in
            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.library.books[0].pages.count == 6 && p.library.books[0].pagesEstimated(in: p.configuration.documents))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            // The layout has not run (the test holds it): the first page is on screen.
            #expect(p.controller.library[0].imageCount == 6 && relayouts.count == 1)
            let grey = p.snapshot(at: s.time).flippedVertically().pixel(215, 90)
            #expect(grey.r == grey.b && grey.r > 100 && grey.r < 200, "the first page: \(grey)")
            #expect(p.pageTitle.hasSuffix("of ≈6"), "\(p.pageTitle)")
            let bar = ReaderLayer.content(library: p.library, documents: p.configuration.documents, phase: .reading, book: 0, spread: p.controller.spread, scroll: 0)
            #expect(bar.progress?.label.hasSuffix("· ≈6") == true, "\(String(describing: bar.progress?.label))")
            let shelf = ReaderLayer.content(library: p.library, documents: p.configuration.documents, phase: .shelf, book: nil, spread: 0, scroll: 0)
            #expect(shelf.shelfAuthor == "≈6 pages", "\(String(describing: shelf.shelfAuthor))")
            #expect(p.perform(.nextPage, at: s.time))
            #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating })
            let shown = p.controller.shownPages
            #expect(relayouts.runAll() == 1)
            p.frame(at: s.time)
            #expect(p.controller.library[0].imageCount == 20 && !p.library.books[0].pagesEstimated(in: p.configuration.documents))
            #expect(p.controller.shownPages == shown, "the reader stays where they are")
            #expect(p.pageTitle.hasSuffix("of 20"), "\(p.pageTitle)")
            #expect(ReaderLayer.content(library: p.library, documents: p.configuration.documents, phase: .shelf, book: nil, spread: 0, scroll: 0).shelfAuthor == nil,
                    "laid out: no count under the title")
            #expect(p.layer.notice == nil, "no notice: \(String(describing: p.layer.notice))")
            #expect(rec.problems.isEmpty, "\(rec.problems)")
        } }
    }

    /// Frames that wait for layouts (captures, recordings) take the whole layout started by the
    /// frame before, however long it takes: a script lays out in the same frames each time.
    @Test func aFrameThatWaitsForLayoutsTakesTheOneTheFrameBeforeStarted() throws {
        let relayouts = SlowDecoding(delay: 0.5)
        try withDocument(LayingOut.format) { doc in
            try live(configure: { $0.waitsForImages = true; $0.waitsForLayouts = true; $0.relayingOut = relayouts }) { p, s, _ in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: s.time))
                #expect(step(p, s, until: s.time + 5) { relayouts.handed == 1 })
                #expect(p.controller.library[0].imageCount == 6)
                s.time += 1.0 / 30
                p.frame(at: s.time)
                #expect(p.controller.library[0].imageCount == 20 && !p.library.books[0].pagesEstimated(in: p.configuration.documents))
            }
        }
    }

    /// A relayout that never ends costs frames that wait for layouts one wait, not one each: 90
    /// frames waiting a second each would pass the time limit.
    @Test(.timeLimit(.minutes(1))) func aLayoutThatNeverEndsIsWaitedForOnce() throws {
        let relayouts = ManualDecoding()  // never run
        try withDocument(LayingOut.format) { doc in
            try live(configure: { $0.waitsForImages = true; $0.waitsForLayouts = true; $0.imageTimeout = 1; $0.relayingOut = relayouts }) { p, s, _ in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: s.time))
                step(p, s, until: s.time + 3)
                #expect(relayouts.count == 1 && p.controller.library[0].imageCount == 6)
                #expect(p.controller.phase == .reading && !p.controller.isAnimating, "the book opened meanwhile")
            }
        }
    }

    /// Ctrl+= lands on the page holding the same text as soon as the book is laid out as far
    /// as it (the count "≈"); the rest is laid out next, in the background, and the count made
    /// exact without moving the reader or saying anything more.
    @Test func aLargerTextSizeShowsThePlaceFirstAndTheWholeCountAfter() throws {
        let relayouts = ManualDecoding()
        try withDocument(Relaying.format) { doc in try live(configure: { $0.showsLayer = true; $0.waitsForImages = true; $0.relayingOut = relayouts }) { p, s, rec in
            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            #expect(p.perform(.goTo(PageImage(number: 16)), at: s.time))
            #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating })
            #expect(p.changeTextSize(by: 1, at: s.time) == 12 && relayouts.runAll() == 1)
            p.frame(at: s.time)
            // Index 15 of 22 at 11 pt: index 15 × 24 / 22 = 16 at 12 pt.
            #expect(p.library.books[0].pages.count == 24 && p.library.books[0].pagesEstimated(in: p.configuration.documents))
            #expect(p.controller.shownPages.map(\.number).contains(17), "\(p.controller.shownPages)")
            #expect(p.layer.notice == "text 12 pt — ≈24 pages", "\(String(describing: p.layer.notice))")
            #expect(p.pageTitle.hasSuffix("of ≈24"), "\(p.pageTitle)")
            let blue = p.snapshot(at: s.time).flippedVertically().pixel(215, 90)
            #expect(blue.b > 150 && blue.r < 100, "the page at 12 pt: \(blue)")
            // The rest at 12 pt, asked by that frame.
            #expect(relayouts.count == 1)
            let shown = p.controller.shownPages, turns = rec.turns.count
            relayouts.runAll()
            p.frame(at: s.time)
            #expect(!p.library.books[0].pagesEstimated(in: p.configuration.documents) && p.pageTitle.hasSuffix("of 24"), "\(p.pageTitle)")
            #expect(p.controller.shownPages == shown && rec.turns.count == turns, "the reader stays where they are")
            #expect(p.layer.notice == "text 12 pt — ≈24 pages", "no second notice")
            #expect(relayouts.count == 0 && rec.problems.isEmpty, "\(rec.problems)")
        } }
    }

    /// Runs `body` with the path of a one-byte file of `format`, registered.
    private func withDocument(_ format: PageSourceFormat, _ body: (String) throws -> Void) throws {
        PageSources.register(format)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = dir.appendingPathComponent("book." + format.extensions[0]).path
        #expect(FileManager.default.createFile(atPath: doc, contents: Data([0])))
        try body(doc)
    }

    /// Runs `body` on a live pipeline showing the layer, with the zebra document open.
    private func zebraBook(configure: (inout PipelineConfiguration) -> Void = { _ in },
                           _ body: (FramePipeline, ScriptedSurface, Recorder) throws -> Void) throws {
        try openDocument(ZebraPages.format, configure: { $0.showsLayer = true; configure(&$0) }, body)
    }

    /// A search typed in the window: `/` opens the field (a key typed while it is open does
    /// not turn the page, F12 still takes a screenshot), Backspace edits, Enter searches — run to its end at once through the
    /// pipeline's hook, so the test sees what follows without waiting — the book turns to the
    /// first hit with its page marked yellow and the layer says "1 of 2"; N and Shift+N move on.
    @Test func aSearchTypedInTheWindowTurnsToItsHitsAndMarksThem() throws {
        try zebraBook(configure: { $0.startsSearch = { $0.run() } }) { p, s, rec in
            var t = s.time
            s.queued = [TimedInputEvent(.text("/"), at: t), key(.right, at: t), TimedInputEvent(.text("zebu"), at: t),
                        key(.backspace, at: t), key(.f12, at: t)]
            step(p, s, until: t + 0.1)
            #expect(p.layer.entry == "Find: zeb▏")
            #expect(rec.turns.isEmpty && p.controller.spread == 0, "keys typed in the field do not turn")
            #expect(rec.commands == [.screenshot], "F12 works over the field")
            #expect(step(p, s, until: s.time + 5) { p.isIdle })
            let held = p.textureCount
            t = s.time
            s.queued = [TimedInputEvent(.text("ra"), at: t), key(.enter, at: t)]
            step(p, s, until: t + 0.01)
            #expect(held > 0 && p.textureCount >= held, "the hits' pages are rendered again, no other: \(held) textures, then \(p.textureCount)")
            // Image 1 (the second page) lies in spread 1.
            #expect(step(p, s, until: t + 5) { p.controller.spread == 1 && !p.controller.isAnimating && p.isIdle })
            #expect(rec.turns.count == 1 && rec.turns.first?.1 == .key)
            #expect(p.layer.field == nil && p.layer.entry == "“zebra” 1 of 2")
            let frame = p.snapshot(at: s.time).flippedVertically()
            let marked = frame.pixel(105, 90), plain = frame.pixel(215, 90)
            #expect(marked.r > 180 && marked.b < 120, "the hit's page is marked: \(marked)")
            #expect(plain.r > 180 && plain.b > 180, "the page without a hit is not: \(plain)")
            t = s.time
            s.queued = [key(.n, at: t)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == 3 && !p.controller.isAnimating })
            #expect(p.layer.entry == "“zebra” 2 of 2")
            t = s.time
            s.queued = [TimedInputEvent(.key(.n, modifiers: .shift, isRepeat: false), at: t)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == 1 && !p.controller.isAnimating })
            #expect(p.layer.entry == "“zebra” 1 of 2")
            // Ctrl+F opens the field with the phrase to edit; Escape closes it, nothing turns.
            t = s.time
            s.queued = [TimedInputEvent(.key(.f, modifiers: .control, isRepeat: false), at: t)]
            step(p, s, until: t + 0.1)
            #expect(p.layer.entry == "Find: zebra▏")
            s.queued = [key(.escape, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.field == nil && p.controller.phase == .reading && p.controller.spread == 1)
            #expect(rec.commands == [.screenshot], "N went to the window's search, not the host")
        }
    }

    /// Shift + drag from the left page's "gamma" to the right page's "beta" selects across the
    /// spread: the left page from "gamma" to its end, the right one from its start to "beta",
    /// both marked; dragged back the other way, the same words.
    @Test func aDragAcrossASpreadSelectsTheWordsBetweenOnBothPages() throws {
        let decoding = ManualDecoding()
        try openDocument(WordPages.format, configure: { $0.decoding = decoding }) { p, s, _ in
            #expect(p.perform(.nextPage, at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 1 && !p.controller.isAnimating && p.isIdle })
            decodeAll(decoding, p, s)
            let gamma = try pixel(x: 0.25, y: 0.35, in: p, left: true), beta = try pixel(x: 0.7, y: 0.15, in: p)
            let alpha = try pixel(x: 0.25, y: 0.15, in: p), leftAlpha = try pixel(x: 0.25, y: 0.15, in: p, left: true)
            for (from, to) in [(gamma, beta), (beta, gamma)] {
                let t = s.time
                s.queued = [TimedInputEvent(.mouseDown(.left, x: from.x, y: from.y, modifiers: .shift), at: t),
                            TimedInputEvent(.mouseMove(x: to.x, y: to.y), at: t + 0.05),
                            TimedInputEvent(.mouseUp(.left, x: to.x, y: to.y, modifiers: .shift), at: t + 0.1)]
                #expect(step(p, s, until: t + 5) { p.selectedText == "gamma delta\nalpha beta" && p.isIdle }, "\(p.selectedText ?? "nothing")")
            }
            decodeAll(decoding, p, s)
            let frame = p.snapshot(at: s.time).flippedVertically()
            for (what, at) in [("gamma", gamma), ("alpha", alpha)] {
                let c = frame.pixel(Int(at.x), Int(at.y))
                #expect(c.r > 180 && c.b < 120, "\(what) is marked: \(c)")
            }
            let unmarked = frame.pixel(Int(leftAlpha.x), Int(leftAlpha.y))
            #expect(unmarked.r > 180 && unmarked.b > 180, "the left page's words before the drag are not: \(unmarked)")
        }
    }

    /// Runs `body` on a live pipeline with a document of `format` open at its first spread.
    private func openDocument(_ format: PageSourceFormat, configure: (inout PipelineConfiguration) -> Void = { _ in },
                              _ body: (FramePipeline, ScriptedSurface, Recorder) throws -> Void) throws {
        try withDocument(format) { doc in
            try live(configure: configure) { p, s, rec in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
                try body(p, s, rec)
            }
        }
    }

    /// Phrases a reader may type that find nothing or cannot be searched get one line each in
    /// the layer: empty, regex-looking, right to left with points, combining marks, 10,000
    /// characters (the field stops there); and a book of images has no text to search.
    @Test func badPhrasesTypedInTheWindowAreAnsweredInOneLine() throws {
        try zebraBook(configure: { $0.startsSearch = { $0.run() } }) { p, s, _ in
            for (typed, answer) in [("  ", "nothing to search for: the phrase is empty"), ("z.*a", "no hits for “z.*a”"),
                                    ("שָׁלוֹם", "no hits for “שָׁלוֹם”"), ("ze\u{301}bra", "“ze\u{301}bra” 1 of 2"),
                                    (String(repeating: "zebra ", count: 2_000), "no hits for “\(String(repeating: "zebra ", count: 2_000).prefix(40))…”")] {
                let t = s.time
                // The field opens with the last phrase: erased first.
                s.queued = [TimedInputEvent(.text("/"), at: t)] + Array(repeating: key(.backspace, at: t), count: 10_001)
                    + [TimedInputEvent(.text(typed), at: t), key(.enter, at: t)]
                #expect(step(p, s, until: t + 5) { p.layer.entry == answer && !p.controller.isAnimating }, "\(typed.prefix(20)): \(p.layer.entry ?? "nothing")")
            }
        }
        try live(configure: { $0.showsLayer = true; $0.startsSearch = { $0.run() } }) { p, s, _ in
            #expect(p.perform(.openBook(0), at: 0))
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            let t = s.time
            s.queued = [TimedInputEvent(.text("/"), at: t), TimedInputEvent(.text("zebra"), at: t), key(.enter, at: t)]
            step(p, s, until: t + 0.2)
            #expect(p.layer.entry == "this book has no text to search")
        }
    }

    /// The pixel of the 320 × 180 frame showing point (`x`, `y`) of the right-hand page lying
    /// flat: the page points under three pixels on it give the map from pixels to the page.
    private func pixel(x: Double, y: Double, in p: FramePipeline, left: Bool = false) throws -> (x: Double, y: Double) {
        let mapping = ViewMapping(width: 320, height: 180, viewSize: p.configuration.baseView)
        func point(_ px: Double, _ py: Double) throws -> PagePoint {
            try #require(PagePoint.under(mapping.layoutPoint(x: px, y: py), controller: p.controller))
        }
        let x0 = left ? 80.0 : 200
        let o = try point(x0, 60), a = try point(x0 + 40, 60), b = try point(x0, 120)
        // Page fractions change along x with the pixel's x only, along y with its y only.
        return (x0 + (x - o.x) * 40 / (a.x - o.x), 60 + (y - o.y) * 60 / (b.y - o.y))
    }

    /// A right-to-left book lies mirrored, its first page left of the spine: a click on that
    /// page's link finds the link where it is drawn (and turns nothing); a click beside it turns.
    @Test func aClickOnALinkOfARightToLeftBookFindsIt() throws {
        try withDocument(WordPages.rightToLeft) { doc in
            try live { p, s, rec in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.library.books.first?.direction == .rtl)
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
                let link = try pixel(x: 0.3, y: 0.7, in: p, left: true), beside = try pixel(x: 0.3, y: 0.5, in: p, left: true)
                #expect(link.x < 160 && link.x > 40, "image 0 lies left of the spine: \(link)")
                var t = s.time
                s.queued = [TimedInputEvent(.mouseMove(x: link.x, y: link.y), at: t),
                            TimedInputEvent(.mouseDown(.left, x: link.x, y: link.y, modifiers: []), at: t),
                            TimedInputEvent(.mouseUp(.left, x: link.x, y: link.y, modifiers: []), at: t + 0.05)]
                step(p, s, until: t + 0.2)
                #expect(rec.links == [PageLink(box: WordPages.link, target: .page(2))] && rec.turns.isEmpty)
                #expect(s.pointers == [.hand])
                t = s.time
                s.queued = [TimedInputEvent(.mouseDown(.left, x: beside.x, y: beside.y, modifiers: []), at: t),
                            TimedInputEvent(.mouseUp(.left, x: beside.x, y: beside.y, modifiers: []), at: t + 0.05)]
                step(p, s, until: t + 0.2)
                #expect(rec.links.count == 1 && rec.turns.count == 1)
            }
        }
    }

    /// A click on a link while a page turns: turning back from spread 1 to spread 0, the right
    /// side shows image 2 (no link) until the sheet is past upright, then image 0, whose link a
    /// click then finds (instead of queueing a turn); the link's turn, asked mid-turn, plays after it.
    @Test func aClickOnALinkWhileAPageTurnsFindsTheLinkOfThePageLyingThere() throws {
        try openDocument(WordPages.format) { p, s, rec in
            let link = try pixel(x: 0.5, y: 0.7, in: p)
            let mapping = ViewMapping(width: 320, height: 180, viewSize: p.configuration.baseView)
            let under = { PagePoint.under(mapping.layoutPoint(x: link.x, y: link.y), controller: p.controller) }
            #expect(p.perform(.nextPage, at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 1 && !p.controller.isAnimating })
            #expect(p.perform(.previousPage, at: s.time))
            let turns = rec.turns.count
            #expect(step(p, s, until: s.time + 5) { (p.controller.viewState().turn?.progress ?? 1) > 0.1 })
            #expect(p.controller.phase == .turning && under()?.image == 2, "before upright: the page the turn leaves")
            #expect(step(p, s, until: s.time + 5) { (p.controller.viewState().turn?.progress ?? 0) > 0.6 })
            #expect(p.controller.phase == .turning && under()?.image == 0, "past upright: the page the sheet lays down")
            let t = s.time
            s.queued = [TimedInputEvent(.mouseDown(.left, x: link.x, y: link.y, modifiers: []), at: t),
                        TimedInputEvent(.mouseUp(.left, x: link.x, y: link.y, modifiers: []), at: t)]
            step(p, s, until: t + 1.0 / 30)
            #expect(rec.links == [PageLink(box: WordPages.link, target: .page(2))])
            #expect(rec.turns.count == turns && p.controller.queuedTurns == 0, "the click turned nothing")
            // The viewer follows it as `folio view` does: image 2 (layout page 4), after this turn lands.
            #expect(p.perform(.goTo(PageImage(number: 3)), at: s.time, origin: .key))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 1 && !p.controller.isAnimating })
            #expect(Array(rec.turns.suffix(2).map(\.0)) == [.previousPage, .goTo(PageImage(number: 3))])
        }
    }

    /// Over a link the pointer is a hand, elsewhere an arrow; Shift + drag from "alpha" to
    /// "delta" selects the four words, marked on the paper as hits are (the page rendered again,
    /// its old image shown meanwhile); Ctrl+C puts them on the clipboard, a line a line; a plain
    /// click takes the selection away.
    @Test func theHandOverALinkAndShiftDragSelectsWordsThatCtrlCCopies() throws {
        let decoding = ManualDecoding()
        try withDocument(WordPages.format) { doc in
            try live(configure: { $0.decoding = decoding }) { p, s, rec in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating && p.isIdle })
                decodeAll(decoding, p, s)
                // Spread 0: the endpaper and image 0 (on the right).
                let link = try pixel(x: 0.5, y: 0.7, in: p), blank = try pixel(x: 0.5, y: 0.5, in: p)
                var t = s.time
                s.queued = [TimedInputEvent(.mouseMove(x: link.x, y: link.y), at: t), TimedInputEvent(.mouseMove(x: blank.x, y: blank.y), at: t)]
                step(p, s, until: t + 0.1)
                #expect(s.pointers == [.hand, .arrow])

                let from = try pixel(x: 0.15, y: 0.15, in: p), to = try pixel(x: 0.8, y: 0.35, in: p)
                t = s.time
                s.queued = [TimedInputEvent(.mouseDown(.left, x: from.x, y: from.y, modifiers: .shift), at: t),
                            TimedInputEvent(.mouseMove(x: (from.x + to.x) / 2, y: (from.y + to.y) / 2), at: t + 0.05),
                            TimedInputEvent(.mouseMove(x: to.x, y: to.y), at: t + 0.1),
                            TimedInputEvent(.mouseUp(.left, x: to.x, y: to.y, modifiers: .shift), at: t + 0.15)]
                #expect(step(p, s, until: t + 5) { p.selectedText != nil && p.isIdle })
                #expect(rec.turns.isEmpty, "a selecting drag turns nothing")
                #expect(p.selectedText == "alpha beta\ngamma delta")
                #expect(s.pointers.suffix(2) == [.text, .arrow])
                // The page is rendered again with the mark in the background, its old image shown meanwhile.
                let word = try pixel(x: 0.25, y: 0.15, in: p), paper = try pixel(x: 0.5, y: 0.55, in: p)
                #expect(decoding.count > 0 && p.snapshot(at: s.time).flippedVertically().pixel(Int(word.x), Int(word.y)).b > 120,
                        "not marked before its render ran")
                decodeAll(decoding, p, s)
                let frame = p.snapshot(at: s.time).flippedVertically()
                let marked = frame.pixel(Int(word.x), Int(word.y)), plain = frame.pixel(Int(paper.x), Int(paper.y))
                #expect(marked.r > 180 && marked.b < 120, "the word selected is marked: \(marked)")
                #expect(plain.r > 180 && plain.b > 180, "the paper beside it is not: \(plain)")

                s.queued = [TimedInputEvent(.key(.c, modifiers: .control, isRepeat: false), at: s.time)]
                step(p, s, until: s.time + 0.1)
                #expect(s.clipboard == "alpha beta\ngamma delta")
                #expect(p.controller.settings.deform == BookController.Settings().deform, "Ctrl+C is not C")
                t = s.time
                s.queued = [TimedInputEvent(.mouseDown(.left, x: blank.x, y: blank.y, modifiers: []), at: t)]
                step(p, s, until: t + 0.1)
                #expect(p.selectedText == nil)
            }
        }
    }

    /// Highlights kept from an earlier run are painted on a book's pages when it opens (the
    /// highlights' part follows the book opened), and only in this pipeline's documents.
    @Test func highlightsKeptBeforeArePaintedWhenTheBookOpens() throws {
        let kept = try TemporaryStore("kept")
        defer { kept.remove() }
        let store = kept.store
        try withDocument(WordPages.format) { doc in
            try live(configure: { $0.positions = ReadingPositions(store: store, documents: $0.documents) }) { p, s, _ in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                let book = p.library.books[0], path = try #require(book.document)
                let text = try #require(try p.configuration.documents.open(path).text(page: 0))
                #expect(store.add(Highlight(anchor: Highlight.anchor(words: 0..<2, of: text, page: 0, start: nil), text: "alpha beta"), to: book) != nil)
                step(p, s, until: 0.5)
                #expect(p.configuration.documents.marks.highlights(path).isEmpty, "painted before the book opened")
                #expect(p.perform(.openBook(0), at: s.time))
                #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading })
                #expect(p.configuration.documents.marks.highlights(path).map(\.text) == ["alpha beta"])
                #expect(DocumentRegistry().marks.highlights(path).isEmpty)
            }
        }
    }

    /// Shift + drag then Shift+H highlights the words: kept in the store, painted yellow on the
    /// page once it is rendered again; Shift+H on the same words paints them green; I, typed
    /// text and Enter write a note on them; X lists it in the notes panel, where Delete takes
    /// it away and the page is plain again.
    @Test func wordsSelectedAreHighlightedAnnotatedListedAndTakenAway() throws {
        let decoding = ManualDecoding()
        let kept = try TemporaryStore("highlights")
        defer { kept.remove() }
        let store = kept.store
        try withDocument(WordPages.format) { doc in
            try live(configure: {
                $0.decoding = decoding
                $0.showsLayer = true
                $0.positions = ReadingPositions(store: store, documents: $0.documents)
            }) { p, s, _ in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating && p.isIdle })
                decodeAll(decoding, p, s)
                let book = p.library.books[0]
                let from = try pixel(x: 0.15, y: 0.15, in: p), to = try pixel(x: 0.8, y: 0.35, in: p)
                let word = try pixel(x: 0.25, y: 0.15, in: p)
                func select() {
                    let t = s.time
                    s.queued = [TimedInputEvent(.mouseDown(.left, x: from.x, y: from.y, modifiers: .shift), at: t),
                                TimedInputEvent(.mouseMove(x: to.x, y: to.y), at: t + 0.05),
                                TimedInputEvent(.mouseUp(.left, x: to.x, y: to.y, modifiers: .shift), at: t + 0.1)]
                    #expect(step(p, s, until: t + 5) { p.selectedText != nil && p.isIdle })
                }
                func press(_ k: Key, _ modifiers: Modifiers = []) {
                    s.queued = [TimedInputEvent(.key(k, modifiers: modifiers, isRepeat: false), at: s.time)]
                    step(p, s, until: s.time + 0.1)
                }
                func paper() -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
                    decodeAll(decoding, p, s)
                    return p.snapshot(at: s.time).flippedVertically().pixel(Int(word.x), Int(word.y))
                }
                select()
                decodeAll(decoding, p, s)
                s.queued = [TimedInputEvent(.key(.h, modifiers: .shift, isRepeat: false), at: s.time)]
                p.handle(s.queued.removeFirst())
                p.frame(at: s.time)
                #expect(store.highlights(of: book).map(\.colour) == [.yellow])
                #expect(p.selectedText == nil, "the selection gives way to the highlight")
                // In the next frame, no background decode run: the page was drawn again at once, in
                // the highlight's yellow (the selection's mark is deeper: its blue would be near 40).
                let next = p.snapshot(at: s.time).flippedVertically().pixel(Int(word.x), Int(word.y))
                #expect(next.r > 200 && next.g > 170 && next.b > 80 && next.b < 140, "\(next)")
                let yellow = paper()
                #expect(yellow.r > 200 && yellow.g > 170 && yellow.b < 140, "\(yellow)")
                select()
                press(.h, .shift)
                #expect(store.highlights(of: book).map(\.colour) == [.green])
                let green = paper()
                #expect(green.g > 170 && Int(green.g) - Int(green.b) > 50 && Int(green.g) - Int(green.r) > 20, "\(green)")
                select()
                // I comes as a key and as the text "i": the text opens the field, so "i" is not typed into it.
                press(.i)
                s.queued = [TimedInputEvent(.text("i"), at: s.time)]
                step(p, s, until: s.time + 0.1)
                #expect(p.layer.entry == "Note: ▏")
                s.queued = [TimedInputEvent(.text("a dance"), at: s.time)]
                step(p, s, until: s.time + 0.1)
                press(.enter)
                #expect(store.highlights(of: book).map(\.note) == ["a dance"])
                press(.x)
                let rows = try #require(p.layer.contents?.rows)
                #expect(rows.map(\.title) == ["Highlights", "“alpha beta gamma delta”", "✎ a dance"] && rows[1].tag != nil && rows[2].tag == rows[1].tag, "\(rows)")
                let row = try #require(rows.firstIndex { $0.tag != nil })
                let chosen = p.layer.contents?.selected ?? 0
                for _ in 0..<abs(row - chosen) { press(row > chosen ? .down : .up) }
                press(.delete)
                #expect(store.highlights(of: book).isEmpty)
                #expect(p.layer.contents == nil && p.layer.entry == ReaderLayer.noNotes, "the panel closes with its last row, saying why")
                // Once the line has gone, the page shows plain paper.
                step(p, s, until: s.time + 12)
                let plain = paper()
                #expect(plain.r > 180 && plain.b > 180, "the highlight is gone from the page: \(plain)")
            }
        }
    }

    /// R reads aloud from the page shown, two sentences given to the voice ahead, the one spoken
    /// marked; as sentences end the next are given, and the sentence that starts on the next
    /// page turns it; R pauses and resumes, U speeds the voice, Shift+R stops and unmarks. With
    /// no speech service, one line says what to install.
    @Test func theBookIsReadAloudSentenceBySentenceTurningItsPages() throws {
        let decoding = ManualDecoding()
        let voice = RecordingVoice()
        try withDocument(SentencePages.format) { doc in
            try live(configure: { $0.decoding = decoding; $0.showsLayer = true; $0.speech = { .success(voice) } }) { p, s, rec in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating && p.isIdle })
                decodeAll(decoding, p, s)
                func press(_ k: Key, _ modifiers: Modifiers = []) {
                    s.queued = [TimedInputEvent(.key(k, modifiers: modifiers, isRepeat: false), at: s.time)]
                    step(p, s, until: s.time + 0.2)
                }
                func end(_ n: Int) {
                    voice.finished = n
                    step(p, s, until: s.time + 0.3)
                }
                #expect(p.controller.shownPages.map(\.number) == [1])
                press(.r)
                #expect(voice.spoken == ["Word0 ends.", "Across the turn."])
                decodeAll(decoding, p, s)
                let marked = p.snapshot(at: s.time).flippedVertically()
                let word = try pixel(x: 0.3, y: 0.14, in: p), gap = try pixel(x: 0.8, y: 0.14, in: p)
                let blue = marked.pixel(Int(word.x), Int(word.y)), paper = marked.pixel(Int(gap.x), Int(gap.y))
                #expect(Int(blue.b) - Int(blue.r) > 30 && Int(paper.b) - Int(paper.r) < 15, "the sentence spoken is marked: \(blue) beside \(paper)")
                end(1)
                #expect(voice.spoken.count == 3 && voice.spoken[2] == "Word1 ends.")
                #expect(rec.turns.isEmpty, "the sentence spoken starts on the page shown")
                end(1)
                #expect(rec.turns.map(\.0) == [.nextPage], "the next sentence starts on the next page: it is turned")
                #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating && p.controller.shownPages.map(\.number).contains(2) })
                press(.r)
                #expect(voice.paused)
                press(.r)
                #expect(!voice.paused)
                press(.u)
                #expect(voice.rate == 10)
                press(.r, .shift)
                #expect(voice.stopped)
                end(1)
                #expect(voice.spoken.count == 4, "nothing more is given once stopped")
            }
        }
        try withDocument(SentencePages.format) { doc in
            try live(configure: { $0.showsLayer = true; $0.speech = { .failure(SpeechError(message: SpeechDispatcher.unavailable)) } }) { p, s, _ in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
                s.queued = [TimedInputEvent(.key(.r, modifiers: [], isRepeat: false), at: s.time)]
                step(p, s, until: s.time + 0.2)
                #expect(p.layer.notice == SpeechDispatcher.unavailable)
            }
        }
    }

    /// A click on a form's text field gives the keyboard to it ("Field: …", typed text, Enter
    /// keeps it), a click on a check box ticks it, and neither turns the page; the values are
    /// kept in the store until Ctrl+S writes "book (filled)" beside the book (then "(filled 2)"),
    /// never over a file.
    @Test func aFormIsFilledByClicksAndTypingAndSavedBesideTheBook() throws {
        try withFormBook { p, s, rec, store, doc in
            #expect(p.perform(.openBook(0), at: 0))
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            let book = p.library.books[0]
            func click(_ x: Double, _ y: Double) throws {
                let at = try pixel(x: x, y: y, in: p), t = s.time
                s.queued = [TimedInputEvent(.mouseDown(.left, x: at.x, y: at.y, modifiers: []), at: t),
                            TimedInputEvent(.mouseUp(.left, x: at.x, y: at.y, modifiers: []), at: t + 0.05)]
                step(p, s, until: t + 0.3)
            }
            try click(0.5, 0.15)
            #expect(p.layer.entry == "Field: ▏")
            s.queued = [TimedInputEvent(.text("Ahab"), at: s.time), TimedInputEvent(.key(.enter, modifiers: [], isRepeat: false), at: s.time + 0.05)]
            step(p, s, until: s.time + 0.3)
            try click(0.2, 0.55)
            #expect(FormPages.shared.values == [1: .text("Ahab"), 2: .check(true)])
            #expect(store.formValues(of: book) == [1: .text("Ahab"), 2: .check(true)])
            #expect(rec.turns.isEmpty, "a click on a field turns no page")
            for name in ["book (filled).formpages", "book (filled 2).formpages"] {
                s.queued = [TimedInputEvent(.key(.s, modifiers: .control, isRepeat: false), at: s.time)]
                step(p, s, until: s.time + 0.2)
                let saved = (doc as NSString).deletingLastPathComponent + "/" + name
                #expect(FileManager.default.contents(atPath: saved) == Data("filled".utf8), "\(name)")
            }
            #expect(store.formValues(of: book).isEmpty, "saved: the store lets the values go")
            let left = try FileManager.default.contentsOfDirectory(atPath: (doc as NSString).deletingLastPathComponent).filter { $0.hasPrefix(".folio") }
            #expect(left.isEmpty, "no file of its own left behind: \(left)")
        }
    }

    /// Values filled in an earlier run and kept in the store are given back to the form's
    /// document when the book opens (the form's part follows the book opened).
    @Test func aFormsKeptValuesComeBackWhenTheBookOpens() throws {
        try withFormBook { p, s, _, store, _ in
            #expect(store.setFormValue(.text("Ishmael"), field: 1, of: p.library.books[0]))
            step(p, s, until: 0.5)
            #expect(FormPages.shared.values.isEmpty, "given back before the book opened")
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading })
            #expect(FormPages.shared.values == [1: .text("Ishmael")])
        }
    }

    /// Tab on the shelf steps its order: the book read last first (then the unread as found), by
    /// title, by author, as found again; the book centred stays centred.
    @Test func tabOrdersTheShelfAndTheCentredBookStays() throws {
        let kept = try TemporaryStore("shelf")
        defer { kept.remove() }
        let (folder, store) = (kept.folder, kept.store)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let books = try [("Carrots", "Ames"), ("Apples", "Cole"), ("Beans", "Baker")].map { title, author in
            let page = folder + "/\(title).png"
            try PNG.write(RGBAImage(width: 4, height: 6, fill: (200, 200, 200, 255)), to: page)
            var book = Book(title: title, pages: [.image(page)])
            book.author = author
            return book
        }
        #expect(store.save(ReadingPosition(page: 1), of: books[2]))
        try live(configure: { $0.showsLayer = true; $0.positions = ReadingPositions(store: store, documents: $0.documents) }) { p, s, _ in
            p.replaceLibrary(Library(title: "Shelf", books: books))
            #expect(step(p, s, until: 2) { p.isIdle })
            var orders: [[String]] = []
            for _ in 0..<4 {
                s.queued = [key(.tab, at: s.time)]
                #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating && p.isIdle })
                orders.append(p.library.books.map(\.title))
                #expect(p.library.books[Int(p.controller.scroll.rounded())].title == "Carrots", "the centred book stays centred")
            }
            #expect(orders == [["Beans", "Carrots", "Apples"], ["Apples", "Beans", "Carrots"], ["Carrots", "Beans", "Apples"], ["Carrots", "Apples", "Beans"]])
            #expect(p.layer.entry == "shelf as found")
        }
    }

    /// Shift+D looks the first word selected up (here in a stand-in sdcv): its entry on the
    /// note card, the wheel reading on through it without turning a page; with nothing
    /// selected, a line says how to select.
    @Test func aWordSelectedIsLookedUpAndItsEntryScrolls() throws {
        let tools = FileManager.default.temporaryDirectory.appendingPathComponent("folio-lookup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tools) }
        try """
            #!/bin/sh
            [ "$1" = "-l" ] && { printf "Dictionary's name   Word count\\nTest    1\\n"; exit 0; }
            for w; do :; done
            printf -- "-->Test\\n-->%s\\n\\nfirst sense\\nsecond sense\\nthird sense\\n" "$w"
            """.write(toFile: tools + "/sdcv", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tools + "/sdcv")
        let decoding = ManualDecoding()
        try withDocument(WordPages.format) { doc in
            try live(configure: { $0.decoding = decoding; $0.showsLayer = true; $0.dictionaries = Dictionaries(environment: ["PATH": tools]) }) { p, s, rec in
                p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
                #expect(p.perform(.openBook(0), at: 0))
                #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating && p.isIdle })
                s.queued = [TimedInputEvent(.key(.d, modifiers: .shift, isRepeat: false), at: s.time)]
                step(p, s, until: s.time + 0.1)
                #expect(p.layer.notice == "nothing selected: Shift + click a word to look it up")
                let word = try pixel(x: 0.25, y: 0.15, in: p), t = s.time
                s.queued = [TimedInputEvent(.mouseDown(.left, x: word.x, y: word.y, modifiers: .shift), at: t),
                            TimedInputEvent(.mouseUp(.left, x: word.x, y: word.y, modifiers: .shift), at: t + 0.05),
                            TimedInputEvent(.key(.d, modifiers: .shift, isRepeat: false), at: t + 0.1)]
                step(p, s, until: t + 0.3)
                #expect(p.layer.note == "-->Test\n-->alpha\n\nfirst sense\nsecond sense\nthird sense\n")
                s.queued = [TimedInputEvent(.scroll(dx: 0, dy: -1, modifiers: []), at: s.time)]
                step(p, s, until: s.time + 0.1)
                #expect(p.layer.noteShown?.hasPrefix("…\n-->alpha") == true, "\(p.layer.noteShown ?? "")")
                #expect(rec.turns.isEmpty)
            }
        }
    }

    /// The contents panel in the viewer's loop: Tab shows the outline with the current
    /// chapter marked, ↓ ↓ Enter goes to the third entry through the goto action, Tab again
    /// marks that chapter, and a click on the second entry goes there and closes the panel.
    @Test func theContentsPanelJumpsByKeysAndByClick() throws {
        try zebraBook { p, s, rec in
            s.queued = [key(.tab, at: s.time)]
            step(p, s, until: s.time + 0.1)
            let list = try #require(p.layer.contents)
            #expect(list.rows.map(\.title) == ["Start", "Middle", "Deep"] && list.rows.map(\.depth) == [0, 0, 1])
            #expect(list.rows.map(\.target) == [0, 4, 6] && list.rows.map(\.label) == ["1", "5", "7"] && list.current == 0)
            #expect(p.layerContent.contents == list)
            var t = s.time
            s.queued = [key(.down, at: t), key(.down, at: t), key(.enter, at: t)]
            // Image 6 lies in spread 3 (with image 5).
            #expect(step(p, s, until: t + 5) { p.controller.spread == 3 && !p.controller.isAnimating }, "spread \(p.controller.spread)")
            #expect(p.layer.contents == nil && rec.turns.count == 1 && rec.turns.first?.0 == .goTo(PageImage(number: 7)))
            s.queued = [key(.tab, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.contents?.current == 2)
            let opened = try #require(p.layer.contents)
            let layout = OverlayLayout(width: 320, height: 180)
            let f = layout.contentsFrame
            let y = try #require(stride(from: f.y, to: f.maxY, by: 1).first { layout.contentsRow(x: f.x + 20, y: $0, in: opened) == 1 })
            t = s.time
            s.queued = [TimedInputEvent(.mouseDown(.left, x: f.x + 20, y: y + 3, modifiers: []), at: t),
                        TimedInputEvent(.mouseUp(.left, x: f.x + 20, y: y + 3, modifiers: []), at: t + 0.05)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == 2 && !p.controller.isAnimating })
            #expect(p.layer.contents == nil && rec.turns.count == 2)
        }
    }

    /// The viewer's newer keys together, as a reader presses them: a page number typed while
    /// the book opens (it was dropped), another typed during a turn, O, Shift + wheel zoom, Z,
    /// then zoomed again and Esc.
    @Test func pageNumbersConeZoomAndEscapeTogether() throws {
        try live { p, s, rec in
            s.queued = [key(.enter, at: 0), key(.n1, at: 0.1), key(.n2, at: 0.15), key(.enter, at: 0.2)]
            #expect(step(p, s, until: 5) { p.controller.spread == 6 && !p.controller.isAnimating }, "page 12 after opening")
            #expect(rec.turns.count == 1 && rec.turns.first?.0 == .goTo(PageImage(number: 12)) && rec.turns.first?.1 == .key)
            // A number typed during a turn goes there once the turn lands.
            var t = s.time
            s.queued = [key(.right, at: t), key(.n3, at: t + 0.1), key(.g, at: t + 0.15), key(.o, at: t + 0.2)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == 1 && !p.controller.isAnimating })
            #expect(p.controller.settings.deform == .cone)
            t = s.time
            s.queued = [TimedInputEvent(.mouseMove(x: 250, y: 60), at: t),
                        TimedInputEvent(.scroll(dx: 0, dy: 3, modifiers: .shift), at: t)]
            step(p, s, until: t + 0.1)
            #expect(p.controller.settings.zoom > 1)
            s.queued = [key(.z, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.controller.settings.zoom == 1 && p.controller.settings.pan == .zero)
            t = s.time
            s.queued = [TimedInputEvent(.scroll(dx: 0, dy: 3, modifiers: .shift), at: t), key(.escape, at: t + 0.05)]
            #expect(step(p, s, until: t + 5) { p.controller.phase == .shelf && !p.controller.isAnimating })
            #expect(p.controller.settings.zoom == 1, "the next book opens fitted")
            #expect(s.titles.last?.contains("(1/3)") == true, "title: \(s.titles.last ?? "none")")
        }
    }

    @Test func anIdleLoopDrawsNothing() throws {
        try live { p, s, _ in
            // An empty shelf: nothing to decode, nothing moves after the first frame.
            p.replaceLibrary(Library(title: "", books: []))
            #expect(step(p, s, until: 1) { p.isIdle })
            let presented = s.presented, misses = p.renderer.cacheMisses, hits = p.renderer.cacheHits
            step(p, s, until: s.time + 1)
            #expect(s.presented == presented && p.renderer.cacheMisses == misses && p.renderer.cacheHits == hits)
            // A damaged window is shown again, not drawn again.
            s.queued = [TimedInputEvent(.refresh, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(s.presented == presented + 1)
        }
    }

    @Test func resizingRefitsTheViewAndTheTarget() throws {
        try live { p, s, _ in
            step(p, s, until: 0.1)
            #expect(p.controller.settings.viewSize == Vec2(1280, 720))
            s.framebufferSize = (360, 180)
            s.queued = [TimedInputEvent(.resize(width: 360, height: 180), at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.target.width == 360 && p.target.height == 180 && p.target.samples == 4)
            // The base view's height is kept; the layout sees the wider window.
            #expect(p.controller.settings.viewSize == Vec2(1440, 720))
        }
    }

    @Test func turnsSayWhetherAGestureOrTheProgramAskedForThem() throws {
        try live { p, s, rec in
            #expect(p.perform(.openBook(1), at: 0))
            #expect(p.controller.book == 1)
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            // A click on the right-hand page turns it forwards.
            let t = s.time
            s.queued = [TimedInputEvent(.mouseDown(.left, x: 250, y: 90, modifiers: []), at: t),
                        TimedInputEvent(.mouseUp(.left, x: 250, y: 90, modifiers: []), at: t + 0.05)]
            #expect(step(p, s, until: t + 3) { p.controller.spread == 1 && !p.controller.isAnimating })
            #expect(p.perform(.nextPage, at: s.time))
            #expect(rec.turns.map(\.1) == [.gesture, .code])
        }
    }

    /// Decoded pages reach the GPU a budget at a time, the frame never waiting for them, and
    /// the page then shows instead of paper. Decodes run when the test says.
    @Test func imagesArriveWithoutAFrameWaitingAndWithinTheUploadBudget() throws {
        let decoding = ManualDecoding()
        try live(uploadBudget: 1, configure: { $0.decoding = decoding }) { p, s, _ in
            #expect(p.perform(.openBook(0), at: 0))
            #expect(step(p, s, until: 10) { p.controller.phase == .reading && !p.controller.isAnimating })
            // The right-hand page shows type (dark pixels among the paper) once its image is up.
            func ink() -> Int {
                let frame = p.snapshot(at: s.time).flippedVertically()
                var n = 0
                for y in 40..<140 { for x in 170..<260 where frame.pixel(x, y).r < 120 { n += 1 } }
                return n
            }
            let blank = ink()
            #expect(p.textureCount == 0, "nothing decoded yet: the frames went on without it")
            var counts = [p.textureCount]
            for _ in 0..<300 {
                let ran = decoding.runAll()
                step(p, s, until: s.time + 1.0 / 30)
                counts.append(p.textureCount)
                if ran == 0 && p.isIdle { break }
            }
            // One image a frame at most.
            #expect(zip(counts, counts.dropFirst()).allSatisfy { $1 - $0 <= 1 }, "\(counts)")
            let ink = ink()
            #expect(ink > blank + 50, "ink pixels on the right-hand page: \(ink), \(blank) before its image")
            #expect(p.textureCount >= 2 && p.textureBytes > 0)
        }
    }

    /// Pages from memory: a content source supplies a book's images, and its files are never read.
    @Test func aContentSourceSuppliesPagesFromMemory() throws {
        final class Red: PageContentSource {
            var asked: [FaceContent] = []
            func suppliesImages(ofBook book: Int) -> Bool { book == 0 }
            func image(for face: FaceContent) -> RGBAImage? {
                asked.append(face)
                return RGBAImage(width: 64, height: 100, fill: (200, 20, 20, 255))
            }
        }
        try live { p, s, _ in
            let red = Red()
            p.contentSource = red
            #expect(p.perform(.openBook(0), at: 0))
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && p.isIdle })
            let frame = p.snapshot(at: s.time).flippedVertically()
            let c = frame.pixel(215, 90)
            #expect(c.r > 150 && c.g < 60, "the right-hand page is the supplied red: \(c)")
            #expect(red.asked.allSatisfy { $0.book == 0 } && !red.asked.isEmpty)
        }
    }

    /// A capture whose pages never finish rendering is not held forever: after the image
    /// timeout the pages are drawn as paper and that is said once.
    @Test func aPageThatNeverRendersIsDrawnAsPaperAfterTheTimeout() throws {
        PageSources.register(StuckPages.format)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-stuck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer {
            StuckPages.release.signal()
            try? FileManager.default.removeItem(at: dir)
        }
        let doc = dir.appendingPathComponent("book.stuckpages").path
        #expect(FileManager.default.createFile(atPath: doc, contents: Data([0])))
        try live(configure: { $0.waitsForImages = true; $0.imageTimeout = 0.5 }) { p, s, rec in
            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: 0))
            let start = Date()
            let frame = p.snapshot(at: 10).flippedVertically()
            #expect(Date().timeIntervalSince(start) < 10, "the frame waited \(Date().timeIntervalSince(start)) s")
            #expect(rec.problems.contains { $0.contains("still loading") }, "\(rec.problems)")
            // The right-hand page: paper, not the page's dark image and not the desk.
            let c = frame.pixel(215, 90)
            #expect(c.r > 200 && c.g > 190, "paper where the page would be: \(c)")
            // One deadline per page per run: a recording waited out the timeout in every frame.
            _ = p.snapshot(at: 10.5)
            _ = p.snapshot(at: 11)
            #expect(rec.problems.filter { $0.contains("still loading") }.count == 1, "\(rec.problems)")
        }
    }

    /// Zoomed to 8× on a 1280 × 800 surface, a page first shows its own image (never paper),
    /// then the crop of its visible part once rendered; after a pan the old crop stays where
    /// it lies and the page image shows beside it; zooming out and back in finds the crop again.
    @Test func aZoomedPageShowsItsImageThenItsCropAndNeverPaper() throws {
        let decoding = ManualDecoding()
        try withDocument(SlowCrops.format) { doc in try live(configure: { $0.decoding = decoding }) { p, s, _ in
            /// Runs the decodes handed in, a frame after each round, until none is left and
            /// the pipeline is idle (a bounded number of frames).
            func settle() -> Bool {
                for _ in 0..<300 {
                    let ran = decoding.runAll()
                    step(p, s, until: s.time + 1.0 / 30)
                    if ran == 0 && decoding.count == 0 && p.isIdle { return true }
                }
                return false
            }
            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: 0))
            #expect(step(p, s, until: 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            #expect(settle())
            // Opened small (fast frames), then read on a screen where 8× needs crops: a page
            // is some 5,000 pixels high, more than the 4096 of its own image.
            s.framebufferSize = (1280, 800)
            p.handle(TimedInputEvent(.resize(width: 1280, height: 800), at: s.time))
            #expect(settle())
            // The middle row (frames are read bottom to top); one layout unit is one pixel.
            func row() -> [(r: UInt8, g: UInt8, b: UInt8, a: UInt8)] {
                let frame = p.snapshot(at: s.time)
                return (0..<1280).map { frame.pixel($0, 399) }
            }
            let isGrey = { (c: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) in abs(Int(c.r) - 150) < 12 && abs(Int(c.b) - 150) < 12 }
            let isBlue = { (c: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) in c.b > 150 && c.r < 80 }
            /// Renders the crops asked for, then draws until crop number `n` shows everywhere.
            func cropArrives(_ n: Int) -> Bool {
                decoding.runAll()
                guard SlowCrops.crops.load(ordering: .relaxed) == n else { return false }
                for _ in 0..<30 {
                    s.time += 1.0 / 30
                    if row().allSatisfy(isBlue) { return true }
                }
                return false
            }

            // The right-hand page fills the view at 8×.
            #expect(p.perform(.zoom(by: 8, toward: Vec2(180, 0)), at: s.time))
            let before = SlowCrops.crops.load(ordering: .relaxed)
            #expect(row().allSatisfy(isGrey), "the page's own image shows while its crop renders")
            #expect(cropArrives(before + 1), "the crop arrives without a frame waiting for it")

            // 300 pixels: beyond the crop's margin of an eighth (160).
            #expect(p.perform(.pan(by: Vec2(-300, 0)), at: s.time))
            let panned = row()
            let blue = panned.indices.filter { isBlue(panned[$0]) }
            // Only the crop and the page image show (never paper), with a pixel between them
            // where the crop fades out.
            let between = panned.filter { !isBlue($0) && !isGrey($0) }.count
            #expect(between <= 2, "\(between) pixels are neither the crop nor the page image")
            #expect(blue.first == 0 && (1000..<1200).contains(blue.last ?? 0), "the old crop where it lies: \(blue.last ?? -1)")
            #expect(isGrey(panned[1279]), "the page image beyond it")
            #expect(cropArrives(before + 2), "then the new crop")

            // Out and back in: the crop kept for that scale shows at once.
            #expect(p.perform(.fitSpread, at: s.time))
            #expect(!row().contains(where: isBlue))
            #expect(p.perform(.zoom(by: 8, toward: Vec2(180, 0)), at: s.time))
            #expect(p.perform(.pan(by: Vec2(-300, 0)), at: s.time))
            #expect(row().allSatisfy(isBlue), "zooming back in shows the kept crop in the first frame")
            decoding.runAll()
            #expect(SlowCrops.crops.load(ordering: .relaxed) == before + 2, "and renders nothing")
        } }
    }

    /// A file dropped on the window goes to the host to open (the first of several, the
    /// GLFW drop callback's event); T and S switch the theme and show-through, draw the frame
    /// again and tell the host, which remembers them.
    @Test func aDroppedFileGoesToTheHostAndThemeKeysRedraw() throws {
        try live { p, s, rec in
            step(p, s, until: 0.1)
            s.queued = [TimedInputEvent(.drop(paths: ["/books/a.pdf", "/books/b.pdf"]), at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(rec.commands == [.openFile("/books/a.pdf")])
            let shown = s.presented
            s.queued = [key(.t, at: s.time), key(.s, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.renderer.settings.theme == .sepia && !p.renderer.settings.showThrough)
            #expect(Array(rec.commands.suffix(2)) == [.cycleTheme, .toggleShowThrough])
            #expect(s.presented > shown, "drawn again")
        }
    }

    /// The overview: G shows the open book's pages small — paper first while they decode (the
    /// frames go on), then each page's own colour at its place in the grid, only the rows in
    /// view decoded — the spread read on its cover board; the keys choose and scroll, Escape
    /// closes it with nothing turned, and a click on a page closes it and turns to its spread.
    @Test func theOverviewShowsThePagesSmallAndAClickGoesToOne() throws {
        let decoding = ManualDecoding()
        try withDocument(ColourPages.format) { doc in try live(configure: { $0.decoding = decoding }) { p, s, rec in
            s.framebufferSize = (640, 360)
            p.handle(TimedInputEvent(.resize(width: 640, height: 360), at: 0))
            p.replaceLibrary(Library.load(from: doc, logProblems: false))
            #expect(p.perform(.showBook(0), at: 0) && p.perform(.goTo(PageImage(number: 10)), at: 0))
            #expect(step(p, s, until: 10) { p.controller.spread == 5 && !p.controller.isAnimating })
            let turns = rec.turns.count
            s.queued = [key(.g, at: s.time)]
            step(p, s, until: s.time + 0.1)
            let grid = try #require(p.shownOverview)
            let mapping = ViewMapping(width: 640, height: 360, viewSize: p.configuration.baseView)
            func pixel(_ v: Vec2) -> (x: Int, y: Int) {
                (Int(v.x / mapping.unitsPerPixel + 320), Int(180 - v.y / mapping.unitsPerPixel))
            }
            // Image 9 (green) is on the spread read: its row is in view.
            let green = try #require(grid.box(of: 9))
            #expect(green.minY > -grid.viewSize.y / 2 && green.maxY < grid.viewSize.y / 2)
            var frame = p.snapshot(at: s.time).flippedVertically()
            let paper = frame.pixel(pixel(green.centre).x, pixel(green.centre).y)
            #expect(paper.r > 200 && paper.g > 200 && paper.b > 180, "paper while the page decodes: \(paper)")
            for _ in 0..<100 {
                let ran = decoding.runAll()
                step(p, s, until: s.time + 1.0 / 30)
                if ran == 0 && p.isIdle { break }
            }
            #expect(p.textureCount <= grid.imagesInView().count + 12 && p.textureCount < 80, "\(p.textureCount) of 200 pages")
            frame = p.snapshot(at: s.time).flippedVertically()
            var checked = 0
            for image in grid.imagesInView() {
                guard let box = grid.box(of: image), box.maxY < grid.viewSize.y / 2, box.minY > -grid.viewSize.y / 2 else { continue }
                let (x, y) = pixel(box.centre), c = frame.pixel(x, y)
                let off = differs(c, ColourPages.colour(image))
                #expect(off < 60, "page \(image) at (\(x), \(y)): \(c)")
                checked += 1
            }
            #expect(checked >= 16, "\(checked) pages checked")
            // Just above the spread read, its cover board; above another page, the desk.
            func above(_ image: Int) throws -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
                let box = try #require(grid.box(of: image))
                let (x, y) = pixel(Vec2(box.centre.x, box.maxY + 5))
                return frame.pixel(x, y)
            }
            let board = try above(10), desk = try above(12)
            let apart = differs(board, (desk.r, desk.g, desk.b))
            #expect(apart > 30, "the spread read is marked: \(board) against the desk's \(desk)")
            // End chooses the last page and scrolls to it; Escape closes with nothing turned.
            s.queued = [key(.end, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(abs((p.shownOverview?.scroll ?? 0) - grid.maxScroll) < 1e-6)
            s.queued = [key(.escape, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(!p.overviewShown && p.controller.phase == .reading && p.controller.spread == 5 && rec.turns.count == turns)
            // Again, then a click on image 20: the overview closes and the book turns to spread 10.
            s.queued = [key(.g, at: s.time)]
            step(p, s, until: s.time + 0.1)
            let target = pixel(try #require(p.shownOverview?.box(of: 20)).centre)
            s.queued = [TimedInputEvent(.mouseDown(.left, x: Double(target.x), y: Double(target.y), modifiers: []), at: s.time)]
            #expect(step(p, s, until: s.time + 10) { p.controller.spread == 10 && !p.controller.isAnimating })
            #expect(!p.overviewShown && rec.turns.count == turns + 1 && rec.turns.last?.1 == .key)
        } }
    }
}

/// The reader's window without rough edges: one "where am I", clicks and Escape that do only
/// what they dismiss, E naming the page mode it chose.
extension FramePipelineTests {
    /// In one-page mode the title, the bar's label and its knob say the same page: "page 6 of
    /// 8", "6 · 8" at 5/7 of the track; a drag to the bar's end lands on the last page.
    @Test func inOnePageModeTheBarAndTheTitleSayTheSamePage() throws {
        try zebraBook { p, s, rec in
            s.queued = [key(.e, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.controller.singlePage)
            #expect(p.perform(.goTo(PageImage(number: 6)), at: s.time))
            #expect(step(p, s, until: s.time + 5) { !p.controller.isAnimating })
            #expect(p.pageTitle.hasSuffix("page 6 of 8"), "\(p.pageTitle)")
            #expect(p.layerContent.progress == OverlayProgress(label: "6 · 8", fraction: 5.0 / 7), "\(String(describing: p.layerContent.progress))")
            let bar = OverlayLayout(width: 320, height: 180).barFrame
            let t = s.time
            s.queued = [TimedInputEvent(.mouseMove(x: 100, y: 100), at: t),
                        TimedInputEvent(.mouseDown(.left, x: bar.maxX - 2, y: bar.y + bar.height / 2, modifiers: []), at: t + 0.05),
                        TimedInputEvent(.mouseUp(.left, x: bar.maxX - 2, y: bar.y + bar.height / 2, modifiers: []), at: t + 0.1)]
            #expect(step(p, s, until: t + 5) { p.controller.shownPages.map(\.number) == [8] && !p.controller.isAnimating }, "\(p.controller.shownPages)")
            #expect(p.pageTitle.hasSuffix("page 8 of 8") && p.layerContent.progress?.label == "8 · 8")
            #expect(rec.turns.last?.1 == .gesture)
        }
    }

    /// A plain click that lets a selection go, closes the help card or closes the contents
    /// panel does only that: no page turns.
    @Test func aClickThatDismissesSomethingTurnsNoPage() throws {
        try zebraBook { p, s, rec in
            let page = try pixel(x: 0.5, y: 0.5, in: p)
            func click(_ modifiers: Modifiers = [], at start: (x: Double, y: Double)? = nil, to end: (x: Double, y: Double)? = nil) {
                let t = s.time, from = start ?? page, to = end ?? from
                s.queued = [TimedInputEvent(.mouseDown(.left, x: from.x, y: from.y, modifiers: modifiers), at: t),
                            TimedInputEvent(.mouseMove(x: to.x, y: to.y), at: t + 0.05),
                            TimedInputEvent(.mouseUp(.left, x: to.x, y: to.y, modifiers: modifiers), at: t + 0.1)]
                step(p, s, until: t + 2)
            }
            click(.shift, to: (page.x + 20, page.y + 20))
            #expect(p.selectedText == "horse" && rec.turns.isEmpty)
            click()
            #expect(p.selectedText == nil && rec.turns.isEmpty && p.controller.spread == 0, "the click let the selection go, nothing more")
            s.queued = [key(.h, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.helpShown)
            click()
            #expect(!p.layer.helpShown && rec.turns.isEmpty && p.controller.spread == 0, "the click closed the card, nothing more")
            s.queued = [key(.tab, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.contents != nil)
            // Beside the panel, on the right-hand page (the panel covers the rest of so small a window).
            let beside = (x: 316.0, y: 90.0)
            #expect(!OverlayLayout(width: 320, height: 180).contentsFrame.contains(x: beside.x, y: beside.y))
            click(at: beside)
            #expect(p.layer.contents == nil && rec.turns.isEmpty && p.controller.spread == 0, "the click closed the panel, nothing more")
            click(at: beside)
            #expect(rec.turns.count == 1, "with nothing to dismiss a click turns")
        }
    }

    /// A note shown over the page (a note's reference clicked) is a card of the layer, pinned
    /// while open; Escape closes it and leaves the book open, a click closes it and turns nothing.
    @Test func aNoteOverThePageClosesWithEscapeOrAClickAndNothingElse() throws {
        try zebraBook { p, s, rec in
            let page = try pixel(x: 0.5, y: 0.5, in: p)
            p.showNote("The note.\nIts second paragraph.", at: s.time)
            #expect(p.layerContent.note == "The note.\nIts second paragraph." && p.layer.isPinned)
            let card = try #require(ReaderLayer.layout(width: 320, height: 180).panels(p.layerContent).first { $0.role == .note })
            #expect(card.texts.map(\.string) == ["The note.", "Its second paragraph."])
            s.queued = [key(.escape, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.note == nil && p.controller.phase == .reading, "Escape closed the note, not the book")
            p.showNote("The note.", at: s.time)
            let t = s.time
            s.queued = [TimedInputEvent(.mouseDown(.left, x: page.x, y: page.y, modifiers: []), at: t),
                        TimedInputEvent(.mouseUp(.left, x: page.x, y: page.y, modifiers: []), at: t + 0.1)]
            step(p, s, until: t + 2)
            #expect(p.layer.note == nil && rec.turns.isEmpty && p.controller.spread == 0, "the click closed the note, nothing more")
        }
    }

    /// A note holding links shows a row for each under its text; a click on a row follows that
    /// link (and closes the note), a click beside the rows only closes it.
    @Test func aNotesLinksAreRowsThatAClickFollows() throws {
        try zebraBook { p, s, rec in
            let links = [NoteLink(label: "the next chapter", target: .page(3)), NoteLink(label: "the source", target: .uri("https://example.org"))]
            p.showNote("The note says why.", links: links, at: s.time)
            let layout = ReaderLayer.layout(width: 320, height: 180)
            let card = try #require(layout.panels(p.layerContent).first { $0.role == .note })
            #expect(card.texts.map(\.string) == ["The note says why.", "→ the next chapter", "→ the source"])
            // The second row's middle, in the window.
            let row = card.texts[2].frame
            let at = (x: card.frame.x + row.x + 20, y: card.frame.y + row.y + row.height / 2)
            #expect(layout.noteLink(x: at.x, y: at.y, note: "The note says why.", links: links.map(\.label)) == 1)
            s.queued = [TimedInputEvent(.mouseDown(.left, x: at.x, y: at.y, modifiers: []), at: s.time),
                        TimedInputEvent(.mouseUp(.left, x: at.x, y: at.y, modifiers: []), at: s.time + 0.05)]
            step(p, s, until: s.time + 0.5)
            #expect(rec.followed == [.uri("https://example.org")] && p.layer.note == nil && rec.turns.isEmpty)
            p.showNote("The note says why.", links: links, at: s.time)
            let beside = (x: card.frame.x + 4, y: card.frame.y + 4)
            s.queued = [TimedInputEvent(.mouseDown(.left, x: beside.x, y: beside.y, modifiers: []), at: s.time),
                        TimedInputEvent(.mouseUp(.left, x: beside.x, y: beside.y, modifiers: []), at: s.time + 0.05)]
            step(p, s, until: s.time + 0.5)
            #expect(rec.followed.count == 1 && p.layer.note == nil && rec.turns.isEmpty, "a click beside the rows only closed the note")
        }
    }

    /// Escape, in order: a panel, then the selection, then the search, then full screen, and
    /// only then the book.
    @Test func escapeClosesPanelsThenSelectionThenSearchThenFullScreenThenTheBook() throws {
        try zebraBook(configure: { $0.startsSearch = { $0.run() } }) { p, s, _ in
            let page = try pixel(x: 0.5, y: 0.5, in: p)
            var t = s.time
            s.queued = [TimedInputEvent(.text("/"), at: t), TimedInputEvent(.text("zebra"), at: t), key(.enter, at: t), key(.f11, at: t)]
            #expect(step(p, s, until: t + 5) { p.layer.entry == "“zebra” 1 of 2" && !p.controller.isAnimating })
            #expect(s.isFullscreen)
            t = s.time
            s.queued = [key(.tab, at: t)]
            step(p, s, until: t + 0.1)
            #expect(p.layer.contents != nil)
            s.queued = [key(.escape, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.contents == nil)
            t = s.time
            s.queued = [TimedInputEvent(.mouseDown(.left, x: page.x, y: page.y, modifiers: .shift), at: t),
                        TimedInputEvent(.mouseMove(x: page.x + 20, y: page.y + 20), at: t + 0.05),
                        TimedInputEvent(.mouseUp(.left, x: page.x + 20, y: page.y + 20, modifiers: .shift), at: t + 0.1)]
            step(p, s, until: t + 0.2)
            #expect(p.selectedText != nil)
            let steps: [(String, () -> Bool)] = [
                ("the selection", { p.selectedText == nil && p.layer.entry != nil && s.isFullscreen }),
                ("the search", { p.layer.entry == nil && s.isFullscreen && p.controller.phase == .reading }),
                ("full screen", { !s.isFullscreen && p.controller.phase == .reading }),
                ("the book", { p.controller.phase != .reading }),
            ]
            for (what, done) in steps {
                s.queued = [key(.escape, at: s.time)]
                step(p, s, until: s.time + 0.1)
                #expect(done(), "Escape ends \(what)")
            }
        }
    }

    /// E cycles auto → one → two → auto, the layer naming each: in this wide window auto is two.
    @Test func eCyclesThePageModesThroughAutoAndNamesThem() throws {
        try zebraBook { p, s, _ in
            for (mode, line) in [(PageMode.one, "one page"), (.two, "two pages"), (.auto, "two pages (auto)"), (.one, "one page")] {
                s.queued = [key(.e, at: s.time)]
                step(p, s, until: s.time + 0.1)
                #expect(p.controller.settings.pages == mode && p.layer.entry == line, "\(p.layer.entry ?? "nothing")")
            }
        }
    }

    /// Search is the reading's state: Ctrl+= lays the book out again and the search runs again
    /// on the new pages (marks and N work; the reader is not turned to a hit); closing the book
    /// takes its line away, a bad phrase's answer too.
    @Test func aSearchSurvivesARelayoutAndGoesWithTheBook() throws {
        let relayouts = ManualDecoding()
        try withDocument(Reflowing.format) { doc in try live(configure: { $0.showsLayer = true; $0.relayingOut = relayouts; $0.startsSearch = { $0.run() } }) { p, s, rec in
            p.replaceLibrary(Library.load(from: doc, documents: p.configuration.documents, logProblems: false))
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            var t = s.time
            // 22 pages at 11 pt: hits on indices 0, 5, 10, 15, 20; the first is on the spread shown.
            s.queued = [TimedInputEvent(.text("/"), at: t), TimedInputEvent(.text("zebra"), at: t), key(.enter, at: t)]
            #expect(step(p, s, until: t + 5) { p.layer.entry == "“zebra” 1 of 5" && !p.controller.isAnimating }, "\(p.layer.entry ?? "nothing")")
            let turns = rec.turns.count
            p.handle(TimedInputEvent(.key(.plus, modifiers: .control, isRepeat: false), at: s.time))
            step(p, s, until: s.time + 0.1)
            #expect(relayouts.runAll() == 1)
            step(p, s, until: s.time + 0.1)
            #expect(p.library.books[0].pages.count == 24)
            #expect(p.layer.entry == "“zebra” 5 hits" && rec.turns.count == turns, "searched again, not turned: \(p.layer.entry ?? "nothing")")
            t = s.time
            s.queued = [key(.n, at: t)]
            #expect(step(p, s, until: t + 5) { p.layer.entry == "“zebra” 1 of 5" && !p.controller.isAnimating }, "\(p.layer.entry ?? "nothing")")
            #expect(p.pageTitle.contains("no search") == false)
            #expect(p.perform(.close, at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .shelf })
            #expect(p.layer.entry == nil, "the search went with the book: \(p.layer.entry ?? "nothing")")
            #expect(p.perform(.openBook(0), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .reading && !p.controller.isAnimating })
            s.queued = [TimedInputEvent(.text("/"), at: s.time), TimedInputEvent(.text("  "), at: s.time), key(.enter, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.entry == "nothing to search for: the phrase is empty")
            #expect(p.perform(.close, at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.phase == .shelf })
            #expect(p.layer.entry == nil, "the answer went with the book: \(p.layer.entry ?? "nothing")")
        } }
    }

    /// The search's line follows the reader: "1 of 2" on the hit, "2 hits" once they turn away,
    /// and Shift+N from there goes back from the page shown; the hit chosen is marked orange,
    /// the others yellow.
    @Test func theSearchLineFollowsTheReaderAndTheCurrentHitHasItsOwnColour() throws {
        try zebraBook(configure: { $0.startsSearch = { $0.run() } }) { p, s, _ in
            var t = s.time
            s.queued = [TimedInputEvent(.text("/"), at: t), TimedInputEvent(.text("zebra"), at: t), key(.enter, at: t)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == 1 && !p.controller.isAnimating && p.isIdle })
            #expect(p.layer.entry == "“zebra” 1 of 2")
            let current = p.snapshot(at: s.time).flippedVertically().pixel(105, 90)
            #expect(current.r > 180 && current.g < 160 && current.b < 100, "the hit chosen is orange: \(current)")
            #expect(p.perform(.nextPage, at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 2 && !p.controller.isAnimating && p.isIdle })
            #expect(p.layer.entry == "“zebra” 2 hits", "\(p.layer.entry ?? "nothing")")
            t = s.time
            s.queued = [TimedInputEvent(.key(.n, modifiers: .shift, isRepeat: false), at: t)]
            #expect(step(p, s, until: t + 5) { p.controller.spread == 1 && !p.controller.isAnimating }, "back from the page shown, spread \(p.controller.spread)")
            #expect(p.layer.entry == "“zebra” 1 of 2")
            s.queued = [key(.n, at: s.time)]
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 3 && !p.controller.isAnimating })
            #expect(p.perform(.goTo(PageImage(number: 2)), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 1 && !p.controller.isAnimating && p.isIdle })
            let other = p.snapshot(at: s.time).flippedVertically().pixel(105, 90)
            #expect(other.r > 180 && other.g > 180 && other.b < 100, "a hit not chosen is yellow: \(other)")
        }
    }

    /// Tab on a document without an outline says so in one line, with no empty panel.
    @Test func tabOnABookWithoutContentsSaysSoInOneLine() throws {
        try openDocument(WordPages.format, configure: { $0.showsLayer = true }) { p, s, _ in
            s.queued = [key(.tab, at: s.time)]
            step(p, s, until: s.time + 0.1)
            #expect(p.layer.contents == nil && p.layerContent.contents == nil)
            #expect(p.layer.entry == "this book has no contents")
        }
    }

    /// A note on the title ("back to page 3" after Alt+←) stays while the reader is where its
    /// move landed and goes when they turn on.
    @Test func aTitleNoteGoesWhenTheReaderMovesOn() throws {
        try zebraBook { p, s, _ in
            p.titleNote = "back to page 3"
            #expect(p.perform(.goTo(PageImage(number: 3)), at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 1 && !p.controller.isAnimating })
            step(p, s, until: s.time + 0.5)
            #expect(s.titles.last?.hasSuffix("— back to page 3") == true, "\(s.titles.last ?? "none")")
            #expect(p.perform(.nextPage, at: s.time))
            #expect(step(p, s, until: s.time + 5) { p.controller.spread == 2 && !p.controller.isAnimating })
            step(p, s, until: s.time + 0.1)
            #expect(s.titles.last?.contains("back to page") == false, "\(s.titles.last ?? "none")")
        }
    }

    /// After a key that changes nothing but shows the layer, the loop sleeps until the layer's
    /// fade: no frame is drawn while it waits (the wait is a timer, not frames).
    @Test func theLayersWaitBeforeItsFadeDrawsNothing() throws {
        try zebraBook { p, s, _ in
            #expect(step(p, s, until: s.time + 10) { p.isIdle && p.layer.fade.opacity(at: s.time) == 0 })
            s.queued = [key(.w, at: s.time)]
            step(p, s, until: s.time + 0.2)
            let shown = s.presented
            var busy = 0
            let fadeStarts = s.time + LayerState().fade.hold - 0.3
            while s.time < fadeStarts {
                p.frame(at: s.time)
                if !p.isIdle { busy += 1 }
                s.time += 1.0 / 30
            }
            #expect(s.presented == shown && busy == 0, "\(s.presented - shown) frames presented, \(busy) busy while the layer waits")
            // The fade itself: a frame a step (20 a second), not one a frame of the loop (60 here).
            let fading = s.presented
            while p.layer.fade.opacity(at: s.time) > 0 || !p.isIdle {
                p.frame(at: s.time)
                s.time += 1.0 / 60
            }
            p.frame(at: s.time)
            let frames = s.presented - fading
            #expect(frames >= 8 && frames <= Int(LayerState().fade.fadeOut * 20) + 3, "\(frames) frames for the fade")
            #expect(p.layerContent.progress != nil && p.isIdle)
        }
    }
}

/// Runs each job on a worker after `delay` seconds: a relayout that takes a while.
private final class SlowDecoding: DecodeExecutor, @unchecked Sendable {
    // @unchecked: `count` is guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    private let delay: TimeInterval

    init(delay: TimeInterval) { self.delay = delay }

    /// Jobs handed in so far.
    var handed: Int { lock.withLock { count } }

    func execute(_ job: @escaping @Sendable () -> Void) {
        lock.withLock { count += 1 }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: job)
    }
}
