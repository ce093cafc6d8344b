// MathML written out in a line, for a layout that has none.
//
// MuPDF 1.21's HTML layout knows no MathML: it set an equation's tokens one after another, so a
// column vector (8, −12, 4) read "8 − 1 2 4" and x² + 1 over 2 read "x 2 + 1 2". Before MuPDF
// parses a chapter, each `<math>` is replaced by HTML that says the same in a line, as a
// calculator or a plain-text mail writes it: fractions a/b (parenthesised where a part is more
// than one term), scripts as `<sup>`/`<sub>`, roots √(…), fenced tables (a matrix) as rows
// separated by "; " and cells by ", ", a table standing alone (aligned equations) as lines, and
// letters in italics. Annotations (a TeX source beside the MathML) are left out.
// Does not: lay two-dimensional notation out (stacked fractions, big operators' limits above and
// below), read anything but the element's own bytes, or change its text (entities pass as they
// are written).
#include "bridge.h"
#include <string.h>
#include <strings.h>

/// One node of the element's tree: an element (its name and start tag) or a run of text.
typedef struct {
    const unsigned char *name, *tag, *text;
    size_t name_len, tag_len, text_len;
    int first, next, prev, parent, children;
} math_node;

typedef struct {
    math_node *nodes;
    int count, capacity;
} math_tree;

/// Deeper than this, an element's text is written as it comes, without recursion (the depth
/// check, hostile.c, refuses markup nested past 500 before any of it is read).
enum { math_max_depth = 100 };

static int named(const math_node *node, const char *name) {
    return node->name && node->name_len == strlen(name) && !strncmp((const char *)node->name, name, node->name_len);
}

static int add(math_tree *t, int parent, int *last) {
    if (t->count == t->capacity) return -1;
    int k = t->count++;
    t->nodes[k] = (math_node){0};
    t->nodes[k].first = t->nodes[k].next = -1;
    t->nodes[k].parent = parent;
    t->nodes[k].prev = last[parent + 1];
    if (last[parent + 1] >= 0) t->nodes[last[parent + 1]].next = k;
    else if (parent >= 0) t->nodes[parent].first = k;
    if (parent >= 0) t->nodes[parent].children++;
    last[parent + 1] = k;
    return k;
}

/// The tree of `n` bytes of MathML content (what lies between `<math …>` and `</math>`), its
/// top-level nodes the children of -1; a prefix `m:` is dropped from names. 0 when it does not
/// fit `t`'s nodes.
static int parse(const unsigned char *s, size_t n, math_tree *t, int *last) {
    int open = -1;
    size_t i = 0;
    while (i < n) {
        if (s[i] != '<') {
            size_t j = i;
            while (j < n && s[j] != '<') j++;
            int blank = 1;
            for (size_t k = i; k < j && blank; k++) blank = s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r';
            if (!blank) {
                int k = add(t, open, last);
                if (k < 0) return 0;
                t->nodes[k].text = s + i;
                t->nodes[k].text_len = j - i;
            }
            i = j;
            continue;
        }
        size_t comment = fb_section_end(s, n, i, "<!--", "-->");
        if (comment) {
            i = comment;
            continue;
        }
        size_t end = fb_tag_end(s, n, i);
        if (end >= n) break;
        const unsigned char *name = s + i + 1 + (s[i + 1] == '/');
        size_t len = fb_tag_name_length(name, (size_t)(s + end - name));
        const unsigned char *colon = memchr(name, ':', len);
        if (colon) { len -= (size_t)(colon + 1 - name); name = colon + 1; }
        if (s[i + 1] == '/') {
            // An end tag closes the innermost open element of its name, and those inside it.
            for (int k = open; k >= 0; k = t->nodes[k].parent) {
                if (t->nodes[k].name_len == len && !memcmp(t->nodes[k].name, name, len)) { open = t->nodes[k].parent; break; }
            }
        } else if (s[i + 1] != '!' && s[i + 1] != '?') {
            int k = add(t, open, last);
            if (k < 0) return 0;
            t->nodes[k].name = name;
            t->nodes[k].name_len = len;
            t->nodes[k].tag = s + i + 1;
            t->nodes[k].tag_len = end - i - 1;
            if (s[end - 1] != '/') open = k;
        }
        i = end + 1;
    }
    return 1;
}

typedef struct {
    fb_writer *w;
    const math_tree *t;
} math_out;

