// The bridge's own declarations, shared by its files: a document's state, what is checked and
// read before MuPDF opens a book and the scanning of its markup here; Palm databases in palm.h, a
// book's markup prepared, its notes and its pages' furniture in prepare.h. Not part of the Swift
// interface (include/MuPDFBridge.h).
#ifndef FOLIO_BRIDGE_H
#define FOLIO_BRIDGE_H

#include "MuPDFBridge.h"
#include <mupdf/fitz.h>
#include <pthread.h>
#include <stdatomic.h>

// MARK: documents (document.c, pages.c)

/// A page break of an EPUB's print edition (its navigation's `page-list`) or a contents entry:
/// the spine item it lies in, where it points, the printed page's label or the entry's title, the
/// page it falls on in this layout (-2: not looked for yet, -1: not found) and how far down it
/// (points), and an entry's depth in the contents.
struct page_mark { int chapter; char *target; char *label; int page; float y; int depth; };
/// Places a book's navigation names, each in a spine chapter, its page found in the layout
/// once asked (-2 until then), read once (`read`).
struct page_marks { struct page_mark *items; int count, read; };

struct folio_mu_doc {
    fz_context *ctx;
    fz_document *doc;
    char *path;
    /// Held by every call that touches `doc` (MuPDF documents are not thread-safe).
    pthread_mutex_t mutex;
    pthread_mutex_t locks[FZ_LOCK_MAX];
    /// Bytes allocated for this document and its limit: a page that would need more (a
    /// 30000 × 30000 image) fails alone instead of taking the machine's memory.
    atomic_size_t used;
    size_t limit;
    /// Fonts MuPDF made from its built-in ones for this document (`__wrap_fz_new_font_from_memory`).
    atomic_int builtin_fonts;
    /// Characters of each spine item's text (an EPUB's chapters, in MuPDF's order), for
    /// estimating the pages of chapters not laid out yet; `spine_count` 0 when unknown.
    size_t *spine_text;
    int spine_count;
    /// Each spine item's archive entry (malloc'd; NULL where unknown), and the book's archive
    /// opened again to read their text (`folio_mu_chapter_markup_text`) once asked.
    char **spine_names;
    fz_archive *text_archive;
    /// The book's archive made in memory, read in its file's place: a plain-text book made an
    /// EPUB (text.c), or an EPUB whose entries' names are not plain (package.c); NULL for others.
    fz_buffer *archive_copy;
    /// Whether MuPDF's chapters are the spine's items, one for one (0: not looked at yet, 1 yes,
    /// -1 no): only then does a spine item's text or page break belong to a chapter.
    int spine_is_chapters;
    /// An EPUB's page list (its print edition's page breaks: `folio_mu_printed_label`) and its
    /// contents' entries (the running heads: `folio_mu_running_head`).
    struct page_marks printed, heads;
    /// Whether `heads` are the book's contents, read from its own index as it was prepared (a
    /// MOBI's NCX: mobi.c), not from MuPDF's outline.
    int indexed;
    /// The height of the page the book was last laid out for (`folio_mu_layout`), 0 before.
    float page_height;
    /// An EPUB's package file (its OPF), or NULL.
    char *opf_path;
    /// The spine's chapters its archive lacks (malloc'd entry names, each once): the copy holds a
    /// page in each one's place saying so (epubcopy.c), so the rest of the book opens.
    char **missing;
    int missing_count;
    /// The prepared copy an EPUB is read from (its notes are looked up in it), or NULL.
    fz_buffer *copy;
    /// The first page of each chapter counted so far in this layout (`starts[counted]` the page
    /// after them): MuPDF turns a page number into a chapter by walking its list of chapters for
    /// each chapter before it, so a book of 2,000 chapters paid millions of steps a page.
    /// `chapters`: how many the book has (walked once, not at every page).
    int *starts, counted, starts_capacity, chapters;
    /// The folder whose files an XHTML document may read (NULL: none), and the first file
    /// outside the book it was asked for (`inside_book`).
    char *folder;
    _Atomic(char *) outside;
};

void fb_fail(folio_mu_error *error, const char *message);
fz_context *fb_thread_context(folio_mu_doc *d, folio_mu_error *error);

fz_location fb_page_location(fz_context *ctx, folio_mu_doc *d, int index);
int fb_page_number(fz_context *ctx, folio_mu_doc *d, fz_location at);
fz_page *fb_load_page(fz_context *ctx, folio_mu_doc *d, int index);
void *fb_grow(fz_context *ctx, void *array, int count, int *capacity, size_t size);

// MARK: before MuPDF parses a book (hostile.c, package.c, markup.c)

