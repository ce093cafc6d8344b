// libjpeg(-turbo) for Folio. libjpeg reports a fatal error by calling error_exit, which must
// not return; the usual answer is a longjmp, and a longjmp must never cross a Swift frame. So
// the whole decode runs here in C, under its own setjmp, and comes back as a status code with
// libjpeg's message.
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    /// A limit of Folio's that stopped the decode: its status (see `folio_jpeg_decode`), else 0.
    int limit;
} folio_jpeg_error;

static void folio_jpeg_error_exit(j_common_ptr cinfo) {
    folio_jpeg_error *e = (folio_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

// Warnings (a file that ends early, a corrupt segment) are kept, not printed: the first one
// becomes the message of a status-2 result.
static void folio_jpeg_emit_message(j_common_ptr cinfo, int level) {
    folio_jpeg_error *e = (folio_jpeg_error *)cinfo->err;
    if (level < 0 && cinfo->err->num_warnings++ == 0) (*cinfo->err->format_message)(cinfo, e->message);
}

/// Bytes libjpeg may hold for a progressive image's coefficient arrays: past it, libjpeg asks
/// for a backing store, which this build does not have, and stops (status 3 below).
#define FOLIO_JPEG_MEMORY (256L << 20)
/// Scans a progressive file may have (each is one more pass over all coefficients).
#define FOLIO_JPEG_MAX_SCANS 500

/// Stops a decode at its 501st scan (status 4 below).
static void folio_jpeg_progress(j_common_ptr cinfo) {
    struct jpeg_decompress_struct *d = (struct jpeg_decompress_struct *)cinfo;
    folio_jpeg_error *e = (folio_jpeg_error *)cinfo->err;
    if (d->input_scan_number > FOLIO_JPEG_MAX_SCANS) {
        e->limit = 4;
        longjmp(e->jump, 1);
    }
}

/// Points libjpeg's errors at `err` (before the caller's setjmp).
static void folio_jpeg_init(struct jpeg_decompress_struct *cinfo, folio_jpeg_error *err) {
    memset(err, 0, sizeof *err);
    cinfo->err = jpeg_std_error(&err->mgr);
    err->mgr.error_exit = folio_jpeg_error_exit;
    err->mgr.emit_message = folio_jpeg_emit_message;
}

/// What a JPEG's header says.
typedef struct {
    int width, height;
    /// Components in the file (1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK).
    int components;
} folio_jpeg_header;

/// The size a decode at 1/`denom` scale produces (libjpeg rounds up).
static void folio_jpeg_scaled_size(int width, int height, int denom, int *w, int *h) {
    *w = (width + denom - 1) / denom;
    *h = (height + denom - 1) / denom;
}

/// Reads the header into `header`, then, when `rgba` is not NULL, decodes to RGBA8 at
/// 1/`denom` scale (1, 2, 4 or 8) into `rgba`, which holds `w * h * 4` bytes for the size
/// `folio_jpeg_scaled_size` gives. Baseline, progressive, greyscale, RGB, CMYK and YCCK
/// (Adobe's inverted CMYK when its marker says so).
/// 0: ok; 1: error (message filled); 2: decoded, but with a warning such as a file that ends
/// early (message filled; the missing part is grey); 3: the coefficients need more than
/// FOLIO_JPEG_MEMORY; 4: more than FOLIO_JPEG_MAX_SCANS scans.
static int folio_jpeg_decode(const unsigned char *data, size_t size, folio_jpeg_header *header, int denom,
                             unsigned char *rgba, int w, int h, char *message) {
    struct jpeg_decompress_struct cinfo;
    folio_jpeg_error err;
    folio_jpeg_init(&cinfo, &err);
    struct jpeg_progress_mgr progress = { .progress_monitor = folio_jpeg_progress };
    if (setjmp(err.jump)) {
        strcpy(message, err.message);
        int code = err.limit ? err.limit : (err.mgr.msg_code == JERR_NO_BACKING_STORE ? 3 : 1);
        jpeg_destroy_decompress(&cinfo);
        return code;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = FOLIO_JPEG_MEMORY;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    header->width = (int)cinfo.image_width;
    header->height = (int)cinfo.image_height;
    header->components = cinfo.num_components;
    if (rgba == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return 0;
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)denom;
    jpeg_start_decompress(&cinfo);
    if ((int)cinfo.output_width != w || (int)cinfo.output_height != h) {
        snprintf(message, JMSG_LENGTH_MAX, "unexpected output size %ux%u", cinfo.output_width, cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    // Photoshop writes CMYK inverted (0 = full ink) and says so with an Adobe marker.
    int inverted = cmyk && cinfo.saw_Adobe_marker;
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned char *out = rgba + (size_t)cinfo.output_scanline * (size_t)w * 4;
        JSAMPROW rows[1] = { out };
        jpeg_read_scanlines(&cinfo, rows, 1);
        if (!cmyk) continue;
        // CMYK to RGB in place (4 bytes in, 4 out): r = (1 - c)(1 - k), as a screen shows it.
        for (int x = 0; x < w; x++) {
            unsigned char *p = out + 4 * x;
            int c = p[0], m = p[1], y = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
            p[0] = (unsigned char)((c * k + 127) / 255);
            p[1] = (unsigned char)((m * k + 127) / 255);
            p[2] = (unsigned char)((y * k + 127) / 255);
            p[3] = 255;
        }
    }
    jpeg_finish_decompress(&cinfo);
    int warned = cinfo.err->num_warnings > 0;
    if (warned) strcpy(message, err.message);
    jpeg_destroy_decompress(&cinfo);
    return warned ? 2 : 0;
}
