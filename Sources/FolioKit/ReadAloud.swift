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
struct ReadAloud {
    let voice: any SpeechOutput
    let path: String
    let book: Int
    /// Sentences given to the voice and not yet finished, the one spoken first.
    var queued: [SentenceReader.Sentence] = []
    /// Where the next sentence comes from.
    var sentences: SentenceReader
    var paused = false
    /// Sentences given to the voice ahead of the one spoken, so that it never waits between them.
    static let ahead = 2
    /// Seconds between looks at the voice.
    static let poll = 0.1
}

extension FramePipeline {
    /// R: reading aloud starts from the first page shown; while it reads, R pauses and resumes.
    func toggleReadingAloud(at now: Double) {
        if var reading = readingAloud {
            reading.paused ? reading.voice.resume() : reading.voice.pause()
            reading.paused.toggle()
            readingAloud = reading
            titleNote = reading.paused ? "reading paused (R goes on)" : "reading aloud"
            return
        }
        guard let b = controller.book, let (path, page) = ReaderLayer.documentPage(book: library.books[b], image: shownImage),
              ((try? configuration.documents.open(path).text(page: page)) ?? nil) != nil else {
            return showNotice("this page has no text to read aloud")
        }
        switch configuration.speech() {
        case let .failure(error): showNotice(error.description)
        case let .success(voice):
            voice.rate = speechRate
            clearSelection()
            readingAloud = ReadAloud(voice: voice, path: path, book: b, sentences: SentenceReader(page: page))
            titleNote = "reading aloud (R pauses, Shift+R stops)"
            readAloud(at: now)
        }
    }

    /// Shift+R: reading aloud stops, its mark taken off the page.
    func stopReadingAloud() {
        guard let reading = readingAloud else { return }
        reading.voice.stop()
        readingAloud = nil
        markSpoken(nil, of: reading)
        titleNote = "reading stopped"
    }

    /// U and Shift+U: the voice faster or slower, by a tenth of its range.
    func changeSpeechRate(by step: Int) {
        speechRate = min(max(speechRate + step * 10, -100), 100)
        readingAloud?.voice.rate = speechRate
        titleNote = "speech rate \(speechRate > 0 ? "+" : "")\(speechRate)"
    }

    /// The sentences the voice finished let go, the next ones given to it, the one spoken marked
    /// and its page turned to (each frame while reading).
    func readAloud(at now: Double) {
        guard var reading = readingAloud else { return }
        guard reading.book == controller.book else { return stopReadingAloud() }
        let finished = min(reading.voice.takeFinished(), reading.queued.count)
        let before = reading.queued.first
        reading.queued.removeFirst(finished)
        while reading.queued.count < ReadAloud.ahead, let source = try? configuration.documents.open(reading.path),
              let sentence = reading.sentences.read(source) {
            guard reading.voice.speak(sentence.text) else { break }
            reading.queued.append(sentence)
        }
        guard let spoken = reading.queued.first else {
            readingAloud = reading
            stopReadingAloud()
            titleNote = "read to the end"
            return
        }
        readingAloud = reading
        guard finished > 0 || before == nil else { return }
        markSpoken(spoken, of: reading)
        // The page the voice reached, turned to as a reader turns it: the next one with the turn.
        let pages = library.books[reading.book].pages
        guard let first = spoken.parts.first, let image = pages.firstIndex(of: .document(reading.path, index: first.page)),
              !controller.shownPages.contains(PageImage(index: image).number) else { return }
        // The image after the last one shown is the next page.
        let next = controller.shownPages.last.map { PageImage(number: $0).index + 1 } == image
        perform(next ? .nextPage : .goTo(page: PageImage(index: image).layoutPage), at: now, origin: .key)
    }

    /// Marks `sentence` on the paper in place of the one marked before (nil: none); the pages of
    /// both are drawn again.
    private func markSpoken(_ sentence: SentenceReader.Sentence?, of reading: ReadAloud) {
        let boxes = Dictionary((sentence?.parts ?? []).map { ($0.page, $0.boxes) }, uniquingKeysWith: +)
        let before = spokenPages
        PageMarks.setSpoken(boxes, of: reading.path)
        spokenPages = Set(boxes.keys)
        let pages = library.books[reading.book].pages
        for page in before.union(spokenPages) {
            if let image = pages.firstIndex(of: .document(reading.path, index: page)) { marksChanged(image: image) }
        }
    }

    /// When the loop should look at the voice again; nil when nothing is read aloud.
    var speechWake: Double? { readingAloud.map { $0.paused ? nil : surface.time + ReadAloud.poll } ?? nil }
}
