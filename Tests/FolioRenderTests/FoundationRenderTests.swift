import COpenGL
import FolioBook
import FolioLibrary
import FolioLayout
import FolioMath
import FolioRender
import Foundation
import Testing

/// Paper-white, as the sample pages are printed.
private func isPaper(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
    p.r > 215 && p.g > 205 && p.b > 185 && Int(p.r) - Int(p.b) < 40
}

/// An open book lying flat: the spread of pages `2s + 1` (left) and `2s + 2` (right).
func flatSpread(book: Int = 0, spread s: Int = 1) -> Scene {
    let size = Vec2(362, 568)
    let left = SceneItem(kind: .page, book: book, page: LayoutPage(2 * s + 1), size: size, model: .scale(-1, 1, 1),
                         front: .page(book, LayoutPage(2 * s + 1)), uv: .mirrored, shade: Shade(gutter: 0.35))
    let right = SceneItem(kind: .page, book: book, page: LayoutPage(2 * s + 2), size: size, model: .identity,
                          front: .page(book, LayoutPage(2 * s + 2)), uv: .identity, shade: Shade(gutter: 0.35))
    return Scene(state: .reading, camera: Camera(viewSize: Vec2(1280, 720)), items: [left, right])
}

@Suite(.serialized) struct FoundationRenderTests {
    @Test func everyShaderCompiles() throws {
        let files = ShaderFolder.files(in: GLHarness.shaders)
        #expect(files.count >= 6)
        try GLHarness.shared.run { _ in
            for f in files { try ShaderFolder.check(folder: GLHarness.shaders, file: f) }
        }
    }

    @Test func compileErrorNamesFileAndLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-broken-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "#version 330 core\nout vec4 c;\nvoid main() {\n  c = vec4(undefinedThing);\n}\n"
            .write(to: dir.appendingPathComponent("broken.frag"), atomically: true, encoding: .utf8)
        try GLHarness.shared.run { _ in
            do {
                try ShaderFolder.check(folder: dir.path, file: "broken.frag")
                Issue.record("a broken shader compiled")
            } catch let e as RenderError {
                #expect(e.description.hasPrefix("Shaders/broken.frag:4: "), "got \(e.description)")
            }
        }
    }

    /// A wrong GL call is named, with the driver's own words where it speaks KHR_debug (as
    /// llvmpipe does); debug builds stop on it in `GLErrors.check`.
    @Test func glErrorsAreNamedWithTheDriversMessage() throws {
        let errors = try GLHarness.shared.run { _ in
            glEnable(0x1234)
            return GLErrors.drain()
        }
        #expect(errors.first == "GL_INVALID_ENUM", "\(errors)")
        #if DEBUG
        // Debug output is turned on in debug builds only.
        #expect(errors.contains { $0.contains("glEnable") }, "the driver's message names the call: \(errors)")
        #endif
        #expect(try GLHarness.shared.run { _ in GLErrors.drain() }.isEmpty, "reading them clears them")
    }

    @Test func driverLogsParseToLines() {
        #expect(ProgramLog.parse("0:42(10): error: `x' undeclared") == (42, "error: `x' undeclared"))
        #expect(ProgramLog.parse("0(7) : error C1008: undefined variable \"x\"") == (7, "error C1008: undefined variable \"x\""))
    }

    @Test func sampleSpreadShowsPaperPagesOnTheDesk() throws {
        let library = Library.load(from: GLHarness.textures)
        #expect(!library.books.isEmpty)
        let img = try GLHarness.shared.render(flatSpread(), width: 640, height: 360, library: library)
        // Pages cover x 181…543 units of 1280 → pixels 90…271 / 320…500 at half size; y 76…644 → 38…322.
        #expect(isPaper(img.pixel(200, 60)))   // left page margin
        #expect(isPaper(img.pixel(480, 300)))  // right page margin
        #expect(!isPaper(img.pixel(20, 20)))   // desk
        #expect(!isPaper(img.pixel(620, 340)))
        let desk = img.pixel(20, 180)
        #expect(desk.r > desk.b) // warm wood
        // The gutter: the darkest column of the paper band is next to the centre.
        var darkest = (x: 0, luma: 999.0)
        for x in 150..<490 {
            let l = img.meanLuma(x: x, y: 45, width: 1, height: 8)
            if l < darkest.luma { darkest = (x, l) }
        }
        #expect(abs(darkest.x - 320) <= 4, "darkest column at \(darkest.x)")
    }

    @Test func sampleSpreadMatchesReference() throws {
        let library = Library.load(from: GLHarness.textures)
        let img = try GLHarness.shared.render(flatSpread(), width: 480, height: 270, library: library)
        ImageAssert.matchesReference(img, named: "spread-flat")
    }

    @Test func pngRoundTripOfReadback() throws {
        let img = try GLHarness.shared.render(flatSpread(), width: 64, height: 36)
        let bytes = try PNG.encode(img, compression: 6)
        #expect(try PNG.decode(bytes) == img)
    }
}
