import FolioBook
import FolioFind
import FolioLayout
import FolioReader
import FolioSpeech

/// The open book read aloud (R), sentence by sentence from the first page shown: the sentence
/// spoken marked on the paper, the page turned with the reader's turn as the voice reaches the
/// next; R again pauses and resumes, Shift+R stops, U and Shift+U speak faster and slower. The
/// voice runs on its own; the frame loop looks at it a few times a second and never waits.
/// Does not: speak (`SpeechOutput`), or draw.
final class ReadAloud: PipelinePart {
    /// What is read now: the voice, the document and book, the sentences under way.
    struct Reading {
        let voice: any SpeechOutput
        let path: String
        let book: Int
        /// Sentences given to the voice and not yet finished, the one spoken first.
        var queued: [SentenceReader.Sentence] = []
        /// Where the next sentence comes from.
        var sentences: SentenceReader
        var paused = false
    }

    private var reading: Reading?
    /// The pages its sentence is marked on, and the voice's speed the reader chose.
    private var spokenPages: Set<Int> = []
    private var speechRate = 0
    /// Sentences given to the voice ahead of the one spoken, so that it never waits between them.
    static let ahead = 2
    /// Seconds between looks at the voice.
    static let poll = 0.1

    /// R: reading aloud starts from the first page shown; while it reads, R pauses and resumes.
    func toggle(at now: Double) {
        if var r = reading {
            r.paused ? r.voice.resume() : r.voice.pause()
            r.paused.toggle()
            reading = r
            p.titleNote = r.paused ? "reading paused (R goes on)" : "reading aloud"
            return
        }
        guard let b = p.controller.book, let (path, page) = ReaderLayer.documentPage(book: p.library.books[b], image: p.shownImage),
              ((try? p.configuration.documents.open(path).text(page: page)) ?? nil) != nil else {
            return p.showNotice("this page has no text to read aloud")
        }
        switch p.configuration.speech() {
        case let .failure(error): p.showNotice(error.description)
        case let .success(voice):
            voice.rate = speechRate
            p.pointer.clear()
            reading = Reading(voice: voice, path: path, book: b, sentences: SentenceReader(page: page))
            p.titleNote = "reading aloud (R pauses, Shift+R stops)"
            update(at: now)
        }
    }

    /// Shift+R: reading aloud stops, its mark taken off the page.
    func stop() {
        guard let r = reading else { return }
        r.voice.stop()
        reading = nil
        markSpoken(nil, of: r)
        p.titleNote = "reading stopped"
    }

    /// U and Shift+U: the voice faster or slower, by a tenth of its range.
    func changeRate(by step: Int) {
        speechRate = min(max(speechRate + step * 10, -100), 100)
        reading?.voice.rate = speechRate
        p.titleNote = "speech rate \(speechRate > 0 ? "+" : "")\(speechRate)"
    }

    /// The sentences the voice finished let go, the next ones given to it, the one spoken marked
    /// and its page turned to (each frame while reading).
    override func update(at now: Double) {
        guard var r = reading else { return }
        guard r.book == p.controller.book else { return stop() }
        let finished = min(r.voice.takeFinished(), r.queued.count)
        let before = r.queued.first
        r.queued.removeFirst(finished)
        while r.queued.count < Self.ahead, let source = try? p.configuration.documents.open(r.path), let sentence = r.sentences.read(source) {
            guard r.voice.speak(sentence.text) else { break }
            r.queued.append(sentence)
        }
        reading = r
        guard let spoken = r.queued.first else {
            stop()
            p.titleNote = "read to the end"
            return
        }
        guard finished > 0 || before == nil else { return }
        markSpoken(spoken, of: r)
        // The page the voice reached, turned to as a reader turns it: the next one with the turn.
        let pages = p.library.books[r.book].pages, shown = p.controller.shownPages
        guard let first = spoken.parts.first, let image = pages.firstIndex(of: .document(r.path, index: first.page)),
              !shown.contains(PageImage(index: image)) else { return }
        // The image after the last one shown is the next page.
        let next = shown.last.map { $0.index + 1 } == image
        p.perform(next ? .nextPage : .goTo(PageImage(index: image)), at: now, origin: .key)
    }

    /// Marks `sentence` on the paper in place of the one marked before (nil: none); the pages of
    /// both are drawn again.
    private func markSpoken(_ sentence: SentenceReader.Sentence?, of r: Reading) {
        let boxes = Dictionary((sentence?.parts ?? []).map { ($0.page, $0.boxes) }, uniquingKeysWith: +)
        let before = spokenPages
        p.marks.setSpoken(boxes, of: r.path)
        spokenPages = Set(boxes.keys)
        let pages = p.library.books[r.book].pages
        for page in before.union(spokenPages) {
            if let image = pages.firstIndex(of: .document(r.path, index: page)) { p.marksChanged(image: image) }
        }
    }

    /// When the loop should look at the voice again; nil when nothing is read aloud.
    override var wake: Double? { reading.map { $0.paused ? nil : p.surface.time + Self.poll } ?? nil }
}
