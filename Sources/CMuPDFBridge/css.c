// A stylesheet's declaration blocks as MuPDF 1.21's CSS reads them: declarations it ignores or
// reads otherwise than a browser said again in properties it reads (`fb_rule_additions`), and the
// lengths, displays and values that the copy's rules and style attributes share. The stylesheet
// copy that uses them is stylesheet.c's.
// Does not: add rules or select elements (what a rule applies to is the publisher's), read
// anything outside the stylesheet, or support what MuPDF's layout has no means for (`position`,
// `max-width`); generated content is generated.c's.
#include "bridge.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: declarations

/// What a declaration block says that MuPDF 1.21 reads otherwise than a browser, or not at all.
typedef struct {
    int absolute;            // `position: absolute | fixed`
    int off_screen;          // a far negative `left`, `top` or `right`, or `clip: rect(…)`: visually hidden
    int tiny;                // `width` or `height` of a pixel or less
    int left_auto, right_auto, left_set, right_set;
    int width_set;
    double width;            // a percentage; -1 when none or not one
    double width_points;     // an absolute width (`fb_absolute_points`); 0 when none
    int small_caps;          // `font-variant: all-small-caps`, `font-variant-caps: …small-caps`
    double font_em;          // a `font-size` in pixels, points or rems, in ems; 0 when none
    int font_important;      // that size is `!important`
    double line_em;          // a `line-height` in pixels, points or rems, in ems; 0 when none
    int line_important;      // that height is `!important`
    const char *display;     // the `display` MuPDF reads for one it does not (`fb_display_as`); NULL when none
    int untabled;            // a `display` a table's rows are lost in (`block`, `flex`…: not `table` or `none`)
    int display_important;   // that display is `!important`
} css_block;

/// `v` as a percentage ("25%"), else -1.
static double percentage(const char *v) {
    char *end;
    double p = strtod(v, &end);
    return end != v && *end == '%' && p >= 0 ? p : -1;
}

/// Whether length `v` lies far off the page's top or left: what hides an element that is still
/// read aloud (`left: -999em`, `-10000px`).
static int far_negative(const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || x >= 0) return 0;
    if (!strncmp(end, "em", 2) || !strncmp(end, "rem", 3) || !strncmp(end, "ex", 2) || !strncmp(end, "ch", 2)) return x <= -9;
    return x <= -100;
}

/// Whether `clip` value `v` leaves nothing to see: `rect(0 0 0 0)`, `rect(1px, 1px, 1px, 1px)`
/// (`rect(auto, …)` leaves the whole box).
static int clipped_away(const char *v) {
    if (strncmp(v, "rect(", 5)) return 0;
    v += 5;
    while (*v == ' ') v++;
    char *end;
    double x = strtod(v, &end);
    return end != v && x >= 0 && x <= 1;
}

/// Whether length `v` is a pixel or less (and not 0, which hides nothing by itself either).
static int at_most_a_pixel(const char *v) {
    char *end;
    double x = strtod(v, &end);
    return end != v && x > 0 && x <= 1 && (!strcmp(end, "px") || !strcmp(end, "pt"));
}

double fb_absolute_em(const char *v, const fb_sizes *sizes) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || x <= 0 || x > 1000) return 0;
    double root = sizes && sizes->root_em > 0 ? sizes->root_em : 1;
    return !strcmp(end, "px") ? x / 16 : !strcmp(end, "pt") ? x / 12 : !strcmp(end, "rem") ? x * root : 0;
}

double fb_absolute_points(const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || x <= 0 || x > 100000) return 0;
    static const struct { const char *unit; double points; } units[] = {
        {"in", 72}, {"cm", 72 / 2.54}, {"mm", 72 / 25.4}, {"pc", 12}, {"pt", 1}, {"px", 1}};
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (!strcmp(end, units[k].unit)) return x * units[k].points;
    return 0;
}

