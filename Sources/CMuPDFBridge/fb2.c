// An FB2 book's contents, read from its sections' titles as its copy is prepared, and the ids
// its entries lead to. Does not hyphenate or lay out (typeset.c), nor read its pictures
// (document.c).
//
// MuPDF 1.21's outline of an FB2 lists every title and subtitle flat, a title's paragraphs run
// together with its note references ("Эпиграф.Текст. [18]Ударения."), and every note of a notes
// body. Folio lists each titled section, nested as the sections are, and a notes body once.
#include "bridge.h"
#include <string.h>

enum { label_size = 256, max_outline_depth = 32 };

/// The book's titled sections as they are read (document order), and the sections that need an
/// id of Folio's to be led to.
typedef struct {
    fz_context *ctx;
    struct page_marks *contents;
    int capacity;
    /// Sections met so far (each `section` element, in document order).
    int sections;
    int *unnamed, unnamed_count, unnamed_capacity;
} reading;

/// Whether the `n` bytes of `out` end in a stop (or a mark a title's line may end in).
static int ends_sentence(const char *out, size_t n) {
    if (!n) return 1;
    if (n >= 3 && !memcmp(out + n - 3, "\xE2\x80\xA6", 3)) return 1;
    return strchr(".!?:;", out[n - 1]) != NULL;
}

/// The text of the title element `x` into `out`: its paragraphs joined (a stop after one that
/// ends in none), note references and pictures left out.
static void title_text(fz_xml *x, char *out, size_t size, size_t *n, int depth) {
    for (fz_xml *c = fz_xml_down(x); c && depth < max_outline_depth; c = fz_xml_next(c)) {
        const char *t = fz_xml_text(c);
        if (t) {
            fb_put_words(out, size, n, t);
            continue;
        }
        const char *type = fz_xml_att(c, "type");
        if (fz_xml_is_tag(c, "a") && type && !strcmp(type, "note")) continue;
        if (fz_xml_is_tag(c, "p") && *n) {
            while (*n && out[*n - 1] == ' ') out[--*n] = 0;
            fb_put_words(out, size, n, ends_sentence(out, *n) ? " " : ". ");
        }
        title_text(c, out, size, n, depth + 1);
    }
}

/// A title's text into `label` (`label_size` bytes), trimmed; its length.
static size_t title_label(fz_xml *title, char *label) {
    size_t n = 0;
    label[0] = 0;
    if (title) title_text(title, label, label_size, &n, 0);
    while (n && label[n - 1] == ' ') label[--n] = 0;
    return n;
}

/// Adds an entry for section number `number` (element `section`) titled `label`, `depth`
/// sections deep: at most one deeper than the entry before it (a book nests titled sections in
/// untitled ones).
static void add_entry(reading *r, fz_xml *section, int number, const char *label, int depth) {
    if (r->contents->count >= fb_outline_headings) return;
    int below = r->contents->count ? r->contents->items[r->contents->count - 1].depth + 1 : 0;
    if (depth > below) depth = below;
    const char *id = fz_xml_att(section, "id");
    char target[300];
    if (id && *id && strlen(id) < sizeof target - 2) {
        snprintf(target, sizeof target, "#%s", id);
    } else {
        snprintf(target, sizeof target, "#folio-section-%d", number);
        r->unnamed = fb_grow(r->ctx, r->unnamed, r->unnamed_count, &r->unnamed_capacity, sizeof *r->unnamed);
        r->unnamed[r->unnamed_count++] = number;
    }
    r->contents->items = fb_grow(r->ctx, r->contents->items, r->contents->count, &r->capacity, sizeof *r->contents->items);
    r->contents->items[r->contents->count++] = (struct page_mark){0, strdup(target), strdup(label), -2, 0, depth};
}

