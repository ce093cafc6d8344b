import COpenGL
import FolioBook
import FolioImage
import FolioKit
import FolioPlatform
import FolioReader
@testable import FolioRender
import FolioScript
import Foundation
import Testing

/// Passes as data: a pipeline's state is what GL holds after it is applied, an unchanged part
/// costs no call, a frame leaves no scissor behind, and GL objects are counted in the context
/// they were made in.
@Suite(.serialized) struct PipelineStateTests {
    static func enabled(_ cap: Int32) -> Bool { glIsEnabled(GLenum(cap)) == GLboolean(GL_TRUE) }
    /// A state of one integer (never one of several: GL writes them all).
    static func integer(_ name: Int32) -> Int32 {
        var v: GLint = 0
        glGetIntegerv(GLenum(name), &v)
        return v
    }

    @Test func appliedStateIsWhatGLHoldsAndRepeatsCostNothing() throws {
        try GLHarness.shared.run { pipeline in
            let program = try Program(folder: GLHarness.shaders, vertex: "backdrop.vert", fragment: "copy.frag")
            defer { program.destroy() }
            let gl = GLState()
            gl.begin(Pass(target: pipeline.target, clear: .all, scissor: PixelRect(x: 2, y: 3, width: 10, height: 20)))
            let shadow = DrawState(stencil: .init(function: GLenum(GL_EQUAL), reference: 0, readMask: 0xFF, writeMask: 0x7F,
                                                  pass: GLenum(GL_INCR)), blend: .multiply)
            gl.apply(Pipeline(program, shadow))
            #expect(Self.integer(GL_CURRENT_PROGRAM) == Int32(program.name))
            #expect(Self.enabled(GL_STENCIL_TEST) && Self.enabled(GL_BLEND) && Self.enabled(GL_SCISSOR_TEST))
            #expect(!Self.enabled(GL_DEPTH_TEST) && !Self.enabled(GL_CULL_FACE))
            #expect(Self.integer(GL_STENCIL_FUNC) == GL_EQUAL && Self.integer(GL_STENCIL_WRITEMASK) == 0x7F)
            #expect(Self.integer(GL_STENCIL_PASS_DEPTH_PASS) == GL_INCR)
            #expect(Self.integer(GL_BLEND_SRC_RGB) == GL_ZERO && Self.integer(GL_BLEND_DST_RGB) == GL_SRC_COLOR)
            var box = [GLint](repeating: 0, count: 4)
            glGetIntegerv(GLenum(GL_SCISSOR_BOX), &box)
            #expect(box == [2, 3, 10, 20])

            let before = gl.changes
            gl.apply(Pipeline(program, shadow))
            #expect(gl.changes == before, "the same pipeline again changes nothing")
            var face = shadow
            face.stencil = nil
            face.blend = .over
            face.cull = .back
            face.depth = .test(less: false, write: true)
            gl.apply(Pipeline(program, face))
            #expect(gl.changes == before + 4, "stencil, blend, cull and depth differ: \(gl.changes - before)")
            #expect(!Self.enabled(GL_STENCIL_TEST) && Self.enabled(GL_CULL_FACE) && Self.enabled(GL_DEPTH_TEST))
            #expect(Self.integer(GL_CULL_FACE_MODE) == GL_BACK && Self.integer(GL_DEPTH_FUNC) == GL_LEQUAL)
            #expect(Self.integer(GL_BLEND_SRC_RGB) == GL_SRC_ALPHA && Self.integer(GL_STENCIL_WRITEMASK) == 0xFF)

            // A clear opens every mask, whatever the pipeline before it closed.
            gl.apply(Pipeline(program, DrawState(depth: .test(less: true, write: false), colorWrite: false)))
            gl.begin(Pass(target: pipeline.target, clear: .all))
            var mask = [GLboolean](repeating: 0, count: 4)
            glGetBooleanv(GLenum(GL_COLOR_WRITEMASK), &mask)
            #expect(mask.allSatisfy { $0 == GLboolean(GL_TRUE) } && Self.integer(GL_DEPTH_WRITEMASK) == 1)
            #expect(!Self.enabled(GL_SCISSOR_TEST))
            gl.finish()
        }
    }

