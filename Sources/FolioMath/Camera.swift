/// The camera of Core Animation's perspective, as a GL view and projection.
///
/// The plane z = 0 maps one layout unit to one view unit, exactly as a flat layer would; points
/// in front of it grow by `1 / (1 − z / eyeDistance)`. The vanishing point sits at
/// `vanishingPoint` (view units from the view centre): above or below the page puts the eye there.
public struct Camera: Equatable, Sendable {
    /// View size in layout units.
    public var viewSize: Vec2
    /// Distance of the eye from the z = 0 plane; Core Animation's m34 is `−1 / eyeDistance`.
    public var eyeDistance: Double
    /// Where the eye sits over the z = 0 plane, from the view centre.
    public var vanishingPoint: Vec2
    /// How far the perspective is reversed, 0 … 1: m34 goes from −1 / `eyeDistance` to its
    /// opposite, through no perspective at ½, while the perspective changes.
    public var reversal: Double
    /// Flips the sign of m34: pages turning towards the viewer shrink instead of grow.
    public var reversePerspective: Bool {
        get { reversal > 0.5 }
        set { reversal = newValue ? 1 : 0 }
    }

    /// The reference eye distance: m34 = −1/2000 for pages 362 wide (about 5.5 page widths).
    public static let referenceEyeDistance = 2000.0

    public init(viewSize: Vec2, eyeDistance: Double = Camera.referenceEyeDistance,
                vanishingPoint: Vec2 = .zero, reversePerspective: Bool = false) {
        self.viewSize = viewSize
        self.eyeDistance = eyeDistance
        self.vanishingPoint = vanishingPoint
        self.reversal = reversePerspective ? 1 : 0
    }

    public var m34: Double { (2 * reversal - 1) / eyeDistance }

    /// Layout units per pixel when `viewSize` is fitted into `width × height` pixels: the whole
    /// view shows, widened or heightened to the pixels' aspect, nothing stretched.
    public static func unitsPerPixel(viewSize: Vec2, width: Int, height: Int) -> Double {
        max(viewSize.x / Double(max(width, 1)), viewSize.y / Double(max(height, 1)))
    }

    /// This camera with its view fitted to a target of `width × height` pixels.
    public func fitted(width: Int, height: Int) -> Camera {
        var c = self
        c.viewSize = Vec2(Double(width), Double(height)) * Self.unitsPerPixel(viewSize: viewSize, width: width, height: height)
        return c
    }

    /// The whole Core Animation chain in one matrix: perspective about the vanishing point,
    /// then the orthographic mapping of the view rectangle to clip space. Depth is kept in range
    /// for points within ±eyeDistance/2 of the page plane.
    public var viewProjection: Mat4 {
        let vp = vanishingPoint
        let persp = Mat4.translation(vp.x, vp.y, 0) * Mat4.caPerspective(m34: m34) * Mat4.translation(-vp.x, -vp.y, 0)
        let depth = eyeDistance * 0.9
        let ortho = Mat4.orthographic(left: -viewSize.x / 2, right: viewSize.x / 2,
                                      bottom: -viewSize.y / 2, top: viewSize.y / 2,
                                      near: -depth, far: depth)
        return ortho * persp
    }

    /// Where a world point lands in view units (origin at the view centre, y up).
    public func projectToView(_ p: Vec3) -> Vec2 {
        let c = viewProjection.project(p)
        return Vec2(c.x * viewSize.x / 2, c.y * viewSize.y / 2)
    }
}
