import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioMath
import FolioReader
import FolioRender
import FolioScript
import Foundation
import Testing

/// Every render mode (docs/behaviour.md §6) against a reference image, plus content checks that fail
/// when a feature breaks (shadows, crease, antialiasing, two-sided sheets).
@Suite(.serialized) struct RenderModeTests {
    static let library = Library.load(from: GLHarness.textures)
    static let width = 320, height = 180

    static func still(_ configure: (inout StillState) -> Void) throws -> Scene {
        var s = StillState()
        configure(&s)
        return try s.scene(library: library.bookInfos)
    }

    static func render(_ scene: Scene, width: Int = width, height: Int = height) throws -> RGBAImage {
        try GLHarness.shared.render(scene, width: width, height: height, library: library)
    }

    static let styles: [(TurnStyle.Direction, TurnStyle.Orientation, TurnStyle.Perspective)] =
        TurnStyle.Direction.allCases.flatMap { d in
            TurnStyle.Orientation.allCases.flatMap { o in TurnStyle.Perspective.allCases.map { (d, o, $0) } }
        }

    @Test(arguments: styles)
    func rigidStyleMidTurn(_ direction: TurnStyle.Direction, _ orientation: TurnStyle.Orientation,
                           _ perspective: TurnStyle.Perspective) throws {
        let scene = try Self.still {
            $0.book = 0
            $0.page = 7
            $0.turn = 0.35
            $0.style = TurnStyle(direction: direction, orientation: orientation, perspective: perspective)
        }
        let img = try Self.render(scene)
        ImageAssert.matchesReference(img, named: "rigid-\(direction.rawValue)-\(orientation.rawValue)-\(perspective.rawValue)")
    }

    @Test func eightStylesLookDifferent() throws {
        var images: [RGBAImage] = []
        for (d, o, p) in Self.styles {
            images.append(try Self.render(try Self.still {
                $0.book = 0; $0.page = 7; $0.turn = 0.35
                $0.style = TurnStyle(direction: d, orientation: o, perspective: p)
            }))
        }
        for i in images.indices {
            for j in images.indices where j > i {
                let r = try #require(ImageAssert.compare(images[i], images[j], channelTolerance: 8))
                #expect(r.fraction > 0.005, "styles \(i) and \(j) render alike")
            }
        }
    }

