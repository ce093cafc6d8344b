// FolioLibrary — finds the books a user names: library and book manifests (JSON with line
// numbers, plists), folders of page images, documents of the registered formats, each becoming
// a `Library` with its problems. Does not: decode page images (only headers are read and
// documents' pages counted), draw, or know of the reader.
