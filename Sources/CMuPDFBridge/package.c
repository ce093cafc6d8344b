// What a book's package says before MuPDF opens it: an EPUB's DRM files, OPF, spine and its
// chapters' text, viewport, direction and language. Does not open the document (document.c) or
// read a MOBI (mobi.c); markup's depth is counted in hostile.c.
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: the package (EPUB's OPF and DRM files)

fz_xml *fb_entry_xml(fz_context *ctx, fz_archive *arch, const char *name) {
    if (!fz_has_archive_entry(ctx, arch, name)) return NULL;
    fz_buffer *buf = fz_read_archive_entry(ctx, arch, name);
    fz_xml *xml = NULL;
    fz_try(ctx) xml = fz_parse_xml(ctx, buf, 0);
    fz_always(ctx) fz_drop_buffer(ctx, buf);
    fz_catch(ctx) fz_rethrow(ctx);
    return xml;
}

static void drop_entry_texts(fz_context *ctx, entry_texts *texts) {
    for (int i = 0; i < texts->count; i++) fz_free(ctx, texts->entries[i].name);
    fz_free(ctx, texts->entries);
}

/// The number after `key=` in a viewport's content ("width=1200, height=1600"), or 0.
static float viewport_value(const char *content, const char *key) {
    const char *at = content ? strstr(content, key) : NULL;
    if (!at) return 0;
    at += strlen(key);
    while (*at == ' ') at++;
    if (*at++ != '=') return 0;
    float v = strtof(at, NULL);
    return v > 0 && v < 100000 ? v : 0;
}

/// The archive entry a manifest `item` names (fz_malloc'd), or NULL when it names none.
static char *item_entry(fz_context *ctx, fz_xml *item, const char *opf_path) {
    const char *href = item ? fz_xml_att(item, "href") : NULL;
    if (!href) return NULL;
    const char *slash = strrchr(opf_path, '/');
    size_t dir = slash ? (size_t)(slash - opf_path + 1) : 0, n = dir + strlen(href) + 1;
    char *name = fz_malloc(ctx, n);
    snprintf(name, n, "%.*s%s", (int)dir, opf_path, href);
    return fz_cleanname(fz_urldecode(name));
}

/// The archive entry a spine `itemref` names (fz_malloc'd), or NULL when the manifest has no
/// such item (MuPDF passes it over too).
static char *spine_entry(fz_context *ctx, fz_xml *opf, fz_xml *itemref, const char *opf_path) {
    const char *idref = fz_xml_att(itemref, "idref");
    return item_entry(ctx, idref ? fz_xml_find_dfs(opf, "item", "id", idref) : NULL, opf_path);
}

/// A manifest item by its id, with its text's characters once read.
typedef struct { const char *id; int order; fz_xml *item; size_t text; int read; char *entry; } manifest_item;

static int by_id(const void *a, const void *b) {
    const manifest_item *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : x->order - y->order;
}

/// The first of `items` (sorted) of id `id`, or NULL.
static manifest_item *find_item(manifest_item *items, int count, const char *id) {
    int lo = 0, hi = count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(items[mid].id, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < count && !strcmp(items[lo].id, id) ? items + lo : NULL;
}

/// The characters of each spine item's text into `d` (0 for an item missing from the archive),
/// from the entries' `texts`, and the chapters the archive lacks (`d->missing`); a spine of more
/// than `folio_mu_max_spine` items refuses the book (`info->refused`). Items are found by id in
/// a sorted index, once however often the spine lists them.
static void read_spine_text(fz_context *ctx, fz_archive *arch, const entry_texts *texts, fz_xml *opf, const char *opf_path,
                            folio_mu_doc *d, folio_mu_info *info) {
    int refs = 0, count = 0;
    for (fz_xml *x = fz_xml_find_dfs(opf, "itemref", NULL, NULL); x; x = fz_xml_find_next_dfs(x, "itemref", NULL, NULL)) refs++;
    if (refs > folio_mu_max_spine) {
        snprintf(info->refused, sizeof info->refused, "its spine lists %d items, more than %d; not opened", refs, folio_mu_max_spine);
        return;
    }
    for (fz_xml *x = fz_xml_find_dfs(opf, "item", NULL, NULL); x; x = fz_xml_find_next_dfs(x, "item", NULL, NULL)) count++;
    manifest_item *items = NULL;
    char *name = NULL;
    fz_buffer *buf = NULL;
    fz_var(items); fz_var(name); fz_var(buf);
    fz_try(ctx) {
        items = fz_malloc_array(ctx, count ? count : 1, manifest_item);
        int known = 0;
        for (fz_xml *x = fz_xml_find_dfs(opf, "item", NULL, NULL); x; x = fz_xml_find_next_dfs(x, "item", NULL, NULL)) {
            const char *id = fz_xml_att(x, "id");
            if (!id) continue;
            items[known] = (manifest_item){ id, known, x, 0, 0, NULL };
            known++;
        }
        qsort(items, (size_t)known, sizeof *items, by_id);
        d->spine_text = malloc((size_t)(refs ? refs : 1) * sizeof *d->spine_text);
        d->spine_names = calloc((size_t)(refs ? refs : 1), sizeof *d->spine_names);
        if (!d->spine_text || !d->spine_names) fz_throw(ctx, FZ_ERROR_GENERIC, "out of memory");
        for (fz_xml *itemref = fz_xml_find_dfs(opf, "itemref", NULL, NULL); itemref;
             itemref = fz_xml_find_next_dfs(itemref, "itemref", NULL, NULL)) {
            const char *idref = fz_xml_att(itemref, "idref");
            manifest_item *m = idref ? find_item(items, known, idref) : NULL;
            if (!m) continue;
            if (!m->read) {
                name = item_entry(ctx, m->item, opf_path);
                if (!name) continue;
                entry_text key = { name, 0 };
                const entry_text *found = bsearch(&key, texts->entries, (size_t)texts->count, sizeof key, fb_by_name);
                m->text = found ? found->text : 0;
                if (fb_style_or_script(name) && fz_has_archive_entry(ctx, arch, name)) {
                    // A chapter named as a stylesheet: `fb_check_depth` passed it over.
                    buf = fz_read_archive_entry(ctx, arch, name);
                    if (fb_too_deep(ctx, buf, read_either)) snprintf(info->too_deep, sizeof info->too_deep, "%s", name);
                    unsigned char *data;
                    size_t bytes = fz_buffer_storage(ctx, buf, &data);
                    m->text = fb_text_characters(data, bytes);
                    fz_drop_buffer(ctx, buf);
                    buf = NULL;
                }
                // MuPDF would refuse the whole book, naming no entry. A chapter of markup is in
                // the sorted index; only other entries (pictures) take the archive's linear lookup.
                if (!found && !fz_has_archive_entry(ctx, arch, name)) {
                    char *copy = strdup(name);
                    char **grown = copy ? realloc(d->missing, (size_t)(d->missing_count + 1) * sizeof *d->missing) : NULL;
                    if (!grown) { free(copy); fz_throw(ctx, FZ_ERROR_GENERIC, "out of memory"); }
                    d->missing = grown;
                    d->missing[d->missing_count++] = copy;
                }
                m->entry = name;
                name = NULL;
                m->read = 1;
            }
            d->spine_names[d->spine_count] = strdup(m->entry);
            d->spine_text[d->spine_count++] = m->text;
        }
    }
    fz_always(ctx) {
        fz_drop_buffer(ctx, buf);
        fz_free(ctx, name);
        for (int i = 0; items && i < count; i++) fz_free(ctx, items[i].entry);
        fz_free(ctx, items);
    }
    fz_catch(ctx) d->spine_count = 0;
}

/// A picture's size in pixels (an SVG's view box or width and height); 0 × 0 if unknown.
static void picture_size(fz_context *ctx, fz_archive *arch, const char *name, float *width, float *height) {
    fz_buffer *buf = NULL;
    fz_xml *svg = NULL;
    fz_image *image = NULL;
    fz_var(buf); fz_var(svg); fz_var(image);
    fz_try(ctx) {
        buf = fz_read_archive_entry(ctx, arch, name);
        const char *dot = strrchr(name, '.');
        if (dot && !fz_strcasecmp(dot, ".svg")) {
            svg = fz_parse_xml(ctx, buf, 0);
            fz_xml *root = fz_xml_find(svg, "svg");
            const char *box = root ? fz_xml_att(root, "viewBox") : NULL;
            float x, y, w = 0, h = 0;
            if (!box || sscanf(box, "%f %f %f %f", &x, &y, &w, &h) != 4) {
                const char *ws = root ? fz_xml_att(root, "width") : NULL, *hs = root ? fz_xml_att(root, "height") : NULL;
                w = ws && !strchr(ws, '%') ? strtof(ws, NULL) : 0;
                h = hs && !strchr(hs, '%') ? strtof(hs, NULL) : 0;
            }
            *width = w; *height = h;
        } else {
            image = fz_new_image_from_buffer(ctx, buf);
            *width = image->w; *height = image->h;
        }
    }
    fz_always(ctx) {
        fz_drop_image(ctx, image);
        fz_drop_xml(ctx, svg);
        fz_drop_buffer(ctx, buf);
    }
    fz_catch(ctx) { *width = *height = 0; }
    if (!(*width > 0 && *width < 100000 && *height > 0 && *height < 100000)) *width = *height = 0;
}

/// A fixed-layout book's page size in CSS pixels: the OPF's `rendition:viewport`, else the
/// viewport `meta` of the first of its first spine items that has one (a reflowable note may
/// come first), or the size of the first that is a picture (a manga of pictures in its spine).
static void read_viewport(fz_context *ctx, fz_archive *arch, fz_xml *opf, const char *opf_path, folio_mu_info *info) {
    fz_xml *meta = fz_xml_find_dfs(opf, "meta", "property", "rendition:viewport");
    const char *content = meta ? fz_xml_text(fz_xml_down(meta)) : NULL;
    fz_xml *page = NULL;
    char *name = NULL;
    fz_var(page); fz_var(name);
    fz_try(ctx) {
        fz_xml *itemref = fz_xml_find_dfs(opf, "itemref", NULL, NULL);
        for (int tried = 0; !content && itemref && tried < 8; tried++, itemref = fz_xml_find_next_dfs(itemref, "itemref", NULL, NULL)) {
            fz_free(ctx, name);
            name = NULL;
            name = spine_entry(ctx, opf, itemref, opf_path);
            if (!name) continue;
            const char *idref = fz_xml_att(itemref, "idref");
            fz_xml *item = idref ? fz_xml_find_dfs(opf, "item", "id", idref) : NULL;
            const char *type = item ? fz_xml_att(item, "media-type") : NULL;
            if (type && !strncmp(type, "image/", 6)) {
                picture_size(ctx, arch, name, &info->viewport_width, &info->viewport_height);
                if (info->viewport_width > 0) break;
                continue;
            }
            fz_drop_xml(ctx, page);
            page = NULL;
            page = fb_entry_xml(ctx, arch, name);
            fz_xml *tag = page ? fz_xml_find_dfs(page, "meta", "name", "viewport") : NULL;
            content = tag ? fz_xml_att(tag, "content") : NULL;
        }
        if (content) {
            info->viewport_width = viewport_value(content, "width");
            info->viewport_height = viewport_value(content, "height");
        }
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, page);
        fz_free(ctx, name);
    }
    fz_catch(ctx) { info->viewport_width = info->viewport_height = 0; }
}

/// Whether one of the archive's stylesheets sets text vertically (a Japanese novel's
/// `writing-mode: vertical-rl`, or EPUB 2's `-epub-writing-mode`).
static int sets_vertical(fz_context *ctx, fz_archive *arch) {
    int vertical = 0, n = fz_count_archive_entries(ctx, arch);
    for (int i = 0; i < n && !vertical; i++) {
        const char *name = fz_list_archive_entry(ctx, arch, i);
        const char *dot = name ? strrchr(name, '.') : NULL;
        if (!dot || fz_strcasecmp(dot, ".css")) continue;
        fz_buffer *css = fz_read_archive_entry(ctx, arch, name);
        const char *text = fz_string_from_buffer(ctx, css);
        for (const char *at = strstr(text, "writing-mode"); at && !vertical; at = strstr(at + 1, "writing-mode")) {
            const char *colon = strchr(at, ':');
            while (colon && (*++colon == ' ' || *colon == '\t')) {}
            vertical = colon && !strncmp(colon, "vertical", 8);
        }
        fz_drop_buffer(ctx, css);
    }
    return vertical;
}

// MARK: the package read

/// Entry name `name` made plain into `out` (`size` bytes): Windows's backslashes made slashes,
/// `.` and `..` taken out as far as they go (`fz_cleanname`); NULL when it does not fit.
static char *plain_name(const char *name, char *out, size_t size) {
    if (strlen(name) >= size) return NULL;
    snprintf(out, size, "%s", name);
    for (char *c = out; *c; c++) if (*c == '\\') *c = '/';
    return fz_cleanname(out);
}

/// Whether an entry of `arch` has a name that is not plain (`EPUB/./contents/chapter_1.xhtml`,
/// `OEBPS\\chapter1.xhtml`): MuPDF looks every entry up by its name made plain (and knows no
/// backslash), and finds none such.
static int names_not_plain(fz_context *ctx, fz_archive *arch) {
    int n = fz_count_archive_entries(ctx, arch);
    char clean[2048];
    for (int i = 0; i < n && i < folio_mu_max_entries; i++) {
        const char *name = fz_list_archive_entry(ctx, arch, i);
        if (name && plain_name(name, clean, sizeof clean) && strcmp(clean, name) && strcmp(clean, ".")) return 1;
    }
    return 0;
}

/// A copy of zip `arch` with each entry under its name made plain, read by the name it has (the
/// archive's own reader, before MuPDF's lookup makes the name plain); folders, and names that
/// lead out of the archive, left out.
static fz_buffer *plain_names_copy(fz_context *ctx, fz_archive *arch) {
    fz_buffer *copy = fz_new_buffer(ctx, 1 << 16), *entry = NULL;
    fz_zip_writer *writer = NULL;
    fz_var(entry); fz_var(writer);
    fz_try(ctx) {
        writer = fz_new_zip_writer_with_output(ctx, fz_new_output_with_buffer(ctx, copy));
        int n = fz_count_archive_entries(ctx, arch);
        char clean[2048];
        for (int i = 0; i < n; i++) {
            const char *name = fz_list_archive_entry(ctx, arch, i);
            if (!name || !*name || name[strlen(name) - 1] == '/' || name[strlen(name) - 1] == '\\'
                || !plain_name(name, clean, sizeof clean)) continue;
            // A name that leads out of the archive (`OEBPS/../../../etc/passwd`) names nothing
            // a book may show.
            if (!strncmp(clean, "../", 3) || !strcmp(clean, "..") || clean[0] == '/') continue;
            entry = arch->read_entry(ctx, arch, name);
            fz_write_zip_entry(ctx, writer, clean, entry, 0);
            fz_drop_buffer(ctx, entry);
            entry = NULL;
        }
        fz_close_zip_writer(ctx, writer);
    }
    fz_always(ctx) {
        fz_drop_buffer(ctx, entry);
        fz_drop_zip_writer(ctx, writer);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, copy);
        fz_rethrow(ctx);
    }
    return copy;
}

