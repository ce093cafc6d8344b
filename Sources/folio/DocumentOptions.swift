import ArgumentParser
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
