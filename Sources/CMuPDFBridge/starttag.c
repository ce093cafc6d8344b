// A start tag of a book's markup written into its copy (typeset.c) with what MuPDF 1.21 needs to
// read it as a browser does: its style attribute's declarations said again as MuPDF reads them,
// its `epub:type` under a name stylesheets can select, its presentational markup (`align`,
// `border`, anchors) named for the copy's rules, and the marks that stand for `:first-child`, a
// sized cell and a group of a table's rows.
// Does not: change a tag's own attributes or its element, nor decide which marks a tag gets
// (typeset.c's reading of the markup does).
#include "bridge.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// Writes the `epub:type` of start tag `s` (`close` bytes before its end) again as `epub-type`,
/// the name stylesheets select it by in the copy (`fb_put_css`).
void fb_put_epub_type(fb_writer *w, const unsigned char *s, size_t close) {
    size_t start, end;
    if (!fb_attribute_at(s + 1, close - 1, "epub:type", &start, &end) || end >= close - 1 || memchr(s + 1 + start, '"', end - start)) return;
    fz_append_string(w->ctx, w->out, " epub-type=\"");
    fb_put(w, s + 1 + start, end - start);
    fz_append_byte(w->ctx, w->out, '"');
}

/// Elements whose `align` sets their text's alignment (a table's or a picture's places the table
/// or the picture, which MuPDF cannot).
static const char *const aligned_tags[] = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "tr", "thead", "tbody", "tfoot", "caption"};

/// Whether start tag `tag` (`n` bytes) has attribute `name`, its value quoted or not (a MOBI's
/// markup writes `<a href=#c1>`).
static int names_attribute(const unsigned char *tag, size_t n, const char *name) {
    size_t k = strlen(name);
    for (size_t i = 1; i + k < n; i++) {
        if (!isspace(tag[i - 1]) || strncasecmp((const char *)tag + i, name, k)) continue;
        size_t j = i + k;
        while (j < n && tag[j] == ' ') j++;
        if (j < n && tag[j] == '=') return 1;
    }
    return 0;
}

/// Writes the attributes that name start tag `s`'s (`close` bytes before its end) presentational
/// markup to the rules `html5_blocks` gives it, as a browser's own stylesheet does; MuPDF's
/// reads none of it, so that older books (Project Gutenberg's HTML) lost their layout:
/// - `align="center"` (any case) on a paragraph, a heading or a cell: `folio-align="center"`;
/// - an `a` that links nowhere (an anchor, `<a name="Page_21">[Pg 21]</a>`): `folio-anchor`, not
///   set in a link's blue, as MuPDF sets every `a`;
/// - `<table border="1">`: `folio-border`, a rule above each row. Not a box round each cell, as a
///   browser draws: MuPDF ends a cell's box with its content, not its row, so the boxes of a
///   row stood ragged, and a table's box spans its pages whole, over their heads and folios.
static void put_presentation(fb_writer *w, const unsigned char *s, size_t close) {
    const unsigned char *tag = s + 1;
    size_t n = close - 1;
    char value[16];
    if (fb_tag_named(tag, n, "a")) {
        if (!names_attribute(tag, n, "href") && !names_attribute(tag, n, "xlink:href")) fz_append_string(w->ctx, w->out, " folio-anchor=\"\"");
    } else if (fb_tag_named(tag, n, "table")) {
        if (fb_attribute(tag, n, "border", value, sizeof value) && atoi(value) > 0) fz_append_string(w->ctx, w->out, " folio-border=\"\"");
    } else if (fb_attribute(tag, n, "align", value, sizeof value)) {
        static const char *const alignments[] = {"left", "right", "center", "justify"};
        int aligned = 0;
        for (size_t k = 0; k < sizeof aligned_tags / sizeof *aligned_tags && !aligned; k++) aligned = fb_tag_named(tag, n, aligned_tags[k]);
        for (size_t k = 0; k < sizeof alignments / sizeof *alignments && aligned; k++)
            if (!strcasecmp(value, alignments[k])) fz_append_printf(w->ctx, w->out, " folio-align=\"%s\"", alignments[k]);
    }
}

