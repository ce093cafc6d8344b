// A reflowable book's text made ready for MuPDF's layout, and the furniture of its pages.
//
// MuPDF 1.21 breaks lines at soft hyphens (U+00AD) but does not hyphenate, and it reads `dir`
// and `lang` from elements inside `<html>`, never from `<html>` itself: a book marked
// `<html dir="rtl">` is set left to right. So before MuPDF parses a book, its markup is copied
// with soft hyphens put where the language's patterns (libhyphen, LibreOffice's `hyph_*.dic`)
// allow, and the root's `dir` and `lang` given to `<body>`.
// Does not: change what the text says (only U+00AD and attributes are added), hyphenate
// preformatted text, code, styles or scripts, or read anything but the book's own bytes and
// the pattern files of the folders it is given.
#include "typeset.h"
#include <hyphen.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <fontconfig/fontconfig.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// MARK: patterns

/// Whether `name` is a pattern file for `lang` ("en-US": hyph_en_US.dic, else hyph_en.dic, else
/// any hyph_en_*.dic): its rank, lower is better, or -1.
static int pattern_rank(const char *name, const char *lang) {
    char want[64];
    size_t n = 0;
    for (const char *p = lang; *p && n + 1 < sizeof want; p++) want[n++] = *p == '-' ? '_' : *p;
    want[n] = 0;
    size_t primary = strcspn(want, "_");
    if (strncmp(name, "hyph_", 5) != 0) return -1;
    const char *rest = name + 5;
    size_t len = strlen(rest);
    if (len < 5 || strcmp(rest + len - 4, ".dic") != 0) return -1;
    len -= 4;
    if (len == n && strncasecmp(rest, want, n) == 0) return 0;
    if (len == primary && strncasecmp(rest, want, primary) == 0) return 1;
    if (len > primary && rest[primary] == '_' && strncasecmp(rest, want, primary) == 0) return 2;
    return -1;
}

/// The patterns for `lang` from the first of `dirs` (colon-separated) that has them, or NULL.
static HyphenDict *load_patterns(const char *dirs, const char *lang) {
    if (!dirs || !lang || !*lang) return NULL;
    char best[1024] = "";
    int best_rank = 3;
    const char *start = dirs;
    while (*start && best_rank > 0) {
        size_t len = strcspn(start, ":");
        char dir[768];
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, start, len);
            dir[len] = 0;
            DIR *d = opendir(dir);
            for (struct dirent *e; d && (e = readdir(d));) {
                int rank = pattern_rank(e->d_name, lang);
                if (rank >= 0 && rank < best_rank) {
                    best_rank = rank;
                    snprintf(best, sizeof best, "%s/%s", dir, e->d_name);
                }
            }
            if (d) closedir(d);
        }
        start += len + (start[len] == ':');
        if (best[0]) break;
    }
    return best[0] ? hnj_hyphen_load(best) : NULL;
}

// MARK: markup

/// An output buffer of bytes.
typedef struct { fz_context *ctx; fz_buffer *out; } writer;

static void put(writer *w, const unsigned char *s, size_t n) { fz_append_data(w->ctx, w->out, s, n); }

/// The code point at `s` (of `n` bytes) and its length in `*len`; -1 for a byte that starts none.
static int decode(const unsigned char *s, size_t n, int *len) {
    unsigned char c = s[0];
    if (c < 0x80) { *len = 1; return c; }
    int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (!need || (size_t)need > n) { *len = 1; return -1; }
    int cp = c & (0x3F >> (need - 1));
    for (int i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80) { *len = 1; return -1; }
        cp = cp << 6 | (s[i] & 0x3F);
    }
    *len = need;
    return cp;
}

/// Letters that patterns hyphenate: Latin (with its accents), Greek and Cyrillic.
static int is_letter(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7)
        || (c >= 0x370 && c <= 0x3FF) || (c >= 0x400 && c <= 0x52F);
}

static int lower(int c) {
    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x410 && c <= 0x42F)) return c + 0x20;
    if (c >= 0x400 && c <= 0x40F) return c + 0x50;
    if (c >= 0x391 && c <= 0x3A9) return c + 0x20;
    return c;
}

static int encode(int c, unsigned char *out) {
    if (c < 0x80) { out[0] = c; return 1; }
    if (c < 0x800) { out[0] = 0xC0 | c >> 6; out[1] = 0x80 | (c & 0x3F); return 2; }
    out[0] = 0xE0 | c >> 12; out[1] = 0x80 | (c >> 6 & 0x3F); out[2] = 0x80 | (c & 0x3F); return 3;
}

/// Words shorter than this are never hyphenated (a break in them saves little and reads badly).
enum { shortest_word = 6, longest_word = 60 };

/// Writes the word of `n` bytes at `s` with soft hyphens where `dict` allows.
static void hyphenate_word(writer *w, HyphenDict *dict, const unsigned char *s, size_t n, int letters) {
    if (!dict || letters < shortest_word || letters > longest_word) { put(w, s, n); return; }
    // The patterns' words are lower case, in the dictionary's encoding (UTF-8 or Latin-1).
    unsigned char word[longest_word * 4 + 1];
    size_t at[longest_word * 4 + 1];  // the source byte after each byte of `word`
    size_t len = 0;
    for (size_t i = 0; i < n;) {
        int k, c = lower(decode(s + i, n - i, &k));
        unsigned char bytes[4];
        int m = dict->utf8 ? encode(c, bytes) : (c < 0x100 ? (bytes[0] = c, 1) : 0);
        if (!m) { put(w, s, n); return; }  // a letter the patterns' encoding lacks
        for (int j = 0; j < m; j++) { word[len] = bytes[j]; at[len++] = i + k; }
        i += k;
    }
    word[len] = 0;
    char hyphens[sizeof word + 5];
    char **rep = NULL;
    int *pos = NULL, *cut = NULL;
    if (hnj_hyphen_hyphenate3(dict, (const char *)word, (int)len, hyphens, NULL, &rep, &pos, &cut, 2, 3, 2, 3) != 0 || rep) {
        // Non-standard breaks (a spelling that changes at the break) are left out.
        if (rep) {
            for (size_t i = 0; i < len; i++) free(rep[i]);
            free(rep); free(pos); free(cut);
        }
        put(w, s, n);
        return;
    }
    size_t from = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (!(hyphens[i] & 1) || at[i] == from) continue;
        put(w, s + from, at[i] - from);
        put(w, (const unsigned char *)"\xC2\xAD", 2);
        from = at[i];
    }
    put(w, s + from, n - from);
}

