import ArgumentParser
import FolioBook
import FolioImage
import FolioReader
import FolioRender

extension Theme: ExpressibleByArgument {}

/// The reader's colours, on every command that draws pages. Unset, the viewer takes what it
/// remembers (`ReaderSettings`) and the other commands draw as the paper theme always did.
struct ThemeOptions: ParsableArguments {
    @Option(help: "Colours of printed pages and the room: paper, sepia or night (comics and photographs keep theirs).")
    var theme: Theme?

    @Flag(inversion: .prefixedNo, help: "The other side's print showing faintly through the paper.")
    var showThrough: Bool?

    /// `settings` with the options given in place of its own.
    func override(_ settings: ReaderSettings) -> ReaderSettings {
        var s = settings
        if let theme { s.theme = theme }
        if let showThrough { s.showThrough = showThrough }
        return s
    }

    /// Draws as the options say (unset: the paper theme, show-through on).
    func apply(to settings: inout RenderSettings) {
        settings.theme = theme ?? .paper
        settings.showThrough = showThrough ?? true
    }
}
