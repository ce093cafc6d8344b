// A reflowable book's text made ready for MuPDF's layout.
//
// MuPDF 1.21 breaks lines at soft hyphens (U+00AD) but does not hyphenate, and it reads `dir`
// and `lang` from elements inside `<html>`, never from `<html>` itself: a book marked
// `<html dir="rtl">` is set left to right. So before MuPDF parses a book, its markup is copied
// with soft hyphens put where the language's patterns (libhyphen, LibreOffice's `hyph_*.dic`)
// allow, and the root's `dir` and `lang` given to `<body>`; HTML5's block elements are declared
// blocks before the publisher's styles; MathML is written in a line (mathml.c); headings are
// kept with their text (keep.c); the text the stylesheets generate is written in (generated.c);
// the markup is first read as a browser reads it (encoding.c).
// Does not: change what the text says (only U+00AD, attributes, the head's `<style>`, the keeps
// and the stylesheets' generated text are added; MathML is said again in a line), hyphenate
// preformatted text, code, styles or scripts, or read anything but the book's own bytes and the
// pattern files of the folders it is given.
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: markup

void fb_put(fb_writer *w, const unsigned char *s, size_t n) { fz_append_data(w->ctx, w->out, s, n); }

/// Where the element whose start tag (`tag`, `tag_len` bytes) ends at `end` ends, when it is one
/// kept whole: its end tag's start (`end` when it is not one, or has no content). `closes` keeps,
/// for each element kept whole, the end tag found last (0 before any), so that markup of many
/// such elements never closed is read once, not once an element.
static size_t kept_to(const unsigned char *s, size_t n, size_t end, const unsigned char *tag, size_t tag_len, size_t *closes);

/// Elements whose text is never hyphenated (FB2's `description` holds the title and authors the
/// book is known by: "The Sanc\u00ADtu\u00ADary Spar\u00ADrow" showed its breaks in every running head).
static const char *const kept_whole[] = {"head", "style", "script", "pre", "code", "svg", "math", "binary", "title", "tt", "kbd", "samp",
                                          "description"};

static size_t kept_to(const unsigned char *s, size_t n, size_t end, const unsigned char *tag, size_t tag_len, size_t *closes) {
    for (size_t k = 0; k < sizeof kept_whole / sizeof *kept_whole; k++) {
        if (!fb_tag_named(tag, tag_len, kept_whole[k]) || s[end - 2] == '/') continue;
        if (closes[k] >= end) return closes[k];
        size_t len = strlen(kept_whole[k]), j = end;
        while (j + 2 + len < n && !(s[j] == '<' && s[j + 1] == '/' && !strncasecmp((const char *)s + j + 2, kept_whole[k], len))) j++;
        closes[k] = j + 2 + len >= n ? n : j;
        return closes[k];
    }
    return end;
}

/// Whether `n` bytes of an SVG's content are one picture and nothing else drawn: its
/// `<image>`'s reference into `href`.
static int picture_of(const unsigned char *s, size_t n, char *href, size_t size) {
    int images = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '<' || s[i + 1] == '/' || s[i + 1] == '!' || s[i + 1] == '?') continue;
        size_t end = i;
        while (end < n && s[end] != '>') end++;
        if (fb_tag_named(s + i + 1, end - i - 1, "image")) {
            images++;
            if (!fb_attribute(s + i + 1, end - i - 1, "xlink:href", href, size) && !fb_attribute(s + i + 1, end - i - 1, "href", href, size)) return 0;
        } else if (!fb_tag_named(s + i + 1, end - i - 1, "title") && !fb_tag_named(s + i + 1, end - i - 1, "desc")
                   && !fb_tag_named(s + i + 1, end - i - 1, "g") && !fb_tag_named(s + i + 1, end - i - 1, "defs")) {
            return 0;
        }
        i = end;
    }
    // Only a plain reference: no quotes or markup to carry into the new tag.
    return images == 1 && !strpbrk(href, "\"<>&");
}