/// Writes text (outside tags) with its words hyphenated.
static void hyphenate_text(writer *w, HyphenDict *dict, const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        int k, c = decode(s + i, n - i, &k);
        if (!is_letter(c)) {
            size_t j = i + k;
            // Up to the next letter (an entity is passed over whole: `&amp;` holds letters).
            while (j < n) {
                if (s[j] == '&') { while (j < n && s[j] != ';') j++; if (j < n) j++; continue; }
                int k2, c2 = decode(s + j, n - j, &k2);
                if (is_letter(c2)) break;
                j += k2;
            }
            put(w, s + i, j - i);
            i = j;
            continue;
        }
        size_t j = i;
        int letters = 0;
        while (j < n) {
            int k2, c2 = decode(s + j, n - j, &k2);
            if (!is_letter(c2)) break;
            j += k2;
            letters++;
        }
        // A word running into a soft hyphen or an entity is already broken by its publisher.
        if (j < n && (s[j] == '&' || (j + 1 < n && s[j] == 0xC2 && s[j + 1] == 0xAD))) put(w, s + i, j - i);
        else hyphenate_word(w, dict, s + i, j - i, letters);
        i = j;
    }
}

/// Whether the tag at `s` (after '<') is named `name` (any case).
static int tag_named(const unsigned char *s, size_t n, const char *name) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp((const char *)s, name, k) != 0) return 0;
    unsigned char next = s[k];
    return next == '>' || next == '/' || next == ' ' || next == '\t' || next == '\n' || next == '\r';
}

/// The value of attribute `name` in the start tag `tag` (of `n` bytes) into `out`; 0 if absent.
static int attribute(const unsigned char *tag, size_t n, const char *name, char *out, size_t size) {
    size_t k = strlen(name);
    for (size_t i = 1; i + k + 2 < n; i++) {
        unsigned char before = tag[i - 1];
        if ((before != ' ' && before != '\t' && before != '\n' && before != '\r') || strncmp((const char *)tag + i, name, k) != 0) continue;
        size_t j = i + k;
        while (j < n && tag[j] == ' ') j++;
        if (j >= n || tag[j] != '=') continue;
        j++;
        while (j < n && tag[j] == ' ') j++;
        if (j >= n || (tag[j] != '"' && tag[j] != '\'')) continue;
        unsigned char quote = tag[j++];
        size_t end = j;
        while (end < n && tag[end] != quote) end++;
        size_t len = end - j < size - 1 ? end - j : size - 1;
        memcpy(out, tag + j, len);
        out[len] = 0;
        return 1;
    }
    return 0;
}

/// Where the element whose start tag (`tag`, `tag_len` bytes) ends at `end` ends, when it is one
/// kept whole: its end tag's start (`end` when it is not one, or has no content). `closes` keeps,
/// for each element kept whole, the end tag found last (0 before any), so that markup of many
/// such elements never closed is read once, not once an element.
static size_t kept_to(const unsigned char *s, size_t n, size_t end, const unsigned char *tag, size_t tag_len, size_t *closes);

/// Elements whose text is never hyphenated.
static const char *const kept_whole[] = {"head", "style", "script", "pre", "code", "svg", "math", "binary", "title", "tt", "kbd", "samp"};

static size_t kept_to(const unsigned char *s, size_t n, size_t end, const unsigned char *tag, size_t tag_len, size_t *closes) {
    for (size_t k = 0; k < sizeof kept_whole / sizeof *kept_whole; k++) {
        if (!tag_named(tag, tag_len, kept_whole[k]) || s[end - 2] == '/') continue;
        if (closes[k] >= end) return closes[k];
        size_t len = strlen(kept_whole[k]), j = end;
        while (j + 2 + len < n && !(s[j] == '<' && s[j + 1] == '/' && !strncasecmp((const char *)s + j + 2, kept_whole[k], len))) j++;
        closes[k] = j + 2 + len >= n ? n : j;
        return closes[k];
    }
    return end;
}

/// Whether `n` bytes of an SVG's content are one picture and nothing else drawn: its
/// `<image>`'s reference into `href`.
static int picture_of(const unsigned char *s, size_t n, char *href, size_t size) {
    int images = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '<' || s[i + 1] == '/' || s[i + 1] == '!' || s[i + 1] == '?') continue;
        size_t end = i;
        while (end < n && s[end] != '>') end++;
        if (tag_named(s + i + 1, end - i - 1, "image")) {
            images++;
            if (!attribute(s + i + 1, end - i - 1, "xlink:href", href, size) && !attribute(s + i + 1, end - i - 1, "href", href, size)) return 0;
        } else if (!tag_named(s + i + 1, end - i - 1, "title") && !tag_named(s + i + 1, end - i - 1, "desc")
                   && !tag_named(s + i + 1, end - i - 1, "g") && !tag_named(s + i + 1, end - i - 1, "defs")) {
            return 0;
        }
        i = end;
    }
    // Only a plain reference: no quotes or markup to carry into the new tag.
    return images == 1 && !strpbrk(href, "\"<>&");
}

// MARK: hyphens: none

/// Whether `n` bytes of CSS declarations (or a `style` attribute) set `hyphens: none`, with any
/// vendor prefix (`-epub-`, `-webkit-`).
static int sets_no_hyphens(const unsigned char *s, size_t n) {
    for (size_t i = 0; i + 7 <= n; i++) {
        if (strncasecmp((const char *)s + i, "hyphens", 7)) continue;
        size_t j = i + 7;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) j++;
        if (j >= n || s[j] != ':') continue;
        j++;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) j++;
        if (j + 4 <= n && !strncasecmp((const char *)s + j, "none", 4)) return 1;
    }
    return 0;
}

