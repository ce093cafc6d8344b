import FolioMath

/// What should be on screen: the contract between layout (pure) and rendering (GL).
///
/// Units are layout units (the reference page is 362 × 568). FolioRender draws `items` in
/// order (back to front for equal depth) through `camera`, with depth testing.
public struct Scene: Sendable, Equatable {
    public enum State: String, Sendable, Codable { case shelf, opening, reading, turning, closing }

    public var state: State
    public var camera: Camera
    public var items: [SceneItem]
    /// With `--snap`: where a shelf scroll comes to rest, in covers.
    public var rest: Double?
    /// Unit vector pointing towards the light, world space. Cast shadows are the planar
    /// projection of a caster's deformed mesh along it onto the receiver (see
    /// `SceneItem.shadowCaster`); Lambert shading of deformed sheets uses it too.
    public var light: Vec3

    /// The default light: from above the viewer's left shoulder, mostly frontal, so a sheet turning
    /// forwards casts its shadow onto the page it reveals.
    public static let defaultLight = normalize(Vec3(-0.3, 0.3, 1))

    public init(state: State, camera: Camera, items: [SceneItem] = [], rest: Double? = nil,
                light: Vec3 = Scene.defaultLight) {
        self.state = state
        self.camera = camera
        self.items = items
        self.rest = rest
        self.light = light
    }
}

/// Which image a face shows: a book's cover, one of its pages, or a page block's edge; or, drawn
/// over a page a zoomed view magnifies, the part of it shown, rasterised at that scale.
public struct FaceContent: Sendable, Equatable, Hashable {
    public enum Kind: String, Sendable, Codable { case cover, page, blank, detail }
    public var kind: Kind
    public var book: Int
    /// Layout page index within the book (0 the cover, 1 the endpaper, n ≥ 2 shows image
    /// n − 2: see `image`); ignored for `.cover`.
    public var page: LayoutPage

    public init(kind: Kind, book: Int, page: LayoutPage = .cover) {
        self.kind = kind
        self.book = book
        self.page = page
    }

    public static func cover(_ book: Int) -> FaceContent { FaceContent(kind: .cover, book: book) }
    public static func page(_ book: Int, _ page: LayoutPage) -> FaceContent { FaceContent(kind: .page, book: book, page: page) }
    public static let blank = FaceContent(kind: .blank, book: -1)
    /// The part of layout page `page` that a zoomed view shows (never laid out: added for drawing).
    public static func detail(_ book: Int, _ page: LayoutPage) -> FaceContent { FaceContent(kind: .detail, book: book, page: page) }

    /// The page image shown (`PageImage(layoutPage:)`), or nil for covers and blanks.
    public var image: PageImage? { kind == .page ? PageImage(layoutPage: page) : nil }
}

/// Shading terms for one face, each 0 … 1 (the curves of docs/behaviour.md §5 produce them).
public struct Shade: Sendable, Equatable, Codable {
    /// Darkening of a page being revealed by a turning sheet (starts at 1/3, fades along a cosine).
    public var reveal: Double
    /// Darkening of the facing page as the sheet comes down (sine, up to 1/3).
    public var facing: Double
    /// The moving sheet's own shade (0 → 0.1 → 0).
    public var `self`: Double
    /// Strength of the crease band next to the spine on a moving face.
    public var crease: Double
    /// Darkest opacity of the shadow cast on this face by `SceneItem.shadowCaster` (0: none).
    /// Darkest next to the caster's covering edge, soft at the rim.
    public var cast: Double
    /// Strength of the gutter shadow at the spine of a page lying open (binding occlusion).
    public var gutter: Double
    /// Angle (radians, 0 … π/2) between this face and the face lying over it, hinged at the same
    /// spine (the fan layout): darker where the gap between the two is narrow, next to the
    /// hinge (`Shaders/page.frag`). 0: nothing above.
    public var wedge: Double
    /// How strongly the wedge darkens (0 … 1): 1 in a fan, fading out as the fan lies down into
    /// the flat layout, whose sheets lie on one another with no wedge between them.
    public var wedgeStrength: Double
    /// How much of the other side's print shows through this face where light falls on it
    /// (`SceneItem.behind`, or a sheet's other face): faint on a page lying on its stack
    /// (`PageStack.showThrough(lift:)`).
    public var showThrough: Double
    /// How much more shows where the light comes from behind the face, through the paper.
    public var showThroughBehind: Double

