// A book's stylesheets copied for MuPDF 1.21's CSS: selectors it drops rewritten to ones it keeps,
// each rule's declarations said again as it reads them (css.c), the rules of `@media` blocks that
// hold for a reader's page taken out of the blocks MuPDF skips, and what it cannot parse (`@page`,
// `calc()`, comments, a byte-order mark, `local()` font sources) left out.
// Does not: add rules or select elements, or read anything outside the stylesheet.
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: media queries

static void put_css(fz_context *ctx, fz_buffer *out, const unsigned char *s, size_t n, const fb_sizes *sizes);

/// Where the comment or quoted string at `i` of stylesheet `s` (`n` bytes) ends (its last byte,
/// or where the stylesheet ends); `i` when none starts there. A string ends at its line's end.
static size_t passed_over(const unsigned char *s, size_t n, size_t i) {
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') return fb_comment_end(s, n, i);
    if (s[i] != '"' && s[i] != '\'') return i;
    unsigned char quote = s[i++];
    while (i < n && s[i] != quote && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
    return i;
}

/// Whether media query `q` (`n` bytes, one of a list) holds for a reader's page: media `all`
/// and `screen` (none named is `all`), `(orientation: portrait)`; not `print`, `speech` and the
/// like, a Kindle's `amzn-kf8` and `amzn-mobi`, or any other feature (widths and the colour
/// scheme are not known when the book is prepared). `not` turns it round; `only` is read past.
static int media_query_holds(const unsigned char *q, size_t n) {
    char words[8][40];
    int count = 0;
    for (size_t i = 0; i < n && count < 8;) {
        while (i < n && isspace(q[i])) i++;
        size_t k = 0;
        int depth = 0;
        // A word, or a parenthesised feature whole, spaces taken out.
        while (i < n && (depth || !isspace(q[i]))) {
            if (q[i] == '(') depth++;
            else if (q[i] == ')') depth--;
            if (!isspace(q[i]) && k + 1 < sizeof words[0]) words[count][k++] = (char)tolower(q[i]);
            i++;
        }
        words[count][k] = 0;
        if (k) count++;
    }
    int at = 0, negated = 0, holds = 1;
    if (at < count && !strcmp(words[at], "only")) at++;
    else if (at < count && !strcmp(words[at], "not")) at++, negated = 1;
    if (at < count && words[at][0] != '(') holds = !strcmp(words[at], "all") || !strcmp(words[at], "screen"), at++;
    for (; at < count; at++) {
        if (!strcmp(words[at], "and")) continue;
        holds = holds && !strcmp(words[at], "(orientation:portrait)");
    }
    return count > 0 && holds != negated;
}

/// Whether `@media` prelude `s` (`n` bytes, after the word, to its brace) holds: any of its
/// comma-separated queries does.
static int media_holds(const unsigned char *s, size_t n) {
    for (size_t a = 0; a <= n;) {
        size_t b = a;
        while (b < n && s[b] != ',') b++;
        if (media_query_holds(s + a, b - a)) return 1;
        a = b + 1;
    }
    return 0;
}

/// The `n` bytes of stylesheet at `s` with the rules of each `@media` block that holds for a
/// reader's page (`media_holds`) taken out of it, as MuPDF 1.21 skips every `@media` block
/// whole (a W3C note's `@media screen { .sec_ref { font-style: italic } }` and its faces were
/// lost); blocks that do not hold are left for MuPDF to skip. NULL when none holds.
static fz_buffer *unwrap_media(fz_context *ctx, const unsigned char *s, size_t n) {
    fz_buffer *out = NULL;
    size_t from = 0;
    int depth = 0;
    // The depths of the blocks unwrapped, whose closing braces are left out.
    int open[16], opened = 0;
    fz_var(out);
    fz_try(ctx) {
        for (size_t i = 0; i < n; i++) {
            size_t passed = passed_over(s, n, i);
            if (passed != i) {
                i = passed;
            } else if (s[i] == '{') {
                depth++;
            } else if (s[i] == '}') {
                if (opened && open[opened - 1] == depth) {
                    if (!out) out = fz_new_buffer(ctx, n);
                    fz_append_data(ctx, out, s + from, i - from);
                    from = i + 1;
                    opened--;
                }
                if (depth) depth--;
            } else if (s[i] == '@' && n - i > 6 && !strncasecmp((const char *)s + i, "@media", 6) && opened < 16) {
                const unsigned char *brace = memchr(s + i, '{', n - i);
                const unsigned char *semi = memchr(s + i, ';', n - i);
                if (!brace || (semi && semi < brace)) continue;
                size_t b = (size_t)(brace - s);
                if (!media_holds(s + i + 6, b - i - 6)) continue;
                if (!out) out = fz_new_buffer(ctx, n);
                fz_append_data(ctx, out, s + from, i - from);
                from = b + 1;
                open[opened++] = ++depth;
                i = b;
            }
        }
        if (out) fz_append_data(ctx, out, s + from, n - from);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

// MARK: selectors

/// `@font-face` rules of a stylesheet read, at most (a book has a few dozen faces).
enum { css_faces = 256 };

/// Appends to `out` the `n` bytes of stylesheet at `s` with its selectors of
/// `epub:type` (`[epub|type~="noteref"]`, `[epub\:type=…]`) made selectors of `epub-type`, which
/// every element that has one is also given in the copy (`fb_put_start_tag`): MuPDF 1.21's CSS reads
/// neither a namespace nor an escaped colon, and drops the whole rule: every Standard Ebooks book
/// lost the rules for its note references (set full-size into the text: "1659–6047"), its verse
/// and its title pages. Each rule's declarations are said again in properties MuPDF reads
/// (`fb_rule_additions`, css.c), and the rules of `@media` blocks that hold are taken out of them
/// (`unwrap_media`).
void fb_put_css(fz_context *ctx, fz_buffer *out, const unsigned char *s, size_t n, const fb_sizes *sizes) {
    // MuPDF reads a byte-order mark as the start of a selector, and lost the rule it began.
    if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3, n -= 3;
    fz_buffer *unwrapped = unwrap_media(ctx, s, n);
    if (!unwrapped) {
        put_css(ctx, out, s, n, sizes);
        return;
    }
    fz_try(ctx) {
        unsigned char *data;
        size_t len = fz_buffer_storage(ctx, unwrapped, &data);
        put_css(ctx, out, data, len, sizes);
    }
    fz_always(ctx) fz_drop_buffer(ctx, unwrapped);
    fz_catch(ctx) fz_rethrow(ctx);
}

/// Where the at-rule at `i` of stylesheet `s` (`n` bytes) ends: its `;`, or the brace that
/// closes its block (blocks inside it passed over), or the stylesheet's last byte.
static size_t at_rule_end(const unsigned char *s, size_t n, size_t i) {
    int depth = 0;
    for (; i < n; i++) {
        size_t passed = passed_over(s, n, i);
        if (passed != i) i = passed;
        else if (s[i] == ';' && !depth) return i;
        else if (s[i] == '{') depth++;
        else if (s[i] == '}' && --depth <= 0) return i;
    }
    return n - 1;
}

/// The `src` of `@font-face` block `s` (`n` bytes) without its `local()` faces, as a declaration
/// into `out` (`size` bytes): MuPDF tries only a face's first source, and took `local('Noticia
/// Text')` for a file outside the book, which it does not open, so that the face the book holds
/// (`url(media/noticia.woff)`, after it) was never used. Its length; 0 when the `src` names no
/// local face, or nothing else.
static size_t sources_in_book(const unsigned char *s, size_t n, char *out, size_t size) {
    size_t at = 0;
    for (; at + 3 <= n; at++)
        if (!strncasecmp((const char *)s + at, "src", 3) && (!at || s[at - 1] == ';' || s[at - 1] == '{' || isspace(s[at - 1]))) {
            size_t c = at + 3;
            while (c < n && isspace(s[c])) c++;
            if (c < n && s[c] == ':') { at = c + 1; break; }
        }
    if (at + 3 > n) return 0;
    size_t k = 0;
    int local = 0, kept = 0;
    if (size < 8) return 0;
    memcpy(out, "src: ", 5), k = 5;
    // The sources, parted by commas outside parentheses and quotes, to the declaration's end.
    for (size_t from = at, i = at, depth = 0, quote = 0; i <= n; i++) {
        unsigned char c = i < n ? s[i] : ';';
        if (quote) { if (c == quote) quote = 0; continue; }
        if (c == '"' || c == '\'') { quote = c; continue; }
        if (c == '(') depth++;
        else if (c == ')' && depth) depth--;
        if (depth || (c != ',' && c != ';' && c != '}')) continue;
        size_t a = from, b = i;
        while (a < b && isspace(s[a])) a++;
        while (b > a && isspace(s[b - 1])) b--;
        if (b - a >= 6 && !strncasecmp((const char *)s + a, "local(", 6)) local = 1;
        else if (b > a && k + (b - a) + 4 < size) {
            if (kept++) out[k++] = ',', out[k++] = ' ';
            memcpy(out + k, s + a, b - a), k += b - a;
        }
        from = i + 1;
        if (c != ',') break;
    }
    if (!local || !kept) return 0;
    out[k++] = ';';
    out[k] = 0;
    return k;
}

/// Where the `calc()` at `i` of stylesheet `s` (`n` bytes) ends (its `)`), and its first
/// number, with its unit (`*first`, `*length` bytes): what MuPDF is given for it, as it reads
/// no arithmetic (`calc(80% - 2em)`) and dropped the whole rule the declaration was in. 0 when
/// no `calc(` starts there or it holds no number.
static size_t calc_operand(const unsigned char *s, size_t n, size_t i, size_t *first, size_t *length) {
    if (n - i < 5 || strncasecmp((const char *)s + i, "calc(", 5) || (i && (isalnum(s[i - 1]) || s[i - 1] == '-'))) return 0;
    *length = 0;
    int depth = 0;
    for (size_t k = i + 4; k < n; k++) {
        if (s[k] == '(') depth++;
        else if (s[k] == ')' && --depth == 0) return *length ? k : 0;
        else if (!*length && (isdigit(s[k]) || (s[k] == '.' && k + 1 < n && isdigit(s[k + 1])))
                 && !(isalnum(s[k - 1]) || s[k - 1] == '-' || s[k - 1] == '_')) {
            *first = k;
            while (k + *length < n && (isalnum(s[k + *length]) || s[k + *length] == '.' || s[k + *length] == '%')) (*length)++;
        } else if (s[k] == ';' || s[k] == '}') return 0;
    }
    return 0;
}

/// `fb_put_css` of a stylesheet without `@media` blocks that hold. `@page` rules are left out:
/// the reader's page is Folio's, and MuPDF 1.21 reads no page's name (`@page WordSection1`, as
/// Word writes) nor a margin box inside one, and dropped the whole stylesheet where it met one.
static void put_css(fz_context *ctx, fz_buffer *out, const unsigned char *s, size_t n, const fb_sizes *sizes) {
    static const char *const names[] = {"epub|type", "epub\\:type"};
    static const char first_child[] = ":first-child";
    size_t from = 0, selector = 0, block = (size_t)-1;
    int faces = 0;
    for (size_t i = 0; i < n; i++) {
        // Faces past `css_faces` are left out: MuPDF loads each (50,000 took minutes).
        if (s[i] == '@' && block == (size_t)-1 && n - i > 10 && !strncasecmp((const char *)s + i, "@font-face", 10) && ++faces > css_faces) {
            const unsigned char *close = memchr(s + i, '}', n - i);
            fz_append_data(ctx, out, s + from, i - from);
            i = close ? (size_t)(close - s) : n - 1;
            from = i + 1;
            selector = from;
            continue;
        }
        size_t passed = passed_over(s, n, i);
        if (passed != i && s[i] == '/') {
            // A comment is left out, a space in its place: MuPDF's parser takes one between a
            // selector and its brace (`h1 /* book title */ {`) for part of the selector, and
            // dropped the rule.
            fz_append_data(ctx, out, s + from, i - from);
            fz_append_byte(ctx, out, ' ');
            i = passed;
            from = i + 1;
            continue;
        }
        if (passed != i) {
            i = passed;
            continue;
        }
        if (s[i] == '@' && block == (size_t)-1 && n - i > 5 && !strncasecmp((const char *)s + i, "@page", 5)
            && (n - i == 5 || !(isalnum(s[i + 5]) || s[i + 5] == '-'))) {
            fz_append_data(ctx, out, s + from, i - from);
            i = at_rule_end(s, n, i);
            from = i + 1;
            selector = from;
            continue;
        }
        if (s[i] == '{') {
            // A rule inside an at-rule (`@media screen { hr { … } }`) is selected by what follows its brace.
            if (block != (size_t)-1) selector = block;
            block = i + 1;
            continue;
        }
        if (s[i] == ';' && block == (size_t)-1) selector = i + 1;
        if (s[i] == '}') {
            char add[1024];
            size_t sel = selector, k = 0;
            while (sel < n && isspace(s[sel])) sel++;
            if (block != (size_t)-1 && block > sel && s[sel] != '@') {
                k = fb_rule_additions(s + sel, block - 1 - sel, s + block, i - block, add, sizeof add, sizes);
            } else if (block != (size_t)-1 && block > sel && n - sel > 10 && !strncasecmp((const char *)s + sel, "@font-face", 10)) {
                k = sources_in_book(s + block, i - block, add, sizeof add);
            }
            if (k) {
                fz_append_data(ctx, out, s + from, i - from);
                fz_append_string(ctx, out, "; ");
                fz_append_data(ctx, out, add, k);
                from = i;
            }
            block = (size_t)-1;
            selector = i + 1;
            continue;
        }
        size_t calc_end, first, first_len;
        if (block != (size_t)-1 && (s[i] == 'c' || s[i] == 'C') && (calc_end = calc_operand(s, n, i, &first, &first_len))) {
            fz_append_data(ctx, out, s + from, i - from);
            fz_append_data(ctx, out, s + first, first_len);
            from = calc_end + 1;
            i = calc_end;
            continue;
        }
        if (s[i] == ':' && n - i >= sizeof first_child - 1 && !memcmp(s + i, first_child, sizeof first_child - 1)
            && (n - i == sizeof first_child - 1 || !(isalnum(s[i + sizeof first_child - 1]) || s[i + sizeof first_child - 1] == '-'))) {
            fz_append_data(ctx, out, s + from, i - from);
            fz_append_string(ctx, out, "[folio-first]");
            from = i + sizeof first_child - 1;
            continue;
        }
        if (s[i] != '[') continue;
        size_t j = i + 1;
        while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
        for (int k = 0; k < 2; k++) {
            size_t len = strlen(names[k]);
            if (j + len > n || memcmp(s + j, names[k], len)) continue;
            fz_append_data(ctx, out, s + from, j - from);
            fz_append_string(ctx, out, "epub-type");
            from = j + len;
            break;
        }
    }
    fz_append_data(ctx, out, s + from, n - from);
}