/// Adds the simple selectors of a stylesheet's rules that set `hyphens: none` to `options`. A
/// rule's selectors are the text since the last `{`, `}` or `;` before its block (so rules in
/// `@media` are read too); compound selectors (descendants, children, attributes) are left out.
static void read_unhyphenated(const unsigned char *css, size_t n, folio_typeset_options *options) {
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (css[i] == '}' || css[i] == ';') { start = i + 1; continue; }
        if (css[i] != '{') continue;
        size_t end = i + 1;
        while (end < n && css[end] != '}' && css[end] != '{') end++;
        if (sets_no_hyphens(css + i + 1, end - i - 1)) {
            size_t a = start;
            while (a < i && options->unhyphenated_count < folio_unhyphenated_size) {
                size_t b = a;
                while (b < i && css[b] != ',') b++;
                size_t x = a, y = b;
                while (x < y && (css[x] == ' ' || css[x] == '\t' || css[x] == '\n' || css[x] == '\r')) x++;
                while (y > x && (css[y - 1] == ' ' || css[y - 1] == '\t' || css[y - 1] == '\n' || css[y - 1] == '\r')) y--;
                int simple = y > x && y - x < sizeof options->unhyphenated[0];
                for (size_t k = x; k < y && simple; k++)
                    simple = (css[k] >= 'a' && css[k] <= 'z') || (css[k] >= 'A' && css[k] <= 'Z') || (css[k] >= '0' && css[k] <= '9')
                             || css[k] == '-' || css[k] == '_' || (css[k] == '.' && k + 1 < y);
                if (simple) {
                    char *out = options->unhyphenated[options->unhyphenated_count++];
                    memcpy(out, css + x, y - x);
                    out[y - x] = 0;
                }
                a = b + 1;
            }
        }
        // A block of rules (`@media`): the first rule's selectors start inside it.
        if (end < n && css[end] == '{') {
            start = i + 1;
            i = end - 1;
        } else {
            start = end + 1;
            i = end;
        }
    }
}

/// Whether the element of start tag `tag` (`n` bytes after '<') is not to be hyphenated: its
/// own style says so, or a selector of `options` names it (its name, a class of it, or both).
static int unhyphenated(const unsigned char *tag, size_t n, const folio_typeset_options *options) {
    char value[512];
    if (attribute(tag, n, "style", value, sizeof value) && sets_no_hyphens((const unsigned char *)value, strlen(value))) return 1;
    if (!options->unhyphenated_count) return 0;
    size_t len = 0;
    while (len < n && len < 47 && tag[len] != ' ' && tag[len] != '>' && tag[len] != '/' && tag[len] != '\t' && tag[len] != '\n' && tag[len] != '\r') len++;
    char classes[512] = "";
    attribute(tag, n, "class", classes, sizeof classes);
    for (int k = 0; k < options->unhyphenated_count; k++) {
        const char *sel = options->unhyphenated[k], *dot = strchr(sel, '.');
        size_t name = dot ? (size_t)(dot - sel) : strlen(sel);
        if (name && (name != len || strncasecmp(sel, (const char *)tag, len))) continue;
        if (!dot) return 1;
        // The class among the attribute's words.
        size_t c = strlen(dot + 1);
        for (const char *p = classes; (p = strstr(p, dot + 1)); p += c)
            if ((p == classes || p[-1] == ' ') && (p[c] == 0 || p[c] == ' ')) return 1;
    }
    return 0;
}

/// Where the element whose start tag (named `tag`, `n` bytes) ends at `end` ends: after its
/// matching end tag (elements of the same name inside it counted), or the markup's end.
static size_t element_end(const unsigned char *s, size_t total, size_t end, const unsigned char *tag, size_t n) {
    size_t len = 0;
    while (len < n && tag[len] != ' ' && tag[len] != '>' && tag[len] != '/' && tag[len] != '\t' && tag[len] != '\n' && tag[len] != '\r') len++;
    if (!len || (end >= 2 && s[end - 2] == '/')) return end;
    int depth = 1;
    for (size_t j = end; j + 1 + len < total; j++) {
        if (s[j] != '<') continue;
        int closing = s[j + 1] == '/';
        const unsigned char *name = s + j + 1 + closing;
        if ((size_t)(s + total - name) <= len || strncasecmp((const char *)name, (const char *)tag, len)) continue;
        unsigned char after = name[len];
        if (after != '>' && after != ' ' && after != '/' && after != '\t' && after != '\n' && after != '\r') continue;
        if (!closing) {
            size_t k = j;
            while (k < total && s[k] != '>') k++;
            if (k < total && s[k - 1] != '/') depth++;
        } else if (--depth == 0) {
            size_t k = j;
            while (k < total && s[k] != '>') k++;
            return k < total ? k + 1 : total;
        }
    }
    return total;
}

/// Where the section opened by `open` at `i` ends, after its `close` (or the markup's end); 0
/// when no such section starts at `i`.
static size_t section_end(const unsigned char *s, size_t n, size_t i, const char *open, const char *close) {
    size_t a = strlen(open), b = strlen(close);
    if (n - i < a || memcmp(s + i, open, a)) return 0;
    size_t end = i + a;
    while (end + b <= n && memcmp(s + end, close, b)) end++;
    return end + b <= n ? end + b : n;
}

/// Writes `n` bytes of markup prepared (see the top of this file). `book_lang` is the book's
/// language where the markup names none.
static int names_note(const char *value);

/// Whether the start tag `tag` (of `n` bytes) is an `aside` its `epub:type` or `role` calls a
/// note, with no style of its own (one more `style` would make the tag two).
static int hidden_note(const unsigned char *tag, size_t n) {
    char value[128], style[8];
    if (!tag_named(tag, n, "aside") || attribute(tag, n, "style", style, sizeof style)) return 0;
    return (attribute(tag, n, "epub:type", value, sizeof value) && names_note(value))
        || (attribute(tag, n, "role", value, sizeof value) && names_note(value));
}

