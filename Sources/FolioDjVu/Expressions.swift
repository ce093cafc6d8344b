import CDjVu
import FolioBook
import Foundation

/// Reading what ddjvuapi gives as lisp expressions (miniexp) and file lists: the component
/// files, metadata, the outline and the text layer.
enum DjVuExpressions {
    /// One component file of a document.
    struct Component {
        var id: String, name: String, title: String
        /// Its page index, nil for a file that is not a page (shared annotations, thumbnails).
        var page: Int?
    }

    /// The document's component files, refusing an old "indexed" document (its pages are
    /// URLs), an indirect one that names a file outside its own folder or one that is not a
    /// regular file, and files that include each other in a cycle, before any is read.
    static func checkComponents(_ document: OpaquePointer, path: String) throws -> [Component] {
        let type = ddjvu_document_get_type(document)
        guard type != DDJVU_DOCTYPE_OLD_INDEXED else {
            throw PageError.invalid(path: path, message: "is an old indexed DjVu document (pages are links to other files): not supported")
        }
        var files: [Component] = []
        for i in 0..<max(0, Int(ddjvu_document_get_filenum(document))) {
            var info = ddjvu_fileinfo_t()
            guard folio_ddjvu_fileinfo(document, Int32(i), &info) == DDJVU_JOB_OK else {
                if type == DDJVU_DOCTYPE_INDIRECT { throw PageError.invalid(path: path, message: "lists a component file it does not describe") }
                continue
            }
            let text = { (s: UnsafePointer<CChar>?) in s.map { String(cString: $0) } ?? "" }
            files.append(Component(id: text(info.id), name: text(info.name), title: text(info.title),
                                   page: info.type == CChar(UInt8(ascii: "P")) && info.pageno >= 0 ? Int(info.pageno) : nil))
        }
        if type == DDJVU_DOCTYPE_INDIRECT {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardized.resolvingSymlinksInPath()
            for file in files {
                guard isInside(folder, file.id), isInside(folder, file.name) else {
                    throw PageError.invalid(path: path, message: "names a component file outside its folder (\"\(file.id)\"): not opened")
                }
            }
        }
        try DjVuIncludes.check(document, files, path: path)
        return files
    }

    /// Whether the file named `name` relative to `folder` lies in it (links followed); a name
    /// that could be a URL is not.
    private static func isInside(_ folder: URL, _ name: String) -> Bool {
        guard !name.isEmpty, !name.contains(":"), !name.contains("\\"), !name.hasPrefix("/") else { return name.isEmpty }
        let file = folder.appendingPathComponent(name).standardized.resolvingSymlinksInPath()
        return file.path.hasPrefix(folder.path.hasSuffix("/") ? folder.path : folder.path + "/")
    }

    /// Page titles that say more than the page's number or its file's name.
    static func labels(_ files: [Component]) -> [Int: String] {
        var labels: [Int: String] = [:]
        for file in files {
            guard let page = file.page, !file.title.isEmpty, file.title != file.id, file.title != String(page + 1) else { continue }
            labels[page] = file.title
        }
        return labels
    }

    /// Page indexes by component id (a link or bookmark may name a page by its file).
    static func pageIDs(_ files: [Component]) -> [String: Int] {
        Dictionary(files.compactMap { f in f.page.map { (f.id, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The value of metadata `key` in annotations, if not blank.
    static func metadata(_ anno: miniexp_t?, _ key: String) -> String? {
        guard let value = ddjvu_anno_get_metadata(anno, miniexp_symbol(key)) else { return nil }
        let s = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    /// `(bookmarks ("title" "#target" children…)…)` as outline entries.
    static func outline(_ exp: miniexp_t?, pageCount: Int, ids: [String: Int]) -> [OutlineEntry] {
        guard symbol(miniexp_car(exp)) == "bookmarks" else { return [] }
        func entries(_ list: miniexp_t?, depth: Int) -> [OutlineEntry] {
            self.list(list).compactMap { e in
                guard let title = string(miniexp_car(e)) else { return nil }
                let page = string(miniexp_nth(1, e)).flatMap { self.page(of: $0, pageCount: pageCount, ids: ids) }
                // Nesting deeper than any real contents is dropped, not followed.
                let children = depth < 32 ? entries(miniexp_cdr(miniexp_cdr(e)), depth: depth + 1) : []
                return OutlineEntry(title: title.trimmingCharacters(in: .whitespacesAndNewlines), page: page, children: children)
            }
        }
        return entries(miniexp_cdr(exp), depth: 0)
    }

    /// The page index a "#N" (page number from 1) or "#id" (component file) target names.
    static func page(of target: String, pageCount: Int, ids: [String: Int]) -> Int? {
        guard target.hasPrefix("#") else { return nil }
        let rest = String(target.dropFirst())
        if let n = Int(rest) { return (1...max(1, pageCount)).contains(n) && n <= pageCount ? n - 1 : nil }
        return ids[rest]
    }

    /// The words of a text layer `(page x0 y0 x1 y1 (line … (word x0 y0 x1 y1 "text")…)…)`:
    /// every zone whose content is a string, in order, its box placed by `place`.
    static func collectWords(_ zone: miniexp_t?, depth: Int = 0, into words: inout [TextWord],
                             _ place: ((x0: Double, y0: Double, x1: Double, y1: Double)) -> PageRegion) {
        let items = list(zone)
        guard items.count >= 6, depth < 16 else { return }
        let n = items[1...4].compactMap { miniexp_numberp($0) != 0 ? Double(miniexp_to_int($0)) : nil }
        if items.count == 6, let text = string(items[5]) {
            let word = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if n.count == 4, !word.isEmpty { words.append(TextWord(text: word, box: place((n[0], n[1], n[2], n[3])))) }
            return
        }
        for child in items[5...] { collectWords(child, depth: depth + 1, into: &words, place) }
    }

    static func string(_ exp: miniexp_t?) -> String? {
        guard miniexp_stringp(exp) != 0, let s = miniexp_to_str(exp) else { return nil }
        return String(cString: s)
    }

    static func symbol(_ exp: miniexp_t?) -> String? {
        guard miniexp_symbolp(exp) != 0, let s = miniexp_to_name(exp) else { return nil }
        return String(cString: s)
    }

    /// The items of a list.
    static func list(_ exp: miniexp_t?) -> [miniexp_t?] {
        var items: [miniexp_t?] = []
        var rest = exp
        while miniexp_consp(rest) != 0 {
            items.append(miniexp_car(rest))
            rest = miniexp_cdr(rest)
        }
        return items
    }
}
