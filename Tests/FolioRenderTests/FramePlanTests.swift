import COpenGL
import FolioLayout
import FolioBook
import FolioLibrary
import FolioScript
@testable import FolioRender
import Testing

/// A frame is a list of passes (`FramePlanner`): which target each draws into, what it starts
/// from and what it draws, read back after the frame as the renderer ran it.
@Suite(.serialized) struct FramePlanTests {
    let library = Library.load(from: GLHarness.textures)

    /// What a pass draws, by name, runs of one kind counted (`face×4`).
    static func draws(_ pass: FramePass) -> [String] {
        var names: [(String, Int)] = []
        for draw in pass.draws {
            let name = switch draw {
            case .insidesDepth: "insides"
            case .backdrop: "backdrop"
            case .block: "block"
            case .outlines: "outlines"
            case .deskShadow: "deskShadow"
            case let .face(item, state): item.kind == .sheet ? (state == Renderer.lone ? "loneSheet" : "sheet") : "face"
            case let .lone(_, part): if case .insides = part { "loneInsides" } else { "loneSheet" }
            case .overlays: "overlays"
            case .castShadow: "castShadow"
            case .blit: "blit"
            case .copy: "copy"
            }
            if names.last?.0 == name { names[names.count - 1].1 += 1 } else { names.append((name, 1)) }
        }
        return names.map { $0.1 > 1 ? "\($0.0)×\($0.1)" : $0.0 }
    }

    /// The passes of each frame of `scenes`, drawn one after another into one target.
    func passes(_ scenes: [Scene], samples: Int = 0, cached: Bool = true) throws -> (frames: [[FramePass]], target: Int) {
        var frames: [[FramePass]] = []
        var target = -1
        _ = try GLHarness.shared.run { pipeline in
            pipeline.renderer.settings.cacheStaticLayer = cached
            pipeline.replaceLibrary(library)
            guard pipeline.resizeTarget(width: 320, height: 180, samples: samples) else { throw GLFailure(errors: ["no target"]) }
            target = pipeline.target.serial
            for scene in scenes {
                pipeline.draw(scene)
                frames.append(pipeline.renderer.lastPasses)
            }
        }
        return (frames, target)
    }

    func scene(_ edit: (inout StillState) -> Void) throws -> Scene {
        var s = StillState()
        edit(&s)
        return try s.scene(library: library.bookInfos)
    }

    /// An open book at rest: one pass, cleared whole, the room first, then its boxes, the fringe
    /// along their outlines and the pages. Multisampled with the boxes alone (the default), the
    /// pages are a second pass, drawn single-sampled over the boxes resolved, and the boxes'
    /// own samples smooth their outlines.
    @Test func aBookAtRestIsOnePassOrTwoWithTheBoxesAloneMultisampled() throws {
        let open = try scene { $0.book = 0; $0.page = 7 }
        let plain = try passes([open], cached: false)
        let one = try #require(plain.frames.first)
        #expect(one.count == 1)
        #expect(one[0].pass.target.serial == plain.target && one[0].pass.clear == .all && one[0].samples == .multisampled)
        let draws = Self.draws(one[0])
        #expect(draws.drop { $0 == "insides" }.first == "backdrop", "\(draws)")
        let boxes = try #require(draws.lastIndex { $0.hasPrefix("block") }), faces = try #require(draws.firstIndex { $0.hasPrefix("face") })
        #expect(draws[boxes + 1] == "outlines" && boxes + 1 < faces, "\(draws)")

        let smooth = try #require(try passes([open], samples: 4, cached: false).frames.first)
        #expect(smooth.count == 2, "\(smooth.map(Self.draws))")
        #expect(!Self.draws(smooth[0]).contains { $0.hasPrefix("face") || $0 == "outlines" }, "the boxes' pass draws no page, no fringe")
        #expect(smooth[1].samples == .singleSampled(copying: true) && smooth[1].pass.clear.isEmpty)
        #expect(Self.draws(smooth[1]).allSatisfy { $0.hasPrefix("face") || $0 == "insides" }, "\(Self.draws(smooth[1]))")
    }

