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
// Does not: read stylesheets (a column's `width` is not known), size tables holding tables or
// cells that span columns or rows, or change what a cell says.
#include "bridge.h"
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

int fb_size_table(const unsigned char *s, size_t n, size_t end, double line_characters, fb_table_columns *out) {
    double measure = line_characters > 0 ? line_characters : 60;
    extent columns[fb_table_columns_max] = {{0, 0}};
    reading r = {0, 0, 0};
    int count = 0, column = -1;
    size_t limit = n - end > table_look ? end + table_look : n;
    for (size_t i = end; i < limit;) {
        if (s[i] != '<') {
            size_t j = i;
            while (j < limit && s[j] != '<') j++;
            if (r.in_cell) count_text(&r, &columns[column], s + i, j - i);
            i = j;
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
            column = -1;
        } else if (fb_tag_named(name, name_len, "td") || fb_tag_named(name, name_len, "th")) {
            if (ending) {
                if (!r.in_cell) return 0;
                end_line(&r, &columns[column]);
                r.in_cell = 0;
                continue;
            }
            char span[8];
            if (r.in_cell || fb_attribute(tag, len, "colspan", span, sizeof span) || fb_attribute(tag, len, "rowspan", span, sizeof span)
                || ++column >= fb_table_columns_max)
                return 0;
            if (column >= count) count = column + 1;
            r.in_cell = !empty;
        } else if (r.in_cell && (fb_tag_named(name, name_len, "br") || (ending && fb_cell_block(name, name_len)))) {
            end_line(&r, &columns[column]);
        }
    }
    if (r.in_cell || count < 2) return 0;
    // CSS 2.1's automatic layout: each column its longest word, and the rest of the line shared
    // by how much more its longest line wants; where every line fits, each its longest line.
    double word = 0, line = 0, width[fb_table_columns_max], total = 0;
    for (int k = 0; k < count; k++) {
        columns[k].word += 1;  // the room between columns
        columns[k].line += 1;
        if (columns[k].line < columns[k].word) columns[k].line = columns[k].word;
        word += columns[k].word;
        line += columns[k].line;
    }
    for (int k = 0; k < count; k++) {
        if (line <= measure) width[k] = columns[k].line;
        else if (word >= measure || line <= word) width[k] = columns[k].word;
        else width[k] = columns[k].word + (measure - word) * (columns[k].line - columns[k].word) / (line - word);
        total += width[k];
    }
    out->count = count;
    out->start[0] = 0;
    for (int k = 0; k < count; k++) out->start[k + 1] = out->start[k] + width[k] / total;
    out->start[count] = 1;
    return 1;
}

void fb_put_cell_start(fb_writer *w, const fb_table_columns *t, int column) {
    if (column < 0 || column >= t->count) return;
    // Margins in percentages of the table's width (the cell's, whose own width and sides
    // Folio's stylesheet takes away); the rest of the block's style is there too
    // (`MuPDF.readingCSS`, `.folio-cell`): a style attribute is parsed for every element, and a
    // table of 60,000 rows took 600 MB so.
    fz_append_printf(w->ctx, w->out, "<div class=\"folio-cell\" style=\"margin-left:%.2f%%;margin-right:%.2f%%%s%s\">", t->start[column] * 100,
                     (1 - t->start[column + 1]) * 100, column ? "" : ";padding-left:0", column + 1 < t->count ? "" : ";padding-right:0");
}
