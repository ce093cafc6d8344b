/// A field of a form on a page (a PDF's AcroForm): where it lies, what it holds, and whether it
/// may be changed.
public struct FormField: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case text(String)
        case check(Bool)
        /// The items offered and the one chosen.
        case choice([String], chosen: Int?)
    }

    /// The document's own number for it, the same in every copy of the document opened.
    public var id: Int
    public var name: String
    /// Fractions of the book's paper.
    public var box: PageRegion
    public var kind: Kind
    public var readOnly: Bool

    public init(id: Int, name: String, box: PageRegion, kind: Kind, readOnly: Bool) {
        (self.id, self.name, self.box, self.kind, self.readOnly) = (id, name, box, kind, readOnly)
    }
}

/// What a reader put in a field.
public enum FormValue: Sendable, Hashable {
    case text(String)
    case check(Bool)
    case choice(Int)

    /// Written as the state store keeps it: "t:…", "c:1", "i:3".
    public var stored: String {
        switch self {
        case let .text(s): "t:" + s
        case let .check(on): on ? "c:1" : "c:0"
        case let .choice(i): "i:\(i)"
        }
    }

    public init?(stored: String) {
        let body = String(stored.dropFirst(2))
        switch stored.prefix(2) {
        case "t:": self = .text(body)
        case "c:": self = .check(body == "1")
        case "i:": guard let i = Int(body), i >= 0 else { return nil }; self = .choice(i)
        default: return nil
        }
    }
}

/// A document whose pages carry fields a reader fills. Values filled are shown as its pages are
/// drawn again and written only into a copy (`saveFilled`), never into the file opened.
public protocol FillableSource: PageSource {
    /// The fields on page `index`.
    func fields(page index: Int) -> [FormField]
    /// Field `id` holds `value` from now on, in this document open.
    func fill(_ id: Int, with value: FormValue)
    /// Writes the document with its values filled to the new file `path`.
    func saveFilled(to path: String) throws
}
