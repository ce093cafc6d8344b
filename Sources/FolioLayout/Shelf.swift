#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath

/// Which shelf shows the covers.
public enum ShelfStyle: String, Sendable, CaseIterable, Codable { case carousel, wheel }

/// Where one cover stands on a shelf.
public struct CoverPlacement: Sendable, Equatable {
    public var index: Int
    /// Cover's local frame (a from its left edge, l from its centre) → world.
    public var model: Mat4
    /// Offset of the cover's centre from the view centre (carousel), layout units.
    public var x: Double
    public var scale: Double
    /// Rotation about the wheel's pivot, radians (0 upright; positive to the right).
    public var angle: Double?
    public var z: Int
}

/// The shelf's scroll physics: fast deceleration and snapping to a cover.
public enum ShelfScroll {
    /// UIScrollView's fast deceleration rate, per millisecond.
    public static let decelerationRate = 0.99

    /// How far a release at `velocity` (covers per second) glides before stopping.
    public static func glide(velocity: Double) -> Double {
        -velocity / (1000 * log(decelerationRate))
    }

    /// Snapping (docs/behaviour.md §1): ceil when moving towards later covers, round at rest, floor
    /// when moving back; `position` in covers, the result clamped to the shelf.
    public static func snap(_ position: Double, velocity: Double, count: Int) -> Double {
        let target: Double
        if velocity > 0 { target = position.rounded(.up) }
        else if velocity < 0 { target = position.rounded(.down) }
        else { target = position.rounded() }
        return clamp(target, 0, Double(max(count - 1, 0)))
    }

    /// Where a scroll released at `position` with `velocity` comes to rest.
    public static func rest(from position: Double, velocity: Double, count: Int) -> Double {
        snap(position + glide(velocity: velocity), velocity: velocity, count: count)
    }
}

/// The carousel: one row of covers, the centred one largest.
public struct Carousel: Sendable, Equatable {
    public var coverSize: Vec2
    public var spacing: Double
    public var viewWidth: Double

    public init(coverSize: Vec2 = BookInfo.referencePageSize, spacing: Double = 10, viewWidth: Double) {
        self.coverSize = coverSize
        self.spacing = spacing
        self.viewWidth = viewWidth
    }

    public static let baseScale = 0.7
    public static let minRelativeScale = 0.75

    public var pitch: Double { coverSize.x + spacing }

    /// `0.7 · clamp(1 − d / viewWidth, 0.75, 1)`.
    public func scale(distance d: Double) -> Double {
        Self.baseScale * clamp(1 - abs(d) / viewWidth, Self.minRelativeScale, 1)
    }

    /// Cover `i` at scroll position `scroll` (covers; 0 = the first cover centred). A cover
    /// of another `size` keeps its aspect and fits the slot's box (`BookShape.coverFit`).
    public func placement(_ i: Int, scroll: Double, size: Vec2? = nil) -> CoverPlacement {
        let x = (Double(i) - scroll) * pitch
        let s = scale(distance: x)
        let own = size ?? coverSize
        let fit = min(coverSize.x / own.x, coverSize.y / own.y)
        let model = Mat4.translation(x, 0, 0) * Mat4.scale(s * fit) * Mat4.translation(-own.x / 2, 0, 0)
        return CoverPlacement(index: i, model: model, x: x, scale: s, angle: nil, z: 0)
    }

    /// Indices of covers that can be on screen (the widest half-cover included).
    public func visibleRange(scroll: Double, count: Int) -> ClosedRange<Int>? {
        let reach = (viewWidth / 2 + coverSize.x * Self.baseScale / 2) / pitch
        let lo = max(0, Int((scroll - reach).rounded(.down)))
        let hi = min(count - 1, Int((scroll + reach).rounded(.up)))
        return lo <= hi ? lo...hi : nil
    }
}

/// The spinning wheel: covers on a circle, each rotated about a pivot below it.
public struct Wheel: Sendable, Equatable {
    public var itemSize: Vec2
    public var radius: Double
    public var viewSize: Vec2

    public init(itemSize: Vec2, radius: Double, viewSize: Vec2) {
        self.itemSize = itemSize
        self.radius = radius
        self.viewSize = viewSize
    }

    /// The reference wheel: 133 × 173 items on a radius of 500.
    public static func reference(viewSize: Vec2) -> Wheel {
        Wheel(itemSize: Vec2(133, 173), radius: 500, viewSize: viewSize)
    }

    /// The reference wheel scaled so its items are covers at the shelf's scale (0.7).
    public static func covers(_ coverSize: Vec2 = BookInfo.referencePageSize, viewSize: Vec2) -> Wheel {
        let item = coverSize * Carousel.baseScale
        return Wheel(itemSize: item, radius: 500 * item.x / 133, viewSize: viewSize)
    }

    /// `atan(itemWidth / R)`.
    public var anglePerItem: Double { atan(itemSize.x / radius) }

