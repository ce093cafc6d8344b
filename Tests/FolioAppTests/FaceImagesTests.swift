import FolioApp
import FolioReader
import FolioScript
import FolioBook
import FolioLayout
import Foundation
import Testing

/// A temporary folder of PNGs, removed when the test ends.
private final class Folder {
    let path = NSTemporaryDirectory() + "folio-faces-" + UUID().uuidString

    init() { try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a plain PNG (level 0: quick to write) and returns its path.
    func png(_ name: String, width: Int = 8, height: Int = 12) -> String {
        let file = path + "/" + name
        try! PNG.write(RGBAImage(width: width, height: height, fill: (90, 120, 150, 255)), to: file, compression: 0)
        return file
    }

    func bytes(_ name: String, _ bytes: [UInt8]) -> String {
        let file = path + "/" + name
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }
}

/// Counts `onChange` calls, which come from decoding threads.
private final class Counter: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

/// A library of one book of `count` pages, all the same file (a long scan, cheaply), shaped
/// like a page `shape` (width, height) as a loaded book is (other pages are put on paper).
private func book(_ count: Int, page: String, cover: String? = nil, shape: (Double, Double) = (8, 12)) -> Library {
    Library(title: "Test", books: [Book(title: "Long", cover: cover, pages: Array(repeating: page, count: count),
                                        pageWidth: 568 * shape.0 / shape.1, pageHeight: 568)])
}

/// The scene of book 0 open at the spread that shows layout page `page` (image `page` − 2).
private func reading(_ library: Library, page: Int) throws -> Scene {
    var s = StillState()
    s.book = 0
    s.page = page
    return try s.scene(library: library.bookInfos)
}

private func shelf(_ library: Library) throws -> Scene { try StillState().scene(library: library.bookInfos) }

/// Settings with no prefetch, for tests about what is on screen only.
private var onScreenOnly: PageCache.Settings {
    var s = PageCache.Settings()
    (s.ahead, s.behind) = (0, 0)
    return s
}

@Suite struct FaceImagesTests {
    /// Once its texture is made, a page's pixels go (the page stays resident, its texture kept).
    /// Leaving the book lets its pages go.
    @Test func releasedPixelsAndCancelledBooks() throws {
        let folder = Folder()
        let library = book(40, page: folder.png("p.png"), cover: folder.png("c.png"))
        let images = FaceImages(library: library, settings: onScreenOnly)
        defer { images.close() }
        let scene = try reading(library, page: 10)
        images.show(scene)
        #expect(images.waitUntilReady(faces: scene.shownFaces, timeout: 10))
        let page = try #require(scene.shownFaces.first { $0.imageIndex != nil })
        let used = images.budget.used
        images.releasePixels(of: page)
        #expect(images.image(for: page) == nil)
        #expect(images.residentFaces.contains(page))
        #expect(images.budget.used == used - 8 * 12 * 4)
        // Back on the shelf: the book's pages are let go and count no more.
        images.show(try shelf(library))
        #expect(images.drainChanges().evicted)
        #expect(!images.residentFaces.contains(page))
    }

    @Test func answersAtOnceAndHasThePagesAfterWaiting() throws {
        let folder = Folder()
        // Big enough that decoding takes far longer than asking.
        let library = book(20, page: folder.png("page.png", width: 600, height: 850), shape: (600, 850))
        let changes = Counter()
        let images = FaceImages(library: library, settings: onScreenOnly) { changes.increment() }
        let scene = try reading(library, page: 10)
        let faces = scene.shownFaces.filter { $0.imageIndex != nil }
        #expect(faces.count >= 2)

        images.show(scene)
        #expect(images.image(for: faces[0]) == nil, "the first answer does not wait for the decode")
        #expect(images.waitUntilReady(faces: scene.shownFaces, timeout: 10))
        for face in faces {
            let image = try #require(images.image(for: face))
            #expect(image.width == 600 && image.height == 850)
        }
        // onChange runs just after a page becomes resident: give the last call a moment.
        let deadline = Date(timeIntervalSinceNow: 5)
        while changes.count < faces.count && Date() < deadline { usleep(1000) }
        #expect(changes.count >= faces.count, "onChange fires as pages arrive")
        #expect(images.drainChanges().arrived)
        let again = images.drainChanges()
        #expect(!again.arrived && !again.evicted, "drained")
        #expect(images.image(for: .page(0, 1)) == nil, "the endpaper has no image")
    }

