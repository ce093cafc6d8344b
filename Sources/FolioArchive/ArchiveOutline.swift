import FolioBook

/// An archive's contents are its page files' names (folders grouping them), each at its
/// picture's first page.
extension ArchiveDocument {
    var outline: [OutlineEntry] {
        var first: [Int: Int] = [:]
        for (page, p) in pages.enumerated() { if let e = p.entry, first[e] == nil { first[e] = page } }
        return OutlineEntry.fileNames(entries.map(\.name), at: entries.indices.map { first[$0] ?? $0 })
    }
}
