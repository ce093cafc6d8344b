// Reads a PNG at a reduced scale, a row at a time, in C: libpng reports errors by longjmp,
// which lands in this function's own setjmp and never crosses a Swift frame. Compiled with
// optimisation even in debug builds: it touches every pixel of images of hundreds of megapixels.
#ifndef FOLIO_PNG_SCALED_H
#define FOLIO_PNG_SCALED_H
#include <stddef.h>

/// An image read at a reduced scale: `pixels` (RGBA8, straight alpha, rows top to bottom) is
/// malloc'd and belongs to the caller after the call, whatever it returns.
typedef struct {
    unsigned char *pixels;
    size_t rows_done;
    char message[160];
} folio_png_scaled;

/// Reads the PNG on `fd` scaled to exactly `out_w` × `out_h` (no larger than the image), with
/// the same area average as Folio's Swift resampler (premultiplied, fractional edge weights).
/// Memory: one source row, one accumulated output row and the output, which grows as its rows
/// are finished — a file that lies about its size fails before much is allocated. Interlaced
/// images are read from their last Adam7 pass (the odd rows, full width) when that still has
/// as many rows as the output; otherwise they are refused. Returns 1, or 0 with `message` set.
int folio_png_read_scaled(int fd, unsigned out_w, unsigned out_h, folio_png_scaled *out);

/// The same for a PNG held in memory (`size` bytes at `bytes`: a comic archive's entry).
int folio_png_read_scaled_memory(const unsigned char *bytes, size_t size, unsigned out_w, unsigned out_h, folio_png_scaled *out);

#endif
