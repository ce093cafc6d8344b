// Rules of a book's stylesheets that the prepared copy carries out itself, as MuPDF 1.21 reads
// them not: generated content, the text they put before or after elements (`::before`,
// `::after { content: "…" }`), written into the markup's copy as text (typeset.c), as Standard
// Ebooks' plays put every stage direction in parentheses; and the percentage widths of table
// cells (`td.persona { width: 20% }`), which columns.c gives their columns.
// A chapter's own `<style>`s add to the book's stylesheets' rules for that chapter alone
// (`fb_read_head_styles`).
// Generated content follows one combinator of two simple selectors (`.Keyword + .Keyword::before`,
// `.Citation .Year::before`, `li > p::after`: fb_elements follows the elements open for it).
// Does not: follow selectors of more combinators or several attributes for generated content,
// read a cell's width but by the last part of its selector, or follow counters, quotes or
// `attr()`, rules inside `@media` or `@supports`, or any property of the rule but `font-style`,
// `content` and `width`; the text is the stylesheet's, never the book's markup or anything outside.
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int name_char(unsigned char c) { return isalnum(c) || c == '-' || c == '_'; }

/// Appends code point `c` to `out` (`*k` bytes of `size` used) as UTF-8, if it fits.
static void put_utf8(char *out, size_t size, size_t *k, unsigned long c) {
    char b[4];
    size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c > 0x10FFFF || (c >= 0xD800 && c < 0xE000) || *k + n >= size) return;
    if (n == 1) b[0] = (char)c;
    else if (n == 2) b[0] = (char)(0xC0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3F));
    else if (n == 3) b[0] = (char)(0xE0 | c >> 12), b[1] = (char)(0x80 | (c >> 6 & 0x3F)), b[2] = (char)(0x80 | (c & 0x3F));
    else b[0] = (char)(0xF0 | c >> 18), b[1] = (char)(0x80 | (c >> 12 & 0x3F)), b[2] = (char)(0x80 | (c >> 6 & 0x3F)), b[3] = (char)(0x80 | (c & 0x3F));
    memcpy(out + *k, b, n);
    *k += n;
}

