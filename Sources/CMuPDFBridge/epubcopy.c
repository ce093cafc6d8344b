// An EPUB copied into memory for MuPDF: its markup prepared, its stylesheets' imports written in,
// its picture pages given pages, its missing chapters a page saying so, the default serif's and
// the reader's face's files put in (faces.c). Does not prepare markup itself (typeset.c).
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: the copy's entries

/// Whether entry `name`, holding `data`, is a chapter's markup: named as HTML, or named `.xml`
/// and opening an `<html>` in its first KiB (Feedbooks' chapters are `main0.xml`).
static int markup_entry(fz_context *ctx, const char *name, fz_buffer *data) {
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    if (!strcasecmp(dot, ".xhtml") || !strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm") || !strcasecmp(dot, ".xht")) return 1;
    if (strcasecmp(dot, ".xml")) return 0;
    unsigned char *s;
    size_t n = fz_buffer_storage(ctx, data, &s);
    for (size_t i = 0; i + 5 <= n && i < 1024; i++) if (!strncasecmp((const char *)s + i, "<html", 5)) return 1;
    return 0;
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
            if (!fb_attribute(data + i + 1, end - i - 1, "href", href, sizeof href)
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

/// Writes the page standing in for chapter `name`, which the book's archive lacks (MuPDF would
/// refuse the whole book for it), saying so where it would be read.
static void write_missing_page(fz_context *ctx, fz_zip_writer *writer, const char *name) {
    fz_buffer *page = fz_new_buffer(ctx, 512);
    fz_try(ctx) {
        fz_append_string(ctx, page, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title></title></head>"
                         "<body><p style=\"text-align:center;font-style:italic\">A chapter is missing here: the book's file does not hold ");
        for (const char *c = name; *c; c++) {
            switch (*c) {
            case '&': fz_append_string(ctx, page, "&amp;"); break;
            case '<': fz_append_string(ctx, page, "&lt;"); break;
            case '>': fz_append_string(ctx, page, "&gt;"); break;
            default: fz_append_byte(ctx, page, *c);
            }
        }
        fz_append_string(ctx, page, ".</p></body></html>");
        fz_write_zip_entry(ctx, writer, name, page, 0);
    }
    fz_always(ctx) fz_drop_buffer(ctx, page);
    fz_catch(ctx) fz_rethrow(ctx);
}

// MARK: stylesheets' imports

/// How deep imports are written in, and the bytes a stylesheet may grow to with them: a chain of
/// stylesheets importing each other twice over must not multiply a book's styles without end.
enum { imports_depth = 8, imports_limit = 4 << 20 };

/// The length of the folder part of archive entry `name` (up to and with its last '/').
static size_t folder_length(const char *name) {
    const char *slash = strrchr(name, '/');
    return slash ? (size_t)(slash - name + 1) : 0;
}

/// Appends `n` bytes of CSS from a stylesheet in `from` (a folder, `from_len` bytes) as they read
/// in one in `base`: each relative `url(…)` made relative to `base` (fonts and pictures of an
/// imported stylesheet in another folder are found from the stylesheet importing it).
static void put_css(fz_context *ctx, fz_buffer *out, const unsigned char *s, size_t n, const char *from, size_t from_len,
                    const char *base, size_t base_len) {
    if (from_len == base_len && !memcmp(from, base, from_len)) { fz_append_data(ctx, out, s, n); return; }
    // The common folders, then "../" for each of `base`'s beyond them and `from`'s beyond them.
    size_t common = 0;
    for (size_t k = 0; k < from_len && k < base_len && from[k] == base[k]; k++) if (from[k] == '/') common = k + 1;
    size_t i = 0, start = 0;
    while (i + 4 <= n) {
        if (strncasecmp((const char *)s + i, "url(", 4)) { i++; continue; }
        size_t j = i + 4;
        while (j < n && (s[j] == ' ' || s[j] == '"' || s[j] == '\'')) j++;
        int relative = j < n && s[j] != '/' && s[j] != '#' && strncasecmp((const char *)s + j, "data:", 5);
        for (size_t k = j; k < n && relative && s[k] != ')' && s[k] != '/'; k++) relative = s[k] != ':';
        if (relative) {
            fz_append_data(ctx, out, s + start, j - start);
            for (size_t k = common; k < base_len; k++) if (base[k] == '/') fz_append_string(ctx, out, "../");
            fz_append_data(ctx, out, from + common, from_len - common);
            start = j;
        }
        i = j;
    }
    fz_append_data(ctx, out, s + start, n - start);
}

/// Appends stylesheet `name` (its `n` bytes at `s`) to `out` as it reads from folder `base`, each
/// `@import` of a stylesheet the archive holds written in its place (for screens: one for print
/// is left out), its own imports in turn. MuPDF 1.21 reads no `@import`: the IDPF's *Waste Land*
/// declares its fonts in a stylesheet it imports, and was set in MuPDF's sans. An import outside
/// the archive (an address, `../` past its root) is left out; nothing outside the book is read.
static void put_imports(fz_context *ctx, fz_archive *arch, const char *name, const unsigned char *s, size_t n, fz_buffer *out,
                        const char *base, size_t base_len, int depth) {
    size_t dir = folder_length(name), i = 0, from = 0;
    while (i < n) {
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) i++;
            i += 2;
            continue;
        }
        if (s[i] == '"' || s[i] == '\'') {
            unsigned char quote = s[i++];
            while (i < n && s[i] != quote && s[i] != '\n') i++;
            i++;
            continue;
        }
        if (s[i] != '@' || n - i < 7 || strncasecmp((const char *)s + i, "@import", 7)) { i++; continue; }
        size_t j = i + 7, end;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) j++;
        int url = n - j >= 4 && !strncasecmp((const char *)s + j, "url(", 4);
        if (url) j += 4;
        while (j < n && (s[j] == ' ' || s[j] == '"' || s[j] == '\'')) j++;
        for (end = j; end < n && s[end] != '"' && s[end] != '\'' && s[end] != ')' && s[end] != ';' && s[end] != ' '; end++) {}
        size_t semicolon = end;
        while (semicolon < n && s[semicolon] != ';') semicolon++;
        char media[128] = "", path[2048] = "";
        size_t after = end + (end < n && s[end] != ';'), m = 0;
        while (after < semicolon && (s[after] == ')' || s[after] == '"' || s[after] == '\'' || s[after] == ' ')) after++;
        while (after < semicolon && m + 1 < sizeof media) media[m++] = (char)s[after++];
        media[m] = 0;
        int screen = !*media || strstr(media, "screen") || strstr(media, "all");
        if (end > j && dir + (end - j) < sizeof path) {
            memcpy(path, name, dir);
            memcpy(path + dir, s + j, end - j);
            path[dir + end - j] = 0;
            fz_urldecode(path);
            fz_cleanname(path);
        }
        int inside = *path && *path != '/' && strncmp(path, "../", 3) && !strchr(path, ':');
        put_css(ctx, out, s + from, i - from, name, dir, base, base_len);
        if (screen && inside && depth < imports_depth && out->len < imports_limit && fz_has_archive_entry(ctx, arch, path)) {
            fz_buffer *imported = fz_read_archive_entry(ctx, arch, path);
            fz_try(ctx) {
                unsigned char *data;
                size_t len = fz_buffer_storage(ctx, imported, &data);
                put_imports(ctx, arch, path, data, len, out, base, base_len, depth + 1);
            }
            fz_always(ctx) fz_drop_buffer(ctx, imported);
            fz_catch(ctx) fz_rethrow(ctx);
        }
        i = from = semicolon < n ? semicolon + 1 : n;
    }
    put_css(ctx, out, s + from, n - from, name, dir, base, base_len);
}

