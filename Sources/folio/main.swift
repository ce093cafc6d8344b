import ArgumentParser

/// Folio: a 3D book renderer — view, capture, record, measure.
struct Folio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folio",
        abstract: "A 3D book renderer: a shelf of books, opened and read with page flips and curls.",
        subcommands: [View.self, Capture.self, Layout.self, Info.self, Bench.self, Record.self])
}

Folio.main()
