// MuPDF's public API (libmupdf-dev). Linked statically: the libraries are named in the
// linker settings of CMuPDFBridge (mupdf.pc lists them only for static linking).
#include <mupdf/fitz.h>
