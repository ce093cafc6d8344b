import FolioLayout
import FolioMath

func close(_ a: Double, _ b: Double, _ tol: Double = 1e-6) -> Bool { abs(a - b) <= tol }
func close(_ a: Vec3, _ b: Vec3, _ tol: Double = 1e-6) -> Bool { length(a - b) <= tol }

let view = Vec2(1280, 720)
let page = BookInfo.referencePageSize

/// A book of `images` page images.
func book(_ images: Int, _ direction: BookInfo.Direction = .ltr) -> BookInfo {
    BookInfo(title: "Test", imageCount: images, direction: direction)
}

/// Where a local point of an item lands in the world (undeformed).
func world(_ item: SceneItem, _ a: Double, _ l: Double) -> Vec3 { item.model.project(Vec3(a, l, 0)) }
func close(_ a: Vec2, _ b: Vec2, _ tol: Double = 1e-6) -> Bool { ((a - b) * (a - b)).sum().squareRoot() <= tol }