/// Writes the picture `href` of an SVG wrapper (start tag `tag`, `n` bytes) as an image: across a
/// fixed-layout page, whose page is the picture's; on a reflowable page of text block aspect
/// `block` (height over width), fitted whole and centred, as the wrapper's `viewBox` and its
/// `xMidYMid meet` have it in a browser. Project Gutenberg's and calibre's covers are such
/// wrappers; set across the page, a cover lay at the page's top, a third of it blank below.
/// A hair (1 % of the width, 2 % of the height) is kept in hand, so that rounding never carries
/// the picture to the next page. Centred by margins, not by side margins and a width: MuPDF
/// takes a picture's percentage width of the line less its side margins, twice.
static void put_wrapped_picture(fb_writer *w, const char *href, const unsigned char *tag, size_t n, double block) {
    char box[96];
    double x, y, width = 0, height = 0;
    if (fb_attribute(tag, n, "viewBox", box, sizeof box) && sscanf(box, "%lf%*[ ,]%lf%*[ ,]%lf%*[ ,]%lf", &x, &y, &width, &height) != 4) width = 0;
    double aspect = width > 0 && height > 0 ? height / width : 0;
    if (block <= 0 || aspect <= 0) {
        fz_append_printf(w->ctx, w->out, "<img src=\"%s\" alt=\"\" style=\"display:block;width:100%%\"/>", href);
    } else if (aspect <= block) {
        // As wide as the text, the room above and below shared (a margin's percentage is of the width).
        fz_append_printf(w->ctx, w->out, "<img src=\"%s\" alt=\"\" style=\"display:block;width:100%%;margin-top:%.2f%%\"/>", href,
                         (block - aspect) / 2 * 100 - 1);
    } else {
        // As tall as the page (a height's percentage is of the page's), the room on either side
        // shared.
        fz_append_printf(w->ctx, w->out, "<img src=\"%s\" alt=\"\" style=\"display:block;height:98%%;margin-left:%.2f%%\"/>", href,
                         (1 - block / aspect * 0.98) / 2 * 100);
    }
}

/// Whether the start tag `tag` (of `n` bytes) is an `aside` its `epub:type` or `role` calls a
/// note, with no style of its own (one more `style` would make the tag two).
static int hidden_note(const unsigned char *tag, size_t n) {
    char value[128], style[8];
    if (!fb_tag_named(tag, n, "aside") || fb_attribute(tag, n, "style", style, sizeof style)) return 0;
    return (fb_attribute(tag, n, "epub:type", value, sizeof value) && fb_names_note(value))
        || (fb_attribute(tag, n, "role", value, sizeof value) && fb_names_note(value));
}

/// The elements HTML5 made blocks, which MuPDF 1.21's stylesheet for HTML does not know and
/// lays out inline: an EPUB 3 chapter's `<section>`s ran into one another, and a link to one
/// (a contents entry) led to the top of its file (MuPDF finds targets among blocks). Not for a
/// book set vertically: shown across, its sections' side margins (the space between its columns,
/// `margin-left: 12em` in the IDPF's Kusamakura) would narrow every line.
static const char html5_blocks[] =
    "<style type=\"text/css\">article, aside, details, figcaption, figure, footer, header, hgroup, main, nav, section, summary"
    " { display: block; }"
    // What a browser's own stylesheet gives the presentational markup of older books, which
    // MuPDF's does not (`fb_put_start_tag` names it: starttag.c).
    " center { display: block; text-align: center; }"
    " [folio-align=\"left\"] { text-align: left; } [folio-align=\"right\"] { text-align: right; }"
    " [folio-align=\"center\"] { text-align: center; } [folio-align=\"justify\"] { text-align: justify; }"
    " a[folio-anchor] { color: inherit; text-decoration: inherit; }"
    " table[folio-border] td, table[folio-border] th { border-top-style: solid; border-top-width: 1px; }"
    "</style>";

/// Elements with generated content after them open at once, and generated texts a file, at most
/// (each looks for its element's end: `end_tag_at`).
enum { generated_depth = 16, generated_limit = 10000 };

