import COpenGL
import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
@testable import FolioRender
import FolioScript
import Foundation
import Testing

/// Programs are linked when a frame first draws with them: a still links the few it draws
/// with, draws the same pixels as a renderer with every program linked beforehand, and a
/// program that compiles but does not link is reported while the rest of the frame is drawn.
@Suite(.serialized) struct ProgramCacheTests {
    static let books = Library.load(from: GLHarness.textures).bookInfos

    /// A curl half way: sheets with flap, rim and biased taps, the cast shadow and the overlays.
    static func curl() throws -> Scene {
        var s = StillState()
        s.book = 0
        s.page = 7
        s.turn = 0.4
        s.deform = .curl
        return try s.scene(library: books)
    }

    /// Draws `scenes` one after another with a renderer of its own (`prepare` runs first) and
    /// returns every frame (the last is `image`), the renderer's linked count and failure, and
    /// how many times its draws' uniform ring started over.
    static func draw(_ scenes: [Scene], shaders: String = GLHarness.shaders, ringCapacity: Int = UniformRing.capacity,
                     prepare: (Renderer) throws -> Void = { _ in })
        throws -> (image: RGBAImage, frames: [RGBAImage], linked: Int, failure: RenderError?, generation: Int) {
        try GLHarness.shared.run { _ in
            let renderer = try Renderer(shaders: shaders, settings: RenderSettings(), ringCapacity: ringCapacity)
            let textures = TextureStore()
            let target = try Framebuffer(width: 320, height: 180)
            defer {
                target.destroy()
                textures.destroy()
                renderer.destroy()
            }
            try prepare(renderer)
            let frames = scenes.map { scene in
                renderer.draw(scene, into: target, textures: textures)
                return target.readPixels()
            }
            let errors = GLErrors.drain()
            guard errors.isEmpty else { throw GLFailure(errors: errors) }
            return (frames.last ?? target.readPixels(), frames, renderer.linkedPrograms, renderer.programFailure,
                    renderer.drawUniforms.generation)
        }
    }

    @Test func aStillLinksOnlyTheProgramsItDrawsWith() throws {
        let made = try Self.draw([])
        #expect(made.linked == 0, "a renderer links nothing before it draws")
        // Two pages lying open on the desk: the backdrop and the plain page variant.
        let spread = try Self.draw([flatSpread()])
        #expect(spread.linked == 2, "\(spread.linked) programs linked")
        #expect(Self.isLight(spread.image.flippedVertically().pixel(240, 90)), "the right page is drawn")
        let turning = try Self.draw([try Self.curl()])
        #expect(turning.linked > spread.linked && turning.linked < ProgramKind.all.count, "\(turning.linked) programs linked")
    }

    @Test func linkingWhenFirstDrawnDrawsTheSamePixels() throws {
        let scenes = [flatSpread(), try Self.curl(), flatSpread(spread: 2)]
        let lazy = try Self.draw(scenes)
        let eager = try Self.draw(scenes) { try $0.linkAllPrograms() }
        #expect(eager.linked == ProgramKind.all.count, "every program links")
        // Compared apart from the expectation, which would list every pixel of a failure.
        let same = lazy.image.pixels == eager.image.pixels
        #expect(same, "programs linked as first used draw as those linked ahead")
        #expect(lazy.failure == nil && eager.failure == nil)
    }

    /// A draw's uniforms are its program's `Draw` block: nothing but a sampler is set outside a
    /// block, every program but the copy has one, and every name the renderer sets is a member
    /// of some program's block.
    @Test func aDrawsUniformsAreItsProgramsBlock() throws {
        try GLHarness.shared.run { _ in
            let renderer = try Renderer(shaders: GLHarness.shaders)
            defer { renderer.destroy() }
            try renderer.linkAllPrograms()
            var declared = Set<UniformName>()
            for kind in ProgramKind.all {
                let u = renderer.programs[kind]
                declared.formUnion(UniformName.allCases.filter(u.declares))
                #expect(kind == .copy || u.blockSize > 0, "\(kind) has no Draw block")
                let p = u.program.name
                var count: GLint = 0
                glGetProgramiv(p, GLenum(GL_ACTIVE_UNIFORMS), &count)
                for i in 0..<GLuint(count) {
                    var index = i, block: GLint = 0, type: GLint = 0
                    glGetActiveUniformsiv(p, 1, &index, GLenum(GL_UNIFORM_BLOCK_INDEX), &block)
                    glGetActiveUniformsiv(p, 1, &index, GLenum(GL_UNIFORM_TYPE), &type)
                    #expect(block >= 0 || type == GL_SAMPLER_2D, "\(kind): uniform \(i) is set outside a block")
                }
            }
            #expect(declared == Set(UniformName.allCases), "in no block: \(Set(UniformName.allCases).subtracting(declared))")
        }
    }