static void emit(math_out *o, int k, int depth);

static void put(math_out *o, const char *s) { fz_append_string(o->w->ctx, o->w->out, s); }

static int child(const math_tree *t, int k, int index) {
    int c = t->nodes[k].first;
    while (c >= 0 && index-- > 0) c = t->nodes[c].next;
    return c;
}

/// Whether a row of `k`'s kind holds only it, and so reads as it does.
static int wraps(const math_tree *t, int k) {
    return (named(&t->nodes[k], "mrow") || named(&t->nodes[k], "mstyle") || named(&t->nodes[k], "semantics")) && t->nodes[k].children == 1;
}

/// Whether node `k` reads as one term beside a fraction's bar or under a script: a token, a
/// group that is fenced, scripted or a root, or a row of one such.
static int single(const math_tree *t, int k) {
    const math_node *m = &t->nodes[k];
    if (!m->name) return 1;
    if (wraps(t, k) || named(m, "mpadded")) return t->nodes[k].children == 1 && single(t, m->first);
    if (named(m, "mrow") || named(m, "mstyle") || named(m, "semantics")) return 0;
    return !named(m, "mfrac");
}

static void emit_children(math_out *o, int k, int depth) {
    for (int c = o->t->nodes[k].first; c >= 0; c = o->t->nodes[c].next) emit(o, c, depth + 1);
}

/// A part of a fraction, parenthesised unless it is one term.
static void emit_term(math_out *o, int k, int depth) {
    if (k < 0) return;
    int paren = !single(o->t, k);
    if (paren) put(o, "(");
    emit(o, k, depth + 1);
    if (paren) put(o, ")");
}

static void emit_script(math_out *o, int k, const char *element, int depth) {
    if (k < 0) return;
    fz_append_printf(o->w->ctx, o->w->out, "<%s>", element);
    emit(o, k, depth + 1);
    fz_append_printf(o->w->ctx, o->w->out, "</%s>", element);
}

/// The raw text of a token's children (entities as written), or "" for none.
static void emit_text(math_out *o, int k) {
    for (int c = o->t->nodes[k].first; c >= 0; c = o->t->nodes[c].next)
        if (o->t->nodes[c].text) fb_put(o->w, o->t->nodes[c].text, o->t->nodes[c].text_len);
}

/// Whether a token's text is one character (one UTF-8 sequence or one entity).
static int one_character(const math_tree *t, int k) {
    int c = t->nodes[k].first;
    if (c < 0 || !t->nodes[c].text || t->nodes[c].next >= 0) return 0;
    const unsigned char *s = t->nodes[c].text;
    size_t n = t->nodes[c].text_len;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n')) n--;
    while (n && (*s == ' ' || *s == '\n')) { s++; n--; }
    if (n && *s == '&') return memchr(s, ';', n) == s + n - 1;
    size_t len = *s < 0x80 ? 1 : *s < 0xE0 ? 2 : *s < 0xF0 ? 3 : 4;
    return n == len;
}

/// An operator set with space around it (relations and binary operators), after it (a comma or
/// semicolon) or none.
static void emit_operator(math_out *o, int k) {
    char text[16] = "";
    int c = o->t->nodes[k].first;
    if (c >= 0 && o->t->nodes[c].text && o->t->nodes[c].text_len < sizeof text) {
        memcpy(text, o->t->nodes[c].text, o->t->nodes[c].text_len);
        text[o->t->nodes[c].text_len] = 0;
    }
    static const char *const spaced[] = {"=", "+", "-", "&lt;", "&gt;", "<", ">", "\u2212", "\u00d7", "\u00b1", "\u2260", "\u2264",
                                         "\u2265", "\u2208", "\u2209", "\u2282", "\u2286", "\u2192", "\u21d2", "\u21d4", "\u2261",
                                         "\u2248", "\u222a", "\u2229", "\u22c5", "\u2218", "&#x2212;", "&#8722;", "&minus;", "&#x3D;"};
    int space = 0;
    for (size_t i = 0; i < sizeof spaced / sizeof *spaced && !space; i++) space = !strcmp(text, spaced[i]);
    // A sign before a term (first in its row, or after another operator) is written against it.
    static const char *const signs[] = {"+", "-", "\u2212", "\u00b1", "&#x2212;", "&#8722;", "&minus;"};
    int sign = 0;
    for (size_t i = 0; i < sizeof signs / sizeof *signs && !sign; i++) sign = !strcmp(text, signs[i]);
    int before = o->t->nodes[k].prev;
    if (sign && (before < 0 || named(&o->t->nodes[before], "mo"))) space = 0;
    if (space) put(o, " ");
    emit_text(o, k);
    if (space || !strcmp(text, ",") || !strcmp(text, ";")) put(o, " ");
}

