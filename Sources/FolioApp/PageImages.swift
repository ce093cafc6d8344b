import FolioBook
import FolioLayout

/// Which image file a face shows. Page numbering (docs/behaviour.md §3): page 0 is the cover, page 1
/// the inside of the cover (a blank endpaper), page j + 2 the book's image j; pages past the
/// last image are blank paper.
public enum PageImages {
    public static func path(for face: FaceContent, in library: Library) -> String? {
        guard library.books.indices.contains(face.book) else { return nil }
        let book = library.books[face.book]
        switch face.kind {
        case .cover: return book.cover ?? book.pages.first
        case .page:
            if face.page == 0 { return book.cover ?? book.pages.first }
            let j = face.page - 2
            return book.pages.indices.contains(j) ? book.pages[j] : nil
        case .blank, .detail: return nil
        }
    }
}