    /// θ0: 0 at the start, −(n − 1) · anglePerItem at the end (scroll in covers).
    public func baseAngle(scroll: Double) -> Double { -scroll * anglePerItem }

    /// Half the visible angle: `tan θ = (viewWidth / 2) / (R + h/2 − viewHeight / 2)`.
    public var visibleAngle: Double {
        atan2(viewSize.x / 2, radius + itemSize.y / 2 - viewSize.y / 2)
    }

    /// The items within ±θ (computed from the angles alone: the work does not grow with n).
    public func visibleRange(scroll: Double, count: Int) -> ClosedRange<Int>? {
        guard count > 0 else { return nil }
        let theta = visibleAngle, a0 = baseAngle(scroll: scroll), step = anglePerItem
        let start = a0 < -theta ? Int(((-theta - a0) / step).rounded(.down)) : 0
        let end = min(count - 1, Int(((theta - a0) / step).rounded(.up)))
        return start <= end ? start...end : nil
    }

    /// Item `i` for a cover of `coverSize`, fitted into the item's box with its aspect kept:
    /// centred in the view, then turned about the pivot R + h/2 below its centre (clockwise
    /// for positive angles, which lie to the right).
    public func placement(_ i: Int, scroll: Double, coverSize: Vec2) -> CoverPlacement {
        let angle = baseAngle(scroll: scroll) + Double(i) * anglePerItem
        let s = min(itemSize.x / coverSize.x, itemSize.y / coverSize.y)
        let pivot = Vec3(0, -(radius + itemSize.y / 2), 0)
        let model = Mat4.rotation(-angle, axis: Vec3(0, 0, 1), about: pivot)
            * Mat4.scale(s) * Mat4.translation(-coverSize.x / 2, 0, 0)
        // Items further right overlap those to their left.
        return CoverPlacement(index: i, model: model, x: 0, scale: s, angle: angle, z: Int((angle * 1_000_000).rounded()))
    }
}

/// The covers on the shelf: the carousel's, the wheel's, or on their way from one to the other
/// (`StyleBlend.wheel`). On the way, each cover's centre moves in a straight line, and its turn
/// and scale change, from its place on one to its place on the other, so the switch never
/// cuts; the covers in view on either shelf are drawn, in the wheel's order (the carousel's
/// do not overlap).
public struct ShelfBlend: Sendable, Equatable {
    public var carousel: Carousel
    public var wheel: Wheel

    public init(coverSize: Vec2 = BookInfo.referencePageSize, viewSize: Vec2) {
        carousel = Carousel(coverSize: coverSize, viewWidth: viewSize.x)
        wheel = Wheel.covers(coverSize, viewSize: viewSize)
    }

    /// The placements at scroll position `scroll`, `amount` of the way from the carousel (0) to
    /// the wheel (1), for covers of the sizes given.
    public func placements(scroll: Double, wheel amount: Double, covers: [Vec2]) -> [CoverPlacement] {
        func onCarousel(_ i: Int) -> CoverPlacement { carousel.placement(i, scroll: scroll, size: covers[i]) }
        func onWheel(_ i: Int) -> CoverPlacement { wheel.placement(i, scroll: scroll, coverSize: covers[i]) }
        let a = carousel.visibleRange(scroll: scroll, count: covers.count), b = wheel.visibleRange(scroll: scroll, count: covers.count)
        if amount <= 0 { return a.map { $0.map(onCarousel) } ?? [] }
        if amount >= 1 { return b.map { $0.map(onWheel) } ?? [] }
        guard let lo = [a?.lowerBound, b?.lowerBound].compactMap({ $0 }).min(),
              let hi = [a?.upperBound, b?.upperBound].compactMap({ $0 }).max() else { return [] }
        return (lo...hi).map { i in
            let from = onCarousel(i), to = onWheel(i)
            // Each model is a scale and a turn about the cover's centre, then a move: mixed part
            // by part (matrices mixed entry by entry would shear the cover on the way).
            let centre = Vec3(covers[i].x / 2, 0, 0)
            func parts(_ m: Mat4) -> (centre: Vec3, turn: Double, scale: Double) {
                let x = m.transformDirection(Vec3(1, 0, 0))
                return (m.project(centre), atan2(x.y, x.x), length(x))
            }
            let (a, b) = (parts(from.model), parts(to.model))
            let model = Mat4.translation(a.centre + (b.centre - a.centre) * amount) * Mat4.rotationZ(mix(a.turn, b.turn, amount))
                * Mat4.scale(mix(a.scale, b.scale, amount)) * Mat4.translation(-centre)
            return CoverPlacement(index: i, model: model, x: mix(from.x, to.x, amount), scale: mix(from.scale, to.scale, amount),
                                  angle: mix(0, to.angle ?? 0, amount), z: to.z)
        }
    }
}
