import FolioBook
import FolioKit
import FolioLibrary
import FolioPlatform
import FolioRender
import FolioResources
import Foundation

// Opens the bundled library's first book and writes one frame as a PNG,
// through FolioKit and the modules its API speaks in: `folio-outside OUT.png`.
guard CommandLine.arguments.count == 2, let textures = Resources.textures() else {
    FileHandle.standardError.write(Data("usage: FOLIO_TEXTURES=DIR FOLIO_SHADERS=DIR folio-outside OUT.png\n".utf8))
    exit(64)
}
do {
    let surface = try HeadlessContext.make(rasteriser: .software)
    surface.framebufferSize = (480, 270)
    var configuration = PipelineConfiguration(shaders: try ShaderFolder.locate())
    configuration.waitsForImages = true
    let pipeline = try FramePipeline(surface: surface, library: Library.load(from: textures), configuration: configuration)
    defer { pipeline.destroy() }
    pipeline.perform(.openBook(0), at: 0)
    try PNG.write(pipeline.snapshot(at: 2), to: CommandLine.arguments[1], bottomUp: true)
} catch {
    FileHandle.standardError.write(Data("folio-outside: \(error)\n".utf8))
    exit(1)
}
