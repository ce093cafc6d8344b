import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import FolioReader
import FolioRender
import FolioScript
import Foundation
import Testing

/// Paper and light: the back of a sheet lit from behind has its own tone, the other side's
/// print shows through faintly and mirrored, and pages curve down into the gutter.
@Suite(.serialized) struct PaperLightTests {
    static let width = 640, height = 360

    /// A book whose image 0 (layout page 2, a right-hand page) has a black block in its top-left
    /// quarter and whose image 1 (layout page 3, that sheet's back) is blank white.
    static let printed: Library = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-show-through-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let w = 181, h = 284
        var print = RGBAImage(width: w, height: h, fill: (255, 255, 255, 255))
        for y in 0..<(h / 2) {
            for x in 0..<(w / 2) {
                let i = 4 * (y * w + x)
                print.pixels[i] = 0
                print.pixels[i + 1] = 0
                print.pixels[i + 2] = 0
            }
        }
        let blank = RGBAImage(width: w, height: h, fill: (255, 255, 255, 255))
        let paths = [("print", print), ("blank", blank)].map { name, image in
            let path = dir.appendingPathComponent("\(name).png").path
            try? PNG.write(image, to: path)
            return path
        }
        return Library(title: "", books: [Book(title: "Printed", pages: paths.map(PageRef.image), printed: true)])
    }()

    /// Image 0 (layout page 2) is lines of "type": 6-pixel bars every 14 rows over its middle,
    /// with a wide margin; image 1 (its back, layout page 3) is blank. Printed on paper as
    /// `printed` says.
    static func lines(printed: Bool) -> Library {
        printOverBlank("lines", width: 181, height: 284, printed: printed) { x, y in
            (40..<244).contains(y) && (y - 40) % 14 < 6 && (20..<161).contains(x)
        }
    }

    /// A book of two images, `width × height`: image 0 (layout page 2) inked near-black where
    /// `inked(x, y)` says, image 1 (its back, layout page 3) blank.
    static func printOverBlank(_ name: String, width w: Int, height h: Int, printed: Bool,
                               inked: (Int, Int) -> Bool) -> Library {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(name)-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var print = RGBAImage(width: w, height: h, fill: (255, 255, 255, 255))
        for y in 0..<h {
            for x in 0..<w where inked(x, y) {
                let i = 4 * (y * w + x)
                (print.pixels[i], print.pixels[i + 1], print.pixels[i + 2]) = (20, 20, 20)
            }
        }
        let paths = [(name, print), ("blank", RGBAImage(width: w, height: h, fill: (255, 255, 255, 255)))].map { name, image in
            let path = dir.appendingPathComponent("\(name).png").path
            try? PNG.write(image, to: path)
            return path
        }
        return Library(title: "", books: [Book(title: printed ? "Text" : "Photographs", pages: paths.map(PageRef.image), printed: printed)])
    }

    /// On paper the other side's lines show through a blank page as faint bars, one per line
    /// of its print (structure, not a blotch); a book of photographs shows nothing through.
    @Test func showThroughIsTheOtherSidesLinesOnPaperOnly() throws {
        func blank(_ printed: Bool, showThrough: Bool = true) throws -> RGBAImage {
            var scene = flatSpread(book: 0, spread: 1)
            scene.items = scene.items.filter { $0.page == 3 }
            scene.items[0].behind = .page(0, 2)
            (scene.items[0].shade.showThrough, scene.items[0].shade.showThroughBehind) = PageStack.showThrough(lift: 0)
            return try GLHarness.shared.render(scene, width: Self.width, height: Self.height, library: Self.lines(printed: printed)) {
                $0.showThrough = showThrough
            }
        }
        let paper = try blank(true), photo = try blank(false), none = try blank(true, showThrough: false)
        // The left page spans x ≈ 158 … 320, y ≈ 38 … 322; the lines lie over y ≈ 78 … 282.
        let rows = (90..<270).map { paper.meanLuma(x: 200, y: $0, width: 80, height: 1) }
        let plain = none.meanLuma(x: 200, y: 90, width: 80, height: 180)
        let light = rows.max() ?? 0, dark = rows.min() ?? 0
        #expect(light - dark > 3, "the lines show as bars: rows \(dark) … \(light)")
        #expect(plain - dark < 30 && plain - dark > 3, "faintly: \(plain) → \(dark)")
        // Bars, not a blotch: the rows alternate about once a line (14 image rows ≈ 14 pixels here).
        let mean = rows.reduce(0, +) / Double(rows.count)
        let crossings = zip(rows, rows.dropFirst()).filter { ($0 - mean) * ($1 - mean) < 0 }.count
        #expect(crossings >= 16 && crossings <= 40, "\(crossings) crossings of the mean: \(rows.map { Int($0) })")
        let same = photo.pixels == none.pixels
        #expect(same, "a photograph's back does not show through")
    }

    /// Image 0 (layout page 2) is set type at about a book's proportions: 47 lines, each a row
    /// of "letters" (2-texel strokes every 4 texels, in words of five); image 1 (its back) is
    /// blank. Printed on paper.
    static let type = printOverBlank("type", width: 362, height: 568, printed: true) { x, y in
        (2..<566).contains(y) && y % 12 < 7 && (2..<360).contains(x) && x % 4 < 2 && x % 24 < 20
    }

    /// The paper diffuses the other side's print: through a blank page its lines show as bands,
    /// never its letters, magnified three times as at rest, and the bands are as strong in both
    /// (the diffusion is in page units, not pixels).
    @Test func showThroughIsDiffusedLinesAtEveryZoom() throws {
        func blank(zoom: Double) throws -> RGBAImage {
            var scene = flatSpread(book: 0, spread: 1)
            scene.items = scene.items.filter { $0.page == 3 }
            scene.items[0].behind = .page(0, 2)
            (scene.items[0].shade.showThrough, scene.items[0].shade.showThroughBehind) = PageStack.showThrough(lift: 0)
            scene.camera.viewSize = scene.camera.viewSize / zoom
            return try GLHarness.shared.render(scene, width: Self.width, height: Self.height, library: Self.type)
        }
        // Layout x −200 … −60 of the left page (its spine at x = 0, the view's centre), y ±120:
        // 0.5 pixels a unit at zoom 1, 1.5 at zoom 3.
        func rows(_ image: RGBAImage, zoom: Double) -> [[Double]] {
            let scale = 0.5 * zoom, x0 = Int(320 - 200 * scale), x1 = Int(320 - 60 * scale)
            return (Int(180 - 120 * scale)..<Int(180 + 120 * scale)).map { y in (x0..<x1).map { image.luma($0, y) } }
        }
        func bands(_ rows: [[Double]]) -> Double {
            let means = rows.map { $0.reduce(0, +) / Double($0.count) }
            let mean = means.reduce(0, +) / Double(means.count)
            return (means.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(means.count)).squareRoot()
        }
        let near = rows(try blank(zoom: 3), zoom: 3), far = rows(try blank(zoom: 1), zoom: 1)
        let nearBands = bands(near), farBands = bands(far)
        // Letters 4 texels apart are 6 pixels apart at zoom 3: a 3-pixel step along a line
        // crosses from a stroke to a gap. Measured along the darkest row (a line's middle).
        let line = near.min { $0.reduce(0, +) < $1.reduce(0, +) } ?? []
        let letters = zip(line, line.dropFirst(3)).map { abs($0 - $1) }.reduce(0, +) / Double(max(line.count - 3, 1))
        // A level that follows the screen (a bias over its footprint) gives bands of 3.5 at zoom 3
        // and 0.4 at 1, letters of 10.4.
        #expect(nearBands > 0.5 && farBands > 0.5, "the lines show as bands: \(nearBands) at zoom 3, \(farBands) at 1")
        #expect(letters < 1.5, "no letters along a line, magnified: \(letters)")
        #expect(abs(nearBands - farBands) < 0.35 * max(nearBands, farBands),
                "bands as strong at zoom 3 as at 1: \(nearBands) against \(farBands)")
    }

    /// The spread showing layout page 3 (blank, left) over the print of page 2 behind it.
    static func blankOverPrint(showThrough: Bool) throws -> RGBAImage {
        var scene = flatSpread(book: 0, spread: 1)
        scene.items = scene.items.filter { $0.page == 3 }
        scene.items[0].behind = .page(0, 2)
        (scene.items[0].shade.showThrough, scene.items[0].shade.showThroughBehind) = PageStack.showThrough(lift: 0)
        return try GLHarness.shared.render(scene, width: width, height: height, library: printed) { $0.showThrough = showThrough }
    }

    @Test func theOtherSidesPrintShowsThroughFaintlyAndMirrored() throws {
        let seen = try Self.blankOverPrint(showThrough: true), plain = try Self.blankOverPrint(showThrough: false)
        // The left page spans x ≈ 158 … 320 at this size, its spine at the centre. The print lies
        // in the top quarter by the spine (its image's left half is next to the spine, and
        // seen from the back, it stays there), not in the outer one.
        let byTheSpine = seen.meanLuma(x: 260, y: 60, width: 40, height: 80)
        let outer = seen.meanLuma(x: 180, y: 60, width: 40, height: 80)
        let below = seen.meanLuma(x: 260, y: 220, width: 40, height: 80)
        let plainByTheSpine = plain.meanLuma(x: 260, y: 60, width: 40, height: 80)
        #expect(byTheSpine < outer - 4 && byTheSpine < below - 4,
                "darker where the print is behind: \(byTheSpine) against \(outer) outside, \(below) below")
        #expect(plainByTheSpine - byTheSpine < 40, "only faintly: \(plainByTheSpine) → \(byTheSpine)")
        #expect(abs(seen.meanLuma(x: 180, y: 220, width: 40, height: 80) - plain.meanLuma(x: 180, y: 220, width: 40, height: 80)) < 1,
                "nothing shows where nothing is printed")
    }

    /// A rigid sheet of blank paper seen from its front and from its back, the light from the
    /// left: the back, lit from behind, is warmer (less blue against red) than the lit front.
    @Test func theBackOfATurnedSheetHasItsOwnTone() throws {
        func sheet(_ turn: Double) throws -> (blueOverRed: Double, luma: Double) {
            var s = StillState()
            s.book = 0
            s.page = 7
            s.turn = turn
            var scene = try s.scene(library: [BookInfo(title: "Blank", imageCount: 30)])
            scene.items = scene.items.filter { $0.kind == .sheet }
            scene.light = normalize(Vec3(-0.8, 0, 0.6))
            let img = try GLHarness.shared.render(scene, width: Self.width, height: Self.height)
            var r = 0.0, b = 0.0, l = 0.0, n = 0.0
            for y in stride(from: 0, to: Self.height, by: 2) {
                for x in stride(from: 0, to: Self.width, by: 2) where img.luma(x, y) > 100 {
                    let p = img.pixel(x, y)
                    r += Double(p.r)
                    b += Double(p.b)
                    l += img.luma(x, y)
                    n += 1
                }
            }
            try #require(n > 500, "the sheet is on screen at \(turn)")
            return (b / r, l / n)
        }
        let front = try sheet(0.3), back = try sheet(0.65)
        #expect(back.blueOverRed < front.blueOverRed - 0.08, "front \(front), back \(back)")
        #expect(back.luma < front.luma, "front \(front), back \(back)")
    }

    /// A book of two images: layout page 2 blank, and its back, page 3, inked black over its
    /// top-left quarter when `inkedBack`, else blank too.
    static func sheetBack(inkedBack: Bool) -> Library {
        let pages = printOverBlank(inkedBack ? "inked-back" : "blank-back", width: 181, height: 284, printed: true) { x, y in
            inkedBack && x < 90 && y < 142
        }.books[0].pages
        return Library(title: "", books: [Book(title: "Text", pages: pages.reversed(), printed: true)])
    }

    /// The back of a lifted curl, seen along the middle of the sheet from its spine to its fore
    /// edge at `turn`, the sheet alone, the light low from the left (the back turned away from
    /// it) or the scene's own (`lowLight` false: the back turned to it): at each point where the
    /// back faces the eye, how the light falls on it (n · l) and the pixel's luma there; and
    /// the lumas over its whole back.
    static func curlBack(turn: Double, library: Library, lowLight: Bool = true, configuration: RenderConfiguration = .reference,
                         configure: (inout RenderSettings) -> Void = { _ in }) throws -> (row: [(nl: Double, luma: Double)], all: [Double]) {
        var s = StillState()
        s.book = 0
        s.page = 1
        s.turn = turn
        s.deform = .curl
        // Held by the fore edge's middle: a straight fold, the row crossing crest and flap.
        s.grab = Vec2(1, 0)
        var scene = try s.scene(library: library.bookInfos)
        scene.items = scene.items.filter { $0.kind == .sheet }
        if lowLight { scene.light = normalize(Vec3(-0.8, 0, 0.6)) }
        let sheet = try #require(scene.items.first)
        let (w, h) = (1280, 720)
        let img = try GLHarness.shared.render(scene, width: w, height: h, library: library, configuration: configuration, configure: configure)
        let eye = Vec3(0, 0, scene.camera.eyeDistance)
        func sample(_ a: Double, _ l: Double) -> (nl: Double, luma: Double)? {
            let p = sheet.deformation.apply(Vec2(a * sheet.size.x, l * sheet.size.y))
            let at = sheet.model.project(p.position)
            let back = normalize(sheet.model.transformDirection(p.normal)) * -1
            guard dot(back, normalize(eye - at)) > 0.2 else { return nil }
            let px = FanBookTests.pixel(at, in: scene, width: w, height: h)
            return (dot(back, scene.light), img.luma(px.x, px.y))
        }
        let row = stride(from: 0.3, through: 0.97, by: 0.01).compactMap { sample($0, 0) }
        let all = stride(from: 0.05, through: 0.95, by: 0.05).flatMap { a in
            stride(from: -0.45, through: 0.45, by: 0.05).compactMap { sample(a, $0)?.luma }
        }
        return (row, all)
    }

    /// The back of a lifted sheet is paper lit as the front is: across a curl's back, from its
    /// crest to its flat flap, brighter wherever it turns further towards the light (no band of
    /// one grey where it turns away), and at each turn as bright as its flap's angle to the light
    /// makes it; printed with its own page. Faces turned away from the light were held at one
    /// grey, and the back read as a flat grey card.
    @Test func theBackOfALiftedSheetIsLitByItsAngleAndPrinted() throws {
        let blank = Self.sheetBack(inkedBack: false)
        let back = try Self.curlBack(turn: 0.7, library: blank)
        try #require(back.row.count > 10, "the back is seen at \(back.row.count) points")
        let sorted = back.row.sorted { $0.nl < $1.nl }
        #expect(sorted.last!.luma - sorted.first!.luma > 15, "the back across: \(sorted.map { Int($0.luma) })")
        for (a, b) in zip(sorted, sorted.dropFirst(4)) where b.nl - a.nl > 0.04 {
            #expect(b.luma > a.luma, "lit by \(a.nl) and by \(b.nl): \(a.luma) and \(b.luma)")
        }
        // The flat flap (its fore edge) at three turns: brighter as it turns towards the light.
        let flaps = try [0.6, 0.7, 0.8].map { try Self.curlBack(turn: $0, library: blank).row.last! }
        #expect(zip(flaps, flaps.dropFirst()).allSatisfy { $1.nl > $0.nl + 0.05 && $1.luma > $0.luma + 3 }, "\(flaps)")
        // Its own page's ink: darker than half the blank back's darkest paper.
        let inked = try Self.curlBack(turn: 0.7, library: Self.sheetBack(inkedBack: true)).all, paper = back.all.min() ?? 0
        #expect(paper > 60 && inked.filter { $0 < paper / 2 }.count > 10, "ink on the back: \(inked.filter { $0 < paper / 2 }.count), paper \(paper)")
    }

    /// A lifted sheet's back, the light falling on it, shows its front's print faintly through
    /// the paper on a printed book (half as much as a page lying on its stack: no stack behind
    /// it sends the light back through the print); none with show-through off. In every
    /// configuration users have (MSAA 0 and 4, software and GPU filtering).
    @Test(arguments: RenderConfiguration.matrix)
    func theBackOfALiftedSheetShowsItsFrontThrough(_ configuration: RenderConfiguration) throws {
        func back(inkedFront: Bool, showThrough: Bool = true) throws -> [Double] {
            let pages = Self.printOverBlank(inkedFront ? "inked-front" : "blank-front", width: 181, height: 284, printed: true) { _, _ in
                inkedFront
            }.books[0].pages
            let library = Library(title: "", books: [Book(title: "Text", pages: pages, printed: true)])
            // Where the light falls on it (the flap), not lit from behind (by the crest).
            let row = try Self.curlBack(turn: 0.7, library: library, lowLight: false, configuration: configuration) {
                $0.showThrough = showThrough
            }.row
            return row.filter { $0.nl > 0.2 }.map(\.luma)
        }
        let blank = try back(inkedFront: false), inked = try back(inkedFront: true)
        try #require(blank.count > 30 && blank.count == inked.count, "the lit back is seen at \(blank.count) points")
        let darker = zip(blank, inked).map { $0 - $1 }
        let mean = darker.reduce(0, +) / Double(darker.count)
        #expect(mean > 3 && (darker.max() ?? 0) < 16, "the front shows through the back by \(mean) levels, at most \(darker.max() ?? 0)")
        let off = try back(inkedFront: true, showThrough: false)
        #expect(off == blank, "with show-through off the back does not show its front")
    }

    /// The right page of a thick book, seen from above with its spine away from the vanishing
    /// point: near the spine its pixels move where the page curves down; away from it, not.
    @Test func pagesCurveDownIntoTheGutter() throws {
        let info = BookInfo(title: "Thick", imageCount: 800)
        var v = ViewState(phase: .reading, book: 0, layout: .flat, spread: 200, viewpoint: .above, zoom: 2)
        v.pan = Vec2(-180, 0)
        let curved = makeScene(v, books: [info])
        var flat = curved
        for i in flat.items.indices { flat.items[i].gutterDrop = .zero }
        let a = try GLHarness.shared.render(curved, width: Self.width, height: Self.height)
        let b = try GLHarness.shared.render(flat, width: Self.width, height: Self.height)
        func change(x: Int) -> Double {
            var sum = 0.0
            for y in 20..<(Self.height - 20) { sum += abs(a.luma(x, y) - b.luma(x, y)) }
            return sum / Double(Self.height - 40)
        }
        // The spine sits at x ≈ 320 − 180 × zoom × fit; find it as the darkest gutter column
        // of the left half (the block's fore edge, further right, is darker).
        let column = { (x: Int) in b.meanLuma(x: x, y: 100, width: 1, height: 160) }
        let spine = try #require((0..<Self.width / 2).filter { column($0) > 120 }.min { column($0) < column($1) })
        let near = (spine + 2..<spine + 12).map(change).max() ?? 0
        let far = (spine + 80..<spine + 100).map(change).max() ?? 0
        #expect(near > 3, "pixels by the spine move with the curve: \(near) (spine at \(spine))")
        // Away from it the page only arches, gently.
        #expect(far < 0.5 * near, "pixels away from the spine move less: \(far) against \(near)")
    }
}
