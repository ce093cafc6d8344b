// FolioBook — books and their pages: the library's value types (`Book`, `Library`, `Problem`),
// the page-source interface and its registry, PNG and JPEG, files read and written safely,
// the page caches and the memory budget. Does not: find books on disk (FolioLibrary), draw,
// or know of the reader.
//
// FolioBook's API speaks of images and of Folio's own folders: whoever reads books gets both.
@_exported import FolioImage
@_exported import FolioResources
