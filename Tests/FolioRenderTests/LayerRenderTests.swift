import FolioBook
import FolioImage
import FolioKit
import FolioLayout
import FolioLibrary
import FolioMath
import FolioOverlay
import FolioReader
import FolioRender
import FolioScript
import Testing

/// The on-screen layer drawn over frames on the software rasteriser: the bar's colours and its
/// label's ink at the bar's place, the help card's box, the title under the centred cover, and
/// frames drawn after it from the cached layer keep nothing of it.
@Suite(.serialized) struct LayerRenderTests {
    static let library = Library.load(from: GLHarness.textures)
    static let width = 1280, height = 720
    typealias Pixel = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    /// Frames of `scenes` into one target, each with `layers[i]` drawn over it when given.
    static func frames(_ scenes: [Scene], layers: [OverlayContent?]) throws -> [RGBAImage] {
        try GLHarness.shared.run { p in
            p.replaceLibrary(library)
            p.setFiltering(.software)
            guard p.resizeTarget(width: width, height: height, samples: 0) else { throw GLFailure(errors: ["no target"]) }
            return zip(scenes, layers).map { scene, layer in
                p.draw(scene)
                if let layer { p.drawLayer(layer) }
                return p.target.readPixels().flippedVertically()
            }
        }
    }

    static func scene(_ configure: (inout StillState) -> Void) throws -> Scene {
        var s = StillState()
        configure(&s)
        return try s.scene(library: library.bookInfos)
    }

    static func count(_ image: RGBAImage, _ r: OverlayRect, _ test: (Pixel) -> Bool) -> Int {
        var n = 0
        for y in Int(r.y)..<Int(r.maxY) { for x in Int(r.x)..<Int(r.maxX) where test(image.pixel(x, y)) { n += 1 } }
        return n
    }

    static func bright(_ p: Pixel) -> Bool { p.r > 215 && p.g > 215 && p.b > 200 }
    static func orange(_ p: Pixel) -> Bool { Int(p.r) > 200 && Int(p.r) - Int(p.b) > 100 && p.g > 120 }

    @Test func theBarShowsTheBooksProgressAndLabels() throws {
        let book = try Self.scene { $0.book = 0; $0.page = 6 }
        let info = Self.library.bookInfos[0]
        let content = ReaderLayer.content(library: Self.library, documents: DocumentRegistry(), phase: .reading, book: 0, spread: info.spread(containing: 6), scroll: 0)
        let label = try #require(content.progress?.label)
        #expect(label.hasSuffix(" · \(Self.library.books[0].pages.count)"))
        let images = try Self.frames([book, book], layers: [nil, content])
        let (plain, shown) = (images[0], images[1])
        let bar = OverlayLayout(width: Self.width, height: Self.height).barFrame
        let panel = try #require(OverlayLayout(width: Self.width, height: Self.height).panels(content).first)
        // The track's read part is orange, the label's text is white ink on the dark panel.
        let leftOfTrack = OverlayRect(x: bar.x + 20, y: bar.y + 15, width: 60, height: bar.height - 30)
        #expect(Self.count(shown, leftOfTrack, Self.orange) > 40)
        #expect(Self.count(plain, leftOfTrack, Self.orange) == 0)
        let labelFrame = panel.texts[0].frame
        let labelRect = OverlayRect(x: bar.x + labelFrame.x, y: bar.y, width: labelFrame.width, height: bar.height)
        #expect(Self.count(shown, labelRect, Self.bright) > 80)
        // The panel's ground (`OverlayColor.panel`) over what lies beneath; above the bar nothing changed.
        let at = (Int(bar.x + bar.width * 0.9), Int(bar.y + 4))
        let middle = shown.pixel(at.0, at.1), under = plain.pixel(at.0, at.1)
        for (m, u, c) in [(middle.r, under.r, 0.08), (middle.g, under.g, 0.08), (middle.b, under.b, 0.10)] {
            #expect(abs(Double(m) - (Double(u) * 0.22 + c * 0.78 * 255)) < 4, "\(middle) over \(under)")
        }
        let above = OverlayRect(x: 0, y: 0, width: Double(Self.width), height: bar.y - 1)
        #expect(Self.count(shown, above) { _ in true } == Self.count(plain, above) { _ in true })
        #expect(zip(shown.pixels.prefix(Int(bar.y - 1) * Self.width * 4), plain.pixels).allSatisfy { $0 == $1 })
    }

