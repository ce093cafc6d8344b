import Testing
#if canImport(Glibc)
import Glibc
#endif
import FolioMath

private func close(_ a: Double, _ b: Double, _ tol: Double = 1e-9) -> Bool { abs(a - b) <= tol }
private func close(_ a: Vec3, _ b: Vec3, _ tol: Double = 1e-9) -> Bool { length(a - b) <= tol }

@Suite struct Mat4Tests {
    @Test func columnMajorLayoutMatchesGLSL() {
        let t = Mat4.translation(1, 2, 3)
        // GLSL reads the translation from elements 12, 13, 14.
        #expect(Array(t.columnMajor[12...14]) == [1, 2, 3])
        #expect(t[0, 3] == 1)
    }

    @Test func productAppliesRightOperandFirst() {
        let m = Mat4.translation(10, 0, 0) * Mat4.scale(2)
        #expect(close(m.project(Vec3(1, 1, 1)), Vec3(12, 2, 2)))
        let ca = Mat4.scale(2).then(.translation(10, 0, 0))
        #expect(ca.isApproximatelyEqual(to: m))
    }

    @Test func inverseUndoesTransform() throws {
        let m = Mat4.translation(3, -2, 5) * Mat4.rotation(0.7, axis: Vec3(1, 2, 3)) * Mat4.scale(2, 3, 4)
        let inv = try #require(m.inverse)
        #expect((m * inv).isApproximatelyEqual(to: .identity, tolerance: 1e-12))
        #expect((inv * m).isApproximatelyEqual(to: .identity, tolerance: 1e-12))
        #expect(Mat4.scale(1, 0, 1).inverse == nil)
    }

    @Test func rotationIsCounterClockwiseAboutAxisTowardsViewer() {
        #expect(close(Mat4.rotationZ(.pi / 2).project(Vec3(1, 0, 0)), Vec3(0, 1, 0)))
        // About y: +x swings to −z (away from the viewer) for a positive angle.
        #expect(close(Mat4.rotationY(.pi / 2).project(Vec3(1, 0, 0)), Vec3(0, 0, -1)))
        #expect(close(Mat4.rotationX(.pi / 2).project(Vec3(0, 1, 0)), Vec3(0, 0, 1)))
    }

    @Test func rotationAboutPivotKeepsPivotFixed() {
        let pivot = Vec3(-181, 0, 0)
        let m = Mat4.rotation(1.1, axis: Vec3(0, 1, 0), about: pivot)
        #expect(close(m.project(pivot), pivot))
        #expect(close(m.project(Vec3(-181, 100, 0)), Vec3(-181, 100, 0)))
        #expect(close(length(m.project(Vec3(181, 0, 0)) - pivot), 362))
    }

    @Test func determinantOfScale() {
        #expect(close(Mat4.scale(2, 3, 4).determinant, 24))
    }

    @Test func lookAtPutsTargetOnNegativeZ() {
        let v = Mat4.lookAt(eye: Vec3(0, 0, 10), target: .zero, up: Vec3(0, 1, 0))
        #expect(close(v.project(.zero), Vec3(0, 0, -10)))
    }
}

@Suite struct PerspectiveTests {
    @Test func caPerspectiveDividesByOnePlusZM34() {
        let m34 = -1.0 / 2000
        // A page 362 wide turned 60° towards the viewer about its left edge.
        let page = Mat4.caPerspective(m34: m34) * Mat4.rotationY(-.pi / 3)
        let p = page.project(Vec3(362, 100, 0))
        let x = 362 * cos(Double.pi / 3), z = 362 * sin(Double.pi / 3)
        let w = 1 + z * m34
        #expect(close(p.x, x / w, 1e-9))
        #expect(close(p.y, 100 / w, 1e-9))
        #expect(p.x > x) // closer to the eye, so larger
    }

    @Test func cameraMatchesCAFormulaAndMapsPagePlaneOneToOne() {
        let cam = Camera(viewSize: Vec2(1280, 720))
        #expect(close(cam.projectToView(Vec3(300, -200, 0)), Vec2(300, -200)))
        let z = 150.0
        let v = cam.projectToView(Vec3(300, -200, z))
        #expect(close(v.x, 300 / (1 - z / 2000), 1e-9))
        #expect(close(v.y, -200 / (1 - z / 2000), 1e-9))
    }

    @Test func reversePerspectiveShrinksPointsInFront() {
        let cam = Camera(viewSize: Vec2(1280, 720), reversePerspective: true)
        #expect(cam.projectToView(Vec3(300, 0, 150)).x < 300)
    }

    @Test func vanishingPointAboveMovesRaisedPointsAwayFromIt() {
        let cam = Camera(viewSize: Vec2(1280, 720), vanishingPoint: Vec2(0, 300))
        let v = cam.projectToView(Vec3(0, 0, 200))
        #expect(v.y < 0) // seen from above: a point lifted towards the eye slides down, away from the vanishing point
        #expect(close(cam.projectToView(Vec3(0, 300, 200)), Vec2(0, 300)))
    }

    @Test func nearPagesStayInsideDepthRange() {
        let cam = Camera(viewSize: Vec2(1280, 720))
        let c = cam.viewProjection * Vec4(0, 0, 362, 1)
        #expect(abs(c.z / c.w) < 1)
        let f = cam.viewProjection * Vec4(0, 0, -362, 1)
        #expect(abs(f.z / f.w) < 1)
        #expect(c.z / c.w < f.z / f.w) // nearer is smaller depth
    }
}

private func close(_ a: Vec2, _ b: Vec2, _ tol: Double = 1e-9) -> Bool { abs(a.x - b.x) <= tol && abs(a.y - b.y) <= tol }