static void prepare_markup(writer *w, const unsigned char *s, size_t n, const folio_typeset_options *options,
                           const char *book_lang, folio_pattern_cache *cache) {
    char root_dir[16] = "", root_lang[32] = "";
    HyphenDict *dict = options->hyphenate ? folio_patterns(cache, book_lang) : NULL;
    size_t closes[sizeof kept_whole / sizeof *kept_whole] = {0};
    size_t i = 0;
    while (i < n) {
        if (s[i] != '<') {
            size_t j = i;
            while (j < n && s[j] != '<') j++;
            hyphenate_text(w, dict, s + i, j - i);
            i = j;
            continue;
        }
        // Comments and character data, passed on whole.
        size_t end = section_end(s, n, i, "<!--", "-->");
        if (!end) end = section_end(s, n, i, "<![CDATA[", "]]>");
        if (end) {
            put(w, s + i, end - i);
            i = end;
            continue;
        }
        // A tag, to its '>' (quoted values may hold one).
        end = i + 1;
        unsigned char quote = 0;
        while (end < n && (quote || s[end] != '>')) {
            if (quote && s[end] == quote) quote = 0;
            else if (!quote && (s[end] == '"' || s[end] == '\'')) quote = s[end];
            end++;
        }
        end = end < n ? end + 1 : n;
        const unsigned char *tag = s + i + 1;
        size_t tag_len = end - i - 1;
        if (tag_named(tag, tag_len, "html")) {
            attribute(tag, tag_len, "dir", root_dir, sizeof root_dir);
            if (!attribute(tag, tag_len, "xml:lang", root_lang, sizeof root_lang))
                attribute(tag, tag_len, "lang", root_lang, sizeof root_lang);
            if (root_lang[0] && options->hyphenate) dict = folio_patterns(cache, root_lang);
            put(w, s + i, end - i);
        } else if (tag_named(tag, tag_len, "body")) {
            // The root's direction and language, where the body names none of its own.
            char own[32];
            size_t close = end - i - 1 - (end - i >= 2 && s[end - 2] == '/');
            put(w, s + i, close);
            if (root_dir[0] && !attribute(tag, tag_len, "dir", own, sizeof own)) {
                fz_append_printf(w->ctx, w->out, " dir=\"%s\"", root_dir);
            }
            if (root_lang[0] && !attribute(tag, tag_len, "lang", own, sizeof own)) {
                fz_append_printf(w->ctx, w->out, " lang=\"%s\"", root_lang);
            }
            put(w, s + i + close, end - i - close);
        } else if (hidden_note(tag, tag_len)) {
            // A footnote standing where it is referred to is read on the card its reference
            // opens (bridge.c), not on the page, as Foliate and Apple Books leave it off.
            size_t close = end - i - 1 - (end - i >= 2 && s[end - 2] == '/');
            put(w, s + i, close);
            fz_append_string(w->ctx, w->out, " style=\"display:none\"");
            put(w, s + i + close, end - i - close);
        } else {
            size_t whole = kept_to(s, n, end, tag, tag_len, closes);
            // An element its publisher set `hyphens: none` is passed on as it is, to its end.
            if (whole == end && dict && unhyphenated(tag, tag_len, options)) whole = element_end(s, n, end, tag, tag_len);
            char href[512];
            if (whole > end && tag_named(tag, tag_len, "svg") && picture_of(s + end, whole - end, href, sizeof href)) {
                // A picture in an SVG wrapper (a fixed-layout page): the picture as an image
                // across the page, as MuPDF sizes an SVG's `<image>` by neither.
                fz_append_printf(w->ctx, w->out, "<img src=\"%s\" alt=\"\" style=\"display:block;width:100%%\"/>", href);
                size_t close = whole;
                while (close < n && s[close] != '>') close++;
                end = close < n ? close + 1 : n;
            } else {
                put(w, s + i, end - i);
                put(w, s + end, whole - end);
                end = whole;
            }
        }
        i = end;
    }
}

// MARK: pattern cache

HyphenDict *folio_patterns(folio_pattern_cache *cache, const char *lang) {
    // A tag longer than a cache slot names no language patterns exist for.
    if (!lang || !*lang || strlen(lang) >= sizeof cache->langs[0]) return NULL;
    for (int i = 0; i < cache->count; i++)
        if (!strcasecmp(cache->langs[i], lang)) return cache->dicts[i];
    if (cache->count == folio_pattern_cache_size) return NULL;
    HyphenDict *dict = load_patterns(cache->dirs, lang);
    int i = cache->count++;
    snprintf(cache->langs[i], sizeof cache->langs[i], "%s", lang);
    cache->dicts[i] = dict;
    if (dict && !cache->used[0]) snprintf(cache->used, sizeof cache->used, "%s", lang);
    return dict;
}

void folio_drop_patterns(folio_pattern_cache *cache) {
    for (int i = 0; i < cache->count; i++)
        if (cache->dicts[i]) hnj_hyphen_free(cache->dicts[i]);
    cache->count = 0;
}

// MARK: documents

static int markup_entry(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".xhtml") || !strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm") || !strcasecmp(dot, ".xht"));
}

fz_buffer *folio_prepare_markup(fz_context *ctx, fz_buffer *markup, const folio_typeset_options *options,
                                const char *book_lang, folio_pattern_cache *cache) {
    unsigned char *data;
    size_t len = fz_buffer_storage(ctx, markup, &data);
    // Soft hyphens add two bytes a break: a fifth more, usually.
    writer w = {ctx, fz_new_buffer(ctx, len + len / 5 + 64)};
    fz_try(ctx) prepare_markup(&w, data, len, options, book_lang, cache);
    fz_catch(ctx) {
        fz_drop_buffer(ctx, w.out);
        fz_rethrow(ctx);
    }
    return w.out;
}

/// Whether `name` (a manifest item's media type) is a picture MuPDF can show in a page.
static int picture_type(const char *type) {
    return type && !strncmp(type, "image/", 6);
}

/// A spine item that is a picture (a JPEG, PNG or SVG page of a comic or manga), which MuPDF
/// would parse as markup and draw blank: the manifest points at a page of markup made for it,
/// `name.folio.xhtml`, showing the picture across the page.
typedef struct { const char *id, *href; int spine; } picture_item;

