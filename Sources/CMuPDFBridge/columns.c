// A table's columns sized by what they hold, as a browser sizes them.
//
// MuPDF 1.21 gives every column of a table the same width (html-layout.c's `layout_table`):
// a play's speakers' names took half the page and its speeches the other half, two words a
// line. A browser gives a column room by its content (CSS 2.1, 17.5.2.2): at least its
// longest word, and what is left shared by how long its longest line is. That is found here
// from the table's markup, counted in characters against a line of them (the text block's
// width over half the type size: a book's line holds about 60); the copy then puts each
// cell's content in a block
// set where its column lies: MuPDF places a cell's blocks from the table's left edge, with the
// table's width (it gives a block its x before its cell has one), so their margins say where.
// The cell itself (`folio-cell`) is hidden and has no width or sides of its own, and the block
// draws what it would have drawn, its rules and its ground, where its column is
// (`MuPDF.readingCSS`).
// A cell spanning columns (`colspan`) lies over them and is left out of their sizing; one
// spanning rows (`rowspan`) keeps its column from the cells of the rows it spans, though MuPDF
// sets it in its first row only (that row as tall as it). A cell given a percentage width (its
// `width` attribute, its style, or the stylesheets' rules generated.c reads) gives its column
// that share of the table, or its longest word where that is wider, as a browser does.
// Does not: read widths in lengths (`10em`), size tables holding tables, or change what a cell
// says.
#include "bridge.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/// Bytes of a table read, at most, to size it (a play's scene is a table of a few hundred KiB).
static const size_t table_look = 4 << 20;

static const char *const cell_blocks[] = {"p", "div", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl",
                                          "dt", "dd", "pre", "section", "article", "aside", "header", "footer", "figure", "figcaption",
                                          "address", "center"};

int fb_cell_block(const unsigned char *name, size_t n) {
    for (size_t k = 0; k < sizeof cell_blocks / sizeof *cell_blocks; k++)
        if (fb_tag_named(name, n, cell_blocks[k])) return 1;
    return 0;
}

/// What a column holds, in characters: its longest word and its longest line.
typedef struct { double word, line; } extent;

/// A cell being read: the line and the word so far.
typedef struct { double line, word; int in_cell; } reading;

static void end_word(reading *r, extent *column) {
    // A word's letters run wider than a line's characters, spaces among them, and a column's
    // longest word is often a name in capitals or small capitals: two fifths more.
    if (r->word * 1.4 > column->word) column->word = r->word * 1.4;
    r->word = 0;
}

static void end_line(reading *r, extent *column) {
    end_word(r, column);
    if (r->line > column->line) column->line = r->line;
    r->line = 0;
}

/// Counts the text `s` (`n` bytes) of a cell: a character one, a wide one (CJK) two and a word
/// of its own, an entity one; white space ends a word, and so does a hyphen or a dash, where a
/// line may break (a play's "tragical-comical-historical-pastoral" is four words wide, not one).
static void count_text(reading *r, extent *column, const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (r->word > 0) r->line += 1;
            end_word(r, column);
        } else if (c >= 0x80 && c < 0xC0) {
            continue;  // a character's continuation
        } else if (c >= 0xE3 && c < 0xF0) {
            end_word(r, column);
            r->word = 2;
            r->line += 2;
            end_word(r, column);
        } else {
            if (c == '&') {
                const unsigned char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
                if (semi) i = (size_t)(semi - s);
            }
            r->word += 1;
            r->line += 1;
            if (c == '-' || (c == 0xE2 && i + 2 < n && s[i + 1] == 0x80 && (s[i + 2] == 0x93 || s[i + 2] == 0x94))) end_word(r, column);
        }
    }
}

void fb_grid_row(fb_table_grid *g) {
    g->next = 0;
    for (int k = 0; k < fb_table_columns_max; k++) {
        g->taken[k] = g->remaining[k] > 0;
        if (g->remaining[k] > 0) g->remaining[k]--;
    }
}

/// The number attribute `name` of start tag `tag` (`n` bytes) gives a span: 1 when absent or not
/// a number of 1 or more (`rowspan="0"`, to the section's end, is taken as 1), at most 65,535.
static int span_of(const unsigned char *tag, size_t n, const char *name) {
    char value[16];
    if (!fb_attribute(tag, n, name, value, sizeof value)) return 1;
    long v = 0;
    for (const char *c = value; *c >= '0' && *c <= '9' && v < 65535; c++) v = v * 10 + (*c - '0');
    return v < 1 ? 1 : v > 65535 ? 65535 : (int)v;
}

int fb_grid_cell(fb_table_grid *g, const unsigned char *tag, size_t n, int *span) {
    int column = g->next;
    while (column < fb_table_columns_max && g->taken[column]) column++;
    *span = span_of(tag, n, "colspan");
    if (*span > fb_table_columns_max - column) return -1;
    int rows = span_of(tag, n, "rowspan");
    for (int k = column; k < column + *span; k++) g->remaining[k] = rows - 1;
    g->next = column + *span;
    if (g->next > g->count) g->count = g->next;
    return column;
}

