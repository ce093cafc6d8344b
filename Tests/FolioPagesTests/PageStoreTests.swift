import FolioBook
import FolioImage
import FolioLayout
import FolioPages
import FolioReader
import Foundation
import Testing

/// A temporary folder of page files, removed when the test ends.
final class Folder {
    let path = NSTemporaryDirectory() + "folio-pages-" + UUID().uuidString

    init() { try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a plain PNG (level 0: quick to write) and returns its path.
    func png(_ name: String, width: Int = 8, height: Int = 12, shade: UInt8 = 90) -> String {
        let file = path + "/" + name
        try! PNG.write(RGBAImage(width: width, height: height, fill: (shade, 120, 150, 255)), to: file, compression: 0)
        return file
    }

    func bytes(_ name: String, _ bytes: [UInt8]) -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }
}

/// The GPU side as the store sees it: what went up for which face, and what was freed.
final class Uploads: PageTextures {
    var shown: [FaceContent: RGBAImage] = [:]
    var removed: [FaceContent] = []

    /// The images that went up, one a call, with the faces sharing each.
    var uploads: [[FaceContent]] = []

    func upload(_ image: RGBAImage, for key: PageKey, mipmaps: Bool) -> Int {
        for face in key.faces { shown[face] = image }
        uploads.append(key.faces)
        return image.byteCount
    }

    func remove(_ key: PageKey) {
        for face in key.faces {
            shown[face] = nil
            removed.append(face)
        }
    }

    func move(_ key: PageKey, to other: PageKey) {
        for (face, to) in zip(key.faces, other.faces) { shown[to] = shown.removeValue(forKey: face) }
    }
}

/// A vector document whose pages render grey at the size asked (sharper when larger), counted.
final class VectorPages: PageSource {
    static let format = PageSourceFormat(name: "vector test", extensions: ["vectortest"]) { _, _ in VectorPages() }
    let pageCount = 6
    let title: String? = nil
    var rendersCrops: Bool { true }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (100, 200) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        let size = fit.fitting(aspect: 0.5)
        return PageRender(image: RGBAImage(width: size.width, height: size.height, fill: (128, 128, 128, 255)), scalable: true)
    }
}

/// A reflowable book whose pages show their layout: each page is filled with red ten times
/// its text size and green its index; a place in the text is its page times its size.
final class ReflowingPages: ReflowableSource {
    static let format = PageSourceFormat(name: "reflow test", extensions: ["reflowtest"]) { _, _ in ReflowingPages(fontSize: 10) }
    let fontSize: Double
    let title: String? = nil
    var reflowable: Bool { true }
    var pageCount: Int { Int(120 / fontSize) }

    init(fontSize: Double) { self.fontSize = fontSize }

    func pageSize(_ index: Int) -> (width: Double, height: Double)? { (100, 150) }

    func render(page index: Int, fit: PixelSize) throws -> PageRender {
        PageRender(image: RGBAImage(width: 20, height: 30, fill: (UInt8(fontSize * 10), UInt8(index), 0, 255)), scalable: false)
    }

    func page(of place: TextPlace) -> Int? { Int(Double(place.page) * place.fontSize / fontSize) }

    func relaid(fontSize: Double, keeping place: TextPlace) throws -> (source: any ReflowableSource, page: Int) {
        let source = ReflowingPages(fontSize: fontSize)
        return (source, source.page(of: place) ?? 0)
    }
}

/// A book of the six pages of a `VectorPages` document in `folder`.
private func vectorBook(in folder: Folder) -> Library {
    PageSources.register(VectorPages.format)
    let doc = folder.bytes("doc.vectortest", [0])
    return Library(title: "V", books: [Book(title: "V", pages: (0..<6).map { PageRef.document(doc, index: $0) },
                                            pageWidth: 284, pageHeight: 568)])
}