/// The one quoted string value `v` (`n` bytes, trimmed) is, its escapes read (`\"`, `\201C `),
/// into `out`; 0 when the value is anything else (several strings, `attr()`, `counter()`).
static int css_string(const unsigned char *v, size_t n, char *out, size_t size) {
    if (n < 2 || (v[0] != '"' && v[0] != '\'') || v[n - 1] != v[0]) return 0;
    size_t k = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (v[i] == v[0]) return 0;
        if (v[i] != '\\') {
            if (k + 1 < size) out[k++] = (char)v[i];
            continue;
        }
        if (++i + 1 >= n) return 0;
        if (!isxdigit(v[i])) {
            if (v[i] != '\n' && k + 1 < size) out[k++] = (char)v[i];
            continue;
        }
        unsigned long c = 0;
        for (int d = 0; d < 6 && i + 1 < n && isxdigit(v[i]); d++, i++) c = c * 16 + (unsigned long)(isdigit(v[i]) ? v[i] - '0' : tolower(v[i]) - 'a' + 10);
        // One white space ends an escape and is part of it.
        if (!(i + 1 < n && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n'))) i--;
        put_utf8(out, size, &k, c);
    }
    out[k] = 0;
    return k > 0;
}

/// Reads selector `s` (`n` bytes, trimmed) of the form `name.class[epub|type~="value"]` into
/// `g`, followed by `::before` or `::after` where `after` is given (`*after` then says which);
/// each part but the pseudo-element may be missing; 0 when it is not of that form.
static int read_selector(const unsigned char *s, size_t n, folio_selector *g, int *after) {
    static const char *const pseudo[] = {"::before", ":before", "::after", ":after"};
    size_t end = n;
    for (int k = 0; k < 4 && end == n && after; k++) {
        size_t len = strlen(pseudo[k]);
        if (n > len && !strncasecmp((const char *)s + n - len, pseudo[k], len)) end = n - len, *after = k >= 2;
    }
    if ((after && end == n) || end == 0) return 0;
    size_t i = 0, k = 0;
    while (i < end && name_char(s[i]) && k + 1 < sizeof g->element) g->element[k++] = (char)tolower(s[i++]);
    g->element[k] = 0;
    if (i < end && s[i] == '.') {
        k = 0;
        for (i++; i < end && name_char(s[i]) && k + 1 < sizeof g->class_name; i++) g->class_name[k++] = (char)s[i];
        g->class_name[k] = 0;
        if (!k) return 0;
    }
    if (i < end && s[i] == '[') {
        static const char *const names[] = {"epub|type~=", "epub\\:type~="};
        size_t at = i + 1, len = 0;
        for (int m = 0; m < 2 && !len; m++)
            if (end - at > strlen(names[m]) && !strncmp((const char *)s + at, names[m], strlen(names[m]))) len = strlen(names[m]);
        if (!len) return 0;
        at += len;
        unsigned char quote = s[at];
        if (quote != '"' && quote != '\'') return 0;
        k = 0;
        for (at++; at < end && s[at] != quote && k + 1 < sizeof g->epub_type; at++) g->epub_type[k++] = (char)s[at];
        g->epub_type[k] = 0;
        if (!k || at + 1 >= end || s[at] != quote || s[at + 1] != ']') return 0;
        i = at + 2;
    }
    return i == end && (g->element[0] || g->class_name[0] || g->epub_type[0]);
}

/// Reads the `content` (and `font-style`) of declaration block `s` (`n` bytes) into `g`, its
/// percentage `width` into `*width` (0 where it gives none), whether it shows its elements as a
/// table's rows or cells, or inline, into `*display` (1, 2, 3; else 0), and whether it gives
/// them room on their right (`padding-right`, `margin-right`) into `*room`; whether it has content.
static int read_declarations(const unsigned char *s, size_t n, folio_generated *g, double *width, int *display, int *room) {
    int found = 0;
    *width = 0;
    *display = 0;
    *room = 0;
    size_t i = 0;
    while (i < n) {
        // White space and comments (`/*margin-left: 0em;*/`) before the name passed over.
        for (; i < n && (isspace(s[i]) || (s[i] == '/' && i + 1 < n && s[i + 1] == '*')); i++)
            if (s[i] == '/') i = fb_comment_end(s, n, i);
        size_t a = i;
        while (i < n && s[i] != ':' && s[i] != ';') i++;
        size_t b = i;
        while (b > a && isspace(s[b - 1])) b--;
        if (i >= n || s[i] == ';') { i++; continue; }
        size_t v = ++i;
        // A value ends at a ';' outside quotes.
        unsigned char quote = 0;
        while (i < n && (quote || s[i] != ';')) {
            if (quote && s[i] == '\\') i++;
            else if (quote && s[i] == quote) quote = 0;
            else if (!quote && (s[i] == '"' || s[i] == '\'')) quote = s[i];
            i++;
        }
        size_t w = i < n ? i : n;
        while (v < w && isspace(s[v])) v++;
        while (w > v && isspace(s[w - 1])) w--;
        if (b - a == 7 && !strncasecmp((const char *)s + a, "content", 7)) found = css_string(s + v, w - v, g->text, sizeof g->text);
        if (b - a == 5 && !strncasecmp((const char *)s + a, "width", 5) && w > v && s[w - 1] == '%') *width = strtod((const char *)s + v, NULL) / 100;
        if (b - a == 7 && !strncasecmp((const char *)s + a, "display", 7))
            *display = w - v == 9 && !strncasecmp((const char *)s + v, "table-row", 9) ? 1
                       : w - v == 10 && !strncasecmp((const char *)s + v, "table-cell", 10) ? 2
                       : w - v == 6 && !strncasecmp((const char *)s + v, "inline", 6) ? 3 : 0;
        if ((b - a == 13 && !strncasecmp((const char *)s + a, "padding-right", 13)) || (b - a == 12 && !strncasecmp((const char *)s + a, "margin-right", 12)))
            *room = strtod((const char *)s + v, NULL) > 0;
        if (b - a == 10 && !strncasecmp((const char *)s + a, "font-style", 10))
            g->style = w - v == 6 && !strncasecmp((const char *)s + v, "normal", 6) ? 1 : w - v == 6 && !strncasecmp((const char *)s + v, "italic", 6) ? 2 : 0;
        i++;
    }
    return found;
}

/// Where the last simple part of selector `s` (`n` bytes, trimmed) begins: after its last
/// combinator (white space, `>`, `+`, `~`) outside brackets and quotes.
static size_t last_part(const unsigned char *s, size_t n) {
    size_t at = 0;
    int bracket = 0;
    unsigned char quote = 0;
    for (size_t i = 0; i < n; i++) {
        if (quote) quote = s[i] == quote ? 0 : quote;
        else if (s[i] == '"' || s[i] == '\'') quote = s[i];
        else if (s[i] == '[') bracket++;
        else if (s[i] == ']') bracket--;
        else if (!bracket && (isspace(s[i]) || s[i] == '>' || s[i] == '+' || s[i] == '~')) at = i + 1;
    }
    return at;
}

/// The selector of list `s` (`n` bytes, comma-separated) that starts at `a`: its bounds, white
/// space trimmed, in `*x` and `*y`; returns where the next starts (past `n` after the last).
static size_t next_selector(const unsigned char *s, size_t n, size_t a, size_t *x, size_t *y) {
    size_t b = a;
    while (b < n && s[b] != ',') b++;
    *x = a, *y = b;
    while (*x < *y && isspace(s[*x])) (*x)++;
    while (*y > *x && isspace(s[*y - 1])) (*y)--;
    return b + 1;
}

/// Adds the widths rule `selectors` (`n` bytes, comma-separated) gives table cells, `share` of
/// the table's, to `options`: by each selector's last part, where it names a cell or no element.
static void add_cell_widths(const unsigned char *selectors, size_t n, double share, folio_typeset_options *options) {
    for (size_t a = 0, x, y; a < n && options->cell_width_count < folio_cell_widths_size;) {
        a = next_selector(selectors, n, a, &x, &y);
        x += last_part(selectors + x, y - x);
        folio_cell_width c = {.share = share};
        if (read_selector(selectors + x, y - x, &c.selector, NULL)
            && (!c.selector.element[0] || !strcmp(c.selector.element, "td") || !strcmp(c.selector.element, "th")))
            options->cell_widths[options->cell_width_count++] = c;
    }
}

/// The one combinator of selector `s` from `*c` to `n` (a `+`, a `>`, or white space, outside
/// brackets): where it starts (`*c`), where the selector after it starts (`*b`), and which
/// (`*relation`; `fb_anywhere` where there is none, or more than one).
static void combinator(const unsigned char *s, size_t n, size_t *c, size_t *b, int *relation) {
    *relation = fb_anywhere;
    int bracket = 0, found = 0;
    for (size_t i = *c; i < n; i++) {
        if (s[i] == '[') bracket++;
        else if (s[i] == ']') bracket--;
        if (bracket || !(isspace(s[i]) || s[i] == '+' || s[i] == '>')) continue;
        size_t j = i;
        int kind = fb_in_ancestor;
        for (; j < n && (isspace(s[j]) || s[j] == '+' || s[j] == '>'); j++)
            if (!isspace(s[j])) kind = s[j] == '+' ? fb_after_sibling : fb_in_parent;
        if (found++) { *relation = fb_anywhere; return; }
        *c = i, *b = j, *relation = kind;
        i = j - 1;
    }
}

void fb_read_rules(const unsigned char *css, size_t n, folio_typeset_options *options) {
    // A byte-order mark is no part of the first selector.
    size_t start = n >= 3 && !memcmp(css, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (size_t i = 0; i < n && (options->generated_count < folio_generated_size || options->cell_width_count < folio_cell_widths_size
                                 || options->row_count < folio_rows_size || options->cell_count < folio_rows_size); i++) {
        // Comments, and at-rules with their blocks, passed over.
        if (css[i] == '/' && i + 1 < n && css[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(css[i] == '*' && css[i + 1] == '/')) i++;
            i++;
            start = i + 1;
            continue;
        }
        if (css[i] == '@') {
            int depth = 0;
            while (i < n && !(depth == 0 && css[i] == ';')) {
                if (css[i] == '{') depth++;
                else if (css[i] == '}' && --depth <= 0) break;
                i++;
            }
            start = i + 1;
            continue;
        }
        if (css[i] == '}') { start = i + 1; continue; }
        if (css[i] != '{') continue;
        const unsigned char *close = memchr(css + i, '}', n - i);
        size_t end = close ? (size_t)(close - css) : n;
        folio_generated content = {0};
        double width;
        int display, room;
        int has_content = read_declarations(css + i + 1, end - i - 1, &content, &width, &display, &room);
        // An element shown inline with room on its right (Springer's `.KeywordGroup .Heading {
        // display: inline; padding-right: 0.5em }`): MuPDF lays out no padding or margin of an
        // inline element, and "Keywords" ran into the first keyword. A space after it stands
        // for the room, less than any text a rule generates after it (`spacing`).
        int spaced = !has_content && display == 3 && room;
        if (spaced) strcpy(content.text, " "), content.after = 1, content.spacing = 1;
        if (has_content || spaced) {
            for (size_t a = 0, x, y; a < i - start && options->generated_count < folio_generated_size;) {
                a = next_selector(css + start, i - start, a, &x, &y);
                folio_generated g = content;
                // `A + B::before`, `A > B::before`, `A B::before`: B's content, where an element of
                // A stands just before it, is its parent, or is one of its ancestors.
                size_t c = x, b;
                combinator(css + start, y, &c, &b, &g.relation);
                int *after = spaced ? NULL : &g.after;
                if (g.relation && !(read_selector(css + start + x, c - x, &g.other, NULL) && read_selector(css + start + b, y - b, &g.selector, after)))
                    continue;
                if (g.relation || read_selector(css + start + x, y - x, &g.selector, after)) options->generated[options->generated_count++] = g;
            }
        }
        if (width > 0 && width < 1) add_cell_widths(css + start, i - start, width, options);
        folio_selector *shown = display == 1 ? options->rows : options->cells;
        int *count = display == 1 ? &options->row_count : &options->cell_count;
        for (size_t a = 0, x, y; (display == 1 || display == 2) && a < i - start && *count < folio_rows_size;) {
            a = next_selector(css + start, i - start, a, &x, &y);
            x += last_part(css + start + x, y - x);
            folio_selector selector = {0};
            if (read_selector(css + start + x, y - x, &selector, NULL)) shown[(*count)++] = selector;
        }
        double root = fb_root_em(css + start, i - start, css + i + 1, end - i - 1);
        if (root > 0) options->sizes.root_em = root;
        i = end;
        start = end + 1;
    }
}

unsigned long long fb_elements_start(fb_elements *t, const unsigned char *tag, size_t n, int opens, const folio_typeset_options *options) {
    unsigned long long matched = 0, siblings = 0, children = 0, descendants = 0;
    for (int k = 0; k < options->generated_count && k < 64; k++) {
        const folio_generated *g = &options->generated[k];
        if (!g->relation) continue;
        if (fb_selector_matches(&g->other, tag, n)) matched |= 1ull << k;
        *(g->relation == fb_after_sibling ? &siblings : g->relation == fb_in_parent ? &children : &descendants) |= 1ull << k;
    }
    int d = t->depth;
    unsigned long long holds = (t->last[d] & siblings) | (d > 0 ? t->open[d - 1] & children : 0) | (t->inside[d] & descendants);
    if (!opens || d == fb_element_depth - 1) {
        t->last[d] = matched;
    } else {
        t->open[d] = matched;
        t->depth++;
        t->last[d + 1] = 0;
        t->inside[d + 1] = t->inside[d] | matched;
    }
    return holds;
}

/// A selector's specificity, as CSS counts it: an attribute or class 10, an element 1.
static int weight(const folio_selector *s) { return (s->element[0] != 0) + 10 * (s->class_name[0] != 0) + 10 * (s->epub_type[0] != 0); }

int fb_generated_rule(const folio_typeset_options *options, const unsigned char *tag, size_t n, unsigned long long related, int after) {
    int best = -1, best_weight = -1;
    for (int k = 0; k < options->generated_count; k++) {
        const folio_generated *g = &options->generated[k];
        if (g->after != after || !fb_selector_matches(&g->selector, tag, n) || (g->relation && !(related >> k & 1))) continue;
        int w = g->spacing ? 0 : 1 + weight(&g->selector) + (g->relation ? weight(&g->other) : 0);
        if (w >= best_weight) best = k, best_weight = w;
    }
    return best;
}

void fb_elements_end(fb_elements *t) {
    if (t->depth > 0) t->depth--;
    t->last[t->depth] = t->open[t->depth];
}

/// Whether word `word` is among the white-space-separated words of `list`.
static int has_word(const char *list, const char *word) {
    size_t c = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += c)
        if ((p == list || isspace((unsigned char)p[-1])) && (p[c] == 0 || isspace((unsigned char)p[c]))) return 1;
    return 0;
}

int fb_selector_matches(const folio_selector *g, const unsigned char *tag, size_t n) {
    if (g->element[0] && !fb_tag_named(tag, n, g->element)) return 0;
    char value[512];
    if (g->class_name[0] && !(fb_attribute(tag, n, "class", value, sizeof value) && has_word(value, g->class_name))) return 0;
    if (g->epub_type[0] && !(fb_attribute(tag, n, "epub:type", value, sizeof value) && has_word(value, g->epub_type))) return 0;
    return 1;
}

int fb_any_selector_matches(const folio_selector *selectors, int count, const unsigned char *tag, size_t n) {
    for (int k = 0; k < count; k++)
        if (fb_selector_matches(&selectors[k], tag, n)) return 1;
    return 0;
}

void fb_put_generated(fb_writer *w, const folio_generated *g) {
    static const char *const styles[] = {"", "normal", "italic"};
    if (g->style) fz_append_printf(w->ctx, w->out, "<span style=\"font-style:%s\">", styles[g->style]);
    for (const char *c = g->text; *c; c++) {
        if (*c == '<') fz_append_string(w->ctx, w->out, "&lt;");
        else if (*c == '&') fz_append_string(w->ctx, w->out, "&amp;");
        else fz_append_byte(w->ctx, w->out, *c);
    }
    if (g->style) fz_append_string(w->ctx, w->out, "</span>");
}

void fb_read_head_styles(const unsigned char *s, size_t n, folio_typeset_options *options) {
    int styles = 0;
    for (size_t i = 0; i + 7 < n && styles < fb_head_styles; i++) {
        if (s[i] != '<') continue;
        // The head ends where the body starts.
        if (fb_tag_named(s + i + 1, n - i - 1, "body")) return;
        size_t open, close;
        int style = fb_style_at(s, n, i, &open, &close);
        if (style < 0) return;
        if (!style) continue;
        styles++;
        if (options->hyphenate) fb_read_unhyphenated(s + open + 1, close - open - 1, options);
        fb_read_rules(s + open + 1, close - open - 1, options);
        i = close;
    }
}
