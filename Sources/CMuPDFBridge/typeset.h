// The bridge's own: preparing a book's markup for layout, and drawing its pages' furniture
// (typeset.c). Not part of the Swift interface.
#ifndef FOLIO_TYPESET_H
#define FOLIO_TYPESET_H

#include "MuPDFBridge.h"
#include <mupdf/fitz.h>

typedef struct _HyphenDict HyphenDict;

enum { folio_unhyphenated_size = 64 };

/// What preparing a book does.
typedef struct {
    int hyphenate;  ///< put soft hyphens where the language's patterns allow
    /// An installed face's files to put in the copy (regular, bold, italic, bold italic;
    /// `folio_faces`), or NULLs.
    fz_buffer *faces[4];
    /// Simple selectors (`p`, `.c`, `p.c`) the book's stylesheets set `hyphens: none` (any
    /// prefix): their elements are not hyphenated. Filled by `folio_prepare_epub`.
    char unhyphenated[folio_unhyphenated_size][48];
    int unhyphenated_count;
} folio_typeset_options;

/// The names a face's files take in the copy, in `folio_typeset_options.faces`' order.
extern const char *const folio_face_files[4];

/// The user stylesheet's faces of `serif`: the files `folio_prepare_epub` puts in every copy when
/// `folio_has_default_serif` (MuPDF's own default serif, found faster by that name: typeset.c).
extern const char folio_serif_css[];
int folio_has_default_serif(fz_context *ctx);

/// Fills `faces` with the files of installed family `family` (fontconfig), regular, bold, italic
/// and bold italic (a style the family lacks: its regular); 1 when the family is installed.
int folio_faces(fz_context *ctx, const char *family, fz_buffer *faces[4]);

enum { folio_pattern_cache_size = 8 };

/// Pattern files loaded for one book, by language; `dirs` (colon-separated) are searched.
typedef struct {
    const char *dirs;
    int count;
    char langs[folio_pattern_cache_size][32];
    HyphenDict *dicts[folio_pattern_cache_size];
    /// The first language whose patterns were found ("" if none).
    char used[32];
} folio_pattern_cache;

/// The patterns for `lang` (loaded once per cache), or NULL when none are installed.
HyphenDict *folio_patterns(folio_pattern_cache *cache, const char *lang);
void folio_drop_patterns(folio_pattern_cache *cache);

/// One markup file prepared (a new buffer). `book_lang`: the language where the file names none.
fz_buffer *folio_prepare_markup(fz_context *ctx, fz_buffer *markup, const folio_typeset_options *options,
                                const char *book_lang, folio_pattern_cache *cache);

/// An EPUB's archive copied into a new in-memory EPUB, its markup files prepared and its
/// picture pages (spine items that are pictures) given pages of markup; entries for which `skip`
/// (may be NULL) answers 1 are left out. `opf_path`: the package file (may be NULL).
fz_buffer *folio_prepare_epub(fz_context *ctx, fz_archive *arch, const char *opf_path, const folio_typeset_options *options,
                              const char *book_lang, int (*skip)(void *user, const char *name), void *user, folio_pattern_cache *cache);

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
void folio_drop_notes(fz_context *ctx, folio_notes *notes);

/// The running head and folio drawn on a page through `ctm` (the page's own transform).
void folio_draw_furniture(fz_context *ctx, fz_device *dev, fz_matrix ctm, const folio_mu_furniture *f);

#endif
