import Foundation

/// One page image of a book, by what it is: an image file (PNG, JPEG), or page `index` (from
/// 0) of a document a registered format opens. Passed around as this value; spelled
/// `path#page=N` (N = index + 1, the fragment PDF readers take) only where a person reads or
/// writes it: manifests, messages, `folio info --pages`.
public enum PageRef: Sendable, Hashable, CustomStringConvertible {
    case image(String)
    case document(String, index: Int)

    /// The file the page is in.
    public var path: String {
        switch self {
        case let .image(p), let .document(p, _): p
        }
    }

    /// The document and page index; nil for an image file.
    public var documentPage: (path: String, index: Int)? {
        guard case let .document(path, index) = self else { return nil }
        return (path, index)
    }

    /// How a person writes it: the file's path, or `path#page=N`.
    public var description: String {
        switch self {
        case let .image(p): p
        case let .document(p, i): "\(p)#page=\(i + 1)"
        }
    }

    /// The page a person named: `path#page=N` of a document a registered format opens, else
    /// the image file `name` (an existing file whose name merely ends like `#page=N` is one).
    public init(named name: String) {
        if let hash = name.range(of: "#page=", options: .backwards), let n = Int(name[hash.upperBound...]), n >= 1,
           PageSources.format(of: String(name[..<hash.lowerBound])) != nil, !FileManager.default.fileExists(atPath: name) {
            self = .document(String(name[..<hash.lowerBound]), index: n - 1)
        } else {
            self = .image(name)
        }
    }
}