/// Where the end tag of the element whose start tag (`tag`, `n` bytes) ends at `end` begins,
/// looking no further than 16 KiB (a stage direction, a note's mark); 0 when it is not found.
static size_t end_tag_at(const unsigned char *s, size_t total, size_t end, const unsigned char *tag, size_t n) {
    size_t after = fb_element_end(s, total - end > 16384 ? end + 16384 : total, end, tag, n), at = after > end ? after - 1 : end;
    while (at > end && s[at] != '<') at--;
    size_t len = fb_tag_name_length(tag, n);
    return at > end && s[at + 1] == '/' && after - at > len + 2 && !strncasecmp((const char *)s + at + 2, (const char *)tag, len) ? at : 0;
}

/// Elements that are content of their own (a picture, a rule, a table): the first of them, or
/// the first text, ends a file's leading elements (`fb_put_start_tag`, starttag.c).
static const char *const content_tags[] = {"img", "image", "svg", "math", "hr", "table", "object", "video", "audio", "iframe", "embed", "pre"};

/// Whether tag `tag` (`n` bytes after its '<', an end tag's '/' included) is of an element MuPDF
/// makes an outline entry of in an FB2 or a MOBI book.
static int outline_heading(const unsigned char *tag, size_t n) {
    static const char *const names[] = {"title", "subtitle", "h1", "h2", "h3", "h4", "h5", "h6"};
    int end = n && tag[0] == '/';
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (fb_tag_named(tag + end, n - end, names[k])) return 1;
    return 0;
}

/// Writes heading tag `s` (`n` bytes) as a paragraph's where the book has had
/// `fb_outline_headings` headings; returns whether it did.
static int put_plain_heading(fb_writer *w, const unsigned char *s, size_t n) {
    if (s[1] == '/') {
        if (!w->plain_heading) return 0;
        w->plain_heading = 0;
        fz_append_string(w->ctx, w->out, "</p>");
        return 1;
    }
    if (++w->headings <= fb_outline_headings) return 0;
    size_t name = 1 + fb_tag_name_length(s + 1, n - 1);
    fz_append_string(w->ctx, w->out, "<p");
    fb_put(w, s + name, n - name);
    w->plain_heading = n < 2 || s[n - 2] != '/';
    return 1;
}

/// Whether start tag `tag` (`n` bytes after its '<', its element's content from `end` of `s`)
/// opens a list whose first item the book's stylesheets show as a table's row (`options->rows`):
/// MuPDF puts the rows of a table only in the table or a group of its rows, and a list between
/// (Springer's `div.OrderedList { display: table }` round an `ol` of `li.ListItem { display:
/// table-row }`) lost every item, their words drawn on one spot at the page's top.
static int holds_rows(const unsigned char *s, size_t n, const unsigned char *tag, size_t tag_len, size_t end,
                      const folio_typeset_options *options) {
    if (!options->row_count || tag[0] == '/' || !(fb_tag_named(tag, tag_len, "ol") || fb_tag_named(tag, tag_len, "ul"))) return 0;
    while (end < n && isspace(s[end])) end++;
    if (end + 3 >= n || s[end] != '<' || !fb_tag_named(s + end + 1, n - end - 1, "li")) return 0;
    size_t close = fb_tag_end(s, n, end);
    if (close >= n) return 0;
    return fb_any_selector_matches(options->rows, options->row_count, s + end + 1, close - end);
}

/// Writes a head's content (`n` bytes at `s`), each `<style>`'s rules through
/// `fb_put_css`, as a stylesheet file's are; the styles past `fb_head_styles` are left out.
static void put_head(fb_writer *w, const unsigned char *s, size_t n) {
    size_t from = 0;
    int styles = 0;
    for (size_t i = 0; i + 7 < n; i++) {
        size_t open, close;
        int style = fb_style_at(s, n, i, &open, &close);
        if (style < 0) break;
        if (!style) continue;
        if (++styles > fb_head_styles) {
            // Left out whole, its end tag with it: MuPDF reads each (50,000 took a minute).
            fb_put(w, s + from, i - from);
            from = fb_tag_end(s, n, close) + 1;
            if (from > n) from = n;
            i = from - 1;
            continue;
        }
        fb_put(w, s + from, open + 1 - from);
        fb_put_css(w->ctx, w->out, s + open + 1, close - open - 1, w->sizes);
        from = i = close;
    }
    fb_put(w, s + from, n - from);
}

