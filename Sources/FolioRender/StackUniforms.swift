import FolioMath

/// page.vert's and page.frag's uniforms for the pages a turning sheet leaves and lands on
/// (`Renderer.stackUniforms`).
struct StackUniforms {
    var models: [Mat4]
    var drops: [Double]
    var rims: [Float]
    var lifts: [Double]
    var alignDrop: Double
    var liesNear: Bool

    func set(_ page: ProgramUniforms) {
        page[.stackLeft].set(matrix: models[0].floats)
        page[.stackRight].set(matrix: models[1].floats)
        page[.stackDrops].set(Float(drops[0]), Float(drops[1]))
        page[.stackRims].set(rims[0], rims[1])
        page[.alignLift].set(Float(lifts[0]), Float(lifts[1]))
        page[.alignDrop].set(Float(alignDrop))
        page[.aligns].set(Float(liesNear ? 1 : 0))
    }
}
