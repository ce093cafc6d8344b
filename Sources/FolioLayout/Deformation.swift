#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// How a page's flat local mesh bends before `model` places it. The GLSL twin is
/// `Shaders/page.vert`; tests compare the two.
///
/// Local frame: `a` across from the spine edge (a = 0 is the spine and never moves), `l`
/// along the spine, `z` towards the page's front. Every deformation here is an isometry of
/// the paper (developable surfaces), so edge lengths are kept.
public enum Deformation: Sendable, Equatable {
    /// Lies flat; rigid turns come from `model` alone.
    case flat
    /// A sheet held at the spine and turned by hand: the part of the page beyond the fold line
    /// bends up around a cylinder of `radius` for `wrap` and leaves it along the tangent, and
    /// the whole sheet then rotates rigidly about the spine by `rotation`.
    case curl(Curl)
    /// Bends around a cone whose apex lies on the spine line (corner lifts first), then
    /// rotates rigidly about the spine by `rotation`.
    case cone(Cone)

    public struct Curl: Sendable, Equatable {
        /// A point on the fold line, local units.
        public var point: Vec2
        /// Unit direction, in the page plane, pointing from the fold line towards the free edge.
        public var direction: Vec2
        public var radius: Double
        /// How far round the cylinder the paper goes, radians: π lays the flap face down on the
        /// page (a book lying open); less stands it up at that angle, for a sheet turning
        /// between two planes that meet at the spine at π − wrap (the fan).
        public var wrap: Double
        /// Rigid rotation about the spine after bending, radians (0 … π), as a cone's: the part
        /// before the fold stands up from the spine with it.
        public var rotation: Double

        public init(point: Vec2, direction: Vec2, radius: Double, wrap: Double = .pi, rotation: Double = 0) {
            self.point = point
            let n = (direction * direction).sum().squareRoot()
            self.direction = n > 0 ? direction / n : Vec2(1, 0)
            self.radius = max(radius, 1e-3)
            self.wrap = clamp(wrap, 0, .pi)
            self.rotation = clamp(rotation, 0, .pi)
        }
    }

    public struct Cone: Sendable, Equatable {
        /// Apex on the spine line (a = 0), as an `l` coordinate; outside the page's span.
        public var apex: Double
        /// Half-angle of the cone, radians (π/2 is flat).
        public var theta: Double
        /// Rigid rotation about the spine after bending, radians (0 … π).
        public var rotation: Double

        public init(apex: Double, theta: Double, rotation: Double) {
            self.apex = apex
            self.theta = theta
            self.rotation = rotation
        }
    }

    /// The deformed position and unit normal (of the front face) of local point (a, l).
    public func apply(_ p: Vec2) -> (position: Vec3, normal: Vec3) {
        switch self {
        case .flat:
            return (Vec3(p.x, p.y, 0), Vec3(0, 0, 1))
        case let .curl(c):
            return Self.aboutSpine(Self.curl(p, c), c.rotation)
        case let .cone(c):
            return Self.aboutSpine(Self.coneBent(p, c), c.rotation)
        }
    }

    /// A bent position and normal turned by `rotation` about the spine (the l axis).
    static func aboutSpine(_ bent: (Vec3, Vec3), _ rotation: Double) -> (Vec3, Vec3) {
        guard rotation != 0 else { return bent }
        let rot = Mat4.rotationY(-rotation)
        return (rot.transformDirection(bent.0), rot.transformDirection(bent.1))
    }

    /// The curl's bend before its rotation about the spine.
    static func curl(_ p: Vec2, _ c: Curl) -> (Vec3, Vec3) {
        let d = c.direction, r = c.radius
        let s = ((p - c.point) * d).sum()          // distance past the fold line
        guard s > 0 else { return (Vec3(p.x, p.y, 0), Vec3(0, 0, 1)) }
        let base = p - d * s                        // foot on the fold line
        let arc = c.wrap * r
        if s < arc {
            let phi = s / r
            let q = base + d * (r * sin(phi))
            let n = Vec3(-d.x * sin(phi), -d.y * sin(phi), cos(phi))
            return (Vec3(q.x, q.y, r * (1 - cos(phi))), n)
        }
        // Past the roll, straight on along the tangent where the paper leaves the cylinder.
        let w = c.wrap, rest = s - arc
        let q = base + d * (r * sin(w) + rest * cos(w))
        return (Vec3(q.x, q.y, r * (1 - cos(w)) + rest * sin(w)), Vec3(-d.x * sin(w), -d.y * sin(w), cos(w)))
    }

    /// The cone's bend before its rotation about the spine.
    static func coneBent(_ p: Vec2, _ c: Cone) -> (Vec3, Vec3) {
        let pos = conePosition(p, c)
        // The normal from the surface's partial derivatives (the shader does the same).
        let e = 0.5
        let du = conePosition(p + Vec2(e, 0), c) - conePosition(p - Vec2(e, 0), c)
        let dv = conePosition(p + Vec2(0, e), c) - conePosition(p - Vec2(0, e), c)
        var n = normalize(cross(du, dv))
        if length(n) == 0 { n = Vec3(0, 0, 1) }
        return (pos, n)
    }

    /// The deformed position and normal of a page `width` wide that also curves down into the
    /// gutter by `drop` (`GutterCurve`; `SceneItem.gutterDrop`): the curve follows the bend and
    /// comes before the rotation about the spine, as in `Shaders/page.vert`.
    public func apply(_ p: Vec2, gutterDrop drop: Vec2, width: Double) -> (position: Vec3, normal: Vec3) {
        guard drop != .zero else { return apply(p) }
        var (pos, n): (Vec3, Vec3)
        var rotation = 0.0
        switch self {
        case .flat: (pos, n) = (Vec3(p.x, p.y, 0), Vec3(0, 0, 1))
        case let .curl(c): (pos, n) = Self.curl(p, c); rotation = c.rotation
        case let .cone(c): (pos, n) = Self.coneBent(p, c); rotation = c.rotation
        }
        // Down along the page's local z; the normal tilts with the curve's slope (the surface
        // z = −offset has the upward normal (offset′, 0, 1)).
        let slope = GutterCurve.slope(x: pos.x, pageWidth: width, drop: drop)
        pos.z -= GutterCurve.offset(x: pos.x, pageWidth: width, drop: drop)
        n = normalize(n + Vec3(slope * n.z, 0, 0))
        return Self.aboutSpine((pos, n), rotation)
    }

    /// Hong, Ahn and Yoon's conical page turn ("Turning pages of 3D electronic books"), with
    /// the apex at (0, apex) on the spine line. Every point keeps its distance from the apex;
    /// points nearer the apex bend more, so the corner nearest it lifts first.
    static func conePosition(_ p: Vec2, _ c: Cone) -> Vec3 {
        let dl = p.y - c.apex
        let sign: Double = dl >= 0 ? 1 : -1
        let bigR = (p.x * p.x + dl * dl).squareRoot()
        guard bigR > 1e-9 else { return Vec3(p.x, p.y, 0) }
        let sinT = sin(c.theta), cosT = cos(c.theta)
        let r = bigR * sinT
        let beta = asin(clamp(p.x / bigR, -1, 1)) / sinT
        let k = r * (1 - cos(beta))
        return Vec3(r * sin(beta), c.apex + sign * (bigR - k * sinT), k * cosT)
    }
}