    /// A book opening lays its pages on its boxes, curving into the gutter: the depth of those
    /// pages' insides comes first, so the boxes' tops beneath them are not shaded.
    @Test func anOpeningBooksPagesHideTheBoxesBeneathThem() throws {
        let opening = try scene { $0.book = 0; $0.open = 0.6 }
        let pass = try #require(try passes([opening], cached: false).frames.first?.first)
        guard case let .insidesDepth(pages) = try #require(pass.draws.first) else {
            Issue.record("the insides first: \(Self.draws(pass))")
            return
        }
        #expect(pages.contains { $0.gutterDrop != .zero }, "a page curving into the gutter has its inside drawn")
        #expect(Self.draws(pass).contains { $0.hasPrefix("block") })
    }

    /// A turn's first frame draws the static layer into a target of its own and resolves it,
    /// copies it into the frame and draws the sheet over it; the next frame only copies back
    /// where the sheet was and is, scissored there, with the next stencil mark (no clear).
    @Test func aTurnDrawsItsLayerOnceThenOnlyWhereTheSheetMoves() throws {
        // Another spread's turn first, in the same run: the layer kept from whatever drew before
        // (other suites draw on the same context) is then not this spread's.
        let other = try scene { $0.book = 0; $0.page = 11; $0.turn = 0.3; $0.deform = .curl }
        let turns = try [0.3, 0.35].map { t in try scene { $0.book = 0; $0.page = 7; $0.turn = t; $0.deform = .curl } }
        let (frames, target) = try passes([other] + turns)
        let first = frames[1], second = frames[2]
        try #require(first.count == 3 && second.count == 2, "\(first.map(Self.draws)), then \(second.map(Self.draws))")
        #expect(first[0].pass.target.serial != target && first[0].resolves, "the layer is drawn into its own target and resolved")
        #expect(Self.draws(first[1]) == ["blit"] && first[1].pass.target.serial == target)
        #expect(Self.draws(first[2]).first == "loneInsides", "\(Self.draws(first[2]))")
        #expect(Self.draws(first[2]).suffix(2) == ["castShadow", "loneSheet"], "\(Self.draws(first[2]))")
        #expect(first[2].pass.clear == .depthStencil)

        let scissor = try #require(second[1].pass.scissor)
        #expect(scissor.area < 320 * 180 && second[1].pass.clear.isEmpty)
        if case let .blit(_, rect, depth) = try #require(second[0].draws.first) {
            #expect(rect == scissor && !depth, "the copy restores what the sheet covers now and covered before")
        } else {
            Issue.record("the layer is restored by a blit")
        }
    }

    /// A lone sheet's insides come ahead of the darkening beneath it and mark the stencil one
    /// above the cast shadow's mark; the darkening passes by those pixels, which the opaque
    /// insides hide anyway (it was a quarter of a curl's frame on a software renderer).
    @Test func aLoneSheetsInsidesMarkTheStencilAheadOfTheDarkening() throws {
        let turn = try scene { $0.book = 0; $0.page = 7; $0.turn = 0.6; $0.deform = .curl }
        var stencil: [UInt8] = [], apart = 0, draws: [String] = [], insides: GLint = 0
        let (width, height) = (640, 360)
        _ = try GLHarness.shared.run { pipeline in
            pipeline.renderer.settings.cacheStaticLayer = false
            pipeline.replaceLibrary(library)
            guard pipeline.resizeTarget(width: width, height: height, samples: 0) else { throw GLFailure(errors: ["no target"]) }
            pipeline.draw(turn)
            apart = pipeline.renderer.facesDrawnApart
            let moving = try #require(pipeline.renderer.lastPasses.last)
            draws = Self.draws(moving)
            for case let .lone(_, .insides(cover)) in moving.draws { insides = cover }
            for case let .overlays(_, _, mark) in moving.draws { #expect(insides == mark + 1, "the insides mark one above the darkening's") }
            pipeline.target.bindForReading()
            glPixelStorei(E(GL_PACK_ALIGNMENT), 1)
            stencil = [UInt8](repeating: 0, count: width * height)
            stencil.withUnsafeMutableBytes {
                glReadPixels(0, 0, GLsizei(width), GLsizei(height), E(GL_STENCIL_INDEX), E(GL_UNSIGNED_BYTE), $0.baseAddress)
            }
        }
        #expect(apart > 0 && draws.first == "loneInsides" && draws.contains("overlays") && draws.last == "loneSheet", "\(draws), \(apart) faces apart")
        // Both faces' insides: a twentieth of the frame or more. Each face's marks its own
        // (the front's `insides`, the back's one more), so only the back's keeps the front's
        // from drawing: a face curving into the gutter can lie over itself, and each of its parts
        // then draws all of itself, as in one pass (with one mark for both, a column along the
        // spine of a 724-page EPUB showed the wrong part, by up to 96 levels).
        let front = stencil.filter { GLint($0) == insides }.count, back = stencil.filter { GLint($0) == insides + 1 }.count
        #expect(front + back > width * height / 20, "\(front + back) pixels marked by the sheet's insides")
        #expect(front > 0 && back > 0, "the front's inside marks \(front) pixels, the back's \(back)")
        #expect(stencil.contains { GLint($0) == insides - 1 }, "the cast shadow marks the pixels it darkens")
    }

    /// The fan's second frame copies its room in, depth and all, and draws the fanned pages over
    /// it from where each can show (`covered`).
    @Test func theFanCopiesItsRoomAndDrawsOnlyWhatFans() throws {
        let fan = try [2.1, 2.4].map { spread in try scene { $0.book = 0; $0.layout = .fan; $0.spread = spread } }
        let frames = try passes(fan).frames
        let second = try #require(frames.last)
        #expect(second.count == 1, "\(second.map(Self.draws))")
        guard case let .blit(_, _, depth) = try #require(second[0].draws.first) else {
            Issue.record("the room is copied in first: \(Self.draws(second[0]))")
            return
        }
        #expect(depth && !second[0].covered.isEmpty)
        #expect(!Self.draws(second[0]).contains("backdrop"))
    }
}
