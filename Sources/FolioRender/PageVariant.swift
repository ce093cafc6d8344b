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
struct PageVariant: Hashable {
    /// The flap's shadow on a curl's front, while the flap lies over it (page.frag's
    /// `flapShadow` is 0 everywhere otherwise).
    var flap = false
    /// The rim of a sheet's back while the sheet shades itself.
    var rim = false
    /// One tap biased for the face's squeeze (page.frag's BIASED): with software filtering, a
    /// moving face not seen square somewhere (a curl's bent part; the flat part, seen square,
    /// draws the same pixels with the plain tap), so its sharpness never switches.
    var biased = false
    /// A coarse tap of the other side's print.
    var showThrough = false
    /// The sky a fanned page hinged over this one hides.
    var wedge = false
    /// A turning sheet of the flat layout, whose rim meets those of the pages it leaves and
    /// lands on (page.frag's STACKED).
    var stacked = false
    /// The theme's ink and paper for the print.
    var recolour = false
    /// Only a turning sheet's inside, away from its edges (page.frag's INSIDE): no edge terms.
    var insideOnly = false

    /// Every variant a face can ask for: 88 programs. A face is a front or a back, so never
    /// both flap and rim; a fanned page (wedge) is never a sheet of the flat layout (stacked);
    /// a sheet's inside has no rim (`inside`).
    static let all: [PageVariant] = {
        let faces = [(false, false), (true, false), (false, true)].flatMap { flap, rim in
            [(false, false), (true, false), (false, true)].flatMap { wedge, stacked in
                // Biased, show-through and recolour, each on or off: one bit each.
                (0..<8).map { bits in
                    PageVariant(flap: flap, rim: rim, biased: bits & 1 != 0, showThrough: bits & 2 != 0,
                                wedge: wedge, stacked: stacked, recolour: bits & 4 != 0)
                }
            }
        }
        let insides = Set(faces.filter(\.stacked).map(\.inside))
        return faces + insides.sorted { $0.defines.lexicographicallyPrecedes($1.defines) }
    }()

    /// This variant for the inside of the face: its terms without those of its edges.
    var inside: PageVariant {
        PageVariant(flap: flap, biased: biased, showThrough: showThrough, recolour: recolour, insideOnly: true)
    }

    /// The variant for one face of `item` (`back`: its back). `moving`: a turning sheet or a
    /// fanned page, which can be folded, seen steeply and shade itself.
    static func of(_ item: SceneItem, moving: Bool, back: Bool, biasedTap: Bool, showThrough: Bool,
                   recolour: Bool = false) -> PageVariant {
        var v = PageVariant(showThrough: showThrough, recolour: recolour)
        guard moving else { return v }
        if case let .curl(c) = item.deformation, !back { v.flap = Self.flapShows(c) }
        v.rim = back && item.back != nil && item.shade.`self` > 0
        v.biased = biasedTap
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

    var defines: [String] {
        [(flap, "FLAP"), (rim, "RIM"), (biased, "BIASED"), (showThrough, "SHOW_THROUGH"), (wedge, "WEDGE"), (stacked, "STACKED"),
         (recolour, "RECOLOUR"), (insideOnly, "INSIDE")]
            .filter(\.0).map(\.1)
    }
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
