import FolioLayout
import FolioMath

/// What drawing an item's faces needs, found once for it (`Renderer.facePlan`): a lone sheet,
/// drawn in two steps around the darkening beneath it, finds it in the first and keeps it for
/// the second (`Renderer.lonePlan`).
struct FacePlan {
    var item: SceneItem
    /// Its faces, front first: what each shows, the side culled for it, 1 for the back.
    var faces: [(content: FaceContent, cull: DrawState.Cull, back: Float)]
    /// Each face's texture, and the other side's where it shows through.
    var images: [(image: Texture, behind: Texture?)]
    /// How far in a turning sheet's inside starts (`Renderer.insideInset`); nil: drawn whole.
    var inset: Vec2?
    var parts: [(biased: Bool, part: MeshPart)]
    var stacks: StackUniforms?
    var recolours: Bool
}

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
