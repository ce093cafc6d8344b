import FolioApp
import FolioBook
import FolioLayout
import FolioRender
import Foundation

/// Draws over each page a zoomed view magnifies beyond its image the part it shows, rasterised
/// at the scale shown (`FaceImages.detail(for:)`): one extra page item per such page, lying
/// exactly on it with its own texture (face `.detail(book, page)`), so text stays sharp at any
/// zoom. Until a crop for the view is ready, the crop shown before stays where it still
/// applies and the page's own texture shows around it: never blank, same shading.
///
/// Does not: draw anything during a turn or an opening, nor for bitmap pages (their image is
/// all there is). Render thread only.
final class DetailLayer {
    /// The crop each page face shows now, and the version of the texture made from it.
    private var shown: [FaceContent: (raster: DetailCache.Raster, version: Int)] = [:]

    /// `scene` with a detail item over each magnified page that has a crop; true when a crop
    /// was uploaded or let go (the frame changed). `wait`: first waits up to that long for the
    /// crops the view asks for (captures).
    func decorate(_ scene: Scene, width: Int, height: Int, images: FaceImages, textures: TextureStore,
                  wait: TimeInterval?) -> (scene: Scene, changed: Bool) {
        let wants = scene.detailWants(width: width, height: height, sharperThan: images.largestWholePage)
        var rasters = images.detail(for: wants)
        if let wait, rasters.contains(where: { $0 == nil }) {
            // In short waits, so that Ctrl-C (`Interrupt`) is heard; past `wait`, the page
            // image is drawn as it is.
            let deadline = Date(timeIntervalSinceNow: wait)
            while !images.waitForDetail(timeout: 0.25), !Interrupt.requested, Date() < deadline {}
            rasters = images.detail(for: wants)
        }
        var decorated = scene, changed = false
        let faces = Set(wants.map(\.face))
        for face in shown.keys where !faces.contains(face) {
            textures.remove(.detail(face.book, face.page))
            shown[face] = nil
            changed = true
        }
        for (want, raster) in zip(wants, rasters) {
            let face = FaceContent.detail(want.face.book, want.face.page)
            let current = shown[want.face]
            // A newer crop, or the texture was freed with the pages' (it goes up again).
            if let r = raster ?? current?.raster,
               r.serial != current?.raster.serial || textures.version(of: face) != current?.version {
                // Shown at most 9 % smaller than it is: no mipmaps to make (the largest cost of
                // the upload in software) or hold.
                textures.upload(r.image, for: face, descriptor: TextureDescriptor(mipmaps: false))
                shown[want.face] = (r, textures.version(of: face))
                changed = true
            }
            // A crop of a page at another size still lies on it; one coarser than the page's
            // own texture is not drawn.
            guard let s = shown[want.face], s.raster.key.scale.height > textures.texture(for: want.face).height else { continue }
            decorated.items.append(scene.items[want.item].detail(face, crop: s.raster.crop))
        }
        if changed { images.budget.setGPUBytes(textures.residentBytes) }
        return (decorated, changed)
    }
}
