// swift-tools-version:6.0
import PackageDescription

// The modules FolioKit's API speaks in (books, scenes, actions, surfaces, the renderer's
// settings): part of its products, each imported by the program that uses it.
let kitModules = ["FolioBook", "FolioLibrary", "FolioImage", "FolioResources", "FolioInput", "FolioLayout", "FolioPages",
                  "FolioPlatform", "FolioReader", "FolioRender"]

// Linux only (EGL, GLFW, Glibc): SwiftPM has no way to declare it, so no platforms are claimed.
let package = Package(
    name: "Folio",
    products: [
        .executable(name: "folio", targets: ["folio"]),
        // The frame pipeline with a GLFW window (`import FolioKit, FolioWindow` and the modules used).
        .library(name: "FolioKit", targets: ["FolioKit", "FolioWindow"] + kitModules),
        // The same pipeline for programs without a display: EGL only, GLFW not linked.
        .library(name: "FolioKitHeadless", targets: ["FolioKit"] + kitModules),
        // Document formats, each its own product: a FolioKit program links poppler (GPL) or
        // libarchive only if it registers that format.
        .library(name: "FolioPDF", targets: ["FolioPDF"]),
        .library(name: "FolioArchive", targets: ["FolioArchive"]),
        .library(name: "FolioDjVu", targets: ["FolioDjVu"]),
        // EPUB, MOBI, FB2, XHTML, XPS through MuPDF (AGPL-3.0: docs/documents.md).
        .library(name: "FolioMuPDF", targets: ["FolioMuPDF"]),
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
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        // No pkgConfig: ddjvuapi.pc's -pthread is refused by SwiftPM with a warning on every build,
        // and the header and library it names are in the default paths.
        .systemLibrary(name: "CDjVu", providers: [.apt(["libdjvulibre-dev"])]),
        .systemLibrary(name: "CMuPDF", providers: [.apt(["libmupdf-dev"])]),
        // pango's headers need glib's include folders, which only pkg-config knows; its cflags carry
        // gio's -pthread, which SwiftPM drops with a warning (the headers need no thread flag).
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // GLib's SHA-1 for the bridge (EPUB's font obfuscation); no -pthread in its flags.
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSpeechd", pkgConfig: "speech-dispatcher", providers: [.apt(["libspeechd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "FolioMath"),
        .target(name: "FolioInput"),
        .target(name: "FolioLayout", dependencies: ["FolioMath"]),
        // Scales images of hundreds of megapixels row by row; no unsafe flags, so that the package
        // can be a versioned dependency (release builds optimise it).
        .target(name: "CPNGScaled", dependencies: ["CPNG"]),
        .target(name: "FolioImage", dependencies: ["FolioMath"]),
        .target(name: "FolioResources"),
        .target(name: "FolioBook", dependencies: ["CPNG", "CPNGScaled", "CJPEG", "CWebP", "FolioImage", "FolioResources"]),
        // Libraries found on disk: manifests, folders of images, documents (the loader).
        .target(name: "FolioLibrary", dependencies: ["FolioBook", .product(name: "Logging", package: "swift-log")]),
        // Every page image's life, face to texture: decodes, the residency table, uploads, crops.
        .target(name: "FolioPages", dependencies: ["FolioBook", "FolioImage", "FolioLayout", "FolioMath"]),
        .target(name: "FolioPDF", dependencies: ["CPoppler", "FolioBook", "FolioImage"]),
        .target(name: "FolioArchive", dependencies: ["CArchive", "FolioBook", "FolioImage"]),
        .target(name: "FolioDjVu", dependencies: ["CDjVu", "FolioBook", "FolioImage"]),
        .target(name: "FolioFind", dependencies: ["FolioBook"]),
        // What the reader keeps between runs, in one SQLite database: places, bookmarks, reading
        // time, each book known by what it is (its identifier and a hash), not where it is.
        .target(name: "FolioState", dependencies: ["CSQLite", "CZlib", "FolioBook"]),
        .target(name: "FolioSpeech", dependencies: ["CSpeechd"]),
        // MuPDF ships static libraries only; SwiftPM asks pkg-config for none of them, so the
        // list is `pkg-config --libs --static mupdf` plus harfbuzz, and libhyphen and fontconfig
        // for hyphenate.c and epubcopy.c (hyphenation, the reader's face).
        .target(name: "CMuPDFBridge", dependencies: ["CMuPDF", "CGLib"], linkerSettings: [
            "mupdf", "mupdf-third", "mujs", "gumbo", "openjp2", "jbig2dec", "jpeg", "freetype", "png16", "z",
            "brotlidec", "brotlicommon", "harfbuzz", "m", "hyphen", "fontconfig",
        ].map { .linkedLibrary($0) } + [
            // MuPDF opens no file but through the bridge's guard (document.c: files outside the book).
            // Its fonts made from its built-in ones are counted (document.c).
            .unsafeFlags(["-Xlinker", "--wrap=fz_open_file", "-Xlinker", "--wrap=fz_file_exists", "-Xlinker", "--wrap=fz_new_font_from_memory"]),
        ]),
        .target(name: "FolioMuPDF", dependencies: ["CMuPDFBridge", "FolioBook", "FolioImage"]),
        .target(name: "FolioRender", dependencies: ["COpenGL", "FolioMath", "FolioLayout", "FolioImage", "FolioResources"]),
        .target(name: "FolioPlatform", dependencies: ["CEGL", "FolioRender", "FolioInput"]),
        .target(name: "FolioWindow", dependencies: ["CGLFW", "FolioPlatform", "FolioRender", "FolioInput"]),
        // The reading state machine and its input: actions, keys, gestures, settings, positions.
        .target(name: "FolioReader", dependencies: ["FolioMath", "FolioLayout", "FolioBook", "FolioInput", "FolioState", "FolioImage"]),
        // The record-script language and the command line's formats (scene JSON, still state).
        .target(name: "FolioScript", dependencies: ["FolioReader", "FolioLayout", "FolioMath"]),
        // The on-screen layer: what it shows and where (no GL, no text drawing), and its text drawn by pango.
        .target(name: "FolioOverlay"),
        .target(name: "FolioOverlayText", dependencies: ["CPangoCairo", "FolioOverlay", "FolioImage"]),
        .target(name: "FolioKit", dependencies: ["FolioReader", "FolioBook", "FolioLibrary", "FolioPages", "FolioInput", "FolioLayout", "FolioMath", "FolioPlatform", "FolioRender",
                                                 "FolioOverlay", "FolioOverlayText", "FolioFind", "FolioState", "FolioSpeech", "FolioImage"]),
        .executableTarget(name: "folio", dependencies: [
            "FolioKit", "FolioWindow", "FolioReader", "FolioScript", "FolioLibrary", "FolioRender", "FolioPlatform", "FolioBook", "FolioLayout", "FolioMath", "FolioPDF", "FolioArchive", "FolioDjVu",
            "FolioMuPDF", "FolioFind", "FolioOverlay", "FolioState", "FolioImage", "FolioResources",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The embedding example (Examples/Embed): built with the package, so `make test` builds it.
        .executableTarget(name: "folio-embed", dependencies: ["FolioKit", "FolioWindow", "FolioBook", "FolioImage", "FolioLayout", "FolioLibrary", "FolioPages", "FolioPlatform", "FolioReader", "FolioRender", "FolioResources"], path: "Examples/Embed"),

        .testTarget(name: "FolioMathTests", dependencies: ["FolioMath"]),
        .testTarget(name: "FolioLayoutTests", dependencies: ["FolioLayout", "FolioMath"]),
        .testTarget(name: "FolioBookTests", dependencies: ["FolioBook", "FolioLibrary", "FolioImage", "FolioResources"]),
        .testTarget(name: "FolioPagesTests", dependencies: ["FolioPages", "FolioBook", "FolioLibrary", "FolioLayout", "FolioMath", "FolioReader", "FolioImage", "FolioScript"]),
        .testTarget(name: "FolioDocumentsTests", dependencies: ["FolioPDF", "FolioArchive", "FolioDjVu", "FolioMuPDF", "FolioBook", "FolioLibrary", "FolioFind", "FolioReader", "FolioState", "FolioPages", "FolioImage", "FolioLayout"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "FolioReaderTests", dependencies: ["FolioReader", "FolioState", "FolioScript", "FolioPages", "FolioInput", "FolioLayout", "FolioBook", "FolioMath"]),
        .testTarget(name: "FolioScriptTests", dependencies: ["FolioScript", "FolioReader", "FolioLayout", "FolioMath"]),
        .testTarget(name: "FolioRenderTests", dependencies: ["COpenGL", "FolioKit", "FolioPages", "FolioInput", "FolioRender", "FolioPlatform", "FolioReader", "FolioScript", "FolioBook", "FolioLibrary", "FolioLayout", "FolioMath", "FolioOverlay", "FolioFind", "FolioState", "FolioSpeech", "FolioImage", "FolioOverlayText"],
                    exclude: ["References"]),
        .testTarget(name: "FolioStateTests", dependencies: ["FolioState", "FolioBook"]),
        .testTarget(name: "FolioCLITests", dependencies: ["FolioBook", "FolioLayout", "FolioState", "FolioImage", "FolioMath"]),
        .testTarget(name: "FolioOverlayTests", dependencies: ["FolioOverlay", "FolioOverlayText", "FolioImage"]),
        .testTarget(name: "FolioFuzzTests", dependencies: ["FolioBook", "FolioLibrary", "FolioReader", "FolioScript", "FolioLayout", "FolioImage",
                                                          "FolioMuPDF", "FolioArchive", "FolioState", "FolioDjVu",
                                                          "FolioPDF"]),
    ],
    swiftLanguageModes: [.v6]
)
