import FolioLayout

/// The renderer's uniforms by program, located once when the program is built: a draw sets
/// them by location, never by name. Samplers and constants are set once, here.

/// page.vert's uniforms, in every program built on it (faces, cast shadow, overlays).
struct GeometryUniforms {
    let viewProj, model, size, gutterDrop, deform, curl, curlRadius, curlWrap, cone, light: Uniform
    let shadowPass, expand, spineEdge, casterModel, casterSize, inset: Uniform

    init(_ p: Program) {
        viewProj = p.uniform("uViewProj")
        model = p.uniform("uModel")
        size = p.uniform("uSize")
        gutterDrop = p.uniform("uGutterDrop")
        deform = p.uniform("uDeform")
        curl = p.uniform("uCurl")
        curlRadius = p.uniform("uCurlRadius")
        curlWrap = p.uniform("uCurlWrap")
        cone = p.uniform("uCone")
        light = p.uniform("uLight")
        shadowPass = p.uniform("uShadowPass")
        expand = p.uniform("uExpand")
        spineEdge = p.uniform("uSpineEdge")
        casterModel = p.uniform("uCasterModel")
        casterSize = p.uniform("uCasterSize")
        inset = p.uniform("uInset")
        p.use()
        p.uniform("uGutterWidth").set(Float(GutterCurve.width))
    }
}

/// page.frag's, with its geometry.
struct PageUniforms {
    let program: Program
    let geometry: GeometryUniforms
    let uvOrigin, uvDu, uvDt, shade, gutter, wedge, ambient, opacity, cornerRadius, backTone: Uniform
    let showThrough, behindLod, recolour, themePaper, themeInk, backFace: Uniform

    init(_ p: Program) {
        program = p
        geometry = GeometryUniforms(p)
        uvOrigin = p.uniform("uUVOrigin")
        uvDu = p.uniform("uUVdu")
        uvDt = p.uniform("uUVdt")
        shade = p.uniform("uShade")
        gutter = p.uniform("uGutter")
        wedge = p.uniform("uWedge")
        ambient = p.uniform("uAmbient")
        opacity = p.uniform("uOpacity")
        cornerRadius = p.uniform("uCornerRadius")
        backTone = p.uniform("uBackTone")
        showThrough = p.uniform("uShowThrough")
        behindLod = p.uniform("uBehindLod")
        recolour = p.uniform("uRecolour")
        themePaper = p.uniform("uThemePaper")
        themeInk = p.uniform("uThemeInk")
        backFace = p.uniform("uBackFace")
        p.uniform("uImage").set(Int32(0))
        p.uniform("uBehind").set(Int32(1))
        geometry.shadowPass.set(Int32(0))
    }
}

/// shadow.frag's (the cast shadow, the overlays and the depth of the pages' insides).
struct ShadowUniforms {
    let program: Program
    let geometry: GeometryUniforms
    let strength, falloff, ambient: Uniform

    init(_ p: Program) {
        program = p
        geometry = GeometryUniforms(p)
        strength = p.uniform("uStrength")
        falloff = p.uniform("uFalloff")
        ambient = p.uniform("uAmbient")
    }
}

/// block.vert and block.frag's: page blocks and boards.
struct BlockUniforms {
    let program: Program
    let viewProj, model, size, thickness, paper, clothTint, light, sheets, board, grow, flare, gutterDrop, spine: Uniform

    init(_ p: Program) {
        program = p
        viewProj = p.uniform("uViewProj")
        model = p.uniform("uModel")
        size = p.uniform("uSize")
        thickness = p.uniform("uThickness")
        paper = p.uniform("uPaper")
        clothTint = p.uniform("uClothTint")
        light = p.uniform("uLight")
        sheets = p.uniform("uSheets")
        board = p.uniform("uBoard")
        grow = p.uniform("uGrow")
        flare = p.uniform("uFlare")
        gutterDrop = p.uniform("uGutterDrop")
        spine = p.uniform("uSpine")
        p.use()
        p.uniform("uGutterWidth").set(Float(GutterCurve.width))
        p.uniform("uCover").set(Int32(0))
    }
}

/// desk.vert and desk.frag's: a book's shadow on the desk.
struct DeskUniforms {
    let program: Program
    let viewProj, model, size, margin, height, strength, closed, light: Uniform

    init(_ p: Program) {
        program = p
        viewProj = p.uniform("uViewProj")
        model = p.uniform("uModel")
        size = p.uniform("uSize")
        margin = p.uniform("uMargin")
        height = p.uniform("uHeight")
        strength = p.uniform("uStrength")
        closed = p.uniform("uClosed")
        light = p.uniform("uLight")
    }
}

/// backdrop.frag's: the room.
struct BackdropUniforms {
    let program: Program
    let top, bottom, vignette: Uniform

    init(_ p: Program) {
        program = p
        top = p.uniform("uTop")
        bottom = p.uniform("uBottom")
        vignette = p.uniform("uVignette")
    }
}
