import ArgumentParser
import FolioBook
import FolioFind
import Foundation

/// `folio speak BOOK -o FILE.wav`: a book's text from a page on, read a sentence at a time as
/// the viewer reads aloud, spoken into a WAV file by espeak-ng (speech-dispatcher's usual
/// voice), run as a program of its own.
struct Speak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Speak a book's text from a page on into a WAV file, as the viewer reads aloud (espeak-ng).",
        discussion: """
        The sentences are those R reads in the viewer, from the first word of --page on. \
        espeak-ng must be installed (apt install espeak-ng); the file is written whole or not at all.
        """)

    @Argument(help: "A book: a document with text (PDF, EPUB, MOBI, FB2, XPS, DjVu with a text layer).")
    var book: String

    @Option(name: .shortAndLong, help: "The WAV file to write.")
    var output: String

    @Option(parsing: .unconditional, help: "The page to start at (1-based, as laid out now).")
    var page = 1

    @Option(parsing: .unconditional, help: "How many sentences to speak (1…2000).")
    var sentences = 20

    @Option(parsing: .unconditional, help: "Speed in words a minute (80…450).")
    var rate = 175

    @Option(help: "An espeak-ng voice (for example en-us, fr, de); default: espeak-ng's own.")
    var voice: String?

    @Option(help: "Password of a protected PDF (or set FOLIO_PASSWORD).")
    var password: String?

    @Flag(help: "Replace the output file when it exists.")
    var force = false

    func validate() throws {
        if page < 1 { throw ValidationError("--page \(page): pages are numbered from 1") }
        // 2,000 sentences are about an hour and 200 MB of sound, held once in memory.
        if !(1...2_000).contains(sentences) { throw ValidationError("--sentences \(sentences): from 1 to 2000") }
        if !(80...450).contains(rate) { throw ValidationError("--rate \(rate): from 80 to 450 words a minute") }
        if let voice, voice.isEmpty || voice.count > 40 || voice.hasPrefix("-") || !voice.allSatisfy({ $0.isLetter || $0.isNumber || "-_+".contains($0) }) {
            throw ValidationError("--voice \(voice): a voice name such as en-us")
        }
    }

    func run() throws {
        let file = OutputFile(output, replace: force ? .always : .never, reads: [book])
        try file.prepare()
        let library = try loadLibrary(book, password: password)
        guard library.books.count == 1, let book = library.books.first, let path = book.document else {
            throw Failure(.usage, "\(self.book): name one document with text")
        }
        guard page <= book.pages.count else { throw Failure(.usage, "--page \(page): the book has \(book.pages.count) page\(book.pages.count == 1 ? "" : "s")") }
        let source = try commandDocuments.open(path)
        var reader = SentenceReader(page: book.pages[page - 1].documentPage?.index ?? page - 1)
        var text: [String] = []
        while text.count < sentences, let sentence = reader.read(source) { text.append(sentence.text) }
        guard !text.isEmpty else { throw Failure(.data, "\(FileName.printable(self.book)): no text to speak from page \(page)") }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        guard let espeak = folders.lazy.map({ $0 + "/espeak-ng" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Failure(.unavailable, "espeak-ng is not installed (apt install espeak-ng)")
        }
        // espeak-ng writes a scratch file of its own (it does not say when a write fails); its
        // bytes are then written as every output of Folio is (`OutputFile`: devices, a full disk).
        let scratch = NSTemporaryDirectory() + "/.folio-speak-\(UUID().uuidString).wav"
        defer { unlink(scratch) }
        let process = Process(), input = Pipe()
        process.executableURL = URL(fileURLWithPath: espeak)
        process.arguments = ["-w", scratch, "-s", "\(rate)", "--stdin"] + (voice.map { ["-v", $0] } ?? [])
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // One sentence a line: espeak-ng pauses between them as a reader does.
        try input.fileHandleForWriting.write(contentsOf: Data(text.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(.io, "espeak-ng failed (status \(process.terminationStatus))") }
        try file.write(InputFile.read(scratch, maxBytes: 1 << 30))
        print("\(FileName.printable(output)): \(text.count) sentence\(text.count == 1 ? "" : "s") from page \(page)")
    }
}
