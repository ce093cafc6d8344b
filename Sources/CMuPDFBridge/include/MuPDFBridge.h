// Folio's calls into MuPDF. MuPDF reports errors by longjmp (fz_try / fz_catch), which Swift
// cannot survive, so every MuPDF call happens here, in C: each function catches what MuPDF
// throws and returns a status with the message in `error`.
//
// Thread-safety: a document has its own MuPDF context (with lock callbacks) and a mutex; every
// call that touches the document holds the mutex. Rasterising runs outside it, on a cloned
// context, from a display list recorded under it, so pages of one document draw in parallel.
#ifndef FOLIO_MUPDF_BRIDGE_H
#define FOLIO_MUPDF_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct folio_mu_doc folio_mu_doc;

/// MuPDF's words for the last failure.
typedef struct { char message[256]; } folio_mu_error;

/// What a document's package says of itself (EPUB: OPF spine and rendition, DRM files).
typedef struct {
    int reflowable;        ///< laid out by Folio for a page box (EPUB, FB2, XHTML, MOBI)
    int epub;              ///< an EPUB package (its container and OPF) was read
    int right_to_left;     ///< the spine's page-progression-direction is rtl
    int pre_paginated;     ///< rendition:layout is pre-paginated (fixed-layout EPUB)
    int encrypted;         ///< content files are encrypted (DRM): encryption.xml or rights.xml
    int obfuscated_fonts;  ///< encryption.xml only obfuscates fonts (EPUB's font embedding, not DRM)
    int unread_fonts;      ///< obfuscated fonts whose obfuscation could not be undone (emptied)
    /// A fixed-layout book's page size in CSS pixels (its viewport); 0 when it gives none.
    float viewport_width, viewport_height;
    /// A markup file nesting elements deeper than MuPDF's recursive layout survives (its name,
    /// empty if none): such a book is refused before MuPDF parses it.
    char too_deep[128];
    /// Why the book is not given to MuPDF at all, in words (empty if it is): a MOBI's record
    /// outside the file, more spine items or archive entries than Folio opens.
    char refused[256];
    /// A MOBI/AZW3 book's title and author from its header (EXTH 503 and 100, else the full
    /// name), which MuPDF does not read; empty otherwise.
    char mobi_title[256];
    char mobi_author[256];
    /// The book's language as its package names it (EPUB `dc:language`, FB2 `lang`), or empty.
    char language[32];
    /// The language whose hyphenation patterns set the text (empty: not hyphenated).
    char hyphenated[32];
    /// A stylesheet sets text vertically (`writing-mode: vertical-*`), which MuPDF lays out across.
    int vertical;
    /// `setting.family`'s faces were found and put in the copy (regular, bold, italic, bold italic).
    int face;
} folio_mu_info;

/// How Folio prepares a reflowable book's text before MuPDF lays it out.
typedef struct {
    int hyphenate;            ///< soft hyphens put where the book's language's patterns allow
    const char *pattern_dirs; ///< folders (colon-separated) holding libhyphen's `hyph_*.dic` files
    /// An installed typeface's family (fontconfig) to set an EPUB in, or NULL: its files go into
    /// the prepared copy as `folio-face-r|b|i|bi.ttf` (`info.face`).
    const char *family;
    /// The pages of each chapter of an earlier layout of the same copy (`folio_mu_layout_counts`),
    /// or NULL: MuPDF keeps them where the layout is the same and counts again where not.
    const unsigned char *counts;
    size_t counts_length;
    /// The stylesheet over the publisher's that the book will be laid out with
    /// (`folio_mu_set_user_css`): for a reflowable book, one set in the reader's face (`info.face`)
    /// and a fixed-layout one; given before the book is opened, for MuPDF keeps `counts` only for
    /// the stylesheet the book was opened with. NULL: none.
    const char *css, *css_with_face, *css_fixed;
    /// Whether the publisher's stylesheets apply beneath `css` (`fz_set_use_document_css`).
    int use_document_css;
    /// Characters a line of the text block holds at the type size it is opened at, about: the
    /// room a table's columns share (columns.c); 0 for a book's usual 60.
    double line_characters;
    /// The text block's height over its width: where a picture page's picture is centred
    /// (typeset.c); 0 when not known.
    double block_aspect;
    /// The reader's text size in points, which the book is laid out at: a length in pixels,
    /// points or rems in its stylesheets is one in proportion to it (css.c); 0 when not known.
    double font_size;
} folio_mu_setting;

