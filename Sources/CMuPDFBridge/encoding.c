// A chapter's bytes made markup MuPDF reads as a browser does: UTF-16 as UTF-8, the entities it
// declares put in their place, empty end tags left out (typeset.c prepares the result).
// Does not: read anything but the chapter's own bytes, or change its text otherwise.
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// Entities a chapter declares in its DOCTYPE's internal subset (`<!ENTITY O "&#x201C;">`), which
/// MuPDF's parser leaves as written ("&O;poison,&C;" in Readium's *Alice*), as browsers and
/// Foliate do not. Their values are put in their place, once: a value naming another entity is
/// written as it is (no expansion of expansions, so no entity bomb), and the whole grows by at
/// most `entity_growth` bytes. NULL when the markup declares none.
enum { entity_count = 64, entity_value = 256, entity_growth = 4 << 20 };

static fz_buffer *expand_entities(fz_context *ctx, const unsigned char *s, size_t n) {
    // The DOCTYPE comes before the root, in a file's first bytes.
    size_t i = 0;
    while (i + 9 < n && i < 4096 && memcmp(s + i, "<!DOCTYPE", 9)) i++;
    if (i + 9 >= n || i >= 4096) return NULL;
    i += 9;
    while (i < n && s[i] != '[' && s[i] != '>') i++;
    if (i >= n || s[i] != '[') return NULL;
    struct { char name[32]; const unsigned char *value; size_t len; } e[entity_count];
    int count = 0;
    // The subset, to its `]`: each `<!ENTITY name "value">` (parameter entities, `%`, aside).
    while (i < n && s[i] != ']') {
        if (i + 8 < n && !memcmp(s + i, "<!ENTITY", 8) && count < entity_count) {
            size_t p = i + 8, name = 0;
            while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) p++;
            while (p < n && name + 1 < sizeof e[0].name && (isalnum(s[p]) || s[p] == '_' || s[p] == '-' || s[p] == '.'))
                e[count].name[name++] = (char)s[p++];
            e[count].name[name] = 0;
            while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) p++;
            if (name && p < n && (s[p] == '"' || s[p] == '\'')) {
                const unsigned char *close = memchr(s + p + 1, s[p], n - p - 1);
                if (close && (size_t)(close - s) - p - 1 <= entity_value) {
                    e[count].value = s + p + 1;
                    e[count].len = (size_t)(close - s) - p - 1;
                    count++;
                    i = (size_t)(close - s);
                }
            }
        }
        i++;
    }
    if (!count || i >= n) return NULL;
    fz_buffer *out = fz_new_buffer(ctx, n + 64);
    fz_try(ctx) {
        size_t from = 0, grown = 0;
        for (size_t k = i; k < n; k++) {
            if (s[k] != '&' || grown > entity_growth) continue;
            for (int j = 0; j < count; j++) {
                size_t len = strlen(e[j].name);
                if (k + len + 1 < n && s[k + 1 + len] == ';' && !memcmp(s + k + 1, e[j].name, len)) {
                    fz_append_data(ctx, out, s + from, k - from);
                    fz_append_data(ctx, out, e[j].value, e[j].len);
                    grown += e[j].len;
                    from = k + len + 2;
                    break;
                }
            }
        }
        fz_append_data(ctx, out, s + from, n - from);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}


/// The markup without its empty end tags (`</>`: `fb_empty_end_tag`), which HTML ignores; NULL
/// when it has none.
static fz_buffer *without_empty_end_tags(fz_context *ctx, const unsigned char *s, size_t n) {
    if (!fb_holds_empty_end_tag(s, n)) return NULL;
    fz_buffer *out = fz_new_buffer(ctx, n);
    size_t from = 0;
    for (size_t i = 0; i + 3 <= n; i++) {
        if (s[i] != '<' || !fb_empty_end_tag(s + i, 3)) continue;
        fz_append_data(ctx, out, s + from, i - from);
        from = i + 3;
        i += 2;
    }
    fz_append_data(ctx, out, s + from, n - from);
    return out;
}

/// Markup in UTF-16 (told by its byte order mark) as UTF-8, without the mark; NULL for any
/// other. The copy writes its attributes and soft hyphens in UTF-8, which in UTF-16 text put
/// every character after the first of them out of step: a chapter came out empty. MuPDF reads
/// the result as UTF-8 whatever its declaration says (it changes only Latin-1 and Windows-1252).
static fz_buffer *utf8_of_utf16(fz_context *ctx, const unsigned char *s, size_t n) {
    if (n < 2 || !((s[0] == 0xFF && s[1] == 0xFE) || (s[0] == 0xFE && s[1] == 0xFF))) return NULL;
    int little = s[0] == 0xFF;
    fz_buffer *out = fz_new_buffer(ctx, n + n / 2);
    fz_try(ctx) {
        for (size_t i = 2; i + 1 < n; i += 2) {
            int c = little ? s[i] | s[i + 1] << 8 : s[i] << 8 | s[i + 1];
            if (c >= 0xD800 && c < 0xDC00 && i + 3 < n) {
                int low = little ? s[i + 2] | s[i + 3] << 8 : s[i + 2] << 8 | s[i + 3];
                if (low >= 0xDC00 && low < 0xE000) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                    i += 2;
                }
            }
            // A lone surrogate is no character: the replacement character stands for it.
            fz_append_rune(ctx, out, c >= 0xD800 && c < 0xE000 ? 0xFFFD : c);
        }
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

fz_buffer *fb_markup_as_read(fz_context *ctx, const unsigned char *s, size_t n) {
    fz_buffer *(*const steps[])(fz_context *, const unsigned char *, size_t) = {utf8_of_utf16, expand_entities, without_empty_end_tags};
    fz_buffer *last = NULL;
    fz_var(last);
    fz_try(ctx) {
        for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
            fz_buffer *next = steps[k](ctx, s, n);
            if (!next) continue;
            fz_drop_buffer(ctx, last);
            last = next;
            unsigned char *data;
            n = fz_buffer_storage(ctx, last, &data);
            s = data;
        }
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, last);
        fz_rethrow(ctx);
    }
    return last;
}
