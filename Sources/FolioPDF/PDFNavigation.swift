import CPoppler
import FolioBook
import FolioImage
import Foundation

/// What a PDF says about itself beyond its pictures, through poppler (author and page labels
/// are in PDF.swift): its outline, words with their boxes and links. Places are fractions of the paper the page is
/// drawn on, as `render` places it (a page of another shape is centred on the book's paper).
extension PDFDocument {
    /// Outline entries read at most: a damaged or hostile outline (a loop, a million entries)
    /// costs a bounded walk.
    static let maxOutlineEntries = 10_000
    /// Outline levels read at most.
    static let maxOutlineDepth = 32

    var outline: [OutlineEntry] {
        withHandle { doc in
            guard let iter = poppler_index_iter_new(doc) else { return [] }
            defer { poppler_index_iter_free(iter) }
            var budget = Self.maxOutlineEntries
            return entries(iter, doc: doc, depth: 0, budget: &budget)
        }
    }

    /// The entries at `iter`'s level and below, `budget` entries at most in all.
    private func entries(_ iter: OpaquePointer, doc: OpaquePointer, depth: Int, budget: inout Int) -> [OutlineEntry] {
        var list: [OutlineEntry] = []
        repeat {
            guard budget > 0 else { break }
            budget -= 1
            var entry = OutlineEntry(title: "", page: nil)
            if let action = poppler_index_iter_get_action(iter) {
                entry.title = Self.string(action.pointee.any.title, free: false) ?? ""
                entry.page = target(of: action, doc: doc)
                poppler_action_free(action)
            }
            if depth + 1 < Self.maxOutlineDepth, let child = poppler_index_iter_get_child(iter) {
                entry.children = entries(child, doc: doc, depth: depth + 1, budget: &budget)
                poppler_index_iter_free(child)
            }
            list.append(entry)
        } while poppler_index_iter_next(iter) != 0
        return list
    }

    /// The page index an action goes to in this document; nil for any other action, and for
    /// a destination that names no page of it.
    private func target(of action: UnsafeMutablePointer<PopplerAction>, doc: OpaquePointer) -> Int? {
        guard action.pointee.type == POPPLER_ACTION_GOTO_DEST, let dest = action.pointee.goto_dest.dest else { return nil }
        var number = Int(dest.pointee.page_num)
        if dest.pointee.type == POPPLER_DEST_NAMED {
            guard let name = dest.pointee.named_dest, let found = poppler_document_find_dest(doc, name) else { return nil }
            number = Int(found.pointee.page_num)
            poppler_dest_free(found)
        }
        return (1...max(1, pageCount)).contains(number) && pageCount > 0 ? number - 1 : nil
    }

    func text(page index: Int) throws -> PageText? {
        try withPage(index, forText: true) { page, w, h in
            guard let chars = poppler_page_get_text(page) else { return nil }
            defer { g_free(chars) }
            var rects: UnsafeMutablePointer<PopplerRectangle>?
            var count: guint = 0
            guard poppler_page_get_text_layout(page, &rects, &count) != 0, let rects else { return nil }
            defer { g_free(rects) }
            let text = String(cString: chars)
            let place = paperPlace(w, h)
            var words: [TextWord] = []
            var word = "", box: PageRegion?
            func end() {
                if let b = box, !word.isEmpty { words.append(TextWord(text: word, box: place(b))) }
                (word, box) = ("", nil)
            }
            // One rectangle per character of the text, in points from the page's top left.
            for (i, c) in text.unicodeScalars.enumerated() {
                guard i < Int(count) else { break }
                // Most text is ASCII: its white space is known without Unicode's tables.
                if c.isASCII ? c == " " || (0x09...0x0D).contains(c.value) : c.properties.isWhitespace { end(); continue }
                let r = rects[i]
                let b = PageRegion(x0: min(r.x1, r.x2), y0: min(r.y1, r.y2), x1: max(r.x1, r.x2), y1: max(r.y1, r.y2))
                word.unicodeScalars.append(c)
                box = box.map { PageRegion(x0: min($0.x0, b.x0), y0: min($0.y0, b.y0), x1: max($0.x1, b.x1), y1: max($0.y1, b.y1)) } ?? b
            }
            end()
            return words.isEmpty ? nil : PageText(words: words)
        }
    }

    func links(page index: Int) -> [PageLink] {
        (try? withPage(index) { doc, page, w, h in
            guard let mapping = poppler_page_get_link_mapping(page) else { return [] }
            defer { poppler_page_free_link_mapping(mapping) }
            let place = paperPlace(w, h)
            return Self.items(of: mapping, as: PopplerLinkMapping.self).compactMap { m -> PageLink? in
                guard let action = m.action else { return nil }
                let goes: LinkTarget
                if action.pointee.type == POPPLER_ACTION_URI, let uri = Self.string(action.pointee.uri.uri, free: false) {
                    goes = .uri(uri)
                } else if let page = target(of: action, doc: doc) {
                    goes = .page(page)
                } else {
                    return nil
                }
                return PageLink(box: place(Self.box(m.area, pageHeight: h)), target: goes)
            }
        }) ?? []
    }

    /// The items of a list poppler made (a page's links, its form fields), at most `maxOutlineEntries`.
    static func items<T>(of list: UnsafeMutablePointer<GList>, as: T.Type) -> [T] {
        var items: [T] = []
        var node: UnsafeMutablePointer<GList>? = list
        while let n = node, items.count < maxOutlineEntries {
            node = n.pointee.next
            if let item = n.pointee.data?.assumingMemoryBound(to: T.self).pointee { items.append(item) }
        }
        return items
    }

    /// An area in PDF space (y up from the page's bottom) as a box in the page's points, y down.
    static func box(_ a: PopplerRectangle, pageHeight h: Double) -> PageRegion {
        PageRegion(x0: min(a.x1, a.x2), y0: h - max(a.y1, a.y2), x1: max(a.x1, a.x2), y1: h - min(a.y1, a.y2))
    }

    /// Maps a box in a page's points (w × h, y down) to fractions of the book's paper.
    func paperPlace(_ w: Double, _ h: Double) -> (PageRegion) -> PageRegion {
        let on = RGBAImage.placement(own: w / h, onPaper: aspect)
        return { b in
            on.placing(PageRegion(x0: b.x0 / w, y0: b.y0 / h, x1: b.x1 / w, y1: b.y1 / h))
        }
    }

    /// A string poppler gave (freed unless `free` is false), nil when empty.
    static func string(_ s: UnsafeMutablePointer<gchar>?, free: Bool = true) -> String? {
        guard let s else { return nil }
        defer { if free { g_free(s) } }
        let t = String(cString: s).trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }
}