static int by_id(const void *a, const void *b) { return strcmp(((const picture_item *)a)->id, ((const picture_item *)b)->id); }
static int by_href(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/// The OPF with its picture spine items pointing at pages made for them, or NULL when it has
/// none; `*pages` (fz_malloc'd, `*count` of them, sorted) the pictures' references. Items are
/// found by sorting and searching, so a spine of a hundred thousand items costs no more than
/// reading it.
static fz_buffer *rewrite_opf(fz_context *ctx, fz_buffer *opf, char ***pages, int *count) {
    fz_xml *xml = NULL;
    fz_buffer *out = NULL;
    picture_item *items = NULL;
    char **hrefs = NULL;
    int n = 0, found = 0;
    fz_var(xml); fz_var(out); fz_var(items); fz_var(hrefs); fz_var(n); fz_var(found);
    fz_try(ctx) {
        xml = fz_parse_xml(ctx, opf, 0);
        int capacity = 0;
        for (fz_xml *item = fz_xml_find_dfs(xml, "item", NULL, NULL); item; item = fz_xml_find_next_dfs(item, "item", NULL, NULL)) {
            const char *id = fz_xml_att(item, "id"), *href = fz_xml_att(item, "href");
            // A reference that would need escaping in markup is left alone.
            if (!id || !href || !picture_type(fz_xml_att(item, "media-type")) || strlen(href) > 1000 || strpbrk(href, "\"'<>&")) continue;
            if (n == capacity) {
                capacity = capacity ? capacity * 2 : 16;
                items = fz_realloc(ctx, items, (size_t)capacity * sizeof *items);
            }
            items[n++] = (picture_item){id, href, 0};
        }
        if (n == 0) break;
        qsort(items, (size_t)n, sizeof *items, by_id);
        for (fz_xml *ref = fz_xml_find_dfs(xml, "itemref", NULL, NULL); ref; ref = fz_xml_find_next_dfs(ref, "itemref", NULL, NULL)) {
            picture_item key = {fz_xml_att(ref, "idref"), NULL, 0};
            picture_item *hit = key.id ? bsearch(&key, items, (size_t)n, sizeof *items, by_id) : NULL;
            if (hit && !hit->spine) { hit->spine = 1; found++; }
        }
        if (found == 0) break;
        hrefs = fz_calloc(ctx, (size_t)found, sizeof *hrefs);
        for (int i = 0, k = 0; i < n; i++) if (items[i].spine) hrefs[k++] = fz_strdup(ctx, items[i].href);
        qsort(hrefs, (size_t)found, sizeof *hrefs, by_href);
        unsigned char *data;
        size_t len = fz_buffer_storage(ctx, opf, &data);
        out = fz_new_buffer(ctx, len + (size_t)found * 40);
        // Each such item's `href="X"` becomes `href="X.folio.xhtml"`, its media type markup's.
        size_t from = 0;
        for (size_t i = 0; i + 5 < len; i++) {
            if (memcmp(data + i, "<item", 5) || (data[i + 5] != ' ' && data[i + 5] != '\t' && data[i + 5] != '\n' && data[i + 5] != '\r')) continue;
            size_t end = i;
            while (end < len && data[end] != '>') end++;
            char href[1024] = "";
            char *key = href;
            if (!attribute(data + i + 1, end - i - 1, "href", href, sizeof href)
                || !bsearch(&key, hrefs, (size_t)found, sizeof *hrefs, by_href)) { i = end; continue; }
            for (size_t j = i; j < end; j++) {
                if (!memcmp(data + j, "href=", 5) && (j == i || data[j - 1] == ' ' || data[j - 1] == '\t' || data[j - 1] == '\n')) {
                    size_t close = j + 6;
                    while (close < end && data[close] != data[j + 5]) close++;
                    fz_append_data(ctx, out, data + from, close - from);
                    fz_append_string(ctx, out, ".folio.xhtml");
                    from = close;
                } else if (!memcmp(data + j, "media-type=", 11)) {
                    fz_append_data(ctx, out, data + from, j + 12 - from);
                    fz_append_string(ctx, out, "application/xhtml+xml");
                    size_t close = j + 12;
                    while (close < end && data[close] != data[j + 11]) close++;
                    from = close;
                }
            }
            i = end;
        }
        fz_append_data(ctx, out, data + from, len - from);
    }
    fz_always(ctx) {
        fz_free(ctx, items);
        fz_drop_xml(ctx, xml);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        out = NULL;
        for (int i = 0; hrefs && i < found; i++) fz_free(ctx, hrefs[i]);
        fz_free(ctx, hrefs);
        hrefs = NULL;
        found = 0;
    }
    *pages = hrefs;
    *count = out ? found : 0;
    return out;
}

/// Writes the page made for picture `href` (relative to the OPF in `opf_dir`).
static void write_picture_page(fz_context *ctx, fz_zip_writer *writer, const char *opf_dir, const char *href) {
    const char *slash = strrchr(href, '/');
    const char *file = slash ? slash + 1 : href;
    char name[2100];
    snprintf(name, sizeof name, "%s%s.folio.xhtml", opf_dir, href);
    fz_buffer *page = fz_new_buffer(ctx, 512);
    fz_try(ctx) {
        fz_append_printf(ctx, page, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title></title></head>"
                         "<body style=\"margin:0;padding:0\"><img src=\"%s\" alt=\"\" style=\"display:block;width:100%%\"/></body></html>", file);
        fz_write_zip_entry(ctx, writer, fz_cleanname(name), page, 0);
    }
    fz_always(ctx) fz_drop_buffer(ctx, page);
    fz_catch(ctx) fz_rethrow(ctx);
}

// MARK: the default serif

/// MuPDF's HTML layout looks each element's font family up among its built-in fonts by name,
/// letter by letter without case, before it falls back to its default serif; for `serif` (every
/// element a book leaves to the default) that failed search cost a third of a long book's layout
/// (the Mahabharata: 15 s of 23). Its stylesheet's own faces are looked up first, by an exact
/// comparison: so the default serif's files (the same built-in font MuPDF falls back to, and so
/// the same pages) go into the copy and are declared as the faces of `serif`. Only the serif:
/// MuPDF takes a face loaded from a file for a serif face, which for a sans would change the
/// fallback of the letters it lacks.
static const char *const serif_files[4] = {"folio-serif-r.cff", "folio-serif-i.cff", "folio-serif-b.cff", "folio-serif-bi.cff"};

const char folio_serif_css[] =
    "@font-face { font-family: serif; font-weight: normal; font-style: normal; src: url(folio-serif-r.cff); }\n"
    "@font-face { font-family: serif; font-weight: normal; font-style: italic; src: url(folio-serif-i.cff); }\n"
    "@font-face { font-family: serif; font-weight: bold; font-style: normal; src: url(folio-serif-b.cff); }\n"
    "@font-face { font-family: serif; font-weight: bold; font-style: italic; src: url(folio-serif-bi.cff); }\n";

/// The built-in face MuPDF's layout falls back to for `serif` (bold `f >> 1`, italic `f & 1`),
/// as its `fz_load_html_default_font` chooses it.
static const unsigned char *default_serif(fz_context *ctx, int f, int *size) {
    const unsigned char *data = fz_lookup_builtin_font(ctx, "Charis SIL", f >> 1, f & 1, size);
    return data ? data : fz_lookup_builtin_font(ctx, "Times", f >> 1, f & 1, size);
}

int folio_has_default_serif(fz_context *ctx) {
    for (int f = 0; f < 4; f++) {
        int size = 0;
        if (!default_serif(ctx, f, &size)) return 0;
    }
    return 1;
}

static void write_default_serif(fz_context *ctx, fz_zip_writer *writer) {
    if (!folio_has_default_serif(ctx)) return;
    for (int f = 0; f < 4; f++) {
        int size = 0;
        const unsigned char *data = default_serif(ctx, f, &size);
        fz_buffer *face = fz_new_buffer_from_shared_data(ctx, data, (size_t)size);
        fz_try(ctx) fz_write_zip_entry(ctx, writer, serif_files[f], face, 0);
        fz_always(ctx) fz_drop_buffer(ctx, face);
        fz_catch(ctx) fz_rethrow(ctx);
    }
}

fz_buffer *folio_prepare_epub(fz_context *ctx, fz_archive *arch, const char *opf_path, const folio_typeset_options *options,
                              const char *book_lang, int (*skip)(void *user, const char *name), void *user, folio_pattern_cache *cache) {
    fz_buffer *copy = NULL, *entry = NULL, *prepared = NULL;
    fz_zip_writer *writer = NULL;
    char **pictures = NULL;
    int picture_count = 0;
    fz_var(copy); fz_var(entry); fz_var(prepared); fz_var(writer); fz_var(pictures); fz_var(picture_count);
    folio_typeset_options local = *options;
    fz_try(ctx) {
        copy = fz_new_buffer(ctx, 1 << 16);
        writer = fz_new_zip_writer_with_output(ctx, fz_new_output_with_buffer(ctx, copy));
        int n = fz_count_archive_entries(ctx, arch);
        // The stylesheets first: which elements their publisher keeps unhyphenated.
        for (int i = 0; i < n && local.hyphenate; i++) {
            const char *name = fz_list_archive_entry(ctx, arch, i);
            const char *dot = name ? strrchr(name, '.') : NULL;
            if (!dot || strcasecmp(dot, ".css") || (skip && skip(user, name))) continue;
            entry = fz_read_archive_entry(ctx, arch, name);
            unsigned char *css;
            size_t css_len = fz_buffer_storage(ctx, entry, &css);
            read_unhyphenated(css, css_len, &local);
            fz_drop_buffer(ctx, entry);
            entry = NULL;
        }
        for (int i = 0; i < n; i++) {
            const char *name = fz_list_archive_entry(ctx, arch, i);
            // Folders are listed as entries of their own and hold nothing.
            if (!name || !*name || name[strlen(name) - 1] == '/' || (skip && skip(user, name))) continue;
            entry = fz_read_archive_entry(ctx, arch, name);
            if (opf_path && !strcmp(name, opf_path) && !pictures) {
                prepared = rewrite_opf(ctx, entry, &pictures, &picture_count);
            } else if (markup_entry(name)) {
                prepared = folio_prepare_markup(ctx, entry, &local, book_lang, cache);
            }
            if (prepared) {
                fz_drop_buffer(ctx, entry);
                entry = prepared;
                prepared = NULL;
            }
            // Stored: the copy lives in memory for the book's life, and deflating costs more
            // than it saves there.
            fz_write_zip_entry(ctx, writer, name, entry, 0);
            fz_drop_buffer(ctx, entry);
            entry = NULL;
        }
        // At the archive's root, where MuPDF looks a user stylesheet's `@font-face` sources up.
        for (int f = 0; f < 4 && options->faces[0]; f++)
            fz_write_zip_entry(ctx, writer, folio_face_files[f], options->faces[f] ? options->faces[f] : options->faces[0], 0);
        write_default_serif(ctx, writer);
        if (picture_count) {
            char dir[1024] = "";
            const char *slash = strrchr(opf_path, '/');
            if (slash && (size_t)(slash - opf_path + 1) < sizeof dir) memcpy(dir, opf_path, (size_t)(slash - opf_path + 1));
            for (int i = 0; i < picture_count; i++) write_picture_page(ctx, writer, dir, pictures[i]);
        }
        fz_close_zip_writer(ctx, writer);
    }
    fz_always(ctx) {
        for (int i = 0; pictures && i < picture_count; i++) fz_free(ctx, pictures[i]);
        fz_free(ctx, pictures);
        fz_drop_zip_writer(ctx, writer);
        fz_drop_buffer(ctx, entry);
        fz_drop_buffer(ctx, prepared);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, copy);
        fz_rethrow(ctx);
    }
    return copy;
}