/// One book of `count` pages, all the same file (a long scan, cheaply), shaped like its pages.
private func book(_ count: Int, page: String, cover: String? = nil, shape: (Double, Double) = (8, 12)) -> Library {
    Library(title: "Test", books: [Book(title: "Long", cover: cover.map(PageRef.image), pages: Array(repeating: .image(page), count: count),
                                        pageWidth: 568 * shape.0 / shape.1, pageHeight: 568)])
}

/// The faces of the spread of book 0 showing image `image` and the one after it.
private func spread(_ image: Int) -> [FaceContent] { [.page(0, PageImage(index: image).layoutPage), .page(0, PageImage(index: image + 1).layoutPage)] }

private func settings(ahead: Int = 0, behind: Int = 0, budget: Int = 256 << 20) -> PageStore.Settings {
    var s = PageStore.Settings()
    (s.ahead, s.behind, s.budgetBytes, s.workers) = (ahead, behind, budget, 2)
    return s
}

/// Decodes and frames until the store has nothing left to decode (bounded: a store that keeps
/// asking fails the test instead of hanging it).
@discardableResult
private func settle(_ store: PageStore, _ decoding: ManualDecoding, showing faces: [FaceContent]) -> Set<PageKey> {
    var uploaded = store.prepare(showing: faces, uploadBudget: nil).uploaded
    for _ in 0..<200 where decoding.runAll() > 0 {
        uploaded.formUnion(store.prepare(showing: faces, uploadBudget: nil).uploaded)
    }
    #expect(decoding.count == 0, "the store keeps asking for decodes")
    return uploaded
}

/// The page store, step by step: every decode runs when the test says, on its thread.
@Suite struct PageStoreTests {
    /// Nothing is read on the frame that first shows a page; the decode runs in the
    /// background, the next frame uploads it, and the table says where each byte is.
    @Test func aPageIsDecodedThenUploadedThenLookedUp() throws {
        let folder = Folder()
        let library = book(10, page: folder.png("p.png"))
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: settings(), executor: decoding)
        let first = store.prepare(showing: spread(2), uploadBudget: nil)
        #expect(first.uploaded.isEmpty && store.table.isEmpty && uploads.shown.isEmpty, "the frame never waits")
        #expect(decoding.count == 2 && store.statistics.loading == 2)
        #expect(!store.poll(), "nothing arrived before the decodes ran")

        #expect(decoding.runAll() == 2)
        #expect(store.poll(), "decoded images wait for their upload")
        let keys: Set<PageKey> = [.page(book: 0, image: PageImage(index: 2)), .page(book: 0, image: PageImage(index: 3))]
        #expect(store.table.values.allSatisfy { $0.state == .decoded && $0.cpuBytes == 8 * 12 * 4 && $0.gpuBytes == 0 })