    public init(reveal: Double = 0, facing: Double = 0, self s: Double = 0, crease: Double = 0,
                cast: Double = 0, gutter: Double = 0, wedge: Double = 0, wedgeStrength: Double = 1, showThrough: Double = 0,
                showThroughBehind: Double = 0) {
        self.reveal = reveal
        self.facing = facing
        self.`self` = s
        self.crease = crease
        self.cast = cast
        self.gutter = gutter
        self.wedge = wedge
        self.wedgeStrength = wedgeStrength
        self.showThrough = showThrough
        self.showThroughBehind = showThroughBehind
    }

    public static let none = Shade()
}

/// One quad of the scene: a cover, a page face, a two-sided turning sheet, a page block, the
/// cover board beneath a stack, or the soft shadow a book lays on the desk.
///
/// The mesh lives in the item's local frame: `a` across from the spine edge (0 … `size.x`),
/// `l` along the spine (−`size.y`/2 … `size.y`/2), `z` off the paper towards its front. The
/// deformation bends it in that frame; `model` then places it in the world.
public struct SceneItem: Sendable, Equatable {
    /// `board`: a box of `thickness` under the item's rectangle grown by `BookBoard.overhang(thickness)`
    /// on its three free sides, coloured by the cover named in `front`. `shadow`: the desk's
    /// darkening under the item's rectangle, soft beyond it; the spine edge is no edge.
    public enum Kind: String, Sendable, Codable { case cover, page, sheet, block, board, shadow }

    public var kind: Kind
    public var book: Int
    /// The layout page shown on the front (for covers on the shelf: the cover).
    public var page: LayoutPage
    /// Local size: across the spine × along the spine.
    public var size: Vec2
    /// Local frame → world.
    public var model: Mat4
    public var deformation: Deformation
    public var front: FaceContent
    /// For a two-sided sheet: what its back shows (mirrored across the spine), else nil.
    public var back: FaceContent?
    /// For a page lying open: what the other side of its sheet shows (for the show-through,
    /// `Shade.showThrough`); a two-sided sheet shows through its own faces. Nil: nothing.
    public var behind: FaceContent?
    /// How far the page curves down into the gutter at the spine (`GutterCurve`), local
    /// units along the page's −z: `x` where the deformed page lies on its own side of the
    /// spine (a ≥ 0), `y` where it has turned over to the other side (a turning sheet, whose
    /// local −z there points up until it lands). 0: flat to the spine.
    public var gutterDrop: Vec2 = .zero
    /// Maps local (a / size.x, l / size.y + 0.5) to the front image's uv; the back uses its mirror.
    public var uv: UVMap
    /// Maps them to `behind`'s (and a sheet's other face's) uv, mirrored likewise, where that
    /// is not `uv`: a magnified crop drawn over its page shows the whole page's other side.
    public var behindUV: UVMap?
    public var opacity: Double
    public var shade: Shade
    /// Drawn at all (culled items stay listed for `folio layout`).
    public var visible: Bool
    /// Drawn with its faces' images: not a page block or a desk shadow (a board only samples
    /// its cover's edge colour, so it counts).
    public var showsImage: Bool { visible && kind != .block && kind != .shadow }
    /// Every image the item's faces use: its faces and what shows through them.
    public var faces: [FaceContent] { [front, back, behind].compactMap { $0 } }
    /// Draw order; larger is drawn later (on top where depths tie).
    public var z: Int
    /// Thickness in layout units, for `.block` items (page stacks): the block is the item's
    /// rectangle extruded `thickness` units backwards (local −z) from its top face.
    public var thickness: Double
    /// How closed the book of a `.block` or `.board` is, 0 open … 1 shut (on the shelf): a shut
    /// block does not flare and its spine side shows the cover's cloth.
    public var closed: Double
    /// For a `.block`: 0, a block lying flat; else its `thickness` is leaves fanned up off the
    /// stack about the spine, the top one at this angle (radians) and the others nearer the
    /// stack the lower they lie (`BookBody.leaves`).
    public var leafAngle = 0.0
    /// How much a `.block`'s fore edge spreads out towards its bottom (0 … 1), as the sheets of a
    /// book lying open do on its board: not a fan's blocks (0), which stand on theirs at its ends.
    public var flare = 1.0
    /// Index in `Scene.items` of the item whose actual geometry (its model and deformation)
    /// casts a shadow onto this one, or nil. Set on the pages beneath a turning sheet; the
    /// strength is `shade.cast`.
    public var shadowCaster: Int?