/// The declarations that say again what style attribute value `v` (`n` bytes) says that MuPDF
/// reads otherwise than a browser, as the stylesheets' are (css.c): a font size in pixels,
/// points or rems, and a line height in them, in proportion to the reader's size
/// (`fb_put_length`), a width beyond the text block's the block's, a display MuPDF does not
/// know as one it does (`fb_display_as`); into `out` (`size` bytes), their length.
static size_t style_additions(const unsigned char *v, size_t n, char *out, size_t size, const fb_sizes *sizes) {
    char value[32];
    size_t k = 0;
#define ADD(...) fb_add(out, size, &k, __VA_ARGS__)
    char length[32];
    static const char *const lengths[] = {"font-size", "line-height"};
    for (int d = 0; d < 2; d++) {
        int found = fb_declaration_value(v, n, lengths[d], value, sizeof value);
        double em = found ? fb_absolute_em(value, sizes) : 0;
        if (em > 0 && fb_put_length(length, sizeof length, em, sizes)) ADD(";%s:%s%s", lengths[d], length, found > 1 ? " !important" : "");
    }
    int found = fb_declaration_value(v, n, "width", value, sizeof value);
    if (found && sizes && sizes->block_width > 0 && fb_absolute_points(value) > sizes->block_width) ADD(";width:auto%s", found > 1 ? " !important" : "");
    found = fb_declaration_value(v, n, "display", value, sizeof value);
    const char *display = found ? fb_display_as(value) : NULL;
    if (display) ADD(";display:%s%s", display, found > 1 ? " !important" : "");
#undef ADD
    return k;
}

/// Writes start tag `s` (`n` bytes from its '<') with `marks` (`fb_tag_marks`): `page-break-before:
/// auto` as the last of its style when it is one of the elements a file opens with before any
/// content (`leading`): the file starts a page, so a break there has nothing to break from (CSS
/// ignores a forced break at the start of a flow), but MuPDF breaks wherever a block's margin has
/// moved it off the page's top: Project Gutenberg's `div.chapter { margin-top: 4em }` and `h2 {
/// page-break-before: always }` left a blank page before every chapter. Its `epub:type` is given
/// again (`fb_put_epub_type`), what its style says that MuPDF reads otherwise said again
/// (`style_additions`), its presentational markup named (`put_presentation`), an element its
/// parent's first (`first`) is marked `folio-first`, which stands for `:first-child` there, a
/// cell of a table whose columns Folio sizes (`cell`, columns.c) `folio-cell`, a list whose items
/// are a table's rows (`rows`, `holds_rows`) a group of them, and a row or cell of a list the
/// stylesheets make a table of given `style` and a `space` after it (`fb_css_row_marks`).
void fb_put_start_tag(fb_writer *w, const unsigned char *s, size_t n, fb_tag_marks marks) {
    if (s[1] == '/' || s[1] == '!' || s[1] == '?') { fb_put(w, s, n); return; }
    size_t close = n - 1 - (n >= 2 && s[n - 2] == '/');
    // The end of a `style` attribute's value, where ours goes; else a style of its own.
    size_t start, end;
    int styled = fb_attribute_at(s + 1, close - 1, "style", &start, &end) && end < close - 1;
    char add[256];
    size_t added = styled ? style_additions(s + 1 + start, end - start, add, sizeof add, w->sizes) : 0, marked = added;
    if (marks.leading) fb_add(add, sizeof add, &added, ";page-break-before:auto");
    if (marks.rows) fb_add(add, sizeof add, &added, ";display:table-row-group");
    if (marks.style) fb_add(add, sizeof add, &added, "%s", marks.style);
    if (styled && added) {
        // After a declaration, not before the first: MuPDF drops a style that starts with ';'.
        size_t first = start;
        while (first < end && isspace(s[1 + first])) first++;
        fb_put(w, s, end + 1);
        fz_append_data(w->ctx, w->out, add + (first == end), added - (first == end));
        fb_put(w, s + end + 1, close - end - 1);
    } else {
        fb_put(w, s, close);
        if (added > marked) {
            fz_append_string(w->ctx, w->out, " style=\"");
            fz_append_data(w->ctx, w->out, add + marked + 1, added - marked - 1);
            fz_append_byte(w->ctx, w->out, '"');
        }
    }
    fb_put_epub_type(w, s, close);
    put_presentation(w, s, close);
    if (marks.first) fz_append_string(w->ctx, w->out, " folio-first=\"\"");
    if (marks.cell) fz_append_string(w->ctx, w->out, " folio-cell=\"\"");
    fb_put(w, s + close, n - close);
    if (marks.space) fz_append_byte(w->ctx, w->out, ' ');
}