        #expect(store.prepare(showing: spread(2), uploadBudget: nil).uploaded == keys)
        #expect(uploads.shown[.page(0, 4)]?.width == 8 && uploads.shown[.page(0, 5)] != nil)
        for key in keys {
            let r = try #require(store.table[key])
            #expect(r.state == .uploaded && r.cpuBytes == 0 && r.gpuBytes == 8 * 12 * 4, "pixels let go once on the GPU")
        }
        #expect(!store.pendingUploads && store.statistics.decoded == 2)
    }

    /// Five thousand pages, a budget of three: the pages on screen are held whatever it says,
    /// prefetch stops at the budget, and moving on frees the textures of the pages left behind.
    @Test func evictionUnderABudgetKeepsThePagesOnScreen() throws {
        let folder = Folder()
        let page = 40 * 60 * 4
        let library = book(5000, page: folder.png("p.png", width: 40, height: 60))
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: settings(ahead: 8, behind: 4, budget: 3 * page),
                              executor: decoding)
        settle(store, decoding, showing: spread(2500))
        let middle: Set<PageKey> = [.page(book: 0, image: PageImage(index: 2500)), .page(book: 0, image: PageImage(index: 2501))]
        #expect(Set(store.table.keys).isSuperset(of: middle))
        let stats = store.statistics
        #expect(stats.cpuBytes + stats.gpuBytes <= 3 * page && stats.resident <= 3, "\(stats)")
        #expect(stats.decoded <= 3 + 2, "prefetch stops at the budget: \(stats.decoded) decoded")

        // Two pages that alone exceed a budget of one are still shown.
        let tight = PageStore(library: library, documents: DocumentRegistry(), textures: Uploads(), settings: settings(ahead: 8, budget: page), executor: decoding)
        settle(tight, decoding, showing: spread(10))
        #expect(Set(tight.table.keys) == [.page(book: 0, image: PageImage(index: 10)), .page(book: 0, image: PageImage(index: 11))])

        settle(store, decoding, showing: spread(100))
        #expect(Set(store.table.keys).isSuperset(of: [.page(book: 0, image: PageImage(index: 100)), .page(book: 0, image: PageImage(index: 101))]))
        #expect(store.table.keys.allSatisfy { $0.book == 0 && (96...110).contains(pageIndex($0)) }, "\(store.table.keys)")
        #expect(uploads.removed.contains(.page(0, 2502)) && uploads.shown[.page(0, 2502)] == nil, "textures freed with their pages")
    }

    /// Paging past pages before they decode calls their decodes off: they read nothing.
    @Test func decodesOfPagesNoLongerWantedAreCalledOff() throws {
        let folder = Folder()
        let library = book(200, page: folder.png("p.png"))
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: settings(), executor: decoding)
        store.prepare(showing: spread(10), uploadBudget: nil)
        store.prepare(showing: spread(100), uploadBudget: nil)
        #expect(decoding.runAll() == 2)
        #expect(store.statistics.decoded == 0, "the called-off decodes read no file")
        settle(store, decoding, showing: spread(100))
        #expect(store.statistics.decoded == 2)
        #expect(Set(uploads.shown.keys) == [.page(0, 102), .page(0, 103)])
    }

    /// Shown larger, a vector page renders again; its old texture is drawn (stale) until the
    /// sharper image goes up, and the version the texture shows is always the one uploaded.
    @Test func aSharperImageReplacesTheStaleTextureWhenItGoesUp() throws {
        let folder = Folder()
        let library = vectorBook(in: folder)
        var s = settings()
        (s.displayHeight, s.previewHeight) = (100, 0)
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: s, executor: decoding)
        settle(store, decoding, showing: spread(2))
        let key = PageKey.page(book: 0, image: PageImage(index: 2))
        #expect(uploads.shown[.page(0, 4)]?.height == 100)
        let before = try #require(store.table[key])

        store.setDisplayHeight(800)
        #expect(store.table[key]?.state == .uploaded, "the soft texture stays while the sharp one renders")
        #expect(decoding.runAll() == 2)
        #expect(store.poll())
        let arrived = try #require(store.table[key])
        #expect(arrived.state == .stale && arrived.version > before.version && uploads.shown[.page(0, 4)]?.height == 100)
        store.prepare(showing: spread(2), uploadBudget: nil)
        #expect(store.table[key]?.state == .uploaded && uploads.shown[.page(0, 4)]?.height == 800)
    }

    /// A frame that waits for its images waits for a soft one's sharper render too, so the frame
    /// that shows it sharp is the same however long the render takes (a recording). One that
    /// does not come within the wait is drawn soft: not late, as a missing one is.
    @Test func aWaitingFrameWaitsForTheSharperImage() throws {
        let folder = Folder()
        let library = vectorBook(in: folder)
        var s = settings()
        (s.displayHeight, s.previewHeight) = (100, 0)
        let uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: s, executor: BackgroundDecoding())
        store.prepare(showing: spread(2), uploadBudget: nil, wait: 60)
        #expect(uploads.shown[.page(0, 4)]?.height == 100)
        store.setDisplayHeight(800)
        let prepared = store.prepare(showing: spread(2), uploadBudget: nil, wait: 60)
        #expect(prepared.late.isEmpty && uploads.shown[.page(0, 4)]?.height == 800 && uploads.shown[.page(0, 5)]?.height == 800)

        let decoding = ManualDecoding(), held = Uploads()
        let stuck = PageStore(library: library, documents: DocumentRegistry(), textures: held, settings: s, executor: decoding)
        settle(stuck, decoding, showing: spread(2))
        stuck.setDisplayHeight(800)
        // The sharper renders are handed in and never run.
        #expect(stuck.prepare(showing: spread(2), uploadBudget: nil, wait: 0.05).late.isEmpty)
        #expect(held.shown[.page(0, 4)]?.height == 100 && decoding.count == 2)
    }

    /// A small preview first, then the sharp page: two renders; without previews one.
    @Test func aPagePreviewsSmallThenSharp() throws {
        let folder = Folder()
        let library = vectorBook(in: folder)
        for (preview, reads) in [(40, 2), (0, 1)] {
            var s = settings()
            (s.displayHeight, s.previewHeight) = (400, preview)
            let decoding = ManualDecoding(), uploads = Uploads()
            let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: s, executor: decoding)
            store.prepare(showing: [.page(0, 7)], uploadBudget: nil)
            #expect(decoding.runAll() == 1)
            store.prepare(showing: [.page(0, 7)], uploadBudget: nil)
            #expect(uploads.shown[.page(0, 7)]?.height == (preview > 0 ? preview : 400))
            settle(store, decoding, showing: [.page(0, 7)])
            #expect(uploads.shown[.page(0, 7)]?.height == 400 && store.statistics.decoded == reads, "preview \(preview)")
        }
    }

    @Test func brokenAndMissingPagesArePlaceholdersWithOneProblemEach() throws {
        let folder = Folder()
        let good = folder.png("1.png", width: 16, height: 24)
        let corrupt = folder.bytes("2.png", Array(try Data(contentsOf: URL(fileURLWithPath: good)).prefix(50)))
        let empty = folder.bytes("3.png", [])
        let missing = folder.path + "/4.png"
        let library = Library(title: "B", books: [Book(title: "B", pages: [good, corrupt, empty, missing].map(PageRef.image), pageWidth: 379, pageHeight: 568)])
        var s = settings()
        s.releasesPixels = false
        let decoding = ManualDecoding()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: Uploads(), settings: s, executor: decoding)
        let faces = (2...5).map { FaceContent.page(0, LayoutPage($0)) }
        settle(store, decoding, showing: faces)
        #expect(store.table[.page(book: 0, image: PageImage(index: 0))]?.image?.width == 16)
        let placeholder = RGBAImage.placeholder(width: 379, height: 568, kind: .broken)
        for j in 1...3 { #expect(store.table[.page(book: 0, image: PageImage(index: j))]?.image == placeholder) }
        let problems = store.takeProblems()
        #expect(problems.map(\.file).sorted() == [corrupt, empty, missing])
        #expect(problems.allSatisfy { $0.message.hasSuffix("showing a placeholder page") })

        // Evicted and shown again: still the placeholder, no second message, no second read.
        settle(store, decoding, showing: [faces[0]])
        settle(store, decoding, showing: faces)
        #expect(store.table[.page(book: 0, image: PageImage(index: 2))]?.image == placeholder)
        #expect(store.takeProblems().isEmpty && store.statistics.failed == 3 && store.statistics.decoded == 4)
    }

    /// A portrait photo in a landscape album sits on white paper of the album's shape; a page
    /// larger than the texture limit is scaled down to it.
    @Test func pagesGoOnTheBooksPaperWithinTheTextureLimit() throws {
        let folder = Folder()
        let library = Library(title: "A", books: [Book(title: "A", pages: [folder.png("1.png", width: 60, height: 40),
                                                                            folder.png("2.png", width: 20, height: 40, shade: 10),
                                                                            folder.png("3.png", width: 300, height: 200)].map(PageRef.image),
                                                       pageWidth: 852, pageHeight: 568)])
        var s = settings()
        s.maxPageSize = 64
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: s, executor: decoding)
        settle(store, decoding, showing: [.page(0, 3), .page(0, 4)])
        let portrait = try #require(uploads.shown[.page(0, 3)])
        #expect(portrait.width == 60 && portrait.height == 40)
        #expect(Int(portrait.pixel(30, 20).r) == 10, "the photo, centred")
        #expect(Int(portrait.pixel(5, 20).r) == 255, "white paper beside it")
        let large = try #require(uploads.shown[.page(0, 4)])
        #expect(large.width == 64 && large.height == 43)
    }

    /// A cover is one image shown by two faces (the closed book's and the open book's front
    /// cover); the covers stay while a book is read, the pages go when it is closed.
    @Test func coversAreOneImageForTwoFacesAndStayWhileReading() throws {
        let folder = Folder()
        var library = book(6, page: folder.png("p.png"), cover: folder.png("c.png", width: 10, height: 15))
        library.books.append(Book(title: "Other", pages: [.image(folder.png("o.png"))], pageWidth: 379, pageHeight: 568))
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library, documents: DocumentRegistry(), textures: uploads, settings: settings(), executor: decoding)
        settle(store, decoding, showing: [.cover(0), .cover(1)])
        #expect(uploads.shown[.cover(0)]?.width == 10 && uploads.shown[.page(0, 0)]?.width == 10)
        #expect(uploads.shown[.cover(1)]?.width == 8, "a book without a cover shows its first page")
        // Each image goes up once, the cover's for both its faces (it went up once a face).
        #expect(uploads.uploads.contains([.cover(0), .page(0, 0)]), "\(uploads.uploads)")
        #expect(store.statistics.resident == 2 && store.statistics.gpuBytes == (10 * 15 + 8 * 12) * 4)

        settle(store, decoding, showing: spread(0))
        #expect(store.table[.cover(book: 0)] != nil, "covers stay while reading")
        settle(store, decoding, showing: [.cover(0)])
        #expect(!store.table.keys.contains { if case .page = $0 { true } else { false } }, "the closed book's pages go")
    }

    /// Textures lost (filtering changed): pages whose pixels were let go are decoded again.
    @Test func lostTexturesGoUpAgain() throws {
        let folder = Folder()
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: book(4, page: folder.png("p.png")), documents: DocumentRegistry(), textures: uploads, settings: settings(), executor: decoding)
        settle(store, decoding, showing: spread(0))
        uploads.shown = [:]
        store.texturesLost()
        #expect(store.table.isEmpty && decoding.count == 2)
        settle(store, decoding, showing: spread(0))
        #expect(uploads.shown.count == 2 && store.statistics.decoded == 4)
    }

    /// The upload budget spreads a burst of decoded pages over frames, the first always going.
    @Test func uploadsStayWithinTheFramesBudget() throws {
        let folder = Folder()
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: book(4, page: folder.png("p.png")), documents: DocumentRegistry(), textures: uploads, settings: settings(), executor: decoding)
        store.prepare(showing: spread(0), uploadBudget: 1)
        decoding.runAll()
        let second = store.prepare(showing: spread(0), uploadBudget: 1).uploaded
        #expect(second.count == 1 && store.pendingUploads)
        let third = store.prepare(showing: spread(0), uploadBudget: 1).uploaded
        #expect(third.count == 1 && !store.pendingUploads)
    }
}

