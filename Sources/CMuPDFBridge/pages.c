// Pages: page numbers by chapter, layout and counting, bounds, drawing, characters and words.
// Does not open documents (document.c) or follow links and outlines (links.c, outline.c).
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: page numbers

/// Counts chapters' pages (laying them out, as MuPDF does to number a page) until page `index`
/// or chapter `chapter` is counted, or the book ends. Under the document's mutex.
static void count_through(fz_context *ctx, folio_mu_doc *d, int index, int chapter) {
    if (!d->starts) {
        d->chapters = fz_count_chapters(ctx, d->doc);
        d->starts = fz_malloc(ctx, 16 * sizeof *d->starts);
        d->starts_capacity = 16;
        d->starts[0] = 0;
        d->counted = 0;
    }
    while (d->counted < d->chapters && (d->starts[d->counted] <= index || d->counted <= chapter)) {
        int n = fz_count_chapter_pages(ctx, d->doc, d->counted);
        if (d->counted + 1 >= d->starts_capacity) {
            d->starts = fz_realloc(ctx, d->starts, (size_t)d->starts_capacity * 2 * sizeof *d->starts);
            d->starts_capacity *= 2;
        }
        d->starts[d->counted + 1] = d->starts[d->counted] + (n > 0 ? n : 0);
        d->counted++;
    }
}

/// Page `index`'s chapter and place in it (MuPDF's fz_location_from_page_number, without its
/// walk of the chapters for each chapter); throws for a page past the end.
fz_location fb_page_location(fz_context *ctx, folio_mu_doc *d, int index) {
    count_through(ctx, d, index, -1);
    if (index < 0 || index >= d->starts[d->counted]) fz_throw(ctx, FZ_ERROR_GENERIC, "invalid page number: %d", index + 1);
    // The last chapter starting at or before the page (chapters of no pages are passed over).
    int lo = 0, hi = d->counted - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (d->starts[mid] <= index) lo = mid; else hi = mid - 1;
    }
    return fz_make_location(lo, index - d->starts[lo]);
}

/// The page number of `at` (MuPDF's fz_page_number_from_location), or -1.
int fb_page_number(fz_context *ctx, folio_mu_doc *d, fz_location at) {
    if (at.chapter < 0) return -1;
    count_through(ctx, d, -1, at.chapter);
    return at.chapter < d->counted ? d->starts[at.chapter] + at.page : -1;
}

/// Page `index`, loaded by its chapter and place.
fz_page *fb_load_page(fz_context *ctx, folio_mu_doc *d, int index) {
    fz_location at = fb_page_location(ctx, d, index);
    return fz_load_chapter_page(ctx, d->doc, at.chapter, at.page);
}

// MARK: layout and counting

size_t folio_mu_chapter_text(folio_mu_doc *d, int chapter) {
    return chapter >= 0 && chapter < d->spine_count ? d->spine_text[chapter] : 0;
}

int folio_mu_spine_count(folio_mu_doc *d) { return d->spine_count; }

int folio_mu_layout(folio_mu_doc *d, float w, float h, float em, folio_mu_error *error) {
    int status = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        fz_layout_document(d->ctx, d->doc, w, h, em);
        d->page_height = h;
        d->counted = 0;
        for (int i = 0; i < d->printed.count; i++) d->printed.items[i].page = -2;
        for (int i = 0; i < d->heads.count; i++) d->heads.items[i].page = -2;
        status = 0;
    }
    fz_catch(d->ctx) fb_fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return status;
}

int folio_mu_count_chapters(folio_mu_doc *d, folio_mu_error *error) {
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_count_chapters(d->ctx, d->doc);
    fz_catch(d->ctx) fb_fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return n;
}

int folio_mu_count_chapter_pages(folio_mu_doc *d, int chapter, folio_mu_error *error) {
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_count_chapter_pages(d->ctx, d->doc, chapter);
    fz_catch(d->ctx) fb_fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return n;
}

int folio_mu_count_pages(folio_mu_doc *d, folio_mu_error *error) {
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_count_pages(d->ctx, d->doc);
    fz_catch(d->ctx) fb_fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return n;
}

