#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// The three independent style bits of a page turn (8 combinations).
public struct TurnStyle: Sendable, Equatable, Hashable {
    public enum Direction: String, Sendable, CaseIterable { case forward, backward }
    /// Horizontal: a vertical spine (a book). Vertical: a horizontal spine (a wall calendar).
    public enum Orientation: String, Sendable, CaseIterable { case horizontal, vertical }
    /// Normal: the page comes towards the viewer. Reverse: the perspective is flipped.
    public enum Perspective: String, Sendable, CaseIterable { case normal, reverse }

    public var direction: Direction
    public var orientation: Orientation
    public var perspective: Perspective

    public init(direction: Direction = .forward, orientation: Orientation = .horizontal, perspective: Perspective = .normal) {
        self.direction = direction
        self.orientation = orientation
        self.perspective = perspective
    }

    /// All 8 combinations.
    public static let all: [TurnStyle] = Direction.allCases.flatMap { d in
        Orientation.allCases.flatMap { o in Perspective.allCases.map { TurnStyle(direction: d, orientation: o, perspective: $0) } }
    }
}

/// How a turning sheet moves: rigid about the spine, curled around a cylinder, or bent on a cone.
public enum TurnDeform: String, Sendable, CaseIterable, Codable { case rigid, curl, cone }

/// Where the vanishing point sits: the book seen from above, straight on, or from below.
public enum Viewpoint: String, Sendable, CaseIterable, Codable {
    case above, center, below

    /// Vanishing point for a view of `viewSize`: ±0.6 of half the view height.
    public func vanishingPoint(viewSize: Vec2) -> Vec2 { Self.vanishingPoint(height: height, viewSize: viewSize) }

    /// Where the vanishing point sits, in `above`'s height: 1 above, 0 straight on, −1 below.
    public var height: Double {
        switch self {
        case .above: 1
        case .center: 0
        case .below: -1
        }
    }

    /// The vanishing point at `height` (`Viewpoint.height`, any value between while it moves).
    public static func vanishingPoint(height: Double, viewSize: Vec2) -> Vec2 {
        Vec2(0, 0.6 * viewSize.y / 2 * height)
    }

    /// The next one in the cycle above → center → below → above.
    public var next: Viewpoint {
        switch self {
        case .above: return .center
        case .center: return .below
        case .below: return .above
        }
    }
}

/// The camera, the open book's layout and the shelf while styles change, as amounts that move
/// continuously from the styles before to the new ones over `duration`, eased in and out,
/// instead of cutting in one frame (`makeScene` draws any amounts; at rest they are the styles'
/// own):
///
/// - `viewpoint`: the vanishing point's height (`Viewpoint.height`);
/// - `reversal`: 0 normal perspective … 1 reverse; the camera's m34 goes through zero (a view
///   without perspective) on the way;
/// - `fan`: 0 the flat layout … 1 the fan: the fan's sheets rise from lying open on the two
///   stacks into their fan;
/// - `vertical`: 0 a book … 1 a calendar: the book spins a half turn about the view's vertical
///   axis and is laid out as a calendar from the moment it is seen edge on, each shrinking as
///   it turns away so that both are the same length there (`calendarSpin`);
/// - `wheel`: 0 the carousel … 1 the wheel: each cover moves, turns and scales from its place
///   on one shelf to its place on the other (`ShelfBlend`).
public struct StyleBlend: Sendable, Equatable {
    public var viewpoint: Double
    public var reversal: Double
    public var fan: Double
    public var vertical: Double
    public var wheel: Double
    /// Where the amounts come from and go to (`amounts`' order), while they move: what depends on
    /// them through a bound that starts or stops binding on the way (the book's scale, its
    /// turns kept in view) moves between its values at the two ends, eased as the amounts are,
    /// not by a kink. Empty: not known (the amounts alone).
    public var from: [Double] = [], to: [Double] = []

    public init(viewpoint: Double, reversal: Double, fan: Double, vertical: Double, wheel: Double = 0) {
        (self.viewpoint, self.reversal, self.fan, self.vertical, self.wheel) = (viewpoint, reversal, fan, vertical, wheel)
    }

    /// How far amount `i` has come from `from` to `to` (0 … 1); nil when it does not move.
    public func progress(_ i: Int) -> Double? {
        guard from.count == 5, to.count == 5, from[i] != to[i] else { return nil }
        return clamp((amounts[i] - from[i]) / (to[i] - from[i]), 0, 1)
    }