    @Test func aFrameFromTheCachedLayerKeepsNothingOfTheLayer() throws {
        // Two frames of a turn: the second restores the cached layer only where things moved,
        // so it must also restore where the layer was drawn over the first.
        let t1 = try Self.scene { $0.book = 0; $0.page = 6; $0.turn = 0.3 }
        let t2 = try Self.scene { $0.book = 0; $0.page = 6; $0.turn = 0.35 }
        let content = OverlayContent(progress: OverlayProgress(label: "5–6 · 6", fraction: 0.6), help: ReaderLayer.helpSections)
        let after = try Self.frames([t1, t2], layers: [content, nil])[1]
        let fresh = try Self.frames([t2], layers: [nil])[0]
        let differing = stride(from: 0, to: fresh.pixels.count, by: 4).filter { abs(Int(fresh.pixels[$0]) - Int(after.pixels[$0])) > 3 }.count
        #expect(differing == 0)
    }

    /// At night the help card is dark with light keys (`CardTone.night`; on paper it is light:
    /// `theHelpCardOnPaperIsLight`).
    @Test func theHelpCardListsTheKeysInADarkBox() throws {
        let shelf = try Self.scene { _ in }
        var content = OverlayContent(help: ReaderLayer.helpSections)
        content.cards = .night
        let image = try Self.frames([shelf], layers: [content])[0]
        let card = try #require(ReaderLayer.layout(width: Self.width, height: Self.height).panels(content).first { $0.role == .help }).frame
        #expect(card.width > 600 && card.height > 300)
        // Inside, near its corners: the box's dark ground; text rows: bright ink in each column.
        for (x, y) in [(card.x + 16, card.y + 16), (card.maxX - 16, card.maxY - 16)] {
            let p = image.pixel(Int(x), Int(y))
            #expect(p.r < 40 && p.g < 40 && p.b < 45, "\(p) at \(x),\(y)")
        }
        let left = OverlayRect(x: card.x, y: card.y + 60, width: card.width / 2, height: card.height - 80)
        let right = OverlayRect(x: card.x + card.width / 2, y: card.y + 60, width: card.width / 2, height: card.height - 80)
        #expect(Self.count(image, left, Self.bright) > 400)
        #expect(Self.count(image, right, Self.bright) > 400)
        // Outside the card the shelf is as it was.
        let plain = try Self.frames([shelf], layers: [nil])[0]
        #expect(image.pixel(5, 5) == plain.pixel(5, 5))
    }

    @Test func theTitleLiesUnderTheCentredCover() throws {
        let shelf = try Self.scene { _ in }
        let content = ReaderLayer.content(library: Self.library, documents: DocumentRegistry(), phase: .shelf, book: nil, spread: 0, scroll: 0)
        #expect(content.shelfTitle == Self.library.books[0].title)
        let image = try Self.frames([shelf], layers: [content])[0]
        let cover = try #require(shelf.items.first { $0.kind == .cover && $0.book == 0 })
        let foot = shelf.camera.projectToView(cover.model.project(Vec3(cover.size.x / 2, -cover.size.y / 2, 0)))
        let footY = Double(Self.height) / 2 - foot.y
        let title = try #require(OverlayLayout(width: Self.width, height: Self.height).panels(content).first).frame
        #expect(title.y > footY, "title at \(title.y), the cover's foot at \(footY)")
        #expect(Self.count(image, title, Self.bright) > 100)
    }

