import FolioBook

/// An archive's contents are its page files' names (folders grouping them).
extension ArchiveDocument {
    var outline: [OutlineEntry] { OutlineEntry.fileNames(entries.map(\.name)) }
}