void fb_add(char *out, size_t size, size_t *k, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int w = *k < size ? vsnprintf(out + *k, size - *k, format, args) : -1;
    va_end(args);
    if (w > 0 && (size_t)w < size - *k) *k += (size_t)w;
    else if (*k < size) out[*k] = 0;
}

int fb_declaration_value(const unsigned char *v, size_t n, const char *name, char *value, size_t size) {
    size_t at = 0, len = strlen(name);
    for (;; at++) {
        while (at + len <= n && strncasecmp((const char *)v + at, name, len)) at++;
        if (at + len > n) return 0;
        if (!at || v[at - 1] == ';' || isspace(v[at - 1])) break;
    }
    at += len;
    while (at < n && isspace(v[at])) at++;
    if (at >= n || v[at++] != ':') return 0;
    size_t k = 0;
    for (; at < n && v[at] != ';' && k + 1 < size; at++)
        if (!isspace(v[at])) value[k++] = (char)tolower(v[at]);
    value[k] = 0;
    char *important = strstr(value, "!important");
    if (important) *important = 0;
    return important ? 2 : 1;
}

size_t fb_put_length(char *out, size_t size, double em, const fb_sizes *sizes) {
    // MuPDF reads no exponent (`%g` writes one below 0.0001): a length that small is left as it was.
    if (em < 0.001) return 0;
    int w = sizes && sizes->font_size > 0 ? snprintf(out, size, "%gpt", em * sizes->font_size) : snprintf(out, size, "%gem", em);
    return w > 0 && (size_t)w < size ? (size_t)w : 0;
}

const char *fb_display_as(const char *v) {
    if (!strcmp(v, "inline-table")) return "table";
    if (!strcmp(v, "flex") || !strcmp(v, "grid") || !strcmp(v, "flow-root")) return "block";
    if (!strcmp(v, "inline-flex") || !strcmp(v, "inline-grid")) return "inline-block";
    return NULL;
}

/// Reads declaration `name: value` (both lower case, trimmed, `!important` dropped) into `b`.
static void read_declaration(css_block *b, const char *name, const char *value, int important, const fb_sizes *sizes) {
    if (!strcmp(name, "font-size")) b->font_em = fb_absolute_em(value, sizes), b->font_important = important;
    else if (!strcmp(name, "line-height")) b->line_em = fb_absolute_em(value, sizes), b->line_important = important;
    else if (!strcmp(name, "display")) {
        b->display = fb_display_as(value), b->display_important = important;
        b->untabled = strcmp(value, "table") && strcmp(value, "none") && strcmp(value, "inline-table") && strncmp(value, "var(", 4);
    }
    else if (!strcmp(name, "position")) b->absolute = !strcmp(value, "absolute") || !strcmp(value, "fixed");
    else if (!strcmp(name, "left") || !strcmp(name, "top") || !strcmp(name, "right")) b->off_screen |= far_negative(value);
    else if (!strcmp(name, "clip")) b->off_screen |= clipped_away(value);
    else if (!strcmp(name, "height")) b->tiny |= at_most_a_pixel(value);
    else if (!strcmp(name, "width")) {
        b->width_set = 1;
        b->width = percentage(value);
        b->width_points = fb_absolute_points(value);
        b->tiny |= at_most_a_pixel(value);
    }
    else if (!strcmp(name, "margin-left")) b->left_set = 1, b->left_auto = !strcmp(value, "auto");
    else if (!strcmp(name, "margin-right")) b->right_set = 1, b->right_auto = !strcmp(value, "auto");
    else if (!strcmp(name, "margin")) {
        // One to four values: the horizontal ones are the second (and the fourth, the left).
        char tokens[4][32];
        int count = 0;
        for (const char *p = value; *p && count < 4;) {
            while (*p == ' ' || *p == '\t') p++;
            size_t k = 0;
            while (*p && *p != ' ' && *p != '\t') {
                if (k + 1 < sizeof tokens[0]) tokens[count][k++] = *p;
                p++;
            }
            tokens[count][k] = 0;
            if (k) count++;
        }
        if (!count) return;
        const char *right = tokens[count > 1 ? 1 : 0], *left = tokens[count == 4 ? 3 : count > 1 ? 1 : 0];
        b->left_set = b->right_set = 1;
        b->left_auto = !strcmp(left, "auto");
        b->right_auto = !strcmp(right, "auto");
    } else if (!strcmp(name, "font-variant") || !strcmp(name, "font-variant-caps"))
        b->small_caps = strstr(value, "small-caps") && (strcmp(value, "small-caps") || name[12] == '-');
}