/// Stylesheet `name` with its imports written in (`put_imports`), or NULL when it has none.
static fz_buffer *inline_imports(fz_context *ctx, fz_archive *arch, const char *name, fz_buffer *css) {
    unsigned char *s;
    size_t n = fz_buffer_storage(ctx, css, &s);
    int any = 0;
    for (size_t i = 0; i + 7 <= n && !any; i++) any = s[i] == '@' && !strncasecmp((const char *)s + i, "@import", 7);
    if (!any) return NULL;
    fz_buffer *out = fz_new_buffer(ctx, n + 1024);
    fz_try(ctx) put_imports(ctx, arch, name, s, n, out, name, folder_length(name), 0);
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

fz_buffer *folio_prepare_epub(fz_context *ctx, fz_archive *arch, const char *opf_path, const folio_typeset_options *options,
                              const char *book_lang, fb_obfuscation *obfuscation, folio_pattern_cache *cache,
                              char *const *missing, int missing_count) {
    fz_buffer *copy = NULL, *entry = NULL, *prepared = NULL;
    fz_zip_writer *writer = NULL;
    char **pictures = NULL;
    int picture_count = 0;
    // The built-in families the stylesheets name (`fb_small_caps_faces`, faces.c).
    unsigned small_caps = 0;
    fz_var(copy); fz_var(entry); fz_var(prepared); fz_var(writer); fz_var(pictures); fz_var(picture_count); fz_var(small_caps);
    // The book's options and a chapter's, on the heap: with their rules, 30 KB each.
    folio_typeset_options *local = fz_malloc(ctx, 2 * sizeof *local), *chapter = local + 1;
    *local = *options;
    fz_try(ctx) {
        copy = fz_new_buffer(ctx, 1 << 16);
        writer = fz_new_zip_writer_with_output(ctx, fz_new_output_with_buffer(ctx, copy));
        int n = fz_count_archive_entries(ctx, arch);
        // The cover the package declares, where the first chapter does not show it.
        char cover_chapter[2048], cover[2400];
        int covered = 0;
        if (opf_path) {
            entry = fz_read_archive_entry(ctx, arch, opf_path);
            covered = folio_cover_page(ctx, arch, entry, opf_path, cover_chapter, sizeof cover_chapter, cover, sizeof cover);
            fz_drop_buffer(ctx, entry);
            entry = NULL;
        }
        // The stylesheets first: which elements their publisher keeps unhyphenated, and the text
        // they put before and after elements.
        for (int i = 0; i < n; i++) {
            const char *name = fz_list_archive_entry(ctx, arch, i);
            const char *dot = name ? strrchr(name, '.') : NULL;
            if (!dot || strcasecmp(dot, ".css")) continue;
            entry = fz_read_archive_entry(ctx, arch, name);
            unsigned char *css;
            size_t css_len = fz_buffer_storage(ctx, entry, &css);
            if (local->hyphenate) fb_read_unhyphenated(css, css_len, local);
            fb_read_rules(css, css_len, local);
            fz_drop_buffer(ctx, entry);
            entry = NULL;
        }
        for (int i = 0; i < n; i++) {
            const char *name = fz_list_archive_entry(ctx, arch, i);
            // Folders are listed as entries of their own and hold nothing.
            if (!name || !*name || name[strlen(name) - 1] == '/') continue;
            entry = fz_read_archive_entry(ctx, arch, name);
            if (obfuscation && !fb_undo_obfuscation(ctx, obfuscation, name, entry)) {
                fz_drop_buffer(ctx, entry);
                entry = NULL;
                continue;
            }
            if (opf_path && !strcmp(name, opf_path) && !pictures) {
                prepared = rewrite_opf(ctx, entry, &pictures, &picture_count);
            } else if (markup_entry(ctx, name, entry)) {
                // The chapter's own styles, for it alone.
                *chapter = *local;
                unsigned char *markup;
                size_t markup_len = fz_buffer_storage(ctx, entry, &markup);
                fb_read_head_styles(markup, markup_len, chapter);
                prepared = folio_prepare_markup(ctx, entry, chapter, book_lang, cache);
                fz_buffer *with_cover = covered && !strcmp(name, cover_chapter) ? folio_put_cover(ctx, prepared, cover) : NULL;
                if (with_cover) {
                    fz_drop_buffer(ctx, prepared);
                    prepared = with_cover;
                }
            } else if (strlen(name) > 4 && !strcasecmp(name + strlen(name) - 4, ".css")) {
                prepared = inline_imports(ctx, arch, name, entry);
            } else if (strlen(name) > 4 && !strcasecmp(name + strlen(name) - 4, ".svg")) {
                prepared = folio_svg_styles(ctx, entry);
            }
            if (prepared) {
                fz_drop_buffer(ctx, entry);
                entry = prepared;
                prepared = NULL;
            }
            unsigned char *css;
            size_t css_len = fz_buffer_storage(ctx, entry, &css);
            if (strlen(name) > 4 && !strcasecmp(name + strlen(name) - 4, ".css")) {
                prepared = fz_new_buffer(ctx, css_len + 256);
                fb_put_css(ctx, prepared, css, css_len, &local->sizes);
                small_caps |= fb_small_caps_faces(ctx, prepared, css, css_len, name);
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
        fb_write_default_serif(ctx, writer);
        fb_write_small_caps_faces(ctx, writer, small_caps);
        for (int i = 0; i < missing_count; i++) write_missing_page(ctx, writer, missing[i]);
        if (picture_count) {
            char dir[1024] = "";
            const char *slash = strrchr(opf_path, '/');
            if (slash && (size_t)(slash - opf_path + 1) < sizeof dir) memcpy(dir, opf_path, (size_t)(slash - opf_path + 1));
            for (int i = 0; i < picture_count; i++) write_picture_page(ctx, writer, dir, pictures[i]);
        }
        fz_close_zip_writer(ctx, writer);
    }
    fz_always(ctx) {
        fz_free(ctx, local);
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
