import FolioBook
import FolioImage
import FolioLayout
import FolioPages

/// The page store over one book, its decodes run on the test's thread: `show` returns once
/// the pages asked for, and whatever they lead to (a sharper rendering), are held.
final class PageProbe {
    let store: PageStore
    private let decoding = ManualDecoding()

    /// No prefetch, pixels kept after upload; `configure` changes the rest.
    init(_ book: Book, configure: (inout PageStore.Settings) -> Void = { _ in }) {
        var s = PageStore.Settings()
        (s.ahead, s.behind, s.releasesPixels) = (0, 0, false)
        configure(&s)
        // The registry the fixtures' libraries were loaded with: their failures were reported then.
        store = PageStore(library: Library(title: "", books: [book]), documents: Fixtures.documents, textures: NoTextures(),
                          settings: s, executor: decoding)
    }

    /// A book of the one page image at `path`, on paper of its own shape.
    convenience init(image path: String) {
        let size = Fixtures.documents.naturalSize(.image(path)) ?? (1, 1)
        self.init(Book(title: "", pages: [.image(path)], pageWidth: size.width, pageHeight: size.height))
    }

    func show(_ pages: [Int]) {
        let faces = pages.map { FaceContent.page(0, PageImage(index: $0).layoutPage) }
        store.prepare(showing: faces, uploadBudget: nil)
        for _ in 0..<100 where decoding.runAll() > 0 { store.prepare(showing: faces, uploadBudget: nil) }
    }

    func image(_ page: Int) -> RGBAImage? { store.table[.page(book: 0, image: PageImage(index: page))]?.image }
}

private final class NoTextures: PageTextures {
    func upload(_ image: RGBAImage, for key: PageKey, mipmaps: Bool) -> Int { 0 }
    func remove(_ key: PageKey) {}
    func move(_ key: PageKey, to other: PageKey) {}
}
