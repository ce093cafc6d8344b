import FolioBook
import FolioLayout
import FolioMath

/// The part of a page a zoomed view shows larger than the page's image can be: what to
/// rasterise at the scale shown (`CropRenderings`) and draw over the page.
public struct DetailWant: Sendable, Equatable {
    /// The page item in `Scene.items`.
    public var item: Int
    /// The face it shows (a `.page` face).
    public var face: FaceContent
    /// The part of the face's image inside the frame, in fractions of the image.
    public var visible: PageRegion
    /// The size of the whole image at the scale shown, rounded up to a step of 2^(1/8)
    /// (9 %) so that a small change of zoom asks for nothing new.
    public var scale: PixelSize
}

extension Scene {
    /// The pages lying at rest that a `width` × `height` frame shows more than
    /// `limit` × 1.1 pixels high (the largest image a whole page gets), with the part of
    /// each in the frame. Pages seen at an angle (fanned, turning, perspective across them)
    /// ask for none: their image is not magnified evenly.
    public func detailWants(width: Int, height: Int, sharperThan limit: Int) -> [DetailWant] {
        guard state == .reading, width > 0, height > 0 else { return [] }
        let camera = camera.fitted(width: width, height: height)
        let w = Double(width), h = Double(height)
        return items.indices.compactMap { i in
            let item = items[i]
            guard item.kind == .page, item.showsImage, item.deformation == .flat, item.ratio == nil, item.opacity >= 1,
                  item.front.image != nil else { return nil }
            // Frame pixels (y down) of the page's local unit square (s from the spine, t up it).
            let pixel = { (s: Double, t: Double) -> Vec2 in
                let v = camera.projectToView(item.model.project(Vec3(s * item.size.x, (t - 0.5) * item.size.y, 0)))
                return Vec2((v.x / camera.viewSize.x + 0.5) * w, (0.5 - v.y / camera.viewSize.y) * h)
            }
            let p00 = pixel(0, 0), ps = pixel(1, 0) - p00, pt = pixel(0, 1) - p00
            // A page facing the viewer is a parallelogram on screen, magnified evenly.
            guard simdLength(pixel(1, 1) - p00 - ps - pt) < 1 else { return nil }
            // Image uv → pixel, through (s, t): pixel = p00 + [ps pt] M⁻¹ (uv − origin).
            let uv = item.uv
            guard let m = Affine2(columns: uv.du, uv.dt).inverse else { return nil }
            let b = Affine2(columns: ps, pt) * m
            guard let toUV = b.inverse else { return nil }
            let pxPerU = simdLength(b.c0), pxPerV = simdLength(b.c1)
            guard pxPerV > 1.1 * Double(limit), pxPerV.isFinite, pxPerU.isFinite else { return nil }
            let corners = [Vec2(0, 0), Vec2(w, 0), Vec2(0, h), Vec2(w, h)].map { uv.origin + toUV * ($0 - p00) }
            let visible = PageRegion(x0: corners.map(\.x).min()!, y0: corners.map(\.y).min()!,
                                     x1: corners.map(\.x).max()!, y1: corners.map(\.y).max()!).intersection(.whole)
            guard !visible.isEmpty else { return nil }
            let step = Double(geometricStep(pxPerV, ratio: detailStep))
            let scale = PixelSize(width: max(1, Int((pxPerU * step / pxPerV).rounded())), height: Int(step))
            return DetailWant(item: i, face: item.front, visible: visible, scale: scale)
        }
    }
}

extension SceneItem {
    /// This page item showing `crop` of its image (with the one-pixel border `CropRenderings`
    /// puts around it) as face `face`: the same quad, shading and edges, so it lies exactly on
    /// the page, and only the crop's pixels show (the transparent border fades it into the
    /// page beyond them).
    public func detail(_ face: FaceContent, crop: PageCrop) -> SceneItem {
        // Image uv → the bordered crop's uv, one axis at a time: (1 + u·W − x) / (width + 2).
        let scale = Vec2(Double(crop.full.width) / Double(crop.width + 2), Double(crop.full.height) / Double(crop.height + 2))
        let shift = Vec2(Double(1 - crop.x) / Double(crop.width + 2), Double(1 - crop.y) / Double(crop.height + 2))
        var item = self
        item.front = face
        // What shows through is the other side's whole page, as under the crop.
        item.behindUV = behindUV ?? uv
        item.uv = UVMap(origin: uv.origin * scale + shift, du: uv.du * scale, dt: uv.dt * scale)
        return item
    }
}

/// The smallest step of the series 64 × ratioⁿ at or above `x` (in pixels).
func geometricStep(_ x: Double, ratio: Double = 1.25) -> Int {
    var step = 64.0
    while step < x { step *= ratio }
    return Int(step.rounded(.up))
}

/// Crops are rasterised at most 9 % larger than shown: a texel is nearly a pixel.
private let detailStep = 1.0905

private func simdLength(_ v: Vec2) -> Double { (v * v).sum().squareRoot() }

/// A 2 × 2 matrix by its columns.
private struct Affine2 {
    var c0: Vec2
    var c1: Vec2

    init(columns c0: Vec2, _ c1: Vec2) {
        self.c0 = c0
        self.c1 = c1
    }

    var inverse: Affine2? {
        let det = c0.x * c1.y - c1.x * c0.y
        guard abs(det) > 1e-12, det.isFinite else { return nil }
        return Affine2(columns: Vec2(c1.y, -c0.y) / det, Vec2(-c1.x, c0.x) / det)
    }

    static func * (a: Affine2, b: Affine2) -> Affine2 { Affine2(columns: a * b.c0, a * b.c1) }
    static func * (a: Affine2, v: Vec2) -> Vec2 { a.c0 * v.x + a.c1 * v.y }
}
