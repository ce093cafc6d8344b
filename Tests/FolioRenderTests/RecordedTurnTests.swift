import FolioBook
import FolioImage
import FolioLayout
import FolioMath
import FolioReader
import FolioRender
import FolioScript
import Foundation
import Testing

/// A turn as `folio record` plays it (a script on the viewer's controller, 30 frames a second),
/// drawn frame by frame and measured along the whole of it: the sheet's type changes sharpness
/// no faster than the sheet moves, the resting page takes the landing sheet's place without a
/// change in its type, and the page blocks' edges start and stop moving as the sheet does.
@Suite(.serialized) struct RecordedTurnTests {
    static let fps = 30.0

    /// The scenes of `script` played on the viewer's controller as `folio record` plays it
    /// (its view 1280 × 720 layout units, fitted to the frames).
    static func scenes(_ script: String) throws -> [Scene] {
        let controller = BookController(library: ContinuityTests.library.bookInfos)
        let runner = ScriptRunner(script: try Script(script), controller: controller, fps: fps)
        return Array(sequence(state: runner) { $0.nextFrame() })
    }

    /// The last turn of `scenes`: from the frame at rest before it to `after` frames at rest
    /// after it.
    static func lastTurn(_ scenes: [Scene], after: Int = 2) throws -> Range<Int> {
        let last = try #require(scenes.lastIndex { $0.state == .turning })
        let first = try #require(scenes[...last].lastIndex { $0.state != .turning }) + 1
        try #require(last + after < scenes.count, "the script rests \(after) frames after its last turn")
        return (first - 1)..<(last + 1 + after)
    }

    /// One recorded frame: its scene, its pixels' luma and where the scene's faces fall in it.
    struct Frame {
        var scene: Scene
        var luma: [Float]
        var screen: Screen

        init(scene: Scene, image: RGBAImage) {
            self.scene = scene
            luma = image.pixels.withUnsafeBufferPointer { p in
                [Float](unsafeUninitializedCapacity: p.count / 4) { out, n in
                    for i in 0..<(p.count / 4) {
                        out[i] = 0.2126 * Float(p[4 * i]) + 0.7152 * Float(p[4 * i + 1]) + 0.0722 * Float(p[4 * i + 2])
                    }
                    n = p.count / 4
                }
            }
            screen = Screen(camera: scene.camera.fitted(width: image.width, height: image.height), width: image.width, height: image.height)
        }

        var sheet: SceneItem? { scene.items.last { $0.kind == .sheet && $0.visible } }

        /// The page lying open that shows `content`.
        func page(showing content: FaceContent) -> SceneItem? {
            scene.items.first { $0.kind == .page && $0.visible && $0.front == content }
        }

        /// Mean magnitude of the luma's vertical differences over `mask`: across the lines of
        /// type, so a sheet squeezed across the spine keeps it while its type stays as sharp.
        func sharpness(_ mask: Mask) -> Double {
            var sum = 0.0
            for i in mask.pixels { sum += Double(abs(luma[i + screen.width] - luma[i])) }
            return sum / Double(max(mask.pixels.count, 1))
        }

        /// Mean absolute luma difference from `other` over `pixels`.
        func difference(_ other: Frame, over pixels: [Int]) -> Double {
            var sum = 0.0
            for i in pixels { sum += Double(abs(luma[i] - other.luma[i])) }
            return sum / Double(max(pixels.count, 1))
        }
    }

    /// Layout → pixels: where a point of a face falls in a frame (pixel units, top-left origin).
    struct Screen {
        var viewProjection: Mat4
        var width: Int, height: Int

        init(camera: Camera, width: Int, height: Int) {
            viewProjection = camera.viewProjection
            (self.width, self.height) = (width, height)
        }

        /// The point `a` across the face from its spine edge and `l` along it (fractions of its
        /// size: 0 … 1 and −½ … ½), bent as the face is.
        func point(_ item: SceneItem, _ a: Double, _ l: Double) -> Vec2 {
            let c = viewProjection.project(item.model.project(item.deformation.apply(Vec2(a * item.size.x, l * item.size.y)).position))
            return Vec2((c.x + 1) / 2 * Double(width), (1 - c.y) / 2 * Double(height))
        }
    }

