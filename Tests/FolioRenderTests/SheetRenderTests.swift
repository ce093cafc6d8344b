import FolioBook
import FolioLayout
import FolioMath
import FolioRender
import Foundation
import Testing

/// A flat spread with the right-hand sheet turning: `deformation` bends it, `angle` turns it
/// about the spine (0 flat on the right, π flat on the left).
func turningSpread(_ deformation: Deformation, angle: Double = 0, shade: Shade = .none) -> Scene {
    var scene = flatSpread(spread: 1)
    let size = Vec2(362, 568)
    // The page beneath (revealed) and the sheet on top of it.
    let beneath = SceneItem(kind: .page, book: 0, page: 6, size: size, model: .identity, front: .page(0, 6),
                            shade: Shade(reveal: shade.reveal, cast: 1.0 / 3, gutter: 0.35), shadowCaster: 2)
    scene.items[0].shade = Shade(facing: shade.facing, cast: 1.0 / 3, gutter: 0.35)
    scene.items[0].shadowCaster = 2
    let sheet = SceneItem(kind: .sheet, book: 0, page: 4, size: size, model: .rotationY(-angle), deformation: deformation,
                          front: .page(0, 4), back: .page(0, 5), shade: Shade(self: shade.`self`, crease: shade.crease), z: 10)
    scene.items[1] = beneath
    scene.items.append(sheet)
    return scene
}

func debugWrite(_ img: RGBAImage, _ name: String) {
    guard let dir = ProcessInfo.processInfo.environment["FOLIO_DEBUG_OUT"] else { return }
    try? PNG.write(img, to: "\(dir)/\(name).png")
}

@Suite(.serialized) struct SheetRenderTests {
    let library = Library.load(from: GLHarness.textures)

    @Test func curlFromCorner() throws {
        for (i, t) in [0.25, 0.5, 0.75].enumerated() {
            let curl = Deformation.Curl(point: Vec2(362 * (1 - t), -284), direction: normalize2(Vec2(1, 0.5)), radius: 60 * (1 - t * 0.6))
            let img = try GLHarness.shared.render(turningSpread(.curl(curl), shade: Shade(reveal: 0.3 * (1 - t), crease: t)),
                                                  width: 640, height: 360, library: library)
            debugWrite(img, "curl-\(i)")
        }
    }

    @Test func rigidFlip() throws {
        for (i, a) in [0.5, 1.2, 2.2].enumerated() {
            let img = try GLHarness.shared.render(turningSpread(.flat, angle: a, shade: Shade(reveal: 0.2, self: 0.05, crease: 0.5)),
                                                  width: 640, height: 360, library: library)
            debugWrite(img, "rigid-\(i)")
        }
    }

    @Test func cone() throws {
        let img = try GLHarness.shared.render(turningSpread(.cone(.init(apex: -700, theta: 0.5, rotation: 0.8))),
                                              width: 640, height: 360, library: library)
        debugWrite(img, "cone")
    }
}

func normalize2(_ v: Vec2) -> Vec2 { v / (v * v).sum().squareRoot() }
