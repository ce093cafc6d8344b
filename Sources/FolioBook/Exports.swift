// FolioBook — books and their pages: the library's value types (`Book`, `Library`, `Problem`),
// the page-source interface and its registry, PNG and JPEG, files read and written safely,
// page labels and marks. Does not: find books on disk (FolioLibrary), keep page images or
// count their memory (FolioPages), draw, or know of the reader.
//
// FolioBook's API speaks of images and of Folio's own folders: whoever reads books gets both.
@_exported import FolioImage
@_exported import FolioResources
