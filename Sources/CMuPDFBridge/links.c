// A page's links and the notes they point at, read from the prepared copy. Does not lay out or
// draw pages (pages.c), nor read the outline (outline.c).
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: links

/// Where the `count` links inside a note go (`refs`, `folio_note`), into `link`.
static void note_links(fz_context *ctx, folio_mu_doc *d, folio_notes *notes, const folio_note_ref *refs, int count, folio_mu_link *link) {
    link->note_links = calloc((size_t)(count ? count : 1), sizeof *link->note_links);
    if (!link->note_links) fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory");
    for (int i = 0; i < count; i++) {
        folio_mu_note_link *kept = link->note_links + link->note_link_count++;
        *kept = (folio_mu_note_link){ strdup(refs[i].label), -1, NULL, NULL };
        if (fz_is_external_link(ctx, refs[i].target)) {
            kept->uri = strdup(refs[i].target);
            continue;
        }
        fz_try(ctx) {
            kept->page = fb_page_number(ctx, d, fz_resolve_link(ctx, d->doc, refs[i].target, NULL, NULL));
            kept->note = folio_note(ctx, notes, d->copy, refs[i].target, NULL, NULL);
        }
        fz_catch(ctx) kept->page = -1;  // a target MuPDF cannot find: the link goes nowhere
    }
}

int folio_mu_links(folio_mu_doc *d, int index, folio_mu_link **out, folio_mu_error *error) {
    folio_mu_link *links = NULL;
    int count = 0, capacity = 0;
    fz_page *page = NULL;
    fz_link *first = NULL;
    folio_notes notes = {0};
    // The links of the note a link points at, found anew for each.
    folio_note_ref *refs = calloc(folio_note_link_limit, sizeof *refs);
    fz_var(page); fz_var(first); fz_var(links); fz_var(count); fz_var(capacity);
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        if (!refs) fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory");
        page = fb_load_page(ctx, d, index);
        first = fz_load_links(ctx, page);
        for (fz_link *l = first; l; l = l->next) {
            if (!l->uri) continue;
            links = fb_grow(ctx, links, count, &capacity, sizeof *links);
            folio_mu_link link = { l->rect.x0, l->rect.y0, l->rect.x1, l->rect.y1, -1, NULL, NULL, NULL, 0 };
            if (fz_is_external_link(ctx, l->uri)) link.uri = strdup(l->uri);
            else {
                link.page = fb_page_number(ctx, d, fz_resolve_link(ctx, d->doc, l->uri, NULL, NULL));
                int inside = 0;
                if (d->copy) link.note = folio_note(ctx, &notes, d->copy, l->uri, refs, &inside);
                // Counted now, so that the link is freed whole if resolving its note's links fails.
                links[count++] = link;
                if (inside) note_links(ctx, d, &notes, refs, inside, &links[count - 1]);
                continue;
            }
            links[count++] = link;
        }
    }
    fz_always(ctx) {
        free(refs);
        folio_drop_notes(ctx, &notes);
        fz_drop_link(ctx, first);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) {
        fb_fail(error, fz_caught_message(ctx));
        folio_mu_free_links(links, count);
        links = NULL;
        count = -1;
    }
    pthread_mutex_unlock(&d->mutex);
    *out = links;
    return count;
}

void folio_mu_free_links(folio_mu_link *links, int count) {
    for (int i = 0; i < count; i++) {
        free(links[i].uri);
        free(links[i].note);
        for (int k = 0; k < links[i].note_link_count; k++) {
            folio_mu_note_link *n = links[i].note_links + k;
            free(n->label);
            free(n->uri);
            free(n->note);
        }
        free(links[i].note_links);
    }
    free(links);
}

// MARK: notes

/// Whether an attribute value names a note (`epub:type="footnote"`, `role="doc-endnote"`, …).
int fb_names_note(const char *value) {
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
    return (tag && !strcmp(tag, "aside")) || fb_names_note(fz_xml_att(node, "epub:type")) || fb_names_note(fz_xml_att(node, "type"))
        || fb_names_note(fz_xml_att(node, "role"));
}

/// Whether `value` (an `epub:type` or `role`) names a collection of notes.
static int names_notes(const char *value) {
    static const char *const kinds[] = {"footnotes", "endnotes", "rearnotes", "doc-endnotes", "doc-footnotes"};
    for (size_t k = 0; value && k < sizeof kinds / sizeof *kinds; k++) {
        const char *w = strstr(value, kinds[k]);
        size_t n = strlen(kinds[k]);
        if (w && (w == value || w[-1] == ' ') && (!w[n] || w[n] == ' ')) return 1;
    }
    return 0;
}

static int holds_notes(fz_xml *node) {
    return node && (names_notes(fz_xml_att(node, "epub:type")) || names_notes(fz_xml_att(node, "role")));
}

/// Whether `node` is an item of a list of notes: Standard Ebooks' endnotes are the `li`s of an
/// `ol` in `<section epub:type="endnotes">`, no item typed.
static int listed_note(fz_xml *node) {
    const char *tag = fz_xml_tag(node);
    if (!tag || strcmp(tag, "li")) return 0;
    fz_xml *list = fz_xml_up(node), *holder = list ? fz_xml_up(list) : NULL;
    return holds_notes(list) || holds_notes(holder);
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

void fb_put_words(char *out, size_t size, size_t *n, const char *t) {
    for (; *t; t++) {
        if (!strncmp(t, "\xE2\x86\xA9", 3)) { t += 2; continue; }  // ↩
        if (!strncmp(t, "\xC2\xAD", 2)) { t++; continue; }           // a soft hyphen
        int space = *t == ' ' || *t == '\t' || *t == '\n' || *t == '\r';
        if (space && (*n == 0 || out[*n - 1] == ' ')) continue;
        // A character's bytes go in together or not at all.
        size_t len = 1;
        if (!space && ((unsigned char)*t & 0xC0) == 0xC0)
            while (len < 4 && ((unsigned char)t[len] & 0xC0) == 0x80) len++;
        if (*n + len >= size) return;
        if (space) out[(*n)++] = ' ';
        else { memcpy(out + *n, t, len); *n += len; t += len - 1; }
        out[*n] = 0;
    }
}

static void xml_text(fz_xml *x, char *out, size_t size, int depth) {
    for (fz_xml *c = fz_xml_down(x); c && depth < xml_text_depth; c = fz_xml_next(c)) {
        const char *t = fz_xml_text(c);
        if (!t) {
            xml_text(c, out, size, depth + 1);
            continue;
        }
        size_t n = strlen(out);
        fb_put_words(out, size, &n, t);
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
        fz_xml *note = target && (is_note(target) || listed_note(target)) ? target
            : target && fz_xml_up(target) && (is_note(fz_xml_up(target)) || listed_note(fz_xml_up(target))) ? fz_xml_up(target) : NULL;
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
