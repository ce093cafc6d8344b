import FolioBook
import FolioReader
import Foundation

/// A PDF's form in the viewer: a click on a text field opens the entry line on its text (the
/// keyboard belongs to the field until Enter keeps it or Escape leaves it), a click on a check
/// box ticks or clears it, one on a list of choices steps to the next. Values are kept in the
/// state store until Ctrl+S writes a filled copy beside the original, never over it. Does not:
/// read or write the fields (the document does, `FillableSource`).
final class FormFilling: PipelinePart {
    /// The field being typed into: its id and the page image it is on.
    private var typing: (field: Int, image: Int)?

    /// A book opened: its document gets the values filled in earlier runs.
    override func update(at now: Double) { whenABookOpens(restoreValues(of:)) }

    /// Escape on the entry line: the field is left as it was.
    func cancel() { typing = nil }

    /// The open book's document when its pages carry a form, and the page of image `image`.
    private func fillable(image: Int) -> (book: Book, source: any FillableSource, page: Int)? {
        guard let b = p.controller.book, p.library.books[b].pages.indices.contains(image),
              let (path, page) = p.library.books[b].pages[image].documentPage,
              let source = (try? p.configuration.documents.open(path)) as? any FillableSource else { return nil }
        return (p.library.books[b], source, page)
    }

    /// A click at `point` of a page: true when it met a form field (used up, no page turns).
    func clicked(_ point: PagePoint, at now: Double) -> Bool {
        guard let (book, source, page) = fillable(image: point.image),
              let field = source.fields(page: page).last(where: { $0.box.contains(x: point.x, y: point.y) }) else { return false }
        guard !field.readOnly else {
            p.showNotice("“\(field.name)” cannot be changed")
            return true
        }
        switch field.kind {
        case let .text(text):
            guard p.configuration.showsLayer else { return true }
            typing = (field.id, point.image)
            p.layer.openField(.form, with: text)
            p.layer.fade.show(at: now)
            p.needsRender = true
        case let .check(on):
            fill(field.id, with: .check(!on), of: book, in: source, image: point.image)
        case let .choice(items, chosen):
            guard !items.isEmpty else { return true }
            let next = ((chosen ?? -1) + 1) % items.count
            fill(field.id, with: .choice(next), of: book, in: source, image: point.image)
            p.titleNote = "“\(field.name)”: \(items[next])"
        }
        return true
    }

    /// Enter on the form's entry line: the text kept in its field.
    func keep(_ text: String) {
        p.layer.closeField()
        guard let (id, image) = typing, let (book, source, _) = fillable(image: image) else { return }
        typing = nil
        fill(id, with: .text(text), of: book, in: source, image: image)
    }

    /// Field `id` of `source` (book `book`, shown on image `image`) holds `value`: the page is
    /// drawn again with it, and the store keeps it until a copy is saved.
    private func fill(_ id: Int, with value: FormValue, of book: Book, in source: any FillableSource, image: Int) {
        source.fill(id, with: value)
        if p.configuration.positions?.store.setFormValue(value, field: id, of: book) != true {
            p.showNotice("the form's values are not kept: the state store cannot be used (Ctrl+S saves a copy)")
        }
        p.marksChanged(image: image)
    }

    /// Gives the open book's document the values filled in earlier runs (a book opened).
    func restoreValues(of book: Book) {
        guard let path = book.document, let store = p.configuration.positions?.store,
              let source = (try? p.configuration.documents.open(path)) as? any FillableSource else { return }
        for (id, value) in store.formValues(of: book) { source.fill(id, with: value) }
    }

    /// Ctrl+S: the document with its form filled written beside it, as "name (filled).pdf" (a
    /// number added when that is taken); the values are then let go from the store.
    func saveCopy() {
        guard let b = p.controller.book, let path = p.library.books[b].document,
              let source = (try? p.configuration.documents.open(path)) as? any FillableSource else {
            return p.showNotice("this book has no form to save")
        }
        let book = p.library.books[b]
        do {
            let saved = try Self.saveBeside(path) { try source.saveFilled(to: $0) }
            p.configuration.positions?.store.clearFormValues(of: book)
            p.titleNote = "saved \(FileName.printable((saved as NSString).lastPathComponent))"
        } catch {
            p.showNotice("the filled form is not saved: \(error)")
        }
    }

    /// Writes a new file beside `original` with `write` and names it "<name> (filled).<ext>",
    /// or "(filled 2)" and on when that is taken: written under a name of its own first, then
    /// linked to the first free name (a link never replaces a file), so nothing is ever written
    /// over. The name given.
    static func saveBeside(_ original: String, write: (String) throws -> Void) throws -> String {
        let folder = (original as NSString).deletingLastPathComponent, name = (original as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        let temporary = (folder.isEmpty ? "." : folder) + "/.folio-filled-\(UUID().uuidString).\(ext)"
        try write(temporary)
        defer { unlink(FileName.bytes(temporary)) }
        for n in 1...999 {
            let candidate = (folder.isEmpty ? "" : folder + "/") + stem + (n == 1 ? " (filled)" : " (filled \(n))") + (ext.isEmpty ? "" : "." + ext)
            if Glibc.link(FileName.bytes(temporary), FileName.bytes(candidate)) == 0 { return candidate }
            guard errno == EEXIST else { throw FileError(.cannotCreate, candidate, FileError.reason(errno)) }
        }
        throw FileError(.cannotCreate, original, "every name for a filled copy is taken")
    }
}
