import Foundation
import Testing

/// `folio layout --layout fan --spread S` against the seed's fan (docs/behaviour.md §4), its
/// formulas written out here on their own: every page's ratio and angle, the direction its fore
/// edge leaves the spine in, and the blocks and boards at the ends lying as their top sheets do.
@Suite struct FanSeedTests {
    /// The seed's ratio of page `i` at spread `s`: compressed by 0.1 beyond ±½, clamped to ±1.
    static func ratio(_ i: Int, _ s: Double) -> Double {
        let r = -0.5 + Double(i / 2) - s
        let compressed = r > 0.5 ? 0.5 + 0.1 * (r - 0.5) : r < -0.5 ? -0.5 + 0.1 * (r + 0.5) : r
        return min(max(compressed, -1), 1)
    }

    /// The seed's angle about the spine of page `i` at clamped ratio `r`.
    static func angle(_ i: Int, _ r: Double) -> Double {
        (i % 2 == 0 ? (1 - r) * (-Double.pi / 2) : (1 + r) * (Double.pi / 2)) + Double(i % 2) / 1000
    }

    /// The bundled first book's sheets (the cover's, 25 page images, the back board's endpaper
    /// on the last): the back board fans as page 2 · 14 would.
    static let sheets = 14

    /// The bundled first book from the first spread to the last, where the fan reaches the back
    /// board, through the middle, where both ends are blocks.
    @Test(arguments: [0.0, 2.5, 6.0, 6.5, 9.3, 12.0])
    func everySheetFollowsTheSeed(_ spread: Double) throws {
        let folio = try #require(FolioProcess.binary, "build folio first: swift build")
        let run = try FolioProcess.run(folio.path, ["layout", "--book", "0", "--layout", "fan", "--spread", "\(spread)"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        let number = { (item: [String: Any], key: String) in (item[key] as? NSNumber)?.doubleValue ?? .nan }
        // Local x (across from the spine) in the world: the matrix's first column, and its spine
        // edge: the last.
        let across = { (item: [String: Any]) -> [Double] in Array(((item["matrix"] as? [Double]) ?? [])[0..<3]) }
        let spine = { (item: [String: Any]) -> [Double] in Array(((item["matrix"] as? [Double]) ?? [])[12..<15]) }
        let pages = items.filter { ["page", "cover"].contains($0["kind"] as? String) }
        #expect(pages.count >= 14 && (spread != 12 || pages.contains { $0["page"] as? Int == 2 * Self.sheets }))
        for page in pages {
            let i = try #require(page["page"] as? Int)
            let r = Self.ratio(i, spread), a = Self.angle(i, r)
            #expect(abs(number(page, "ratio") - r) < 1e-6, "page \(i): ratio \(number(page, "ratio")), the seed's \(r)")
            #expect(abs(number(page, "angle") - a) < 1e-6, "page \(i): angle \(number(page, "angle")), the seed's \(a)")
            // Turned about its spine edge by that angle: the fore edge towards the eye (+z) as
            // the page stands up, right-hand pages from the right, left-hand ones from the left.
            let x = across(page), side = i % 2 == 0 ? 1.0 : -1.0
            let length = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).squareRoot()
            #expect(abs(x[0] / length - side * cos(a)) < 1e-5 && abs(x[1]) < 1e-9 && abs(x[2] / length + side * sin(a)) < 1e-5,
                    "page \(i)'s fore edge leaves the spine along \(x)")
            // On the spine, as wide as the book's sheets.
            let o = spine(page)
            #expect(abs(o[0]) <= 0.2 * Double(Self.sheets) && o[1] == 0 && o[2] == 0, "page \(i) hinges at \(o)")
            // A face turned away from the eye is not drawn, the cover always.
            if page["visible"] as? Bool == true && i != 0 {
                #expect(i % 2 == 1 ? r <= 0 : r >= 0, "page \(i) at ratio \(r) is drawn turned away")
            }
        }
        // The blocks and boards at the ends lie flat where the seed's sheets lie flat: a block as
        // the page on top of it, at ratio ±1; a board as the sheet it closes (the front board
        // the cover's, page 1; the back board a sheet after the last), flat under its block.
        let ends = items.filter { ["block", "board"].contains($0["kind"] as? String) }
        #expect(spread != 6.5 || ends.filter { $0["kind"] as? String == "block" }.count == 2, "both ends of the middle's fan are blocks")
        for end in ends {
            let top = try #require(end["page"] as? Int)
            let outer = end["kind"] as? String == "block" ? top : top % 2 != 0 ? 1 : 2 * Self.sheets
            let r = Self.ratio(outer, spread)
            let a = Self.angle(outer, r)
            #expect(abs(number(end, "angle") - a) < 1e-6, "the \(end["kind"] ?? "") under page \(top): \(number(end, "angle")), the seed's \(a)")
            if abs(r) == 1 { #expect(abs(sin(number(end, "angle"))) < 2e-3, "the \(end["kind"] ?? "") under page \(top) lies flat") }
        }
    }
}
