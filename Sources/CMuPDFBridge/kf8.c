// A Kindle book's indexes (INDX records and their TAGX tables) read, and a KF8 (AZW3) book's
// text put back together: each part's skeleton with its fragments in place, its positions
// (`kindle:pos:fid:…:off:…`) and stylesheets (`kindle:flow:…`) found, so that mobi.c prepares
// it as it does a MOBI 6 book's text. MuPDF 1.21 reads a KF8 book's text as it lies in its
// records, skeletons apart from their fragments: a Calibre-made AZW3 of a 194-page book showed
// two empty pages. Does not decompress the text or write the copy (mobi.c).
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: indexes

/// A forward-encoded integer of an index entry: 7 bits a byte, most significant first, its last
/// byte's top bit set, at most 4 bytes. `*p` moves past it, never beyond `end`.
uint32_t fb_varlen(const unsigned char *d, size_t *p, size_t end) {
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

/// The entry whose control bytes start at `start` of record `rec` (`len` bytes), as `tags` lay
/// them out, into `e` (its name already there).
static void read_entry(const unsigned char *rec, size_t len, size_t start, uint32_t control_bytes, const tagx_entry *tags,
                       int tag_count, fb_index_entry *e) {
    struct { unsigned char tag; uint32_t count, bytes; unsigned char values; } found[64];
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
        found[nfound].bytes = v == mask && (mask & (mask - 1)) ? fb_varlen(rec, &pos, len) : 0;
        found[nfound].count = found[nfound].bytes ? 0 : v >> shift;
        nfound++;
    }
    memset(e->count, 0, sizeof e->count);
    for (int f = 0; f < nfound; f++) {
        unsigned char tag = found[f].tag < fb_index_tags ? found[f].tag : 0;
        uint32_t values = 0;
        for (size_t from = pos; pos < len; values++) {
            if (found[f].bytes ? pos - from >= found[f].bytes : values >= found[f].count * found[f].values) break;
            uint32_t v = fb_varlen(rec, &pos, len);
            if (tag && values < 2) e->values[tag][values] = v;
        }
        if (tag) e->count[tag] = values < 2 ? (unsigned char)values : 2;
    }
}

int fb_read_index(fz_context *ctx, const palm_db *db, uint32_t first, void (*use)(fz_context *ctx, const fb_index_entry *e, void *user),
                  void *user, uint32_t *cncx_count, uint32_t *encoding) {
    if (first >= db->count) return -1;
    const unsigned char *r = db->d + fb_record_at(db, first);
    size_t rn = fb_record_end(db, first) - fb_record_at(db, first);
    if (rn < 56 || memcmp(r, "INDX", 4)) return -1;
    uint32_t header = fb_be32(r + 4), records = fb_be32(r + 24);
    *encoding = fb_be32(r + 28);
    *cncx_count = fb_be32(r + 52);
    if (header > rn - 12 || memcmp(r + header, "TAGX", 4) || records > db->count) return -1;
    uint32_t tagx_len = fb_be32(r + header + 4), control_bytes = fb_be32(r + header + 8);
    if (tagx_len < 12 || tagx_len > rn - header || control_bytes > 8) return -1;
    tagx_entry tags[64];
    int tag_count = 0, entries = 0;
    for (size_t i = 12; i + 4 <= tagx_len && tag_count < 64; i += 4) {
        const unsigned char *t = r + header + i;
        tags[tag_count++] = (tagx_entry){t[0], t[1], t[2], t[3]};
    }
    for (uint32_t k = 1; k <= records && first + k < db->count; k++) {
        const unsigned char *rec = db->d + fb_record_at(db, first + k);
        size_t len = fb_record_end(db, first + k) - fb_record_at(db, first + k);
        if (len < 28 || memcmp(rec, "INDX", 4)) continue;
        uint32_t idxt = fb_be32(rec + 20), here = fb_be32(rec + 24);
        if (idxt > len - 4 || memcmp(rec + idxt, "IDXT", 4)) continue;
        for (uint32_t j = 0; j < here && idxt + 6 + 2 * (size_t)j <= len && entries < folio_mu_max_entries; j++) {
            size_t at = fb_be16(rec + idxt + 4 + 2 * j);
            if (at >= len || at + 1 + rec[at] + control_bytes > len) continue;
            fb_index_entry e = {.name = rec + at + 1, .name_len = rec[at]};
            read_entry(rec, len, at + 1 + rec[at], control_bytes, tags, tag_count, &e);
            use(ctx, &e, user);
            entries++;
        }
    }
    return (int)records;
}

