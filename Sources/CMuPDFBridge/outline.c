// A book's outline (or a MOBI's contents, mobi.c), its EPUB 3 navigation document, its print
// edition's page list and its chapters' titles. Does not follow a page's links (links.c).
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Outlines deeper than this are cut (a hostile file's nesting must not exhaust the stack).
enum { max_outline_depth = 32 };

/// The spine item `target`'s file (the part before its '#') is, or -1.
static int spine_item(folio_mu_doc *d, const char *target) {
    if (!d->spine_names) return -1;
    size_t file = strcspn(target, "#");
    for (int c = 0; c < d->spine_count; c++)
        if (d->spine_names[c] && strlen(d->spine_names[c]) == file && !strncmp(d->spine_names[c], target, file)) return c;
    return -1;
}

/// `target` (an archive path, maybe with a "#fragment", of `size` bytes) made one of the book's
/// chapters, as readers forgive a navigation document's wrong folders (EDRLab's test book links
/// "Text/c.xhtml" from Text/nav.xhtml): kept when its file is a spine item, else the one spine
/// item of that file name, if only one has it. Its spine item, or -1.
static int spine_target(folio_mu_doc *d, char *target, size_t size) {
    int found = spine_item(d, target);
    if (found >= 0 || !d->spine_names) return found;
    size_t file = strcspn(target, "#");
    const char *name = target;
    for (const char *p = target; p < target + file; p++)
        if (*p == '/') name = p + 1;
    size_t len = (size_t)(target + file - name);
    for (int c = 0; c < d->spine_count && len; c++) {
        const char *item = d->spine_names[c], *slash = item ? strrchr(item, '/') : NULL, *own = slash ? slash + 1 : item;
        if (!own || strlen(own) != len || strncmp(own, name, len)) continue;
        if (found >= 0) return -1;
        found = c;
    }
    char fragment[1024];
    snprintf(fragment, sizeof fragment, "%s", target + file);
    if (found >= 0) snprintf(target, size, "%s%s", d->spine_names[found], fragment);
    return found;
}

/// `title` on one line (malloc'd: `fb_put_words`). An NCX's labels keep the line breaks of
/// their XML ("WIADOMOŚCI⏎NAUKOWYCH" showed a ↵ in the contents).
static char *one_line(const char *title) {
    size_t size = (title ? strlen(title) : 0) + 1, n = 0;
    char *out = malloc(size);
    if (!out) return NULL;
    out[0] = 0;
    fb_put_words(out, size, &n, title ? title : "");
    while (n && out[n - 1] == ' ') out[--n] = 0;
    return out;
}

static void flatten(fz_context *ctx, folio_mu_doc *d, fz_outline *o, int depth,
                    folio_mu_outline **entries, int *count, int *capacity) {
    for (; o && depth < max_outline_depth; o = o->next) {
        *entries = fb_grow(ctx, *entries, *count, capacity, sizeof **entries);
        // An EPUB's entries carry only their target (a chapter file): resolve it in this layout.
        fz_location at = o->page;
        if (at.chapter < 0 && o->uri && !fz_is_external_link(ctx, o->uri)) {
            char target[2048];
            snprintf(target, sizeof target, "%s", o->uri);
            spine_target(d, target, sizeof target);
            at = fz_resolve_link(ctx, d->doc, target, NULL, NULL);
        }
        int page = fb_page_number(ctx, d, at);
        (*entries)[(*count)++] = (folio_mu_outline){ one_line(o->title), page, depth };
        flatten(ctx, d, o->down, depth + 1, entries, count, capacity);
    }
}

static const char *xml_type(fz_xml *x) {
    const char *t = fz_xml_att(x, "epub:type");
    return t ? t : fz_xml_att(x, "type");
}

/// The entries of an EPUB 3 navigation list (`ol` of `li`, each an `a` and maybe an `ol`).
static void nav_list(fz_context *ctx, folio_mu_doc *d, fz_xml *ol, const char *base, int depth,
                     folio_mu_outline **entries, int *count, int *capacity) {
    for (fz_xml *li = ol ? fz_xml_find_down(ol, "li") : NULL; li && depth < max_outline_depth; li = fz_xml_find_next(li, "li")) {
        fz_xml *a = fz_xml_find_down(li, "a");
        if (!a) a = fz_xml_find_down(li, "span");
        char title[512] = "", target[2048];
        if (a) folio_xml_text(a, title, sizeof title);
        const char *href = a ? fz_xml_att(a, "href") : NULL;
        int page = -1;
        if (href && !fz_is_external_link(ctx, href)) {
            snprintf(target, sizeof target, "%s%s", base, href);
            fz_urldecode(target);
            fz_cleanname(target);
            spine_target(d, target, sizeof target);
            fz_try(ctx) {
                fz_location at = fz_resolve_link(ctx, d->doc, target, NULL, NULL);
                page = fb_page_number(ctx, d, at);
            }
            fz_catch(ctx) page = -1;
        }
        *entries = fb_grow(ctx, *entries, *count, capacity, sizeof **entries);
        (*entries)[(*count)++] = (folio_mu_outline){ strdup(title), page, depth };
        nav_list(ctx, d, fz_xml_find_down(li, "ol"), base, depth + 1, entries, count, capacity);
    }
}

/// The archive path of `href` written in the package file `opf_path`, and its folder into `base`.
static void package_entry(const char *opf_path, const char *href, char *path, size_t size, char *base, size_t base_size) {
    const char *slash = strrchr(opf_path, '/');
    snprintf(path, size, "%.*s%s", slash ? (int)(slash - opf_path + 1) : 0, opf_path, href);
    fz_urldecode(path);
    fz_cleanname(path);
    slash = strrchr(path, '/');
    snprintf(base, base_size, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
}

/// Calls `use` with the list of the `nav` of type `type` ("toc", "page-list") of an EPUB 3
/// book's navigation document (its `ol`) and the folder its links are relative to; for a page
/// list an EPUB 2's NCX `pageList` where the book has no navigation document's; nothing when
/// there is none.
static void nav_document(fz_context *ctx, folio_mu_doc *d, const char *type,
                         void (*use)(fz_context *ctx, folio_mu_doc *d, fz_xml *list, const char *base, void *user), void *user) {
    fz_archive *arch = NULL;
    fz_xml *container = NULL, *opf = NULL, *nav = NULL, *ncx = NULL;
    fz_var(arch); fz_var(container); fz_var(opf); fz_var(nav); fz_var(ncx);
    fz_try(ctx) {
        arch = fb_open_book_archive(ctx, d);
        container = fb_entry_xml(ctx, arch, "META-INF/container.xml");
        fz_xml *root = container ? fz_xml_find_dfs(container, "rootfile", NULL, NULL) : NULL;
        const char *opf_path = root ? fz_xml_att(root, "full-path") : NULL;
        if (!opf_path) break;
        opf = fb_entry_xml(ctx, arch, opf_path);
        // The item whose properties hold the word "nav" ("nav scripted").
        const char *href = NULL;
        for (fz_xml *item = opf ? fz_xml_find_dfs(opf, "item", NULL, NULL) : NULL; item && !href; item = fz_xml_find_next_dfs(item, "item", NULL, NULL)) {
            const char *p = fz_xml_att(item, "properties");
            for (const char *w = p; w && (w = strstr(w, "nav")); w += 3)
                if ((w == p || isspace((unsigned char)w[-1])) && (!w[3] || isspace((unsigned char)w[3]))) href = fz_xml_att(item, "href");
        }
        // Paths in the OPF are relative to its folder; those in the nav to the nav's.
        char path[2048], base[2048] = "";
        fz_xml *list = NULL;
        if (href) {
            package_entry(opf_path, href, path, sizeof path, base, sizeof base);
            nav = fb_entry_xml(ctx, arch, path);
            for (fz_xml *n = nav ? fz_xml_find_dfs(nav, "nav", NULL, NULL) : NULL; n && !list; n = fz_xml_find_next_dfs(n, "nav", NULL, NULL)) {
                const char *t = xml_type(n);
                if (t && strstr(t, type)) list = fz_xml_find_dfs(n, "ol", NULL, NULL);
            }
        }
        if (!list && !strcmp(type, "page-list")) {
            // The spine names its NCX by the manifest item's id.
            fz_xml *spine = opf ? fz_xml_find_dfs(opf, "spine", NULL, NULL) : NULL;
            const char *toc = spine ? fz_xml_att(spine, "toc") : NULL;
            fz_xml *item = toc ? fz_xml_find_dfs(opf, "item", "id", toc) : NULL;
            const char *ncx_href = item ? fz_xml_att(item, "href") : NULL;
            if (ncx_href) {
                package_entry(opf_path, ncx_href, path, sizeof path, base, sizeof base);
                ncx = fb_entry_xml(ctx, arch, path);
                list = ncx ? fz_xml_find_dfs(ncx, "pageList", NULL, NULL) : NULL;
            }
        }
        if (list) use(ctx, d, list, base, user);
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, ncx);
        fz_drop_xml(ctx, nav);
        fz_drop_xml(ctx, opf);
        fz_drop_xml(ctx, container);
        fz_drop_archive(ctx, arch);
    }
    fz_catch(ctx) { /* no navigation document: nothing */ }
}

typedef struct { folio_mu_outline **entries; int *count, *capacity; } outline_list;

static void use_toc(fz_context *ctx, folio_mu_doc *d, fz_xml *ol, const char *base, void *user) {
    outline_list *list = user;
    nav_list(ctx, d, ol, base, 0, list->entries, list->count, list->capacity);
}

/// The outline of an EPUB 3 book's navigation document (MuPDF reads only the EPUB 2 NCX).
static void nav_outline(fz_context *ctx, folio_mu_doc *d, folio_mu_outline **entries, int *count, int *capacity) {
    outline_list list = {entries, count, capacity};
    nav_document(ctx, d, "toc", use_toc, &list);
}

/// Adds the place `href` (relative to `base`) named `label` to `list`, with the spine item it
/// lies in (one outside the spine, unnamed, or past the entries a book's archive may hold, is
/// left out: a longer list is a hostile one).
static void add_mark(fz_context *ctx, folio_mu_doc *d, struct page_marks *list, int *capacity, const char *base, const char *href,
                     const char *label, int depth) {
    char target[2048];
    if (!href || !*label || fz_is_external_link(ctx, href) || list->count >= folio_mu_max_entries) return;
    snprintf(target, sizeof target, "%s%s", base, href);
    fz_urldecode(target);
    fz_cleanname(target);
    int chapter = spine_target(d, target, sizeof target);
    if (chapter < 0) return;
    list->items = fb_grow(ctx, list->items, list->count, capacity, sizeof *list->items);
    list->items[list->count++] = (struct page_mark){ chapter, strdup(target), one_line(label), -2, 0, depth };
}

/// Reads the page list's entries into `d->printed` (a navigation document's `ol` of `li` > `a`,
/// or an NCX's `pageList` of `pageTarget`s).
static void use_page_list(fz_context *ctx, folio_mu_doc *d, fz_xml *list, const char *base, void *user) {
    int capacity = 0, ncx = !strcmp(fz_xml_tag(list), "pageList");
    const char *tag = ncx ? "pageTarget" : "li";
    for (fz_xml *li = fz_xml_find_down(list, tag); li; li = fz_xml_find_next(li, tag)) {
        fz_xml *a = ncx ? fz_xml_find_down(li, "content") : fz_xml_find_down(li, "a");
        fz_xml *words = ncx ? fz_xml_find_down(fz_xml_find_down(li, "navLabel"), "text") : a;
        char label[64] = "";
        if (!words) continue;
        folio_xml_text(words, label, sizeof label);
        add_mark(ctx, d, &d->printed, &capacity, base, a ? fz_xml_att(a, ncx ? "src" : "href") : NULL, label, 0);
    }
}

/// Reads a navigation document's contents (`ol` of `li` > `a`, nested) into `d->heads`.
static void toc_heads(fz_context *ctx, folio_mu_doc *d, fz_xml *ol, const char *base, int depth, int *capacity) {
    for (fz_xml *li = ol ? fz_xml_find_down(ol, "li") : NULL; li && depth < max_outline_depth; li = fz_xml_find_next(li, "li")) {
        fz_xml *a = fz_xml_find_down(li, "a");
        char title[256] = "";
        if (a) folio_xml_text(a, title, sizeof title);
        add_mark(ctx, d, &d->heads, capacity, base, a ? fz_xml_att(a, "href") : NULL, title, depth);
        toc_heads(ctx, d, fz_xml_find_down(li, "ol"), base, depth + 1, capacity);
    }
}

static void use_toc_heads(fz_context *ctx, folio_mu_doc *d, fz_xml *ol, const char *base, void *user) {
    toc_heads(ctx, d, ol, base, 0, user);
}

/// Reads the outline's entries (an NCX's, as MuPDF reads it) into `d->heads`.
static void outline_heads(fz_context *ctx, folio_mu_doc *d, fz_outline *item, int depth, int *capacity) {
    for (; item && depth < max_outline_depth; item = item->next) {
        if (item->uri && item->title) add_mark(ctx, d, &d->heads, capacity, "", item->uri, item->title, depth);
        outline_heads(ctx, d, item->down, depth + 1, capacity);
    }
}

/// Chapters looked back through for the mark a page follows, and how far down its page
/// (points) a mark may lie and still name it: a page takes the number of the printed page it
/// starts in, and the heading it starts under, as a reader takes the first lines for the page
/// they are on.
enum { mark_reach = 4, mark_top = 24 };

/// How far down its page a contents entry may lie and still open the page: a quarter of it,
/// room for a heading's top margin (a KF8 chapter's first page, its heading pushed down by its
/// margin, was headed by the chapter before; so was a Project Gutenberg chapter's, whose
/// `div.chapter` has a top margin of 4 em). In an EPUB, only with nothing set above it
/// (`set_above`): a section starting a fifth of the way down a page keeps the page's head.
static float opening_top(const folio_mu_doc *d) {
    return d->page_height > 4 * mark_top ? d->page_height / 4 : mark_top;
}

/// The mark of `list` last on or before page `index` (within `top` points of its top counts as
/// on it), in its chapter or the few before it (laid out already: their pages come first); -1
/// when there is none.
static int last_mark(fz_context *ctx, folio_mu_doc *d, struct page_marks *list, int index, float top) {
    int chapter = fb_page_location(ctx, d, index).chapter, best = -1;
    for (int c = chapter; c >= 0 && c > chapter - mark_reach && best < 0; c--) {
        for (int i = 0; i < list->count; i++) {
            struct page_mark *m = list->items + i;
            if (m->chapter != c) continue;
            if (m->page == -2) {
                fz_try(ctx) m->page = fb_page_number(ctx, d, fz_resolve_link(ctx, d->doc, m->target, NULL, &m->y));
                fz_catch(ctx) m->page = -1;
            }
            int before = m->page >= 0 && (m->page < index || (m->page == index && m->y <= top));
            if (before && (best < 0 || m->page > list->items[best].page || (m->page == list->items[best].page && m->y >= list->items[best].y))) best = i;
        }
    }
    return best;
}

/// The mark of `list` highest on page `index` within `top` points of its top, or -1. Marks of
/// the page's chapter are resolved (`last_mark` has looked at them).
static int first_mark(const struct page_marks *list, int index, float top) {
    int first = -1;
    for (int i = 0; i < list->count; i++) {
        const struct page_mark *m = list->items + i;
        if (m->page == index && m->y <= top && (first < 0 || m->y < list->items[first].y)) first = i;
    }
    return first;
}

/// Whether page `index` has text or a picture above `y` (a heading's own top margin, or a
/// chapter's, as Project Gutenberg's `div.chapter { margin-top: 4em }`, is nothing).
static int set_above(fz_context *ctx, folio_mu_doc *d, int index, float y) {
    fz_page *page = NULL;
    fz_stext_page *text = NULL;
    int above = 0;
    fz_var(page); fz_var(text);
    fz_try(ctx) {
        page = fb_load_page(ctx, d, index);
        text = fz_new_stext_page_from_page(ctx, page, NULL);
        // A line ending half its height above `y` (an entry's place is its first line's, which
        // MuPDF gives a little lower than the line's top).
        for (fz_stext_block *b = text->first_block; b && !above; b = b->next) {
            if (b->type == FZ_STEXT_BLOCK_IMAGE) above = b->bbox.y1 <= y;
            for (fz_stext_line *l = b->type == FZ_STEXT_BLOCK_TEXT ? b->u.t.first_line : NULL; l && !above; l = l->next)
                above = l->bbox.y1 <= y - (l->bbox.y1 - l->bbox.y0) / 2;
        }
    }
    fz_always(ctx) {
        fz_drop_stext_page(ctx, text);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) above = 1;
    return above;
}

int folio_mu_printed_label(folio_mu_doc *d, int index, char *label, size_t size) {
    int found = -1;
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        if (!d->printed.read) {
            d->printed.read = 1;
            if (fb_chapters_are_spine(ctx, d)) nav_document(ctx, d, "page-list", use_page_list, NULL);
        }
        int best = d->printed.count ? last_mark(ctx, d, &d->printed, index, mark_top) : -1;
        found = d->printed.count ? best >= 0 : -1;
        if (best >= 0) snprintf(label, size, "%s", d->printed.items[best].label);
    }
    fz_catch(ctx) found = -1;
    pthread_mutex_unlock(&d->mutex);
    return found;
}