// MARK: furniture

/// The width of `text` set in `font` at `size`, and, with `dev`, the text drawn from `x`, `y`.
static float show(fz_context *ctx, fz_device *dev, fz_matrix ctm, fz_font *font, float size, const char *text,
                  float x, float y, const float *color) {
    fz_text *t = NULL;
    float width = 0;
    fz_var(t);
    fz_try(ctx) {
        t = fz_new_text(ctx);
        fz_matrix trm = fz_scale(size, -size);
        trm.e = x;
        trm.f = y;
        for (const char *p = text; *p;) {
            int c;
            p += fz_chartorune(&c, p);
            fz_font *used = font;
            int gid = fz_encode_character_with_fallback(ctx, font, c, 0, FZ_LANG_UNSET, &used);
            fz_show_glyph(ctx, t, used, trm, gid, c, 0, 0, FZ_BIDI_LTR, FZ_LANG_UNSET);
            float advance = fz_advance_glyph(ctx, used, gid, 0) * size;
            trm.e += advance;
            width += advance;
        }
        if (dev) fz_fill_text(ctx, dev, t, ctm, fz_device_rgb(ctx), color, 1, fz_default_color_params);
    }
    fz_always(ctx) fz_drop_text(ctx, t);
    fz_catch(ctx) fz_rethrow(ctx);
    return width;
}

/// `text` on the line at `y`, placed by `align` between `left` and `right`; a line too long for
/// the measure is cut at a word and ends in an ellipsis.
static void line(fz_context *ctx, fz_device *dev, fz_matrix ctm, fz_font *font, float size, const char *text, int align,
                 float left, float right, float y, const float *color) {
    if (!text || !*text) return;
    char fitted[512];
    snprintf(fitted, sizeof fitted, "%s", text);
    float width = show(ctx, NULL, ctm, font, size, fitted, 0, 0, color);
    while (width > right - left) {
        char *end = strrchr(fitted, ' ');
        if (!end) return;
        // Punctuation before the cut goes with the words cut.
        while (end > fitted && strchr(",;:.-", end[-1])) end--;
        strcpy(end, "\xE2\x80\xA6");
        width = show(ctx, NULL, ctm, font, size, fitted, 0, 0, color);
    }
    float x = align == 0 ? left : align == 2 ? right - width : (left + right - width) / 2;
    show(ctx, dev, ctm, font, size, fitted, x, y, color);
}

