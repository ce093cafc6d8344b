import FolioBook
import FolioFind
import FolioMath
import FolioPages
import FolioReader
import FolioRender
import FolioSpeech
import Foundation

/// How a pipeline draws. The defaults suit the renderer in use (see `RenderSettings.defaults`).
public struct PipelineConfiguration: Sendable {
    /// Folder of the GLSL shaders (`ShaderFolder.locate` finds the bundled one).
    public var shaders: String
    /// Multisampling of the frames; nil: the renderer's default (4 on a GPU, off in software).
    public var samples: Int?
    /// Page texture filtering; nil: what suits the renderer (`TextureFiltering.forCurrentRenderer`).
    public var filtering: TextureFiltering?
    /// Frames wait for the images they show, never drawing paper in their place, and nothing
    /// is prefetched: captures, recordings and tests. Off, a frame never waits (a viewer), and
    /// a page's decoded pixels are let go once its texture is made.
    public var waitsForImages = false
    /// Each frame waits for the relayout an earlier frame started (a book opened on its first
    /// chapters laid out whole, a text size), up to `imageTimeout`: the same script lays out in
    /// the same frames (captures, recordings). Off, a relayout lands in whichever frame follows
    /// it (a viewer; a test that runs relayouts itself with `ManualDecoding`).
    public var waitsForLayouts = false
    /// How long a waiting frame waits before it draws paper after all.
    public var imageTimeout: TimeInterval = 60
    /// Bytes of page images uploaded to the GPU per frame at most (the first always goes), so
    /// a burst of decoded pages never stalls a frame on a live surface.
    public var uploadBudgetBytes = 24 << 20
    /// The view in layout units that fits the surface (the scene scales with the window).
    public var baseView = Vec2(1280, 720)
    /// Where each book was left: it opens there again, and the place is kept as the reader
    /// moves (the viewer). Nil: nothing is remembered (captures, recordings, tests).
    public var positions: ReadingPositions?
    /// Pages a zoomed view magnifies beyond their image get the part shown rasterised at the
    /// scale shown, drawn over them (`PageStore.decorate`). Off: zoomed pages show their own
    /// texture magnified (for comparison).
    public var detailPages = true
    /// The on-screen layer (titles on the shelf, the progress bar, help, the page number typed,
    /// notices) is drawn over live frames, fading while reading (the viewer). Scripted frames
    /// draw it when asked (`drawLayer`).
    public var showsLayer = false
    /// A reflowable book is laid out again for the page shape of the view when its size
    /// settles (`followPageShape`: the viewer); otherwise it keeps the shape it opened with.
    public var followsPageShape = false
    /// Where the pipeline opens documents for their pages (the password, the documents open,
    /// those that failed): its own unless the host gives the one its library was loaded through
    /// (`Library.load(from:documents:)`), so that each document opens once.
    public var documents = DocumentRegistry()
    /// Where page decodes run: worker threads; a test may run them itself (`ManualDecoding`).
    public var decoding: any DecodeExecutor = BackgroundDecoding()
    /// Where reflowable books are laid out again (a text size, a page shape, a book opened on its
    /// first chapters laid out whole): a worker thread; a test may run them itself (`ManualDecoding`).
    public var relayingOut: any DecodeExecutor = BackgroundDecoding()
    /// How a search typed in the window runs: in the background on every core, below the frame
    /// loop's priority (the loop reads its progress); a test may run it to its end at once to
    /// see what follows deterministically.
    public var startsSearch: @Sendable (Search) -> Void = { $0.start(workers: ProcessInfo.processInfo.activeProcessorCount) }

    /// Where a word selected is looked up (Shift+D).
    public var dictionaries = Dictionaries()
    /// The voice that reads aloud (R), opened when reading starts: speech-dispatcher's; a test
    /// gives its own.
    public var speech: @Sendable () -> Result<any SpeechOutput, SpeechError> = { SpeechDispatcher.open().map { $0 } }

    public init(shaders: String) { self.shaders = shaders }
}
