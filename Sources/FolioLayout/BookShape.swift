#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FolioMath
import Synchronization

/// A book's own proportions on the shelf, in the opening and in the camera: every scale that
/// depends on the page size, so a book of any shape keeps it and never jumps.
///
/// Does not: place covers on a shelf (`Carousel`, `Wheel`) or faces in a book (`BookFaces`).
public enum BookShape {
    /// Fraction of the view an open spread may fill at most (the rest is a margin).
    public static let viewFill = 0.95

    /// The scale that fits a cover of `size` into the reference cover's box (362 × 568),
    /// keeping its aspect: 1 for the reference, below 1 for a landscape or larger page.
    public static func coverFit(_ size: Vec2) -> Double {
        let box = BookInfo.referencePageSize
        guard size.x > 0, size.y > 0 else { return 1 }
        return min(box.x / size.x, box.y / size.y)
    }

    /// The scale of an open book whose laid-out page (across × along the spine) is `page`:
    /// the whole spread fits into `viewSize` with a margin, never enlarged. A vertical
    /// (calendar) spread stands upright: two pages tall, one wide.
    public static func openFit(page: Vec2, orientation: TurnStyle.Orientation, viewSize: Vec2) -> Double {
        guard page.x > 0, page.y > 0 else { return 1 }
        let spread = orientation == .vertical ? Vec2(page.y, 2 * page.x) : Vec2(2 * page.x, page.y)
        return min(1, viewFill * viewSize.x / spread.x, viewFill * viewSize.y / spread.y)
    }

    /// The scale of an open book whose whole turns stay in view: `openFit`, made smaller where
    /// some paper on the path of a turn — a rigid sheet standing up, the scripted curls from a
    /// corner or the edge, the cone — would leave the view as the camera (its vanishing point,
    /// eye distance and perspective: `reversal`, as `Camera.reversal`, any value between while
    /// it changes) shows it. Depends on no turn's progress, so the camera never moves
    /// because a sheet turns. `lift` is the height of the tallest stack (the spine of a turning
    /// sheet is no higher); `eye` is the eye distance asked for, nil when it follows the scale
    /// (`eyeDistance`), which makes perspective the same at every scale.
    public static func turnFit(page: Vec2, orientation: TurnStyle.Orientation, viewSize: Vec2, vanishing: Vec2,
                               reversal: Double, lift: Double, eye: Double? = nil) -> Double {
        let open = openFit(page: page, orientation: orientation, viewSize: viewSize)
        guard page.x > 0, page.y > 0 else { return open }
        let turned = orientation == .vertical ? Mat4.rotationZ(-.pi / 2) : Mat4.identity
        let key = SIMD3(page.x, page.y, lift)
        let points = sweeps.withLock { made in
            if let points = made[key] { return points }
            // A few books' worth: a library is browsed one book at a time.
            if made.count >= 16 { made.removeAll() }
            let points = turnSweep(page: page, lift: lift)
            made[key] = points
            return points
        }.map { turned.transformDirection($0) }
        // A hair inside the view: paper may come close to its edge, never cut by it.
        let half = viewSize / 2 * 0.99
        // The largest scale at which every point, its perspective taken at `scale`, stays in.
        func largest(at scale: Double) -> Double {
            let m34 = (2 * reversal - 1) / (eye ?? eyeDistance(pageWidth: page.x * scale))
            var most = open
            for q in points {
                // Camera: a point at scale s lands at vp + (s·q − vp)·k, k = 1 / (1 + m34·z);
                // per axis, the largest s that keeps it within the edge.
                let k = 1 / max(1 + m34 * q.z * scale, 0.05)
                func within(_ u: Double, _ vp: Double, _ edge: Double) -> Double {
                    let room = edge - (u > 0 ? vp : -vp) * (1 - k)
                    return max(room, 0.05 * edge) / max(abs(u) * k, 1e-9)
                }
                most = min(most, within(q.x, vanishing.x, half.x), within(q.y, vanishing.y, half.y))
            }
            return most
        }
        // With the eye following the scale, perspective is the same at every scale: exact at
        // once. A fixed eye magnifies more as the book grows: bisect for the largest that fits.
        guard eye != nil else { return largest(at: open) }
        var (lo, hi) = (0.0, open)
        if largest(at: hi) >= hi { return hi }
        for _ in 0..<30 {
            let mid = (lo + hi) / 2
            if largest(at: mid) >= mid { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// Sweeps made, by page size and lift: the camera asks for the same book's on every frame.
    private static let sweeps = Mutex<[SIMD3<Double>: [Vec3]]>([:])

    /// Points (book frame, unscaled) that bound the paper on the path of every turn: the spread,
    /// a rigid sheet at each angle about a spine `lift` high, the scripted curls and the cone,
    /// on both sides of the spine.
    static func turnSweep(page: Vec2, lift: Double) -> [Vec3] {
        let (w, h) = (page.x, page.y / 2)
        var right: [Vec3] = []
        for z in [0, lift] { right += [Vec3(w, -h, z), Vec3(w, h, z)] }
        for i in 0...24 {
            let phi = Double.pi * Double(i) / 24
            right += [Vec3(w * cos(phi), -h, lift + w * sin(phi)), Vec3(w * cos(phi), h, lift + w * sin(phi))]
        }
        let outline = [Vec2(w, -h), Vec2(w, 0), Vec2(w, h), Vec2(w / 2, -h), Vec2(w / 2, h)]
        for i in 1..<8 {
            let t = Double(i) / 8
            var bent: [Deformation] = [.cone(ConeTurn.cone(progress: t, size: page))]
            for grab in [Vec2(w, -h), Vec2(w, 0), Vec2(w, h)] {
                bent.append(CurlTurn.curl(grab: grab, pointer: CurlTurn.pointer(grab: grab, progress: t), size: page))
            }
            for d in bent { right += outline.map { d.apply($0).position + Vec3(0, 0, lift) } }
        }
        return right + right.map { Vec3(-$0.x, $0.y, $0.z) }
    }

    /// The eye distance for pages shown `pageWidth` units wide (across the spine): the
    /// reference's 2000 for 362-wide pages (m34 = −1/2000, about 5.5 page widths), in proportion.
    public static func eyeDistance(pageWidth: Double) -> Double {
        Camera.referenceEyeDistance * pageWidth / BookInfo.referencePageSize.x
    }
}
