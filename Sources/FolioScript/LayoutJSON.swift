import Foundation
import FolioLayout
import FolioReader
import FolioMath

/// The scene as `folio layout` prints it: view, camera (eye distance, m34, vanishing point),
/// state, rest, and per item its kind, book, page, visibility, matrix (16 numbers,
/// column-major), the formula values that apply (x, scale, angle, ratio), draw order,
/// opacity, size, deformation, every shade term the renderer uses (and the darkening it
/// multiplies in: reveal + facing + self, at most 1), the shadow caster and a block's
/// thickness. Keys keep this order.
public enum LayoutJSON {
    public static func encode(_ scene: Scene) -> String {
        var top: [(String, JSON)] = [
            ("view", .object([("width", .number(scene.camera.viewSize.x)), ("height", .number(scene.camera.viewSize.y))])),
            ("camera", camera(scene.camera)),
            ("state", .string(scene.state.rawValue)),
        ]
        if let rest = scene.rest { top.append(("rest", .number(rest))) }
        top.append(("items", .array(scene.items.map(item))))
        return JSON.object(top).text(indent: 0) + "\n"
    }

    static func item(_ i: SceneItem) -> JSON {
        var o: [(String, JSON)] = [
            ("kind", .string(i.kind.rawValue)), ("book", .number(Double(i.book))), ("page", .number(Double(i.page.index))),
            ("visible", .bool(i.visible)), ("matrix", .array(i.model.columnMajor.map(JSON.number))),
        ]
        for (key, value) in [("x", i.x), ("scale", i.scale), ("angle", i.angle), ("ratio", i.ratio)] {
            if let value { o.append((key, .number(value))) }
        }
        o += [("z", .number(Double(i.z))), ("opacity", .number(i.opacity)), ("size", vector(i.size.x, i.size.y)),
              ("deformation", deformation(i.deformation))]
        let s = i.shade
        o.append(("shade", .object([("reveal", .number(s.reveal)), ("facing", .number(s.facing)),
                                    ("self", .number(s.`self`)), ("crease", .number(s.crease)),
                                    ("cast", .number(s.cast)), ("gutter", .number(s.gutter)),
                                    ("darkening", .number(min(max(s.reveal + s.facing + s.`self`, 0), 1)))])))
        if let caster = i.shadowCaster { o.append(("shadowCaster", .number(Double(caster)))) }
        if i.kind == .block { o.append(("thickness", .number(i.thickness))) }
        return .object(o)
    }

    static func camera(_ c: Camera) -> JSON {
        .object([("eye", .number(c.eyeDistance)), ("m34", .number(c.m34)),
                 ("vanishing", vector(c.vanishingPoint.x, c.vanishingPoint.y))])
    }

    /// How the item's mesh bends: flat; a curl's fold point, direction, radius, wrap and rotation; a cone's
    /// apex, half-angle and rotation (layout units and radians, as `Deformation` holds them).
    static func deformation(_ d: Deformation) -> JSON {
        switch d {
        case .flat:
            return .object([("type", .string("flat"))])
        case let .curl(c):
            return .object([("type", .string("curl")), ("point", vector(c.point.x, c.point.y)),
                            ("direction", vector(c.direction.x, c.direction.y)), ("radius", .number(c.radius)),
                            ("wrap", .number(c.wrap)), ("rotation", .number(c.rotation))])
        case let .cone(c):
            return .object([("type", .string("cone")), ("apex", .number(c.apex)), ("theta", .number(c.theta)),
                            ("rotation", .number(c.rotation))])
        }
    }

    private static func vector(_ values: Double...) -> JSON { .array(values.map(JSON.number)) }
}

/// A tiny JSON writer that keeps key order (Foundation's encoder does not).
enum JSON {
    case number(Double), string(String), bool(Bool), array([JSON]), object([(String, JSON)])

    func text(indent: Int) -> String {
        let pad = String(repeating: "  ", count: indent + 1), end = String(repeating: "  ", count: indent)
        switch self {
        case let .number(x): return Self.format(x)
        case let .string(s): return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case let .bool(b): return b ? "true" : "false"
        case let .array(a):
            // Arrays of numbers (matrices) stay on one line.
            if a.allSatisfy({ if case .number = $0 { true } else { false } }) {
                return "[" + a.map { $0.text(indent: 0) }.joined(separator: ", ") + "]"
            }
            return a.isEmpty ? "[]" : "[\n" + a.map { pad + $0.text(indent: indent + 1) }.joined(separator: ",\n") + "\n" + end + "]"
        case let .object(o):
            if o.count <= 4, o.allSatisfy({ if case .number = $0.1 { true } else { false } }) {
                return "{" + o.map { "\"\($0.0)\": \($0.1.text(indent: 0))" }.joined(separator: ", ") + "}"
            }
            return "{\n" + o.map { pad + "\"\($0.0)\": " + $0.1.text(indent: indent + 1) }.joined(separator: ",\n") + "\n" + end + "}"
        }
    }

    /// Integers without a fraction, others to 6 decimals without trailing zeros; −0 as 0.
    static func format(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        // Beyond 1e15 six decimals mean nothing, and scaling 1e308 by 1e6 overflowed to "inf".
        guard abs(x) < 1e15 else { return "\(x)" }
        let r = (x * 1_000_000).rounded() / 1_000_000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int(r)) }
        var s = String(format: "%.6f", r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
