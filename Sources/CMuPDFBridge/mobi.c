// A MOBI (a Palm database) read before MuPDF opens it: its header's title, author and language,
// its record table checked, and its prepared copy, which MuPDF opens in its place: the text it
// would read, in UTF-8, with the cover (EXTH 201) as its first page, `filepos` links made links
// it follows, hyphenated (typeset.c), with the book's pictures; and the contents of its NCX
// index (ncx.c). A KF8 (AZW3) book's text is its parts put together (kf8.c).
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/// Copies `n` bytes of text into `out` (of `size`), cut at a character boundary.
void fb_copy_text(char *out, size_t size, const unsigned char *text, size_t n) {
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
    size_t header = fb_be32(d + r0 + 20);
    if (!(fb_be32(d + r0 + 128) & 0x40) || header > n - r0 - 16) return NULL;
    size_t e = r0 + 16 + header;
    if (n - e < 12 || memcmp(d + e, "EXTH", 4)) return NULL;
    size_t p = e + 12, end = e + fb_be32(d + e + 4);
    if (end > n || end < e) end = n;
    for (uint32_t i = 0, count = fb_be32(d + e + 8); i < count && p + 8 <= end; i++) {
        uint32_t at_type = fb_be32(d + p), at_len = fb_be32(d + p + 4);
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
        size_t r0 = fb_be32(d + 78);
        if (r0 > n || n - r0 < 132 || memcmp(d + r0 + 16, "MOBI", 4)) break;
        size_t name_at = r0 + fb_be32(d + r0 + 84), name_len = fb_be32(d + r0 + 88);
        if (name_at <= n && name_len <= n - name_at) fb_copy_text(info->mobi_title, sizeof info->mobi_title, d + name_at, name_len);
        const unsigned char *v;
        if ((v = exth_value(d, n, r0, 503, &len))) fb_copy_text(info->mobi_title, sizeof info->mobi_title, v, len);
        if ((v = exth_value(d, n, r0, 100, &len))) fb_copy_text(info->mobi_author, sizeof info->mobi_author, v, len);
        if ((v = exth_value(d, n, r0, 524, &len))) fb_copy_text(info->language, sizeof info->language, v, len);
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

/// Reads the `n` bytes of `d` as a Palm database: 0, with the reason in `why` (of `size`), when a
/// record lies outside the file or before the one before it, which MuPDF would follow unchecked.
static int palm_open(const unsigned char *d, size_t n, palm_db *db, char *why, size_t size) {
    memset(db, 0, sizeof *db);
    if (n < 78) return 0;  // MuPDF finds it cut short
    uint32_t count = fb_be16(d + 76), previous = 0;
    if (78 + 8 * (size_t)count > n) {
        snprintf(why, size, "its record table (%u records) runs past the end of the file; not opened", count);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t at = fb_be32(d + 78 + 8 * i);
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
    *db = (palm_db){.d = d, .n = n, .count = count, .r0 = count ? fb_be32(d + 78) : n};
    if (count >= 2 && n - db->r0 >= 16) {
        db->compression = fb_be16(d + db->r0);
        db->text_length = fb_be32(d + db->r0 + 4);
        db->text_records = fb_be16(d + db->r0 + 8);
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
        size_t p = fb_record_at(db, i), end = out->len + (remain < 4096 ? remain : 4096);
        if (db->compression == 2) palmdoc(ctx, out, db->d, db->n, p, end);
        else fz_append_data(ctx, out, db->d + p, end - out->len < db->n - p ? end - out->len : db->n - p);
    }
}

/// Whether Folio reads the database through a copy it prepares (`folio_prepare_mobi`): a MOBI 6
/// book with its MOBI header whole, in an encoding MuPDF reads. Else MuPDF reads it as it is.
static int preparable(const palm_db *db) {
    if (!db->mobi || db->count < 2 || fb_record_end(db, 0) - db->r0 < 248 || memcmp(db->d + 60, "BOOKMOBI", 8)) return 0;
    if (db->compression != 1 && db->compression != 2) return 0;
    uint32_t encoding = fb_be32(db->d + db->r0 + 28);
    return encoding == 1252 || encoding == 65001 || encoding == 0;
}

void fb_check_mobi(fz_context *ctx, fz_buffer *file, folio_mu_info *info) {
    unsigned char *d;
    size_t n = fz_buffer_storage(ctx, file, &d);
    palm_db db;
    if (!palm_open(d, n, &db, info->refused, sizeof info->refused)) return;
    if (db.compression != 1 && db.compression != 2) return;  // MuPDF refuses it
    // PalmDOC makes at most five bytes of two (uncompressed, one of one): text the records'
    // bytes cannot hold comes of records that overlap or read on into the next, as MuPDF reads
    // them (65,000 records at one place made 266 MB of text of a 530 KB file).
    uint32_t last = db.text_records < db.count ? db.text_records : db.count - 1;
    size_t stored = last >= 1 ? fb_record_end(&db, last) - fb_record_at(&db, 1) : 0;
    if (db.text_length / (db.compression == 2 ? 5 : 1) > stored + 4096) {
        snprintf(info->refused, sizeof info->refused, "its text records (%zu bytes) cannot hold the %u bytes of text it claims; not opened",
                 stored, db.text_length);
        return;
    }
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

// MARK: the prepared copy

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/// What the copy is written with: the text's encoding, a KF8 book's parts (NULL for MOBI 6),
/// and the database, whose resources its pictures are.
/// A book's text being copied. `pictures` numbers its records as MuPDF numbers its pictures
/// (`picture_numbers`); `head_close` is where the first `</head>` at or after the last end of a
/// part's `<head>` looked from lies (`n` when there is none).
typedef struct {
    fb_writer w;
    uint32_t encoding;
    const fb_kf8 *kf8;
    const palm_db *db;
    int *pictures;
    size_t head_close;
} copy_writer;

/// Which of the pictures MuPDF finds in the database (`recindex`, counted from 1 over the
/// records after the text) each record is, 0 for none: counted once, for every picture a book's
/// text names (counted for each, a book naming 40,000 pictures among 60,000 records took 33 s).
static int *picture_numbers(fz_context *ctx, const palm_db *db) {
    int *numbers = fz_calloc(ctx, db->count + 1, sizeof *numbers), k = 0;
    for (uint32_t i = db->text_records; i < db->count; i++) {
        size_t at = fb_record_at(db, i), size = fb_record_end(db, i) - at;
        if (size > 8 && fz_recognize_image_format(ctx, (unsigned char *)db->d + at)) numbers[i] = ++k;
    }
    return numbers;
}

/// Which picture record `record` is (`picture_numbers`); 0 when it is none.
static int picture_index(const copy_writer *c, uint32_t record) {
    return record < c->db->count ? c->pictures[record] : 0;
}

/// Where the text links (`filepos=N` in a tag: N bytes into the text; a KF8 book's positions)
/// and the contents point, sorted, each once.
static uint32_t *link_targets(fz_context *ctx, const unsigned char *s, size_t n, const struct page_marks *contents, const fb_kf8 *kf8,
                              int *count) {
    uint32_t *t = NULL;
    int capacity = 0;
    *count = 0;
    for (int i = 0; i < contents->count; i++) {
        t = fb_grow(ctx, t, *count, &capacity, sizeof *t);
        t[(*count)++] = (uint32_t)strtoul(contents->items[i].target + 8, NULL, 10);
    }
    for (size_t i = 0; i + 8 < n && *count < 4 * folio_mu_max_entries; i++) {
        uint32_t v = 0;
        if (kf8 && s[i] == 'k' && fb_kf8_position(kf8, s + i, n - i, &v)) {
            if (v > n) continue;
        } else {
            if ((s[i] | 0x20) != 'f' || fz_strncasecmp((const char *)s + i, "filepos=", 8)) continue;
            size_t p = i + 8 + (s[i + 8] == '"' || s[i + 8] == '\'');
            int digits = 0;
            for (; p < n && s[p] >= '0' && s[p] <= '9' && digits < 10; p++, digits++) v = v * 10 + (uint32_t)(s[p] - '0');
            if (!digits || v > n) continue;
        }
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

/// Writes the tag of `n` bytes at `s`, its `filepos=N` made `href="#fileposN"`; in a KF8
/// book's parts, a position made the same, and a picture's `src="kindle:embed:XXXX…"` the
/// `recindex` MuPDF finds it by.
static void put_tag(copy_writer *c, const unsigned char *s, size_t n) {
    fb_writer *w = &c->w;
    for (size_t i = 0; i < n; i++) {
        uint32_t pos;
        if (c->kf8 && s[i] == 'k' && fb_kf8_position(c->kf8, s + i, n - i, &pos)) {
            fz_append_printf(w->ctx, w->out, "#filepos%u", pos);
            i += 33;
            continue;
        }
        if (c->kf8 && i + 5 < n && !fz_strncasecmp((const char *)s + i, "src=", 4) && (s[i + 4] == '"' || s[i + 4] == '\'')) {
            int64_t resource = fb_kf8_resource(s + i + 5, n - i - 5);
            const unsigned char *close = memchr(s + i + 5, s[i + 4], n - i - 5);
            uint32_t first = fb_be32(c->db->d + c->db->r0 + 108);
            if (resource > 0 && close && first <= UINT32_MAX - (uint32_t)resource) {
                fz_append_printf(w->ctx, w->out, "recindex=\"%05d\"", picture_index(c, first + (uint32_t)resource - 1));
                i = (size_t)(close - s);
                continue;
            }
        }
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
        put_char(w, s[i], c->encoding);
    }
}

/// Where a KF8 part's tag at `i` (ending at `end`) leaves the copy to go on, writing what stands
/// for it: the parts are one document's body, each a block starting a page, so their
/// declarations, `html` and `head` (stylesheets come first: `fb_kf8_styles`) are left out, and
/// a `body` is a `div`. `end` for any other tag, which is written as it is.
static size_t put_part_tag(copy_writer *c, const unsigned char *s, size_t n, size_t i, size_t end, int *parts) {
    const unsigned char *t = s + i + 1;
    size_t len = end - i - 1;
    if (fb_tag_named(t, len, "head")) {
        // Looked for again only past the last one found: heads never closed made it quadratic.
        if (c->head_close < end) {
            size_t j = end;
            while (j + 7 <= n && !(s[j] == '<' && !fz_strncasecmp((const char *)s + j, "</head>", 7))) j++;
            c->head_close = j + 7 <= n ? j : n;
        }
        return c->head_close < n ? c->head_close + 7 : end;  // a head never closed: only its tag is left out
    }
    if (fb_tag_named(t, len, "body")) {
        if ((*parts)++) fz_append_string(c->w.ctx, c->w.out, "<div style=\"page-break-before:always\"></div>");
        fz_append_string(c->w.ctx, c->w.out, "<div");
        put_tag(c, s + i + 5, end - i - 5);
        return end;
    }
    if (fb_tag_named(t, len, "/body")) {
        fz_append_string(c->w.ctx, c->w.out, "</div>");
        return end;
    }
    int dropped = (t[0] == '?' || (t[0] == '!' && !fb_starts_with(t, len, "!--"))) || fb_tag_named(t, len, "html") || fb_tag_named(t, len, "/html")
        || fb_tag_named(t, len, "/head") || fb_tag_named(t, len, "link");
    return dropped ? end : i;
}

/// The book's text in UTF-8, an anchor (`<a id="fileposN">`) at each target before the first
/// text, picture or end tag at or after it (inside the paragraph it points at, not between
/// blocks, where MuPDF would lay an empty line out), and `cover` after the body's start tag. A
/// KF8 book's parts are put in one body, after `styles`.
static void put_text(copy_writer *c, const unsigned char *s, size_t n, const uint32_t *targets, int count, const char *cover,
                     const char *styles) {
    fb_writer *w = &c->w;
    int next = 0, flushed = 0, parts = 0;
    size_t body = c->kf8 ? 0 : fb_after_body(s, n);
    if (c->kf8) fz_append_printf(w->ctx, w->out, "<html><head>%s</head><body>", styles);
    if (!body) fz_append_string(w->ctx, w->out, cover);
    for (size_t i = 0; i < n;) {
        if (body && i == body) fz_append_string(w->ctx, w->out, cover);
        while (next < count && targets[next] <= i) next++;
        unsigned ch = s[i];
        int content = ch > ' ' && ch != '<';
        if (ch == '<' && i + 1 < n) content = s[i + 1] == '/' || (!fz_strncasecmp((const char *)s + i + 1, "img", 3));
        for (; content && flushed < next; flushed++) {
            char anchor[48];
            snprintf(anchor, sizeof anchor, "<a id=\"filepos%u\"></a>", targets[flushed]);
            fz_append_string(w->ctx, w->out, anchor);
        }
        if (ch != '<') {
            put_char(w, ch, c->encoding);
            i++;
            continue;
        }
        const unsigned char *close = memchr(s + i, '>', n - i);
        size_t end = close ? (size_t)(close - s) + 1 : n;
        size_t past = c->kf8 ? put_part_tag(c, s, n, i, end, &parts) : i;
        if (past == i) put_tag(c, s + i, end - i);
        i = past == i ? end : past;
    }
    if (c->kf8) fz_append_string(w->ctx, w->out, "</body></html>");
}

/// The database with `text` (UTF-8, uncompressed) in place of its text records; its first
/// record's headers say so, and every record after the text is kept as it was, so MuPDF finds
/// the same pictures. NULL when the records would not fit a Palm database's table.
static fz_buffer *write_database(fz_context *ctx, const palm_db *db, fz_buffer *text) {
    uint32_t text_records = (uint32_t)((text->len + 4095) / 4096), after = db->text_records + 1;
    if (after > db->count) after = db->count;
    size_t total = 1 + text_records + (db->count - after), r0_len = fb_record_end(db, 0) - db->r0;
    size_t rest = after < db->count ? fb_record_at(db, after) : db->n;
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
                : fb_record_end(db, kept) - fb_record_at(db, kept);
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
    fz_buffer *text = NULL, *parts = NULL, *styles = NULL, *marked = NULL, *prepared = NULL, *out = NULL;
    uint32_t *targets = NULL;
    int *pictures = NULL;
    fb_kf8 kf8;
    memset(&kf8, 0, sizeof kf8);
    fz_var(text); fz_var(parts); fz_var(styles); fz_var(marked); fz_var(prepared); fz_var(targets); fz_var(kf8); fz_var(pictures);
    fz_try(ctx) {
        copy_writer c = {.encoding = fb_be32(d + db.r0 + 28), .db = &db};
        c.pictures = pictures = picture_numbers(ctx, &db);
        if (fb_kf8_read(ctx, &db, &kf8)) c.kf8 = &kf8;
        if (fb_be32(d + db.r0 + 20) >= 232) fb_read_ncx(ctx, &db, fb_be32(d + db.r0 + 244), c.kf8, contents);
        text = fz_new_buffer(ctx, db.text_length < (1u << 24) ? db.text_length + 1 : 1u << 24);
        palm_text(ctx, &db, text);
        // A KF8 book's parts, put together: positions point into them.
        if (c.kf8) parts = fb_kf8_text(ctx, &kf8, text);
        fz_buffer *source = parts ? parts : text;
        styles = fz_new_buffer(ctx, 256);
        if (c.kf8) fb_kf8_styles(ctx, &kf8, text, source->data, source->len, styles);
        fz_terminate_buffer(ctx, styles);
        int count;
        targets = link_targets(ctx, source->data, source->len, contents, c.kf8, &count);
        const unsigned char *offset = exth_value(d, n, db.r0, 201, &len);
        int picture = offset && len == 4 ? picture_index(&c, fb_be32(d + db.r0 + 108) + fb_be32(offset)) : 0;
        char cover[192] = "";
        if (picture)
            snprintf(cover, sizeof cover, "<div style=\"margin:0;padding:0;text-indent:0;page-break-after:always\"><img recindex=\"%05d\" "
                     "alt=\"\" style=\"display:block;width:100%%\"/></div>", picture);
        marked = fz_new_buffer(ctx, source->len + source->len / 8 + styles->len + 256);
        c.w = (fb_writer){ctx, marked};
        put_text(&c, source->data, source->len, targets, count, cover, (const char *)styles->data);
        prepared = folio_prepare_markup(ctx, marked, options, lang, cache);
        out = write_database(ctx, &db, prepared);
    }
    fz_always(ctx) {
        fb_kf8_drop(&kf8);
        free(targets);
        fz_free(ctx, pictures);
        fz_drop_buffer(ctx, prepared);
        fz_drop_buffer(ctx, marked);
        fz_drop_buffer(ctx, styles);
        fz_drop_buffer(ctx, parts);
        fz_drop_buffer(ctx, text);
    }
    fz_catch(ctx) fz_rethrow(ctx);
    return out;
}
