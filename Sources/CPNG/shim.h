// libpng for Folio. Reading uses the simplified API (errors come back in png_image.message),
// except for images larger than they will be shown (CPNGScaled). Writing needs a zlib level,
// which the simplified API lacks, so it goes through the classic API here in C: libpng's
// longjmp on error lands in folio_png_encode_rgba's own setjmp and never crosses a Swift frame.
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

// Function-like macros do not import into Swift; re-export the ones Folio uses.
static const png_uint_32 folio_png_format_rgba = PNG_FORMAT_RGBA;
static const png_uint_32 folio_png_image_version = PNG_IMAGE_VERSION;

/// Growable output buffer; `data` is malloc'd and belongs to the caller after the call.
typedef struct {
    unsigned char *data;
    size_t size;
    size_t capacity;
    char message[160];
} folio_png_buffer;

static void folio_png_write_cb(png_structp png, png_bytep bytes, size_t count) {
    folio_png_buffer *b = (folio_png_buffer *)png_get_io_ptr(png);
    if (b->size + count > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 65536;
        while (cap < b->size + count) cap *= 2;
        unsigned char *grown = (unsigned char *)realloc(b->data, cap);
        if (!grown) png_error(png, "out of memory");
        b->data = grown;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, bytes, count);
    b->size += count;
}

static void folio_png_flush_cb(png_structp png) { (void)png; }

static void folio_png_error_cb(png_structp png, png_const_charp msg) {
    folio_png_buffer *b = (folio_png_buffer *)png_get_error_ptr(png);
    strncpy(b->message, msg, sizeof b->message - 1);
    b->message[sizeof b->message - 1] = 0;
    png_longjmp(png, 1);
}

static void folio_png_warning_cb(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

/// Encodes 8-bit RGBA rows; a negative `stride` walks the rows bottom-up (GL's order).
/// Returns 1 on success, 0 with `out->message` set on failure.
static inline int folio_png_encode_rgba(const unsigned char *pixels, unsigned width, unsigned height,
                                        long stride, int level, folio_png_buffer *out) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, out, folio_png_error_cb, folio_png_warning_cb);
    if (!png) { strcpy(out->message, "cannot create the PNG writer"); return 0; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_write_struct(&png, NULL); strcpy(out->message, "cannot create the PNG info"); return 0; }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return 0;
    }
    png_set_write_fn(png, out, folio_png_write_cb, folio_png_flush_cb);
    png_set_compression_level(png, level);
    // At fast levels the adaptive filter search costs more than it saves.
    if (level <= 2) png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (unsigned y = 0; y < height; y++) {
        long row = stride >= 0 ? (long)y * stride : (long)(height - 1 - y) * -stride;
        png_write_row(png, (png_const_bytep)(pixels + row));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 1;
}
