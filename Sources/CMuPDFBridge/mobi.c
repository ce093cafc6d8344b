// A MOBI (a Palm database) read before MuPDF opens it: its header's title, author and language,
// its record table checked, and its prepared copy, which MuPDF opens in its place: the text it
// would read, in UTF-8, with the cover (EXTH 201) as its first page, `filepos` links made links
// it follows, hyphenated (typeset.c), with the book's pictures; and the contents of its NCX
// index. Does not read KF8 (AZW3) sections: MuPDF reads the MOBI 6 text.
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/// Copies `n` bytes of text into `out` (of `size`), cut at a character boundary.
static void copy_text(char *out, size_t size, const unsigned char *text, size_t n) {
    if (n >= size) {
        n = size - 1;
        while (n > 0 && (text[n] & 0xC0) == 0x80) n--;  // not inside a UTF-8 sequence
    }
    memcpy(out, text, n);
    out[n] = 0;
}

/// The value of EXTH record `type` of the first record (at `r0` of the `n` bytes of `d`), or NULL;
/// `*len` its bytes. A damaged header gives nothing.
static const unsigned char *exth_value(const unsigned char *d, size_t n, size_t r0, uint32_t type, size_t *len) {
    if (r0 > n || n - r0 < 132) return NULL;
    size_t header = be32(d + r0 + 20);
    if (!(be32(d + r0 + 128) & 0x40) || header > n - r0 - 16) return NULL;
    size_t e = r0 + 16 + header;
    if (n - e < 12 || memcmp(d + e, "EXTH", 4)) return NULL;
    size_t p = e + 12, end = e + be32(d + e + 4);
    if (end > n || end < e) end = n;
    for (uint32_t i = 0, count = be32(d + e + 8); i < count && p + 8 <= end; i++) {
        uint32_t at_type = be32(d + p), at_len = be32(d + p + 4);
        if (at_len < 8 || at_len > end - p) break;
        if (at_type == type) {
            *len = at_len - 8;
            return d + p + 8;
        }
        p += at_len;
    }
    return NULL;
}

void fb_read_mobi_header(fz_context *ctx, const char *path, folio_mu_info *info) {
    enum { limit = 1 << 20 };
    fz_stream *file = NULL;
    unsigned char *d = NULL;
    fz_var(file); fz_var(d);
    fz_try(ctx) {
        file = fz_open_file(ctx, path);
        d = fz_malloc(ctx, limit);
        size_t n = fz_read(ctx, file, d, limit), len;
        if (n < 82 || memcmp(d + 60, "BOOKMOBI", 8)) break;
        size_t r0 = be32(d + 78);
        if (r0 > n || n - r0 < 132 || memcmp(d + r0 + 16, "MOBI", 4)) break;
        size_t name_at = r0 + be32(d + r0 + 84), name_len = be32(d + r0 + 88);
        if (name_at <= n && name_len <= n - name_at) copy_text(info->mobi_title, sizeof info->mobi_title, d + name_at, name_len);
        const unsigned char *v;
        if ((v = exth_value(d, n, r0, 503, &len))) copy_text(info->mobi_title, sizeof info->mobi_title, v, len);
        if ((v = exth_value(d, n, r0, 100, &len))) copy_text(info->mobi_author, sizeof info->mobi_author, v, len);
        if ((v = exth_value(d, n, r0, 524, &len))) copy_text(info->language, sizeof info->language, v, len);
    }
    fz_always(ctx) {
        fz_free(ctx, d);
        fz_drop_stream(ctx, file);
    }
    fz_catch(ctx) { /* unreadable: MuPDF says why when it opens the file */ }
}

int fb_palm_database(const char *path, const unsigned char *d, size_t n) {
    const char *dot = strrchr(path, '.');
    if (dot && (!fz_strcasecmp(dot, ".mobi") || !fz_strcasecmp(dot, ".prc") || !fz_strcasecmp(dot, ".pdb")
                || !fz_strcasecmp(dot, ".azw") || !fz_strcasecmp(dot, ".azw3")))
        return 1;
    return n >= 68 && (!memcmp(d + 60, "BOOKMOBI", 8) || !memcmp(d + 60, "TEXtREAd", 8));
}