    /// The pixels a region of a face covers, as indices into a frame's pixels, ascending.
    struct Mask {
        var pixels: [Int]

        /// The pixels both masks cover.
        func common(_ other: Mask) -> [Int] {
            var out: [Int] = [], i = 0, j = 0
            let a = pixels, b = other.pixels
            while i < a.count, j < b.count {
                if a[i] == b[j] { out.append(a[i]); i += 1; j += 1 } else if a[i] < b[j] { i += 1 } else { j += 1 }
            }
            return out
        }
    }

    /// Where the type lies on the sample books' pages (their images' margins, as fractions of
    /// the face from its spine edge and along it), a little inside, so that no page edge is in it.
    static let textAcross = 0.12...0.88, textAlong = -0.4...0.4

    /// The grid of points that stands for a face's type region.
    static let grid: [(a: Double, l: Double)] = (0...24).flatMap { i in
        (0...32).map { j in
            (textAcross.lowerBound + (textAcross.upperBound - textAcross.lowerBound) * Double(i) / 24,
             textAlong.lowerBound + (textAlong.upperBound - textAlong.lowerBound) * Double(j) / 32)
        }
    }

    /// The pixels whose centres lie in the face's type region as the frame shows it (the region
    /// cut in the grid's cells, each filled as two triangles), without the pixels at its border,
    /// nor the last row (the sharpness reads the row below). Only the side the sheet shows over
    /// most of the region counts (the cells wound its way on screen), and none of it where the
    /// other side lies over it: a corner folded along a diagonal lays its back over its front,
    /// and type of two faces squeezed two ways does not read as one.
    static func textMask(_ points: [Vec2], in frame: Frame) -> Mask {
        let w = frame.screen.width, h = frame.screen.height, n = 33
        var triangles: [(Vec2, Vec2, Vec2)] = []
        for i in 0..<24 {
            for j in 0..<32 {
                let p00 = points[i * n + j], p01 = points[i * n + j + 1], p10 = points[(i + 1) * n + j], p11 = points[(i + 1) * n + j + 1]
                triangles += [(p00, p10, p11), (p00, p11, p01)]
            }
        }
        func area(_ t: (Vec2, Vec2, Vec2)) -> Double { (t.1.x - t.0.x) * (t.2.y - t.0.y) - (t.1.y - t.0.y) * (t.2.x - t.0.x) }
        let seen = triangles.reduce(0.0) { $0 + area($1) } >= 0 ? 1.0 : -1.0
        func fill(_ cells: [(Vec2, Vec2, Vec2)]) -> [Bool] {
            var inside = [Bool](repeating: false, count: w * h)
            inside.withUnsafeMutableBufferPointer { inside in
                for (p, q, r) in cells {
                    let area = (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
                    guard abs(area) > 1e-9 else { continue }
                    let x0 = max(0, Int(min(p.x, q.x, r.x).rounded(.down))), x1 = min(w - 1, Int(max(p.x, q.x, r.x).rounded(.up)))
                    let y0 = max(0, Int(min(p.y, q.y, r.y).rounded(.down))), y1 = min(h - 1, Int(max(p.y, q.y, r.y).rounded(.up)))
                    guard x0 <= x1, y0 <= y1 else { continue }
                    for y in y0...y1 {
                        let cy = Double(y) + 0.5
                        for x in x0...x1 {
                            let cx = Double(x) + 0.5
                            let e0 = ((q.x - p.x) * (cy - p.y) - (q.y - p.y) * (cx - p.x)) * area
                            let e1 = ((r.x - q.x) * (cy - q.y) - (r.y - q.y) * (cx - q.x)) * area
                            let e2 = ((p.x - r.x) * (cy - r.y) - (p.y - r.y) * (cx - r.x)) * area
                            if e0 >= 0, e1 >= 0, e2 >= 0 { inside[y * w + x] = true }
                        }
                    }
                }
            }
            return inside
        }
        var inside = fill(triangles.filter { area($0) * seen > 0 })
        let over = fill(triangles.filter { area($0) * seen < 0 })
        for i in inside.indices where over[i] { inside[i] = false }
        let pixels = inside.withUnsafeBufferPointer { inside in
            var pixels: [Int] = []
            for y in 1..<(h - 2) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    if inside[i], inside[i - 1], inside[i + 1], inside[i - w], inside[i + w] { pixels.append(i) }
                }
            }
            return pixels
        }
        return Mask(pixels: pixels)
    }

    /// How far the face's type region moved between two frames: the mean distance its grid's
    /// points travelled, pixels.
    static func motion(_ a: Region, _ b: Region) -> Double {
        distances(a, b).reduce(0, +) / Double(grid.count)
    }

    /// How far most of the face's type region moved: the median distance its grid's points
    /// travelled, pixels (a corner lifting fast while the rest of the sheet creeps: small).
    static func creep(_ a: Region, _ b: Region) -> Double {
        let d = distances(a, b).sorted()
        return d.isEmpty ? 0 : d[d.count / 2]
    }

    static func distances(_ a: Region, _ b: Region) -> [Double] {
        zip(a.points, b.points).map { p in
            let d = p.0 - p.1
            return (d.x * d.x + d.y * d.y).squareRoot()
        }
    }

    /// How much the face's type region changed its squeeze between two frames: the mean over
    /// the grid's cells of how much the length of each of a cell's two sides changed on screen
    /// (|Δ log length|, both added). Sharpness follows the squeeze, not where the sheet is.
    static func squeezing(_ a: Region, _ b: Region) -> Double {
        let n = 33, u = a.points, v = b.points
        func length(_ p: [Vec2], _ i: Int, _ j: Int) -> Double {
            let d = p[i] - p[j]
            return max((d.x * d.x + d.y * d.y).squareRoot(), 1e-6)
        }
        var sum = 0.0
        for i in 0..<24 {
            for j in 0..<32 {
                let c = i * n + j
                sum += abs(log(length(v, c + n, c) / length(u, c + n, c))) + abs(log(length(v, c + 1, c) / length(u, c + 1, c)))
            }
        }
        return sum / Double(24 * 32)
    }

    /// The last turn of `script` recorded at `width × height` with `samples`, every `every`th frame.
    static func record(_ script: String, width: Int, height: Int, samples: Int, every: Int = 1) throws -> [Frame] {
        let all = try scenes(script)
        let turn = try lastTurn(all)
        // Both ends always: the frames at rest before and after the turn.
        let scenes = (Array(turn.dropLast()).enumerated().filter { $0.offset % every == 0 }.map(\.element) + [turn.upperBound - 1]).map { all[$0] }
        let images = try GLHarness.shared.frames(scenes, width: width, height: height, library: ContinuityTests.library,
                                                 configuration: RenderConfiguration(samples: samples, filtering: .software))
        return zip(scenes, images).map { Frame(scene: $0, image: $1) }
    }

    static let scripts = [
        "curl": "style curl; open; goto 10; wait 0.1; next; wait 0.1",
        "rigid": "style rigid; open; goto 10; wait 0.1; next; wait 0.1",
        "cone": "style cone; open; goto 10; wait 0.1; next; wait 0.1",
        "corner": "style curl; open; goto 10; wait 0.1; curl 0.95,-0.45; wait 0.1",
        // Two turns back to back from the book's first spread: the second sheet leaves as the
        // first lands.
        "chained": "style curl; open; next 2; wait 0.1",
    ]

    /// A face's type region in a frame: the face, its grid's points on screen and its pixels.
    struct Region {
        var item: SceneItem
        var points: [Vec2]
        var mask: Mask

        init(_ item: SceneItem, in f: Frame) {
            self.item = item
            points = grid.map { f.screen.point(item, $0.a, $0.l) }
            mask = textMask(points, in: f)
        }
    }

    /// The type region each frame shows of the turning sheet, or at rest of the page the sheet
    /// leaves (before the turn) or lands as (after it), and its item.
    static func typeRegions(_ frames: [Frame]) throws -> [Region] {
        let first = try #require(frames.first { $0.sheet != nil }?.sheet)
        let last = try #require(frames.last { $0.sheet != nil }?.sheet)
        var seen = false
        return try frames.map { f in
            if let sheet = f.sheet { seen = true; return Region(sheet, in: f) }
            let content = seen ? last.back : first.front
            let page = try #require(content.flatMap(f.page(showing:)), "the page the sheet leaves or lands as")
            return Region(page, in: f)
        }
    }

    /// Type sharpness against the paper's brightness: shading that darkens the sheet leaves it.
    static func contrastSharpness(_ f: Frame, _ mask: Mask) -> Double {
        var paper = 0.0
        for i in mask.pixels { paper += Double(f.luma[i]) }
        return f.sharpness(mask) / max(paper / Double(max(mask.pixels.count, 1)), 1)
    }

    /// A page block's edge as frame `f` (at rest) shows it: the left and right fore edges'
    /// columns (the middle third of the page's height) and the right page's top rows (its middle
    /// half), the points of a face along it (`a`, `l` as `Screen.point` takes them) and the
    /// block's side (`right`).
    struct Edge {
        var name: String
        var x: Range<Int>, y: Range<Int>
        var columns: Bool
        var points: [(a: Double, l: Double)]
        var right: Bool

        /// The largest change of one column's (or row's) mean luma from `f` to `g`.
        func change(_ f: Frame, _ g: Frame) -> Double {
            func means(_ f: Frame) -> [Double] {
                columns ? x.map { xx in y.reduce(0.0) { $0 + Double(f.luma[$1 * f.screen.width + xx]) } / Double(y.count) }
                    : y.map { yy in x.reduce(0.0) { $0 + Double(f.luma[yy * f.screen.width + $1]) } / Double(x.count) }
            }
            return zip(means(f), means(g)).map { abs($0 - $1) }.max() ?? 0
        }

        /// How far the face's points along the edge moved from `a` in `f` to `b` in `g`, pixels.
        func travel(_ a: SceneItem, in f: Frame, _ b: SceneItem, in g: Frame) -> Double {
            points.map { p in
                let u = f.screen.point(a, p.a, p.l), v = g.screen.point(b, p.a, p.l)
                return ((u.x - v.x) * (u.x - v.x) + (u.y - v.y) * (u.y - v.y)).squareRoot()
            }.max() ?? 0
        }
    }

    /// The top page lying open on a block's side (`right`), if frame `f` shows one.
    static func topPage(_ f: Frame, right: Bool) -> SceneItem? {
        f.scene.items.last {
            $0.kind == .page && $0.visible && ($0.model.project(Vec3(1, 0, 0)).x > $0.model.project(.zero).x) == right
        }
    }

    static func edges(_ f: Frame) throws -> [Edge] {
        let right = try #require(topPage(f, right: true)), left = try #require(topPage(f, right: false))
        let along = [-1.0 / 6, 0, 1.0 / 6]
        func foreEdge(_ name: String, _ p: SceneItem, right: Bool) -> Edge {
            let x = Int(f.screen.point(p, 1, 0).x.rounded())
            let ys = along.map { f.screen.point(p, 1, $0).y }
            return Edge(name: name, x: (x - 4)..<(x + 5), y: Int(ys.min()!)..<Int(ys.max()!), columns: true,
                        points: along.map { (1, $0) }, right: right)
        }
        let a = f.screen.point(right, 0.25, 0.5), b = f.screen.point(right, 0.75, 0.5)
        let y = Int(a.y.rounded())
        return [foreEdge("left fore edge", left, right: false), foreEdge("right fore edge", right, right: true),
                Edge(name: "right page's top", x: Int(min(a.x, b.x))..<Int(max(a.x, b.x)), y: (y - 4)..<(y + 5), columns: false,
                     points: [0.25, 0.5, 0.75].map { ($0, 0.5) }, right: true)]
    }

    /// How far the edge moved from frame `f` to `g`: the sheet's edge (`a` to `b`) or the top
    /// page of the block's side, whichever moved further. A block's top page changes as a sheet
    /// leaves it or lands on it (the stack a sheet thinner or thicker: the page beneath lies a
    /// sheet lower), and where the sheet's rim lies on that page's the edge is theirs together.
    static func travel(_ e: Edge, _ a: SceneItem, in f: Frame, _ b: SceneItem, in g: Frame) -> Double {
        let sheet = e.travel(a, in: f, b, in: g)
        guard let p = topPage(f, right: e.right), let q = topPage(g, right: e.right) else { return sheet }
        return max(sheet, e.travel(p, in: f, q, in: g))
    }

    /// How much the paper's shade at the edge changed from frame `f` to `g`: the top page of the
    /// block's side changes as a sheet leaves it or lands on it, and the page a sheet lies on is
    /// darkened by its reveal or facing shade (a third, docs/behaviour.md §5). Where the sheet's
    /// rim lies on that page's, that page's shows in the pixels the two share (page.frag's
    /// STACKED hands them to the page beneath), so the rim's paper changes shade with no motion.
    static func shading(_ e: Edge, in f: Frame, _ g: Frame) -> Double {
        func darkening(_ p: SceneItem?) -> Double { p.map { min($0.shade.reveal + $0.shade.facing + $0.shade.`self`, 1) } ?? 0 }
        return abs(darkening(topPage(f, right: e.right)) - darkening(topPage(g, right: e.right)))
    }

    /// What changes from one frame to the next.
    struct Step: CustomStringConvertible {
        var frame: Int
        /// Type sharpness (`contrastSharpness`) before and after.
        var sharpness: (Double, Double)
        /// Whether the type region shows broadly enough in both frames to be measured (not edge
        /// on: at least `measurable` of the largest it covers in the recording), and is one
        /// face's (`sameFace`).
        var measured: Bool
        /// Whether both frames show one face's type (not one sheet's and then the next one's).
        var sameFace: Bool
        /// How far the type region moved (`motion`), and most of it (`creep`), pixels.
        var motion: Double, creep: Double
        /// How much its squeeze changed (`squeezing`).
        var squeeze: Double
        /// Mean luma change over the type region in both frames.
        var difference: Double
        var edges: [(name: String, change: Double, travel: Double, shading: Double)]

        /// The change in sharpness against the sharpness of a page of type (a page with little on
        /// it, a title's, changes by as much for less).
        var relativeSharpness: Double { abs(sharpness.1 - sharpness.0) / max((sharpness.0 + sharpness.1) / 2, typePage) }

        var description: String {
            String(format: "frame %d: sharpness %.4f → %.4f, motion %.2f px (most %.2f), squeeze %.4f, difference %.2f", frame, sharpness.0, sharpness.1, motion, creep, squeeze, difference)
                + edges.map { String(format: ", %@ %.1f (travel %.2f px, shade %.2f)", $0.name, $0.change, $0.travel, $0.shading) }.joined()
        }
    }

    static let measurable = 0.4

    static func steps(_ frames: [Frame]) throws -> [Step] {
        let regions = try typeRegions(frames)
        let edges = try edges(frames[0])
        let largest = regions.map(\.mask.pixels.count).max() ?? 0
        let sharpness = zip(frames, regions).map { contrastSharpness($0, $1.mask) }
        return frames.indices.dropFirst().map { k in
            let a = regions[k - 1], b = regions[k], f = frames[k - 1], g = frames[k]
            let sameFace = !(a.item.kind == .sheet && b.item.kind == .sheet && a.item.front != b.item.front)
            return Step(frame: k, sharpness: (sharpness[k - 1], sharpness[k]),
                        measured: min(a.mask.pixels.count, b.mask.pixels.count) >= Int(measurable * Double(largest)) && sameFace,
                        sameFace: sameFace,
                        motion: motion(a, b), creep: creep(a, b), squeeze: squeezing(a, b), difference: g.difference(f, over: a.mask.common(b.mask)),
                        edges: edges.map { ($0.name, $0.change(f, g), travel($0, a.item, in: f, b.item, in: g), shading($0, in: f, g)) })
        }
    }

    /// The bounds, from the recordings of the turns at 640 × 360, MSAA 0 and 4 (llvmpipe),
    /// each a little above what they give:
    /// - type sharpness, relative: 7% a step and 0.15 per unit of `squeezing` (mid-turn: up to
    ///   4.9%, up to 6% where a sheet starts to lift), and 3% a pixel of motion up to 4 pixels:
    ///   a sheet within a few pixels of the page it leaves or lands on reads that page's texels
    ///   (page.frag's ALIGN_REACH), sharp as it, and in the frame it moves out of that reach
    ///   its strokes start to meet the pixels otherwise (the sample pages map 4 texels to a
    ///   pixel at 640 × 360; 16% as a curl's flat part starts to lift 6 px); a sheet standing
    ///   nearly edge on (`measurable`) is left out, its type region too thin to measure, and so
    ///   is a step from one sheet to the next;
    /// - the type region's mean luma change: 1 a step and 25 a pixel of motion (1.1 where it
    ///   moves 0.04 px; 0.6 where a cone starts and nothing moves);
    /// - a block edge's column (row): 6 a step, 200 a pixel its face's edge moves (up to 154:
    ///   the paper's edge crossing a column against the desk) and 80 a unit of change in the
    ///   shade of the paper at the edge (`shading`: a third, as a turn starts or lands, changes
    ///   a rim column by up to 22 at MSAA 4).
    static let sharpnessPerStep = 0.07, sharpnessPerSqueeze = 0.15, sharpnessPerPixel = 0.03, maskingMotion = 4.0
    static let differencePerStep = 1.0, differencePerPixel = 25.0
    static let edgePerStep = 6.0, edgePerPixel = 200.0, edgePerShade = 80.0

    /// What in `steps` changes more than the sheet's motion explains, one line each: in the
    /// sheet's type and at the blocks' edges.
    static func jumps(_ steps: [Step]) -> (type: [String], edges: [String]) {
        var type: [String] = [], edges: [String] = []
        for s in steps {
            let moving = sharpnessPerPixel * min(s.motion, maskingMotion)
            if s.measured, s.relativeSharpness > sharpnessPerStep + sharpnessPerSqueeze * s.squeeze + moving {
                type.append(String(format: "frame %d: type sharpness changes by %.1f%% as the sheet's squeeze changes by %.3f", s.frame, 100 * s.relativeSharpness, s.squeeze))
            }
            if s.measured, s.difference > differencePerStep + differencePerPixel * s.motion {
                type.append(String(format: "frame %d: the type region changes by %.2f as the sheet moves %.2f px", s.frame, s.difference, s.motion))
            }
            for e in s.edges where e.change > edgePerStep + edgePerPixel * e.travel + edgePerShade * e.shading {
                edges.append(String(format: "frame %d: the %@ changes by %.1f as its edge moves %.2f px and its paper's shade by %.2f", s.frame, e.name, e.change, e.travel, e.shading))
            }
        }
        return (type, edges)
    }

    /// Within this many pixels of travel from where it starts or lands, a sheet's type is as
    /// sharp as the page lying there, to `restingSharpness` (relative): page.frag aligns its
    /// texels with that page's. Drawn without it, the last frames of a landing at 640 × 360 read
    /// 6.5–8.9% softer and snap sharp at rest.
    static let restingTravel = 0.5, restingSharpness = 0.03

    /// The sharpness of a page of type: a page with little on it (a title's) changes by as much
    /// for less, and its other side's print showing through, fading as a sheet lifts, is most
    /// of its measure.
    static let typePage = 0.04

    /// The frames of `steps` whose sheet lies within `restingTravel` of the page it leaves or
    /// lands on yet whose type is softer or sharper than that page's, one line each.
    static func snaps(_ steps: [Step]) -> [String] {
        guard let first = steps.first?.sharpness.0, let last = steps.last?.sharpness.1 else { return [] }
        var out: [String] = []
        for k in steps.indices.dropFirst() {
            let travelled = steps[..<k].map(\.motion).reduce(0, +), remaining = steps[k...].map(\.motion).reduce(0, +)
            let sharpness = steps[k - 1].sharpness.1
            // One sheet's travel: a chained turn's next sheet leaves from under the last one.
            let sides = [(travelled, first, "leaves", steps[..<k]), (remaining, last, "lands on", steps[k...])]
            for (travel, page, side, between) in sides
            where page >= typePage && between.allSatisfy(\.sameFace) && travel < restingTravel
                && abs(sharpness - page) > restingSharpness * page {
                out.append(String(format: "frame %d: %.2f px from the page it %@, its type %.1f%% off that page's", steps[k - 1].frame,
                                  travel, side, 100 * (sharpness - page) / page))
            }
        }
        return out
    }

    static func expectContinuous(_ frames: [Frame], _ name: String) throws {
        let steps = try steps(frames)
        let (type, edges) = jumps(steps)
        #expect(snaps(steps).isEmpty, "\(name): \(snaps(steps).joined(separator: "; "))")
        #expect(steps.contains { $0.motion > 10 }, "\(name): the sheet hardly moves: \(steps)")
        #expect(type.isEmpty, "\(name): \(type.joined(separator: "; "))\n\(steps.map(\.description).joined(separator: "\n"))")
        // Where the sheet lies edge on edge with the page it leaves or lands on, the edge drawn
        // is the two rims together (page.frag's STACKED): a fore edge's column changed by
        // 79–110 as the edge moved under half a pixel, while page.vert placed the landing
        // stack's page on the sheet's own curve, turned over (vOffset off by 0.7 px).
        #expect(edges.isEmpty, "\(name): \(edges.joined(separator: "; "))")
    }

    /// Each turn at 640 × 360, every frame, with no multisampling and with 4 samples.
    @Test(arguments: ["curl", "rigid", "cone", "corner", "chained"], [0, 4])
    func aRecordedTurnChangesOnlyAsItsSheetMoves(_ name: String, samples: Int) throws {
        try Self.expectContinuous(try Self.record(Self.scripts[name]!, width: 640, height: 360, samples: samples), "\(name), MSAA \(samples)")
    }

    /// The rigid flip at 1920 × 1080 with 4 samples, every second frame (the bounds grow with
    /// the motion and the squeeze of a step, so a step twice as long may change twice as much).
    @Test func aRecordedTurnAt1080pChangesOnlyAsItsSheetMoves() throws {
        let frames = try Self.record(Self.scripts["rigid"]!, width: 1920, height: 1080, samples: 4, every: 2)
        try Self.expectContinuous(frames, "rigid at 1920 × 1080, MSAA 4")
    }

    /// The checks catch a sheet whose type softens in one frame: the rigid flip with one frame
    /// mid-lift drawn without the biased tap (the plain tap: mip level by the
    /// squeezed direction) is flagged at that frame (34% against a bound of 10%).
    @Test func aSheetSoftenedForOneFrameIsCaught() throws {
        var frames = try Self.record(Self.scripts["rigid"]!, width: 640, height: 360, samples: 0)
        let steps = try Self.steps(frames)
        // The most squeezed frame measured, just before the sheet stands edge on.
        let k = try #require(steps.indices.dropLast().first { steps[$0].measured && !steps[$0 + 1].measured }.map { steps[$0].frame })
        let soft = try GLHarness.shared.render(frames[k].scene, width: 640, height: 360, library: ContinuityTests.library) {
            $0.biasedTaps = false
        }
        frames[k] = Frame(scene: frames[k].scene, image: soft)
        let broken = try Self.steps(frames)
        let flagged = Self.jumps(broken).type
        #expect(flagged.contains { $0.hasPrefix("frame \(k): type sharpness") }, "frame \(k) drawn soft: \(flagged) \(broken)")
    }
}
