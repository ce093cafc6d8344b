import ArgumentParser
import FolioBook
import FolioMuPDF

/// How documents are laid out, for every command that opens a library: the text size of
/// reflowable books (EPUB, FB2, MOBI). Applied when the options are parsed, before any book opens.
struct DocumentOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Text size of reflowable books (EPUB, FB2, MOBI) in points, "
                               + "\(Int(MuPDF.fontSizes.lowerBound))…\(Int(MuPDF.fontSizes.upperBound)) (default: \(MuPDF.defaultFontSize)).",
                               valueName: "points"))
    var fontSize: Double?

    func validate() throws {
        guard let fontSize else { return }
        guard MuPDF.fontSizes.contains(fontSize) else {
            throw ValidationError("--font-size must be \(MuPDF.fontSizes.lowerBound)…\(MuPDF.fontSizes.upperBound) points, not \(fontSize)")
        }
        MuPDF.fontSize = fontSize
    }
}

/// Lays reflowable books opened from now on out for the page shape an image of `width` ×
/// `height` pixels gives them (`Book.reflowAspect`), one page across it or two, so that a
/// capture at a size shows the pages the viewer shows at that size.
func layOutBooks(forWidth width: Int, height: Int, single: Bool) {
    MuPDF.pageAspect = Book.reflowAspect(viewWidth: Double(width), viewHeight: Double(height), pagesAcross: single ? 1 : 2)
}
