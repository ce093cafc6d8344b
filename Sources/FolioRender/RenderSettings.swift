#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// How pages are drawn.
public struct RenderSettings: Sendable, Equatable {
    /// Cells of the mesh a cone-bent sheet is drawn with (across × along the spine). 40 × 30
    /// keeps it smooth at 720p on a software renderer; the GPU defaults raise it for 1080p.
    public var gridColumns = 40
    public var gridRows = 30
    /// Strips over the half turn of a curl's cylinder (its mesh is cut along the fold).
    public var curlStrips = 24
    /// Multisampling of the targets commands make (0: off; the software renderer cannot afford it).
    public var samples = 0
    /// With multisampling, only what has no edge coverage of its own (the backdrop, page blocks,
    /// boards, desk shadows) is drawn multisampled; pages and sheets, which antialias their own
    /// edges, are drawn single-sampled over it once resolved. A software renderer pays for every
    /// sample of every pixel: this keeps the boxes' edges for a fraction of the cost.
    public var multisampleBoxesOnly = true
    /// One texture tap biased for the squeeze where a page is seen steeply (a turning sheet, a
    /// fanned page, a book spinning between orientations, a cover on the shelf), so its type
    /// stays legible (the software renderer's own anisotropic filtering triples the cost and
    /// garbles type; GPUs use theirs): page.frag's BIASED, `tapBias` for a flat face.
    public var biasedTaps = true
    /// The other side's print showing through the paper (one more texture tap where it can
    /// show: docs/engineering-notes.md has its cost on a software renderer).
    public var showThrough = true
    /// A turning sheet drawn in two parts, its inside without the edge terms and then the rim
    /// around it (`Renderer.insideInset`): the same picture for less of a frame's CPU on a
    /// software renderer. Off only to compare the two.
    public var sheetInsideApart = true
    /// The darkening of a page beneath a turning sheet drawn only over the cells of its grid the
    /// sheet darkens by half a level or more (`SceneItem.darkenedCells`): the same picture for
    /// less of a turn's start and end on a software renderer. Off only to compare the two.
    public var overlayCellsApart = true
    /// Rounded outer page corners, layout units (0: square).
    public var cornerRadius = 0.0
    /// Scales the cast shadow's strength from the scene (`Shade.cast`); 0 turns it off.
    public var shadowStrength = 1.0
    /// Height (layout units) over which the cast shadow fades.
    public var shadowFalloff = 160.0
    /// Darkening of a page where a sheet above it hides the whole sky (ambient occlusion).
    public var ambientOcclusion = 0.6
    /// Draw what does not move once into a texture and redraw only the turning sheet and what
    /// its shadow touches (in the fan, only what fans: `drawOverRoom`).
    public var cacheStaticLayer = true
    /// The reader's colours (`Theme`): the room is tinted, and the pages of `printedBooks`
    /// recoloured.
    public var theme: Theme = .paper
    /// Books printed on paper (`Book.isPrinted`): themes recolour their pages and the other
    /// side of a sheet shows through; photographs and comics are shown as they are.
    public var printedBooks: Set<Int> = []

    public init() {}

    /// Defaults for the renderer in use: a denser sheet mesh on a GPU, where vertices are free.
    public static func defaults(software: Bool) -> RenderSettings {
        var s = RenderSettings()
        if !software {
            s.gridColumns = 96
            s.gridRows = 72
            s.curlStrips = 64
            s.samples = 4
            s.multisampleBoxesOnly = false
            s.biasedTaps = false
        }
        return s
    }
}
