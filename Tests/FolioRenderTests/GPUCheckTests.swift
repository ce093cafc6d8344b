import FolioBook
import FolioImage
import FolioLayout
import FolioLibrary
import FolioReader
import FolioRender
import FolioScript
import Testing

/// A structural check of the GPU a machine has, where it has one: pixel references are made on
/// Mesa's software rasteriser (`GLHarness.shared`), so a GPU is held to what must hold on any
/// rasteriser: pages drawn, no black frame, and multisampling that changes only edges.
@Suite(.serialized, .enabled(if: GLHarness.gpuPresent, "no GPU: pixel tests run on Mesa's software rasteriser only"))
struct GPUCheckTests {
    static let library = Library.load(from: GLHarness.textures)

    func frame(samples: Int) throws -> RGBAImage {
        var state = StillState()
        state.book = 0
        state.page = 10
        state.turn = 0.45
        state.deform = .curl
        let scene = try state.scene(library: Self.library.bookInfos)
        return try GLHarness.gpu.render(scene, width: 640, height: 360, library: Self.library,
                                        configuration: RenderConfiguration(samples: samples, filtering: .gpu))
    }

    @Test func pagesAreDrawnAndMultisamplingChangesOnlyEdges() throws {
        let plain = try frame(samples: 0), smooth = try frame(samples: 4)
        for image in [plain, smooth] {
            var sum = 0, bright = 0
            for i in stride(from: 0, to: image.pixels.count, by: 4) {
                let luma = (Int(image.pixels[i]) * 3 + Int(image.pixels[i + 1]) * 6 + Int(image.pixels[i + 2])) / 10
                sum += luma
                if luma > 200 { bright += 1 }
            }
            let n = image.pixels.count / 4
            #expect(sum / n > 40, "a dark frame: mean luma \(sum / n)")
            #expect(Double(bright) / Double(n) > 0.2, "too little paper: \(bright) of \(n) pixels")
        }
        var differing = 0
        for i in stride(from: 0, to: plain.pixels.count, by: 4)
        where (0..<3).contains(where: { abs(Int(plain.pixels[i + $0]) - Int(smooth.pixels[i + $0])) > 48 }) {
            differing += 1
        }
        #expect(Double(differing) / Double(plain.pixels.count / 4) < 0.03, "MSAA 4 changed \(differing) pixels")
    }
}