    /// The amounts of styles at rest.
    public init(viewpoint: Viewpoint, style: TurnStyle, layout: BookLayout, shelf: ShelfStyle) {
        self.init(viewpoint: viewpoint.height, reversal: style.perspective == .reverse ? 1 : 0,
                  fan: layout == .fan ? 1 : 0, vertical: style.orientation == .vertical ? 1 : 0, wheel: shelf == .wheel ? 1 : 0)
    }

    /// The amounts in order, to move them alike.
    public var amounts: [Double] {
        get { [viewpoint, reversal, fan, vertical, wheel] }
        set { (viewpoint, reversal, fan, vertical, wheel) = (newValue[0], newValue[1], newValue[2], newValue[3], newValue[4]) }
    }

    /// Where `wheel` stands in `amounts`: the one amount that moves with no book open (the
    /// others change only the open book).
    public static let shelfAmount = 4

    /// How long a change takes, in seconds.
    public static let duration = 0.5
}

/// The rigid flip: angle, timing and the shadow curves of the two-stage turn.
public enum RigidFlip {
    /// The sheet's angle from its resting side (0 … π) at time fraction `t`: ease-in up to
    /// upright, ease-out down onto the other side.
    public static func angle(time t: Double) -> Double { .pi * TimingCurve.twoStage(t) }

    /// Angle at turn progress `p` (progress is proportional to the angle).
    public static func angle(progress p: Double) -> Double { .pi * clamp(p, 0, 1) }

    /// Shading for a sheet whose cover of the revealed side is `revealed` and of the facing
    /// side `facing` (fractions of the page, 0 … 1), and whose spine has risen by `spineLift`
    /// (|sin| of its angle to the page, 0 … 1). Covered fraction, not time, drives the page
    /// shadows: for a rigid sheet `revealed` is cos φ, so the revealed page lightens along a
    /// cosine and the facing page darkens along a sine, at most 1/3. The crease follows the
    /// spine's rise and the gutter fades with it, so both equal the resting pages' at the ends;
    /// the show-through grows as the sheet leaves the stack and falls back as it lands.
    public static func shades(revealed: Double, facing: Double, spineLift: Double) -> (revealed: Shade, facing: Shade, sheet: Shade) {
        // The rigid angle with the same covering.
        let phi = acos(clamp(revealed - facing, -1, 1))
        let cast = sin(phi) / 3
        let rising = 1 - abs(1 - 2 * phi / .pi)
        let lift = clamp(spineLift, 0, 1)
        return (PageStack.showing(Shade(reveal: revealed / 3, cast: cast, gutter: PageStack.gutter), lift: 0),
                PageStack.showing(Shade(facing: facing / 3, cast: cast, gutter: PageStack.gutter), lift: 0),
                PageStack.showing(Shade(self: 0.1 * rising, crease: lift, gutter: PageStack.gutter * (1 - lift)), lift: sin(phi), turning: true))
    }
}

/// The curl: a sheet held at the spine, bent up past a fold line behind the grabbed point and
/// turned about the spine, following the pointer.
public enum CurlTurn {
    /// Largest cylinder radius, as a fraction of the page width (reached mid-turn).
    public static let maxRadius = 0.12

    /// Where a scripted curl puts the pointer at progress `p` when `grab` was grabbed: it
    /// crosses to the mirror of the grab point, drifting towards the middle of the page on
    /// the way so the fold line runs diagonally. It arrives with zero speed (t + t² − t³ has
    /// slope 1 at the start and 0 at the end, the drift goes as sin² πt), so the sheet settles
    /// onto the page instead of landing still raised and offset.
    public static func pointer(grab: Vec2, progress p: Double) -> Vec2 {
        let t = clamp(p, 0, 1)
        let across = t + t * t * (1 - t)
        let drift = sin(.pi * t)
        return Vec2(grab.x * (1 - 2 * across), grab.y * (1 - 0.25 * drift * drift))
    }

    /// Turn progress of a pointer at `pointer` holding `grab`: 0 untouched, 1 landed.
    public static func progress(grab: Vec2, pointer: Vec2) -> Double {
        guard grab.x > 0 else { return 0 }
        return clamp((grab.x - pointer.x) / (2 * grab.x), 0, 1)
    }

    /// The nearest point to `pointer` that `grab` can reach on a sheet pinned at the spine:
    /// paper does not stretch, so the grabbed point stays within its distance of both ends of
    /// the spine (a page width around the near end, for a corner, and the diagonal around the
    /// far end), and between the book's head and tail (alternate projections onto the two
    /// discs and the band).
    public static func reachable(_ pointer: Vec2, grab: Vec2, size: Vec2) -> Vec2 {
        var p = pointer
        for _ in 0..<4 {
            for end in [Vec2(0, -size.y / 2), Vec2(0, size.y / 2)] {
                let g = grab - end, d = p - end
                let reach = (g * g).sum().squareRoot(), far = (d * d).sum().squareRoot()
                if far > reach { p = end + d * (reach / far) }
            }
            p.y = clamp(p.y, -size.y / 2, size.y / 2)
        }
        return p
    }

