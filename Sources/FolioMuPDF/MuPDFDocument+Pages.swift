import CMuPDFBridge
import FolioBook
import FolioImage
import Foundation
import Synchronization

/// Where a page of the book is and what it shows: places and positions in the text, the pages
/// drawn, and what the book says about itself (its words, links and outline).
extension MuPDFDocument {
    var direction: ReadingDirection { info.right_to_left != 0 ? .rtl : .ltr }

    /// Whether the book is laid out by Folio (its page count depends on the text size).
    var reflowable: Bool { info.reflowable != 0 && info.pre_paginated == 0 }

    /// Whether `place` is a page of this layout: its text size and page shape (a book with fixed
    /// pages holds every place of its own).
    func holds(_ place: TextPlace) -> Bool {
        !reflowable || place.fontSize == fontSize && (place.pageAspect ?? pageAspect) == pageAspect
    }

    func page(of place: TextPlace) -> Int? {
        guard !holds(place) else {
            return (0..<pageCount).contains(place.page) || pagesEstimated && place.page >= 0 ? place.page : nil
        }
        return position(of: place).flatMap(page(at:))
    }

    /// Where `place` is in the text: its own `TextPosition`, the one this layout was made to keep,
    /// or that of its page in a copy of the book laid out as it says (only as far as the place).
    func position(of place: TextPlace) -> TextPosition? {
        if let text = place.text { return text }
        if let kept = kept.withLock({ $0 }), kept.place == place { return kept.text }
        if holds(place) { return textPosition(ofPage: place.page) }
        return try? MuPDFDocument(path: path, fontSize: place.fontSize, pageAspect: place.pageAspect ?? pageAspect, typography: typography,
                                  extent: LayoutExtent(pages: place.page + 1))
            .textPosition(ofPage: place.page)
    }

    func textPosition(ofPage index: Int, drawingAtMost limit: Int) -> TextPosition? {
        guard reflowable, index >= 0, index < pageCount || pagesEstimated else { return nil }
        var inChapter: Int32 = 0, chapterPages: Int32 = 0
        let chapter = Int(folio_mu_chapter_of(doc, Int32(index), &inChapter, &chapterPages))
        guard chapter >= 0 else { return nil }
        let before = index - Int(inChapter)..<index
        let uncounted = limit < before.count ? characterCounts.withLock { counts in before.filter { counts[$0] == nil } } : []
        if uncounted.count > limit {
            // As many as allowed are counted now: asked again, it goes on from there.
            for page in uncounted.prefix(limit) { guard characters(page) != nil else { break } }
            return nil
        }
        var offset = 0
        for page in before {
            guard let n = characters(page) else { return nil }
            offset += n
        }
        return TextPosition(chapter: chapter, offset: offset)
    }

    /// The page holding `text` in this layout: the page of its chapter whose characters include
    /// it (the chapter's last page for a place past its end); nil when the chapter is not laid out.
    func page(at text: TextPosition) -> Int? {
        guard reflowable, let pages = chapterPages(text.chapter) else { return nil }
        var before = 0
        for page in pages {
            guard let n = characters(page) else { return nil }
            if before + n > text.offset { return page }
            before += n
        }
        return pages.last
    }

    /// The pages of chapter `chapter` in this layout; nil when there is no such chapter or it is
    /// not counted in this layout (a layout given up, or estimated, before it).
    func chapterPages(_ chapter: Int) -> Range<Int>? {
        guard chapter >= 0, chapter < laidOut.withLock({ $0.chapters }) else { return nil }
        var error = folio_mu_error()
        let n = Int(folio_mu_count_chapter_pages(doc, Int32(chapter), &error)), first = Int(folio_mu_chapter_page(doc, Int32(chapter), 0))
        return n > 0 && first >= 0 ? first..<first + n : nil
    }

    /// Characters drawn on page `index` (white space and hyphens not counted), counted once per layout.
    func characters(_ index: Int) -> Int? {
        if let n = characterCounts.withLock({ $0[index] }) { return n }
        var error = folio_mu_error()
        let n = Int(folio_mu_page_characters(doc, Int32(index), &error))
        guard n >= 0 else { return nil }
        characterCounts.withLock { $0[index] = n }
        return n
    }

