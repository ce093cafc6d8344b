#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioLayout
import FolioMath

/// What the renderer asks of an item's deformed surface on the CPU, before it draws: where its
/// normal turns and how its image's texels lie on it. Nothing here touches GL.
extension SceneItem {
    /// Whether some of the sheet lies within about 30° of the plane of a page placed by one of
    /// `pages`, its curve into the gutter aside: page.vert's `vLying` is 0 past 25°, and
    /// page.frag then leaves out the alignment of its texels with its rest (arithmetic a
    /// software renderer pays for on every pixel of the sheet). At a 17 × 9 grid of its points: a
    /// curl's or a cone's normal turns smoothly across it, so the grid's largest lies within
    /// the 5° to spare of the sheet's.
    func liesNear(_ pages: [Mat4]) -> Bool {
        let planes = pages.map { normalize($0.transformDirection(Vec3(0, 0, 1))) }
        guard !planes.isEmpty else { return false }
        let level = cos(30 * Double.pi / 180)
        return someNormal(columns: 16, rows: 8) { n in planes.contains { abs(dot(n, $0)) > level } }
    }

    /// Texels per layout unit across and along the face, for an image `texels` wide and high.
    func texelAxes(texels: Vec2) -> (across: Vec2, along: Vec2) {
        (Vec2(uv.du.x * texels.x, uv.du.y * texels.y) / max(size.x, 1e-9),
         Vec2(uv.dt.x * texels.x, uv.dt.y * texels.y) / max(size.y, 1e-9))
    }

    /// Whether the deformed face's unit world normal (its front's) passes `test` at some point
    /// of a grid over it, `columns` steps across from the spine and `rows` from tail to head.
    func someNormal(columns: Int, rows: Int, _ test: (Vec3) -> Bool) -> Bool {
        for j in 0...rows {
            for i in 0...columns {
                let p = Vec2(size.x * Double(i) / Double(columns), size.y * (Double(j) / Double(rows) - 0.5))
                let n = model.transformDirection(deformation.apply(p).normal)
                if test(n / max(length(n), 1e-9)) { return true }
            }
        }
        return false
    }
}
