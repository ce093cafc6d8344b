import FolioBook
import FolioImage
import FolioLayout
import FolioPages
import Testing

/// The pool of page buffers: what the store gives back is what the next page is drawn into,
/// within the pool's bound, and never over pixels still shown.
@Suite struct PixelPoolTests {
    @Test func aBufferGivenBackIsTheNextOneTaken() {
        let pool = PixelPool(limitBytes: 1 << 20)
        var first: [UInt8]? = pool.take(count: 4000)
        let address = first?.withUnsafeBufferPointer { $0.baseAddress }
        pool.giveBack(first.take()!)
        #expect(pool.heldBytes >= 4000)
        let again = pool.take(count: 3000)
        #expect(again.count == 3000 && again.withUnsafeBufferPointer { $0.baseAddress } == address, "the same memory, no allocation")
        #expect(pool.reused == 1 && pool.heldBytes == 0)
        // A buffer more than twice the size asked is not pinned by a small page.
        pool.giveBack(again)
        #expect(pool.take(count: 100).withUnsafeBufferPointer { $0.baseAddress } != address && pool.reused == 1)
    }

    @Test func thePoolKeepsNoMoreThanItsBound() {
        let pool = PixelPool(limitBytes: 10_000)
        for _ in 0..<5 { pool.giveBack([UInt8](repeating: 1, count: 4000)) }
        #expect(pool.heldBytes <= 10_000 && pool.heldBytes >= 8000)
        pool.empty()
        #expect(pool.heldBytes == 0)
    }

    /// The store gives pixels back once uploaded and once evicted, up to the pool's bound; a
    /// buffer taken and written never changes an image still held elsewhere (the texture's).
    @Test func theStoreGivesPixelsBackAndNoPageShowsAnothersPixels() throws {
        let folder = Folder()
        let page = 40 * 60 * 4
        let library = Library(title: "", books: [Book(title: "b", pages: (0..<50).map { .image(folder.png("p\($0).png", width: 40, height: 60, shade: UInt8($0))) },
                                                 pageWidth: 40, pageHeight: 60)])
        let decoding = ManualDecoding(), uploads = Uploads(), pool = PixelPool(limitBytes: 3 * page)
        var s = PageStore.Settings()
        (s.ahead, s.behind, s.workers, s.budgetBytes, s.pixels) = (0, 0, 2, 4 * page, pool)
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: s, executor: decoding)
        for spreadAt in stride(from: 0, to: 20, by: 2) {
            let faces: [FaceContent] = [.page(0, PageImage(index: spreadAt).layoutPage), .page(0, PageImage(index: spreadAt + 1).layoutPage)]
            _ = store.prepare(showing: faces, uploadBudget: nil)
            for _ in 0..<20 where decoding.runAll() > 0 { _ = store.prepare(showing: faces, uploadBudget: nil) }
            #expect(pool.heldBytes > 0 && pool.heldBytes <= 3 * page, "uploaded pages' pixels kept, within the bound")
        }
        // Drawing into every buffer the pool holds leaves each texture's own page as it was.
        var taken: [[UInt8]] = []
        for _ in 0..<10 where pool.heldBytes > 0 {
            var b = pool.take(count: page)
            b.withUnsafeMutableBufferPointer { $0.update(repeating: 0xEE) }
            taken.append(b)
        }
        #expect(!taken.isEmpty)
        #expect(!uploads.shown.isEmpty)
        for (face, image) in uploads.shown {
            #expect(image.pixel(20, 30).r == UInt8(face.image!.index), "page \(face.image!.index) shows its own pixels")
        }
    }
}
