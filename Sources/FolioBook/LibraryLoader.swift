import Foundation

extension Library {
    /// Loads a library from a `Library.json`, a book manifest, a folder holding a
    /// `Library.json`, or a plain folder of images. Never throws: what cannot be read becomes
    /// a `Problem`, and everything else still loads.
    public static func load(from source: String) -> Library {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: source, isDirectory: &isDir) else {
            return Library(title: source, books: [], problems: [Problem(file: source, message: "no such file or folder")])
        }
        if isDir.boolValue {
            let manifest = (source as NSString).appendingPathComponent("Library.json")
            if fm.fileExists(atPath: manifest) { return loadManifest(manifest) }
            return loadFolder(source)
        }
        return loadManifest(source)
    }

    static func loadFolder(_ folder: String) -> Library {
        var problems: [Problem] = []
        let pages = imageFiles(in: folder, problems: &problems)
        let title = (folder as NSString).lastPathComponent
        return Library(title: title, books: [Book(title: title, pages: pages)], problems: problems)
    }

    /// The PNG files of a folder in natural order (page2 before page10); other files are noted.
    static func imageFiles(in folder: String, problems: inout [Problem]) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            problems.append(Problem(file: folder, message: "cannot list the folder (missing or no permission)"))
            return []
        }
        var images: [String] = []
        for name in names where !name.hasPrefix(".") {
            if name.lowercased().hasSuffix(".png") {
                images.append(name)
            } else {
                problems.append(Problem(file: (folder as NSString).appendingPathComponent(name), message: "skipped: not a PNG image"))
            }
        }
        return images.sorted { naturalLess($0, $1) }.map { (folder as NSString).appendingPathComponent($0) }
    }

    static func loadManifest(_ path: String) -> Library {
        let dir = (path as NSString).deletingLastPathComponent
        guard let data = FileManager.default.contents(atPath: path) else {
            return Library(title: path, books: [], problems: [Problem(file: path, message: "cannot read the manifest")])
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            return Library(title: path, books: [], problems: [Problem(file: path, message: "not valid JSON: \(error.localizedDescription)")])
        }
        guard let root = object as? [String: Any] else {
            return Library(title: path, books: [], problems: [Problem(file: path, message: "the top level must be an object")])
        }
        var problems: [Problem] = []
        let entries = (root["books"] as? [Any]) ?? [root]
        var books: [Book] = []
        for (i, entry) in entries.enumerated() {
            guard let b = entry as? [String: Any] else {
                problems.append(Problem(file: path, message: "books[\(i)] must be an object"))
                continue
            }
            books.append(book(from: b, index: i, base: dir, manifest: path, problems: &problems))
        }
        return Library(title: root["title"] as? String ?? (dir as NSString).lastPathComponent, books: books, problems: problems)
    }

    static func book(from b: [String: Any], index: Int, base: String, manifest: String, problems: inout [Problem]) -> Book {
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : (base as NSString).appendingPathComponent(p) }
        let title = b["title"] as? String ?? "Book \(index + 1)"
        var pages: [String] = []
        if let folder = b["pages"] as? String {
            pages = imageFiles(in: resolve(folder), problems: &problems)
        } else if let list = b["pages"] as? [Any] {
            pages = list.compactMap { ($0 as? String).map(resolve) }
        }
        var direction = ReadingDirection.ltr
        if let d = b["direction"] as? String {
            if let parsed = ReadingDirection(rawValue: d) { direction = parsed } else {
                problems.append(Problem(file: manifest, message: "books[\(index)].direction: expected \"ltr\" or \"rtl\", found \"\(d)\""))
            }
        }
        var w = Book.referencePageWidth, h = Book.referencePageHeight
        if let size = b["pageSize"] as? [Double], size.count == 2, size[0] > 0, size[1] > 0 { w = size[0]; h = size[1] }
        return Book(title: title, author: b["author"] as? String, cover: (b["cover"] as? String).map(resolve),
                    pages: pages, direction: direction, pageWidth: w, pageHeight: h)
    }
}

/// Natural order: runs of digits compare as numbers ("page2" < "page10").
public func naturalLess(_ a: String, _ b: String) -> Bool {
    var i = a.unicodeScalars.makeIterator(), j = b.unicodeScalars.makeIterator()
    var x = i.next(), y = j.next()
    func digits(_ first: inout Unicode.Scalar?, _ it: inout String.UnicodeScalarView.Iterator) -> String {
        var s = ""
        while let c = first, c.properties.numericType == .decimal { s.unicodeScalars.append(c); first = it.next() }
        return s
    }
    while let cx = x, let cy = y {
        if cx.properties.numericType == .decimal && cy.properties.numericType == .decimal {
            let dx = digits(&x, &i), dy = digits(&y, &j)
            let tx = dx.drop { $0 == "0" }, ty = dy.drop { $0 == "0" }
            if tx.count != ty.count { return tx.count < ty.count }
            if tx != ty { return tx < ty }
            continue
        }
        let lx = String(cx).lowercased(), ly = String(cy).lowercased()
        if lx != ly { return lx < ly }
        x = i.next(); y = j.next()
    }
    return x == nil && y != nil
}
