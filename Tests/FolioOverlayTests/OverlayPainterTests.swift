import FolioImage
import FolioOverlay
import FolioOverlayText
import Testing

/// Panels painted by pango/cairo: text leaves ink where it is placed and nowhere else, boxes
/// have their colour (premultiplied), long lines are cut inside their frame.
@Suite struct OverlayPainterTests {
    /// Pixels with some alpha in `rect` of `image`.
    static func ink(_ image: RGBAImage, _ rect: OverlayRect) -> Int {
        var n = 0
        for y in max(Int(rect.y), 0)..<min(Int(rect.maxY), image.height) {
            for x in max(Int(rect.x), 0)..<min(Int(rect.maxX), image.width) where image.pixel(x, y).a > 40 { n += 1 }
        }
        return n
    }

    @Test func textLeavesInkInItsFrameOnly() {
        let frame = OverlayRect(x: 10, y: 10, width: 200, height: 30)
        let panel = OverlayPanel(role: .notice, frame: OverlayRect(x: 0, y: 0, width: 400, height: 60), boxes: [],
                                 texts: [OverlayText("Page 17 of 36", frame: frame, size: 18)])
        let image = OverlayPainter.paint(panel)
        #expect(image.width == 400 && image.height == 60)
        #expect(Self.ink(image, frame) > 150)
        #expect(Self.ink(image, OverlayRect(x: 220, y: 0, width: 180, height: 60)) == 0)
        // The text's colour: near white, premultiplied (no channel above alpha).
        for y in 0..<60 { for x in 0..<400 { let p = image.pixel(x, y); #expect(p.r <= p.a && p.g <= p.a && p.b <= p.a) } }
    }

    @Test func aLongLineIsCutInsideItsFrame() {
        let frame = OverlayRect(x: 0, y: 0, width: 120, height: 30)
        let panel = OverlayPanel(role: .notice, frame: OverlayRect(x: 0, y: 0, width: 300, height: 30), boxes: [],
                                 texts: [OverlayText(String(repeating: "unreadable ", count: 30), frame: frame, size: 16)])
        let image = OverlayPainter.paint(panel)
        #expect(Self.ink(image, frame) > 100)
        #expect(Self.ink(image, OverlayRect(x: 121, y: 0, width: 179, height: 30)) == 0)
    }

    @Test func boxesHaveTheirColourPremultiplied() {
        let panel = OverlayPanel(role: .bar, frame: OverlayRect(x: 0, y: 0, width: 100, height: 40),
                                 boxes: [OverlayBox(OverlayRect(x: 0, y: 0, width: 100, height: 40), color: OverlayColor(1, 0, 0, 0.5), radius: 20),
                                         OverlayBox(OverlayRect(x: 40, y: 18, width: 20, height: 4), color: OverlayColor(0, 1, 0), radius: 2)],
                                 texts: [])
        let image = OverlayPainter.paint(panel)
        let red = image.pixel(25, 20)
        #expect(abs(Int(red.r) - 128) <= 2 && red.g == 0 && red.b == 0 && abs(Int(red.a) - 128) <= 2)
        #expect(image.pixel(50, 20) == (0, 255, 0, 255))
        // Rounded: the corner is outside the box.
        #expect(image.pixel(0, 0).a == 0)
    }

    @Test func anEmptyPanelPaintsNothing() {
        let image = OverlayPainter.paint(OverlayPanel(role: .entry, frame: OverlayRect(x: 0, y: 0, width: 0, height: -5), boxes: [], texts: []))
        #expect(image.width == 1 && image.height == 1 && image.pixel(0, 0).a == 0)
    }

    /// The help card and the contents are solid cards: nothing of the page shows between
    /// their rows, at any window size.
    @Test func theCardsOfRowsAreSolid() {
        let rows = ContentsList(rows: (0..<30).map { ContentsList.Row(title: "Chapter \($0)", label: "\($0)", depth: 0, target: $0) }, current: 3)
        let help = [HelpSection(title: "Keys", rows: [HelpRow(keys: "F11", summary: "full screen")])]
        for (w, h) in [(640, 360), (1280, 720), (1920, 1080)] {
            let panels = OverlayLayout(width: w, height: h).panels(OverlayContent(help: help, contents: rows))
            for panel in panels where [.help, .contents].contains(panel.role) {
                let image = OverlayPainter.paint(panel)
                var seeThrough = 0
                for y in stride(from: 20, to: image.height - 20, by: 3) {
                    for x in stride(from: 20, to: image.width - 20, by: 3) where image.pixel(x, y).a < 255 { seeThrough += 1 }
                }
                #expect(seeThrough == 0, "\(panel.role) at \(w)×\(h): \(seeThrough) pixels let the page through")
            }
        }
    }

    /// A card of 40 rows, some with long summaries and keys, fits every window from 640×360
    /// up: inside the window, every text whole in its frame (no ellipsis, no line past it),
    /// in two columns side by side.
    @Test(arguments: [(640, 360), (1280, 720), (1920, 1080)])
    func theHelpCardFitsWithoutCuttingAnything(width: Int, height: Int) throws {
        let long = "a summary long enough to need a second line at the smaller sizes of the card"
        let sections = [HelpSection(title: "In a book", rows: (0..<30).map { HelpRow(keys: $0 % 7 == 0 ? "→, Space, PageDown" : "Shift+K\($0)", summary: $0 % 5 == 0 ? long : "does \($0)") }),
                        HelpSection(title: "Anywhere", rows: (0..<6).map { HelpRow(keys: "F\($0)", summary: "anywhere \($0)") }),
                        HelpSection(title: "On the shelf", rows: (0..<4).map { HelpRow(keys: "S\($0)", summary: "shelf \($0)") })]
        let card = try #require(OverlayLayout(width: width, height: height).panels(OverlayContent(help: sections)).first)
        #expect(card.frame.x >= 0 && card.frame.y >= 0 && card.frame.maxX <= Double(width) && card.frame.maxY <= Double(height))
        for text in card.texts {
            #expect(OverlayPainter.fits(text), "\(text.string) cut at \(width)×\(height) in \(text.frame)")
            #expect(text.frame.maxX <= card.frame.width + 0.5 && text.frame.maxY <= card.frame.height + 0.5, "\(text.string)")
        }
        #expect(Set(card.texts.dropFirst().map { $0.frame.x < card.frame.width / 2 }).count == 2, "two columns")
        #expect(card.texts.allSatisfy { $0.size >= 7 }, "type of 7 pixels at least: \(card.texts.map(\.size).min() ?? 0)")
    }
}