char *folio_mu_metadata(folio_mu_doc *d, const char *key) {
    char buf[1024];
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_lookup_metadata(d->ctx, d->doc, key, buf, sizeof buf);
    fz_catch(d->ctx) n = -1;
    pthread_mutex_unlock(&d->mutex);
    return n > 1 ? strdup(buf) : NULL;
}

int folio_mu_bounds(folio_mu_doc *d, int index, float box[4], folio_mu_error *error) {
    int status = -1;
    fz_page *page = NULL;
    fz_var(page);
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        page = fb_load_page(d->ctx, d, index);
        fz_rect r = fz_bound_page(d->ctx, page);
        box[0] = r.x0; box[1] = r.y0; box[2] = r.x1; box[3] = r.y1;
        status = 0;
    }
    fz_always(d->ctx) fz_drop_page(d->ctx, page);
    fz_catch(d->ctx) fb_fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return status;
}

struct folio_mu_cookie { fz_cookie cookie; };

folio_mu_cookie *folio_mu_new_cookie(void) { return calloc(1, sizeof(folio_mu_cookie)); }
void folio_mu_abort(folio_mu_cookie *c) { c->cookie.abort = 1; }
void folio_mu_drop_cookie(folio_mu_cookie *c) { free(c); }

/// Page `index` recorded as a display list (under the document's mutex), with its box; the
/// recording stops when `cookie` is aborted (NULL then).
static fz_display_list *record(folio_mu_doc *d, fz_context *ctx, int index, fz_rect *bounds, fz_cookie *cookie,
                               folio_mu_error *error) {
    fz_display_list *list = NULL;
    fz_page *page = NULL;
    fz_device *dev = NULL;
    fz_var(page); fz_var(list); fz_var(dev);
    pthread_mutex_lock(&d->mutex);
    fz_try(ctx) {
        page = fb_load_page(ctx, d, index);
        *bounds = fz_bound_page(ctx, page);
        list = fz_new_display_list(ctx, *bounds);
        dev = fz_new_list_device(ctx, list);
        fz_run_page(ctx, page, dev, fz_identity, cookie);
        fz_close_device(ctx, dev);
    }
    fz_always(ctx) {
        fz_drop_device(ctx, dev);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) {
        fb_fail(error, fz_caught_message(ctx));
        fz_drop_display_list(ctx, list);
        list = NULL;
    }
    pthread_mutex_unlock(&d->mutex);
    if (list && cookie && cookie->abort) {
        fz_drop_display_list(ctx, list);
        list = NULL;
    }
    return list;
}

