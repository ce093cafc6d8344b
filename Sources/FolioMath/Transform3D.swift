// Core-Animation-style transforms expressed as column-vector matrices.
//
// Core Animation writes `CATransform3DConcat(a, b)` for "a, then b"; here that is `b * a`.
// `then(_:)` keeps the Core Animation reading order.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Mat4 {
    public static func translation(_ x: Double, _ y: Double, _ z: Double) -> Mat4 {
        var m = Mat4.identity
        m.columns.3 = Vec4(x, y, z, 1)
        return m
    }

    public static func translation(_ v: Vec3) -> Mat4 { translation(v.x, v.y, v.z) }

    public static func scale(_ x: Double, _ y: Double, _ z: Double) -> Mat4 {
        Mat4(Vec4(x, 0, 0, 0), Vec4(0, y, 0, 0), Vec4(0, 0, z, 0), Vec4(0, 0, 0, 1))
    }

    public static func scale(_ s: Double) -> Mat4 { scale(s, s, s) }

    /// Rotation by `angle` radians about `axis`, counter-clockwise when the axis points at the viewer.
    public static func rotation(_ angle: Double, axis: Vec3) -> Mat4 {
        let a = normalize(axis)
        let c = cos(angle), s = sin(angle), t = 1 - c
        return Mat4(
            Vec4(t * a.x * a.x + c, t * a.x * a.y + s * a.z, t * a.x * a.z - s * a.y, 0),
            Vec4(t * a.x * a.y - s * a.z, t * a.y * a.y + c, t * a.y * a.z + s * a.x, 0),
            Vec4(t * a.x * a.z + s * a.y, t * a.y * a.z - s * a.x, t * a.z * a.z + c, 0),
            Vec4(0, 0, 0, 1))
    }

    public static func rotationX(_ a: Double) -> Mat4 { rotation(a, axis: Vec3(1, 0, 0)) }
    public static func rotationY(_ a: Double) -> Mat4 { rotation(a, axis: Vec3(0, 1, 0)) }
    public static func rotationZ(_ a: Double) -> Mat4 { rotation(a, axis: Vec3(0, 0, 1)) }

    /// Rotation about an axis through `pivot` (a page turning about its spine edge).
    public static func rotation(_ angle: Double, axis: Vec3, about pivot: Vec3) -> Mat4 {
        translation(pivot) * rotation(angle, axis: axis) * translation(-pivot)
    }

    /// Core Animation's perspective: the identity with `m34` set (`-1 / eyeDistance`).
    /// A point (x, y, z) lands at (x, y) / (1 + z · m34) on the z = 0 plane.
    public static func caPerspective(m34: Double) -> Mat4 {
        var m = Mat4.identity
        // CA's m34 multiplies z into w (row-vector convention); in column form that is row 3, column 2.
        m[3, 2] = m34
        return m
    }

    /// `self`, then `next` (Core Animation's concatenation order).
    public func then(_ next: Mat4) -> Mat4 { next * self }
}

extension Mat4 {
    /// An off-axis perspective projection (glFrustum).
    public static func frustum(left l: Double, right r: Double, bottom b: Double, top t: Double,
                               near n: Double, far f: Double) -> Mat4 {
        Mat4(Vec4(2 * n / (r - l), 0, 0, 0),
             Vec4(0, 2 * n / (t - b), 0, 0),
             Vec4((r + l) / (r - l), (t + b) / (t - b), -(f + n) / (f - n), -1),
             Vec4(0, 0, -2 * f * n / (f - n), 0))
    }

    /// A symmetric perspective projection; `fovY` in radians.
    public static func perspective(fovY: Double, aspect: Double, near: Double, far: Double) -> Mat4 {
        let t = near * tan(fovY / 2)
        return frustum(left: -t * aspect, right: t * aspect, bottom: -t, top: t, near: near, far: far)
    }

    public static func orthographic(left l: Double, right r: Double, bottom b: Double, top t: Double,
                                    near n: Double, far f: Double) -> Mat4 {
        Mat4(Vec4(2 / (r - l), 0, 0, 0), Vec4(0, 2 / (t - b), 0, 0), Vec4(0, 0, -2 / (f - n), 0),
             Vec4(-(r + l) / (r - l), -(t + b) / (t - b), -(f + n) / (f - n), 1))
    }

    /// A view matrix looking from `eye` at `target`.
    public static func lookAt(eye: Vec3, target: Vec3, up: Vec3) -> Mat4 {
        let f = normalize(target - eye)
        let s = normalize(cross(f, up))
        let u = cross(s, f)
        return Mat4(Vec4(s.x, u.x, -f.x, 0), Vec4(s.y, u.y, -f.y, 0), Vec4(s.z, u.z, -f.z, 0),
                    Vec4(-dot(s, eye), -dot(u, eye), dot(f, eye), 1))
    }
}