    /// The sheet a hand turns, held at `grab` and brought to `pointer` on a page of `size`
    /// (local units), after the page turns of PARC's 3Book (a developable bend, then a rotation
    /// about the spine): the part past a fold line behind the grabbed point bends up around a
    /// cylinder and the whole sheet turns about the spine. One parameter q (0 … 1) poses the
    /// sheet: the grabbed part lifts first (the bend leads), the sheet stands up from the spine
    /// mid-turn with its free part leaning over ahead, and it falls over onto the other side,
    /// the bend easing out as it lands (the flap's angle π(2q − q²), the spine's π·smoothstep(q)
    /// (later for a slanted fold: `spineLag`), the bend the difference, 2πq(1 − q)² for a
    /// straight fold, all still at q = 1). q is the one that puts the
    /// grabbed point over the pointer across the spine, seen obliquely from the side the sheet
    /// leaves (`lean`: a hand lifting a corner moves up more than across), so the corner rises
    /// as fast as the pointer moves and the sheet follows the hand and eases in as it does. The fold runs from the
    /// grabbed point towards the middle of the page and back, slanted as the grab and the drag
    /// ask (a corner folds along a diagonal, the fore edge straight: `grabSlant`) and never
    /// across the spine; the slant is a smooth function of the drag, so the sheet never twists
    /// from one frame to the next.
    public static func curl(grab: Vec2, pointer: Vec2, size: Vec2) -> Deformation {
        let pointer = reachable(pointer, grab: grab, size: size)
        let p = progress(grab: grab, pointer: pointer)
        guard p > 0, p < 1 else { return p >= 1 ? landed(size) : .flat }
        let delta = grab - pointer
        let len = (delta * delta).sum().squareRoot()
        // The slant: the grab's own (`grabSlant`) and the drag's, faded in over the drag's first
        // page width (a short drag's direction is noise), the two smoothly limited together.
        let asked = grabSlant(grab, size: size) + (len > 1e-9 ? delta.y / len : 0) * min(1, len / size.x)
        let sine = asked / (1 + (asked / maxSlant) * (asked / maxSlant)).squareRoot()
        let d = Vec2((1 - sine * sine).squareRoot(), sine)
        let along = (grab * d).sum()
        // A slanted fold keeps the sheet on the page longer: its far corner stays down while the
        // held corner comes over (the spine's turn starts later; the bend makes up the flap's angle).
        let lag = spineLag * abs(d.y)
        func pose(_ q: Double) -> Deformation {
            let fold = max(along * (1 - foldDepth * sin(.pi * q)), abs(d.y) * size.y / 2)
            let u = clamp((q - lag) / (1 - lag), 0, 1), rotation = .pi * u * u * (3 - 2 * u)
            return .curl(.init(point: d * fold, direction: d, radius: maxRadius * size.x * 4 * q * (1 - q),
                               wrap: .pi * q * (2 - q) - rotation, rotation: rotation))
        }
        // Bisection: where the grabbed point is seen from the hand's side (`lean`) falls steadily
        // from grab.x to −grab.x as q grows.
        var (lo, hi) = (0.0, 1.0)
        for _ in 0..<40 {
            let q = (lo + hi) / 2, at = pose(q).apply(grab).position
            if at.x - lean * (1 - q) * (1 - q) * at.z > pointer.x { lo = q } else { hi = q }
        }
        return pose((lo + hi) / 2)
    }

    /// How far over the spine the sheet held at `grab` and brought to `pointer` has turned,
    /// 0 … 1 (its rotation over π). The sheet lags the pointer (`lean`): a drag let go with the
    /// pointer most of the way across has the sheet only just past upright.
    public static func turned(grab: Vec2, pointer: Vec2, size: Vec2) -> Double {
        guard case let .curl(c) = curl(grab: grab, pointer: pointer, size: size) else { return 0 }
        return c.rotation / .pi
    }

