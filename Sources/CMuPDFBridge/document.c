// A document's life: its memory and locks, opening it (its package read, a prepared copy, its
// kept page counts and stylesheet), confining MuPDF to the book's files, closing it. Does not
// check markup (hostile.c), read the package (package.c) or lay out and draw pages (pages.c).
#include "bridge.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: allocation and locks

static void *doc_malloc(void *user, size_t size) {
    folio_mu_doc *d = user;
    if (d->limit && atomic_load(&d->used) + size > d->limit) return NULL;
    void *p = malloc(size);
    if (p) atomic_fetch_add(&d->used, malloc_usable_size(p));
    return p;
}

static void doc_free(void *user, void *ptr) {
    folio_mu_doc *d = user;
    if (!ptr) return;
    atomic_fetch_sub(&d->used, malloc_usable_size(ptr));
    free(ptr);
}

static void *doc_realloc(void *user, void *old, size_t size) {
    folio_mu_doc *d = user;
    size_t before = old ? malloc_usable_size(old) : 0;
    if (d->limit && size > before && atomic_load(&d->used) + (size - before) > d->limit) return NULL;
    void *p = realloc(old, size);
    if (!p) return size ? NULL : p;
    atomic_fetch_sub(&d->used, before);
    atomic_fetch_add(&d->used, malloc_usable_size(p));
    return p;
}

static void doc_lock(void *user, int lock) { pthread_mutex_lock(&((folio_mu_doc *)user)->locks[lock]); }
static void doc_unlock(void *user, int lock) { pthread_mutex_unlock(&((folio_mu_doc *)user)->locks[lock]); }

// MuPDF prints warnings and errors on stderr by default; Folio reports what fails itself.
static void quiet(void *user, const char *message) { (void)user; (void)message; }

void fb_fail(folio_mu_error *error, const char *message) {
    if (error) snprintf(error->message, sizeof error->message, "%s", message ? message : "unknown error");
}

/// A context of this document's family for the calling thread (NULL if memory is out).
fz_context *fb_thread_context(folio_mu_doc *d, folio_mu_error *error) {
    fz_context *ctx = fz_clone_context(d->ctx);
    if (!ctx) { fb_fail(error, "out of memory"); return NULL; }
    fz_set_warning_callback(ctx, quiet, NULL);
    fz_set_error_callback(ctx, quiet, NULL);
    return ctx;
}

// MARK: the prepared copy

/// The language an FB2 book's description names (`<lang>`), into `out`.
static void fb2_language(fz_buffer *buf, char *out, size_t size) {
    unsigned char *data;
    size_t len = fz_buffer_storage(NULL, buf, &data);
    // The description comes first; its language within the first few kilobytes.
    size_t scan = len < 65536 ? len : 65536;
    for (size_t i = 0; i + 6 < scan; i++) {
        if (memcmp(data + i, "<lang>", 6)) continue;
        size_t j = i + 6, k = 0;
        while (j < scan && data[j] != '<' && k + 1 < size) out[k++] = data[j++];
        out[k] = 0;
        return;
    }
}

/// Whether the `n` bytes of base64 at `s` are a picture MuPDF reads.
static int readable_picture(fz_context *ctx, const unsigned char *s, size_t n) {
    fz_buffer *buf = NULL;
    fz_image *image = NULL;
    int ok = 0;
    fz_var(buf); fz_var(image);
    fz_try(ctx) {
        buf = fz_new_buffer_from_base64(ctx, (const char *)s, n);
        image = fz_new_image_from_buffer(ctx, buf);
        ok = 1;
    }
    fz_always(ctx) {
        fz_drop_image(ctx, image);
        fz_drop_buffer(ctx, buf);
    }
    fz_catch(ctx) ok = 0;
    return ok;
}

