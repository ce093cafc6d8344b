// FolioKit is the embedding API: the types its pipeline speaks in (books, scenes, actions,
// surfaces, the renderer's settings) come with it, so a host imports FolioKit alone (and
// FolioWindow for a GLFW window).
@_exported import FolioBook
@_exported import FolioLibrary
@_exported import FolioInput
@_exported import FolioLayout
@_exported import FolioPages
@_exported import FolioPlatform
@_exported import FolioReader
@_exported import FolioRender
