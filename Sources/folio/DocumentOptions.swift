import ArgumentParser
import FolioBook
import FolioMuPDF

/// How documents are laid out, for every command that opens a library: the text size and
/// typography of reflowable books (EPUB, FB2, MOBI, plain text). Applied when the options are parsed, before
/// any book opens.
struct DocumentOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Text size of reflowable books (EPUB, FB2, MOBI, plain text) in points, "
                               + "\(Int(MuPDF.fontSizes.lowerBound))…\(Int(MuPDF.fontSizes.upperBound)) (default: \(MuPDF.defaultFontSize)).",
                               valueName: "points"))
    var fontSize: Double?

    @Option(help: "Typeface of reflowable books: publisher (the book's own), serif, sans, mono, or an installed family by name (fc-list: \"OpenDyslexic\", \"DejaVu Serif\"; EPUB) (default: publisher).")
    var font: String?

    @Option(help: ArgumentHelp("Line spacing of reflowable books in ems, \(Typography.lineSpacings.lowerBound)…\(Typography.lineSpacings.upperBound) "
                               + "(default: \(Typography.standard.lineSpacing)).", valueName: "ems"))
    var lineSpacing: Double?

    @Option(help: "Margins of reflowable pages: narrow, normal or wide (default: normal).")
    var margins: Typography.Margins?

    @Flag(inversion: .prefixedNo, help: "Set reflowable books' paragraphs flush to both sides (default: on).")
    var justify: Bool?

    @Flag(inversion: .prefixedNo, help: "Hyphenate reflowable books by their language, with the installed hyphen-* patterns (default: on).")
    var hyphenate: Bool?

    @Flag(inversion: .prefixedNo, help: "Keep the publisher's styles (faces, sizes, colours) of reflowable books (default: on).")
    var publisherStyles: Bool?

    /// `base` with what these options say.
    func typography(over base: Typography) -> Typography {
        let face = font.flatMap(Typography.Face.init(rawValue:))
        return Typography(face: face ?? (font == nil ? base.face : .publisher), family: font == nil ? base.family : face == nil ? font : nil,
                   lineSpacing: lineSpacing ?? base.lineSpacing, margins: margins ?? base.margins,
                   justify: justify ?? base.justify, hyphenate: hyphenate ?? base.hyphenate,
                   publisherStyles: publisherStyles ?? base.publisherStyles)
    }

    func validate() throws {
        if let lineSpacing, !Typography.lineSpacings.contains(lineSpacing) {
            throw ValidationError("--line-spacing must be \(Typography.lineSpacings.lowerBound)…\(Typography.lineSpacings.upperBound) ems, not \(lineSpacing)")
        }
        if let font, Typography.Face(rawValue: font) == nil, Typography(family: font).family == nil {
            throw ValidationError("--font wants publisher, serif, sans, mono or a typeface's name, not '\(FileName.printable(font))'")
        }
        MuPDF.typography = typography(over: .standard)
        guard let fontSize else { return }
        guard MuPDF.fontSizes.contains(fontSize) else {
            throw ValidationError("--font-size must be \(MuPDF.fontSizes.lowerBound)…\(MuPDF.fontSizes.upperBound) points, not \(fontSize)")
        }
        MuPDF.fontSize = fontSize
    }
}

extension Typography.Margins: ExpressibleByArgument {}

/// Lays reflowable books opened from now on out for the page shape an image of `width` ×
/// `height` pixels gives them (`Book.reflowAspect`), one page across it or two, so that a
/// capture at a size shows the pages the viewer shows at that size.
func layOutBooks(forWidth width: Int, height: Int, single: Bool) {
    MuPDF.pageAspect = Book.reflowAspect(viewWidth: Double(width), viewHeight: Double(height), pagesAcross: single ? 1 : 2)
}