/// How MuPDF reads a markup file: as XML, then as HTML when that fails (chapters, XHTML, MOBI
/// text, and whatever else an archive holds), or as HTML alone (.html files).
enum { read_either, read_html };

/// The characters of text of each markup entry of an archive (`fb_text_characters`), by name
/// (sorted as MuPDF matches names, case aside): `fb_check_depth` reads each entry once and
/// `read_spine_text` finds its chapters here, for MuPDF finds an entry by a linear search of the
/// archive's names (a book of 10,000 chapters read that way took minutes).
typedef struct { char *name; size_t text; } entry_text;
typedef struct { entry_text *entries; int count; } entry_texts;

int fb_too_deep(fz_context *ctx, fz_buffer *buf, int reading);
/// Whether the `n` bytes at `s` are an empty end tag, `</>`: HTML ignores one, but MuPDF 1.21's
/// HTML parser, given an element it does not know after it (`</><y>`), makes an element of no
/// name, which it reads as text that is not there (a crash). Prepared copies leave it out
/// (typeset.c); a book read as it is that holds one is refused (`fb_holds_empty_end_tag`).
int fb_empty_end_tag(const unsigned char *s, size_t n);
int fb_holds_empty_end_tag(const unsigned char *s, size_t n);
extern const char fb_empty_end_tag_refusal[];
int fb_markup_entry(fz_context *ctx, fz_buffer *buf);
int fb_by_name(const void *a, const void *b);
int fb_style_or_script(const char *name);
int fb_html_name(const char *path);
void fb_check_depth(fz_context *ctx, const char *path, fz_archive *arch, folio_mu_info *info, entry_texts *texts);

fz_xml *fb_entry_xml(fz_context *ctx, fz_archive *arch, const char *name);
void fb_read_package(fz_context *ctx, const char *path, folio_mu_info *info, folio_mu_doc *d);
/// Whether MuPDF reads a file as a Palm database (MOBI): by its name, or by its type whatever
/// the name.
int fb_palm_database(const char *path, const unsigned char *d, size_t n);
/// A MOBI's title, author and language from its first record (EXTH 503, 100 and 524; else the
/// header's full name), bounds-checked against the bytes read.
void fb_read_mobi_header(fz_context *ctx, const char *path, folio_mu_info *info);
// MARK: markup scanned (tags.c)

int fb_starts_with(const unsigned char *s, size_t n, const char *word);
/// Whether the tag whose name starts the `n` bytes at `s` (after its '<') is `name`: the name
/// followed by white space, '/' or '>' (tags.c).
int fb_tag_named(const unsigned char *s, size_t n, const char *name);
/// Where the section opened by `open` at `i` (a comment, character data) ends, after its
/// `close` (or the markup's end); 0 when none opens there (tags.c).
size_t fb_section_end(const unsigned char *s, size_t n, size_t i, const char *open, const char *close);
/// Where the tag whose '<' is at `i` ends: its '>' (a quoted value may hold one); `n` when it has
/// none (tags.c).
size_t fb_tag_end(const unsigned char *s, size_t n, size_t i);
/// Where the value of attribute `name` lies in the start tag `tag` (`n` bytes after its '<'):
/// from `*start` to `*end`, its closing quote (`n` when it has none); 0 if absent (tags.c).
int fb_attribute_at(const unsigned char *tag, size_t n, const char *name, size_t *start, size_t *end);
/// The length of the name the tag `tag` (`n` bytes after its '<') starts with (tags.c).
size_t fb_tag_name_length(const unsigned char *tag, size_t n);
/// Where the element whose start tag (named `tag`, `n` bytes) ends at `end` ends: after its
/// matching end tag (elements of the same name inside it counted), or at `total` (tags.c).
size_t fb_element_end(const unsigned char *s, size_t total, size_t end, const unsigned char *tag, size_t n);
/// `<style>` elements of a chapter's head read, at most (a book has a few; MuPDF reads each,
/// and 50,000 took a minute).
enum { fb_head_styles = 64 };
/// Whether a `<style>` element starts at `i` of markup `s` (`n` bytes): 1 with its content
/// after `*open` (its start tag's '>') to `*close` (its end tag's '<'); 0 when none starts
/// there; -1 when one starts and is never closed (tags.c).
int fb_style_at(const unsigned char *s, size_t n, size_t i, size_t *open, size_t *close);
/// Whether start tag `tag` (`n` bytes after its '<') is a heading's, `h1` to `h6` (tags.c).
int fb_is_heading(const unsigned char *tag, size_t n);
size_t fb_text_characters(const unsigned char *s, size_t n);
int fb_chapters_are_spine(fz_context *ctx, folio_mu_doc *d);

#include "palm.h"
#include "prepare.h"

#endif
