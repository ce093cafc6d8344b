import FolioLayout
import FolioMath

/// The strips of one curl (`CurlStrips.parts`), rebuilt only when the curl changes: the flat
/// triangles first in the buffer, then the bent ones, so either part draws alone. The sheet and
/// its coarse shadow each keep one, so neither rebuilds the other's every frame.
final class CurlMesh {
    private let mesh = TriangleMesh(components: [2])
    private var key: CurlKey?
    private var flatVertices = 0
    /// Times the strips were built (for tests).
    private(set) var builds = 0

    func draw(_ curl: Deformation.Curl, size: Vec2, strips: Int, region: SheetRegion, gutter: Bool, part: MeshPart) {
        let key = CurlKey(curl: curl, size: size, strips: strips, region: region, gutter: gutter)
        if key != self.key {
            let parts = CurlStrips.parts(size: size, curl: curl, strips: strips, region: region, gutter: gutter)
            mesh.upload((parts.flat + parts.bent).flatMap { [Float($0.x), Float($0.y)] })
            flatVertices = parts.flat.count
            self.key = key
            builds += 1
        }
        switch part {
        case .all: mesh.draw()
        case .flat: mesh.draw(first: 0, count: flatVertices)
        case .bent: mesh.draw(first: flatVertices, count: mesh.vertexCount - flatVertices)
        }
    }

    func destroy() { mesh.destroy() }
}

/// What a curl mesh was built for.
struct CurlKey: Equatable {
    var curl: Deformation.Curl
    var size: Vec2
    var strips: Int
    var region: SheetRegion
    var gutter: Bool
}

/// A flat or cone-bent sheet's inside or rim (`SheetRegion.cells`), rebuilt only when it
/// changes (a turning sheet's inset changes with its angle).
final class CellMesh {
    private let mesh = TriangleMesh(components: [2])
    private var key: CellKey?

    func draw(size: Vec2, region: SheetRegion, columns: [Double], rows: Int) {
        let key = CellKey(size: size, region: region, columns: columns, rows: rows)
        if key != self.key {
            mesh.upload(region.cells(size: size, columns: columns, rows: rows).flatMap { [Float($0.x), Float($0.y)] })
            self.key = key
        }
        mesh.draw()
    }

    func destroy() { mesh.destroy() }
}

/// What a cell mesh was built for.
struct CellKey: Equatable {
    var size: Vec2
    var region: SheetRegion
    var columns: [Double]
    var rows: Int
}