/// Elements nested deeper than this refuse the book (MuPDF lays boxes out recursively); so do
/// more spine items or archive entries than these (MuPDF finds each entry by a linear search).
enum { folio_mu_max_depth = 500, folio_mu_max_spine = 10000, folio_mu_max_entries = 20000 };

/// Opens `path`; `memory_limit` bytes at most are allocated for it (0: no limit). A reflowable
/// EPUB or FB2 is laid out from a copy prepared as `setting` says (typeset.c, epubcopy.c).
folio_mu_doc *folio_mu_open(const char *path, size_t memory_limit, const folio_mu_setting *setting,
                            folio_mu_info *info, folio_mu_error *error);
void folio_mu_close(folio_mu_doc *doc);
/// The first file outside the book that MuPDF was asked to open for it (a stylesheet's font at
/// `/etc/…`, an image at `../…`) and was not let, or NULL.
const char *folio_mu_outside(folio_mu_doc *doc);
/// How many fonts MuPDF has made from its built-in ones for `doc` so far.
int folio_mu_builtin_fonts(folio_mu_doc *doc);

/// The first chapter an EPUB's spine lists and its archive lacks (a page in its place says so),
/// or NULL; `*count`: how many it lacks.
const char *folio_mu_missing(folio_mu_doc *doc, int *count);

/// How many times this process has loaded the hyphenation patterns at `path` (hyphenate.c
/// loads each once, for every book).
int folio_pattern_loads(const char *path);

/// Keeps hyphenation patterns as libhyphen compiles them in files in `folder` (an absolute path;
/// made when the first is written), and reads them from there instead of compiling them again
/// (keptpatterns.c); NULL or "" keeps none.
void folio_keep_patterns_in(const char *folder);

/// Sets the stylesheet applied over the publisher's (before layout), and whether the
/// publisher's own stylesheets are read at all.
void folio_mu_set_user_css(folio_mu_doc *doc, const char *css, int use_document_css);
/// Sets a reflowable document's layout: pages of `w` × `h` points with `em` point text; 0 on
/// success. MuPDF lays each chapter out when it is first needed (counted or drawn).
int folio_mu_layout(folio_mu_doc *doc, float w, float h, float em, folio_mu_error *error);
/// The number of chapters (an EPUB's spine items; one for FB2, XHTML, MOBI), or -1.
int folio_mu_count_chapters(folio_mu_doc *doc, folio_mu_error *error);
/// Lays chapter `chapter` out (if it is not yet) and returns its page count, or -1.
int folio_mu_count_chapter_pages(folio_mu_doc *doc, int chapter, folio_mu_error *error);
/// Characters of chapter `chapter`'s text (an EPUB's spine item; its markup, white space, head,
/// styles and scripts not counted), 0 when unknown.
size_t folio_mu_chapter_text(folio_mu_doc *doc, int chapter);
/// The spine items whose bytes are known (an EPUB's chapters as MuPDF counts them), 0 if none.
int folio_mu_spine_count(folio_mu_doc *doc);
/// The page count, or -1.
int folio_mu_count_pages(folio_mu_doc *doc, folio_mu_error *error);
/// The pages of each chapter of an EPUB's current layout and what it was laid out for (MuPDF's
/// accelerator: page box, text size, stylesheet), as malloc'd bytes for
/// `folio_mu_setting.counts`; NULL where the book keeps none (not an EPUB).
unsigned char *folio_mu_layout_counts(folio_mu_doc *doc, size_t *length);
/// A metadata value ("info:Title", "info:Author") as malloc'd UTF-8, or NULL.
char *folio_mu_metadata(folio_mu_doc *doc, const char *key);

/// Page `index`'s box in points (origin top-left); 0 on success.
int folio_mu_bounds(folio_mu_doc *doc, int index, float box[4], folio_mu_error *error);
/// A flag that stops a render part-way (MuPDF's fz_cookie): set from any thread.
typedef struct folio_mu_cookie folio_mu_cookie;
folio_mu_cookie *folio_mu_new_cookie(void);
/// Asks the render using `cookie` to stop at MuPDF's next check.
void folio_mu_abort(folio_mu_cookie *cookie);
void folio_mu_drop_cookie(folio_mu_cookie *cookie);

