extension Book {
    /// The label of page image `index` (0-based) as a reader names it: the label printed in the
    /// document where it has labels ("iv", "17"), else the image's number from 1. The one place
    /// the on-screen layer asks for page numbers.
    public func pageLabel(image index: Int) -> String {
        if pages.indices.contains(index), let (path, page) = PageSources.split(pages[index]),
           let label = (try? PageSources.documents.open(path))?.label(ofPage: page), !label.isEmpty {
            return label
        }
        return String(index + 1)
    }
}