void folio_draw_furniture(fz_context *ctx, fz_device *dev, fz_matrix ctm, const folio_mu_furniture *f) {
    fz_font *roman = NULL, *italic = NULL;
    fz_var(roman); fz_var(italic);
    const float color[3] = {(f->ink >> 16 & 255) / 255.0f, (f->ink >> 8 & 255) / 255.0f, (f->ink & 255) / 255.0f};
    fz_try(ctx) {
        roman = fz_new_base14_font(ctx, "Times-Roman");
        italic = fz_new_base14_font(ctx, "Times-Italic");
        line(ctx, dev, ctm, italic, f->size, f->head, f->head_align, f->left, f->right, f->head_y, color);
        line(ctx, dev, ctm, roman, f->size, f->foot, f->foot_align, f->left, f->right, f->foot_y, color);
    }
    fz_always(ctx) {
        fz_drop_font(ctx, roman);
        fz_drop_font(ctx, italic);
    }
    fz_catch(ctx) fz_rethrow(ctx);
}

// MARK: notes

/// Whether an attribute value names a note (`epub:type="footnote"`, `role="doc-endnote"`, …).
static int names_note(const char *value) {
    if (!value) return 0;
    static const char *const kinds[] = {"footnote", "endnote", "rearnote", "note", "doc-footnote", "doc-endnote"};
    char word[64];
    for (const char *p = value; *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (n > 0 && n < sizeof word) {
            memcpy(word, p, n);
            word[n] = 0;
            for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) if (!strcmp(word, kinds[k])) return 1;
        }
        p += n;
    }
    return 0;
}

static int is_note(fz_xml *node) {
    const char *tag = fz_xml_tag(node);
    return (tag && !strcmp(tag, "aside")) || names_note(fz_xml_att(node, "epub:type")) || names_note(fz_xml_att(node, "type"))
        || names_note(fz_xml_att(node, "role"));
}

/// The element of `root`'s tree whose id is `id` (depth-first, without recursion: a note file
/// may nest deeply).
static fz_xml *element_with_id(fz_xml *root, const char *id) {
    for (fz_xml *node = root; node;) {
        const char *own = fz_xml_tag(node) ? fz_xml_att(node, "id") : NULL;
        if (own && !strcmp(own, id)) return node;
        if (fz_xml_down(node)) { node = fz_xml_down(node); continue; }
        while (node && !fz_xml_next(node)) {
            node = fz_xml_up(node);
            if (node == root) return NULL;
        }
        if (node) node = fz_xml_next(node);
    }
    return NULL;
}

static int block_tag(const char *tag) {
    static const char *const blocks[] = {"p", "div", "li", "br", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "dd", "dt", "tr"};
    for (size_t k = 0; tag && k < sizeof blocks / sizeof *blocks; k++) if (!strcmp(tag, blocks[k])) return 1;
    return 0;
}

/// The note's text: runs of white space one space, blocks on lines of their own, the marks
/// that lead back to the reference (↩) left out; at most `limit` bytes.
static char *note_text(fz_xml *note, size_t limit) {
    char *out = malloc(limit + 4);
    if (!out) return NULL;
    size_t n = 0;
    int space = 1;
    fz_xml *node = fz_xml_down(note);
    while (node && n < limit) {
        const char *tag = fz_xml_tag(node);
        if (!tag) {
            for (const char *t = fz_xml_text(node); t && *t && n < limit; t++) {
                unsigned char c = (unsigned char)*t;
                if (!strncmp(t, "\xE2\x86\xA9", 3)) { t += 2; continue; }  // ↩
                if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                    if (!space) { out[n++] = ' '; space = 1; }
                } else {
                    out[n++] = (char)c;
                    space = 0;
                }
            }
        } else if (block_tag(tag) && n > 0 && out[n - 1] != '\n') {
            while (n > 0 && out[n - 1] == ' ') n--;
            out[n++] = '\n';
            space = 1;
        }
        if (tag && fz_xml_down(node)) { node = fz_xml_down(node); continue; }
        while (node && !fz_xml_next(node)) {
            node = fz_xml_up(node);
            if (node == note) node = NULL;
        }
        if (node) node = fz_xml_next(node);
    }
    // Cut within the limit at a character's start.
    while (n > 0 && ((unsigned char)out[n - 1] & 0xC0) == 0x80 && n >= limit) n--;
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\n')) n--;
    out[n] = 0;
    if (n == 0) { free(out); return NULL; }
    return out;
}

/// Elements deeper than this within one gathered text are passed over (the markup was checked
/// to 500 levels; a title or a label needs a few).
enum { xml_text_depth = 64 };

static void xml_text(fz_xml *x, char *out, size_t size, int depth) {
    for (fz_xml *c = fz_xml_down(x); c && depth < xml_text_depth; c = fz_xml_next(c)) {
        const char *t = fz_xml_text(c);
        if (!t) {
            xml_text(c, out, size, depth + 1);
            continue;
        }
        size_t n = strlen(out);
        for (; *t && n + 1 < size; t++) {
            if (!strncmp(t, "\xE2\x86\xA9", 3)) { t += 2; continue; }
            if (!strncmp(t, "\xC2\xAD", 2)) { t += 1; continue; }
            int space = isspace((unsigned char)*t);
            if (space && n > 0 && out[n - 1] == ' ') continue;
            out[n++] = space ? ' ' : *t;
            out[n] = 0;
        }
    }
}

void folio_xml_text(fz_xml *x, char *out, size_t size) {
    if (!size) return;
    out[0] = 0;
    xml_text(x, out, size, 0);
    // Trimmed: a row of one line.
    char *from = out;
    while (*from == ' ') from++;
    memmove(out, from, strlen(from) + 1);
    for (size_t n = strlen(out); n && out[n - 1] == ' '; n--) out[n - 1] = 0;
}