/// Reads the sections inside `x`: `depth` sections above them, `listed` whether their
/// titles are contents (not inside a notes body); `*first` the first section met, if NULL.
static void read_sections(reading *r, fz_xml *x, int depth, int listed, fz_xml **first) {
    for (fz_xml *c = fz_xml_down(x); c; c = fz_xml_next(c)) {
        if (!fz_xml_tag(c)) continue;
        if (!fz_xml_is_tag(c, "section")) {
            read_sections(r, c, depth, listed, first);
            continue;
        }
        if (!*first) *first = c;
        int number = r->sections++;
        char label[label_size];
        if (listed && title_label(fz_xml_find_down(c, "title"), label) > 0 && depth < max_outline_depth)
            add_entry(r, c, number, label, depth);
        read_sections(r, c, depth + 1, listed, first);
    }
}


/// Reads the book's bodies: a notes or comments body is one entry, its title leading to its
/// first section, and its sections are not listed. Sections elsewhere are counted, not listed.
/// A body of sections none of which has a title is one entry, its title (a book of one story,
/// its author and title in its body's title: its contents were empty, where MuPDF's listed it).
static void read_bodies(reading *r, fz_xml *book) {
    for (fz_xml *body = fz_xml_down(book); body; body = fz_xml_next(body)) {
        const char *name = fz_xml_att(body, "name");
        int notes = !fz_xml_is_tag(body, "body") || (name && (!strcmp(name, "notes") || !strcmp(name, "comments")));
        int number = r->sections, listed = r->contents->count;
        fz_xml *first = NULL;
        read_sections(r, body, 0, !notes, &first);
        char label[label_size];
        int untitled = !notes && r->contents->count == listed;
        if ((notes || untitled) && first && fz_xml_is_tag(body, "body") && title_label(fz_xml_find_down(body, "title"), label) > 0)
            add_entry(r, first, number, label, 0);
    }
}

/// Where the next `<section` start tag at or after `i` begins (comments, character data and
/// declarations passed over), or `n`.
static size_t next_section(const unsigned char *s, size_t n, size_t i) {
    while (i < n) {
        const unsigned char *lt = memchr(s + i, '<', n - i);
        if (!lt) return n;
        i = (size_t)(lt - s);
        size_t passed = fb_section_end(s, n, i, "<!--", "-->");
        if (!passed) passed = fb_section_end(s, n, i, "<![CDATA[", "]]>");
        if (passed) {
            i = passed;
            continue;
        }
        if (fb_tag_named(s + i + 1, n - i - 1, "section")) return i;
        i = fb_tag_end(s, n, i) + 1;
    }
    return n;
}

fz_buffer *folio_fb2_contents(fz_context *ctx, fz_buffer *fb2, struct page_marks *contents) {
    reading r = {.ctx = ctx, .contents = contents};
    fz_xml *xml = NULL;
    fz_buffer *out = NULL;
    fz_var(xml); fz_var(out); fz_var(r);
    fz_try(ctx) {
        xml = fz_parse_xml(ctx, fb2, 0);
        fz_xml *book = fz_xml_root(xml);
        if (book && fz_xml_is_tag(book, "FictionBook")) read_bodies(&r, book);
        // Folio's ids go into the copy, each in the section the document's order numbers so; a
        // copy whose sections the scan counts otherwise than the parser gets none, nor contents.
        unsigned char *s;
        size_t n = fz_buffer_storage(ctx, fb2, &s), from = 0;
        int next = 0, number = 0;
        for (size_t at = next_section(s, n, 0); at < n; at = next_section(s, n, at + 1), number++) {
            if (next >= r.unnamed_count || r.unnamed[next] != number) continue;
            if (!out) out = fz_new_buffer(ctx, n + 32 * (size_t)r.unnamed_count);
            fz_append_data(ctx, out, s + from, at + 8 - from);
            fz_append_printf(ctx, out, " id=\"folio-section-%d\"", number);
            from = at + 8;
            next++;
        }
        if (number != r.sections || next != r.unnamed_count) fz_throw(ctx, FZ_ERROR_GENERIC, "sections counted otherwise");
        if (out) fz_append_data(ctx, out, s + from, n - from);
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, xml);
        free(r.unnamed);
    }
    fz_catch(ctx) {
        // No contents of Folio's: MuPDF's outline stands.
        fz_drop_buffer(ctx, out);
        out = NULL;
        for (int i = 0; i < contents->count; i++) {
            free(contents->items[i].target);
            free(contents->items[i].label);
        }
        contents->count = 0;
    }
    return out;
}