    /// The ring the draws' blocks are written into starts over when full, mid-frame, the draws
    /// queued before still reading what they were given: a renderer whose ring holds four
    /// blocks, so that it starts over several times a frame, draws every frame of a turn as one
    /// whose ring never did.
    @Test func theDrawsBlocksStartOverAndKeepTheirValues() throws {
        let frames = try (0..<40).map { i -> Scene in
            var s = StillState()
            s.book = 0
            s.page = 7
            s.turn = 0.05 + 0.9 * Double(i) / 40
            s.deform = .curl
            return try s.scene(library: Self.books)
        }
        let small = try Self.draw(frames, ringCapacity: 2 << 10)
        let large = try Self.draw(frames)
        #expect(small.generation >= 40, "the ring started over \(small.generation) times")
        #expect(large.generation == 0)
        for (i, (a, b)) in zip(small.frames, large.frames).enumerated() {
            let same = a.pixels == b.pixels
            #expect(same, "frame \(i) differs")
        }
    }

    /// docs/architecture.md says how many programs the renderer has and how many of them are
    /// page variants: the numbers the code has, each program distinct.
    @Test func theArchitectureNoteCountsThePrograms() throws {
        let note = try String(contentsOf: GLHarness.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        func number(before words: String) throws -> Int? {
            note.firstMatch(of: try Regex("(\\d+) \(words)"))?.output[1].substring.flatMap { Int($0) }
        }
        #expect(try number(before: "programs \\(`ProgramKind.all`\\)") == ProgramKind.all.count)
        #expect(try number(before: "variants of the page shaders") == PageVariant.all.count)
        #expect(Set(ProgramKind.all).count == ProgramKind.all.count, "no program listed twice")
        #expect(Set(ProgramKind.all.map { [$0.stages.vertex, $0.stages.fragment] + $0.stages.defines }).count == ProgramKind.all.count,
                "each program its own stages and defines")
    }

    /// A fragment stage whose `Draw` block has a member the vertex stage's lacks compiles, and
    /// fails to link.
    @Test func aProgramThatDoesNotLinkIsReportedAndTheRestDrawn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-unlinked-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: GLHarness.shaders), to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let frag = dir.appendingPathComponent("page.frag")
        let source = try String(contentsOf: frag, encoding: .utf8)
        let block = try String(contentsOf: dir.appendingPathComponent("page-draw.glsl"), encoding: .utf8)
        #expect(source.contains("#include \"page-draw.glsl\""))
        try source.replacingOccurrences(of: "#include \"page-draw.glsl\"",
                                        with: block.replacingOccurrences(of: "float uFalloff;", with: "float uFalloff;\n    float uMore;"))
            .write(to: frag, atomically: true, encoding: .utf8)
        let drawn = try Self.draw([flatSpread()], shaders: dir.path)
        guard case let .programLink(files, _)? = drawn.failure else {
            Issue.record("no link failure: \(String(describing: drawn.failure))")
            return
        }
        #expect(files.contains("Shaders/page.frag"))
        // The desk is drawn; where the right page lies, no page.
        let image = drawn.image.flippedVertically()
        #expect(!Self.isLight(image.pixel(240, 90)), "no page is drawn: \(image.pixel(240, 90))")
    }

    /// Paper, not the desk behind it.
    static func isLight(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool { min(p.r, p.g, p.b) > 180 }
}
