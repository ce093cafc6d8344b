import ArgumentParser
import FolioArchive
import FolioDjVu
import FolioMuPDF
import FolioPDF

#if os(Linux)
// glibc's mallopt (declared in <malloc.h>, which Glibc's module map leaves out).
@_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
private let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD

// Page images are megabytes each and come and go as the reader moves: give every block of
// 1 MiB or more its own mapping, so a freed page returns to the system instead of lingering
// in the allocator's heap (resident memory then follows the page store's budget).
_ = mallopt(mmapThreshold, 1 << 20)
#endif

/// Folio: a 3D book renderer — view, capture, record, measure.
struct Folio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folio",
        abstract: "A 3D book renderer: a shelf of books, opened and read with page flips and curls.",
        version: folioVersion,
        subcommands: [View.self, Capture.self, Layout.self, Info.self, Bench.self, Record.self, Flip.self, Batch.self,
                      Outline.self, SearchCommand.self, TextCommand.self, Notes.self, Speak.self])
}

PDF.register()
MuPDF.register()
MuPDF.layoutCache = .standard()
MuPDF.keepCompiledPatterns(in: LayoutCache.folder("patterns"))
ComicArchive.register()
DjVu.register()
runCommandLine()
