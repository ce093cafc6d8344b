// FolioBook's API speaks of images and of Folio's own folders: whoever reads books gets both.
@_exported import FolioImage
@_exported import FolioResources