    /// A frame drawn from the cached layer scissors its moving parts; nothing after it (a
    /// blit, a read, the on-screen layer) finds the scissor on.
    @Test func aCachedFrameLeavesNoScissor() throws {
        let library = Library.load(from: GLHarness.textures)
        var s = StillState()
        s.book = 0; s.page = 7; s.deform = .curl
        let scenes = try [0.3, 0.4].map { t in s.turn = t; return try s.scene(library: library.bookInfos) }
        _ = try GLHarness.shared.frames(scenes, width: 320, height: 180, library: library, inspect: { renderer in
            #expect(renderer.lastDirtyRect.map { $0.area < 320 * 180 } ?? false, "the second frame came from the cache")
            #expect(!Self.enabled(GL_SCISSOR_TEST) && !Self.enabled(GL_STENCIL_TEST))
        })
    }

    /// A curl's strips are built once per curl, the sheet's and its shadow's apart: drawing the
    /// same turn again builds none (one shared mesh rebuilt both every frame, and each rebuild
    /// overwrote a buffer the frame's queued draws still read, a stall on a software renderer).
    @Test func aCurlsStripsAreBuiltOncePerCurl() throws {
        let library = Library.load(from: GLHarness.textures)
        var s = StillState()
        s.book = 0; s.page = 7; s.deform = .curl
        let scenes = try [0.6, 0.6, 0.7].map { t in s.turn = t; return try s.scene(library: library.bookInfos) }
        // One run: no other test draws in between.
        var builds: [Int] = []
        _ = try GLHarness.shared.frames(scenes, width: 320, height: 180, library: library,
                                        afterEach: { builds.append($0.curlMeshBuilds) })
        let added = zip(builds.dropFirst(), builds).map { $0 - $1 }
        #expect(added == [0, 2], "strips built per frame after the first: \(added)")
    }

    /// Objects are counted in the ledger of the context current when they were made, and
    /// leave it when destroyed there.
    @Test func objectsAreCountedInTheirContext() throws {
        try GLHarness.shared.run { _ in
            let context = try HeadlessContext.make(rasteriser: .software)
            defer {
                context.destroy()
                GLHarness.shared.restoreContext()
            }
            #expect(context.ledger.alive.isEmpty)
            let texture = Texture(image: RGBAImage(width: 2, height: 2, fill: (1, 2, 3, 255)))
            let target = try Framebuffer(width: 4, height: 4)
            #expect(context.ledger.alive == ["texture": 2, "framebuffer": 1], "\(context.ledger.alive)")
            texture.destroy()
            target.destroy()
            #expect(context.ledger.alive.isEmpty, "\(context.ledger.alive)")
        }
    }

    /// Uniforms are set by location, found by name once: a name the shaders do not declare
    /// would be found nowhere and set silently to nothing.
    /// A shader's `#include` brings the file in once, and an error after it is reported at the
    /// including file's own line; the frame's uniforms are declared only in the included file.
    @Test func anIncludeKeepsTheLineNumbersOfTheFileThatIncludesIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-include-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "uniform float uA;\nuniform float uB;\n".write(toFile: folder + "/shared.glsl", atomically: true, encoding: .utf8)
        try "#version 330 core\n#include \"shared.glsl\"\nout vec4 c;\nvoid main() { c = vec4(uA + uB); }\nnot glsl;\n"
            .write(toFile: folder + "/broken.frag", atomically: true, encoding: .utf8)
        try GLHarness.shared.run { _ in
            do {
                try ShaderFolder.check(folder: folder, file: "broken.frag")
                Issue.record("a file that does not compile compiled")
            } catch let RenderError.shaderCompile(file, line, _) {
                #expect(file == "Shaders/broken.frag" && line == 5)
            }
        }
        let shaders = GLHarness.shaders
        let frame = try String(contentsOfFile: shaders + "/frame.glsl", encoding: .utf8)
        for name in ["uViewProj", "uLight", "uPixelHalf", "uCornerRadius", "uThemePaper", "uThemeInk"] {
            #expect(frame.contains(" \(name);"))
            for file in ShaderFolder.files(in: shaders) {
                let text = try String(contentsOfFile: shaders + "/" + file, encoding: .utf8)
                #expect(!text.contains("uniform vec3 \(name);") && !text.contains("uniform mat4 \(name);")
                        && !text.contains("uniform vec2 \(name);") && !text.contains("uniform float \(name);"), "\(file) declares \(name) again")
            }
        }
    }
}
