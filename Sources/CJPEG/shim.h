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
#include <time.h>

typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    /// A limit of Folio's that stopped the decode: its status (see `folio_jpeg_decode`), else 0.
    int limit;
    /// CLOCK_MONOTONIC seconds past which the decode is given up (status 5); 0: none.
    double deadline;
} folio_jpeg_error;

static double folio_jpeg_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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

/// Stops a decode at its 501st scan (status 4 below), or past its deadline (status 5): libjpeg
/// calls it every few rows, so a decode that overruns frees its thread within moments.
static void folio_jpeg_progress(j_common_ptr cinfo) {
    struct jpeg_decompress_struct *d = (struct jpeg_decompress_struct *)cinfo;
    folio_jpeg_error *e = (folio_jpeg_error *)cinfo->err;
    if (d->input_scan_number > FOLIO_JPEG_MAX_SCANS) e->limit = 4;
    else if (e->deadline > 0 && folio_jpeg_now() > e->deadline) e->limit = 5;
    if (e->limit) longjmp(e->jump, 1);
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
/// FOLIO_JPEG_MEMORY; 4: more than FOLIO_JPEG_MAX_SCANS scans; 5: still decoding at `deadline`
/// (CLOCK_MONOTONIC seconds, `folio_jpeg_now`; 0: none).
static int folio_jpeg_decode(const unsigned char *data, size_t size, folio_jpeg_header *header, int denom,
                             unsigned char *rgba, int w, int h, double deadline, char *message) {
    struct jpeg_decompress_struct cinfo;
    folio_jpeg_error err;
    folio_jpeg_init(&cinfo, &err);
    err.deadline = deadline;
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

// MARK: Progressive JPEGs too large for libjpeg, at 1/8 scale

/// A progressive JPEG shown at 1/8 scale needs only each block's DC coefficient (the block's
/// mean), but libjpeg holds every coefficient of the image until the last scan. This reads the
/// DC scans alone (first and refinement; AC scans are skipped unread) into one value per block:
/// 2 bytes a block instead of 128, so a 16000 × 16000 photo takes some 12 MB, not 770.
/// Greyscale and YCbCr (or RGB) files; others get status 1.

typedef struct {
    const unsigned char *data;
    size_t size, at;
    unsigned int bits;
    int count;
    /// A marker was met inside the entropy-coded data: no more bits (zeros) until it is passed.
    int marker;
} folio_dc_bits;

static int folio_dc_bit(folio_dc_bits *b) {
    if (b->count == 0) {
        unsigned int byte = 0;
        if (!b->marker && b->at < b->size) {
            byte = b->data[b->at];
            if (byte == 0xFF) {
                if (b->at + 1 < b->size && b->data[b->at + 1] == 0x00) b->at += 2;
                else { b->marker = 1; byte = 0; }
            } else {
                b->at += 1;
            }
        }
        b->bits = byte;
        b->count = 8;
    }
    b->count -= 1;
    return (int)((b->bits >> b->count) & 1);
}

static int folio_dc_receive(folio_dc_bits *b, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) v = (v << 1) | folio_dc_bit(b);
    return v;
}

/// A Huffman table as JPEG's canonical codes: the largest code of each length and where its
/// values start.
typedef struct {
    int defined;
    int maxcode[18];
    int valptr[17];
    int mincode[17];
    unsigned char values[256];
} folio_dc_huffman;

static int folio_dc_decode(folio_dc_bits *b, const folio_dc_huffman *t) {
    int code = folio_dc_bit(b);
    for (int l = 1; l <= 16; l++) {
        if (code <= t->maxcode[l]) return t->values[t->valptr[l] + code - t->mincode[l]];
        code = (code << 1) | folio_dc_bit(b);
    }
    return -1;
}

/// After a restart interval: the bits of the last byte dropped, an RSTn marker passed.
static void folio_dc_restart(folio_dc_bits *b) {
    b->count = 0;
    b->marker = 0;
    if (b->at + 1 < b->size && b->data[b->at] == 0xFF && b->data[b->at + 1] >= 0xD0 && b->data[b->at + 1] <= 0xD7) b->at += 2;
}

/// Decodes `data` at 1/8 scale into `rgba` (`w * h * 4` bytes, `w` and `h` as
/// `folio_jpeg_scaled_size` gives for 8). Statuses as `folio_jpeg_decode`: 0 ok, 1 error
/// (message filled), 3 not read this way (CMYK), 4 too many scans, 5 past the deadline.
static int folio_jpeg_decode_dc(const unsigned char *data, size_t size, unsigned char *rgba, int w, int h,
                                double deadline, char *message) {
    folio_dc_huffman tables[4];
    int quant[4] = { 0, 0, 0, 0 };
    int ncomp = 0, width = 0, height = 0, hmax = 1, vmax = 1, restart = 0, scans = 0, adobeRGB = 0, status = 1;
    int cid[4], ch[4], cv[4], ctq[4], bw[4], bh[4];
    short *dc[4] = { NULL, NULL, NULL, NULL };
    memset(tables, 0, sizeof tables);
    snprintf(message, JMSG_LENGTH_MAX, "damaged progressive JPEG");
    size_t at = 2;
    while (at + 4 <= size) {
        if (data[at] != 0xFF) goto done;
        int marker = data[at + 1];
        if (marker == 0xFF) { at += 1; continue; }
        if (marker == 0xD9) break;
        size_t length = ((size_t)data[at + 2] << 8) | data[at + 3];
        size_t body = at + 4, end = at + 2 + length;
        if (length < 2 || end > size) goto done;
        if (marker == 0xC2) {
            if (end - body < 6 || data[body] != 8) goto done;
            height = (data[body + 1] << 8) | data[body + 2];
            width = (data[body + 3] << 8) | data[body + 4];
            ncomp = data[body + 5];
            if (ncomp != 1 && ncomp != 3) { status = 3; goto done; }
            if (end - body < 6 + 3 * (size_t)ncomp || width == 0 || height == 0) goto done;
            for (int c = 0; c < ncomp; c++) {
                cid[c] = data[body + 6 + 3 * c];
                ch[c] = data[body + 7 + 3 * c] >> 4;
                cv[c] = data[body + 7 + 3 * c] & 15;
                ctq[c] = data[body + 8 + 3 * c] & 3;
                if (ch[c] < 1 || ch[c] > 4 || cv[c] < 1 || cv[c] > 4) goto done;
                if (ch[c] > hmax) hmax = ch[c];
                if (cv[c] > vmax) vmax = cv[c];
            }
            int mcux = (width + 8 * hmax - 1) / (8 * hmax), mcuy = (height + 8 * vmax - 1) / (8 * vmax);
            for (int c = 0; c < ncomp; c++) {
                bw[c] = mcux * ch[c];
                bh[c] = mcuy * cv[c];
                dc[c] = calloc((size_t)bw[c] * (size_t)bh[c], sizeof(short));
                if (!dc[c]) { snprintf(message, JMSG_LENGTH_MAX, "out of memory"); goto done; }
            }
        } else if (marker == 0xC4) {
            size_t p = body;
            while (p + 17 <= end) {
                int tc = data[p] >> 4, th = data[p] & 15;
                int total = 0;
                for (int l = 1; l <= 16; l++) total += data[p + l];
                if (p + 17 + (size_t)total > end || total > 256) goto done;
                if (tc == 0 && th < 4) {
                    folio_dc_huffman *t = &tables[th];
                    memset(t, 0, sizeof *t);
                    t->defined = 1;
                    memcpy(t->values, data + p + 17, (size_t)total);
                    int code = 0, k = 0;
                    for (int l = 1; l <= 16; l++) {
                        int n = data[p + l];
                        t->valptr[l] = k;
                        t->mincode[l] = code;
                        code += n;
                        k += n;
                        t->maxcode[l] = n ? code - 1 : -1;
                        code <<= 1;
                    }
                }
                p += 17 + (size_t)total;
            }
        } else if (marker == 0xDB) {
            size_t p = body;
            while (p < end) {
                int pq = data[p] >> 4, tq = data[p] & 3;
                if (p + 1 + (pq ? 128 : 64) > end) goto done;
                quant[tq] = pq ? (data[p + 1] << 8) | data[p + 2] : data[p + 1];
                p += 1 + (pq ? 128 : 64);
            }
        } else if (marker == 0xDD) {
            if (end - body < 2) goto done;
            restart = (data[body] << 8) | data[body + 1];
        } else if (marker == 0xEE) {
            // Adobe: transform 0 means the three components are RGB, not YCbCr.
            if (end - body >= 12 && memcmp(data + body, "Adobe", 5) == 0) adobeRGB = data[body + 11] == 0;
        } else if (marker == 0xC0 || marker == 0xC1 || marker == 0xC3 || (marker >= 0xC5 && marker <= 0xCF && marker != 0xC8 && marker != 0xCC)) {
            goto done;  // Not a progressive Huffman frame.
        } else if (marker == 0xDA) {
            if (!dc[0] || end - body < 1) goto done;
            if (++scans > FOLIO_JPEG_MAX_SCANS) { status = 4; goto done; }
            if (deadline > 0 && folio_jpeg_now() > deadline) { status = 5; goto done; }
            int ns = data[body];
            if (ns < 1 || ns > ncomp || end - body < 4 + 2 * (size_t)ns) goto done;
            int comps[4], td[4];
            for (int i = 0; i < ns; i++) {
                comps[i] = -1;
                for (int c = 0; c < ncomp; c++) if (cid[c] == data[body + 1 + 2 * i]) comps[i] = c;
                td[i] = data[body + 2 + 2 * i] >> 4;
                if (comps[i] < 0 || td[i] > 3) goto done;
            }
            int ss = data[body + 1 + 2 * ns], ah = data[body + 3 + 2 * ns] >> 4, al = data[body + 3 + 2 * ns] & 15;
            at = end;
            if (ss == 0) {
                folio_dc_bits b = { data, size, at, 0, 0, 0 };
                int pred[4] = { 0, 0, 0, 0 };
                // One component: its blocks in raster order over the component's own size; several:
                // MCU by MCU, each component's blocks of the MCU in turn.
                int single = ns == 1;
                int c0 = comps[0];
                int cw = single ? ((width * ch[c0] + hmax - 1) / hmax + 7) / 8 : (width + 8 * hmax - 1) / (8 * hmax);
                int chh = single ? ((height * cv[c0] + vmax - 1) / vmax + 7) / 8 : (height + 8 * vmax - 1) / (8 * vmax);
                long units = (long)cw * chh, done_units = 0;
                for (long u = 0; u < units; u++) {
                    if (restart && done_units == restart) {
                        folio_dc_restart(&b);
                        memset(pred, 0, sizeof pred);
                        done_units = 0;
                    }
                    done_units++;
                    int ux = (int)(u % cw), uy = (int)(u / cw);
                    for (int i = 0; i < ns; i++) {
                        int c = comps[i];
                        int nh = single ? 1 : ch[c], nv = single ? 1 : cv[c];
                        for (int v = 0; v < nv; v++) for (int hh = 0; hh < nh; hh++) {
                            int x = single ? ux : ux * ch[c] + hh, y = single ? uy : uy * cv[c] + v;
                            short *cell = &dc[c][(size_t)y * (size_t)bw[c] + (size_t)x];
                            if (ah == 0) {
                                if (!tables[td[i]].defined) goto done;
                                int t = folio_dc_decode(&b, &tables[td[i]]);
                                if (t < 0 || t > 15) goto done;
                                int diff = t ? folio_dc_receive(&b, t) : 0;
                                if (t && diff < (1 << (t - 1))) diff -= (1 << t) - 1;
                                pred[i] += diff;
                                *cell = (short)(pred[i] * (1 << al));
                            } else if (folio_dc_bit(&b)) {
                                *cell = (short)(*cell | (1 << al));
                            }
                        }
                    }
                }
                at = b.at;
            }
            // To the next marker that is not a restart: the rest of this scan is passed over.
            while (at + 1 < size && !(data[at] == 0xFF && data[at + 1] != 0x00 && (data[at + 1] < 0xD0 || data[at + 1] > 0xD7))) at++;
            continue;
        }
        at = end;
    }
    if (!dc[0]) goto done;
    if ((width + 7) / 8 != w || (height + 7) / 8 != h) goto done;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int s[3];
            for (int c = 0; c < ncomp; c++) {
                int bx = x * ch[c] / hmax, by = y * cv[c] / vmax;
                int value = ((dc[c][(size_t)by * (size_t)bw[c] + (size_t)bx] * quant[ctq[c]] + 4) >> 3) + 128;
                s[c] = value < 0 ? 0 : value > 255 ? 255 : value;
            }
            unsigned char *p = rgba + ((size_t)y * (size_t)w + (size_t)x) * 4;
            if (ncomp == 1) {
                p[0] = p[1] = p[2] = (unsigned char)s[0];
            } else if (adobeRGB) {
                p[0] = (unsigned char)s[0]; p[1] = (unsigned char)s[1]; p[2] = (unsigned char)s[2];
            } else {
                double yy = s[0], cb = s[1] - 128.0, cr = s[2] - 128.0;
                double rgb[3] = { yy + 1.402 * cr, yy - 0.344136 * cb - 0.714136 * cr, yy + 1.772 * cb };
                for (int k = 0; k < 3; k++) p[k] = (unsigned char)(rgb[k] < 0 ? 0 : rgb[k] > 255 ? 255 : rgb[k] + 0.5);
            }
            p[3] = 255;
        }
    }
    status = 0;
done:
    for (int c = 0; c < 4; c++) free(dc[c]);
    return status;
}