/// The share start tag `tag` (`n` bytes) gives its element as a percentage width (`width="75%"`,
/// `style="width: 75%"`), between 0.05 and 1; else 0.
static double declared_share(const unsigned char *tag, size_t n) {
    char value[256];
    const char *width = NULL;
    if (fb_attribute(tag, n, "style", value, sizeof value)) {
        for (const char *p = value; (p = strstr(p, "width")); p += 5)
            if ((p == value || p[-1] == ';' || p[-1] == ' ') && (width = p + 5)) break;
        while (width && (*width == ' ' || *width == ':')) width++;
    }
    if (!width && fb_attribute(tag, n, "width", value, sizeof value)) width = value;
    if (!width) return 0;
    char *after;
    double share = strtod(width, &after) / 100;
    return *after == '%' && share > 0.05 && share < 1 ? share : 0;
}

/// The share of the table's width the cell of start tag `tag` (`n` bytes) is given: its own
/// (`declared_share`), else that of the last of the stylesheets' rules naming it; 0 for none.
static double cell_share(const unsigned char *tag, size_t n, const folio_typeset_options *options) {
    double share = declared_share(tag, n);
    for (int k = options->cell_width_count - 1; k >= 0 && !share; k--)
        if (fb_selector_matches(&options->cell_widths[k].selector, tag, n)) share = options->cell_widths[k].share;
    return share;
}

int fb_size_table(const unsigned char *s, size_t n, const unsigned char *tag, size_t tag_len, size_t end,
                  const folio_typeset_options *options, fb_table_columns *out) {
    double table = declared_share(tag, tag_len);
    double measure = (options->line_characters > 0 ? options->line_characters : 60) * (table > 0 ? table : 1);
    // What each column holds, and the share of the table its cells ask; a cell spanning columns
    // counts in none (`spanning`).
    extent columns[fb_table_columns_max] = {{0, 0}}, spanning = {0, 0};
    double shares[fb_table_columns_max] = {0};
    extent *column = &spanning;
    reading r = {0, 0, 0};
    fb_table_grid grid = {0};
    size_t limit = n - end > table_look ? end + table_look : n;
    for (size_t i = end; i < limit;) {
        if (s[i] != '<') {
            size_t j = i;
            while (j < limit && s[j] != '<') j++;
            if (r.in_cell) count_text(&r, column, s + i, j - i);
            i = j;
            continue;
        }
        // Comments and character data, passed over as the copy passes them on.
        size_t passed = fb_section_end(s, limit, i, "<!--", "-->");
        if (!passed) passed = fb_section_end(s, limit, i, "<![CDATA[", "]]>");
        if (passed) {
            i = passed;
            continue;
        }
        size_t close = fb_tag_end(s, limit, i);
        if (close >= limit) return 0;
        const unsigned char *tag = s + i + 1;
        size_t len = close - i;
        int ending = tag[0] == '/', empty = len >= 2 && tag[len - 2] == '/';
        const unsigned char *name = tag + ending;
        size_t name_len = len - ending;
        i = close + 1;
        if (fb_tag_named(name, name_len, "table")) {
            if (!ending) return 0;  // a table inside: left as MuPDF lays it out
            break;
        }
        if (fb_tag_named(name, name_len, "tr")) {
            if (r.in_cell) return 0;  // a cell never closed
            if (!ending) fb_grid_row(&grid);
        } else if (fb_tag_named(name, name_len, "td") || fb_tag_named(name, name_len, "th")) {
            if (ending) {
                if (!r.in_cell) return 0;
                end_line(&r, column);
                r.in_cell = 0;
                continue;
            }
            int span, at = fb_grid_cell(&grid, tag, len, &span);
            if (r.in_cell || at < 0) return 0;
            column = span == 1 ? &columns[at] : &spanning;
            if (span == 1) {
                double share = cell_share(tag, len, options);
                if (share > shares[at]) shares[at] = share;
            }
            r.in_cell = !empty;
        } else if (r.in_cell && (fb_tag_named(name, name_len, "br") || (ending && fb_cell_block(name, name_len)))) {
            end_line(&r, column);
        }
    }
    int count = grid.count;
    if (r.in_cell || count < 2) return 0;
    // CSS 2.1's automatic layout: a column given a share of the table that share, or its
    // longest word where that is wider; each other column its longest word, and the rest of the
    // line shared by how much more its longest line wants; where every line fits, by how long
    // its longest line is.
    double word = 0, line = 0, width[fb_table_columns_max], total = 0, rest = measure;
    for (int k = 0; k < count; k++) {
        columns[k].word += 1;  // the room between columns
        columns[k].line += 1;
        if (columns[k].line < columns[k].word) columns[k].line = columns[k].word;
        if (shares[k] > 0) {
            width[k] = shares[k] * measure > columns[k].word ? shares[k] * measure : columns[k].word;
            rest -= width[k];
            continue;
        }
        word += columns[k].word;
        line += columns[k].line;
    }
    for (int k = 0; k < count; k++) {
        if (shares[k] > 0) {
            total += width[k];
            continue;
        }
        // The room left is theirs (the table spans its line): a column given a share keeps it.
        if (line <= rest) width[k] = columns[k].line * rest / line;
        else if (word >= rest || line <= word) width[k] = columns[k].word;
        else width[k] = columns[k].word + (rest - word) * (columns[k].line - columns[k].word) / (line - word);
        total += width[k];
    }
    out->count = count;
    out->start[0] = 0;
    for (int k = 0; k < count; k++) out->start[k + 1] = out->start[k] + width[k] / total;
    out->start[count] = 1;
    return 1;
}

