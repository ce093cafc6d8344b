import ArgumentParser

/// Placeholder root command; the real one registers every subcommand.
struct Folio: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "folio", subcommands: [Layout.self])
}

Folio.main()
