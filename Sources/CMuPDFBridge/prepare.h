// A book's markup prepared (typeset.c, starttag.c, tags.c, encoding.c, keep.c, columns.c,
// generated.c, hyphenate.c, keptpatterns.c, css.c, stylesheet.c, epubcopy.c, faces.c), its notes
// (links.c) and its pages' furniture (furniture.c).
// Included by bridge.h, which the bridge's files include.
#ifndef FOLIO_PREPARE_H
#define FOLIO_PREPARE_H

#include <sys/stat.h>

typedef struct _HyphenDict HyphenDict;

enum { folio_unhyphenated_size = 64 };

enum { folio_generated_size = 64, folio_cell_widths_size = 32, folio_rows_size = 16 };

/// A simple selector, `name.class[epub|type~="value"]`: its parts, empty where it names none.
typedef struct {
    char element[16], class_name[48], epub_type[48];
} folio_selector;

/// Where another element stands to one given generated content (`folio_generated.relation`).
enum fb_relation { fb_anywhere, fb_after_sibling, fb_in_parent, fb_in_ancestor };

/// A stylesheet's generated content (`::before`, `::after { content: "…" }`), which MuPDF 1.21 does
/// not read (generated.c): its selector and its text.
typedef struct {
    folio_selector selector;
    char text[64];  ///< UTF-8, the stylesheet's escapes read
    int after;      ///< 0: before the element's content, 1: after it
    int style;      ///< the `font-style` the rule gives it: 0 none, 1 normal, 2 italic
    /// Where an element of `other` must stand (`A + B`, `A > B`, `A B`; `fb_elements`): just
    /// before the element, its parent, one of its ancestors; or none needed (`fb_relation`).
    int relation;
    folio_selector other;
    /// A space standing for an inline element's room on its right, not a rule's `content`.
    int spacing;
} folio_generated;

/// A stylesheet's percentage width for a table's cells (`td.persona { width: 20% }`), which
/// columns.c gives their column: the last simple part of the rule's selector, and the share of
/// the table's width.
typedef struct {
    folio_selector selector;
    double share;
} folio_cell_width;

/// What a length in pixels, points or rems is in the copy (css.c): in proportion to the reader's
/// text size, as a browser's are to its medium size (16 pixels, 12 points).
typedef struct {
    /// The reader's size in points (`folio_mu_setting.font_size`); 0: not known, lengths are
    /// then written in ems of the parent.
    double font_size;
    /// The root element's size in the reader's (`html { font-size: 62.5% }`: 0.625), what a rem
    /// is (`fb_read_rules`); 0: the reader's.
    double root_em;
    /// The text block's width in points, about (`folio_mu_setting.line_characters` of half the
    /// reader's size): a box given a width beyond it is given the block's (css.c); 0: not known.
    double block_width;
} fb_sizes;

/// What preparing a book does.
typedef struct {
    int hyphenate;  ///< put soft hyphens where the language's patterns allow
    /// Whether the book's stylesheets set text vertically (shown across): HTML5's elements are
    /// then left as MuPDF lays them out (`html5_blocks`, typeset.c).
    int vertical;
    /// An installed face's files to put in the copy (regular, bold, italic, bold italic;
    /// `folio_faces`), or NULLs.
    fz_buffer *faces[4];
    /// Simple selectors (`p`, `.c`, `p.c`) the book's stylesheets set `hyphens: none` (any
    /// prefix): their elements are not hyphenated. Filled by `folio_prepare_epub`.
    char unhyphenated[folio_unhyphenated_size][48];
    int unhyphenated_count;
    /// Whether the book's headings make MuPDF's own outline (an FB2's titles, a MOBI's `h1`…`h6`),
    /// which it resolves heading by heading through the whole book at every layout: past
    /// `fb_outline_headings` of them, the rest are written as paragraphs (typeset.c).
    int outline_headings;
    /// The generated content of the book's stylesheets, and their widths of table cells
    /// (`fb_read_rules`).
    folio_generated generated[folio_generated_size];
    int generated_count;
    folio_cell_width cell_widths[folio_cell_widths_size];
    int cell_width_count;
    /// Simple selectors the book's stylesheets show as a table's rows (`.ListItem { display:
    /// table-row }`, by the last part of the selector; `fb_read_rules`): a list whose items
    /// they are is made a group of rows of the table round it (typeset.c).
    folio_selector rows[folio_rows_size];
    int row_count;
    /// Simple selectors they show as a table's cells (`display: table-cell`, as `rows`): the text
    /// after a marker in its row is set in past it (`fb_css_row_marks`).
    folio_selector cells[folio_rows_size];
    int cell_count;
    /// Characters a line holds (`folio_mu_setting.line_characters`; 0: 60).
    double line_characters;
    /// The text block's height over its width (`folio_mu_setting.block_aspect`); 0 for a
    /// fixed-layout book, whose pages are the pictures' own.
    double block_aspect;
    fb_sizes sizes;
} folio_typeset_options;