/// HTML's elements that have no end tag (written `<br>` in a MOBI's markup).
static const char *const void_elements[] = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
                                            "source", "track", "wbr"};

/// Whether the tag `tag` (`n` bytes after its '<', to its '>') opens an element that holds what
/// follows it: a start tag, not empty (`/>`) nor of an element that has no end tag.
static int opens_element(const unsigned char *tag, size_t n) {
    if (!n || tag[0] == '/' || tag[0] == '!' || tag[0] == '?' || (n >= 2 && tag[n - 2] == '/')) return 0;
    for (size_t k = 0; k < sizeof void_elements / sizeof *void_elements; k++)
        if (fb_tag_named(tag, n, void_elements[k])) return 0;
    return 1;
}

/// A table cell being written. MuPDF 1.21 places a cell's blocks at the table's left edge, over
/// the first column (html-layout.c sets a block's x before its cell has one): a play's verse,
/// set in paragraphs beside the speaker's name, was printed over the name. Folio's stylesheet
/// lays a cell's content inline (`MuPDF.readingCSS`), where MuPDF places it in its column; a
/// line break goes where a block ended and more of the cell follows, and a no-break space ends
/// each cell, the room MuPDF leaves none of between columns. A table whose columns are sized
/// by their content (columns.c) has each cell's content in a block where its column lies
/// instead, and the table's cells placed in its columns (`grid`: `column`, `span`; `boxed`
/// while the block is open).
typedef struct {
    int depth, ended;
    int sized, column, span, boxed;
    const folio_typeset_options *options;
    fb_table_columns table;
    fb_table_grid grid;
} cell_state;

/// Writes what goes before the tag `tag` (`n` bytes after its '<', to its '>') in a cell, and
/// notes where the writing is; `s` (`total` bytes) is the markup, the tag's '>' at `end` - 1.
static void before_tag(fb_writer *w, cell_state *c, const unsigned char *tag, size_t n, const unsigned char *s, size_t total, size_t end) {
    int ending = tag[0] == '/', empty = n >= 2 && tag[n - 2] == '/';
    const unsigned char *name = tag + ending;
    if (fb_tag_named(name, n - ending, "td") || fb_tag_named(name, n - ending, "th")) {
        if (ending && c->depth) {
            fz_append_string(w->ctx, w->out, c->boxed && c->depth == 1 ? "</div>" : "&#160;");
            if (c->depth == 1) c->boxed = 0;
            c->depth--;
        } else if (!ending && !empty) {
            c->depth++;
        }
        if (!ending && c->sized && c->depth <= 1) c->column = fb_grid_cell(&c->grid, tag, n, &c->span);
        c->ended = 0;
    } else if (!c->depth && fb_tag_named(name, n - ending, "table")) {
        c->sized = !ending && !empty && fb_size_table(s, total, tag, n, end, c->options, &c->table);
        memset(&c->grid, 0, sizeof c->grid);
    } else if (!c->depth && !ending && fb_tag_named(name, n, "tr")) {
        fb_grid_row(&c->grid);
    } else if (c->depth && ending) {
        c->ended = c->ended || fb_cell_block(name, n - 1);
    } else if (c->depth && tag[0] != '!' && tag[0] != '?') {
        if (c->ended && !fb_tag_named(tag, n, "br")) fz_append_string(w->ctx, w->out, "<br/>");
        c->ended = 0;
    }
}

/// Whether the tag `before_tag` was last given starts a cell of a sized table.
static int starts_sized_cell(const cell_state *c, const unsigned char *tag, size_t n) {
    return c->sized && c->depth == 1 && tag[0] != '/' && !(n >= 2 && tag[n - 2] == '/')
           && (fb_tag_named(tag, n, "td") || fb_tag_named(tag, n, "th"));
}

