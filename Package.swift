// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Folio",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "folio", targets: ["folio"]),
        .library(name: "FolioKit", targets: ["FolioMath", "FolioLayout", "FolioBook", "FolioRender", "FolioPlatform", "FolioApp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(name: "CGLFW", pkgConfig: "glfw3", providers: [.apt(["libglfw3-dev"])]),
        .systemLibrary(name: "CEGL", pkgConfig: "egl", providers: [.apt(["libegl-dev"])]),
        .systemLibrary(name: "COpenGL", pkgConfig: "opengl", providers: [.apt(["libopengl-dev", "libgl-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        .target(name: "FolioMath"),
        .target(name: "FolioLayout", dependencies: ["FolioMath"]),
        // Optimised in every build: it scales images of hundreds of megapixels row by row.
        .target(name: "CPNGScaled", dependencies: ["CPNG"], cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "FolioBook", dependencies: ["CPNG", "CPNGScaled", .product(name: "Logging", package: "swift-log")]),
        .target(name: "FolioRender", dependencies: ["COpenGL", "FolioMath", "FolioLayout", "FolioBook"]),
        .target(name: "FolioPlatform", dependencies: ["CEGL", "CGLFW", "COpenGL", "FolioRender", "FolioBook", "FolioApp"]),
        .target(name: "FolioApp", dependencies: ["FolioMath", "FolioLayout", "FolioBook"]),
        .executableTarget(name: "folio", dependencies: [
            "FolioApp", "FolioRender", "FolioPlatform", "FolioBook", "FolioLayout",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .testTarget(name: "FolioMathTests", dependencies: ["FolioMath"]),
        .testTarget(name: "FolioLayoutTests", dependencies: ["FolioLayout", "FolioMath"]),
        .testTarget(name: "FolioBookTests", dependencies: ["FolioBook"]),
        .testTarget(name: "FolioAppTests", dependencies: ["FolioApp", "FolioLayout", "FolioBook"]),
        .testTarget(name: "FolioRenderTests", dependencies: ["FolioRender", "FolioPlatform", "FolioApp", "FolioBook", "FolioLayout", "FolioMath"],
                    exclude: ["References"]),
        .testTarget(name: "FolioCLITests", dependencies: ["FolioBook"]),
        .testTarget(name: "FolioFuzzTests", dependencies: ["FolioBook", "FolioApp", "FolioLayout"]),
    ],
    swiftLanguageModes: [.v6]
)