    /// The search field and the count a search shows lie in the entry pill at the top centre:
    /// white ink inside it, on its dark ground, and none of it outside.
    @Test func theSearchFieldAndItsCountAreInkInTheEntryPill() throws {
        let book = try Self.scene { $0.book = 0; $0.page = 6 }
        var typing = LayerState(), found = LayerState()
        typing.openField(.find, with: "time traveller")
        found.searchLine = "“time traveller” 3 of 17"
        let contents = [typing, found].map { ReaderLayer.content(library: Self.library, documents: DocumentRegistry(), phase: .reading, book: 0, spread: 3, scroll: 0, state: $0) }
        let images = try Self.frames([book, book, book], layers: [nil] + contents)
        let layout = OverlayLayout(width: Self.width, height: Self.height)
        for (content, image) in zip(contents, images.dropFirst()) {
            let pill = try #require(layout.panels(content).first { $0.role == .entry }).frame
            #expect(pill.y < 40 && abs(pill.x + pill.width / 2 - Double(Self.width) / 2) <= 1, "\(pill)")
            #expect(Self.count(image, pill, Self.bright) > 150, "text in \(content.entry ?? "")")
            #expect(Self.count(images[0], pill, Self.bright) < Self.count(image, pill, Self.bright) / 4)
            #expect((0..<Int(pill.x - 2)).allSatisfy { image.pixel($0, Int(pill.y + pill.height / 2)) == images[0].pixel($0, Int(pill.y + pill.height / 2)) })
        }
    }

    /// On the paper theme the help card is light paper with dark keys, drawn solid.
    @Test func theHelpCardOnPaperIsLight() throws {
        let shelf = try Self.scene { _ in }
        let content = OverlayContent(help: ReaderLayer.helpSections)
        #expect(content.cards == .paper)
        let image = try Self.frames([shelf], layers: [content])[0]
        let card = try #require(ReaderLayer.layout(width: Self.width, height: Self.height).panels(content).first { $0.role == .help }).frame
        for (x, y) in [(card.x + 16, card.y + 16), (card.maxX - 16, card.maxY - 16)] {
            let p = image.pixel(Int(x), Int(y))
            #expect(p.r > 235 && p.g > 230 && p.b > 220, "\(p) at \(x),\(y)")
        }
        let inside = OverlayRect(x: card.x, y: card.y + 60, width: card.width, height: card.height - 80)
        #expect(Self.count(image, inside) { $0.r < 60 && $0.g < 60 && $0.b < 60 } > 800, "dark keys on the light card")
    }

    /// The contents panel at night: the current chapter's title in the accent colour, another
    /// row's in white, each inside its row on the panel's dark ground at the left.
    @Test func theContentsPanelMarksTheCurrentChapter() throws {
        let book = try Self.scene { $0.book = 0; $0.page = 6 }
        let rows = (0..<30).map { ContentsList.Row(title: "Chapter number \($0 + 1)", label: "\($0 + 1)", depth: 0, target: $0) }
        let layout = OverlayLayout(width: Self.width, height: Self.height)
        let list = ContentsList(rows: rows, current: 3, visible: layout.contentsRows)
        var content = OverlayContent(contents: list)
        content.cards = .night
        let images = try Self.frames([book, book], layers: [nil, content])
        let panel = try #require(layout.panels(content).first { $0.role == .contents })
        func rect(_ title: String) throws -> OverlayRect {
            let t = try #require(panel.texts.first { $0.string == title }).frame
            return OverlayRect(x: panel.frame.x + t.x, y: panel.frame.y + t.y, width: 200, height: t.height)
        }
        let current = try rect("Chapter number 4"), other = try rect("Chapter number 9")
        #expect(Self.count(images[1], current, Self.orange) > 60)
        #expect(Self.count(images[1], other, Self.orange) == 0)
        #expect(Self.count(images[1], other, Self.bright) > 60)
        #expect(Self.count(images[0], current, Self.orange) == 0)
        // Below the last row shown nothing is written.
        let below = OverlayRect(x: panel.frame.x + 20, y: panel.frame.maxY - 8, width: 300, height: 6)
        #expect(Self.count(images[1], below, Self.bright) == 0)
    }
}