/// The FB2 without the pictures (`<binary>`s) MuPDF cannot read, or NULL when it reads them all.
/// MuPDF 1.21 reads every picture as it opens an FB2, and one it cannot decode throws it out of
/// reading the pictures and the stylesheets (html-parse.c: "ignoring styles due to errors"):
/// for one damaged picture a book lost every other, its cover among them, and Folio's
/// typography. The picture left out shows as MuPDF shows a missing one.
static fz_buffer *fb2_readable_pictures(fz_context *ctx, fz_buffer *fb2) {
    unsigned char *s;
    size_t n = fz_buffer_storage(ctx, fb2, &s), from = 0;
    fz_buffer *out = NULL;
    fz_var(out);
    fz_try(ctx) {
        for (size_t i = 0; i + 8 < n; i++) {
            if (s[i] != '<' || memcmp(s + i + 1, "binary", 6) || (s[i + 7] != ' ' && s[i + 7] != '>')) continue;
            const unsigned char *open = memchr(s + i, '>', n - i);
            size_t start = open ? (size_t)(open - s) + 1 : n, stop = start;
            while (stop + 9 <= n && memcmp(s + stop, "</binary>", 9)) stop++;
            if (stop + 9 > n) break;
            if (!readable_picture(ctx, s + start, stop - start)) {
                if (!out) out = fz_new_buffer(ctx, n);
                fz_append_data(ctx, out, s + from, i - from);
                from = stop + 9;
            }
            i = stop + 8;
        }
        if (out) fz_append_data(ctx, out, s + from, n - from);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, out);
        fz_rethrow(ctx);
    }
    return out;
}

/// Sets `css` as the user stylesheet; a prepared copy (`copied`) holds the default serif's files
/// (epubcopy.c), declared before it.
static void set_user_css(fz_context *ctx, int copied, const char *css) {
    char *joined = NULL;
    fz_var(joined);
    fz_try(ctx) {
        if (copied && folio_has_default_serif(ctx)) {
            size_t size = strlen(folio_serif_css) + strlen(css) + 1;
            joined = fz_malloc(ctx, size);
            snprintf(joined, size, "%s%s", folio_serif_css, css);
        }
        fz_set_user_css(ctx, joined ? joined : css);
    }
    fz_always(ctx) fz_free(ctx, joined);
    fz_catch(ctx) { /* out of memory: the publisher's styles alone */ }
}

/// Pages a book's kept counts may add up to (a chapter of 25 MB of text lays out in 15,222):
/// a file claiming more is not believed, so that no count read from it sizes anything.
enum { kept_pages_limit = 1 << 20 };

