import Foundation
import Testing
import FolioReader
import FolioScript
import FolioLayout
import FolioMath

/// `folio layout` prints the camera, each item's deformation and every shade term the
/// renderer uses; checked against the formulas that make them.
@Suite struct LayoutJSONTermsTests {
    static let library = [BookInfo(imageCount: 12)]

    static func json(_ change: (inout StillState) -> Void) throws -> [String: Any] {
        var s = StillState()
        change(&s)
        let text = LayoutJSON.encode(try s.scene(library: library))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func items(_ j: [String: Any]) -> [[String: Any]] { j["items"] as? [[String: Any]] ?? [] }
    static func number(_ o: [String: Any]?, _ key: String) -> Double { (o?[key] as? NSNumber)?.doubleValue ?? .nan }
    static func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 2e-6 }

    @Test func cameraHasEyeM34AndVanishingPoint() throws {
        let above = try Self.json { $0.book = 0; $0.viewpoint = .above }
        let camera = try #require(above["camera"] as? [String: Any])
        // Seen from above the spread is made smaller, so a sheet standing up stays in view; the
        // eye comes nearer with it.
        let eye = Self.number(camera, "eye")
        #expect(eye < 2000 && eye > 1500 && Self.near(Self.number(camera, "m34"), -1.0 / eye))
        #expect((camera["vanishing"] as? [Double]) == [0, 0.6 * 720 / 2])
        let reverse = try Self.json { $0.book = 0; $0.eye = 2500; $0.style.perspective = .reverse }
        let c2 = try #require(reverse["camera"] as? [String: Any])
        #expect(Self.number(c2, "eye") == 2500 && Self.near(Self.number(c2, "m34"), 1.0 / 2500))
    }

    @Test func rigidTurnShadesFollowTheCurves() throws {
        let p = 0.3, phi = Double.pi * p
        let items = Self.items(try Self.json { $0.book = 0; $0.page = 5; $0.turn = p })
        let sheet = try #require(items.first { $0["kind"] as? String == "sheet" })
        let shade = sheet["shade"] as? [String: Any]
        #expect(Self.near(Self.number(shade, "crease"), sin(phi)))
        #expect(Self.near(Self.number(shade, "self"), 0.1 * (1 - abs(1 - 2 * p))))
        #expect((sheet["deformation"] as? [String: Any])?["type"] as? String == "flat")
        let receivers = items.filter { $0["shadowCaster"] != nil }
        #expect(receivers.count == 2)
        for r in receivers {
            let s = r["shade"] as? [String: Any]
            #expect(Self.near(Self.number(s, "cast"), sin(phi) / 3))
            #expect(Self.near(Self.number(s, "gutter"), PageStack.gutter))
            let sum = Self.number(s, "reveal") + Self.number(s, "facing") + Self.number(s, "self")
            #expect(Self.near(Self.number(s, "darkening"), min(sum, 1)))
        }
        // The page revealed beneath darkens by cos φ / 3; the sheet's index is the caster.
        #expect(receivers.contains { Self.near(Self.number($0["shade"] as? [String: Any], "reveal"), cos(phi) / 3) })
        let casterIndex = try #require(items.firstIndex { $0["kind"] as? String == "sheet" })
        #expect(receivers.allSatisfy { Self.number($0, "shadowCaster") == Double(casterIndex) })
    }

    @Test func coneAndCurlDeformationsArePrinted() throws {
        let cone = Self.items(try Self.json { $0.book = 0; $0.page = 5; $0.turn = 0.4; $0.deform = .cone })
        let d = try #require(cone.first { $0["kind"] as? String == "sheet" }?["deformation"] as? [String: Any])
        let expected = ConeTurn.cone(progress: 0.4, size: BookInfo.referencePageSize)
        #expect(d["type"] as? String == "cone")
        #expect(Self.near(Self.number(d, "apex"), expected.apex) && Self.near(Self.number(d, "theta"), expected.theta)
            && Self.near(Self.number(d, "rotation"), expected.rotation))

        let curl = Self.items(try Self.json { $0.book = 0; $0.page = 5; $0.turn = 0.5; $0.grab = Vec2(1, -0.5) })
        let c = try #require(curl.first { $0["kind"] as? String == "sheet" }?["deformation"] as? [String: Any])
        let size = BookInfo.referencePageSize
        guard case let .curl(k) = CurlTurn.curl(grab: Vec2(362, -284), pointer: CurlTurn.pointer(grab: Vec2(362, -284), progress: 0.5),
                                                size: size) else {
            Issue.record("no curl")
            return
        }
        #expect(c["type"] as? String == "curl" && Self.near(Self.number(c, "radius"), k.radius)
            && Self.near(Self.number(c, "wrap"), k.wrap) && Self.near(Self.number(c, "rotation"), k.rotation))
        #expect((c["point"] as? [Double]).map { Self.near($0[0], k.point.x) && Self.near($0[1], k.point.y) } == true)
        #expect((c["direction"] as? [Double]).map { Self.near($0[0], k.direction.x) && Self.near($0[1], k.direction.y) } == true)
    }
}