    /// How far a let-go pointer has come, 0 … 1, towards where the sheet lands at time fraction
    /// `t` of its landing: it leaves at `speed` times its mean speed (0 … 6: the speed the hand
    /// had, so the sheet neither brakes nor jerks when let go) and its distance left shrinks as
    /// (1 − t)⁶. Near its landing the sheet's pose moves as the square root of that distance
    /// (its pose goes as (1 − q)², the held point's leaning place as (1 − q)⁴), so its bend
    /// goes as (1 − t)³ and its steps shrink frame by frame to nothing. With the distance as
    /// (1 − t)² (the landing curve) the sheet came down at an even speed and stopped dead; as
    /// (1 − t)⁴, its steps shrank evenly and the last was still a tenth of the largest.
    public static func settling(_ t: Double, leaving speed: Double = 1.6) -> Double {
        let u = 1 - clamp(t, 0, 1), u3 = u * u * u
        return 1 - u3 * u3 * (1 + (6 - clamp(speed, 0, 6)) * (1 - u))
    }

    /// The fold's slant a grab asks for before any drag, as the sine of its angle to the spine:
    /// a sheet held by a corner folds along a diagonal from that corner, its far corner still
    /// down; held by the fore edge's middle, straight; in between as far as the grab is from
    /// the middle of the height and from the spine.
    public static func grabSlant(_ grab: Vec2, size: Vec2) -> Double {
        guard size.x > 0, size.y > 0 else { return 0 }
        return cornerSlant * clamp(2 * grab.y / size.y, -1, 1) * clamp(grab.x / size.x, 0, 1)
    }

    /// How much of the turn (of q) the spine's turn waits per unit of the fold's slant (its
    /// sine): 0.3 for a corner.
    public static let spineLag = 0.5
    /// What a corner grab asks of the slant: limited by `maxSlant`, a fold at about 37° to the
    /// spine (sine 0.6).
    public static let cornerSlant = 0.9
    /// The sine of the fold's slant against the spine that the slant nears as the grab and the
    /// drag ask for more (a fold steeper than this would leave a sliver of the sheet standing).
    public static let maxSlant = 0.8
    /// How far across the pointer sits per unit the grabbed point has risen, at the start of a
    /// turn (fading out as (1 − q)², so the sheet lands exactly under it).
    public static let lean = 1.5
    /// How far the fold moves in from the grabbed point mid-turn, as a fraction of the grabbed
    /// point's distance from the spine.
    public static let foldDepth = 0.6

    /// A page that has finished a curl: all of it turned over the spine, flat.
    static func landed(_ size: Vec2) -> Deformation {
        .curl(.init(point: Vec2(size.x, 0), direction: Vec2(1, 0), radius: 0, wrap: 0, rotation: .pi))
    }
}

/// The cone turn for scripted turns (after Hong, Ahn and Yoon): the corner lifts first, the
/// sheet turns about the spine, and it lands flat at rotation π.
public enum ConeTurn {
    /// Smallest half-angle, at mid-turn.
    public static let minTheta = 0.5

    /// The cone at progress `p` for a page of `size`: the apex sits on the spine line below
    /// the page and moves away as the turn goes on, θ dips from π/2 (flat) and comes back,
    /// and the rotation lags the bending (smoothstep) so the corner rises first.
    public static func cone(progress p: Double, size: Vec2) -> Deformation.Cone {
        let t = clamp(p, 0, 1)
        let distance = size.y * (0.5 + 2 * t)
        let apex = -size.y / 2 - distance
        // Keep the far corner's wrap angle β = α / sin θ under π.
        let alpha = atan(size.x / distance)
        let floor = asin(min(1, alpha / (0.95 * .pi)))
        let theta = max(.pi / 2 - (.pi / 2 - minTheta) * sin(.pi * t), floor)
        let rotation = .pi * t * t * (3 - 2 * t)
        return .init(apex: apex, theta: theta, rotation: rotation)
    }
}

/// How much of each side a turning sheet covers, from its actual geometry.
public enum Coverage {
    /// Fractions (0 … 1) of the sheet's own side and of the other side that the sheet
    /// covers, averaged over rows along the spine. `across` gives a local point's deformed
    /// position across the spine (positive on the sheet's own side).
    public static func of(size: Vec2, across: (Vec2) -> Double) -> (own: Double, other: Double) {
        let rows = 9, columns = 24
        var own = 0.0, other = 0.0
        for r in 0..<rows {
            let l = size.y * (Double(r) / Double(rows - 1) - 0.5)
            var hi = 0.0, lo = 0.0
            for c in 0...columns {
                let x = across(Vec2(size.x * Double(c) / Double(columns), l))
                hi = max(hi, x)
                lo = min(lo, x)
            }
            own += hi / size.x
            other += -lo / size.x
        }
        return (clamp(own / Double(rows), 0, 1), clamp(other / Double(rows), 0, 1))
    }
}
