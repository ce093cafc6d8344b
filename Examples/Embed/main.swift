// folio-embed: Folio inside another program, through the FolioKit library.
//
//   folio-embed [FOLDER]                 a window on FOLDER (a folder of PNG pages, a book
//                                        manifest or a library), opened on its first book
//   folio-embed --generated              a window on a book whose pages are made in memory
//   folio-embed [FOLDER] --capture OUT   no window: the open book's first spread to OUT.png
import FolioBook
import FolioImage
import FolioKit
import FolioLayout
import FolioLibrary
import FolioPages
import FolioPlatform
import FolioReader
import FolioRender
import FolioResources
import FolioWindow
import Foundation

/// Prints where each turn came from: a key, a pointer gesture, or this program.
final class TurnLog: FramePipelineDelegate {
    func pipeline(_ pipeline: FramePipeline, didStartTurn action: Action, origin: TurnOrigin) {
        print("turn \(action) from \(origin)")
    }
}

/// A book of 12 pages drawn in memory: each a colour band, none read from a file.
final class Generated: PageContentSource {
    static let book = Book(title: "Generated", pages: (1...12).map { .image("page \($0)") }, pageWidth: 362, pageHeight: 568)
    func suppliesImages(ofBook book: Int) -> Bool { true }
    func image(for face: FaceContent) -> RGBAImage? {
        let hue = UInt8(truncatingIfNeeded: (face.image?.index ?? 0) * 20)
        return RGBAImage(width: 181, height: 284, fill: (240, 235 - hue / 2, 200 + hue / 5, 255))
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let capture = arguments.firstIndex(of: "--capture").map { arguments[$0 + 1] }
let generated = arguments.contains("--generated") ? Generated() : nil
let source = arguments.first { !$0.hasPrefix("--") && $0 != capture } ?? Resources.textures() ?? "."
let library = generated != nil ? Library(title: "", books: [Generated.book]) : Library.load(from: source)

do {
    // The surface: a window, or a headless EGL context of the same interface.
    let surface: any Surface = capture == nil ? try Window(title: "Folio", width: 1280, height: 720) : try HeadlessContext.make()
    var configuration = PipelineConfiguration(shaders: try ShaderFolder.locate())
    configuration.waitsForImages = capture != nil
    let pipeline = try FramePipeline(surface: surface, library: library, configuration: configuration)
    defer { pipeline.destroy() }
    let log = TurnLog()
    pipeline.delegate = log
    pipeline.contentSource = generated
    // A window runs on its clock; a capture on its own (0, then 2 s: the book is open).
    pipeline.perform(.openBook(0), at: capture == nil ? surface.time : 0)
    if let capture {
        try PNG.write(pipeline.snapshot(at: 2), to: capture, bottomUp: true)
    } else {
        pipeline.run()
    }
} catch {
    FileHandle.standardError.write(Data("folio-embed: \(error)\n".utf8))
    exit(1)
}
