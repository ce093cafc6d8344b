import Foundation

extension OutlineEntry {
    /// The contents of a book whose pages are files (a comic archive, a folder of images): one
    /// entry per folder, at its first page, holding its files; files at the top level are
    /// entries of their own. `names` are the pages' paths in reading order; titles are the
    /// file names without their extension; `pages` gives each name's page where it is not its
    /// place in the list (a comic's spread is two pages).
    public static func fileNames(_ names: [String], at pages: [Int]? = nil) -> [OutlineEntry] {
        var list: [OutlineEntry] = []
        var folder: String?
        for (index, name) in names.enumerated() {
            let parent = (name as NSString).deletingLastPathComponent
            let page = pages?[index] ?? index
            let entry = OutlineEntry(title: ((name as NSString).lastPathComponent as NSString).deletingPathExtension, page: page)
            if parent.isEmpty {
                folder = nil
                list.append(entry)
            } else if parent == folder, !list.isEmpty {
                list[list.count - 1].children.append(entry)
            } else {
                folder = parent
                list.append(OutlineEntry(title: parent, page: page, children: [entry]))
            }
        }
        return list
    }
}