/// Whether every one of the selectors `s` (`n` bytes, comma-separated) ends in element
/// `element` (`hr`, `figure > img.plate`): a rule for other elements too is not centred as
/// that element is.
static int selects_element(const unsigned char *s, size_t n, const char *element) {
    size_t len = strlen(element), start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != ',') continue;
        size_t end = i;
        while (end > start && isspace(s[end - 1])) end--;
        size_t last = end;
        while (last > start && !isspace(s[last - 1]) && s[last - 1] != '>' && s[last - 1] != '+' && s[last - 1] != '~') last--;
        if (!(end - last >= len && !strncasecmp((const char *)s + last, element, len)
              && (end - last == len || (s[last + len] && strchr(".#[:", s[last + len]))))) return 0;
        start = i + 1;
    }
    return 1;
}

double fb_root_em(const unsigned char *selectors, size_t m, const unsigned char *s, size_t n) {
    char value[64];
    if ((!selects_element(selectors, m, "html") && !selects_element(selectors, m, ":root"))
        || !fb_declaration_value(s, n, "font-size", value, sizeof value)) return 0;
    // The root's size is of the reader's: a percentage or ems of it, as a length it is.
    char *end;
    double x = strtod(value, &end);
    if (end == value || x <= 0 || x > 1000) return 0;
    if (!strcmp(end, "%")) return x / 100;
    if (!strcmp(end, "em") || !strcmp(end, "rem")) return x;
    return fb_absolute_em(value, NULL);
}