    // Values echoed by `folio layout` for the formulas that produced them.
    public var x: Double?
    public var scale: Double?
    public var angle: Double?
    public var ratio: Double?

    public init(kind: Kind, book: Int, page: LayoutPage, size: Vec2, model: Mat4, deformation: Deformation = .flat,
                front: FaceContent, back: FaceContent? = nil, uv: UVMap = .identity, opacity: Double = 1,
                shade: Shade = .none, visible: Bool = true, z: Int = 0, thickness: Double = 0, closed: Double = 0,
                shadowCaster: Int? = nil, x: Double? = nil, scale: Double? = nil, angle: Double? = nil, ratio: Double? = nil) {
        self.kind = kind
        self.book = book
        self.page = page
        self.size = size
        self.model = model
        self.deformation = deformation
        self.front = front
        self.back = back
        self.uv = uv
        self.opacity = opacity
        self.shade = shade
        self.visible = visible
        self.z = z
        self.thickness = thickness
        self.closed = closed
        self.shadowCaster = shadowCaster
        self.x = x
        self.scale = scale
        self.angle = angle
        self.ratio = ratio
    }
}

/// An affine map from the local unit square (s across from the spine, t along it, t = 0 at
/// the bottom for a vertical spine) to texture coordinates (u right, v down the image).
public struct UVMap: Sendable, Equatable {
    public var origin: Vec2
    public var du: Vec2
    public var dt: Vec2

    public init(origin: Vec2, du: Vec2, dt: Vec2) {
        self.origin = origin
        self.du = du
        self.dt = dt
    }

    public func apply(s: Double, t: Double) -> Vec2 { origin + du * s + dt * t }

    /// A right-hand page: s grows to the right, t grows upwards.
    public static let identity = UVMap(origin: Vec2(0, 1), du: Vec2(1, 0), dt: Vec2(0, -1))
    /// A left-hand page whose local frame runs leftwards from the spine.
    public static let mirrored = UVMap(origin: Vec2(1, 1), du: Vec2(-1, 0), dt: Vec2(0, -1))
    /// Spine along the top edge (a wall calendar): s grows downwards, t to the right.
    public static let belowSpine = UVMap(origin: Vec2(0, 0), du: Vec2(0, 1), dt: Vec2(1, 0))
    /// Spine along the bottom edge (the page above a calendar's spine): s grows upwards.
    public static let aboveSpine = UVMap(origin: Vec2(0, 1), du: Vec2(0, -1), dt: Vec2(1, 0))

    /// The map of a face on `side` of a book laid out `vertical` (a calendar's spine along the
    /// top), read in `direction`: one rule for the open book and its closed box on the shelf.
    public static func face(_ side: Side, vertical: Bool, direction: BookInfo.Direction) -> UVMap {
        let uv: UVMap = switch (side, vertical) {
        case (.right, false): .identity
        case (.left, false): .mirrored
        case (.right, true): .belowSpine
        case (.left, true): .aboveSpine
        }
        return direction == .rtl ? uv.flippedHorizontally : uv
    }

    /// The same map with the image flipped left to right: what a face needs to stay readable
    /// when its model mirrors the world's x axis (right-to-left books).
    public var flippedHorizontally: UVMap {
        UVMap(origin: Vec2(1 - origin.x, origin.y), du: Vec2(-du.x, du.y), dt: Vec2(-dt.x, dt.y))
    }
}
