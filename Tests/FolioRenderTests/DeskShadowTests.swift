import FolioLayout
import FolioReader
import FolioRender
import Testing

/// The desk shadow, alone (the frame with it over the frame without it), changes smoothly
/// from pixel to pixel on every side of the book: its halves pushed away from the light by
/// different heights met at the spine with a step, and a book part open cut its shadow off
/// at a straight line beside the spine.
struct DeskShadowTests {
    @Test(arguments: [(2, nil, 4), (2, 0.05, nil), (2, 0.2, nil)] as [(Int, Double?, LayoutPage?)])
    func deskShadowHasNoStep(_ book: Int, open: Double?, page: LayoutPage?) throws {
        let scene = try ContinuityTests.still { $0.book = book; $0.open = open; $0.page = page }
        var bare = scene
        bare.items.removeAll { $0.kind == .shadow }
        let (w, h) = (1280, 720)
        var room = scene
        room.items = []
        let lit = try GLHarness.shared.render(scene, width: w, height: h, library: ContinuityTests.library)
        let unshaded = try GLHarness.shared.render(bare, width: w, height: h, library: ContinuityTests.library)
        let empty = try GLHarness.shared.render(room, width: w, height: h, library: ContinuityTests.library)
        // The desk's pixels: the room as the frame without the book shows it (the book's own,
        // its antialiased edges over the shadow included, are 1: never counted).
        let factors = (0..<(w * h)).map { i -> Double in
            let (x, y) = (i % w, i / w)
            return abs(unshaded.luma(x, y) - empty.luma(x, y)) > 1 ? 1 : lit.luma(x, y) / max(unshaded.luma(x, y), 1)
        }
        func factor(_ x: Int, _ y: Int) -> Double { factors[y * w + x] }
        var steepest = (step: 0.0, x: 0, y: 0), shaded = 0
        // On the desk alone, away from the book's edges (the book is drawn over the shadow:
        // unshaded, and blended with the desk's shadow at its edge pixels).
        for y in 0..<h {
            for x in 2..<(w - 4) where (x - 2...x + 3).allSatisfy({ factor($0, y) < 0.97 }) {
                shaded += 1
                let step = abs(factor(x + 1, y) - factor(x, y))
                if step > steepest.step { steepest = (step, x, y) }
            }
        }
        #expect(shaded > 2000, "book \(book): too little of the desk is shaded (\(shaded) pixels)")
        // Above and below an open book, across the spine (the middle of the frame).
        if open == nil {
            for y in 0..<h where factor(w / 2 - 6, y) < 0.9 {
                for x in (w / 2 - 6)..<(w / 2 + 6) {
                    #expect(abs(factor(x + 1, y) - factor(x, y)) < 0.05, "book \(book): a step at the spine, (\(x), \(y)): \(factor(x, y)) \(factor(x + 1, y))")
                }
            }
        }
        #expect(steepest.step < 0.1, "book \(book), open \(open ?? 1), page \(page ?? 0): the shadow steps by \(steepest.step) at (\(steepest.x), \(steepest.y))")
    }
}