int folio_mu_running_head(folio_mu_doc *d, int index, char *title, size_t size) {
    int found = -1;
    fz_outline *outline = NULL;
    fz_var(outline);
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        if (!d->heads.read) {
            d->heads.read = 1;
            int capacity = 0;
            if (fb_chapters_are_spine(ctx, d)) {
                outline = fz_load_outline(ctx, d->doc);
                outline_heads(ctx, d, outline, 0, &capacity);
                if (!d->heads.count) nav_document(ctx, d, "toc", use_toc_heads, &capacity);
            }
        }
        int best = last_mark(ctx, d, &d->heads, index, mark_top);
        // An entry lower down, below a heading's own margin, opens the page too (in an EPUB,
        // where nothing is set above it).
        if (best < 0 || d->heads.items[best].page != index) {
            int opening = first_mark(&d->heads, index, opening_top(d));
            if (opening >= 0 && (d->indexed || !set_above(ctx, d, index, d->heads.items[opening].y))) best = opening;
        }
        // A chapter's opening page has no head; a section's is headed by the section.
        found = best < 0 ? 0 : d->heads.items[best].page == index && d->heads.items[best].y <= opening_top(d) && !d->heads.items[best].depth ? 2 : 1;
        if (best >= 0) snprintf(title, size, "%s", d->heads.items[best].label);
    }
    fz_always(ctx) fz_drop_outline(ctx, outline);
    fz_catch(ctx) found = -1;
    pthread_mutex_unlock(&d->mutex);
    return found;
}

