// A MOBI or KF8 book's contents, read from its NCX index (an INDX record: `fb_read_index`) into
// entries by place in the text, nested by depth, labelled from its CNCX records.
// Does not: read the text or resolve the places (mobi.c writes them as anchors).
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One NCX entry: where in the text it points, its depth and where its label lies.
typedef struct { uint32_t offset, depth, label; int order; } ncx_entry;

static int by_offset(const void *a, const void *b) {
    const ncx_entry *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/// The NCX's entries as they are read, and a KF8 book's parts, whose positions its entries give
/// (tag 6) where a MOBI 6 book's give offsets into the text (tag 1).
typedef struct { ncx_entry *entries; int count, capacity; const fb_kf8 *kf8; } ncx_reading;

static void use_ncx_entry(fz_context *ctx, const fb_index_entry *e, void *user) {
    ncx_reading *r = user;
    uint32_t offset = e->count[1] ? e->values[1][0] : UINT32_MAX;
    if (!e->count[1] && e->count[6] == 2 && r->kf8 && e->values[6][0] < (uint32_t)r->kf8->frag_count) {
        const fb_kf8_fragment *f = r->kf8->frags + e->values[6][0];
        if (e->values[6][1] <= UINT32_MAX - f->insert) offset = f->insert + e->values[6][1];
    }
    if (offset == UINT32_MAX || !e->count[3] || r->count >= fb_outline_headings) return;
    r->entries = fb_grow(ctx, r->entries, r->count, &r->capacity, sizeof *r->entries);
    r->entries[r->count] = (ncx_entry){offset, e->count[4] ? e->values[4][0] : 0, e->values[3][0], r->count};
    r->count++;
}

/// The label at `offset` of the index's CNCX records (the first at record `cncx`, `cncx_count`
/// of them; an offset's top half names the record), as UTF-8.
static void ncx_label(const palm_db *db, uint32_t cncx, uint32_t cncx_count, uint32_t encoding, uint32_t offset, char *out,
                      size_t size) {
    out[0] = 0;
    uint32_t k = offset >> 16;
    if (k >= cncx_count || cncx + k >= db->count) return;
    size_t at = fb_record_at(db, cncx + k), end = fb_record_end(db, cncx + k), p = at + (offset & 0xffff);
    if (p >= end) return;
    size_t len = fb_varlen(db->d, &p, end);
    if (len > end - p) len = end - p;
    if (encoding == 65001) {
        fb_copy_text(out, size, db->d + p, len);
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < size; i++)
        o += (size_t)fz_runetochar(out + o, encoding == 1252 ? fz_unicode_from_windows_1252[db->d[p + i]] : db->d[p + i]);
    out[o] = 0;
}

/// The entries of the NCX index whose first record is `ncx`, in the order of the text, each as a
/// place in the book's one chapter (`#fileposN`, N where it points in the text; in a KF8 book's
/// parts put together, `kf8`).
void fb_read_ncx(fz_context *ctx, const palm_db *db, uint32_t ncx, const fb_kf8 *kf8, struct page_marks *contents) {
    ncx_reading r = {.kf8 = kf8};
    fz_var(r);
    fz_try(ctx) {
        uint32_t cncx_count, encoding;
        int records = fb_read_index(ctx, db, ncx, use_ncx_entry, &r, &cncx_count, &encoding);
        if (records < 0) break;
        qsort(r.entries, (size_t)r.count, sizeof *r.entries, by_offset);
        uint32_t cncx = ncx + (uint32_t)records + 1, depth = 0;
        int marks = 0;
        for (int i = 0; i < r.count; i++) {
            char label[256], target[32];
            ncx_label(db, cncx, cncx_count, encoding, r.entries[i].label, label, sizeof label);
            if (!label[0]) continue;
            // No deeper than one below the entry before (a child listed before its parent).
            depth = r.entries[i].depth < depth + 1 ? r.entries[i].depth : depth + 1;
            if (depth > 31) depth = 31;
            snprintf(target, sizeof target, "#filepos%u", r.entries[i].offset);
            contents->items = fb_grow(ctx, contents->items, contents->count, &marks, sizeof *contents->items);
            contents->items[contents->count++] = (struct page_mark){0, strdup(target), strdup(label), -2, 0, (int)depth};
        }
    }
    fz_always(ctx) free(r.entries);
    fz_catch(ctx) fz_rethrow(ctx);
}
