import Testing
import FolioLayout
import FolioMath

/// Books of any page size: covers keep their aspect, the opening never jumps, the eye follows
/// the page width.
@Suite struct BookShapeTests {
    static let landscape = BookInfo(title: "Landscape", imageCount: 6, pageSize: Vec2(800, 500))
    static let tall = BookInfo(title: "Tall", imageCount: 6, pageSize: Vec2(300, 900))
    static let library = [book(6), landscape, tall]

    /// An item's corners as seen through the scene's camera, view units.
    static func corners(_ item: SceneItem, _ scene: Scene) -> [Vec2] {
        [(0.0, -0.5), (1, -0.5), (1, 0.5), (0, 0.5)].map { a, l in
            scene.camera.projectToView(item.model.project(Vec3(a * item.size.x, l * item.size.y, 0)))
        }
    }

    static func extent(_ c: [Vec2]) -> Vec2 {
        let xs = c.map(\.x), ys = c.map(\.y)
        return Vec2(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
    }

    @Test func coverFitKeepsTheReferenceAndFitsOthersInItsBox() {
        #expect(BookShape.coverFit(BookInfo.referencePageSize) == 1)
        #expect(close(BookShape.coverFit(Vec2(800, 500)), 362.0 / 800))
        #expect(close(BookShape.coverFit(Vec2(300, 900)), 568.0 / 900))
    }

    @Test(arguments: ShelfStyle.allCases)
    func shelfCoversHaveTheirBooksAspect(_ shelf: ShelfStyle) {
        for b in Self.library.indices {
            let scene = makeScene(ViewState(shelf: shelf, scroll: Double(b)), books: Self.library)
            let cover = try! #require(scene.items.first { $0.kind == .cover && $0.book == b })
            let e = Self.extent(Self.corners(cover, scene))
            let size = Self.library[b].pageSize
            #expect(close(e.x / e.y, size.x / size.y, 1e-6))
            // It fits the slot of a reference cover at the shelf's scale, touching two sides.
            #expect(e.x <= 0.7 * 362 + 1e-6 && e.y <= 0.7 * 568 + 1e-6)
            #expect(close(e.x, 0.7 * 362, 1e-6) || close(e.y, 0.7 * 568, 1e-6))
        }
    }

    @Test(arguments: [(1, TurnStyle.Orientation.horizontal), (2, .horizontal), (1, .vertical), (2, .vertical), (0, .horizontal)])
    func openingSweepHasNoJump(_ b: Int, _ orientation: TurnStyle.Orientation) throws {
        let shelf = makeScene(ViewState(scroll: Double(b)), books: Self.library)
        let shelfCover = try #require(shelf.items.first { $0.kind == .cover && $0.book == b })
        var last: [[Vec2]]?
        let steps = 100
        for k in 0...steps {
            let v = ViewState(phase: .opening, scroll: Double(b), book: b, openProgress: Double(k) / Double(steps),
                              style: TurnStyle(orientation: orientation))
            let scene = makeScene(v, books: Self.library)
            let items = scene.items.filter { $0.book == b }
            let now = items.map { Self.corners($0, scene) }
            if k == 0 {
                // The closed book's cover lies exactly where the shelf showed it.
                let cover = try #require(items.first { $0.kind == .cover })
                let a = Set(Self.corners(cover, scene).map { "\(($0.x * 1e6).rounded()),\(($0.y * 1e6).rounded())" })
                let s = Set(Self.corners(shelfCover, shelf).map { "\(($0.x * 1e6).rounded()),\(($0.y * 1e6).rounded())" })
                #expect(a == s)
            }
            if let last, last.count == now.count {
                let jump = zip(last, now).flatMap { zip($0, $1).map { length(Vec3($0.x - $1.x, $0.y - $1.y, 0)) } }.max() ?? 0
                // A hundredth of the opening moves nothing by more than a few hundredths of the view.
                #expect(jump < 0.03 * 1280, "step \(k): \(jump)")
            }
            last = now
            if k == steps {
                // Open, the spread fits the view.
                for c in now.joined() { #expect(abs(c.x) <= 640 + 1e-6 && abs(c.y) <= 360 + 1e-6) }
            }
        }
    }

    @Test func eyeDistanceFollowsThePageWidthAsShown() {
        let reference = makeScene(ViewState(book: 0), books: Self.library).camera
        #expect(reference.eyeDistance == 2000)
        #expect(close(reference.m34, -1.0 / 2000))
        let open = makeScene(ViewState(book: 1), books: Self.library).camera
        let fit = BookShape.openFit(page: Vec2(800, 500), orientation: .horizontal, viewSize: view)
        #expect(close(fit, 0.95 * 1280 / 1600))
        #expect(close(open.eyeDistance, 2000 * 800 * fit / 362))
        #expect(makeScene(ViewState(scroll: 1), books: Self.library).camera.eyeDistance == 2000)
        var asked = ViewState(book: 1)
        asked.eye = 3000
        #expect(makeScene(asked, books: Self.library).camera.eyeDistance == 3000)
    }
}

/// The page shadows: scaled by the shadow strength; no reveal shadow with reverse perspective.
@Suite struct PageShadowTests {
    /// The shades of the pages beneath a sheet before upright (reveal) and after (facing).
    static func shades(_ change: (inout ViewState) -> Void) -> [SceneItem.Kind: [Shade]] {
        shades(0.3, change).merging(shades(0.7, change)) { $0 + $1 }
    }

    static func shades(_ progress: Double, _ change: (inout ViewState) -> Void) -> [SceneItem.Kind: [Shade]] {
        var v = ViewState(phase: .turning, book: 0, spread: 1, turn: TurnState(from: 1, to: 2, progress: progress))
        change(&v)
        return Dictionary(grouping: makeScene(v, books: [book(10)]).items.filter { $0.kind == .page }, by: \.kind)
            .mapValues { $0.map(\.shade) }
    }

    @Test func strengthScalesRevealFacingAndCast() throws {
        let normal = try #require(Self.shades { _ in }[.page])
        let half = try #require(Self.shades { $0.shadow = 0.5 }[.page])
        #expect(normal.contains { $0.reveal > 0 } && normal.contains { $0.facing > 0 })
        for (a, b) in zip(normal, half) {
            #expect(close(b.reveal, a.reveal / 2) && close(b.facing, a.facing / 2) && close(b.cast, a.cast / 2))
            #expect(b.gutter == a.gutter)
        }
    }

    @Test func reversePerspectiveHasNoRevealShadow() throws {
        let reverse = try #require(Self.shades { $0.style.perspective = .reverse }[.page])
        #expect(reverse.allSatisfy { $0.reveal == 0 } && reverse.contains { $0.facing > 0 })
    }
}
