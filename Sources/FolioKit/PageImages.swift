import FolioBook
import FolioLayout
import FolioPages
import FolioRender
import Foundation

/// The page images of a pipeline's frames: the page store over the library shown, the textures
/// it uploads into, and whether decoded images wait for a later frame's upload. Does not: draw,
/// choose what a frame shows, or tell anyone of a problem (it hands them over).
final class PageImages {
    private(set) var store: PageStore
    let textures: TextureStore
    private(set) var filtering: TextureFiltering
    /// Decoded images (or crops) wait for the upload of a later frame.
    private(set) var pending = false
    private let configuration: PipelineConfiguration
    private let wake: @Sendable () -> Void

    /// Vector pages are rasterised for a surface `height` pixels high until frames say better.
    /// The context the textures go into must be current.
    init(library: Library, configuration: PipelineConfiguration, filtering: TextureFiltering, height: Int,
         wake: @escaping @Sendable () -> Void) {
        (self.configuration, self.filtering, self.wake) = (configuration, filtering, wake)
        textures = TextureStore(descriptor: .pages(filtering))
        store = Self.pageStore(library, textures: textures, configuration, height: height, wake: wake)
    }

    private static func pageStore(_ library: Library, textures: TextureStore, _ configuration: PipelineConfiguration, height: Int,
                                  wake: @escaping @Sendable () -> Void) -> PageStore {
        var settings = PageStore.Settings()
        settings.displayHeight = max(height, 1)
        if GLInfo.maxTextureSize > 0 { settings.maxPageSize = min(settings.maxPageSize, GLInfo.maxTextureSize) }
        // Shown larger, vector pages are drawn from crops of the part in view.
        if configuration.detailPages { settings.wholePageHeight = 2048 }
        // A waiting frame needs only its own pages (decoding others would take cores from it),
        // and the sharp ones: no preview first. Its images are kept: textures lost go up again.
        if configuration.waitsForImages {
            (settings.ahead, settings.behind) = (0, 0)
            settings.previewHeight = 0
            settings.releasesPixels = false
        }
        return PageStore(library: library, documents: configuration.documents, textures: textures, settings: settings,
                         executor: configuration.decoding, onChange: configuration.waitsForImages ? nil : wake)
    }

    /// A new page store over `library` (decoding for the old one stops) and no textures.
    func replace(library: Library, height: Int, contentSource: PageContentSource?) {
        store.close()
        textures.removeAll()
        store = Self.pageStore(library, textures: textures, configuration, height: height, wake: wake)
        store.contentSource = contentSource
    }

    /// Tells the store what `scene` shows and uploads what is decoded: with `waitsForImages`,
    /// every face shown, waiting for them; otherwise faces shown first, then prefetched ones,
    /// within the upload budget. Returns the images shown that got a texture, and whether some
    /// did not come within the wait.
    func prepare(_ scene: Scene) -> (uploaded: Set<PageKey>, late: Bool) {
        let waits = configuration.waitsForImages
        let prepared = store.prepare(scene, uploadBudget: waits ? nil : configuration.uploadBudgetBytes,
                                     wait: waits ? configuration.imageTimeout : nil)
        pending = store.pendingUploads
        return (prepared.uploaded, !prepared.late.isEmpty)
    }

    /// `scene` with the magnified parts of zoomed pages drawn sharp over them, and whether
    /// that changed the frame.
    func decorate(_ scene: Scene, width: Int, height: Int) -> (scene: Scene, changed: Bool) {
        guard configuration.detailPages else { return (scene, false) }
        return store.decorate(scene, width: width, height: height,
                              wait: configuration.waitsForImages ? configuration.imageTimeout : nil)
    }

    /// Takes the decodes finished since the last frame (the store starts the next ones); notes
    /// that images or crops wait for upload.
    func poll() {
        if store.poll() { pending = true }
    }

    /// Nothing can be drawn (a minimised window): uploads wait for the next image or event.
    func holdUploads() { pending = false }

    /// Bad page files met since the last call, one line each.
    func takeProblems() -> [String] { store.takeProblems().map(\.description) }

    /// Filters page textures as `filtering` says from now on (they are uploaded again); false
    /// when they already are.
    func setFiltering(_ filtering: TextureFiltering) -> Bool {
        guard filtering != self.filtering else { return false }
        self.filtering = filtering
        textures.descriptor = .pages(filtering)
        textures.removeAll()
        store.texturesLost()
        return true
    }

    /// Stops decoding and frees the textures, while their context is current.
    func destroy() {
        store.close()
        textures.destroy()
    }
}