/// Writes into `add` (`size` bytes) the declarations that say what block `b` of a rule of
/// selectors `selector` (`m` bytes) means in properties MuPDF reads; returns their length.
/// - A visually hidden element (off the page, clipped away, a pixel wide: a heading for a screen
///   reader) is not shown: MuPDF has no `position` and printed Standard Ebooks' title page's
///   title over its picture, and "Imprint" and "Colophon" over their pages.
/// - A block of a percentage width centred by auto side margins (`hr { width: 25%; margin: auto
///   }`; an `hr` of a percentage width is centred by a browser's own style) is centred by
///   percentages: MuPDF takes `auto` for 0, and scene breaks hung from the left margin.
/// - A picture set apart (`display: block; margin: auto`) of no percentage width is centred as a
///   line is.
/// - All small caps (`font-variant: all-small-caps`, `font-variant-caps`, which MuPDF does not
///   read) are small caps: capitals stay capitals, the rest is set as browsers set it.
/// - A font size in pixels, points or rems is one in proportion to the reader's size
///   (`fb_put_length`), as a browser's medium size is 16 pixels: MuPDF takes a pixel for a point
///   whatever the reader's size, and rems for 16 of them, so that Project Gutenberg's page
///   numbers (`font-size: 13px`) stood larger than the text, and a book sized in points (`body {
///   font-size: 10pt }`) kept its size whatever the reader chose. Points of the reader's, not
///   ems of the parent: sizes nested in sizes do not compound, and a rem is the root's.
/// - So is a line height in pixels, points or rems: MuPDF kept it in points as the text grew,
///   and lines of a Word document's Chinese (`line-height: 18pt` round 16-point type) stood
///   over one another at 22.
/// - A box given an absolute width wider than the text block (`fb_absolute_points`, a LibreOffice
///   table's `width: 6.6931in`, its letter page's) is as wide as the block: MuPDF drew its last
///   column past the page's edge.
/// - A display MuPDF does not know is one it does (`fb_display_as`): MuPDF takes any other for
///   `inline`, and the rows of a table shown `inline-table` (Project Gutenberg's
///   `.xhtml_div_align table`) for rows outside a table, dropping the table and all it holds.
///   A table shown otherwise than as a table (pandoc 3's `table { display: block; overflow-x:
///   auto }`, for scrolling on a narrow screen) is one: a browser puts its rows in a table of its
///   own, MuPDF drew every word of the cells on one spot at the page's top.
static size_t block_additions(const css_block *b, const unsigned char *selector, size_t m, char *add, size_t size, const fb_sizes *sizes) {
    size_t k = 0;
#define ADD(...) fb_add(add, size, &k, __VA_ARGS__)
    int img = selects_element(selector, m, "img"), hr = selects_element(selector, m, "hr");
    double width = b->width;
    if (b->absolute && (b->off_screen || b->tiny)) ADD("display: none; ");
    if (b->width_points > 0 && sizes && sizes->block_width > 0 && b->width_points > sizes->block_width) ADD("width: auto; ");
    if (b->small_caps) ADD("font-variant: small-caps; ");
    char length[32];
    if (b->font_em > 0 && fb_put_length(length, sizeof length, b->font_em, sizes))
        ADD("font-size: %s%s; ", length, b->font_important ? " !important" : "");
    if (b->line_em > 0 && fb_put_length(length, sizeof length, b->line_em, sizes))
        ADD("line-height: %s%s; ", length, b->line_important ? " !important" : "");
    if (b->untabled && selects_element(selector, m, "table")) ADD("display: table%s; ", b->display_important ? " !important" : "");
    else if (b->display) ADD("display: %s%s; ", b->display, b->display_important ? " !important" : "");
    // MuPDF takes a percentage width of what the margins leave: the margins give the width.
    int centred = (b->left_auto && b->right_auto) || (hr && !b->left_set && !b->right_set);
    if (centred && !img && width > 0 && width < 100)
        ADD("margin-left: %g%%; margin-right: %g%%; width: auto; ", (100 - width) / 2, (100 - width) / 2);
    else if (centred && img) ADD("text-align: center; ");
#undef ADD
    return k;
}

size_t fb_comment_end(const unsigned char *s, size_t n, size_t i) {
    for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++) {}
    return i + 1 < n ? i + 1 : n - 1;
}

/// Reads the declarations of block `s` (`n` bytes, between its braces) into a `css_block`:
/// what is commented out is not read (a commented-out `position: absolute; height: 1px` hid
/// the element).
static css_block read_block(const unsigned char *s, size_t n, const fb_sizes *sizes) {
    css_block b = {.width = -1};
    size_t i = 0;
    while (i < n) {
        char name[40], value[160];
        size_t a = 0, v = 0;
        for (; i < n && s[i] != ':' && s[i] != ';'; i++) {
            if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') i = fb_comment_end(s, n, i);
            else if (!isspace(s[i]) && a + 1 < sizeof name) name[a++] = (char)tolower(s[i]);
        }
        name[a] = 0;
        if (i < n && s[i] == ':') {
            for (i++; i < n && s[i] != ';'; i++) {
                if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') i = fb_comment_end(s, n, i);
                else if ((v || !isspace(s[i])) && v + 1 < sizeof value) value[v++] = (char)tolower(s[i]);
            }
        }
        value[v] = 0;
        char *important = strstr(value, "!important");
        if (important) *important = 0, v = strlen(value);
        while (v && isspace((unsigned char)value[v - 1])) value[--v] = 0;
        if (a && v) read_declaration(&b, name, value, important != NULL, sizes);
        i++;
    }
    return b;
}

size_t fb_rule_additions(const unsigned char *selector, size_t m, const unsigned char *block, size_t n, char *add, size_t size,
                         const fb_sizes *sizes) {
    css_block b = read_block(block, n, sizes);
    return block_additions(&b, selector, m, add, size, sizes);
}
