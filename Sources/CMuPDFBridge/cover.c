// An EPUB's cover, as its package declares it, given the first page of the prepared copy when
// the reading order does not start with it. Does not write the copy (epubcopy.c).
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// Sides, in pixels, below which a declared cover is a placeholder (Calibre's 1 × 1), not shown.
enum { cover_side = 64 };

/// Whether `list`, a space-separated list of tokens, holds `token`.
static int has_token(const char *list, const char *token) {
    size_t n = strlen(token);
    for (const char *p = list; p && (p = strstr(p, token)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return 1;
    return 0;
}

/// The manifest item whose `id` is `id`, or NULL.
static fz_xml *item_with_id(fz_xml *opf, const char *id) {
    for (fz_xml *item = fz_xml_find_dfs(opf, "item", NULL, NULL); item && id; item = fz_xml_find_next_dfs(item, "item", NULL, NULL)) {
        const char *at = fz_xml_att(item, "id");
        if (at && !strcmp(at, id)) return item;
    }
    return NULL;
}

/// The cover image the package declares: an EPUB 3 item whose properties hold `cover-image`, else
/// the item an EPUB 2 `<meta name="cover">` names.
static fz_xml *cover_item(fz_xml *opf) {
    for (fz_xml *item = fz_xml_find_dfs(opf, "item", NULL, NULL); item; item = fz_xml_find_next_dfs(item, "item", NULL, NULL))
        if (has_token(fz_xml_att(item, "properties"), "cover-image")) return item;
    for (fz_xml *meta = fz_xml_find_dfs(opf, "meta", NULL, NULL); meta; meta = fz_xml_find_next_dfs(meta, "meta", NULL, NULL)) {
        const char *name = fz_xml_att(meta, "name");
        if (name && !strcmp(name, "cover")) return item_with_id(opf, fz_xml_att(meta, "content"));
    }
    return NULL;
}

/// `href` (relative to the package's folder, `dir_len` bytes of `opf_path`) as a path in the
/// archive, into `out`.
static void archive_path(const char *opf_path, size_t dir_len, const char *href, char *out, size_t size) {
    snprintf(out, size, "%.*s%s", (int)dir_len, opf_path, href);
    fz_urldecode(out);
    fz_cleanname(out);
}

/// Whether the archive's picture `path` is at least `cover_side` pixels each way (an SVG is).
static int big_enough(fz_context *ctx, fz_archive *arch, const char *path) {
    const char *dot = strrchr(path, '.');
    if (dot && !strcasecmp(dot, ".svg")) return 1;
    fz_buffer *buf = NULL;
    fz_image *image = NULL;
    int big = 0;
    fz_var(buf); fz_var(image);
    fz_try(ctx) {
        buf = fz_read_archive_entry(ctx, arch, path);
        image = fz_new_image_from_buffer(ctx, buf);
        big = image->w >= cover_side && image->h >= cover_side;
    }
    fz_always(ctx) {
        fz_drop_image(ctx, image);
        fz_drop_buffer(ctx, buf);
    }
    fz_catch(ctx) big = 0;
    return big;
}

int folio_cover_page(fz_context *ctx, fz_archive *arch, fz_buffer *opf_file, const char *opf_path, char *chapter, size_t chapter_size,
                     char *markup, size_t markup_size) {
    fz_xml *opf = NULL;
    fz_buffer *first = NULL;
    int found = 0;
    fz_var(opf); fz_var(first);
    fz_try(ctx) {
        opf = fz_parse_xml(ctx, opf_file, 0);
        // The first item of the spine, linear or not: MuPDF shows every item, in order.
        fz_xml *cover = cover_item(opf), *ref = fz_xml_find_dfs(opf, "itemref", NULL, NULL);
        fz_xml *start = ref ? item_with_id(opf, fz_xml_att(ref, "idref")) : NULL;
        const char *cover_href = cover ? fz_xml_att(cover, "href") : NULL, *start_href = start ? fz_xml_att(start, "href") : NULL;
        if (!cover_href || !start_href || strlen(cover_href) > 1000) break;
        const char *slash = strrchr(opf_path, '/');
        size_t dir = slash ? (size_t)(slash - opf_path) + 1 : 0;
        char cover_path[2048];
        archive_path(opf_path, dir, cover_href, cover_path, sizeof cover_path);
        archive_path(opf_path, dir, start_href, chapter, chapter_size);
        // A path that markup would have to escape is left alone.
        if (strpbrk(cover_path, "%\"'<>& ")) break;
        if (!strcmp(cover_path, chapter) || !fz_has_archive_entry(ctx, arch, chapter) || !big_enough(ctx, arch, cover_path)) break;
        // A first page that shows the cover (a Gutenberg book's cover.xhtml) names its file.
        const char *file = strrchr(cover_path, '/');
        file = file ? file + 1 : cover_path;
        first = fz_read_archive_entry(ctx, arch, chapter);
        if (strstr(fz_string_from_buffer(ctx, first), file)) break;
        // The cover's path from the chapter's folder: "../" for each of the chapter's folders
        // beyond those they share.
        size_t common = 0;
        for (size_t k = 0; chapter[k] && chapter[k] == cover_path[k]; k++) if (chapter[k] == '/') common = k + 1;
        char src[2048] = "";
        for (const char *p = chapter + common; (p = strchr(p, '/')); p++) strncat(src, "../", sizeof src - strlen(src) - 1);
        strncat(src, cover_path + common, sizeof src - strlen(src) - 1);
        found = snprintf(markup, markup_size, "<div style=\"margin:0;padding:0;text-indent:0;page-break-after:always\"><img src=\"%s\" "
                         "alt=\"\" style=\"display:block;width:100%%\"/></div>", src) < (int)markup_size;
    }
    fz_always(ctx) {
        fz_drop_buffer(ctx, first);
        fz_drop_xml(ctx, opf);
    }
    fz_catch(ctx) found = 0;
    return found;
}

size_t fb_after_body(const unsigned char *s, size_t n) {
    for (size_t i = 0; i + 5 < n; i++) {
        if (s[i] != '<' || fz_strncasecmp((const char *)s + i + 1, "body", 4) || (s[i + 5] != '>' && s[i + 5] > ' ')) continue;
        const unsigned char *close = memchr(s + i, '>', n - i);
        return close ? (size_t)(close - s) + 1 : 0;
    }
    return 0;
}

fz_buffer *folio_put_cover(fz_context *ctx, fz_buffer *page, const char *markup) {
    unsigned char *s;
    size_t n = fz_buffer_storage(ctx, page, &s), at = fb_after_body(s, n);
    if (!at) return NULL;
    fz_buffer *out = fz_new_buffer(ctx, n + strlen(markup));
    fz_append_data(ctx, out, s, at);
    fz_append_string(ctx, out, markup);
    fz_append_data(ctx, out, s + at, n - at);
    return out;
}