// MARK: KF8

/// The value of `n` base-32 digits (0–9, A–V) at `s`; -1 for any other character.
static int64_t base32(const unsigned char *s, size_t n) {
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int c = s[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'V' ? c - 'A' + 10 : c >= 'a' && c <= 'v' ? c - 'a' + 10 : -1;
        if (d < 0) return -1;
        v = v * 32 + d;
    }
    return v;
}

static void use_skeleton(fz_context *ctx, const fb_index_entry *e, void *user) {
    fb_kf8 *k = user;
    if (!e->count[1] || e->count[6] < 2) return;
    k->skels = fb_grow(ctx, k->skels, k->skel_count, &k->skel_capacity, sizeof *k->skels);
    k->skels[k->skel_count++] = (fb_kf8_skeleton){e->values[1][0], e->values[6][0], e->values[6][1]};
}

static void use_fragment(fz_context *ctx, const fb_index_entry *e, void *user) {
    fb_kf8 *k = user;
    // A fragment's name is where it goes in the text, in decimal.
    uint32_t insert = 0;
    for (size_t i = 0; i < e->name_len && i < 10; i++) {
        if (e->name[i] < '0' || e->name[i] > '9') return;
        insert = insert * 10 + (uint32_t)(e->name[i] - '0');
    }
    if (!e->name_len || e->count[6] < 2) return;
    k->frags = fb_grow(ctx, k->frags, k->frag_count, &k->frag_capacity, sizeof *k->frags);
    k->frags[k->frag_count++] = (fb_kf8_fragment){insert, e->values[6][0], e->values[6][1]};
}

int fb_kf8_read(fz_context *ctx, const palm_db *db, fb_kf8 *k) {
    memset(k, 0, sizeof *k);
    const unsigned char *r0 = db->d + db->r0;
    // Pure KF8 (version 8), its header long enough to name its indexes (MOBI header length
    // counted from byte 16).
    if (fb_record_end(db, 0) - db->r0 < 0x100 || fb_be32(r0 + 0x24) != 8 || fb_be32(r0 + 20) + 16 < 0x100) return 0;
    uint32_t fdst = fb_be32(r0 + 0xC0), frag = fb_be32(r0 + 0xF8), skel = fb_be32(r0 + 0xFC), cncx, encoding;
    if (fdst < db->count) {
        const unsigned char *f = db->d + fb_record_at(db, fdst);
        size_t len = fb_record_end(db, fdst) - fb_record_at(db, fdst);
        if (len >= 12 && !memcmp(f, "FDST", 4)) {
            uint32_t start = fb_be32(f + 4), count = fb_be32(f + 8);
            for (uint32_t i = 0; i < count && i < fb_kf8_flows && start + 8 * (size_t)(i + 1) <= len; i++)
                k->flows[k->flow_count++] = (fb_kf8_flow){fb_be32(f + start + 8 * i), fb_be32(f + start + 8 * i + 4)};
        }
    }
    fz_try(ctx) {
        if (fb_read_index(ctx, db, skel, use_skeleton, k, &cncx, &encoding) < 0 || fb_read_index(ctx, db, frag, use_fragment, k, &cncx, &encoding) < 0)
            k->skel_count = 0;
    }
    fz_catch(ctx) {
        fb_kf8_drop(k);
        fz_rethrow(ctx);
    }
    if (!k->skel_count) fb_kf8_drop(k);
    return k->skel_count > 0;
}

void fb_kf8_drop(fb_kf8 *k) {
    free(k->skels);
    free(k->frags);
    k->skels = NULL, k->frags = NULL;
    k->skel_count = k->frag_count = 0;
}