    @Test func largePagesAreScaledToTheTextureLimit() throws {
        let folder = Folder()
        let library = book(4, page: folder.png("page.png", width: 300, height: 200), shape: (300, 200))
        let images = FaceImages(library: library, maxTextureSize: 64, settings: onScreenOnly)
        let scene = try reading(library, page: 2)
        images.show(scene)
        #expect(images.waitUntilReady(faces: scene.shownFaces, timeout: 10))
        let image = try #require(images.image(for: .page(0, 2)))
        #expect(image.width == 64 && image.height == 43)
    }

    @Test func onlyPagesNearTheReaderAreResident() throws {
        let folder = Folder()
        let library = book(2000, page: folder.png("page.png"))
        var settings = PageCache.Settings()
        (settings.ahead, settings.behind) = (6, 2)
        let images = FaceImages(library: library, settings: settings)
        // Near: within the prefetch window of the lowest page shown, or on screen.
        func near(_ page: Int) -> ClosedRange<Int> { (page - settings.behind - 4)...(page + settings.ahead + 4) }

        let middle = try reading(library, page: 1002)
        images.show(middle)
        #expect(images.waitUntilReady(faces: middle.shownFaces, timeout: 10))
        var resident = images.residentFaces
        #expect(resident.isSuperset(of: middle.shownFaces.filter { $0.imageIndex != nil }))
        // The open book's cover stays too: its boards show the cover's colour.
        #expect(resident.allSatisfy { $0.kind == .cover || $0.page == 0 || ($0.kind == .page && near(1002).contains($0.page)) }, "\(resident)")

        let later = try reading(library, page: 1500)
        images.show(later)
        #expect(images.waitUntilReady(faces: later.shownFaces, timeout: 10))
        #expect(images.drainChanges().evicted, "the pages left behind are let go")
        resident = images.residentFaces
        #expect(resident.allSatisfy { $0.kind == .cover || $0.page == 0 || near(1500).contains($0.page) }, "\(resident)")

        // Back on the shelf the book's pages go; its cover comes.
        let closed = try shelf(library)
        images.show(closed)
        #expect(images.waitUntilReady(faces: closed.shownFaces, timeout: 10))
        #expect(images.drainChanges().evicted)
        #expect(images.residentFaces == [.cover(0), .page(0, 0)])
    }

    @Test func coversLoadInTheBackground() throws {
        let folder = Folder()
        let page = folder.png("page.png")
        let books = (0..<3).map { Book(title: "B\($0)", cover: folder.png("cover\($0).png", width: 10 + $0, height: 16), pages: [page]) }
        let library = Library(title: "Shelf", books: books + [Book(title: "Empty", pages: [])])
        let images = FaceImages(library: library)
        let scene = try shelf(library)
        images.show(scene)
        #expect(images.waitUntilReady(faces: scene.shownFaces, timeout: 10))
        for b in scene.shownFaces.filter({ $0.kind == .cover && $0.book < 3 }).map(\.book) {
            #expect(images.image(for: .cover(b))?.width == 10 + b)
            #expect(images.image(for: .page(b, 0)) == images.image(for: .cover(b)), "the front cover of the open book")
        }
        #expect(images.image(for: .cover(3)) == nil, "a book with no image shows paper")
        #expect(images.residentFaces.allSatisfy { $0.kind == .cover || $0.page == 0 }, "no page is read for the shelf")
    }

    @Test func aBrokenFileShowsThePlaceholderWithOneProblem() throws {
        let folder = Folder()
        let broken = folder.bytes("broken.png", [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        // No cover: the shelf shows the broken first page too, and both caches meet it.
        let library = Library(title: "T", books: [Book(title: "Damaged", pages: [broken, folder.png("good.png")])])
        // A small placeholder of the book's aspect (362 × 568) is quick to draw in a debug build.
        var settings = onScreenOnly
        (settings.placeholderWidth, settings.placeholderHeight) = (45, 71)
        let images = FaceImages(library: library, settings: settings)
        let closed = try shelf(library), open = try reading(library, page: 2)
        for scene in [closed, open] {
            images.show(scene)
            #expect(images.waitUntilReady(faces: scene.shownFaces, timeout: 10))
        }
        let placeholder = RGBAImage.placeholder(width: 45, height: 71, kind: .broken)
        #expect(images.image(for: .page(0, 2)) == placeholder)
        #expect(images.image(for: .cover(0)) == placeholder)
        let problems = images.drainProblems()
        #expect(problems.map(\.file) == [broken], "\(problems)")

        // Shown again: still the placeholder, and no second message.
        images.show(closed)
        images.show(open)
        #expect(images.waitUntilReady(faces: open.shownFaces, timeout: 10))
        #expect(images.image(for: .page(0, 2)) == placeholder)
        #expect(images.drainProblems().isEmpty)
    }
}