// MARK: the database

/// A Palm database's records, its table checked, and what its first record's PalmDOC and MOBI
/// headers say, read where MuPDF reads them (mobi.c: from the record's start, past its end if
/// need be).
typedef struct {
    const unsigned char *d;
    size_t n;
    uint32_t count;
    unsigned compression;  ///< 1 none, 2 PalmDOC (MuPDF refuses others)
    uint32_t text_length, text_records;
    size_t r0;  ///< where the first record starts
    int mobi;   ///< it has a MOBI header
} palm_db;

static size_t record_at(const palm_db *db, uint32_t i) { return be32(db->d + 78 + 8 * i); }
static size_t record_end(const palm_db *db, uint32_t i) { return i + 1 < db->count ? record_at(db, i + 1) : db->n; }

/// Reads the `n` bytes of `d` as a Palm database: 0, with the reason in `why` (of `size`), when a
/// record lies outside the file or before the one before it, which MuPDF would follow unchecked.
static int palm_open(const unsigned char *d, size_t n, palm_db *db, char *why, size_t size) {
    memset(db, 0, sizeof *db);
    if (n < 78) return 0;  // MuPDF finds it cut short
    uint32_t count = be16(d + 76), previous = 0;
    if (78 + 8 * (size_t)count > n) {
        snprintf(why, size, "its record table (%u records) runs past the end of the file; not opened", count);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t at = be32(d + 78 + 8 * i);
        if (at > n) {
            snprintf(why, size, "record %u starts at byte %u, past the end of the file (%zu bytes); not opened", i, at, n);
            return 0;
        }
        if (at < previous) {
            snprintf(why, size, "record %u starts before record %u; not opened", i, i - 1);
            return 0;
        }
        previous = at;
    }
    *db = (palm_db){.d = d, .n = n, .count = count, .r0 = count ? be32(d + 78) : n};
    if (count >= 2 && n - db->r0 >= 16) {
        db->compression = be16(d + db->r0);
        db->text_length = be32(d + db->r0 + 4);
        db->text_records = be16(d + db->r0 + 8);
        db->mobi = n - db->r0 >= 32 && !memcmp(d + db->r0 + 16, "MOBI", 4);
    }
    return 1;
}

/// PalmDOC-decompresses the bytes from `p` into `out` until it holds `end` bytes, as MuPDF
/// does (mobi.c: past the record's end if need be).
static void palmdoc(fz_context *ctx, fz_buffer *out, const unsigned char *d, size_t n, size_t p, size_t end) {
    while (out->len < end && p < n) {
        unsigned c = d[p++];
        if (c >= 1 && c <= 8) {
            size_t k = c < n - p ? c : n - p;
            fz_append_data(ctx, out, d + p, k);
            p += k;
        } else if (c <= 0x7f) {
            fz_append_byte(ctx, out, (int)c);
        } else if (c <= 0xbf) {
            if (p >= n) break;
            unsigned x = c << 8 | d[p++];
            size_t distance = x >> 3 & 0x7ff, length = (x & 7) + 3;
            if (distance > 0 && distance <= out->len)
                for (size_t k = 0; k < length; k++) fz_append_byte(ctx, out, out->data[out->len - distance]);
        } else {
            fz_append_byte(ctx, out, ' ');
            fz_append_byte(ctx, out, (int)(c ^ 0x80));
        }
    }
}

