#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioLayout
import FolioMath

/// A rectangle of pixels, GL's origin (bottom left).
public struct PixelRect: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(width, 0)
        self.height = max(height, 0)
    }

    public static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var area: Int { width * height }

    public func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return PixelRect(x: x0, y: y0, width: max(x + width, o.x + o.width) - x0, height: max(y + height, o.y + o.height) - y0)
    }

    public func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x), y0 = max(y, o.y)
        let x1 = min(x + width, o.x + o.width), y1 = min(y + height, o.y + o.height)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : .empty
    }
}

extension Shade {
    /// How much a page at rest is darkened as a whole (reveal, facing and own shade).
    var darkening: Double { clamp(reveal + facing + self.`self`, 0, 1) }
    var isShading: Bool { darkening > 0 }
    /// The terms that do not change while a sheet turns over the page (the wedge, at its
    /// strength, is a fanned page's, where no sheet turns).
    var atRest: Shade {
        Shade(crease: crease, gutter: gutter, wedge: wedge, wedgeStrength: wedgeStrength, showThrough: showThrough,
              showThroughBehind: showThroughBehind)
    }
}

extension SceneItem {
    /// Whether `sheet` can darken this flat page by at least half a level (the shader's
    /// occlusion, estimated from the sheet's samples): the highest elevation of the sheet seen
    /// from the nearest point of the page, heights taken from no lower than the sheet's spine.
    /// A sheet lying on the other side, far from the spine, hides too little to draw for.
    func isDarkened(by sheet: SceneItem, ambient: Double) -> Bool {
        guard let inverse = model.inverse else { return true }
        let spine = inverse.project(sheet.model.project(Vec3(0, 0, 0)))
        let floor = max(0, spine.z)
        var highest = 0.0
        for q in DirtyBounds.samples(of: sheet).map(inverse.project) where q.z > floor + 0.01 {
            let a = q.x - clamp(q.x, 0, size.x), l = q.y - clamp(q.y, -size.y / 2, size.y / 2)
            highest = max(highest, atan2(q.z - floor, (a * a + l * l).squareRoot()))
        }
        return ambient * (1 - cos(highest)) / 2 > 0.5 / 255
    }

    /// Darkened by an overlay: by its shade terms, or by the sheet turning above it.
    var isShaded: Bool { kind != .sheet && (shade.isShading || shadowCaster != nil) }
    /// The item as the cached layer holds it: without the darkening that changes in a turn.
    var atRest: SceneItem {
        var i = self
        i.shade = shade.atRest
        return i
    }
}

/// Where on screen the moving parts of a scene are: sheets (sampled through the Swift twin of
/// the shader's deformation), their cast shadows, and the pages whose shade changes.
struct DirtyBounds {
    var camera: Camera
    var width: Int
    var height: Int
    var light: Vec3
    /// Pixels added around every rectangle: antialiased edges and the shadow's soft rim.
    var margin = 6.0

    func rect(sheets: [SceneItem], overlays: [Overlay]) -> PixelRect {
        var points: [Vec3] = []
        for sheet in sheets {
            for p in Self.samples(of: sheet) {
                points.append(p)
                points.append(Vec3(p.x - light.x * p.z / light.z, p.y - light.y * p.z / light.z, 0))
            }
        }
        for overlay in overlays {
            let item = overlay.item
            // The corners of the cells drawn (their triangles lie within them on screen), or
            // of the page.
            var corners: [Vec2] = [Vec2(0, -0.5), Vec2(1, -0.5), Vec2(0, 0.5), Vec2(1, 0.5)]
            if let cells = overlay.cells {
                let rows = Double(cells.count), columns = Double(cells.first?.count ?? 0)
                corners = []
                for (j, row) in cells.enumerated() {
                    for (i, drawn) in row.enumerated() where drawn {
                        for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            corners.append(Vec2(Double(i + di) / columns, Double(j + dj) / rows - 0.5))
                        }
                    }
                }
            }
            for c in corners {
                let corner = Vec2(c.x * item.size.x, c.y * item.size.y)
                points.append(item.model.project(Deformation.flat.apply(corner, gutterDrop: item.gutterDrop, width: item.size.x).position))
            }
        }
        guard !points.isEmpty else { return .empty }
        var lo = Vec2(.infinity, .infinity), hi = Vec2(-.infinity, -.infinity)
        let unitsPerPixel = camera.viewSize.x / Double(width)
        for p in points {
            let v = camera.projectToView(p)
            lo = Vec2(min(lo.x, v.x), min(lo.y, v.y))
            hi = Vec2(max(hi.x, v.x), max(hi.y, v.y))
        }
        let pad = margin * unitsPerPixel
        func px(_ u: Double, _ half: Double) -> Double { (u + half) / unitsPerPixel }
        let x0 = Int(px(lo.x - pad, camera.viewSize.x / 2).rounded(.down))
        let y0 = Int(px(lo.y - pad, camera.viewSize.y / 2).rounded(.down))
        let x1 = Int(px(hi.x + pad, camera.viewSize.x / 2).rounded(.up))
        let y1 = Int(px(hi.y + pad, camera.viewSize.y / 2).rounded(.up))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// World positions of a sheet sampled on a grid fine enough that the curl's bulge between
    /// samples stays inside the margin.
    static func samples(of item: SceneItem) -> [Vec3] {
        let n: Int
        if case .flat = item.deformation { n = 1 } else { n = 16 }
        var out: [Vec3] = []
        out.reserveCapacity((n + 1) * (n + 1))
        for j in 0...n {
            for i in 0...n {
                let local = Vec2(Double(i) / Double(n) * item.size.x, (Double(j) / Double(n) - 0.5) * item.size.y)
                out.append(item.model.project(item.deformation.apply(local, gutterDrop: item.gutterDrop, width: item.size.x).position))
            }
        }
        return out
    }
}
