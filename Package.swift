// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Folio",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "folio", targets: ["folio"]),
        .library(name: "FolioKit", targets: ["FolioMath", "FolioLayout", "FolioBook", "FolioRender", "FolioPlatform", "FolioApp"]),
        // Document formats, each its own product: a FolioKit program links poppler (GPL) or
        // libarchive only if it registers that format.
        .library(name: "FolioPDF", targets: ["FolioPDF"]),
        .library(name: "FolioArchive", targets: ["FolioArchive"]),
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
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),

        .target(name: "FolioMath"),
        .target(name: "FolioLayout", dependencies: ["FolioMath"]),
        .target(name: "FolioBook", dependencies: ["CPNG", "CJPEG", .product(name: "Logging", package: "swift-log")]),
        .target(name: "FolioPDF", dependencies: ["CPoppler", "FolioBook"]),
        .target(name: "FolioArchive", dependencies: ["CArchive", "FolioBook"]),
        .target(name: "FolioRender", dependencies: ["COpenGL", "FolioMath", "FolioLayout", "FolioBook"]),
        .target(name: "FolioPlatform", dependencies: ["CEGL", "CGLFW", "COpenGL", "FolioRender", "FolioBook", "FolioApp"]),
        .target(name: "FolioApp", dependencies: ["FolioMath", "FolioLayout", "FolioBook"]),
        .executableTarget(name: "folio", dependencies: [
            "FolioApp", "FolioRender", "FolioPlatform", "FolioBook", "FolioLayout", "FolioPDF", "FolioArchive",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .testTarget(name: "FolioMathTests", dependencies: ["FolioMath"]),
        .testTarget(name: "FolioLayoutTests", dependencies: ["FolioLayout", "FolioMath"]),
        .testTarget(name: "FolioBookTests", dependencies: ["FolioBook"]),
        .testTarget(name: "FolioDocumentsTests", dependencies: ["FolioPDF", "FolioArchive", "FolioBook"], exclude: ["Fixtures"]),
        .testTarget(name: "FolioAppTests", dependencies: ["FolioApp", "FolioLayout", "FolioBook"]),
        .testTarget(name: "FolioRenderTests", dependencies: ["FolioRender", "FolioPlatform", "FolioApp", "FolioBook", "FolioLayout", "FolioMath"],
                    exclude: ["References"]),
        .testTarget(name: "FolioCLITests", dependencies: ["FolioBook"]),
    ],
    swiftLanguageModes: [.v6]
)