extension PageStoreTests {
    /// The text grows while a page of the old layout is decoding: that decode is dropped when
    /// it arrives, the old layout's textures go at once, and every page shown afterwards is of
    /// the new layout, the reader on the page holding the same text.
    @Test func aRelayoutNeverShowsAPageOfTheOldLayout() throws {
        let book = try ReflowingBook()
        let (doc, documents, source, library) = (book.doc, book.documents, book.source, book.library)
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library(source.pageCount), documents: documents, textures: uploads, settings: settings(), executor: decoding)
        settle(store, decoding, showing: spread(4))
        #expect(Int(try #require(uploads.shown[.page(0, 6)]).pixel(0, 0).r) == 100)
        // The reader turns on; the next pages decode at 10 pt, not taken yet, as the text grows.
        store.prepare(showing: spread(6), uploadBudget: nil)
        #expect(decoding.runAll() == 2)
        let (relaid, page) = try source.relaid(fontSize: 12, keeping: source.place(ofPage: 6))
        documents.replace(doc, with: relaid)
        store.relaid(book: 0, in: library(relaid.pageCount), mapping: relaid.mapping(from: source))
        #expect(uploads.shown.isEmpty && store.table.isEmpty, "the old layout's images and textures go at once")
        #expect(page == 5)
        settle(store, decoding, showing: spread(page))
        let shown = uploads.shown.values.map { Int($0.pixel(0, 0).r) }
        #expect(shown == [120, 120], "only pages of the new layout: \(shown)")
        #expect(Int(try #require(uploads.shown[.page(0, 8)]).pixel(0, 0).g) == 6, "image 6 of the new layout")
    }
}

