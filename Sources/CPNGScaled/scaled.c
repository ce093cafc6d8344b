#include "folio_png_scaled.h"
#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void warning_cb(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

/// What the reader callbacks need: the file (or, when `fd` is -1, the bytes in memory and how
/// far they are read) and the error text.
typedef struct {
    int fd;
    const unsigned char *bytes;
    size_t size, at;
    folio_png_scaled *out;
} source;

static void read_cb(png_structp png, png_bytep bytes, size_t count) {
    source *src = (source *)png_get_io_ptr(png);
    if (src->fd < 0) {
        if (src->size - src->at < count) png_error(png, "the file ends before the image does");
        memcpy(bytes, src->bytes + src->at, count);
        src->at += count;
        return;
    }
    size_t done = 0;
    while (done < count) {
        ssize_t n = read(src->fd, bytes + done, count - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) png_error(png, strerror(errno));
        if (n == 0) png_error(png, "the file ends before the image does");
        done += (size_t)n;
    }
}

static void error_cb(png_structp png, png_const_charp msg) {
    source *src = (source *)png_get_error_ptr(png);
    strncpy(src->out->message, msg, sizeof src->out->message - 1);
    src->out->message[sizeof src->out->message - 1] = 0;
    png_longjmp(png, 1);
}

static int read_scaled(source src, unsigned out_w, unsigned out_h, folio_png_scaled *out) {
    out->pixels = NULL;
    out->rows_done = 0;
    out->message[0] = 0;
    // Everything malloc'd is freed at the end, success or longjmp; volatile so the values
    // survive the longjmp.
    unsigned char *volatile row = NULL;
    float *volatile acc = NULL, *volatile hrow = NULL, *volatile weights = NULL;
    unsigned *volatile first = NULL, *volatile counts = NULL;
    volatile int ok = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, error_cb, warning_cb);
    if (!png) { strcpy(out->message, "cannot create the PNG reader"); return 0; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_read_struct(&png, NULL, NULL); strcpy(out->message, "cannot create the PNG info"); return 0; }
    if (setjmp(png_jmpbuf(png))) goto done;
    png_set_read_fn(png, &src, read_cb);
    // The caller has checked the header's size against its limit; libpng's own limit is lifted.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    int type = png_get_color_type(png, info);
    // Any PNG to RGBA8: palette, grey and tRNS expanded, 16 bits rounded to 8.
    png_set_expand(png);
    png_set_scale_16(png);
    if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(type & PNG_COLOR_MASK_ALPHA)) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    // To sRGB with straight alpha, as the simplified reader gives smaller pages: files without
    // gamma information are taken as sRGB already (unchanged), others are converted.
    // (png_set_gamma would override a file's own gAMA.)
    png_set_alpha_mode(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    png_read_update_info(png, info);
    // Interlaced: the source is the last pass, every odd row at full width.
    png_uint_32 src_h = interlaced ? h / 2 : h;
    if (out_w == 0 || out_h == 0 || out_w > w || out_h > src_h) {
        snprintf(out->message, sizeof out->message,
                 interlaced ? "interlaced image of %ux%u is too large to read at a reduced scale (save it without interlacing)"
                            : "cannot scale %ux%u to the size asked for", (unsigned)w, (unsigned)h);
        goto done;
    }
    size_t rowbytes = png_get_rowbytes(png, info);
    row = (unsigned char *)malloc(rowbytes);
    acc = (float *)calloc((size_t)out_w * 4, sizeof(float));
    hrow = (float *)malloc((size_t)out_w * 4 * sizeof(float));
    first = (unsigned *)malloc(out_w * sizeof(unsigned));
    counts = (unsigned *)malloc(out_w * sizeof(unsigned));
    weights = (float *)malloc(((size_t)w + 2 * out_w) * sizeof(float));
    if (!row || !acc || !hrow || !first || !counts || !weights) png_error(png, "out of memory");
    // Horizontal taps: output column o averages source columns [o·sx, (o+1)·sx).
    double sx = (double)w / out_w, sy = (double)src_h / out_h;
    size_t k = 0;
    for (unsigned o = 0; o < out_w; o++) {
        double a = o * sx, b = (o + 1) * sx;
        unsigned f = (unsigned)a, l = (unsigned)floor(b - 1e-9);
        if (l > w - 1) l = w - 1;
        first[o] = f;
        counts[o] = l - f + 1;
        for (unsigned i = f; i <= l; i++) weights[k++] = (float)((fmin(b, i + 1.0) - fmax(a, (double)i)) / sx);
    }
    // Interlaced: decode and pass over the first six passes (libpng skips the empty ones).
    if (interlaced) {
        for (int pass = 0; pass < 6; pass++) {
            if (PNG_PASS_COLS(w, pass) == 0) continue;
            for (png_uint_32 y = 0; y < PNG_PASS_ROWS(h, pass); y++) png_read_row(png, row, NULL);
        }
    }
    // Plain copies for the loops (the volatile ones are for the cleanup after a longjmp).
    unsigned char *line = row;
    float *sum = acc, *across = hrow, *wt = weights;
    const unsigned *from = first, *taps = counts;
    size_t out_row = (size_t)out_w * 4, capacity = 0;
    unsigned oy = 0;
    for (png_uint_32 y = 0; y < src_h && oy < out_h; y++) {
        png_read_row(png, line, NULL);
        // This row, averaged across and premultiplied.
        k = 0;
        for (unsigned o = 0; o < out_w; o++) {
            float r = 0, g = 0, bl = 0, al = 0;
            const unsigned char *p = line + (size_t)from[o] * 4;
            for (unsigned i = 0; i < taps[o]; i++, p += 4) {
                float wa = wt[k++] * p[3];
                r += p[0] * wa; g += p[1] * wa; bl += p[2] * wa; al += wa;
            }
            across[o * 4] = r; across[o * 4 + 1] = g; across[o * 4 + 2] = bl; across[o * 4 + 3] = al;
        }
        // Into each output row it overlaps (sy >= 1: at most two); a row is written out once
        // the source rows it covers have all arrived.
        for (;;) {
            double top = oy * sy, bottom = (oy + 1) * sy;
            double overlap = fmin(y + 1.0, bottom) - fmax((double)y, top);
            if (overlap > 0) {
                float f = (float)(overlap / sy);
                for (size_t i = 0; i < out_row; i++) sum[i] += across[i] * f;
            }
            if (bottom > y + 1.0 + 1e-9) break;
            if (out->rows_done + 1 > capacity) {
                capacity = capacity ? capacity * 2 : 16;
                if (capacity > out_h) capacity = out_h;
                unsigned char *grown = (unsigned char *)realloc(out->pixels, capacity * out_row);
                if (!grown) png_error(png, "out of memory");
                out->pixels = grown;
            }
            unsigned char *dst = out->pixels + out->rows_done * out_row;
            for (unsigned o = 0; o < out_w; o++) {
                const float *c = sum + o * 4;
                float a = c[3];
                for (int ch = 0; ch < 3; ch++) {
                    float v = a > 0 ? c[ch] / a : 0;
                    dst[o * 4 + ch] = (unsigned char)(fminf(fmaxf(v, 0), 255) + 0.5f);
                }
                dst[o * 4 + 3] = (unsigned char)(fminf(fmaxf(a, 0), 255) + 0.5f);
            }
            memset(sum, 0, out_row * sizeof(float));
            out->rows_done++;
            if (++oy == out_h) break;
        }
    }
    if (oy < out_h) { strcpy(out->message, "the image ends before its last row"); goto done; }
    ok = 1;
done:
    png_destroy_read_struct(&png, &info, NULL);
    free(row); free(acc); free(hrow); free(first); free(counts); free(weights);
    return ok;
}

int folio_png_read_scaled(int fd, unsigned out_w, unsigned out_h, folio_png_scaled *out) {
    return read_scaled((source){ fd, NULL, 0, 0, out }, out_w, out_h, out);
}

int folio_png_read_scaled_memory(const unsigned char *bytes, size_t size, unsigned out_w, unsigned out_h, folio_png_scaled *out) {
    return read_scaled((source){ -1, bytes, size, 0, out }, out_w, out_h, out);
}
