import FolioLayout
import FolioMath
@testable import FolioRender
import Testing

/// Each fanned page is drawn only from where it can show: the band a page nearer the reader
/// covers is found through the camera, is left out for the pages beneath the spread's, and
/// every point of it lies behind that page on screen.
struct FanCoverTests {
    static func fan(spread: Double, viewpoint: Viewpoint = .center) -> (items: [SceneItem], scene: Scene) {
        let scene = makeScene(ViewState(viewSize: Vec2(1280, 720), phase: .reading, book: 0, layout: .fan, spread: spread, viewpoint: viewpoint),
                              books: [BookInfo(title: "Test", imageCount: 40)])
        return (scene.items.filter(\.visible), scene)
    }

    @Test(arguments: [Viewpoint.center, .above, .below])
    func pagesUnderTheSpreadAreDrawnFromTheirBandOut(_ viewpoint: Viewpoint) throws {
        let (items, scene) = Self.fan(spread: 6.3, viewpoint: viewpoint)
        let view = scene.camera.viewProjection
        let hidden = FanCover.hidden(items, viewProjection: view, viewport: Vec2(1280, 720))
        let fanned = items.indices.filter { items[$0].ratio != nil && items[$0].kind == .page }
        // The two pages nearest the reader on each side are cut by none; most beneath them are
        // cut by more than half their width.
        let nearest = Set([1.0, -1.0].compactMap { side in
            fanned.filter { (items[$0].ratio ?? 0) * side > 0 }.min { abs(items[$0].ratio ?? 0) < abs(items[$1].ratio ?? 0) }
        })
        #expect(nearest.count == 2 && nearest.allSatisfy { hidden[$0] == nil }, "\(viewpoint): \(hidden)")
        let beneath = fanned.filter { !nearest.contains($0) && abs(items[$0].ratio ?? 0) < 1 }
        #expect(beneath.filter { (hidden[$0] ?? 0) > 0.5 }.count * 2 >= beneath.count, "\(viewpoint): \(hidden) of \(beneath)")
        // Every point of a band left out lies inside and behind some page nearer the reader.
        for (b, fraction) in hidden {
            let below = items[b]
            for a in [0.1, 0.5, 0.99].map({ $0 * fraction * below.size.x }) {
                for l in [-0.5, 0, 0.5].map({ $0 * below.size.y }) {
                    let covered = fanned.contains { i in
                        i != b && (items[i].ratio ?? 0) * (below.ratio ?? 0) > 0 && abs(items[i].ratio ?? 0) < abs(below.ratio ?? 0)
                            && FanCover.isCovered(Vec2(a, l), view * below.model, by: items[i], view * items[i].model,
                                                  viewport: Vec2(1280, 720), edge: abs(l) == below.size.y / 2)
                    }
                    #expect(covered, "\(viewpoint): page \(below.page) at (\(a), \(l))")
                }
            }
        }
    }
}
