// An SVG picture's own stylesheet (its `<style>`), which MuPDF 1.21's SVG renderer does not read,
// written as the presentation attributes its rules set: Standard Ebooks' covers fill their
// lettering white by a rule (`path { fill: #fff }`), and MuPDF drew it black on the black box it
// stands on. Only rules of simple selectors (a name, a class, or both, in lists) and the
// properties of paint are read. Does not read a document's stylesheets (epubcopy.c).
#include "bridge.h"
#include <stdio.h>
#include <string.h>

enum { svg_rule_count = 64, svg_decl_count = 8, svg_value_size = 48 };

typedef struct {
    char name[32], cls[48];
    int order;
    int count;
    char prop[svg_decl_count][20], value[svg_decl_count][svg_value_size];
} svg_rule;

static const char *const paint[] = {"fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "opacity"};

static int space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// `s[*a..*b)` without the white space around it.
static void trim(const unsigned char *s, size_t *a, size_t *b) {
    while (*a < *b && space(s[*a])) (*a)++;
    while (*b > *a && space(s[*b - 1])) (*b)--;
}

/// Reads the declarations of paint in `s[a..b)` into `r`.
static void read_declarations(const unsigned char *s, size_t a, size_t b, svg_rule *r) {
    while (a < b && r->count < svg_decl_count) {
        size_t end = a;
        while (end < b && s[end] != ';') end++;
        size_t colon = a;
        while (colon < end && s[colon] != ':') colon++;
        size_t pa = a, pb = colon, va = colon + 1, vb = end;
        trim(s, &pa, &pb);
        if (colon < end) trim(s, &va, &vb);
        if (colon < end && vb > va + 10 && !memcmp(s + vb - 10, "!important", 10)) { vb -= 10; trim(s, &va, &vb); }
        for (size_t k = 0; colon < end && k < sizeof paint / sizeof *paint; k++) {
            if (strlen(paint[k]) != pb - pa || memcmp(s + pa, paint[k], pb - pa)) continue;
            int plain = vb > va && vb - va < svg_value_size;
            for (size_t c = va; c < vb && plain; c++) plain = s[c] != '"' && s[c] != '<' && s[c] != '&';
            if (!plain) break;
            snprintf(r->prop[r->count], sizeof r->prop[0], "%s", paint[k]);
            snprintf(r->value[r->count], sizeof r->value[0], "%.*s", (int)(vb - va), s + va);
            r->count++;
        }
        a = end + 1;
    }
}

/// Reads the rules of the stylesheet `s[a..b)` into `rules`.
static void read_rules(const unsigned char *s, size_t a, size_t b, svg_rule *rules, int *count) {
    while (a < b && *count < svg_rule_count) {
        size_t open = a;
        while (open < b && s[open] != '{') open++;
        size_t close = open;
        while (close < b && s[close] != '}') close++;
        if (close >= b) return;
        svg_rule r = {0};
        read_declarations(s, open + 1, close, &r);
        // Each selector of the list: `name`, `.class` or `name.class`.
        for (size_t from = a; from < open && r.count && *count < svg_rule_count;) {
            size_t to = from;
            while (to < open && s[to] != ',') to++;
            size_t sa = from, sb = to, dot = 0;
            trim(s, &sa, &sb);
            int simple = sb > sa;
            for (size_t k = sa; k < sb && simple; k++) {
                simple = (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '-' || s[k] == '_'
                         || (s[k] == '.' && !dot);
                if (s[k] == '.') dot = k + 1;
            }
            size_t name_end = dot ? dot - 1 : sb;
            if (simple && name_end - sa < sizeof r.name && (!dot || sb - dot < sizeof r.cls)) {
                svg_rule *out = rules + (*count)++;
                *out = r;
                snprintf(out->name, sizeof out->name, "%.*s", (int)(name_end - sa), s + sa);
                snprintf(out->cls, sizeof out->cls, "%.*s", dot ? (int)(sb - dot) : 0, dot ? s + dot : s);
                out->order = *count;
            }
            from = to + 1;
        }
        a = close + 1;
    }
}

/// Whether the space-separated list `classes` holds `cls`.
static int has_class(const char *classes, const char *cls) {
    size_t n = strlen(cls);
    for (const char *p = classes; (p = strstr(p, cls)); p += n)
        if ((p == classes || space((unsigned char)p[-1])) && (!p[n] || space((unsigned char)p[n]))) return 1;
    return 0;
}

/// Writes the start tag `s[0..n)` (from its '<') with the rules that select it as attributes
/// right after its name, where MuPDF finds them before any it had (a rule outweighs a
/// presentation attribute); a class rule after a rule of a name, as it is more specific.
static void put_styled_tag(fz_context *ctx, fz_buffer *out, const unsigned char *s, size_t n, const svg_rule *rules, int count) {
    size_t name_end = 1;
    while (name_end < n && !space(s[name_end]) && s[name_end] != '/' && s[name_end] != '>') name_end++;
    char classes[256] = "";
    fb_attribute(s + 1, n - 1, "class", classes, sizeof classes);
    const char *prop[svg_decl_count * 2];
    const char *value[svg_decl_count * 2];
    int set = 0;
    for (int specific = 0; specific < 2; specific++) {
        for (int i = 0; i < count; i++) {
            const svg_rule *r = rules + i;
            if ((r->cls[0] != 0) != specific) continue;
            if (r->name[0] && (strlen(r->name) != name_end - 1 || memcmp(r->name, s + 1, name_end - 1))) continue;
            if (r->cls[0] && !has_class(classes, r->cls)) continue;
            for (int d = 0; d < r->count; d++) {
                int k = 0;
                while (k < set && strcmp(prop[k], r->prop[d])) k++;
                if (k == set && set == svg_decl_count * 2) continue;
                prop[k] = r->prop[d];
                value[k] = r->value[d];
                if (k == set) set++;
            }
        }
    }
    fz_append_data(ctx, out, s, name_end);
    for (int k = 0; k < set; k++) fz_append_printf(ctx, out, " %s=\"%s\"", prop[k], value[k]);
    fz_append_data(ctx, out, s + name_end, n - name_end);
}

fz_buffer *folio_svg_styles(fz_context *ctx, fz_buffer *svg) {
    unsigned char *s;
    size_t n = fz_buffer_storage(ctx, svg, &s);
    svg_rule rules[svg_rule_count];
    int count = 0;
    for (size_t i = 0; i + 6 < n; i++) {
        if (s[i] != '<' || memcmp(s + i + 1, "style", 5) || (s[i + 6] != '>' && !space(s[i + 6]))) continue;
        const unsigned char *open = memchr(s + i, '>', n - i);
        size_t a = open ? (size_t)(open - s) + 1 : n, b = a;
        while (b + 8 <= n && memcmp(s + b, "</style>", 8)) b++;
        if (b + 8 > n) break;
        // Character data around a stylesheet is its text.
        if (b - a >= 12 && !memcmp(s + a, "<![CDATA[", 9)) a += 9;
        read_rules(s, a, b, rules, &count);
        i = b;
    }
    if (!count) return NULL;
    fz_buffer *out = fz_new_buffer(ctx, n + 1024);
    fz_try(ctx) {
        size_t from = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            if (s[i] != '<' || s[i + 1] == '/' || s[i + 1] == '!' || s[i + 1] == '?') continue;
            size_t end = fb_tag_end(s, n, i);
            if (end >= n) break;
            fz_append_data(ctx, out, s + from, i - from);
            put_styled_tag(ctx, out, s + i, end + 1 - i, rules, count);
            from = end + 1;
            i = end;
        }
        fz_append_data(ctx, out, s + from, n - from);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}