/// Whether table `k` stands between fences (rows holding only it aside): in an `mfenced`, or
/// after an operator that opens one in its row (a bracket, a bar, an angle, a floor or a ceiling).
static int fenced(const math_tree *t, int k) {
    int parent = t->nodes[k].parent;
    while (parent >= 0 && wraps(t, parent)) { k = parent; parent = t->nodes[k].parent; }
    if (parent < 0) return 0;
    if (named(&t->nodes[parent], "mfenced")) return 1;
    int before = t->nodes[k].prev;
    if (before < 0 || !named(&t->nodes[before], "mo") || t->nodes[before].first < 0) return 0;
    const math_node *text = &t->nodes[t->nodes[before].first];
    if (!text->text) return 0;
    static const char *const fences[] = {"(", "[", "{", "|", "\u2016", "\u27e8", "\u2308", "\u230a"};
    for (size_t i = 0; i < sizeof fences / sizeof *fences; i++) {
        size_t len = strlen(fences[i]);
        if (text->text_len >= len && !memcmp(text->text, fences[i], len)) return 1;
    }
    return 0;
}

/// Whether node `k` is all its equation holds (rows of one child up to the `<math>`).
static int whole_equation(const math_tree *t, int k) {
    while (t->nodes[k].parent >= 0) {
        k = t->nodes[k].parent;
        if (!wraps(t, k)) return 0;
    }
    // The `<math>`'s children: the tree's first node and those after it.
    return k == 0 && t->nodes[k].next < 0;
}

/// A table: between fences a matrix, rows separated by "; " and cells by ", " (the fences are
/// its row's); alone in its equation the lines of aligned equations; elsewhere a matrix in
/// brackets.
static void emit_table(math_out *o, int k, int depth) {
    int matrix = fenced(o->t, k), lines = !matrix && whole_equation(o->t, k);
    if (!matrix && !lines) put(o, "[");
    int row = 0;
    for (int r = o->t->nodes[k].first; r >= 0; r = o->t->nodes[r].next) {
        if (!o->t->nodes[r].name) continue;
        if (row++) put(o, lines ? "<br/>" : "; ");
        int cell = 0;
        for (int c = o->t->nodes[r].first; c >= 0; c = o->t->nodes[c].next) {
            // A labelled row's first child is its equation's label.
            if (named(&o->t->nodes[r], "mlabeledtr") && c == o->t->nodes[r].first) continue;
            if (cell++) put(o, lines ? " " : ", ");
            emit(o, c, depth + 2);
        }
    }
    if (!matrix && !lines) put(o, "]");
}

/// The text of node `k`'s descendants as it comes, without recursion (they follow it in the
/// tree's order).
static void emit_flat(math_out *o, int k) {
    for (int j = k + 1; j < o->t->count; j++) {
        int p = o->t->nodes[j].parent;
        while (p > k) p = o->t->nodes[p].parent;
        if (p != k) break;
        if (o->t->nodes[j].text) fb_put(o->w, o->t->nodes[j].text, o->t->nodes[j].text_len);
    }
}

/// An attribute's value without the characters that would make it markup.
static void put_value(math_out *o, const char *value) {
    for (const char *c = value; *c; c++) if (*c != '<' && *c != '>') fz_append_byte(o->w->ctx, o->w->out, *c);
}