int folio_mu_render(folio_mu_doc *d, int index, float sx, float sy, float tx, float ty,
                    int width, int height, unsigned char *rgba, unsigned int paper, const folio_mu_furniture *furniture,
                    folio_mu_cookie *stop, folio_mu_error *error) {
    // Drawn without alpha (MuPDF's opaque painters: quicker than blending into an alpha
    // channel) into the first three quarters of the buffer, on white, then spread to RGBA in
    // place, printed on the paper: each colour times the paper's, as ink on paper is. Drawn on
    // the paper instead, a picture's white stood on it as a white box (MuPDF paints an SVG
    // picture's transparent parts white: Standard Ebooks' title pages and logos).
    size_t count = (size_t)width * height;
    memset(rgba, 255, count * 3);
    fz_context *ctx = fb_thread_context(d, error);
    if (!ctx) return -1;
    fz_cookie *cookie = stop ? &stop->cookie : NULL;
    fz_rect bounds;
    fz_display_list *list = record(d, ctx, index, &bounds, cookie, error);
    int status = list ? 0 : (cookie && cookie->abort ? -2 : -1);
    fz_pixmap *pix = NULL;
    fz_device *dev = NULL;
    fz_var(pix); fz_var(dev);
    if (list) {
        fz_try(ctx) {
            pix = fz_new_pixmap_with_bbox_and_data(ctx, fz_device_rgb(ctx), fz_make_irect(0, 0, width, height), NULL, 0, rgba);
            fz_matrix ctm = fz_make_matrix(sx, 0, 0, sy, tx - sx * bounds.x0, ty - sy * bounds.y0);
            // The page's content is drawn between its top and its bottom (and 2 points over, for
            // a glyph rising above its line): MuPDF draws the rules and ground of a box that
            // goes on from the page before, or to the next, where the box lies, above or below
            // the page, over its running head or folio (a ruled table's rows struck them through).
            fz_irect height_of_page = fz_irect_from_rect(fz_make_rect(0, ty - 2 * sy, width, ty + sy * (bounds.y1 - bounds.y0 + 2)));
            dev = fz_new_draw_device_with_bbox(ctx, ctm, pix, &height_of_page);
            // The list's nodes are culled against this area in the page's own space (the device
            // does the transform): the pixmap's rectangle taken back there, not the pixmap's
            // pixels read as points (a small render kept only the page's top-left points).
            fz_rect area = fz_transform_rect(fz_make_rect(0, 0, width, height), fz_invert_matrix(ctm));
            fz_run_display_list(ctx, list, dev, fz_identity, area, cookie);
            fz_close_device(ctx, dev);
            if (furniture) {
                fz_drop_device(ctx, dev);
                dev = NULL;
                dev = fz_new_draw_device(ctx, ctm, pix);
                // The draw device maps page points to pixels itself: the lines are given in the page's points.
                folio_draw_furniture(ctx, dev, fz_translate(bounds.x0, bounds.y0), furniture);
                fz_close_device(ctx, dev);
            }
        }
        fz_always(ctx) {
            fz_drop_device(ctx, dev);
            fz_drop_pixmap(ctx, pix);
            fz_drop_display_list(ctx, list);
        }
        fz_catch(ctx) { fb_fail(error, fz_caught_message(ctx)); status = -1; }
        if (status == 0 && cookie && cookie->abort) status = -2;
    }
    fz_drop_context(ctx);
    // From the last pixel back: pixel i's RGBA never overwrites the RGB of a pixel before it.
    const unsigned pr = paper >> 16 & 255, pg = paper >> 8 & 255, pb = paper & 255;
    for (size_t i = count; i-- > 0;) {
        unsigned r = rgba[3 * i], g = rgba[3 * i + 1], b = rgba[3 * i + 2];
        rgba[4 * i] = (unsigned char)((r * pr + 127) / 255);
        rgba[4 * i + 1] = (unsigned char)((g * pg + 127) / 255);
        rgba[4 * i + 2] = (unsigned char)((b * pb + 127) / 255);
        rgba[4 * i + 3] = 255;
    }
    return status;
}

// MARK: places

int folio_mu_chapter_of(folio_mu_doc *d, int index, int *page_in_chapter, int *chapter_pages) {
    int chapter = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        fz_location loc = fb_page_location(d->ctx, d, index);
        *page_in_chapter = loc.page;
        *chapter_pages = fz_count_chapter_pages(d->ctx, d->doc, loc.chapter);
        chapter = loc.chapter;
    }
    fz_catch(d->ctx) chapter = -1;
    pthread_mutex_unlock(&d->mutex);
    return chapter;
}

int folio_mu_chapter_page(folio_mu_doc *d, int chapter, int page) {
    int number = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        int n = fz_count_chapter_pages(d->ctx, d->doc, chapter);
        if (n > 0) number = fb_page_number(d->ctx, d, fz_make_location(chapter, page < 0 ? 0 : page >= n ? n - 1 : page));
    }
    fz_catch(d->ctx) number = -1;
    pthread_mutex_unlock(&d->mutex);
    return number;
}

/// A device that counts the characters drawn, white space and hyphens left out: lines break at
/// white space, and at a soft hyphen MuPDF draws a hyphen only where the line breaks.
typedef struct { fz_device super; int count; } character_counter;

static void count_characters(character_counter *counter, const fz_text *text) {
    for (fz_text_span *span = text->head; span; span = span->next)
        for (int i = 0; i < span->len; i++) {
            int c = span->items[i].ucs;
            if (c > ' ' && c != 0xA0 && c != 0x3000 && c != '-' && c != 0xAD && c != 0x2010) counter->count++;
        }
}