/// The contents a book's own index gave as it was prepared (`d->indexed`), in this layout.
static void indexed_outline(fz_context *ctx, folio_mu_doc *d, folio_mu_outline **entries, int *count, int *capacity) {
    for (int i = 0; i < d->heads.count; i++) {
        struct page_mark *m = d->heads.items + i;
        *entries = fb_grow(ctx, *entries, *count, capacity, sizeof **entries);
        int page = fb_page_number(ctx, d, fz_resolve_link(ctx, d->doc, m->target, NULL, NULL));
        (*entries)[(*count)++] = (folio_mu_outline){ strdup(m->label), page, m->depth };
    }
}

int folio_mu_outline_entries(folio_mu_doc *d, folio_mu_outline **out, folio_mu_error *error) {
    folio_mu_outline *entries = NULL;
    int count = 0, capacity = 0;
    fz_outline *outline = NULL;
    fz_var(outline); fz_var(entries); fz_var(count); fz_var(capacity);
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        if (d->indexed) {
            indexed_outline(ctx, d, &entries, &count, &capacity);
        } else {
            outline = fz_load_outline(ctx, d->doc);
            flatten(ctx, d, outline, 0, &entries, &count, &capacity);
            if (count == 0) nav_outline(ctx, d, &entries, &count, &capacity);
        }
    }
    fz_always(ctx) fz_drop_outline(ctx, outline);
    fz_catch(ctx) {
        fb_fail(error, fz_caught_message(ctx));
        folio_mu_free_outline(entries, count);
        entries = NULL;
        count = -1;
    }
    pthread_mutex_unlock(&d->mutex);
    *out = entries;
    return count;
}

void folio_mu_free_outline(folio_mu_outline *entries, int count) {
    for (int i = 0; i < count; i++) free(entries[i].title);
    free(entries);
}
