import FolioBook
import Foundation

/// What the reader wrote into a book: highlights and notes in the store's `highlights` table (a
/// reflowable book's by chapter and character offsets, a fixed page's by page index and line
/// boxes, `quads`: four numbers a box, fractions of the paper), and the values filled into its
/// form and not yet saved, in `book_settings` (`form.<field id>`). Each change is one transaction.
extension StateStore {
    /// The values filled into `book`'s form and not saved into a copy yet, by field.
    public func formValues(of book: Book) -> [Int: FormValue] {
        read { db in
            guard let id = try row(of: book, in: db) else { return [:] }
            let rows = try db.query("SELECT key, value FROM book_settings WHERE book = ? AND key LIKE 'form.%'", [.int(id)])
            return Dictionary(rows.compactMap { r in
                r[0].text.flatMap { Int($0.dropFirst(5)) }.flatMap { field in r[1].text.flatMap(FormValue.init(stored:)).map { (field, $0) } }
            }, uniquingKeysWith: { $1 })
        } ?? [:]
    }

    /// Keeps `value` as what field `field` of `book`'s form holds; false when it cannot be written.
    @discardableResult
    public func setFormValue(_ value: FormValue, field: Int, of book: Book) -> Bool {
        write { db in
            guard let id = try keptRow(of: book, in: db) else { return false }
            try db.query("INSERT OR REPLACE INTO book_settings (book, key, value) VALUES (?, ?, ?)", [.int(id), .text("form.\(field)"), .text(value.stored)])
            return true
        } ?? false
    }

    /// Forgets the values filled into `book`'s form (a copy was saved with them).
    public func clearFormValues(of book: Book) {
        _ = write { db in
            guard let id = try row(of: book, in: db) else { return }
            try db.query("DELETE FROM book_settings WHERE book = ? AND key LIKE 'form.%'", [.int(id)])
        }
    }

    /// `book`'s highlights in reading order (chapter and offset, or page and top).
    public func highlights(of book: Book) -> [Highlight] {
        read { db in
            guard let id = try row(of: book, in: db) else { return [] }
            return try db.query("SELECT id, chapter, start_offset, end_offset, page, quads, text, note, colour FROM highlights WHERE book = ?", [.int(id)])
                .compactMap(Highlight.init(row:)).sorted(by: Highlight.readingOrder)
        } ?? []
    }

    /// Keeps `highlight` (a new one, or one with the same anchor replaced) for `book`; its row,
    /// nil when the store cannot be written.
    @discardableResult
    public func add(_ highlight: Highlight, to book: Book) -> Int64? {
        add([highlight], to: book)?.first
    }

    /// Keeps `list` for `book` in one transaction, each replacing one of the same anchor (an
    /// import read twice adds nothing twice); their rows, nil when the store cannot be written.
    public func add(_ list: [Highlight], to book: Book) -> [Int64]? {
        write { db -> [Int64]? in
            guard let id = try keptRow(of: book, in: db) else { return nil }
            let kept = try db.query("SELECT id, chapter, start_offset, end_offset, page, quads, text, note, colour FROM highlights WHERE book = ?", [.int(id)])
                .compactMap(Highlight.init(row:))
            var rows: [Int64] = []
            for h in list {
                if let same = kept.first(where: { $0.anchor == h.anchor })?.id {
                    try db.query("DELETE FROM highlights WHERE id = ?", [.int(same)])
                }
                try db.query("""
                    INSERT INTO highlights (book, chapter, start_offset, end_offset, page, quads, text, note, colour, created)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%s', 'now'))
                    """, [.int(id)] + h.columns)
                rows.append(db.lastInsertedRow)
            }
            return rows
        } ?? nil
    }

    /// Changes highlight `id`'s colour and note; false when there is no such highlight or the
    /// store cannot be written.
    @discardableResult
    public func update(highlight id: Int64, colour: Highlight.Colour, note: String?) -> Bool {
        write { db in
            try db.query("UPDATE highlights SET colour = ?, note = ? WHERE id = ?", [.text(colour.rawValue), SQLValue(note), .int(id)])
            return db.changes > 0
        } ?? false
    }

    /// Takes highlight `id` away; false when there is none or the store cannot be written.
    @discardableResult
    public func remove(highlight id: Int64) -> Bool {
        write { db in
            try db.query("DELETE FROM highlights WHERE id = ?", [.int(id)])
            return db.changes > 0
        } ?? false
    }
}

extension Highlight {
    /// A row of `id, chapter, start_offset, end_offset, page, quads, text, note, colour`; nil for
    /// a row with neither anchor.
    init?(row: [SQLValue]) {
        guard row.count == 9 else { return nil }
        let anchor: Anchor
        if let chapter = row[1].int, let start = row[2].int, let end = row[3].int, start <= end {
            anchor = .text(chapter: chapter, start: start, end: end)
        } else if let page = row[4].int, let boxes = row[5].text.map(Self.boxes(quads:)), !boxes.isEmpty {
            anchor = .page(page, boxes: boxes)
        } else {
            return nil
        }
        self.init(id: row[0].int.map(Int64.init), anchor: anchor, text: row[6].text ?? "", note: row[7].text,
                  colour: row[8].text.flatMap(Colour.init(rawValue:)) ?? .yellow)
    }

    var columns: [SQLValue] {
        switch anchor {
        case let .text(chapter, start, end):
            [SQLValue(chapter), SQLValue(start), SQLValue(end), .null, .null, .text(text), SQLValue(note), .text(colour.rawValue)]
        case let .page(page, boxes):
            [.null, .null, .null, SQLValue(page), .text(Self.quads(boxes)), .text(text), SQLValue(note), .text(colour.rawValue)]
        }
    }

    /// Boxes written as numbers, four a box.
    public static func quads(_ boxes: [PageRegion]) -> String {
        boxes.map { "\($0.x0) \($0.y0) \($0.x1) \($0.y1)" }.joined(separator: " ")
    }

    /// Boxes read from `quads`; none when it is not groups of four numbers from 0 to 1.
    public static func boxes(quads: String) -> [PageRegion] {
        let n = quads.split(separator: " ").compactMap { Double($0) }
        guard n.count % 4 == 0, n.count <= 4 * 4096, n.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { return [] }
        return stride(from: 0, to: n.count, by: 4).map { PageRegion(x0: n[$0], y0: n[$0 + 1], x1: n[$0 + 2], y1: n[$0 + 3]) }
    }

    /// Reading order: a reflowable book's by chapter and offset, a fixed book's by page and the
    /// top of the first line.
    public static func readingOrder(_ a: Highlight, _ b: Highlight) -> Bool {
        switch (a.anchor, b.anchor) {
        case let (.text(c1, s1, _), .text(c2, s2, _)): (c1, s1) < (c2, s2)
        case let (.page(p1, b1), .page(p2, b2)): (p1, b1.first?.y0 ?? 0, b1.first?.x0 ?? 0) < (p2, b2.first?.y0 ?? 0, b2.first?.x0 ?? 0)
        case (.text, .page): true
        case (.page, .text): false
        }
    }
}