    @Test(arguments: [0.25, 0.5, 0.75])
    func curlFromBottomRightCorner(_ t: Double) throws {
        let img = try Self.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = t; $0.grab = Vec2(1, -0.5) })
        ImageAssert.matchesReference(img, named: "curl-corner-\(Int(t * 100))")
    }

    @Test func curlFromTopEdge() throws {
        let img = try Self.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = 0.4; $0.grab = Vec2(300.0 / 362, 0.5) })
        ImageAssert.matchesReference(img, named: "curl-top-edge")
    }

    @Test func coneMidTurn() throws {
        let img = try Self.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = 0.4; $0.deform = .cone })
        ImageAssert.matchesReference(img, named: "cone-40")
    }

    /// In the fan a curl bends the sheet in transit: its flap stands off the plane the sheet
    /// leaves, showing paper where the rigid fan's sheet is not, and the picture differs.
    @Test func fanCurlBendsTheSheetInTransit() throws {
        let rigid = try Self.still { $0.book = 0; $0.page = 10; $0.layout = .fan; $0.turn = 0.3 }
        let curl = try Self.still { $0.book = 0; $0.page = 10; $0.layout = .fan; $0.turn = 0.3; $0.deform = .curl }
        let sheet = try #require(curl.items.first { $0.back != nil && $0.deformation != .flat })
        guard case let .curl(c) = sheet.deformation else { Issue.record("the fan's sheet is not curled"); return }
        #expect(c.rotation + c.wrap > 0.05 && c.rotation + c.wrap <= .pi / 2 + 1e-9,
                "it turns only as far as the fan's planes meet: \(c.rotation) + \(c.wrap)")
        let (w, h) = (640, 360)
        let a = try Self.render(rigid, width: w, height: h), b = try Self.render(curl, width: w, height: h)
        let r = try #require(ImageAssert.compare(a, b, channelTolerance: 8))
        #expect(r.fraction > 0.02, "the curl looks like the rigid fan: \(r.fraction)")
        // The flap near the grabbed corner (the bottom outer one), where the curl carried it.
        let local = sheet.deformation.apply(Vec2(0.9 * sheet.size.x, -0.4 * sheet.size.y)).position
        let at = curl.camera.fitted(width: w, height: h).projectToView(sheet.model.project(local))
        let scale = Double(w) / curl.camera.fitted(width: w, height: h).viewSize.x
        let (x, y) = (Int(Double(w) / 2 + at.x * scale), Int(Double(h) / 2 - at.y * scale))
        #expect(b.meanLuma(x: x - 3, y: y - 3, width: 7, height: 7) > 120, "no paper at the flap (\(x), \(y))")
        #expect(abs(a.meanLuma(x: x - 3, y: y - 3, width: 7, height: 7) - b.meanLuma(x: x - 3, y: y - 3, width: 7, height: 7)) > 4
                || r.fraction > 0.05, "the flap's place looks the same in the rigid fan")
    }

    @Test func spreads() throws {
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.book = 1; $0.page = 9; $0.layout = .fan }), named: "spread-fan")
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.book = 1; $0.page = 9 }), named: "spread-flat-layout")
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.book = 2; $0.page = 5; $0.viewpoint = .above }),
                                     named: "spread-from-above")
    }

    @Test func bookClosedAndOpening() throws {
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.book = 0; $0.open = 0 }), named: "book-closed")
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.book = 0; $0.open = 0.5 }), named: "book-opening-50")
    }

    @Test func shelves() throws {
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.scroll = 1 }), named: "shelf-carousel")
        ImageAssert.matchesReference(try Self.render(try Self.still { $0.shelf = .wheel; $0.scroll = 1 }), named: "shelf-wheel")
    }

    // MARK: content checks

    /// The revealed page beneath a rising sheet is darker than the same page at rest.
    @Test func areaUnderTurningSheetIsDarker() throws {
        let rest = try Self.render(try Self.still { $0.book = 0; $0.page = 7 }, width: 640, height: 360)
        let turning = try Self.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = 0.3 }, width: 640, height: 360)
        // A strip of the right-hand page near the fore edge, uncovered by the sheet at 0.3.
        let x = 470, y = 60, w = 20, h = 240
        let a = rest.meanLuma(x: x, y: y, width: w, height: h), b = turning.meanLuma(x: x, y: y, width: w, height: h)
        #expect(b < a - 8, "at rest \(a), under the turning sheet \(b)")
    }

    /// The page a sheet reveals is darkest next to the rising sheet and lightens gradually
    /// towards its open edge (ambient occlusion from the sheet's geometry, cast shadow off).
    @Test func revealedPageDarkensNearTheSheetAndSoftly() throws {
        let rest = try Self.render(try Self.still { $0.book = 0; $0.page = 9 }, width: 640, height: 360)
        let turning = try GLHarness.shared.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = 0.3 },
                                                  width: 640, height: 360, library: Self.library) { $0.shadowStrength = 0 }
        // Columns of the revealed page between the sheet's edge (about x = 446) and the fore edge.
        let ratio = (452..<496).map { x in
            turning.meanLuma(x: x, y: 100, width: 1, height: 160) / rest.meanLuma(x: x, y: 100, width: 1, height: 160)
        }
        #expect(ratio.first! < ratio.last! - 0.05, "near the sheet \(ratio.first!), at the open edge \(ratio.last!)")
        #expect(ratio.last! > 0.75, "the open edge is only a little darker: \(ratio.last!)")
        let steepest = zip(ratio, ratio.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        #expect(steepest < 0.03, "the darkening is soft: steepest step \(steepest) per pixel")
    }

    /// A curl's flap, lying over the sheet's front, shadows the front just beside its edge;
    /// further from the flap the front is as bright as without a flap.
    @Test func flapShadowsTheSheetBesideIt() throws {
        // A flat sheet whose curl folds its bottom outer corner back over itself.
        let size = Vec2(362, 568)
        let curl = Deformation.Curl(point: Vec2(300, -200), direction: Vec2(0.6, -0.8), radius: 20)
        var scene = flatSpread(spread: 3)
        scene.items.append(SceneItem(kind: .sheet, book: 0, page: 8, size: size, model: .identity, deformation: .curl(curl),
                                     front: .blank, back: .blank, z: 10))
        let img = try Self.render(scene, width: 1280, height: 720)
        // Above the flap's upper edge (it lies about x 900…1000, y 520…640 at this size).
        let open = img.meanLuma(x: 700, y: 200, width: 8, height: 8)
        var darkest = 255.0
        for y in 500..<530 { for x in 860..<1000 { darkest = min(darkest, img.luma(x, y)) } }
        #expect(darkest < open - 40, "beside the flap \(darkest), open paper \(open)")
        // Soft: along a row towards the flap the paper darkens over several pixels.
        let between = (860..<910).filter { img.luma($0, 520) < open - 5 && img.luma($0, 520) > darkest + 5 }.count
        #expect(between >= 5, "pixels in the shadow's soft edge: \(between)")
    }

    /// Type on a steep sheet keeps its contrast with the biased tap (without it the mipmap
    /// level follows the squeezed direction and the lines blur into grey).
    @Test func typeOnASteepSheetStaysSharp() throws {
        let scene = try Self.still { $0.book = 0; $0.page = 10; $0.turn = 0.42 }
        func contrast(_ taps: Bool) throws -> Double {
            let img = try GLHarness.shared.render(scene, width: 1280, height: 720, library: Self.library) { $0.biasedTaps = taps }
            // The steep sheet's text right of the spine: luma steps across its lines of type.
            var sum = 0.0, count = 0.0
            for y in stride(from: 300, to: 560, by: 2) {
                for x in 642..<690 {
                    sum += abs(img.luma(x, y) - img.luma(x, y + 1)); count += 1
                }
            }
            return sum / count
        }
        let sharp = try contrast(true), blurred = try contrast(false)
        #expect(sharp > 1.3 * blurred, "pixel-to-pixel contrast with the taps \(sharp), without \(blurred)")
    }

    /// The cast shadow follows the sheet: the darkened area differs between two progress values.
    @Test func castShadowChangesWithProgress() throws {
        func shadowMask(_ turn: Double) throws -> [Bool] {
            let lit = try Self.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = turn; $0.deform = .curl }, width: 320, height: 180)
            var unshadowed = lit
            unshadowed = try GLHarness.shared.render(try Self.still { $0.book = 0; $0.page = 7; $0.turn = turn; $0.deform = .curl },
                                                     width: 320, height: 180, library: Self.library) { $0.shadowStrength = 0 }
            return (0..<(320 * 180)).map { i in
                lit.luma(i % 320, i / 320) < unshadowed.luma(i % 320, i / 320) - 4
            }
        }
        let early = try shadowMask(0.3), late = try shadowMask(0.6)
        let earlyCount = early.filter { $0 }.count, lateCount = late.filter { $0 }.count
        #expect(earlyCount > 200 && lateCount > 200, "shadowed pixels: \(earlyCount), \(lateCount)")
        let differing = zip(early, late).filter { $0 != $1 }.count
        #expect(differing > max(earlyCount, lateCount) / 4, "shadow masks differ in \(differing) pixels")
    }

    /// The crease band darkens the moving face next to the spine, not in its middle.
    @Test func creaseIsDarkestAtTheSpine() throws {
        func sheetScene(crease: Double) -> Scene {
            var s = flatSpread(spread: 3)
            s.items.append(SceneItem(kind: .sheet, book: 0, page: 8, size: Vec2(362, 568), model: .rotationY(-0.25),
                                     front: .page(0, 8), back: .page(0, 9), shade: Shade(crease: crease), z: 10))
            return s
        }
        let with = try Self.render(sheetScene(crease: 1), width: 640, height: 360)
        let without = try Self.render(sheetScene(crease: 0), width: 640, height: 360)
        let nearSpine = without.meanLuma(x: 322, y: 100, width: 4, height: 160) - with.meanLuma(x: 322, y: 100, width: 4, height: 160)
        let middle = without.meanLuma(x: 400, y: 100, width: 4, height: 160) - with.meanLuma(x: 400, y: 100, width: 4, height: 160)
        #expect(nearSpine > 20, "crease darkening next to the spine: \(nearSpine)")
        #expect(middle < 1, "crease darkening in the middle: \(middle)")
    }

    /// A slanted page edge is antialiased: pixels between desk and paper appear along it.
    @Test func slantedEdgeHasBlendedPixels() throws {
        var scene = flatSpread()
        scene.items = [SceneItem(kind: .page, book: 0, page: 1, size: Vec2(362, 568), model: .rotationZ(0.3), front: .blank)]
        let img = try Self.render(scene, width: 640, height: 360)
        let paper = 0.2126 * 247 + 0.7152 * 242 + 0.0722 * 230
        var blended = 0
        for y in stride(from: 60, to: 300, by: 10) {
            let row = (0..<640).map { img.luma($0, y) }
            // The page's right (slanted) edge: the last paper pixel from the left half onwards.
            guard let edge = (320..<639).last(where: { row[$0] > paper - 12 }) else { continue }
            let outside = row[min(edge + 3, 639)]
            if row[edge + 1] > outside + 15 && row[edge + 1] < paper - 15 { blended += 1 }
        }
        #expect(blended >= 12, "rows with a blended edge pixel: \(blended)")
    }

    /// A sheet turned over shows its back: the next page, mirrored so it reads correctly.
    @Test func backFaceIsTheMirroredNextPage() throws {
        var turned = flatSpread(spread: 3)
        turned.items[0].visible = false
        turned.items.append(SceneItem(kind: .sheet, book: 0, page: 6, size: Vec2(362, 568), model: .rotationY(-.pi),
                                      front: .page(0, 6), back: .page(0, 7), z: 10))
        var resting = flatSpread(spread: 3)
        resting.items[0] = SceneItem(kind: .page, book: 0, page: 7, size: Vec2(362, 568), model: .scale(-1, 1, 1),
                                     front: .page(0, 7), uv: .mirrored)
        let a = try Self.render(turned, width: 640, height: 360)
        let b = try Self.render(resting, width: 640, height: 360)
        var left = a, right = b
        left.pixels = []; right.pixels = []
        var diff = 0, total = 0
        for y in 40..<320 {
            for x in 92..<318 {
                total += 1
                if abs(a.luma(x, y) - b.luma(x, y)) > 24 { diff += 1 }
            }
        }
        #expect(Double(diff) / Double(total) < 0.01, "\(diff) of \(total) pixels differ")
        // And it is not the front page seen through.
        let front = try Self.render(flatSpread(spread: 2), width: 640, height: 360)
        var same = 0
        for y in 40..<320 { for x in 92..<318 where abs(a.luma(x, y) - front.luma(639 - x, y)) < 6 { same += 1 } }
        #expect(Double(same) / Double(total) < 0.97)
    }
}