    /// Where `old`'s pages went in this layout: unchanged at the same size and shape (the layout
    /// went further); else each old page to the new page holding its first character, counted
    /// for the pages about the place this layout kept, and elsewhere as far through the same
    /// chapter (counting every page would cost drawing the whole book twice).
    func mapping(from old: any ReflowableSource) -> PageMapping {
        guard let old = old as? MuPDFDocument, old.path == path else { return .proportional(from: old.pageCount, to: pageCount) }
        // Fixed pages stay what they are, however far the layout went.
        guard reflowable, !holds(old.place(ofPage: 0)) || old.typography != typography else {
            return .extended(from: old.pageCount, to: pageCount)
        }
        var pages = [Int?](repeating: nil, count: old.pageCount)
        var ends = (old: 0, new: 0)
        for chapter in 0..<min(old.laidOut.withLock { $0.chapters }, laidOut.withLock { $0.chapters }) {
            guard let from = old.chapterPages(chapter), let to = chapterPages(chapter) else { continue }
            for page in from where page < pages.count {
                pages[page] = to.lowerBound + (page - from.lowerBound) * to.count / from.count
            }
            ends = (from.upperBound, to.upperBound)
        }
        // Chapters not laid out in both (an estimated layout's): the pages after in proportion.
        for page in ends.old..<max(pages.count, ends.old) {
            pages[page] = ends.new + (page - ends.old) * max(pageCount - ends.new, 0) / max(pages.count - ends.old, 1)
        }
        if let kept = kept.withLock({ $0 }), let shown = old.page(at: kept.text) {
            let band = max(shown - Self.mappedExactly, 0)..<min(shown + Self.mappedExactly + 1, pages.count)
            for page in band {
                if let text = old.textPosition(ofPage: page), let at = self.page(at: text) { pages[page] = at }
            }
            // Pages placed as far through their chapter keep the text's order with those counted.
            for page in (0..<band.lowerBound).reversed() { pages[page] = pages[page].map { min($0, pages[page + 1] ?? $0) } }
            for page in band.upperBound..<pages.count where page > 0 { pages[page] = pages[page].map { max($0, pages[page - 1] ?? $0) } }
        }
        return PageMapping(pageCount: pageCount, pages: pages)
    }

    /// Old pages either side of the kept place whose new page is found by their characters:
    /// those a turn under way or queued when the layout lands is likely to head for.
    static let mappedExactly = 8

