import FolioBook

/// What a comic archive's `ComicInfo.xml` (ComicRack's schema, which comic tools and shops
/// write) says of the book: its title from its series, number and title, its writer, and
/// whether it reads right to left (`<Manga>YesAndRightToLeft</Manga>`: a manga turned the
/// wrong way otherwise). Read by looking for those few elements' text, entities decoded, in
/// at most `limit` bytes: nothing is expanded, fetched or nested.
struct ComicInfo: Equatable {
    /// The largest `ComicInfo.xml` read.
    static let limit = 1 << 20

    var title: String?
    var author: String?
    var direction: ReadingDirection = .ltr
    /// The pictures its `<Pages>` mark `DoublePage="True"` (by their place among the pictures,
    /// 0 the first); nil where it marks none, which comic tools leave unsaid as often as not.
    var doublePages: Set<Int>?

    /// Whether an archive's entry is the book's ComicInfo (at its root, any case).
    static func names(_ entry: String) -> Bool { entry.lowercased() == "comicinfo.xml" }

    init(title: String? = nil, author: String? = nil, direction: ReadingDirection = .ltr) {
        (self.title, self.author, self.direction) = (title, author, direction)
    }

    init(xml bytes: [UInt8]) {
        let text = String(decoding: bytes.prefix(Self.limit), as: UTF8.self)
        let value = { (name: String) in Self.element(name, in: text) }
        let series = value("Series"), number = value("Number"), own = value("Title")
        var title = series.map { s in number.map { "\(s) #\($0)" } ?? s }
        if let own { title = title.map { "\($0): \(own)" } ?? own }
        self.init(title: title, author: value("Writer"),
                  direction: value("Manga")?.lowercased() == "yesandrighttoleft" ? .rtl : .ltr)
        doublePages = Self.doublePages(in: text)
    }

    /// The `Image` numbers of the `<Page>` elements marked `DoublePage="True"`; nil for none.
    static func doublePages(in text: String) -> Set<Int>? {
        var pages = Set<Int>()
        for tag in text.components(separatedBy: "<Page ").dropFirst() {
            let attributes = tag.prefix { $0 != ">" }
            guard attribute("DoublePage", in: attributes)?.lowercased() == "true",
                  let image = attribute("Image", in: attributes).flatMap({ Int($0) }), image >= 0 else { continue }
            pages.insert(image)
        }
        return pages.isEmpty ? nil : pages
    }

    /// The value of attribute `name` in a tag's attributes (quoted either way).
    private static func attribute(_ name: String, in attributes: Substring) -> String? {
        for quote in ["\"", "'"] {
            guard let start = attributes.range(of: " \(name)=\(quote)") ?? (attributes.hasPrefix("\(name)=\(quote)") ? attributes.range(of: "\(name)=\(quote)") : nil),
                  let end = attributes[start.upperBound...].firstIndex(of: Character(quote)) else { continue }
            return String(attributes[start.upperBound..<end])
        }
        return nil
    }

    /// The text of the first `<name>` element of `text` (no attributes read), trimmed, entities
    /// decoded; nil when absent or empty.
    static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"),
              let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        let raw = text[open.upperBound..<close.lowerBound].split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let decoded = decode(raw)
        return decoded.isEmpty || decoded.count > 500 ? nil : decoded
    }

    /// XML's five named entities and character references; any other `&` stays as written.
    static func decode(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = "", rest = Substring(s)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[amp...]
            guard let semi = tail.prefix(12).firstIndex(of: ";") else {
                out += "&"
                rest = tail.dropFirst()
                continue
            }
            let entity = tail[tail.index(after: amp)..<semi]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"][String(entity)]
            let number = entity.hasPrefix("#x") || entity.hasPrefix("#X") ? UInt32(entity.dropFirst(2), radix: 16)
                : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
            if let replaced = named ?? number.flatMap(Unicode.Scalar.init).map({ String(Character($0)) }) {
                out += replaced
                rest = tail[tail.index(after: semi)...]
            } else {
                out += "&"
                rest = tail.dropFirst()
            }
        }
        return out + rest
    }
}