/// Headings of an FB2 or MOBI book written as headings, and entries of its contents, at most:
/// MuPDF finds each by walking the book from its start (50,000 titles took it six minutes to
/// lay out, and listing 30,000 contents entries took 50 s); a book has a few hundred, the
/// Bible's chapters 1,189.
enum { fb_outline_headings = 2000 };

/// The names a face's files take in the copy, in `folio_typeset_options.faces`' order.
extern const char *const folio_face_files[4];

/// EPUB's font obfuscation (obfuscation.c): the book's `encryption.xml`, the keys its identifiers
/// give, and how many obfuscated fonts the copy could not undo.
typedef struct {
    fz_xml *enc;
    unsigned char idpf[20], adobe[16];
    int has_idpf, has_adobe;
    int unread;
} fb_obfuscation;
/// Which font obfuscation EPUB allows (not DRM) encryption method `algorithm` names: 1 the IDPF's,
/// 2 Adobe's, 0 none (obfuscation.c).
int fb_font_obfuscation(const char *algorithm);
/// Reads the keys of the book whose package is `opf_path` in `arch`, `enc` its encryption.xml.
void fb_read_obfuscation(fz_context *ctx, fz_archive *arch, const char *opf_path, fz_xml *enc, fb_obfuscation *o);
/// Whether entry `name` (its bytes `entry`) goes into the copy (not encryption.xml); an
/// obfuscated font is undone in place, or emptied where undone it does not begin as a font does.
int fb_undo_obfuscation(fz_context *ctx, fb_obfuscation *o, const char *name, fz_buffer *entry);

/// The user stylesheet's faces of `serif`: the files `folio_prepare_epub` puts in every copy when
/// `folio_has_default_serif` (MuPDF's own default serif, found faster by that name: epubcopy.c).
extern const char folio_serif_css[];
int folio_has_default_serif(fz_context *ctx);

/// Fills `faces` with the files of installed family `family` (fontconfig), regular, bold, italic
/// and bold italic (a style the family lacks: its regular); 1 when the family is installed.
int folio_faces(fz_context *ctx, const char *family, fz_buffer *faces[4]);
/// Appends to `out` the small-caps faces of the built-in families stylesheet `css` (`n` bytes, at
/// archive entry `name`) names; returns those families, as bits (faces.c).
unsigned fb_small_caps_faces(fz_context *ctx, fz_buffer *out, const unsigned char *css, size_t n, const char *name);
/// Writes into the copy the faces of the built-in families `named` (`fb_small_caps_faces`'s bits),
/// and the default serif's files where `folio_has_default_serif` (faces.c).
void fb_write_small_caps_faces(fz_context *ctx, fz_zip_writer *writer, unsigned named);
void fb_write_default_serif(fz_context *ctx, fz_zip_writer *writer);

enum { folio_pattern_cache_size = 8 };

/// Pattern files loaded for one book, by language; `dirs` (colon-separated) are searched.
typedef struct {
    const char *dirs;
    int count;
    char langs[folio_pattern_cache_size][32];
    HyphenDict *dicts[folio_pattern_cache_size];
    /// Whether `dicts[i]` is this cache's to free (not shared by the process: hyphenate.c).
    int owned[folio_pattern_cache_size];
    /// The first language whose patterns were found ("" if none).
    char used[32];
} folio_pattern_cache;

