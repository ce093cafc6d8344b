import FolioImage
import FolioLayout
import FolioScript
import Testing

/// A turning sheet leaves and lands on a page of its size lying open, their edges in the same
/// place: both rims were drawn, the sheet's over the page's, and the two added up to a lighter
/// line along the page's top, bottom and fore edge in the first frame of every turn and in
/// the last (640×360: 574–622 pixels changed by more than 20 levels, up to 46, with nothing
/// moving). The sheet's rim is left to the page's until it lifts off.
@Suite(.serialized) struct SheetRimTests {
    /// Pixels of two frames that differ by more than 20 levels of luma.
    static func changed(_ a: RGBAImage, _ b: RGBAImage) -> Int {
        var n = 0
        for y in 0..<a.height {
            for x in 0..<a.width where abs(a.luma(x, y) - b.luma(x, y)) > 20 { n += 1 }
        }
        return n
    }

    static func frame(_ configure: (inout StillState) -> Void) throws -> RGBAImage {
        try GLHarness.shared.render(try ContinuityTests.still(configure), width: 640, height: 360, library: ContinuityTests.library)
    }

    @Test(arguments: [TurnDeform.curl, .rigid, .cone])
    func aTurnStartsAndLandsWithoutALineAlongTheEdges(_ deform: TurnDeform) throws {
        let rest = try Self.frame { $0.page = 10 }
        let start = try Self.frame { $0.page = 10; $0.turn = 0.0001; $0.deform = deform }
        let landed = try Self.frame { $0.page = 12 }
        let landing = try Self.frame { $0.page = 10; $0.turn = 0.9999; $0.deform = deform }
        let (s, l) = (Self.changed(rest, start), Self.changed(landed, landing))
        #expect(s <= 10 && l <= 10, "\(deform): pixels changed by more than 20 levels as the turn starts \(s), as it lands \(l)")
    }
}