int fb_kf8_position(const fb_kf8 *k, const unsigned char *s, size_t n, uint32_t *pos) {
    static const char head[] = "kindle:pos:fid:";
    size_t h = sizeof head - 1;
    if (n < h + 4 + 5 + 10 || fz_strncasecmp((const char *)s, head, h) || fz_strncasecmp((const char *)s + h + 4, ":off:", 5)) return 0;
    int64_t fid = base32(s + h, 4), off = base32(s + h + 9, 10);
    if (fid < 0 || off < 0 || fid >= k->frag_count || off > UINT32_MAX - k->frags[fid].insert) return 0;
    *pos = k->frags[fid].insert + (uint32_t)off;
    return 1;
}

int64_t fb_kf8_resource(const unsigned char *s, size_t n) {
    static const char head[] = "kindle:embed:";
    size_t h = sizeof head - 1;
    if (n < h + 4 || fz_strncasecmp((const char *)s, head, h)) return -1;
    return base32(s + h, 4);
}

fz_buffer *fb_kf8_text(fz_context *ctx, const fb_kf8 *k, const fz_buffer *text) {
    size_t end = k->flow_count && k->flows[0].end <= text->len ? k->flows[0].end : text->len;
    fz_buffer *out = fz_new_buffer(ctx, end + 1);
    fz_buffer *part = NULL;
    fz_var(part);
    fz_try(ctx) {
        part = fz_new_buffer(ctx, 4096);
        // Bytes moved to make room for fragments, at most: one megabyte-long skeleton given
        // thousands of fragments each at its start (a damaged or hostile index) was moved whole
        // for each, minutes of work. A real part moves far less; past the bound, the rest of the
        // fragments are left out.
        size_t start = 0, moved = 0, movable = 16 * end + (64u << 20);
        int next = 0;
        for (int i = 0; i < k->skel_count && start < end; i++) {
            const fb_kf8_skeleton *s = k->skels + i;
            size_t skeleton = s->length < end - start ? s->length : end - start, added = skeleton;
            fz_clear_buffer(ctx, part);
            fz_append_data(ctx, part, text->data + start, skeleton);
            for (uint32_t f = 0; f < s->frags && next < k->frag_count; f++, next++) {
                const fb_kf8_fragment *g = k->frags + next;
                // The fragment lies after the skeleton; it goes where its name says, counted from
                // the part's start in the text.
                size_t from = start + skeleton + g->offset, at = g->insert >= start ? g->insert - start : 0;
                // The parts put together are as long as the flow: a fragment that would make
                // them longer (a damaged index naming the text again and again) is left out.
                if (g->offset > end || from > end || g->length > end - from || out->len + part->len + g->length > end) continue;
                if (at > part->len) at = part->len;
                if (part->len - at > movable - moved) continue;
                moved += part->len - at;
                fz_append_data(ctx, part, text->data + from, g->length);
                memmove(part->data + at + g->length, part->data + at, part->len - g->length - at);
                memcpy(part->data + at, text->data + from, g->length);
                added += g->length;
            }
            fz_append_buffer(ctx, out, part);
            start += added;
        }
        if (start < end) fz_append_data(ctx, out, text->data + start, end - start);
    }
    fz_always(ctx) fz_drop_buffer(ctx, part);
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

void fb_kf8_styles(fz_context *ctx, const fb_kf8 *k, const fz_buffer *text, const unsigned char *s, size_t n, fz_buffer *out) {
    static const char head[] = "kindle:flow:";
    size_t h = sizeof head - 1;
    unsigned char used[fb_kf8_flows] = {0};
    for (size_t i = 0; i + h + 4 + 14 <= n; i++) {
        if (s[i] != 'k' || fz_strncasecmp((const char *)s + i, head, h)) continue;
        int64_t flow = base32(s + i + h, 4);
        if (flow <= 0 || flow >= k->flow_count || used[flow] || fz_strncasecmp((const char *)s + i + h + 4, "?mime=text/css", 14)) continue;
        used[flow] = 1;
        const fb_kf8_flow *f = k->flows + flow;
        if (f->start > f->end || f->end > text->len) continue;
        fz_append_string(ctx, out, "<style>");
        // A stylesheet holding "</style" would close the element early: it is cut there.
        const unsigned char *css = text->data + f->start;
        size_t len = f->end - f->start;
        for (size_t j = 0; j + 7 <= len; j++)
            if (css[j] == '<' && !fz_strncasecmp((const char *)css + j, "</style", 7)) len = j;
        fz_append_data(ctx, out, css, len);
        fz_append_string(ctx, out, "</style>");
    }
}