/// The patterns for `lang` (loaded once per cache), or NULL when none are installed.
HyphenDict *folio_patterns(folio_pattern_cache *cache, const char *lang);
void folio_drop_patterns(folio_pattern_cache *cache);
/// The patterns compiled from pattern file `path` (`st` its identity) kept by
/// `folio_keep_patterns_in`, or NULL; keeps `dict`, compiled from it (keptpatterns.c).
HyphenDict *fb_kept_patterns(const char *path, const struct stat *st);
void fb_keep_patterns(const char *path, const struct stat *st, const HyphenDict *dict);

/// One markup file prepared (a new buffer). `book_lang`: the language where the file names none.
fz_buffer *folio_prepare_markup(fz_context *ctx, fz_buffer *markup, const folio_typeset_options *options,
                                const char *book_lang, folio_pattern_cache *cache);
/// An EPUB's cover, where its package declares one (big enough not to be a placeholder) and its
/// first chapter does not show it (cover.c): 1, with that chapter's path in the archive in
/// `chapter` and the markup of a page showing the cover, to go first in its body, in `markup`.
int folio_cover_page(fz_context *ctx, fz_archive *arch, fz_buffer *opf_file, const char *opf_path, char *chapter, size_t chapter_size,
                     char *markup, size_t markup_size);
/// Where the content of markup's `<body>` starts (after its start tag); 0 when it has none.
size_t fb_after_body(const unsigned char *s, size_t n);
/// `page` with `markup` first in its body, or NULL when it has no body.
fz_buffer *folio_put_cover(fz_context *ctx, fz_buffer *page, const char *markup);
/// An SVG picture with the rules of its own stylesheet written as attributes (svg.c), or NULL
/// when it has none.
fz_buffer *folio_svg_styles(fz_context *ctx, fz_buffer *svg);

/// The FB2 `fb2` with an id put on each section its contents lead to that has none (a new
/// buffer; NULL when none needs one), and its contents into `contents`: each titled section,
/// nested as the sections are, and a notes body once (fb2.c).
fz_buffer *folio_fb2_contents(fz_context *ctx, fz_buffer *fb2, struct page_marks *contents);
/// A MOBI's prepared copy (mobi.c), its NCX's entries added to `contents`; NULL when MuPDF is to
/// read the file as it is (not a MOBI 6 book it reads, or too many records).
fz_buffer *folio_prepare_mobi(fz_context *ctx, fz_buffer *file, const folio_typeset_options *options, const char *lang,
                              folio_pattern_cache *cache, struct page_marks *contents);

/// An EPUB's archive copied into a new in-memory EPUB, its markup files prepared, its
/// picture pages (spine items that are pictures) given pages of markup and its `missing`
/// chapters (`missing_count` entry names the archive lacks) a page each saying so; a book's
/// obfuscated fonts undone, and its encryption.xml left out (`obfuscation`, NULL where it has
/// none: `fb_undo_obfuscation`). `opf_path`: the package file (may be NULL).
fz_buffer *folio_prepare_epub(fz_context *ctx, fz_archive *arch, const char *opf_path, const folio_typeset_options *options,
                              const char *book_lang, fb_obfuscation *obfuscation, folio_pattern_cache *cache,
                              char *const *missing, int missing_count);

/// Links a note holds at most, and one of them: its words and its target (an address, or a
/// path in the book's archive with its fragment).
enum { folio_note_link_limit = 16 };
typedef struct { char label[256]; char target[2048]; } folio_note_ref;

/// The markup files a page's links point into, parsed once for all of them.
typedef struct {
    fz_archive *archive;
    char name[1024];
    fz_xml *xml;
} folio_notes;

/// The text of the note `uri` ("chapter.xhtml#id") points at in the EPUB `copy` — a footnote,
/// an endnote or an aside (`epub:type` or `role` saying so, or an `aside`) — as malloc'd UTF-8,
/// paragraphs on lines of their own; NULL when it points at no note. With `refs` (room for
/// `folio_note_link_limit`), the links the note holds, `*ref_count` of them.
char *folio_note(fz_context *ctx, folio_notes *notes, fz_buffer *copy, const char *uri, folio_note_ref *refs, int *ref_count);