/// Where the line break (`<br/>`, `<br>`) that follows end tag `tag` (`</span>`, ending at `end`)
/// across white space ends; `end` when none does. A line of verse is often a span followed by a
/// break, and a stylesheet may make the span a block and hide the break (`span + br { display:
/// none }`, Standard Ebooks' poetry): MuPDF breaks at every `br` whatever its display, so each
/// line was followed by an empty one. Inside the span the break ends its line, whether the span
/// is a block (a break at a block's end adds no line) or inline.
static size_t line_break_after(const unsigned char *s, size_t n, const unsigned char *tag, size_t tag_len, size_t end) {
    if (tag_len < 2 || tag[0] != '/' || !fb_tag_named(tag + 1, tag_len - 1, "span")) return end;
    size_t at = end;
    while (at < n && (s[at] == ' ' || s[at] == '\n' || s[at] == '\t' || s[at] == '\r')) at++;
    if (at + 3 >= n || s[at] != '<' || !fb_tag_named(s + at + 1, n - at - 1, "br")) return end;
    const unsigned char *close = memchr(s + at, '>', n - at);
    return close ? (size_t)(close - s) + 1 : end;
}

/// Writes `n` bytes of markup prepared (see the top of this file). `book_lang` is the book's
/// language where the markup names none.
static void prepare_markup(fb_writer *w, const unsigned char *s, size_t n, const folio_typeset_options *options,
                           const char *book_lang, folio_pattern_cache *cache) {
    char root_dir[16] = "", root_lang[32] = "";
    HyphenDict *dict = options->hyphenate ? folio_patterns(cache, book_lang) : NULL;
    size_t closes[sizeof kept_whole / sizeof *kept_whole] = {0};
    // Whether the body has begun and no content has come yet (`fb_put_start_tag`, starttag.c).
    int leading = 0;
    cell_state cell = {.options = options};
    fb_css_row css_row = {0};
    // Where the text left unhyphenated ends (a heading's, or an element's its publisher keeps
    // whole); whether the tag last written opened an element, whose first child the next start
    // tag is (text between them is no element: CSS's `:first-child` passes it over).
    size_t plain_until = 0;
    int opened = 0;
    size_t br, unclosed = n;
    // Headings kept with their text (keep.c).
    fb_heading_keep keep = {0};
    // Generated content to write after elements, at their end tags (innermost last), and how
    // much has been written.
    struct { size_t at; int rule; } afters[generated_depth];
    int after_count = 0, generated = 0;
    fb_elements elements = {0};
    size_t i = 0;
    while (i < n) {
        while (after_count && i >= afters[after_count - 1].at) fb_put_generated(w, &options->generated[afters[--after_count].rule]);
        if (s[i] != '<') {
            size_t j = i;
            while (j < n && s[j] != '<') j++;
            int blank = 1;
            for (size_t k = i; k < j && blank; k++) blank = s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r';
            leading = leading && blank;
            if (cell.ended && !blank) fz_append_string(w->ctx, w->out, "<br/>");
            cell.ended = cell.ended && blank;
            fb_hyphenate_text(w, i < plain_until ? NULL : dict, s + i, j - i);
            i = j;
            continue;
        }
        // Comments and character data, passed on whole.
        size_t end = fb_section_end(s, n, i, "<!--", "-->");
        if (!end) end = fb_section_end(s, n, i, "<![CDATA[", "]]>");
        if (end) {
            fb_put(w, s + i, end - i);
            i = end;
            continue;
        }
        // A tag, to its '>' (quoted values may hold one). A '<' that no '>' closes (a chapter
        // cut short) is text: as a tag it was read past the end of the markup. Where no '>'
        // follows at all, every '<' after it is text without looking again (300,000 of them
        // took minutes).
        end = i < unclosed ? fb_tag_end(s, n, i) : n;
        if (end >= n) {
            if (i < unclosed && !memchr(s + i, '>', n - i)) unclosed = i;
            fz_append_string(w->ctx, w->out, "&lt;");
            i++;
            continue;
        }
        end++;
        const unsigned char *tag = s + i + 1;
        size_t tag_len = end - i - 1;
        int first = opened;
        opened = opens_element(tag, tag_len);
        // The rules of generated content whose relation to other elements this one stands in.
        unsigned long long related = 0;
        if (tag[0] == '/') fb_elements_end(&elements);
        else if (tag[0] != '!' && tag[0] != '?') related = fb_elements_start(&elements, tag, tag_len, opened, options);
        if (fb_tag_named(tag, tag_len, "html")) {
            fb_attribute(tag, tag_len, "dir", root_dir, sizeof root_dir);
            if (!fb_attribute(tag, tag_len, "xml:lang", root_lang, sizeof root_lang))
                fb_attribute(tag, tag_len, "lang", root_lang, sizeof root_lang);
            if (root_lang[0] && options->hyphenate) dict = folio_patterns(cache, root_lang);
            fb_put(w, s + i, end - i);
        } else if (fb_tag_named(tag, tag_len, "body")) {
            // The root's direction and language, where the body names none of its own.
            char own[32];
            size_t close = end - i - 1 - (end - i >= 2 && s[end - 2] == '/');
            fb_put(w, s + i, close);
            if (root_dir[0] && !fb_attribute(tag, tag_len, "dir", own, sizeof own)) {
                fz_append_printf(w->ctx, w->out, " dir=\"%s\"", root_dir);
            }
            if (root_lang[0] && !fb_attribute(tag, tag_len, "lang", own, sizeof own)) {
                fz_append_printf(w->ctx, w->out, " lang=\"%s\"", root_lang);
            }
            fb_put_epub_type(w, s + i, close);
            fb_put(w, s + i + close, end - i - close);
            leading = 1;
        } else if (hidden_note(tag, tag_len)) {
            // A footnote standing where it is referred to is read on the card its reference
            // opens (links.c), not on the page, as Foliate and Apple Books leave it off.
            size_t close = end - i - 1 - (end - i >= 2 && s[end - 2] == '/');
            fb_put(w, s + i, close);
            fz_append_string(w->ctx, w->out, " style=\"display:none\"");
            fb_put(w, s + i + close, end - i - close);
        } else {
            for (size_t k = 0; k < sizeof content_tags / sizeof *content_tags && leading; k++)
                leading = !fb_tag_named(tag, tag_len, content_tags[k]);
            size_t whole = kept_to(s, n, end, tag, tag_len, closes);
            // A heading's text, and an element's its publisher set `hyphens: none`, to its end.
            if (whole == end && dict && i >= plain_until && (fb_is_heading(tag, tag_len) || fb_unhyphenated(tag, tag_len, options)))
                plain_until = fb_element_end(s, n, end, tag, tag_len);
            char href[512];
            if (fb_tag_named(tag, tag_len, "head") && s[end - 2] != '/' && !options->vertical) {
                // HTML5's block elements first, so that the publisher's stylesheets come after.
                fb_put(w, s + i, end - i);
                fz_append_string(w->ctx, w->out, html5_blocks);
                put_head(w, s + end, whole - end);
                end = whole;
            } else if (whole > end && fb_tag_named(tag, tag_len, "math")) {
                // MathML, which MuPDF would set token after token: in a line (mathml.c).
                fb_linear_math(w, tag, tag_len, s + end, whole - end);
                size_t close = whole;
                while (close < n && s[close] != '>') close++;
                end = close < n ? close + 1 : n;
                fb_elements_end(&elements);
                opened = 0;
            } else if (whole > end && fb_tag_named(tag, tag_len, "svg") && picture_of(s + end, whole - end, href, sizeof href)) {
                // A picture in an SVG wrapper (a fixed-layout page, a cover): the picture as an
                // image, as MuPDF sizes an SVG's `<image>` by neither.
                put_wrapped_picture(w, href, tag, tag_len, options->block_aspect);
                size_t close = whole;
                while (close < n && s[close] != '>') close++;
                end = close < n ? close + 1 : n;
                fb_elements_end(&elements);
                opened = 0;
            } else if ((br = line_break_after(s, n, tag, tag_len, end)) > end) {
                // `</span><br/>`: the line break goes inside the span, where it ends the line
                // whether the span is a block or not (`line_break_after`).
                size_t at = end;
                while (s[at] != '<') at++;
                fb_put(w, s + at, br - at);
                fb_put(w, s + i, end - i);
                fb_put(w, s + end, at - end);
                fb_elements_start(&elements, s + at + 1, br - at - 1, 0, options);
                end = br;
                opened = 0;
            } else {
                before_tag(w, &cell, tag, tag_len, s, n, end);
                fb_tag_marks marks = {.leading = leading, .first = first, .cell = starts_sized_cell(&cell, tag, tag_len),
                                      .rows = holds_rows(s, n, tag, tag_len, end, options)};
                fb_css_row_marks(&css_row, s, n, tag, tag_len, end, options, &marks);
                // A MOBI's headings past those its contents hold are paragraphs (`put_plain_heading`).
                if (!leading && (!options->outline_headings || w->headings < fb_outline_headings)) fb_look_for_heading(&keep, s, n, i);
                unsigned char plain[2048];
                const unsigned char *start_tag = s + i;
                size_t start_len = end - i;
                if (fb_keeps_tag(&keep, i, &start_tag, &start_len, plain, sizeof plain)) {
                    fb_put_start_tag(w, start_tag, start_len, marks);
                    // A MOBI's heading kept is one of its contents' headings all the same.
                    if (i == keep.heading && options->outline_headings) w->headings++;
                    if (i == keep.heading) fb_put_heading_keep(w, &keep, s, n, end, tag, tag_len);
                } else if (!options->outline_headings || !outline_heading(tag, tag_len) || !put_plain_heading(w, s + i, end - i))
                    fb_put_start_tag(w, s + i, end - i, marks);
                if (marks.cell) cell.boxed = fb_put_cell_start(w, &cell.table, cell.column, cell.span);
                for (int after = 0; after < 2 && whole == end && s[i + 1] != '/' && s[end - 2] != '/' && generated < generated_limit; after++) {
                    int k = fb_generated_rule(options, tag, tag_len, related, after);
                    if (k < 0) continue;
                    size_t at = after ? end_tag_at(s, n, end, tag, tag_len) : end;
                    if (at == end) fb_put_generated(w, &options->generated[k]), leading = 0;
                    else if (at && after_count < generated_depth) afters[after_count].at = at, afters[after_count++].rule = k;
                    generated++;
                }
                if (fb_tag_named(tag, tag_len, "style")) fb_put_css(w->ctx, w->out, s + end, whole - end, w->sizes);
                else if (fb_tag_named(tag, tag_len, "head")) put_head(w, s + end, whole - end);
                else fb_put(w, s + end, whole - end);
                // An element kept whole holds content (the text of a `code`).
                if (whole > end) leading = 0;
                end = whole;
            }
        }
        i = end;
    }
}

fz_buffer *folio_prepare_markup(fz_context *ctx, fz_buffer *markup, const folio_typeset_options *options,
                                const char *book_lang, folio_pattern_cache *cache) {
    unsigned char *data;
    size_t len = fz_buffer_storage(ctx, markup, &data);
    fz_buffer *cleaned = NULL, *out = NULL;
    fz_var(cleaned); fz_var(out);
    fz_try(ctx) {
        cleaned = fb_markup_as_read(ctx, data, len);
        if (cleaned) len = fz_buffer_storage(ctx, cleaned, &data);
        // Soft hyphens add two bytes a break: a fifth more, usually.
        out = fz_new_buffer(ctx, len + len / 5 + 64);
        fb_writer w = {ctx, out, .sizes = &options->sizes};
        prepare_markup(&w, data, len, options, book_lang, cache);
    }
    fz_always(ctx) fz_drop_buffer(ctx, cleaned);
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

