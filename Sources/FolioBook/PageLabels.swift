extension Book {
    /// The label of page image `index` (0-based) as a reader names it: the label printed in the
    /// document where it has labels ("iv", "17"), else the image's number from 1. The one place
    /// the on-screen layer asks for page numbers; the document is opened through `documents`.
    public func pageLabel(image index: Int, in documents: DocumentRegistry) -> String {
        if pages.indices.contains(index), let (path, page) = pages[index].documentPage,
           let label = (try? documents.open(path))?.label(ofPage: page), !label.isEmpty {
            return label
        }
        return String(index + 1)
    }
}