/// The text of an element's descendants into `out` (at most `size` bytes): white space one
/// space, trimmed, and ↩ and soft hyphens left out (a title, a label, a row of one line).
void folio_xml_text(fz_xml *x, char *out, size_t size);
/// Appends `t` to `out` (holding `*n` bytes of `size`): runs of white space one space (none
/// first), ↩ and soft hyphens left out, stopping before a character that would not fit whole.
void fb_put_words(char *out, size_t size, size_t *n, const char *t);
void folio_drop_notes(fz_context *ctx, folio_notes *notes);

/// An output buffer of bytes.
typedef struct {
    fz_context *ctx;
    fz_buffer *out;
    /// Headings written (`folio_typeset_options.outline_headings`), and whether the one open
    /// was written as a paragraph.
    int headings, plain_heading;
    /// What lengths in pixels, points and rems are (NULL: ems of the parent).
    const fb_sizes *sizes;
} fb_writer;

void fb_put(fb_writer *w, const unsigned char *s, size_t n);
/// What the copy adds to a start tag (starttag.c).
typedef struct {
    int leading;    ///< one of the elements a file opens with before any content: its page break dropped
    int first;      ///< its parent's first: `folio-first`
    int cell;       ///< a sized table's cell: `folio-cell`
    int rows;       ///< a list whose items are a table's rows: a group of them
    const char *style;  ///< declarations added to its style, each after a ';' (`fb_css_row_marks`), or NULL
    int space;          ///< a space written after it (`fb_css_row_marks`)
} fb_tag_marks;
/// Writes start tag `s` (`n` bytes from its '<') into the copy with `marks` (starttag.c).
void fb_put_start_tag(fb_writer *w, const unsigned char *s, size_t n, fb_tag_marks marks);
/// Writes the `epub:type` of start tag `s` (`close` bytes before its end) again as `epub-type`
/// (starttag.c).
void fb_put_epub_type(fb_writer *w, const unsigned char *s, size_t close);

/// Headings of a chapter kept with their text (keep.c): where looking ahead for one stopped, the
/// tags leading to the one ahead (from `from` to `heading`, 0: none) and the anchors moved from
/// them, where the heading last looked past ends, and how many were kept.
typedef struct {
    size_t scanned, from, heading, heading_end;
    int count;
    char spans[1024];
    size_t length;
} fb_heading_keep;
/// Looks, from the start tag at `i` of markup `s` (`n` bytes), for a heading it leads to.
void fb_look_for_heading(fb_heading_keep *k, const unsigned char *s, size_t n, size_t i);
/// Whether the start tag at `i` (`*s`, `*n` bytes) is the heading's or one leading to it; then
/// `*s` and `*n` are the tag to write, in `buffer` (`size` bytes) when its anchor moved.
int fb_keeps_tag(fb_heading_keep *k, size_t i, const unsigned char **s, size_t *n, unsigned char *buffer, size_t size);
/// Writes the keep and the moved anchors after the heading's start tag (`tag`, `tag_len`,
/// ending at `end` in markup `s` of `n` bytes).
void fb_put_heading_keep(fb_writer *w, fb_heading_keep *k, const unsigned char *s, size_t n, size_t end, const unsigned char *tag,
                         size_t tag_len);
/// A table's columns as Folio sizes them (columns.c): where each starts, a share of the
/// table's width (`start[count]` is 1).
enum { fb_table_columns_max = 16 };
typedef struct {
    int count;
    double start[fb_table_columns_max + 1];
} fb_table_columns;
/// Whether the table of start tag `tag` (`tag_len` bytes after its '<'), ending at `end` in
/// markup `s` (`n` bytes), has its columns sized by their content and the widths its cells are
/// given, for lines of `options->line_characters` characters (0: 60), and where (`*out`); 0
/// where MuPDF's equal columns stay.
int fb_size_table(const unsigned char *s, size_t n, const unsigned char *tag, size_t tag_len, size_t end,
                  const folio_typeset_options *options, fb_table_columns *out);
