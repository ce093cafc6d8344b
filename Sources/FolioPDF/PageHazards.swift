import CPoppler
import Foundation

/// Finds the pages poppler (22.12, cairo) would draw with no bound but memory, and cannot stop
/// part-way, so that such a page is not handed to it:
/// - Type 3 glyphs that draw, through fonts, tiling patterns and forms, a glyph of a Type 3
///   font they are themselves drawn in (3.5 GB for one page of pdf.js's
///   `ContentStreamCycleType3insideType3.pdf`);
/// - forms and patterns that draw each other more than `maxDraws` times in all (a form drawing
///   the next twice, 36 deep: 2^36 draws);
/// - a function-based shading (type 1) whose matrix turns or mirrors it: poppler's cairo
///   backend steps through its domain by the matrix's inverse applied to (10, 10), which is
///   then 0 or negative on one axis, adding mesh patches for ever (pdf.js's
///   `function_based_shading.pdf`: 1.75 GB within 5 s, never done), or that would take more
///   than `maxPatches` patches;
/// - a JBIG2 stream whose page is larger than `maxJBIG2Pixels` (poppler decodes the whole page
///   bitmap first: pdf.js's `bomb_giant.pdf`, three content streams of 100,000 × 100,000).
///
/// A light reader of the file's objects, enough for those questions: objects are found by
/// scanning for `N G obj` (no cross-reference table needed), in object streams too; streams are
/// read raw or Flate-compressed. Files that name none of these (nor hide objects in object
/// streams) are not read further. Bounded: a stream inflates to at most 16 MiB and a page's
/// walk visits at most 4096 streams, 64 deep; past a bound the page is taken as having no
/// hazard. Does not: decrypt (an encrypted file's streams read as empty), read other filters,
/// or tell which glyphs a page shows (every glyph of a font shown counts).
final class PageHazards: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private let path: String
    private var reader: ObjectReader??
    /// Font, form and pattern streams known to lead into no hazard (`node` keys), across pages.
    private var clean: Set<String> = []
    private var known: [Int: String?] = [:]

    /// Form, pattern and glyph drawings one page may make in all.
    static let maxDraws = 1 << 20
    /// Mesh patches one function-based shading may take.
    static let maxPatches = 1 << 18
    /// Pixels of a JBIG2 page (1 bit each; poppler's cairo backend takes a byte each).
    static let maxJBIG2Pixels = 1 << 28

    init(path: String) { self.path = path }

    /// Why page `index` (0-based) is not to be drawn, in a reader's words; nil when it may be.
    func refusal(onPage index: Int) -> String? {
        lock.withLock {
            if let k = known[index] { return k }
            if reader == nil { reader = .some(ObjectReader(path: path)) }
            guard let r = reader ?? nil, let page = r.page(index) else { return nil }
            var walk = Walk(reader: r, clean: clean)
            var found = page.parts.lazy.compactMap(r.jbig2Refusal).first
            found = found ?? walk.draws(page.content, resources: page.resources, owner: "page")
            if found == nil {
                var count = DrawCount(reader: r)
                if count.draws(page.content, resources: page.resources, owner: "page") > Self.maxDraws {
                    found = "not drawn: its forms and patterns draw each other more than \(Self.maxDraws) times"
                }
            }
            clean = walk.clean
            known[index] = found
            return found
        }
    }

    /// One page's walk: depth-first through what each content stream draws, the fonts,
    /// patterns and forms on the way marked grey until left.
    private struct Walk {
        let reader: ObjectReader
        var clean: Set<String>
        var grey: [String] = []
        var visits = 0

        init(reader: ObjectReader, clean: Set<String>) {
            self.reader = reader
            self.clean = clean
        }

        /// What makes `content`, drawn with `resources` (whose owner is `owner`), a page not to
        /// draw: a Type 3 font already being drawn, a shading or a JBIG2 image on the way.
        mutating func draws(_ content: [UInt8], resources: [String: PDFValue], owner: String) -> String? {
            // Nested deeper than any real glyph, form or pattern: not followed (the stack is bounded).
            guard grey.count < 64 else { return nil }
            for use in ContentUses.scan(content) {
                visits += 1
                guard visits < 4096 else { return nil }
                let (kind, name) = use
                guard case let .dict(group)? = resources[kind].map(reader.resolve), let ref = group[name] else { continue }
                let object = reader.resolve(ref)
                if kind == "Shading" {
                    if let why = reader.shadingRefusal(object) { return why }
                    continue
                }
                guard let key = ref.refNumber.map(String.init) else { continue }
                switch kind {
                case "Font":
                    guard case let .dict(font) = object, font["Subtype"] == .name("Type3") else { continue }
                    // Glyphs without resources of their own use those they are drawn with.
                    let own = font["Resources"].map(reader.resolve)
                    let node = "font \(key)" + (own == nil ? " in \(owner)" : "")
                    if grey.contains(where: { $0.hasPrefix("font \(key)") }) { return "not drawn: its Type 3 glyphs draw themselves in a cycle" }
                    if clean.contains(node) { continue }
                    grey.append(node)
                    var glyphs: [PDFValue] = []
                    if case let .dict(procs)? = font["CharProcs"].map(reader.resolve) { glyphs = Array(procs.values) }
                    let res: [String: PDFValue] = if case let .dict(d)? = own { d } else { resources }
                    for g in glyphs {
                        if let data = reader.streamData(g), let why = draws(data, resources: res, owner: node) { return why }
                    }
                    grey.removeLast()
                    clean.insert(node)
                case "XObject", "Pattern":
                    if case let .dict(pattern) = object, let shading = pattern["Shading"] {
                        if let why = reader.shadingRefusal(reader.resolve(shading)) { return why }
                        continue
                    }
                    if let why = reader.jbig2Refusal(ref) { return why }
                    // Forms and tiling patterns have content; images do not (nor are they inflated).
                    guard case let .stream(dict, _) = object, dict["Subtype"] != .name("Image"),
                          let data = reader.streamData(ref) else { continue }
                    let own = dict["Resources"].map(reader.resolve)
                    let node = "\(kind) \(key)" + (own == nil ? " in \(owner)" : "")
                    if grey.contains(node) || clean.contains(node) { continue }
                    grey.append(node)
                    let res: [String: PDFValue] = if case let .dict(d)? = own { d } else { resources }
                    if let why = draws(data, resources: res, owner: node) { return why }
                    grey.removeLast()
                    clean.insert(node)
                default: continue
                }
            }
            return nil
        }
    }

    /// How many form, pattern and glyph drawings one page makes, each stream's count worked
    /// out once (a form drawn twice by each of 36 nested forms is 2^36 drawings, counted in 36
    /// steps); a stream drawing itself counts once, and a Type 3 font's glyphs once for each
    /// stream that sets it (TeX's bitmap fonts are set again for every word). Stops counting
    /// past `maxDraws`.
    private struct DrawCount {
        let reader: ObjectReader
        var counted: [String: Int] = [:]
        var grey: Set<String> = []

        init(reader: ObjectReader) { self.reader = reader }

        mutating func draws(_ content: [UInt8], resources: [String: PDFValue], owner: String) -> Int {
            guard grey.count < 64, counted.count < 4096 else { return 0 }
            var total = 0, fonts: Set<String> = []
            for (kind, name) in ContentUses.scan(content) where kind != "Shading" {
                guard case let .dict(group)? = resources[kind].map(reader.resolve), let ref = group[name],
                      let key = ref.refNumber.map(String.init), kind != "Font" || fonts.insert(key).inserted else { continue }
                let object = reader.resolve(ref)
                var streams: [PDFValue] = [], own: PDFValue?
                if kind == "Font" {
                    guard case let .dict(font) = object, font["Subtype"] == .name("Type3") else { continue }
                    if case let .dict(procs)? = font["CharProcs"].map(reader.resolve) { streams = Array(procs.values) }
                    own = font["Resources"].map(reader.resolve)
                } else {
                    guard case let .stream(dict, _) = object, dict["Subtype"] != .name("Image") else { continue }
                    streams = [ref]
                    own = dict["Resources"].map(reader.resolve)
                }
                let node = "\(kind) \(key)" + (own == nil ? " in \(owner)" : "")
                if !grey.contains(node), counted[node] == nil {
                    grey.insert(node)
                    let res: [String: PDFValue] = if case let .dict(d)? = own { d } else { resources }
                    var sum = streams.count
                    for s in streams {
                        guard let data = reader.streamData(s) else { continue }
                        sum = min(PageHazards.maxDraws + 1, sum + draws(data, resources: res, owner: node))
                    }
                    counted[node] = sum
                    grey.remove(node)
                }
                total = min(PageHazards.maxDraws + 1, total + (counted[node] ?? 1))
            }
            return total
        }
    }
}

/// A PDF value as the light reader sees it.
indirect enum PDFValue: Equatable {
    case null, bool(Bool), number(Double), name(String), string, array([PDFValue]), dict([String: PDFValue]), ref(Int)
    /// A stream's dictionary and where its data begins in the file.
    case stream([String: PDFValue], Int)

    var refNumber: Int? {
        if case let .ref(n) = self { return n }
        return nil
    }
}