    /// Page `index`'s box in points, or why it has none.
    func bounds(_ index: Int) throws -> (x0: Double, y0: Double, width: Double, height: Double) {
        guard (0..<pageCount).contains(index) else { throw PageError.invalid(path: path, message: "has no page \(index + 1)") }
        var error = folio_mu_error()
        var box: [Float] = [0, 0, 0, 0]
        guard folio_mu_bounds(doc, Int32(index), &box, &error) == 0 else {
            throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))")
        }
        let w = Double(box[2] - box[0]), h = Double(box[3] - box[1])
        guard w > 0, h > 0, w.isFinite, h.isFinite else { throw PageError.invalid(path: path, message: "page \(index + 1) has no size") }
        return (Double(box[0]), Double(box[1]), w, h)
    }

    /// A reflowable page's size is its paper's (the text block and Folio's margins).
    func pageSize(_ index: Int) -> (width: Double, height: Double)? {
        guard let b = try? bounds(index) else { return nil }
        return frame.map { ($0.width, $0.height) } ?? (b.width, b.height)
    }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let b: (x0: Double, y0: Double, width: Double, height: Double)
        do { b = try bounds(index) } catch where pagesEstimated {
            // Past the end of a book whose count was estimated too high: paper until the
            // whole layout gives the count.
            return PageRender(image: RGBAImage(width: 1, height: 1, fill: paper).onPaper(aspect: aspect), scalable: true)
        }
        let aspect = aspect
        if let frame {
            // The paper whole: the text block at its place in Folio's margins.
            let size = fit.fitting(aspect: aspect)
            let scale = Double(size.width) / frame.width
            let image = try rasterise(index, width: size.width, height: size.height,
                                      offset: (frame.blockLeft(onRight: onRight(index)) * scale, frame.top * scale), scale: (scale, scale))
            return PageRender(image: image, scalable: true)
        }
        let size = fit.fitting(aspect: aspect).fitting(aspect: b.width / b.height)
        let scale = Double(size.width) / b.width
        let image = try rasterise(index, width: size.width, height: size.height, offset: (0, 0), scale: (scale, scale))
        return PageRender(image: image.onPaper(aspect: aspect), scalable: true)
    }

    var rendersCrops: Bool { true }

    func render(page index: Int, crop: PageCrop, paperAspect: Double) throws -> RGBAImage? {
        let b = try bounds(index)
        let onPaper = placement(b, index, paperAspect: paperAspect)
        let fw = Double(crop.full.width), fh = Double(crop.full.height)
        return try rasterise(index, width: crop.width, height: crop.height,
                             offset: (onPaper.x0 * fw - Double(crop.x), onPaper.y0 * fh - Double(crop.y)),
                             scale: (onPaper.width * fw / b.width, onPaper.height * fh / b.height))
    }

    /// Where page `index`'s box (`b`) lies on paper of `paperAspect`, as `render` places it: a
    /// reflowable page's text block in its margins.
    func placement(_ b: (x0: Double, y0: Double, width: Double, height: Double), _ index: Int, paperAspect: Double) -> PageRegion {
        let inner = frame?.blockRegion(onRight: onRight(index)) ?? RGBAImage.placement(own: b.width / b.height, onPaper: aspect)
        return RGBAImage.placement(own: aspect, onPaper: paperAspect).placing(inner)
    }

    /// What a page is printed on: a reflowable book's text on Folio's blank paper, as the book's
    /// blank faces are (the theme recolours both alike); pages of their own (XPS, fixed layout)
    /// on white, as they were made.
    var paper: (UInt8, UInt8, UInt8, UInt8) { reflowable ? RGBAImage.blankPaper : (255, 255, 255, 255) }

    /// A render's stop flag, freed once neither the render nor its timer holds it.
    private final class Stop: @unchecked Sendable {
        // @unchecked: the cookie is MuPDF's, made to be aborted from another thread.
        let cookie = folio_mu_new_cookie()
        deinit { folio_mu_drop_cookie(cookie) }
    }

    func rasterise(_ index: Int, width: Int, height: Int, offset: (x: Double, y: Double), scale: (x: Double, y: Double)) throws -> RGBAImage {
        var error = folio_mu_error()
        // A page still drawing after the decode timeout is stopped, so its thread is free again.
        let stop = Stop(), seconds = PageSources.decodeTimeout
        let timer = DispatchWorkItem { folio_mu_abort(stop.cookie) }
        if seconds > 0 { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer) } else { timer.perform() }
        defer { timer.cancel() }
        var status: Int32 = 0
        // Not filled here: the bridge paints the paper over the pool's buffer (one pass, not two).
        let rgb = UInt32(paper.0) << 16 | UInt32(paper.1) << 8 | UInt32(paper.2)
        var pixels = PixelPool.shared.take(count: width * height * 4)
        let lines = furniture(index)
        func draw(_ furniture: UnsafePointer<folio_mu_furniture>?) {
            pixels.withUnsafeMutableBufferPointer { bytes in
                status = folio_mu_render(doc, Int32(index), Float(scale.x), Float(scale.y), Float(offset.x), Float(offset.y),
                                         Int32(width), Int32(height), bytes.baseAddress, rgb, furniture, stop.cookie, &error)
            }
        }
        if let lines, let frame {
            // Both lines at the page's outer corners, in a grey between the ink and the paper.
            let align: Int32 = lines.right ? 2 : 0
            lines.head.withCString { head in
                lines.foot.withCString { foot in
                    var furniture = folio_mu_furniture(
                        head: head, head_align: align, foot: foot, foot_align: align, left: 0, right: Float(frame.block.width),
                        head_y: Float(frame.headBaseline(fontSize: fontSize)), foot_y: Float(frame.footBaseline(fontSize: fontSize)),
                        size: Float(frame.furnitureSize(fontSize: fontSize)), ink: 0x5A5550)
                    draw(&furniture)
                }
            }
        } else {
            draw(nil)
        }
        guard status != -2 else { throw PageError.invalid(path: path, message: PageSources.abandoned(after: seconds)) }
        guard status == 0 else { throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))") }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    // MARK: What the book says about itself

    /// A box in points as fractions of the page's paper.
    func region(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float,
                        in b: (x0: Double, y0: Double, width: Double, height: Double), page index: Int) -> PageRegion {
        let onPaper = placement(b, index, paperAspect: aspect)
        return onPaper.placing(PageRegion(x0: (Double(x0) - b.x0) / b.width, y0: (Double(y0) - b.y0) / b.height,
                                          x1: (Double(x1) - b.x0) / b.width, y1: (Double(y1) - b.y0) / b.height))
    }

    func text(page index: Int) throws -> PageText? {
        let b = try bounds(index)
        var error = folio_mu_error()
        var words: UnsafeMutablePointer<folio_mu_word>?
        let n = Int(folio_mu_words(doc, Int32(index), &words, &error))
        guard n >= 0 else { throw PageError.invalid(path: path, message: "page \(index + 1): \(Self.words(error))") }
        defer { folio_mu_free_words(words, Int32(n)) }
        guard n > 0, let words else { return nil }
        return PageText(words: (0..<n).map { i in
            let w = words[i]
            return TextWord(text: String(cString: w.text), box: region(w.x0, w.y0, w.x1, w.y1, in: b, page: index))
        })
    }

    func links(page index: Int) -> [PageLink] {
        guard let b = try? bounds(index) else { return [] }
        var error = folio_mu_error()
        var links: UnsafeMutablePointer<folio_mu_link>?
        let n = Int(folio_mu_links(doc, Int32(index), &links, &error))
        defer { folio_mu_free_links(links, Int32(max(n, 0))) }
        guard n > 0, let links else { return [] }
        return (0..<n).compactMap { i in
            let l = links[i]
            let target: LinkTarget
            if let uri = l.uri {
                target = .uri(String(cString: uri))
            } else if l.page >= 0 || l.note != nil {
                // A note hidden from its page (a footnote's aside) is on none: the page referring to it.
                let page = l.page >= 0 ? Int(l.page) : index
                let inside = (0..<Int(l.note_link_count)).compactMap { k -> NoteLink? in
                    let n = l.note_links[k]
                    let target: LinkTarget? = if let uri = n.uri { .uri(String(cString: uri)) }
                        else if n.page < 0 { nil }
                        else { n.note.map { .note(page: Int(n.page), text: String(cString: $0)) } ?? .page(Int(n.page)) }
                    return target.map { NoteLink(label: String(cString: n.label), target: $0) }
                }
                target = l.note.map { .note(page: page, text: String(cString: $0), links: inside) } ?? .page(page)
            } else {
                return nil
            }
            return PageLink(box: region(l.x0, l.y0, l.x1, l.y1, in: b, page: index), target: target)
        }
    }

    var outline: [OutlineEntry] {
        var error = folio_mu_error()
        var entries: UnsafeMutablePointer<folio_mu_outline>?
        let n = Int(folio_mu_outline_entries(doc, &entries, &error))
        defer { folio_mu_free_outline(entries, Int32(max(n, 0))) }
        guard n > 0, let entries else { return [] }
        let flat = (0..<n).map { i in
            (depth: Int(entries[i].depth), entry: OutlineEntry(title: String(cString: entries[i].title), page: entries[i].page >= 0 ? Int(entries[i].page) : nil))
        }
        var i = 0
        return Self.tree(flat, depth: 0, at: &i)
    }

    /// The entries from `i` on at `depth`, each with the deeper ones after it as children.
    static func tree(_ flat: [(depth: Int, entry: OutlineEntry)], depth: Int, at i: inout Int) -> [OutlineEntry] {
        var level: [OutlineEntry] = []
        while i < flat.count, flat[i].depth >= depth {
            if flat[i].depth > depth, !level.isEmpty {
                level[level.count - 1].children = tree(flat, depth: flat[i].depth, at: &i)
            } else {
                level.append(flat[i].entry)
                i += 1
            }
        }
        return level
    }
}