/// Writes the start of a block holding a cell's content, over `span` columns from `column` of
/// table `t`; 0 when the cell lies outside the columns sized (nothing written).
int fb_put_cell_start(fb_writer *w, const fb_table_columns *t, int column, int span);
/// Where a table's cells lie: the column the next cell of the row may take, the columns of
/// this row taken by cells spanning rows above, and the rows each column stays taken for.
typedef struct {
    int next, count;
    int taken[fb_table_columns_max], remaining[fb_table_columns_max];
} fb_table_grid;
/// A row of `g` begins.
void fb_grid_row(fb_table_grid *g);
/// The column the cell of start tag `tag` (`n` bytes) begins at in its row, and in `*span` how
/// many it spans; -1 where it lies past the columns a table may have.
int fb_grid_cell(fb_table_grid *g, const unsigned char *tag, size_t n, int *span);
/// A row of a table the stylesheets make of elements (`folio_typeset_options.rows`, `.cells`)
/// whose first cell is a marker (`marked`), whether the text after it begins with a block, and
/// the cells of it begun so far.
typedef struct {
    int marked, block, cells;
} fb_css_row;
/// Sets in `marks` what the copy adds to start tag `tag` (`tag_len` bytes after its '<', its
/// content from `end` of markup `s`, `n` bytes) of such a row or one of its cells, as row `r` has
/// it (columns.c).
void fb_css_row_marks(fb_css_row *r, const unsigned char *s, size_t n, const unsigned char *tag, size_t tag_len, size_t end,
                      const folio_typeset_options *options, fb_tag_marks *marks);
/// Whether the tag named at `name` (`n` bytes) is of an element MuPDF lays out as a block.
int fb_cell_block(const unsigned char *name, size_t n);
/// Markup `s` (`n` bytes) as MuPDF is to read it (encoding.c): in UTF-8, its declared entities in
/// their place, without empty end tags; a new buffer, or NULL when it is so already.
fz_buffer *fb_markup_as_read(fz_context *ctx, const unsigned char *s, size_t n);
int fb_attribute(const unsigned char *tag, size_t n, const char *name, char *out, size_t size);
void fb_hyphenate_text(fb_writer *w, HyphenDict *dict, const unsigned char *s, size_t n);
/// Plain text `file` (the book at `path`) as an EPUB archive (text.c); throws when it is no text.
fz_buffer *folio_text_book(fz_context *ctx, fz_buffer *file, const char *path);
/// The book's archive: its copy in memory (`folio_mu_doc.archive_copy`), else the file's own.
fz_archive *fb_open_book_archive(fz_context *ctx, folio_mu_doc *d);
void fb_read_unhyphenated(const unsigned char *css, size_t n, folio_typeset_options *options);
/// Adds to `options` the generated content of a stylesheet's rules (outside at-rules) whose
/// selectors are simple (`name.class[epub|type~="value"]::before`, any part missing), and the
/// percentage widths of its rules for table cells and the rules that show elements as a table's
/// rows (the last simple part of their selectors), and the root's size (`fb_root_em`).
void fb_read_rules(const unsigned char *css, size_t n, folio_typeset_options *options);
/// Adds what the `<style>`s of a chapter's head (markup `s`, `n` bytes) keep unhyphenated and
/// generate to `options`, as a stylesheet file's (`fb_read_unhyphenated`, `fb_read_rules`).
void fb_read_head_styles(const unsigned char *s, size_t n, folio_typeset_options *options);
/// Whether selector `s` names the element of start tag `tag` (`n` bytes after its '<').
int fb_selector_matches(const folio_selector *s, const unsigned char *tag, size_t n);
/// Whether one of `count` selectors names the element of start tag `tag` (`n` bytes after its '<').
int fb_any_selector_matches(const folio_selector *selectors, int count, const unsigned char *tag, size_t n);
/// The elements open while a chapter's markup is copied, as far as generated content in relation
/// to another element (`folio_generated.relation`) needs them: for each depth, the rules whose
/// `other` the element open there matches, the element last closed there matched, and an
/// element open above it matches (bits of `folio_typeset_options.generated`).
enum { fb_element_depth = 64 };
typedef struct {
    int depth;
    unsigned long long open[fb_element_depth], last[fb_element_depth], inside[fb_element_depth];
} fb_elements;
/// A start tag (`tag`, `n` bytes after its '<') met, `opens` an element (not empty or void): the
/// rules whose relation its element stands in (generated.c).
unsigned long long fb_elements_start(fb_elements *t, const unsigned char *tag, size_t n, int opens, const folio_typeset_options *options);
/// An element closed.
void fb_elements_end(fb_elements *t);
/// The rule whose text goes before (`after` 0) or after (1) the content of the element of start
/// tag `tag` (`n` bytes after its '<'), `related` the rules whose relation it stands in: of those
/// whose selector it matches, the most specific, the last of equals, as a browser picks one
/// pseudo-element's content; -1 for none (generated.c).
int fb_generated_rule(const folio_typeset_options *options, const unsigned char *tag, size_t n, unsigned long long related, int after);
/// Writes `g`'s text, in its font style.
void fb_put_generated(fb_writer *w, const folio_generated *g);
/// Appends stylesheet `s` (`n` bytes) to `out` as the copy holds it (stylesheet.c).
void fb_put_css(fz_context *ctx, fz_buffer *out, const unsigned char *s, size_t n, const fb_sizes *sizes);
/// What a rule's declarations (block `block`, `n` bytes between its braces, of selectors `selector`,
/// `m` bytes) say that MuPDF 1.21 reads otherwise than a browser, said again as it reads them,
/// into `add` (`size` bytes); their length (css.c).
size_t fb_rule_additions(const unsigned char *selector, size_t m, const unsigned char *block, size_t n, char *add, size_t size,
                         const fb_sizes *sizes);