/// The text MuPDF reads from the database, in its own encoding: each text record gives 4096
/// bytes, or what is left of the text's length.
static void palm_text(fz_context *ctx, const palm_db *db, fz_buffer *out) {
    for (uint32_t i = 1; i <= db->text_records && i < db->count; i++) {
        uint32_t remain = db->text_length - (uint32_t)out->len;
        size_t p = record_at(db, i), end = out->len + (remain < 4096 ? remain : 4096);
        if (db->compression == 2) palmdoc(ctx, out, db->d, db->n, p, end);
        else fz_append_data(ctx, out, db->d + p, end - out->len < db->n - p ? end - out->len : db->n - p);
    }
}

/// Whether Folio reads the database through a copy it prepares (`folio_prepare_mobi`): a MOBI 6
/// book with its MOBI header whole, in an encoding MuPDF reads. Else MuPDF reads it as it is.
static int preparable(const palm_db *db) {
    if (!db->mobi || db->count < 2 || record_end(db, 0) - db->r0 < 248 || memcmp(db->d + 60, "BOOKMOBI", 8)) return 0;
    if (db->compression != 1 && db->compression != 2) return 0;
    uint32_t encoding = be32(db->d + db->r0 + 28);
    return encoding == 1252 || encoding == 65001 || encoding == 0;
}

void fb_check_mobi(fz_context *ctx, fz_buffer *file, folio_mu_info *info) {
    unsigned char *d;
    size_t n = fz_buffer_storage(ctx, file, &d);
    palm_db db;
    if (!palm_open(d, n, &db, info->refused, sizeof info->refused)) return;
    if (db.compression != 1 && db.compression != 2) return;  // MuPDF refuses it
    fz_buffer *out = fz_new_buffer(ctx, 1 << 16);
    fz_try(ctx) {
        palm_text(ctx, &db, out);
        // MuPDF escapes the text of a plain-text database (TEXtREAd, or of an unknown type).
        int markup = !memcmp(d + 60, "BOOKMOBI", 8) || (out->len > 6 && !fz_strncasecmp((const char *)out->data, "<html>", 6));
        if (markup && fb_too_deep(ctx, out, read_either)) snprintf(info->too_deep, sizeof info->too_deep, "the text");
        else if (markup && !preparable(&db) && fb_holds_empty_end_tag(out->data, out->len))
            snprintf(info->refused, sizeof info->refused, "%s", fb_empty_end_tag_refusal);
    }
    fz_always(ctx) fz_drop_buffer(ctx, out);
    fz_catch(ctx) fz_rethrow(ctx);
}

// MARK: the contents (the NCX index)

/// A forward-encoded integer of an index entry: 7 bits a byte, most significant first, its last
/// byte's top bit set, at most 4 bytes. `*p` moves past it, never beyond `end`.
static uint32_t varlen(const unsigned char *d, size_t *p, size_t end) {
    uint32_t v = 0;
    for (int k = 0; k < 4 && *p < end; k++) {
        unsigned b = d[(*p)++];
        v = v << 7 | (b & 0x7f);
        if (b & 0x80) break;
    }
    return v;
}

/// A tag of an index's TAGX table: how many values it has, its bits in the control byte, and
/// whether it ends a control byte.
typedef struct { unsigned char tag, values, mask, end; } tagx_entry;

/// One NCX entry: where in the text it points, its depth and where its label lies.
typedef struct { uint32_t offset, depth, label; int order; } ncx_entry;