/// Reads the package into `info`.
void fb_read_package(fz_context *ctx, const char *path, folio_mu_info *info, folio_mu_doc *d) {
    fz_archive *arch = NULL;
    fz_xml *container = NULL, *opf = NULL, *enc = NULL;
    char *opf_path = NULL;
    entry_texts texts = { NULL, 0 };
    fz_var(arch); fz_var(container); fz_var(opf); fz_var(enc); fz_var(opf_path); fz_var(texts);
    fz_try(ctx) arch = fb_open_book_archive(ctx, d);
    fz_catch(ctx) arch = NULL;  // not an archive: FB2, XHTML, MOBI
    // MuPDF takes any file of whole 512-byte blocks with six zero bytes at 257 for a tar
    // archive (untar.c's v7 signature): a MOBI so shaped passed over the checks of its records
    // below, and crashed MuPDF's reader. The books read here as archives are zips (EPUB, XPS).
    if (arch && strcmp(fz_archive_format(ctx, arch), "zip")) {
        fz_drop_archive(ctx, arch);
        arch = NULL;
    }
    // A book whose entries' names are not plain is read from a copy whose are (an
    // ebooklib book named its chapters `EPUB/./contents/…`: MuPDF found none of them).
    if (arch && !d->archive_copy) {
        fz_try(ctx) {
            if (names_not_plain(ctx, arch)) {
                d->archive_copy = plain_names_copy(ctx, arch);
                fz_drop_archive(ctx, arch);
                arch = NULL;
                arch = fb_open_book_archive(ctx, d);
            }
        }
        fz_catch(ctx) { /* the file's own names, as before */ }
    }
    if (!arch) fb_read_mobi_header(ctx, path, info);
    fz_try(ctx) {
        fb_check_depth(ctx, path, arch, info, &texts);
        if (!arch) break;
        if (fz_has_archive_entry(ctx, arch, "META-INF/rights.xml")) info->encrypted = 1;
        enc = fb_entry_xml(ctx, arch, "META-INF/encryption.xml");
        for (fz_xml *m = enc ? fz_xml_find_dfs(enc, "EncryptionMethod", NULL, NULL) : NULL; m;
             m = fz_xml_find_next_dfs(m, "EncryptionMethod", NULL, NULL))
            if (!fb_font_obfuscation(fz_xml_att(m, "Algorithm"))) info->encrypted = 1;
        info->obfuscated_fonts = enc && !info->encrypted;
        container = fb_entry_xml(ctx, arch, "META-INF/container.xml");
        fz_xml *root = container ? fz_xml_find_dfs(container, "rootfile", NULL, NULL) : NULL;
        const char *full = root ? fz_xml_att(root, "full-path") : NULL;
        if (full) {
            opf_path = fz_strdup(ctx, full);
            opf = fb_entry_xml(ctx, arch, opf_path);
        }
        info->epub = opf != NULL;
        fz_xml *spine = opf ? fz_xml_find_dfs(opf, "spine", NULL, NULL) : NULL;
        const char *ppd = spine ? fz_xml_att(spine, "page-progression-direction") : NULL;
        if (ppd && !strcmp(ppd, "rtl")) info->right_to_left = 1;
        fz_xml *layout = opf ? fz_xml_find_dfs(opf, "meta", "property", "rendition:layout") : NULL;
        const char *value = layout ? fz_xml_text(fz_xml_down(layout)) : NULL;
        if (value && strstr(value, "pre-paginated")) info->pre_paginated = 1;
        if (info->pre_paginated) read_viewport(ctx, arch, opf, opf_path, info);
        fz_xml *language = opf ? fz_xml_find_dfs(opf, "language", NULL, NULL) : NULL;
        const char *lang = language ? fz_xml_text(fz_xml_down(language)) : NULL;
        if (lang) snprintf(info->language, sizeof info->language, "%s", lang);
        info->vertical = sets_vertical(ctx, arch);
        if (opf) read_spine_text(ctx, arch, &texts, opf, opf_path, d, info);
        if (opf) d->opf_path = strdup(opf_path);
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, enc);
        fz_drop_xml(ctx, container);
        fz_drop_xml(ctx, opf);
        fz_free(ctx, opf_path);
        drop_entry_texts(ctx, &texts);
        fz_drop_archive(ctx, arch);
    }
    fz_catch(ctx) { /* no package, or a damaged one: MuPDF says what when it opens the file */ }
}
