// zlib for FolioState: inflates the two small entries of an EPUB that name it (the container
// and the package document), without opening the book as a document.
#include <zlib.h>