static int by_offset(const void *a, const void *b) {
    const ncx_entry *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/// The first value of tags 1 (offset), 3 (label) and 4 (depth) of the entry whose control
/// bytes start at `start` of record `rec` (`len` bytes), as `tags` lay them out.
static int read_entry(const unsigned char *rec, size_t len, size_t start, uint32_t control_bytes, const tagx_entry *tags,
                      int tag_count, ncx_entry *e) {
    struct { unsigned char tag, values; uint32_t count, bytes; } found[64];
    int nfound = 0, control = 0;
    size_t pos = start + control_bytes;
    for (int t = 0; t < tag_count; t++) {
        if (tags[t].end & 1) { control++; continue; }
        if (control >= (int)control_bytes || !tags[t].mask) break;
        unsigned mask = tags[t].mask, v = rec[start + control] & mask, shift = 0;
        if (!v) continue;
        while (!(mask >> shift & 1)) shift++;
        found[nfound].tag = tags[t].tag;
        found[nfound].values = tags[t].values;
        found[nfound].bytes = v == mask && (mask & (mask - 1)) ? varlen(rec, &pos, len) : 0;
        found[nfound].count = found[nfound].bytes ? 0 : v >> shift;
        nfound++;
    }
    *e = (ncx_entry){UINT32_MAX, 0, UINT32_MAX, 0};
    for (int f = 0; f < nfound; f++) {
        uint32_t first = 0, values = 0;
        if (found[f].bytes) {
            for (size_t from = pos; pos - from < found[f].bytes && pos < len; values++) {
                uint32_t v = varlen(rec, &pos, len);
                if (!values) first = v;
            }
        } else {
            for (uint32_t k = 0; k < found[f].count * found[f].values && pos < len; k++, values++) {
                uint32_t v = varlen(rec, &pos, len);
                if (!values) first = v;
            }
        }
        if (!values) continue;
        if (found[f].tag == 1) e->offset = first;
        if (found[f].tag == 3) e->label = first;
        if (found[f].tag == 4) e->depth = first;
    }
    return e->offset != UINT32_MAX && e->label != UINT32_MAX;
}

/// The label at `offset` of the index's CNCX records (the first at record `cncx`, `cncx_count`
/// of them; an offset's top half names the record), as UTF-8.
static void ncx_label(const palm_db *db, uint32_t cncx, uint32_t cncx_count, uint32_t encoding, uint32_t offset, char *out,
                      size_t size) {
    out[0] = 0;
    uint32_t k = offset >> 16;
    if (k >= cncx_count || cncx + k >= db->count) return;
    size_t at = record_at(db, cncx + k), end = record_end(db, cncx + k), p = at + (offset & 0xffff);
    if (p >= end) return;
    size_t len = varlen(db->d, &p, end);
    if (len > end - p) len = end - p;
    if (encoding == 65001) {
        copy_text(out, size, db->d + p, len);
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < size; i++)
        o += (size_t)fz_runetochar(out + o, encoding == 1252 ? fz_unicode_from_windows_1252[db->d[p + i]] : db->d[p + i]);
    out[o] = 0;
}

/// The entries of the NCX index whose first record is `ncx`, in the order of the text, each as a
/// place in the book's one chapter (`#fileposN`, N where it points in the text).
static void read_ncx(fz_context *ctx, const palm_db *db, uint32_t ncx, struct page_marks *contents) {
    ncx_entry *entries = NULL;
    int count = 0, capacity = 0;
    fz_var(entries); fz_var(count); fz_var(capacity);
    if (ncx >= db->count) return;
    const unsigned char *r = db->d + record_at(db, ncx);
    size_t rn = record_end(db, ncx) - record_at(db, ncx);
    if (rn < 56 || memcmp(r, "INDX", 4)) return;
    uint32_t header = be32(r + 4), records = be32(r + 24), encoding = be32(r + 28), cncx_count = be32(r + 52);
    if (header > rn - 12 || memcmp(r + header, "TAGX", 4) || records > db->count) return;
    uint32_t tagx_len = be32(r + header + 4), control_bytes = be32(r + header + 8);
    if (tagx_len < 12 || tagx_len > rn - header || control_bytes > 8) return;
    tagx_entry tags[64];
    int tag_count = 0;
    for (size_t i = 12; i + 4 <= tagx_len && tag_count < 64; i += 4) {
        const unsigned char *t = r + header + i;
        tags[tag_count++] = (tagx_entry){t[0], t[1], t[2], t[3]};
    }
    fz_try(ctx) {
        for (uint32_t k = 1; k <= records && ncx + k < db->count; k++) {
            const unsigned char *rec = db->d + record_at(db, ncx + k);
            size_t len = record_end(db, ncx + k) - record_at(db, ncx + k);
            if (len < 28 || memcmp(rec, "INDX", 4)) continue;
            uint32_t idxt = be32(rec + 20), here = be32(rec + 24);
            if (idxt > len - 4 || memcmp(rec + idxt, "IDXT", 4)) continue;
            for (uint32_t j = 0; j < here && idxt + 6 + 2 * (size_t)j <= len && count < folio_mu_max_entries; j++) {
                size_t at = be16(rec + idxt + 4 + 2 * j);
                if (at >= len || at + 1 + rec[at] + control_bytes > len) continue;
                ncx_entry e;
                if (!read_entry(rec, len, at + 1 + rec[at], control_bytes, tags, tag_count, &e)) continue;
                e.order = count;
                entries = fb_grow(ctx, entries, count, &capacity, sizeof *entries);
                entries[count++] = e;
            }
        }
        qsort(entries, (size_t)count, sizeof *entries, by_offset);
        uint32_t cncx = ncx + records + 1, depth = 0;
        int marks = 0;
        for (int i = 0; i < count; i++) {
            char label[256], target[32];
            ncx_label(db, cncx, cncx_count, encoding, entries[i].label, label, sizeof label);
            if (!label[0]) continue;
            // No deeper than one below the entry before (a child listed before its parent).
            depth = entries[i].depth < depth + 1 ? entries[i].depth : depth + 1;
            if (depth > 31) depth = 31;
            snprintf(target, sizeof target, "#filepos%u", entries[i].offset);
            contents->items = fb_grow(ctx, contents->items, contents->count, &marks, sizeof *contents->items);
            contents->items[contents->count++] = (struct page_mark){0, strdup(target), strdup(label), -2, 0, (int)depth};
        }
    }
    fz_always(ctx) fz_free(ctx, entries);
    fz_catch(ctx) fz_rethrow(ctx);
}

// MARK: the prepared copy

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/// Where the text links (`filepos=N` in a tag: N bytes into the text) and the contents point,
/// sorted, each once.
static uint32_t *link_targets(fz_context *ctx, const unsigned char *s, size_t n, const struct page_marks *contents, int *count) {
    uint32_t *t = NULL;
    int capacity = 0;
    *count = 0;
    for (int i = 0; i < contents->count; i++) {
        t = fb_grow(ctx, t, *count, &capacity, sizeof *t);
        t[(*count)++] = (uint32_t)strtoul(contents->items[i].target + 8, NULL, 10);
    }
    for (size_t i = 0; i + 8 < n && *count < 4 * folio_mu_max_entries; i++) {
        if ((s[i] | 0x20) != 'f' || fz_strncasecmp((const char *)s + i, "filepos=", 8)) continue;
        size_t p = i + 8 + (s[i + 8] == '"' || s[i + 8] == '\'');
        uint32_t v = 0;
        int digits = 0;
        for (; p < n && s[p] >= '0' && s[p] <= '9' && digits < 10; p++, digits++) v = v * 10 + (uint32_t)(s[p] - '0');
        if (!digits || v > n) continue;
        t = fb_grow(ctx, t, *count, &capacity, sizeof *t);
        t[(*count)++] = v;
    }
    int kept = 0;
    if (*count) qsort(t, (size_t)*count, sizeof *t, by_value);
    for (int i = 0; i < *count; i++)
        if (!kept || t[i] != t[kept - 1]) t[kept++] = t[i];
    *count = kept;
    return t;
}

/// Writes byte `c` of text in `encoding` as UTF-8.
static void put_char(fb_writer *w, unsigned c, uint32_t encoding) {
    if (encoding == 65001 || c < 0x80) fz_append_byte(w->ctx, w->out, (int)c);
    else fz_append_rune(w->ctx, w->out, encoding == 1252 ? fz_unicode_from_windows_1252[c] : (int)c);
}

/// Writes the tag of `n` bytes at `s`, its `filepos=N` made `href="#fileposN"`.
static void put_tag(fb_writer *w, const unsigned char *s, size_t n, uint32_t encoding) {
    for (size_t i = 0; i < n; i++) {
        if (i + 8 < n && (s[i] | 0x20) == 'f' && !fz_strncasecmp((const char *)s + i, "filepos=", 8)) {
            size_t p = i + 8, quote = p < n && (s[p] == '"' || s[p] == '\'');
            p += quote;
            size_t digits = p;
            while (p < n && s[p] >= '0' && s[p] <= '9' && p - digits < 10) p++;
            char href[32];
            snprintf(href, sizeof href, "href=\"#filepos%lu\"", strtoul((const char *)s + digits, NULL, 10));
            fz_append_string(w->ctx, w->out, href);
            i = p + (quote && p < n && s[p] == s[i + 8]) - 1;
            continue;
        }
        put_char(w, s[i], encoding);
    }
}

/// The book's text in UTF-8, an anchor (`<a id="fileposN">`) at each target before the first
/// text, picture or end tag at or after it (inside the paragraph it points at, not between
/// blocks, where MuPDF would lay an empty line out), and `cover` after the body's start tag.
static void put_text(fb_writer *w, const unsigned char *s, size_t n, uint32_t encoding, const uint32_t *targets, int count,
                     const char *cover) {
    int next = 0, flushed = 0;
    size_t body = fb_after_body(s, n);
    if (!body) fz_append_string(w->ctx, w->out, cover);
    for (size_t i = 0; i < n;) {
        if (body && i == body) fz_append_string(w->ctx, w->out, cover);
        while (next < count && targets[next] <= i) next++;
        unsigned c = s[i];
        int content = c > ' ' && c != '<';
        if (c == '<' && i + 1 < n) content = s[i + 1] == '/' || (!fz_strncasecmp((const char *)s + i + 1, "img", 3));
        for (; content && flushed < next; flushed++) {
            char anchor[48];
            snprintf(anchor, sizeof anchor, "<a id=\"filepos%u\"></a>", targets[flushed]);
            fz_append_string(w->ctx, w->out, anchor);
        }
        if (c != '<') {
            put_char(w, c, encoding);
            i++;
            continue;
        }
        const unsigned char *close = memchr(s + i, '>', n - i);
        size_t end = close ? (size_t)(close - s) + 1 : n;
        put_tag(w, s + i, end - i, encoding);
        i = end;
    }
}

/// Which of the pictures MuPDF finds in the database (`recindex`, counted from 1 over the
/// records after the text) record `record` is; 0 when it is none.
static int picture_index(fz_context *ctx, const palm_db *db, uint32_t record) {
    int k = 0;
    for (uint32_t i = db->text_records; i < db->count && i <= record; i++) {
        size_t at = record_at(db, i), size = record_end(db, i) - at;
        if (size > 8 && fz_recognize_image_format(ctx, (unsigned char *)db->d + at)) {
            k++;
            if (i == record) return k;
        }
    }
    return 0;
}

/// The database with `text` (UTF-8, uncompressed) in place of its text records; its first
/// record's headers say so, and every record after the text is kept as it was, so MuPDF finds
/// the same pictures. NULL when the records would not fit a Palm database's table.
static fz_buffer *write_database(fz_context *ctx, const palm_db *db, fz_buffer *text) {
    uint32_t text_records = (uint32_t)((text->len + 4095) / 4096), after = db->text_records + 1;
    if (after > db->count) after = db->count;
    size_t total = 1 + text_records + (db->count - after), r0_len = record_end(db, 0) - db->r0;
    size_t rest = after < db->count ? record_at(db, after) : db->n;
    if (total > 0xffff || text->len > UINT32_MAX) return NULL;
    fz_buffer *out = fz_new_buffer(ctx, 80 + 8 * total + r0_len + text->len + (db->n - rest));
    fz_try(ctx) {
        unsigned char head[78];
        memcpy(head, db->d, 78);
        head[76] = (unsigned char)(total >> 8), head[77] = (unsigned char)total;
        fz_append_data(ctx, out, head, 78);
        size_t at = 78 + 8 * total + 2;
        for (size_t i = 0; i < total; i++) {
            unsigned char e[8] = {(unsigned char)(at >> 24), (unsigned char)(at >> 16), (unsigned char)(at >> 8), (unsigned char)at,
                                  0, (unsigned char)(i >> 16), (unsigned char)(i >> 8), (unsigned char)i};
            fz_append_data(ctx, out, e, 8);
            uint32_t kept = after + (uint32_t)(i - 1 - text_records);
            at += i == 0 ? r0_len
                : i < text_records ? 4096
                : i == text_records ? text->len - 4096 * (size_t)(text_records - 1)
                : record_end(db, kept) - record_at(db, kept);
        }
        fz_append_data(ctx, out, "\0\0", 2);
        size_t r0_at = out->len;
        fz_append_data(ctx, out, db->d + db->r0, r0_len);
        unsigned char *r = out->data + r0_at;
        size_t len = text->len;
        r[0] = 0, r[1] = 1;  // no compression
        r[4] = (unsigned char)(len >> 24), r[5] = (unsigned char)(len >> 16), r[6] = (unsigned char)(len >> 8), r[7] = (unsigned char)len;
        r[8] = (unsigned char)(text_records >> 8), r[9] = (unsigned char)text_records;
        r[28] = 0, r[29] = 0, r[30] = 0xfd, r[31] = 0xe9;  // UTF-8 (65001)
        fz_append_data(ctx, out, text->data, text->len);
        fz_append_data(ctx, out, db->d + rest, db->n - rest);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

fz_buffer *folio_prepare_mobi(fz_context *ctx, fz_buffer *file, const folio_typeset_options *options, const char *lang,
                              folio_pattern_cache *cache, struct page_marks *contents) {
    unsigned char *d;
    size_t n = fz_buffer_storage(ctx, file, &d), len;
    palm_db db;
    if (!palm_open(d, n, &db, NULL, 0) || !preparable(&db)) return NULL;
    uint32_t encoding = be32(d + db.r0 + 28);
    fz_buffer *text = NULL, *marked = NULL, *prepared = NULL, *out = NULL;
    uint32_t *targets = NULL;
    fz_var(text); fz_var(marked); fz_var(prepared); fz_var(targets);
    fz_try(ctx) {
        if (be32(d + db.r0 + 20) >= 232) read_ncx(ctx, &db, be32(d + db.r0 + 244), contents);
        text = fz_new_buffer(ctx, db.text_length < (1u << 24) ? db.text_length + 1 : 1u << 24);
        palm_text(ctx, &db, text);
        int count;
        targets = link_targets(ctx, text->data, text->len, contents, &count);
        const unsigned char *offset = exth_value(d, n, db.r0, 201, &len);
        int picture = offset && len == 4 ? picture_index(ctx, &db, be32(d + db.r0 + 108) + be32(offset)) : 0;
        char cover[192] = "";
        if (picture)
            snprintf(cover, sizeof cover, "<div style=\"margin:0;padding:0;text-indent:0;page-break-after:always\"><img recindex=\"%05d\" "
                     "alt=\"\" style=\"display:block;width:100%%\"/></div>", picture);
        marked = fz_new_buffer(ctx, text->len + text->len / 8 + 256);
        fb_writer w = {ctx, marked};
        put_text(&w, text->data, text->len, encoding, targets, count, cover);
        prepared = folio_prepare_markup(ctx, marked, options, lang, cache);
        out = write_database(ctx, &db, prepared);
    }
    fz_always(ctx) {
        fz_free(ctx, targets);
        fz_drop_buffer(ctx, prepared);
        fz_drop_buffer(ctx, marked);
        fz_drop_buffer(ctx, text);
    }
    fz_catch(ctx) fz_rethrow(ctx);
    return out;
}