/// Length `v` (lower case, trimmed) in ems of the reader's size when it is one of pixels, points
/// or rems (a browser's medium size, 16 pixels, is an em, as MuPDF's `medium` is; a rem is the
/// root's, `sizes->root_em`), else 0 (css.c).
double fb_absolute_em(const char *v, const fb_sizes *sizes);
/// Length `v` (lower case, trimmed) in points as MuPDF lays it out (a pixel a point) when it is
/// one of inches, centimetres, millimetres, picas, points or pixels; else 0 (css.c).
double fb_absolute_points(const char *v);
/// The value of declaration `name` in declarations `v` (`n` bytes: a `style` attribute's, a
/// rule's block), lower case and without spaces or `!important`, into `value` (`size` bytes); 0
/// when there is none, 2 when it is `!important`, else 1 (css.c).
int fb_declaration_value(const unsigned char *v, size_t n, const char *name, char *value, size_t size);
/// The last byte of the comment that starts at `i` of `s` (`n` bytes), or `s`'s last byte (css.c).
size_t fb_comment_end(const unsigned char *s, size_t n, size_t i);
/// Appends to `out` (`size` bytes, `*k` of them written) what `format` says, whole or not at all:
/// a declaration the copy adds (css.c).
void fb_add(char *out, size_t size, size_t *k, const char *format, ...);
/// Writes into `out` (`size` bytes) `em` ems of the reader's size as MuPDF is to read them: points
/// of `sizes->font_size`, or ems where that is not known; the length written (0: none fits).
size_t fb_put_length(char *out, size_t size, double em, const fb_sizes *sizes);
/// The root's size (`fb_sizes.root_em`) that rule `s` (`n` bytes, between its braces) gives when
/// selectors `selectors` (`m` bytes) name the root (`html`, `:root`); else 0.
double fb_root_em(const unsigned char *selectors, size_t m, const unsigned char *s, size_t n);
/// The `display` MuPDF 1.21 reads for display `v` (lower case, trimmed) that it does not: a
/// table for `inline-table`, a block for a flex, grid or flow-root container, an inline block
/// for an inline one; NULL for any other (css.c).
const char *fb_display_as(const char *v);
int fb_unhyphenated(const unsigned char *tag, size_t n, const folio_typeset_options *options);
int fb_names_note(const char *value);
/// The MathML element whose start tag is `tag` (`tag_len` bytes, after '<') and content the `n`
/// bytes at `s`, written as HTML in a line (mathml.c).
void fb_linear_math(fb_writer *w, const unsigned char *tag, size_t tag_len, const unsigned char *s, size_t n);

/// The running head and folio drawn on a page through `ctm` (the page's own transform; furniture.c).
void folio_draw_furniture(fz_context *ctx, fz_device *dev, fz_matrix ctm, const folio_mu_furniture *f);

#endif
