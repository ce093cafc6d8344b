#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenGL
import FolioImage
import FolioLayout
import FolioMath

/// Which variant of the page shaders draws a face (`Shaders/page.frag`'s defines): each face
/// carries only the terms it shows, as a software renderer runs the code of every uniform branch.
/// One bit per define, the bits together the program's key (as Filament keys its variants);
/// `isUsed` is the one filter of the combinations faces ask for, and `all` every key it lets
/// through.
struct PageVariant: Hashable {
    /// page.frag's defines, one bit each (its raw value is the bit's place).
    enum Define: Int, CaseIterable {
        /// The flap's shadow on a curl's front, while the flap lies over it (page.frag's
        /// `flapShadow` is 0 everywhere otherwise).
        case flap
        /// The rim of a sheet's back while the sheet shades itself.
        case rim
        /// One tap biased for the face's squeeze: with software filtering, a face not seen
        /// square somewhere (a curl's bent part; the flat part, seen square, draws the same
        /// pixels with the plain tap), so its sharpness never switches.
        case biased
        /// A coarse tap of the other side's print.
        case showThrough
        /// The sky a fanned page hinged over this one hides.
        case wedge
        /// A turning sheet of the flat layout, whose rim meets those of the pages it leaves and
        /// lands on.
        case stacked
        /// The theme's ink and paper for the print.
        case recolour
        /// Only a turning sheet's inside, away from its edges: no edge terms.
        case insideOnly

        var name: String {
            switch self {
            case .flap: "FLAP"
            case .rim: "RIM"
            case .biased: "BIASED"
            case .showThrough: "SHOW_THROUGH"
            case .wedge: "WEDGE"
            case .stacked: "STACKED"
            case .recolour: "RECOLOUR"
            case .insideOnly: "INSIDE"
            }
        }
    }

    /// The bits of the defines on.
    private(set) var key: UInt8 = 0

    init(key: UInt8 = 0) { self.key = key }

    subscript(_ define: Define) -> Bool {
        get { key & 1 << define.rawValue != 0 }
        set { key = newValue ? key | 1 << define.rawValue : key & ~(1 << define.rawValue) }
    }

    var flap: Bool { get { self[.flap] } set { self[.flap] = newValue } }
    var rim: Bool { get { self[.rim] } set { self[.rim] = newValue } }
    var biased: Bool { get { self[.biased] } set { self[.biased] = newValue } }
    var showThrough: Bool { get { self[.showThrough] } set { self[.showThrough] = newValue } }
    var wedge: Bool { get { self[.wedge] } set { self[.wedge] = newValue } }
    var stacked: Bool { get { self[.stacked] } set { self[.stacked] = newValue } }
    var recolour: Bool { get { self[.recolour] } set { self[.recolour] = newValue } }
    var insideOnly: Bool { get { self[.insideOnly] } set { self[.insideOnly] = newValue } }

    /// The combinations faces ask for: a face is a front or a back, so never both flap and rim;
    /// a fanned page (wedge) is never a sheet of the flat layout (stacked); a sheet's inside
    /// (`inside`) has neither rim nor the edges' terms of a fanned or stacked face. Biased,
    /// show-through and recolour go with any.
    var isUsed: Bool {
        !(flap && rim) && !(wedge && stacked) && !(insideOnly && (rim || wedge || stacked))
    }

    /// Every variant a face can ask for, by key: 72 faces (flap, rim or neither; wedge, stacked
    /// or neither; three free bits) and 16 insides, 88 programs.
    static let all: [PageVariant] = (0...UInt8.max).map(PageVariant.init(key:)).filter(\.isUsed)

    /// This variant for the inside of the face: its terms without those of its edges.
    var inside: PageVariant {
        var v = self
        (v.rim, v.wedge, v.stacked, v.insideOnly) = (false, false, false, true)
        return v
    }

    /// The variant for one face of `item` (`back`: its back). `moving`: a turning sheet or a
    /// fanned page, which can be folded, seen steeply and shade itself.
    static func of(_ item: SceneItem, moving: Bool, back: Bool, biasedTap: Bool, showThrough: Bool,
                   recolour: Bool = false) -> PageVariant {
        var v = PageVariant()
        (v.showThrough, v.recolour, v.biased) = (showThrough, recolour, biasedTap)
        guard moving else { return v }
        if case let .curl(c) = item.deformation, !back { v.flap = Self.flapShows(c) }
        v.rim = back && item.back != nil && item.shade.`self` > 0
        v.wedge = item.shade.wedge > 0 && item.shade.wedgeStrength > 0
        v.stacked = isStacked(item)
        return v
    }

    /// A turning sheet of the flat layout: it leaves and lands on pages lying open.
    static func isStacked(_ item: SceneItem) -> Bool { item.kind == .sheet && item.ratio == nil }

    /// Whether a curl's flap casts a shadow on its flat part: it lies over it (page.frag's
    /// `flapShadow` fades in from a wrap of 3π/4) and has a radius.
    static func flapShows(_ curl: Deformation.Curl) -> Bool {
        curl.radius > 0 && curl.wrap > 0.75 * .pi
    }

    var defines: [String] { Define.allCases.filter { self[$0] }.map(\.name) }
}

/// Which triangles of an item's mesh a draw takes: a curl's flat and bent parts are drawn by
/// different variants.
enum MeshPart {
    case all, flat, bent
}

/// A turning sheet and its index in the scene.
struct Sheet {
    var index: Int
    var item: SceneItem
}

/// What the cached static layer was drawn from; a new key means drawing it again.
struct StaticKey: Equatable {
    var items: [SceneItem]
    var camera: Camera
    var width: Int
    var height: Int
    /// The target's multisampling: a layer drawn for another is drawn again (its boxes'
    /// edges would be those of the other).
    var samples: Int
    var textures: Int
    /// The versions of the textures the layer shows (`TextureStore.version`).
    var versions: [Int]
    /// How it was drawn (a new theme or show-through draws it again).
    var settings: RenderSettings
    /// The scene's light: pages arching out of the gutter are lit by it.
    var light: Vec3
}
