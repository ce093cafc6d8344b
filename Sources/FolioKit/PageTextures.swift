import FolioImage
import FolioLayout
import FolioPages
import FolioRender

/// The page store's images go up as GL textures: pages filtered as the texture store's
/// descriptor says, crops without mipmaps.
extension TextureStore: PageTextures {
    public func upload(_ image: RGBAImage, for key: PageKey, mipmaps: Bool) -> Int {
        upload(image, for: key, descriptor: mipmaps ? nil : TextureDescriptor(mipmaps: false))
    }
}