static void counter_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_colorspace *cs,
                              const float *color, float alpha, fz_color_params params) {
    (void)ctx; (void)ctm; (void)cs; (void)color; (void)alpha; (void)params;
    count_characters((character_counter *)dev, text);
}

static void counter_ignore_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm) {
    (void)ctx; (void)ctm;
    count_characters((character_counter *)dev, text);
}

int folio_mu_page_characters(folio_mu_doc *d, int index, folio_mu_error *error) {
    fz_context *ctx = d->ctx;
    int count = -1;
    fz_page *page = NULL;
    character_counter *counter = NULL;
    fz_var(page); fz_var(counter);
    pthread_mutex_lock(&d->mutex);
    fz_try(ctx) {
        page = fb_load_page(ctx, d, index);
        counter = fz_new_derived_device(ctx, character_counter);
        counter->super.fill_text = counter_fill_text;
        counter->super.ignore_text = counter_ignore_text;
        fz_run_page(ctx, page, &counter->super, fz_identity, NULL);
        fz_close_device(ctx, &counter->super);
        count = counter->count;
    }
    fz_always(ctx) {
        fz_drop_device(ctx, counter ? &counter->super : NULL);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) fb_fail(error, fz_caught_message(ctx));
    pthread_mutex_unlock(&d->mutex);
    return count;
}

// MARK: words

/// Appends `*count` + 1 items of `size` bytes to a malloc'd array (capacity doubling).
void *fb_grow(fz_context *ctx, void *array, int count, int *capacity, size_t size) {
    if (count < *capacity) return array;
    *capacity = *capacity ? *capacity * 2 : 64;
    void *bigger = realloc(array, (size_t)*capacity * size);
    if (!bigger) fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory");
    return bigger;
}

/// The page's words: the page recorded under the document's mutex (`record`), its text read
/// from the recording on this thread's own context, so searches read pages in parallel.
int folio_mu_words(folio_mu_doc *d, int index, folio_mu_word **out, folio_mu_error *error) {
    *out = NULL;
    fz_context *ctx = fb_thread_context(d, error);
    if (!ctx) return -1;
    fz_rect bounds;
    fz_display_list *list = record(d, ctx, index, &bounds, NULL, error);
    if (!list) {
        fz_drop_context(ctx);
        return -1;
    }
    folio_mu_word *words = NULL;
    int count = 0, capacity = 0;
    fz_stext_page *text = NULL;
    fz_var(text); fz_var(words); fz_var(count); fz_var(capacity);
    char buf[512];
    int len = 0;
    fz_rect box = fz_empty_rect;
    fz_try(ctx) {
        text = fz_new_stext_page_from_display_list(ctx, list, NULL);
        for (fz_stext_block *b = text->first_block; b; b = b->next) {
            if (b->type != FZ_STEXT_BLOCK_TEXT) continue;
            for (fz_stext_line *l = b->u.t.first_line; l; l = l->next) {
                for (fz_stext_char *c = l->first_char; ; c = c->next) {
                    int end = !c || c->c == ' ' || c->c == '\t' || c->c == 0xA0;
                    if (end && len > 0) {
                        words = fb_grow(ctx, words, count, &capacity, sizeof *words);
                        buf[len] = 0;
                        words[count] = (folio_mu_word){ strdup(buf), box.x0, box.y0, box.x1, box.y1 };
                        count++;
                        len = 0;
                        box = fz_empty_rect;
                    }
                    if (!c) break;
                    if (end || len + FZ_UTFMAX + 1 >= (int)sizeof buf) continue;
                    len += fz_runetochar(buf + len, c->c);
                    box = fz_union_rect(box, fz_rect_from_quad(c->quad));
                }
            }
        }
    }
    fz_always(ctx) {
        fz_drop_stext_page(ctx, text);
        fz_drop_display_list(ctx, list);
    }
    fz_catch(ctx) {
        fb_fail(error, fz_caught_message(ctx));
        folio_mu_free_words(words, count);
        words = NULL;
        count = -1;
    }
    fz_drop_context(ctx);
    *out = words;
    return count;
}

void folio_mu_free_words(folio_mu_word *words, int count) {
    for (int i = 0; i < count; i++) free(words[i].text);
    free(words);
}