static void emit(math_out *o, int k, int depth) {
    const math_tree *t = o->t;
    const math_node *m = &t->nodes[k];
    if (!m->name) { fb_put(o->w, m->text, m->text_len); return; }
    if (depth > math_max_depth) { emit_flat(o, k); return; }
    char value[32];
    if (named(m, "annotation") || named(m, "annotation-xml") || named(m, "mphantom") || named(m, "none") || named(m, "mprescripts")) return;
    if (named(m, "mi")) {
        int italic = one_character(t, k) && !(fb_attribute(m->tag, m->tag_len, "mathvariant", value, sizeof value) && strcmp(value, "italic"));
        if (italic) put(o, "<i>");
        emit_text(o, k);
        if (italic) put(o, "</i>");
    } else if (named(m, "mo")) {
        emit_operator(o, k);
    } else if (named(m, "mn") || named(m, "mtext") || named(m, "ms")) {
        emit_text(o, k);
    } else if (named(m, "mspace")) {
        put(o, " ");
    } else if (named(m, "mfrac")) {
        emit_term(o, child(t, k, 0), depth);
        put(o, "/");
        emit_term(o, child(t, k, 1), depth);
    } else if (named(m, "msup") || named(m, "mover")) {
        if (child(t, k, 0) >= 0) emit(o, child(t, k, 0), depth + 1);
        emit_script(o, child(t, k, 1), "sup", depth);
    } else if (named(m, "msub") || named(m, "munder")) {
        if (child(t, k, 0) >= 0) emit(o, child(t, k, 0), depth + 1);
        emit_script(o, child(t, k, 1), "sub", depth);
    } else if (named(m, "msubsup") || named(m, "munderover")) {
        if (child(t, k, 0) >= 0) emit(o, child(t, k, 0), depth + 1);
        emit_script(o, child(t, k, 1), "sub", depth);
        emit_script(o, child(t, k, 2), "sup", depth);
    } else if (named(m, "msqrt")) {
        int term = t->nodes[k].children == 1 && single(t, m->first);
        put(o, term ? "\u221a" : "\u221a(");
        emit_children(o, k, depth);
        if (!term) put(o, ")");
    } else if (named(m, "mroot")) {
        emit_script(o, child(t, k, 1), "sup", depth);
        put(o, "\u221a(");
        if (child(t, k, 0) >= 0) emit(o, child(t, k, 0), depth + 1);
        put(o, ")");
    } else if (named(m, "mfenced")) {
        char open[16] = "(", close[16] = ")", separators[16] = ",";
        fb_attribute(m->tag, m->tag_len, "open", open, sizeof open);
        fb_attribute(m->tag, m->tag_len, "close", close, sizeof close);
        fb_attribute(m->tag, m->tag_len, "separators", separators, sizeof separators);
        put_value(o, open);
        int index = 0;
        for (int c = m->first; c >= 0; c = t->nodes[c].next) {
            if (index++ && separators[0]) {
                // Its first separator (one character, of up to four bytes) for every place.
                unsigned char lead = (unsigned char)separators[0];
                size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
                char one[8] = "";
                memcpy(one, separators, len < strlen(separators) ? len : strlen(separators));
                put_value(o, one);
                put(o, " ");
            }
            emit(o, c, depth + 1);
        }
        put_value(o, close);
    } else if (named(m, "mtable")) {
        emit_table(o, k, depth);
    } else if (named(m, "semantics") || named(m, "maction")) {
        // Their first child is what is shown.
        if (m->first >= 0) emit(o, m->first, depth + 1);
    } else {
        emit_children(o, k, depth);
    }
}

void fb_linear_math(fb_writer *w, const unsigned char *tag, size_t tag_len, const unsigned char *s, size_t n) {
    char display[16] = "";
    int block = (fb_attribute(tag, tag_len, "display", display, sizeof display) && !strcmp(display, "block"))
             || (fb_attribute(tag, tag_len, "mode", display, sizeof display) && !strcmp(display, "display"));
    // Nodes: at most one a '<' and one a run of text after it.
    int capacity = 2;
    for (size_t i = 0; i < n; i++) capacity += s[i] == '<' ? 2 : 0;
    math_tree t = {fz_malloc_array(w->ctx, capacity, math_node), 0, capacity};
    int *last = NULL;
    fz_var(last);
    fz_try(w->ctx) {
        last = fz_malloc_array(w->ctx, capacity + 1, int);
        for (int i = 0; i <= capacity; i++) last[i] = -1;
        parse(s, n, &t, last);
        math_out o = {w, &t};
        put(&o, block ? "<div class=\"folio-math\" style=\"text-align:center;margin:0.5em 0\">" : "<span class=\"folio-math\">");
        for (int k = 0; k < t.count; k++) if (t.nodes[k].parent < 0) emit(&o, k, 0);
        put(&o, block ? "</div>" : "</span>");
    }
    fz_always(w->ctx) {
        fz_free(w->ctx, last);
        fz_free(w->ctx, t.nodes);
    }
    fz_catch(w->ctx) fz_rethrow(w->ctx);
}