/// An earlier layout's page counts (MuPDF's EPUB accelerator, `folio_mu_layout_counts`) as a
/// stream, or NULL unless they are whole and plausible: a header of nine numbers, then one count
/// per chapter (-1: not counted) for as many chapters as it says, no more than a book may have,
/// adding up to at most `kept_pages_limit`. MuPDF reads them without checking either.
static fz_stream *layout_counts(fz_context *ctx, const folio_mu_setting *setting) {
    enum { header = 36 };
    if (!setting || !setting->counts || setting->counts_length < header + 4) return NULL;
    const unsigned char *b = setting->counts;
    int32_t chapters = (int32_t)((uint32_t)b[32] | (uint32_t)b[33] << 8 | (uint32_t)b[34] << 16 | (uint32_t)b[35] << 24);
    if (chapters <= 0 || chapters > folio_mu_max_spine || setting->counts_length != header + 4 * (size_t)chapters) return NULL;
    int64_t total = 0;
    for (int32_t i = 0; i < chapters; i++) {
        const unsigned char *c = b + header + 4 * i;
        int32_t n = (int32_t)((uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24);
        total += n > 0 ? n : 0;
        if (n < -1 || total > kept_pages_limit) return NULL;
    }
    return fz_open_memory(ctx, b, setting->counts_length);
}

/// The document from a prepared copy (typeset.c, epubcopy.c, mobi.c) where the book is an EPUB, FB2 or
/// MOBI: its text hyphenated, its root's direction kept, its picture pages given pages, a MOBI's cover
/// a page and its contents read from its index (`d->heads`). MuPDF refuses every EPUB holding
/// META-INF/encryption.xml ("locked by DRM"), though EPUB's font obfuscation is no DRM: the copy
/// leaves out that file and has the fonts it obfuscates undone (obfuscation.c; those it cannot
/// undo emptied, MuPDF's own fonts standing in).
static fz_document *open_prepared(fz_context *ctx, folio_mu_doc *d, const folio_mu_setting *setting, folio_mu_info *info) {
    const char *path = d->path;
    fz_archive *arch = NULL;
    fz_xml *enc = NULL;
    fz_buffer *copy = NULL, *file = NULL;
    fz_stream *stream = NULL;
    fz_document *doc = NULL;
    folio_pattern_cache cache = {.dirs = setting ? setting->pattern_dirs : NULL};
    folio_typeset_options options = {.hyphenate = setting && setting->hyphenate && !info->pre_paginated, .vertical = info->vertical,
                                     .line_characters = setting ? setting->line_characters : 0,
                                     .block_aspect = setting && !info->pre_paginated ? setting->block_aspect : 0,
                                     .sizes = {.font_size = setting ? setting->font_size : 0,
                                               .block_width = setting ? setting->line_characters * setting->font_size / 2 : 0}};
    // The reader's face, for an EPUB Folio lays out (its files go into the copy).
    if (setting && setting->family && info->epub && !info->pre_paginated) info->face = folio_faces(ctx, setting->family, options.faces);
    const char *dot = strrchr(path, '.');
    int fb2 = dot && !fz_strcasecmp(dot, ".fb2");
    fz_stream *counts = NULL;
    fz_var(arch); fz_var(enc); fz_var(copy); fz_var(file); fz_var(stream); fz_var(counts);
    fz_try(ctx) {
        // FB2, MOBI and a lone XHTML file are parsed, their styles applied, as they are opened:
        // Folio's stylesheet must be set first, or its typography never reaches them (lines set
        // solid in MuPDF's page margins, whatever the reader chose).
        if (setting && setting->css && !info->epub && !info->obfuscated_fonts) {
            fz_set_use_document_css(ctx, setting->use_document_css);
            set_user_css(ctx, 0, setting->css);
        }
        if (fb2) {
            file = fz_read_file(ctx, path);
            fz_buffer *readable = fb2_readable_pictures(ctx, file);
            if (readable) {
                fz_drop_buffer(ctx, file);
                file = readable;
            }
            fz_buffer *marked = folio_fb2_contents(ctx, file, &d->heads);
            if (marked) {
                fz_drop_buffer(ctx, file);
                file = marked;
            }
            fb2_language(file, info->language, sizeof info->language);
            options.outline_headings = 1;
            copy = folio_prepare_markup(ctx, file, &options, info->language, &cache);
            stream = fz_open_buffer(ctx, copy);
            doc = fz_open_document_with_stream(ctx, "application/x-fictionbook", stream);
            d->indexed = d->heads.read = d->heads.count > 0;
        } else if (info->epub || info->obfuscated_fonts) {
            arch = fb_open_book_archive(ctx, d);
            enc = fb_entry_xml(ctx, arch, "META-INF/encryption.xml");
            fb_obfuscation obfuscation;
            if (enc) fb_read_obfuscation(ctx, arch, d->opf_path, enc, &obfuscation);
            copy = folio_prepare_epub(ctx, arch, d->opf_path, &options, info->language, enc ? &obfuscation : NULL, &cache,
                                      d->missing, d->missing_count);
            info->unread_fonts = enc ? obfuscation.unread : 0;
            stream = fz_open_buffer(ctx, copy);
            // MuPDF 1.21 keeps an EPUB's page counts only for the stylesheet it was opened with
            // (the sum taken when opening, compared at each count).
            const char *css = !setting ? NULL : info->pre_paginated ? setting->css_fixed : info->face ? setting->css_with_face : setting->css;
            if (css) set_user_css(ctx, 1, css);
            counts = layout_counts(ctx, setting);
            doc = fz_open_accelerated_document_with_stream(ctx, "application/epub+zip", stream, counts);
            d->copy = fz_keep_buffer(ctx, copy);
        } else {
            if (fb_palm_database(path, NULL, 0)) {
                file = fz_read_file(ctx, path);
                options.outline_headings = 1;
                copy = folio_prepare_mobi(ctx, file, &options, info->language, &cache, &d->heads);
            }
            if (copy) {
                d->indexed = d->heads.read = d->heads.count > 0;
                stream = fz_open_buffer(ctx, copy);
                doc = fz_open_document_with_stream(ctx, "application/x-mobipocket-ebook", stream);
            } else {
                doc = fz_open_document(ctx, path);
            }
        }
        snprintf(info->hyphenated, sizeof info->hyphenated, "%s", cache.used);
    }
    fz_always(ctx) {
        for (int f = 0; f < 4; f++) fz_drop_buffer(ctx, options.faces[f]);
        folio_drop_patterns(&cache);
        fz_drop_stream(ctx, counts);
        fz_drop_stream(ctx, stream);
        fz_drop_buffer(ctx, copy);
        fz_drop_buffer(ctx, file);
        fz_drop_xml(ctx, enc);
        fz_drop_archive(ctx, arch);
    }
    fz_catch(ctx) fz_rethrow(ctx);
    return doc;
}

// MARK: files outside the book

// MuPDF opens files by name beyond the book: a font that a stylesheet names and the archive
// lacks is read from the file system as named (css-apply.c: `fz_read_file(src)`, so
// `url(/etc/shadow)`, `/dev/zero`, a FIFO or `../../x` from the working folder), and an XHTML
// file's images and stylesheets from its folder, `../` and all (directory.c). Every such open
// goes through fz_open_file or fz_file_exists, which the link wraps (Package.swift:
// `--wrap=fz_open_file`): for a document's context (its user context is the document) only
// the book itself is opened and, for an XHTML file, regular files inside its folder, checked
// with `stat` before `open`. Anything else fails as a missing file would, and is noted.

fz_stream *__real_fz_open_file(fz_context *ctx, const char *name);
int __real_fz_file_exists(fz_context *ctx, const char *name);

static int regular_file(const char *name) {
    struct stat st;
    return stat(name, &st) == 0 && S_ISREG(st.st_mode);
}

/// Whether a document may open `name`; notes the first file outside the book it was asked for.
static int inside_book(folio_mu_doc *d, const char *name) {
    if (!strcmp(name, d->path)) return regular_file(name);
    size_t k = d->folder ? strlen(d->folder) : 0;
    int inside = d->folder && !strncmp(name, d->folder, k) && name[k] == '/';
    for (const char *p = name + k; inside && (p = strstr(p, "..")); p += 2)
        if (p[-1] == '/' && (p[2] == '/' || !p[2])) inside = 0;
    struct stat st;
    if (inside && stat(name, &st) != 0) return 0;  // missing: MuPDF says so
    if (inside && S_ISREG(st.st_mode)) return 1;
    char *copy = strdup(name), *none = NULL;
    if (!atomic_compare_exchange_strong(&d->outside, &none, copy)) free(copy);
    return 0;
}

fz_stream *__wrap_fz_open_file(fz_context *ctx, const char *name) {
    folio_mu_doc *d = fz_user_context(ctx);
    if (d && !inside_book(d, name)) fz_throw(ctx, FZ_ERROR_GENERIC, "not opened: outside the book");
    return __real_fz_open_file(ctx, name);
}

/// Counts the fonts MuPDF makes from its built-in ones, for each document: its layout makes one
/// whenever it finds no face that matches a style whole (the small-caps faces epubcopy.c
/// declares keep that from happening for every small-caps element of a book).
fz_font *__real_fz_new_font_from_memory(fz_context *ctx, const char *name, const unsigned char *data, int len, int index, int use_glyph_bbox);
fz_font *__wrap_fz_new_font_from_memory(fz_context *ctx, const char *name, const unsigned char *data, int len, int index, int use_glyph_bbox) {
    folio_mu_doc *d = fz_user_context(ctx);
    if (d) atomic_fetch_add(&d->builtin_fonts, 1);
    return __real_fz_new_font_from_memory(ctx, name, data, len, index, use_glyph_bbox);
}

int folio_mu_builtin_fonts(folio_mu_doc *d) { return atomic_load(&d->builtin_fonts); }

int __wrap_fz_file_exists(fz_context *ctx, const char *name) {
    folio_mu_doc *d = fz_user_context(ctx);
    return (!d || inside_book(d, name)) && __real_fz_file_exists(ctx, name);
}

/// Confines a new document's context to the book (and an XHTML file's folder).
static void confine(folio_mu_doc *d) {
    fz_set_user_context(d->ctx, d);
    const char *dot = strrchr(d->path, '.');
    if (!dot || !(fb_html_name(d->path) || !fz_strcasecmp(dot, ".xhtml") || !fz_strcasecmp(dot, ".xht"))) return;
    // Its images and stylesheets are read from its folder (none for a file at the root).
    const char *slash = strrchr(d->path, '/');
    d->folder = !slash ? strdup(".") : slash > d->path ? strndup(d->path, (size_t)(slash - d->path)) : NULL;
}

const char *folio_mu_outside(folio_mu_doc *d) { return atomic_load(&d->outside); }

fz_archive *fb_open_book_archive(fz_context *ctx, folio_mu_doc *d) {
    if (!d->archive_copy) return fz_open_archive(ctx, d->path);
    fz_stream *stream = fz_open_buffer(ctx, d->archive_copy);
    fz_archive *arch = NULL;
    fz_try(ctx) arch = fz_open_archive_with_stream(ctx, stream);
    fz_always(ctx) fz_drop_stream(ctx, stream);
    fz_catch(ctx) fz_rethrow(ctx);
    return arch;
}

/// Whether `path` names a plain-text book (text.c).
static int text_name(const char *path) {
    const char *dot = strrchr(path, '.');
    return dot && !fz_strcasecmp(dot, ".txt");
}

const char *folio_mu_missing(folio_mu_doc *d, int *count) {
    *count = d->missing_count;
    return d->missing_count ? d->missing[0] : NULL;
}

// MARK: documents

folio_mu_doc *folio_mu_open(const char *path, size_t memory_limit, const folio_mu_setting *setting,
                            folio_mu_info *info, folio_mu_error *error) {
    folio_mu_doc *d = calloc(1, sizeof *d);
    if (!d) { fb_fail(error, "out of memory"); return NULL; }
    d->limit = memory_limit;
    d->path = strdup(path);
    pthread_mutex_init(&d->mutex, NULL);
    for (int i = 0; i < FZ_LOCK_MAX; i++) pthread_mutex_init(&d->locks[i], NULL);
    fz_alloc_context alloc = { d, doc_malloc, doc_realloc, doc_free };
    fz_locks_context locks = { d, doc_lock, doc_unlock };
    d->ctx = fz_new_context(&alloc, &locks, 64 << 20);
    if (!d->ctx) { fb_fail(error, "out of memory"); folio_mu_close(d); return NULL; }
    fz_context *ctx = d->ctx;
    fz_set_warning_callback(ctx, quiet, NULL);
    fz_set_error_callback(ctx, quiet, NULL);
    confine(d);
    memset(info, 0, sizeof *info);
    // A plain-text book is read as the EPUB made of it, from here on.
    if (text_name(path)) {
        fz_buffer *file = NULL;
        int made = 1;
        fz_var(file);
        fz_try(ctx) {
            file = fz_read_file(ctx, path);
            d->archive_copy = folio_text_book(ctx, file, path);
        }
        fz_always(ctx) fz_drop_buffer(ctx, file);
        fz_catch(ctx) { fb_fail(error, fz_caught_message(ctx)); made = 0; }
        if (!made) { folio_mu_close(d); return NULL; }
    }
    // Before MuPDF parses the book: a file nesting too deep must not reach its parser.
    fb_read_package(ctx, path, info, d);
    if (info->too_deep[0] || info->refused[0] || info->encrypted) return d;
    int ok = 1;
    fz_try(ctx) {
        fz_register_document_handlers(ctx);
        d->doc = open_prepared(ctx, d, setting, info);
        if (fz_needs_password(ctx, d->doc)) fz_throw(ctx, FZ_ERROR_GENERIC, "the document is password-protected");
        info->reflowable = fz_is_document_reflowable(ctx, d->doc);
    }
    fz_catch(ctx) { fb_fail(error, fz_caught_message(ctx)); ok = 0; }
    if (!ok) { folio_mu_close(d); return NULL; }
    return d;
}

void folio_mu_close(folio_mu_doc *d) {
    if (!d) return;
    if (d->ctx) {
        fz_drop_document(d->ctx, d->doc);
        fz_drop_buffer(d->ctx, d->copy);
        fz_free(d->ctx, d->starts);
        fz_drop_archive(d->ctx, d->text_archive);
        fz_drop_buffer(d->ctx, d->archive_copy);
        fz_drop_context(d->ctx);
    }
    pthread_mutex_destroy(&d->mutex);
    for (int i = 0; i < FZ_LOCK_MAX; i++) pthread_mutex_destroy(&d->locks[i]);
    for (int i = 0; d->spine_names && i < d->spine_count; i++) free(d->spine_names[i]);
    free(d->spine_names);
    for (int i = 0; i < d->missing_count; i++) free(d->missing[i]);
    free(d->missing);
    struct page_marks *lists[] = {&d->printed, &d->heads};
    for (int l = 0; l < 2; l++) {
        for (int i = 0; i < lists[l]->count; i++) {
            free(lists[l]->items[i].target);
            free(lists[l]->items[i].label);
        }
        free(lists[l]->items);
    }
    free(d->spine_text);
    free(d->opf_path);
    free(d->folder);
    free(atomic_load(&d->outside));
    free(d->path);
    free(d);
}

unsigned char *folio_mu_layout_counts(folio_mu_doc *d, size_t *length) {
    unsigned char *bytes = NULL;
    *length = 0;
    pthread_mutex_lock(&d->mutex);
    fz_buffer *buf = NULL;
    fz_output *out = NULL;
    fz_var(buf); fz_var(out);
    fz_try(d->ctx) {
        if (d->copy && d->doc && fz_document_supports_accelerator(d->ctx, d->doc)) {
            buf = fz_new_buffer(d->ctx, 1024);
            out = fz_new_output_with_buffer(d->ctx, buf);
            // The writer closes and drops the output, whether it succeeds or not.
            fz_output *writing = out;
            out = NULL;
            fz_output_accelerator(d->ctx, d->doc, writing);
            unsigned char *data;
            size_t n = fz_buffer_storage(d->ctx, buf, &data);
            if (n && (bytes = malloc(n))) {
                memcpy(bytes, data, n);
                *length = n;
            }
        }
    }
    fz_always(d->ctx) {
        fz_drop_output(d->ctx, out);
        fz_drop_buffer(d->ctx, buf);
    }
    fz_catch(d->ctx) { /* none kept */ }
    pthread_mutex_unlock(&d->mutex);
    return bytes;
}

void folio_mu_set_user_css(folio_mu_doc *d, const char *css, int use_document_css) {
    pthread_mutex_lock(&d->mutex);
    fz_set_use_document_css(d->ctx, use_document_css);
    set_user_css(d->ctx, d->copy != NULL, css);
    pthread_mutex_unlock(&d->mutex);
}
