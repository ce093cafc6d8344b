import Testing
import FolioLayout
import FolioMath

/// The camera frames the whole path of a turn: for every viewpoint, layout, deformation,
/// orientation and perspective, no paper leaves the view at any moment of the turn, and the
/// camera and the book's frame stay put while the sheet turns.
@Suite struct TurnFramingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var viewpoint: Viewpoint
        var layout: BookLayout
        var view: Vec2
        var testDescription: String { "\(viewpoint) \(layout) \(Int(view.x))×\(Int(view.y))" }
    }

    static let cases = Viewpoint.allCases.flatMap { vp in
        BookLayout.allCases.flatMap { layout in
            [Vec2(1280, 720), Vec2(800, 1000)].map { Case(viewpoint: vp, layout: layout, view: $0) }
        }
    }

    @Test(arguments: cases)
    func paperStaysInViewThroughoutATurn(_ c: Case) {
        let library = [book(400), BookInfo(title: "Landscape", imageCount: 40, pageSize: Vec2(800, 500))]
        for b in library.indices {
            for deform in TurnDeform.allCases {
                // The last one with a near eye of its own (`--eye`), which does not follow the scale.
                for (style, eye) in [(TurnStyle(), nil), (TurnStyle(direction: .backward), nil), (TurnStyle(orientation: .vertical), nil),
                                     (TurnStyle(perspective: .reverse), nil), (TurnStyle(), 900.0)] {
                    var camera: Camera?
                    for i in 0...8 {
                        let forward = style.direction == .forward
                        var v = ViewState(viewSize: c.view, phase: .turning, book: b, layout: c.layout, spread: forward ? 5 : 6,
                                          turn: TurnState(from: forward ? 5 : 6, to: forward ? 6 : 5, progress: Double(i) / 8),
                                          style: style, deform: deform, viewpoint: c.viewpoint)
                        v.eye = eye
                        let scene = makeScene(v, books: library)
                        if let camera { #expect(scene.camera == camera, "the camera moved during a turn") }
                        camera = scene.camera
                        for item in scene.items where item.visible && (item.kind == .page || item.kind == .sheet) {
                            for a in stride(from: 0.0, through: 1, by: 0.5) {
                                for l in stride(from: -0.5, through: 0.5, by: 0.5) {
                                    let local = item.deformation.apply(Vec2(a * item.size.x, l * item.size.y)).position
                                    let at = scene.camera.projectToView(item.model.project(local))
                                    let inside = abs(at.x) <= c.view.x / 2 + 1e-6 && abs(at.y) <= c.view.y / 2 + 1e-6
                                    #expect(inside, "\(c) book \(b) \(deform) \(style) eye \(eye ?? 0) at \(Double(i) / 8): \(item.kind) \(item.page) at \(at)")
                                    if !inside { return }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test func theCenteredReferenceSpreadKeepsItsScale() {
        // Nothing on the path of a turn of the reference book leaves a 1280 × 720 view seen
        // straight on: the spread keeps its size there (the reference images depend on it).
        let fit = BookShape.turnFit(page: BookInfo.referencePageSize, orientation: .horizontal, viewSize: view,
                                    vanishing: Viewpoint.center.vanishingPoint(viewSize: view), reversal: 0, lift: PageStack.maxThickness)
        #expect(fit == 1)
        let below = BookShape.turnFit(page: BookInfo.referencePageSize, orientation: .horizontal, viewSize: view,
                                      vanishing: Viewpoint.below.vanishingPoint(viewSize: view), reversal: 0, lift: PageStack.maxThickness)
        #expect(below < 0.95)
    }
}