extension PageStoreTests {
    /// Two pages come in before page 4 (a chapter laid out): pages 4 on show the same content
    /// two pages later. Their images and textures move there and are not decoded again; the
    /// pages whose content changed go, and so do their textures.
    @Test func aRelayoutKeepsTheImagesOfPagesThatShowTheSameContentUnderTheirNewPage() throws {
        let book = try ReflowingBook()
        let (source, library) = (book.source, book.library)
        let decoding = ManualDecoding(), uploads = Uploads()
        let store = PageStore(library: library(source.pageCount), documents: book.documents, textures: uploads,
                              settings: settings(ahead: 2, behind: 2), executor: decoding)
        settle(store, decoding, showing: spread(3))
        #expect(Set(store.table.keys.map(pageIndex)) == [1, 2, 3, 4, 5])
        let n = source.pageCount
        let mapping = PageMapping(pageCount: n + 2, pages: (0..<n).map { $0 < 4 ? $0 : $0 + 2 }, unchanged: Set(4..<n))
        store.relaid(book: 0, in: library(n + 2), mapping: mapping)
        #expect(Set(store.table.keys.map(pageIndex)) == [6, 7], "pages 4 and 5 kept as 6 and 7; 1–3 changed and went")
        #expect(Set(uploads.shown.keys) == [.page(0, 8), .page(0, 9)], "their textures moved with them")
        #expect(uploads.removed.contains(.page(0, 3)) && uploads.removed.contains(.page(0, 5)))
        // Page 6 shows what page 4 showed (its image says index 4), without a decode.
        store.prepare(showing: spread(6), uploadBudget: nil)
        #expect(Int(try #require(uploads.shown[.page(0, 8)]).pixel(0, 0).g) == 4)
        #expect(store.table[.page(book: 0, image: PageImage(index: 6))]?.state == .uploaded && store.table[.page(book: 0, image: PageImage(index: 7))]?.state == .uploaded)
        // Laid out further at the same size: every page held stays where it is.
        let whole = PageMapping.extended(from: n + 2, to: n + 6)
        store.relaid(book: 0, in: library(n + 6), mapping: whole)
        #expect(Set(store.table.keys.map(pageIndex)).isSuperset(of: [6, 7]) && uploads.shown[.page(0, 8)] != nil)
    }
}

/// A `ReflowingPages` document in a folder of its own, opened through a registry of its own.
private struct ReflowingBook {
    let folder = Folder()
    let doc: String
    let documents = DocumentRegistry()
    let source: any ReflowableSource

    init() throws {
        PageSources.register(ReflowingPages.format)
        doc = folder.bytes("book.reflowtest", [0])
        source = try #require(documents.reflowable(doc))
    }

    /// One book of the document's first `count` pages.
    func library(_ count: Int) -> Library {
        Library(title: "R", books: [Book(title: "R", pages: (0..<count).map { PageRef.document(doc, index: $0) },
                                         pageWidth: 379, pageHeight: 568)])
    }
}

private func pageIndex(_ key: PageKey) -> Int {
    if case let .page(_, image) = key { return image.index }
    return -1
}
