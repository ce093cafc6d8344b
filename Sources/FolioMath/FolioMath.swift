// FolioMath — the shared transform module. No GL, no Foundation.
//
// Conventions, stated once:
// - Column vectors, column-major storage exactly as GLSL's mat4 expects:
//   `a * b` applies `b` first, then `a`.
// - Right-handed world: x right, y up, z towards the viewer. Radians everywhere.
// - Layout units: one unit is one unit of the reference page (362 × 568).
// - Value types only; tests compare with an accuracy tolerance.

public typealias Vec2 = SIMD2<Double>
public typealias Vec3 = SIMD3<Double>
public typealias Vec4 = SIMD4<Double>

@inlinable public func dot(_ a: Vec3, _ b: Vec3) -> Double { (a * b).sum() }

@inlinable public func cross(_ a: Vec3, _ b: Vec3) -> Vec3 {
    Vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inlinable public func length(_ a: Vec3) -> Double { dot(a, a).squareRoot() }

@inlinable public func normalize(_ a: Vec3) -> Vec3 {
    let l = length(a)
    return l > 0 ? a / l : a
}

@inlinable public func clamp<T: Comparable>(_ x: T, _ lo: T, _ hi: T) -> T { min(max(x, lo), hi) }

@inlinable public func mix(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }

/// 0 up to `e0`, 1 from `e1`, eased in and out between (GLSL's `smoothstep`).
@inlinable public func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
    let t = clamp((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)
}

/// A 4 × 4 matrix of doubles, column-major.
public struct Mat4: Equatable, Sendable, CustomStringConvertible {
    public var columns: (Vec4, Vec4, Vec4, Vec4)

    public init(_ c0: Vec4, _ c1: Vec4, _ c2: Vec4, _ c3: Vec4) { columns = (c0, c1, c2, c3) }

    /// Builds from 16 numbers in column-major order (the order GLSL reads them).
    public init(columnMajor v: [Double]) {
        precondition(v.count == 16, "Mat4 needs 16 numbers")
        self.init(Vec4(v[0], v[1], v[2], v[3]), Vec4(v[4], v[5], v[6], v[7]),
                  Vec4(v[8], v[9], v[10], v[11]), Vec4(v[12], v[13], v[14], v[15]))
    }

    public static let identity = Mat4(Vec4(1, 0, 0, 0), Vec4(0, 1, 0, 0), Vec4(0, 0, 1, 0), Vec4(0, 0, 0, 1))

    public static func == (a: Mat4, b: Mat4) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2 && a.columns.3 == b.columns.3
    }

    public subscript(column c: Int) -> Vec4 {
        get {
            switch c {
            case 0: return columns.0
            case 1: return columns.1
            case 2: return columns.2
            default: return columns.3
            }
        }
        set {
            switch c {
            case 0: columns.0 = newValue
            case 1: columns.1 = newValue
            case 2: columns.2 = newValue
            default: columns.3 = newValue
            }
        }
    }

    /// Element at `row`, `column`.
    public subscript(row: Int, column: Int) -> Double {
        get { self[column: column][row] }
        set { var c = self[column: column]; c[row] = newValue; self[column: column] = c }
    }

    /// The 16 numbers in column-major order.
    public var columnMajor: [Double] {
        [columns.0, columns.1, columns.2, columns.3].flatMap { [$0.x, $0.y, $0.z, $0.w] }
    }

    /// The 16 numbers as floats, column-major, ready for `glUniformMatrix4fv`.
    public var floats: [Float] { columnMajor.map(Float.init) }

    public static func * (a: Mat4, b: Mat4) -> Mat4 {
        Mat4(a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3)
    }

    public static func * (m: Mat4, v: Vec4) -> Vec4 {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z + m.columns.3 * v.w
    }

    /// Transforms a point (w = 1) and divides by w.
    public func project(_ p: Vec3) -> Vec3 {
        let r = self * Vec4(p.x, p.y, p.z, 1)
        return Vec3(r.x, r.y, r.z) / r.w
    }

    /// Transforms a direction (w = 0).
    public func transformDirection(_ d: Vec3) -> Vec3 {
        let r = self * Vec4(d.x, d.y, d.z, 0)
        return Vec3(r.x, r.y, r.z)
    }

    public var determinant: Double {
        let m = self
        var det = 0.0
        for c in 0..<4 {
            det += (c % 2 == 0 ? 1 : -1) * m[0, c] * m.minor(row: 0, column: c)
        }
        return det
    }

    private func minor(row: Int, column: Int) -> Double {
        var e: [Double] = []
        for r in 0..<4 where r != row { for c in 0..<4 where c != column { e.append(self[r, c]) } }
        return e[0] * (e[4] * e[8] - e[5] * e[7]) - e[1] * (e[3] * e[8] - e[5] * e[6]) + e[2] * (e[3] * e[7] - e[4] * e[6])
    }

    /// The inverse, or nil when the matrix is singular.
    public var inverse: Mat4? {
        let det = determinant
        guard abs(det) > 1e-300 else { return nil }
        var r = Mat4.identity
        for i in 0..<4 {
            for j in 0..<4 {
                // adjugate: transpose of the cofactor matrix
                r[j, i] = ((i + j) % 2 == 0 ? 1 : -1) * minor(row: i, column: j) / det
            }
        }
        return r
    }

    public var description: String {
        (0..<4).map { r in (0..<4).map { c in "\(self[r, c])" }.joined(separator: " ") }.joined(separator: "\n")
    }

    public func isApproximatelyEqual(to o: Mat4, tolerance: Double = 1e-9) -> Bool {
        zip(columnMajor, o.columnMajor).allSatisfy { abs($0 - $1) <= tolerance }
    }
}