/// The links inside `note` (its `a` elements with an `href`; a back link, a "↩" alone, left
/// out) into `refs` (at most `folio_note_link_limit`), a target in the book made a path in the
/// archive from the note's file `file`; how many.
static int note_refs(fz_xml *note, const char *file, folio_note_ref *refs) {
    int count = 0;
    fz_xml *node = fz_xml_down(note);
    while (node && count < folio_note_link_limit) {
        const char *tag = fz_xml_tag(node), *href = tag && !strcmp(tag, "a") ? fz_xml_att(node, "href") : NULL;
        if (href && *href) {
            folio_note_ref *r = refs + count;
            folio_xml_text(node, r->label, sizeof r->label);
            if (strchr(href, ':')) {
                snprintf(r->target, sizeof r->target, "%s", href);
            } else {
                // Relative to the note's file: "#n2" within it, "c2.xhtml" beside it.
                const char *slash = strrchr(file, '/');
                if (href[0] == '#') snprintf(r->target, sizeof r->target, "%s%s", file, href);
                else snprintf(r->target, sizeof r->target, "%.*s%s", slash ? (int)(slash - file + 1) : 0, file, href);
                fz_urldecode(r->target);
                fz_cleanname(r->target);
            }
            if (r->label[0]) count++;
        }
        // Into an element that is not a link; past a link's own text.
        if (tag && !href && fz_xml_down(node)) { node = fz_xml_down(node); continue; }
        while (node && !fz_xml_next(node)) {
            node = fz_xml_up(node);
            if (node == note) node = NULL;
        }
        if (node) node = fz_xml_next(node);
    }
    return count;
}

char *folio_note(fz_context *ctx, folio_notes *notes, fz_buffer *copy, const char *uri, folio_note_ref *refs, int *ref_count) {
    if (ref_count) *ref_count = 0;
    const char *hash = strchr(uri, '#');
    if (!hash || !hash[1] || (size_t)(hash - uri) >= sizeof notes->name) return NULL;
    char *text = NULL;
    fz_buffer *buf = NULL;
    fz_stream *stream = NULL;
    fz_var(buf); fz_var(stream); fz_var(text);
    fz_try(ctx) {
        if (!notes->archive) {
            stream = fz_open_buffer(ctx, copy);
            notes->archive = fz_open_zip_archive_with_stream(ctx, stream);
        }
        char name[sizeof notes->name];
        memcpy(name, uri, (size_t)(hash - uri));
        name[hash - uri] = 0;
        if (strcmp(name, notes->name) || !notes->xml) {
            fz_drop_xml(ctx, notes->xml);
            notes->xml = NULL;
            snprintf(notes->name, sizeof notes->name, "%s", name);
            if (fz_has_archive_entry(ctx, notes->archive, name)) {
                buf = fz_read_archive_entry(ctx, notes->archive, name);
                notes->xml = fz_parse_xml(ctx, buf, 1);
            }
        }
        fz_xml *target = notes->xml ? element_with_id(fz_xml_root(notes->xml), hash + 1) : NULL;
        // The element itself, or the one holding it (an id on a note's first paragraph).
        fz_xml *note = target && is_note(target) ? target : target && fz_xml_up(target) && is_note(fz_xml_up(target)) ? fz_xml_up(target) : NULL;
        if (note) text = note_text(note, 4000);
        if (text && refs && ref_count) *ref_count = note_refs(note, name, refs);
    }
    fz_always(ctx) {
        fz_drop_stream(ctx, stream);
        fz_drop_buffer(ctx, buf);
    }
    fz_catch(ctx) text = NULL;  // a note file MuPDF cannot parse: the link turns the page
    return text;
}

void folio_drop_notes(fz_context *ctx, folio_notes *notes) {
    fz_drop_xml(ctx, notes->xml);
    fz_drop_archive(ctx, notes->archive);
    memset(notes, 0, sizeof *notes);
}

// MARK: the reader's face

const char *const folio_face_files[4] = {"folio-face-r.ttf", "folio-face-b.ttf", "folio-face-i.ttf", "folio-face-bi.ttf"};

/// A face's file, read here, not through MuPDF (which opens nothing outside the book: bridge.c):
/// a regular file of at most 64 MiB, or NULL.
static fz_buffer *read_face(fz_context *ctx, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    fz_buffer *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= (64 << 20)) {
        fz_try(ctx) {
            buf = fz_new_buffer(ctx, (size_t)st.st_size);
            size_t got = 0;
            ssize_t n;
            while (got < (size_t)st.st_size && (n = read(fd, buf->data + got, (size_t)st.st_size - got)) > 0) got += (size_t)n;
            buf->len = got;
            if (got != (size_t)st.st_size) fz_throw(ctx, FZ_ERROR_GENERIC, "short read");
        }
        fz_catch(ctx) {
            fz_drop_buffer(ctx, buf);
            buf = NULL;
        }
    }
    close(fd);
    return buf;
}

/// The file of `family`'s face of this weight and slant, read, or NULL when fontconfig's best
/// match is another family (it always answers with something).
static fz_buffer *face_file(fz_context *ctx, const char *family, int bold, int italic) {
    FcPattern *pattern = FcPatternBuild(NULL, FC_FAMILY, FcTypeString, (const FcChar8 *)family,
                                        FC_WEIGHT, FcTypeInteger, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR,
                                        FC_SLANT, FcTypeInteger, italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN, (char *)NULL);
    if (!pattern) return NULL;
    FcConfigSubstitute(NULL, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    FcResult result;
    FcPattern *match = FcFontMatch(NULL, pattern, &result);
    FcPatternDestroy(pattern);
    if (!match) return NULL;
    FcChar8 *file = NULL, *found = NULL;
    fz_buffer *buf = NULL;
    int weight = 0, slant = 0;
    FcPatternGetInteger(match, FC_WEIGHT, 0, &weight);
    FcPatternGetInteger(match, FC_SLANT, 0, &slant);
    int styled = (!bold || weight >= FC_WEIGHT_DEMIBOLD) && (!italic || slant != FC_SLANT_ROMAN);
    if (FcPatternGetString(match, FC_FAMILY, 0, &found) == FcResultMatch && !strcasecmp((const char *)found, family) && styled
        && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch) {
        buf = read_face(ctx, (const char *)file);
    }
    FcPatternDestroy(match);
    return buf;
}

int folio_faces(fz_context *ctx, const char *family, fz_buffer *faces[4]) {
    for (int f = 0; f < 4; f++) faces[f] = family && *family ? face_file(ctx, family, f & 1, f >> 1 & 1) : NULL;
    return faces[0] != NULL;
}