/// A page's running head and folio: lines set in points of the page's box (its origin at the
/// box's top-left: a head above the box has a negative baseline), each placed between `left`
/// and `right` by its alignment (0 left, 1 centred, 2 right).
typedef struct {
    const char *head;
    int head_align;
    const char *foot;
    int foot_align;
    float left, right, head_y, foot_y, size;
    unsigned int ink;  ///< 0xRRGGBB
} folio_mu_furniture;

/// Draws page `index` printed on paper of colour `paper` (0xRRGGBB: each colour times it) into `rgba` (`width` × `height`, 4
/// bytes a pixel), the page's points mapped to pixels by x' = sx·(x − x0) + tx,
/// y' = sy·(y − y0) + ty, with `furniture` (may be NULL); 0 on success, -2 when `cookie` (may be
/// NULL) was aborted.
int folio_mu_render(folio_mu_doc *doc, int index, float sx, float sy, float tx, float ty,
                    int width, int height, unsigned char *rgba, unsigned int paper, const folio_mu_furniture *furniture,
                    folio_mu_cookie *cookie, folio_mu_error *error);

/// The chapter of page `index`, the page's place in it and the chapter's page count; -1 on error.
int folio_mu_chapter_of(folio_mu_doc *doc, int index, int *page_in_chapter, int *chapter_pages);
/// The printed page label page `index` carries in an EPUB whose navigation has a page list (its
/// print edition's page breaks): the label of the printed page it starts in (the last break
/// before it or at its top), into `label`.
/// 1 when found, 0 when the book has a page list and no break comes before the page (front
/// matter), -1 when it has none.
int folio_mu_printed_label(folio_mu_doc *doc, int index, char *label, size_t size);
/// An EPUB chapter's text as its file holds it, read without laying it out: what lies outside
/// tags, comments and the `head`, `style` and `script` elements, entities read (those of marks
/// and spaces as a space), as malloc'd UTF-8; NULL when not known (not an EPUB, a chapter not
/// in the spine, an entity that may stand for a letter and is not read here).
char *folio_mu_chapter_markup_text(folio_mu_doc *doc, int chapter, size_t *length);
/// The page number of page `page` of `chapter` (clamped to the chapter), or -1.
int folio_mu_chapter_page(folio_mu_doc *doc, int chapter, int page);
/// The characters page `index` draws, white space and hyphens not counted, or -1: summed over a
/// chapter's pages, the same whatever the layout (lines and pages break at white space, and a
/// soft hyphen is drawn where a line breaks at it), so a page's place in its chapter's text is
/// the count of the pages before it.
int folio_mu_page_characters(folio_mu_doc *doc, int index, folio_mu_error *error);

/// One word and its box in points.
typedef struct { char *text; float x0, y0, x1, y1; } folio_mu_word;
/// Page `index`'s words in reading order (free with folio_mu_free_words); -1 on error.
int folio_mu_words(folio_mu_doc *doc, int index, folio_mu_word **words, folio_mu_error *error);
void folio_mu_free_words(folio_mu_word *words, int count);

/// A link inside a note: its words, and where it goes (as a page's link does: `uri` outside the
/// book, else `page`, and `note` when it points at another note).
typedef struct { char *label; int page; char *uri; char *note; } folio_mu_note_link;
/// One link: its box in points and either a page index (uri NULL) or an outside URI.
/// `note`: when the link points at a note of the book (an EPUB's footnote, endnote or aside), its
/// text, so the reader can read it without leaving the page; NULL otherwise.
typedef struct {
    float x0, y0, x1, y1;
    int page;
    char *uri;
    char *note;
    /// The links the note holds.
    folio_mu_note_link *note_links;
    int note_link_count;
} folio_mu_link;
int folio_mu_links(folio_mu_doc *doc, int index, folio_mu_link **links, folio_mu_error *error);
void folio_mu_free_links(folio_mu_link *links, int count);

/// The outline flattened in document order, each entry with its depth (0 at the top); page -1
/// for an entry pointing nowhere.
typedef struct { char *title; int page; int depth; } folio_mu_outline;
int folio_mu_outline_entries(folio_mu_doc *doc, folio_mu_outline **entries, folio_mu_error *error);
void folio_mu_free_outline(folio_mu_outline *entries, int count);

/// Page `index`'s running head: the title of the contents entry it lies under (the last before
/// it, or at its top), into `title`. 1 when found, 2 when that entry starts on this page (a
/// chapter's opening, which prints no head), 0 when none comes before the page, -1 on error.
int folio_mu_running_head(folio_mu_doc *doc, int index, char *title, size_t size);

#endif
