import Testing
import FolioLayout
import FolioMath

/// The overview's grid: page → box → page, the spreads paired, scrolling bounds, right to left.
@Suite struct OverviewTests {
    let view = Vec2(1280, 720)
    func book(_ images: Int, _ direction: BookInfo.Direction = .ltr) -> BookInfo {
        BookInfo(imageCount: images, direction: direction)
    }

    @Test func everyPageHitsBackToItself() {
        for direction in [BookInfo.Direction.ltr, .rtl] {
            let b = book(400, direction)
            for scroll in [0.0, 1234.5] {
                let grid = Overview(book: b, viewSize: view, scroll: scroll)
                for image in 0..<400 {
                    let box = grid.box(of: image)!
                    #expect(grid.image(at: box.centre) == image)
                    // Just inside each corner too.
                    #expect(grid.image(at: Vec2(box.minX + 0.5, box.maxY - 0.5)) == image)
                    #expect(grid.image(at: Vec2(box.maxX - 0.5, box.minY + 0.5)) == image)
                }
            }
        }
    }

    @Test func pagesPairAsSpreadsWithGapsBetween() {
        let grid = Overview(book: book(400), viewSize: view)
        #expect(grid.spreadsPerRow == 4)
        let first = grid.box(of: 0)!, left = grid.box(of: 1)!, right = grid.box(of: 2)!
        // Image 0 is the first spread's right-hand page: the endpaper's place beside it is empty.
        #expect(grid.image(at: Vec2(first.minX - grid.pageSize.x / 2, first.centre.y)) == nil)
        #expect(abs(left.maxX - right.minX) < 1e-9)
        #expect(abs((left.minX - first.maxX) - grid.gap) < 1e-9)
        #expect(grid.image(at: Vec2(first.maxX + grid.gap / 2, first.centre.y)) == nil)
        // Eight pages a row: image 7 starts the second row under the endpaper's place.
        #expect(grid.box(of: 6)!.maxY == first.maxY)
        let below = grid.box(of: 7)!
        #expect(abs(below.minX - (first.minX - grid.pageSize.x)) < 1e-9)
        #expect(abs(first.minY - below.maxY - grid.gap) < 1e-9)
        // The rows are centred and the first lies under the top margin; no page past the last.
        #expect(abs(grid.box(of: 6)!.maxX + (first.minX - grid.pageSize.x)) < 1e-9)
        #expect(abs(first.maxY - (view.y / 2 - grid.margin)) < 1e-9)
        #expect(grid.box(of: 400) == nil && grid.box(of: -1) == nil)
    }

    @Test func rightToLeftMirrorsTheRows() {
        let ltr = Overview(book: book(30), viewSize: view), rtl = Overview(book: book(30, .rtl), viewSize: view)
        for image in 0..<30 {
            let a = ltr.box(of: image)!, b = rtl.box(of: image)!
            #expect(abs(a.minX + b.maxX) < 1e-9 && a.minY == b.minY)
        }
        // The first page is at the top right; → goes leftwards, as the rows lie.
        #expect(rtl.box(of: 0)!.minX > 0)
        #expect(rtl.box(of: 2)!.maxX <= rtl.box(of: 1)!.minX)
        #expect(rtl.image(from: 3, columns: 1, rows: 0) == 2)
        #expect(ltr.image(from: 3, columns: 1, rows: 0) == 4)
        #expect(ltr.image(from: 3, columns: 0, rows: 1) == 11)
        #expect(ltr.image(from: 28, columns: 0, rows: 1) == 29)
    }

    @Test func scrollStaysWithinTheRows() {
        var grid = Overview(book: book(400), viewSize: view)
        #expect(grid.rows == 51)
        grid.scroll(to: -50)
        #expect(grid.scroll == 0)
        grid.scroll(to: 1e9)
        #expect(grid.scroll == grid.maxScroll)
        // At the end the last row lies over the bottom margin.
        #expect(abs(grid.box(of: 399)!.minY - (-view.y / 2 + grid.margin)) < 1e-9)
        // A short book does not scroll at all.
        var short = Overview(book: book(10), viewSize: view)
        short.scroll(to: 300)
        #expect(short.maxScroll == 0 && short.scroll == 0)
        // Scrolling to show a page brings its whole box into view, from either side.
        let shown = Overview(book: book(400), viewSize: view, scroll: grid.scroll(showing: 200))
        let box = shown.box(of: 200)!
        #expect(box.maxY <= view.y / 2 && box.minY >= -view.y / 2)
        let back = Overview(book: book(400), viewSize: view, scroll: shown.scroll(showing: 3))
        #expect(back.box(of: 3)!.maxY <= view.y / 2)
        // Centring puts the row in the middle, but never scrolls past the first or last row.
        let centred = Overview(book: book(400), viewSize: view, scroll: grid.scroll(centring: 200))
        #expect(abs(centred.box(of: 200)!.centre.y) < 1e-9)
        #expect(grid.scroll(centring: 0) == 0 && grid.scroll(centring: 399) == grid.maxScroll)
    }

    @Test func onlyTheRowsInViewAreInTheScene() {
        let grid = Overview(book: book(400), viewSize: view, scroll: 3000)
        let shown = grid.imagesInView()
        // Three rows or so in view, one more either side: 40 pages of 400.
        #expect(shown.count <= 48 && shown.count >= 24)
        for image in shown { #expect(grid.box(of: image)!.minY < view.y / 2 + 2 * grid.pageSize.y) }
        #expect(grid.box(of: shown.lowerBound - 1).map { $0.minY > view.y / 2 } ?? true)
        #expect(grid.box(of: shown.upperBound).map { $0.maxY < -view.y / 2 } ?? true)
        let scene = grid.scene(index: 0, current: [shown.lowerBound + 1, shown.lowerBound + 2], selected: shown.lowerBound)
        let pages = scene.items.filter { $0.kind == .page }
        #expect(pages.map(\.front) == shown.map { FaceContent.page(0, LayoutPage($0 + 2)) })
        // The spread read lies on the cover board (two halves under each of its pages).
        #expect(scene.items.filter { $0.kind == .board }.count == 4)
        // The chosen page is raised towards the eye.
        let z = pages.map { $0.model.project(Vec3(0, 0, 0)).z }
        #expect(z[0] > z[1])
    }
}