int fb_put_cell_start(fb_writer *w, const fb_table_columns *t, int column, int span) {
    if (column < 0 || span < 1 || span > t->count - column) return 0;
    // Margins in percentages of the table's width (the cell's, whose own width and sides
    // Folio's stylesheet takes away); the rest of the block's style is there too
    // (`MuPDF.readingCSS`, `.folio-cell`): a style attribute is parsed for every element, and a
    // table of 60,000 rows took 600 MB so.
    int last = column + span == t->count;
    fz_append_printf(w->ctx, w->out, "<div class=\"folio-cell\" style=\"margin-left:%.2f%%;margin-right:%.2f%%%s%s\">", t->start[column] * 100,
                     (1 - t->start[column + span]) * 100, column ? "" : ";padding-left:0", last ? ";padding-right:0" : "");
    return 1;
}

// MARK: rows the stylesheets make

/// A first cell this short is a marker ("1.", "iv.", "(a)"); the text after it is set in by
/// 2 em.
enum { marker_characters = 4 };

/// Where the next start tag from `i` of `s` (`n` bytes, looked at up to `limit`) of a cell of
/// `options` begins (its '<'), with text and other tags passed over; `limit` when there is none.
static size_t next_cell(const unsigned char *s, size_t limit, size_t i, const folio_typeset_options *options) {
    for (; i + 1 < limit; i++)
        if (s[i] == '<' && s[i + 1] != '/' && fb_any_selector_matches(options->cells, options->cell_count, s + i + 1, limit - i - 1)) return i;
    return limit;
}

/// MuPDF lays out a table the stylesheets make of elements as one of `<td>`s (above): its
/// columns the same width, a cell's blocks placed from the table's left edge. A list whose items
/// are rows of a number and its text (Springer's `span.ItemNumber` and `div.ItemContent`,
/// Hindawi's `list-label` and `list-content`, `display: table-cell`) drew each item's text over
/// its number, or half the line away from it. A row whose first cell is a marker is set as a
/// browser shows it: text that begins with a block is set in past the marker by padding (the
/// blocks keep it); inline text follows the marker on its line, the row a block whose lines
/// after its first are set in as far (a hanging indent), its cells inline. Rows of other first
/// cells (their width is not known here) and a table's own rows and cells (`tr`, `td`, `th`) are
/// left.
void fb_css_row_marks(fb_css_row *r, const unsigned char *s, size_t n, const unsigned char *tag, size_t tag_len, size_t end,
                      const folio_typeset_options *options, fb_tag_marks *marks) {
    static const char set_in[] = ";padding-left:2em", hanging[] = ";display:block;padding-left:2em;text-indent:-2em",
                      inline_cell[] = ";display:inline;text-indent:0";
    if (!options->cell_count || tag[0] == '/' || fb_tag_named(tag, tag_len, "tr") || fb_tag_named(tag, tag_len, "td")
        || fb_tag_named(tag, tag_len, "th"))
        return;
    if (fb_any_selector_matches(options->rows, options->row_count, tag, tag_len)) {
        *r = (fb_css_row){0};
        // The first two cells, looked for no further than a marker's row would run.
        size_t limit = n - end > 4096 ? end + 4096 : n, first = next_cell(s, limit, end, options);
        if (first == limit) return;
        size_t first_end = fb_tag_end(s, limit, first), after = first_end < limit ? fb_element_end(s, limit, first_end + 1, s + first + 1, limit - first - 1) : limit;
        size_t characters = after > first_end ? fb_text_characters(s + first_end + 1, after - first_end - 1) : 0;
        size_t second = after < limit ? next_cell(s, limit, after, options) : limit;
        if (characters == 0 || characters > marker_characters || second == limit) return;
        size_t content = fb_tag_end(s, limit, second) + 1;
        while (content < limit && isspace(s[content])) content++;
        r->block = content + 1 < limit && s[content] == '<' && fb_cell_block(s + content + 1, limit - content - 1);
        r->marked = 1;
        if (!r->block) marks->style = hanging;
        return;
    }
    if (!r->marked || !fb_any_selector_matches(options->cells, options->cell_count, tag, tag_len)) return;
    int later = r->cells++ > 0;
    // Inline, a space parts the marker from the text (the cells' tags part no words).
    marks->style = !r->block ? inline_cell : later && r->cells == 2 ? set_in : NULL;
    marks->space = !r->block && later;
}
