// The faces an EPUB's copy carries besides its own (epubcopy.c): MuPDF's default serif, declared
// as `serif` so that the layout finds it at once, the small-caps faces of the built-in families
// the stylesheets name, and the files of the face the reader chose (fontconfig).
// Does not: read a face's file other than the one fontconfig names, nor decide which faces a
// book's text uses (its stylesheets and the reader's setting do).
#include "bridge.h"
#include <fontconfig/fontconfig.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

// MARK: the default serif

/// MuPDF's HTML layout looks each element's font family up among its built-in fonts by name,
/// letter by letter without case, before it falls back to its default serif; for `serif` (every
/// element a book leaves to the default) that failed search cost a third of a long book's layout
/// (the Mahabharata: 15 s of 23). Its stylesheet's own faces are looked up first, by an exact
/// comparison: so the default serif's files (the same built-in font MuPDF falls back to, and so
/// the same pages) go into the copy and are declared as the faces of `serif`. Only the serif:
/// MuPDF takes a face loaded from a file for a serif face, which for a sans would change the
/// fallback of the letters it lacks.
static const char *const serif_files[4] = {"folio-serif-r.cff", "folio-serif-i.cff", "folio-serif-b.cff", "folio-serif-bi.cff"};

const char folio_serif_css[] =
    "@font-face { font-family: serif; font-weight: normal; font-style: normal; src: url(folio-serif-r.cff); }\n"
    "@font-face { font-family: serif; font-weight: normal; font-style: italic; src: url(folio-serif-i.cff); }\n"
    "@font-face { font-family: serif; font-weight: bold; font-style: normal; src: url(folio-serif-b.cff); }\n"
    "@font-face { font-family: serif; font-weight: bold; font-style: italic; src: url(folio-serif-bi.cff); }\n"
    // Bold small caps in the regular face: MuPDF sets small caps by the face's own (HarfBuzz's
    // smcp), which the bold face lacks, so they came out in bold lower case (Standard Ebooks'
    // "Part I", bold by `hgroup > *:first-child`, small caps by `h1, …, hgroup`). The italic
    // faces are named for small caps too, so that italic small caps keep their face.
    "@font-face { font-family: serif; font-weight: bold; font-style: normal; font-variant: small-caps; src: url(folio-serif-r.cff); }\n"
    "@font-face { font-family: serif; font-weight: normal; font-style: italic; font-variant: small-caps; src: url(folio-serif-i.cff); }\n"
    "@font-face { font-family: serif; font-weight: bold; font-style: italic; font-variant: small-caps; src: url(folio-serif-bi.cff); }\n";

/// Families MuPDF's built-in fonts answer to by name. MuPDF 1.21 looks a small-caps element's
/// font up among the faces it has by family, weight, style and small caps: it finds none in
/// small caps, makes the built-in font again and adds it, without small caps, to the faces it
/// searches, for every such element, so that a book of thousands of them laid out in
/// quadratic time (*A Dictionary of Cebuano Visayan*, its cross-references in small caps and
/// its body in "Times New Roman": 59.5 s). The copy declares these families' small-caps faces
/// from the same built-in fonts (`fb_small_caps_faces`): the same letters, looked up at once.
static const char *const builtin_families[] = {"Times New Roman", "Times", "Nimbus Roman", "Helvetica", "Arial", "Courier", "Charis SIL"};
enum { builtin_family_count = sizeof builtin_families / sizeof *builtin_families };

/// The name the copy gives built-in family `k`'s face `v` (bold `v >> 1`, italic `v & 1`).
static void builtin_face_file(char *out, size_t size, int k, int v) { snprintf(out, size, "folio-sc-%d-%d.otf", k, v); }

/// Appends to `out` the small-caps faces of the built-in families stylesheet `css` (`n` bytes,
/// at archive entry `name`) names, each as the stylesheet spells it; returns those families as
/// bits of `builtin_families`.
unsigned fb_small_caps_faces(fz_context *ctx, fz_buffer *out, const unsigned char *css, size_t n, const char *name) {
    char up[256] = "";
    for (const char *c = name; *c; c++)
        if (*c == '/' && strlen(up) + 3 < sizeof up) strcat(up, "../");
    unsigned named = 0;
    for (int k = 0; k < builtin_family_count; k++) {
        size_t len = strlen(builtin_families[k]);
        for (size_t i = 0; i + len <= n; i++) {
            if (fz_strncasecmp((const char *)css + i, builtin_families[k], len)) continue;
            // The name whole, between quotes, commas, a colon or spaces.
            unsigned char before = i ? css[i - 1] : ' ', after = i + len < n ? css[i + len] : ' ';
            if (!strchr("\"' ,:\t\n", before) || !strchr("\"' ,;}\t\n", after) || !after) continue;
            // As the stylesheet spells it: MuPDF compares a face's family exactly.
            char family[32];
            memcpy(family, css + i, len);
            family[len] = 0;
            int size = 0;
            for (int v = 0; v < 4 && fz_lookup_builtin_font(ctx, builtin_families[k], v >> 1, v & 1, &size); v++) {
                char file[48];
                builtin_face_file(file, sizeof file, k, v);
                fz_append_printf(ctx, out, "\n@font-face { font-family: \"%s\"; font-weight: %s; font-style: %s; font-variant: small-caps; src: url(%s%s); }",
                                 family, v >> 1 ? "bold" : "normal", v & 1 ? "italic" : "normal", up, file);
            }
            named |= 1u << k;
            break;
        }
    }
    return named;
}

/// Writes the faces of the built-in families `named` (bits of `builtin_families`).
void fb_write_small_caps_faces(fz_context *ctx, fz_zip_writer *writer, unsigned named) {
    for (int k = 0; k < builtin_family_count; k++) {
        for (int v = 0; v < 4 && named >> k & 1; v++) {
            int size = 0;
            const unsigned char *data = fz_lookup_builtin_font(ctx, builtin_families[k], v >> 1, v & 1, &size);
            if (!data) break;
            char file[48];
            builtin_face_file(file, sizeof file, k, v);
            fz_buffer *face = fz_new_buffer_from_shared_data(ctx, data, (size_t)size);
            fz_try(ctx) fz_write_zip_entry(ctx, writer, file, face, 0);
            fz_always(ctx) fz_drop_buffer(ctx, face);
            fz_catch(ctx) fz_rethrow(ctx);
        }
    }
}

/// The built-in face MuPDF's layout falls back to for `serif` (bold `f >> 1`, italic `f & 1`),
/// as its `fz_load_html_default_font` chooses it.
static const unsigned char *default_serif(fz_context *ctx, int f, int *size) {
    const unsigned char *data = fz_lookup_builtin_font(ctx, "Charis SIL", f >> 1, f & 1, size);
    return data ? data : fz_lookup_builtin_font(ctx, "Times", f >> 1, f & 1, size);
}

int folio_has_default_serif(fz_context *ctx) {
    for (int f = 0; f < 4; f++) {
        int size = 0;
        if (!default_serif(ctx, f, &size)) return 0;
    }
    return 1;
}

void fb_write_default_serif(fz_context *ctx, fz_zip_writer *writer) {
    if (!folio_has_default_serif(ctx)) return;
    for (int f = 0; f < 4; f++) {
        int size = 0;
        const unsigned char *data = default_serif(ctx, f, &size);
        fz_buffer *face = fz_new_buffer_from_shared_data(ctx, data, (size_t)size);
        fz_try(ctx) fz_write_zip_entry(ctx, writer, serif_files[f], face, 0);
        fz_always(ctx) fz_drop_buffer(ctx, face);
        fz_catch(ctx) fz_rethrow(ctx);
    }
}

// MARK: the reader's face

const char *const folio_face_files[4] = {"folio-face-r.ttf", "folio-face-b.ttf", "folio-face-i.ttf", "folio-face-bi.ttf"};

/// A face's file, read here, not through MuPDF (which opens nothing outside the book: document.c):
/// a regular file of at most 64 MiB, or NULL.
static fz_buffer *read_face(fz_context *ctx, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    fz_buffer *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= (64 << 20)) {
        fz_try(ctx) {
            buf = fz_new_buffer(ctx, (size_t)st.st_size);
            size_t got = 0;
            ssize_t n;
            while (got < (size_t)st.st_size && (n = read(fd, buf->data + got, (size_t)st.st_size - got)) > 0) got += (size_t)n;
            buf->len = got;
            if (got != (size_t)st.st_size) fz_throw(ctx, FZ_ERROR_GENERIC, "short read");
        }
        fz_catch(ctx) {
            fz_drop_buffer(ctx, buf);
            buf = NULL;
        }
    }
    close(fd);
    return buf;
}

/// The file of `family`'s face of this weight and slant, read, or NULL when fontconfig's best
/// match is another family (it always answers with something).
static fz_buffer *face_file(fz_context *ctx, const char *family, int bold, int italic) {
    FcPattern *pattern = FcPatternBuild(NULL, FC_FAMILY, FcTypeString, (const FcChar8 *)family,
                                        FC_WEIGHT, FcTypeInteger, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR,
                                        FC_SLANT, FcTypeInteger, italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN, (char *)NULL);
    if (!pattern) return NULL;
    FcConfigSubstitute(NULL, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    FcResult result;
    FcPattern *match = FcFontMatch(NULL, pattern, &result);
    FcPatternDestroy(pattern);
    if (!match) return NULL;
    FcChar8 *file = NULL, *found = NULL;
    fz_buffer *buf = NULL;
    int weight = 0, slant = 0;
    FcPatternGetInteger(match, FC_WEIGHT, 0, &weight);
    FcPatternGetInteger(match, FC_SLANT, 0, &slant);
    int styled = (!bold || weight >= FC_WEIGHT_DEMIBOLD) && (!italic || slant != FC_SLANT_ROMAN);
    if (FcPatternGetString(match, FC_FAMILY, 0, &found) == FcResultMatch && !strcasecmp((const char *)found, family) && styled
        && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch) {
        buf = read_face(ctx, (const char *)file);
    }
    FcPatternDestroy(match);
    return buf;
}

int folio_faces(fz_context *ctx, const char *family, fz_buffer *faces[4]) {
    for (int f = 0; f < 4; f++) faces[f] = family && *family ? face_file(ctx, family, f & 1, f >> 1 & 1) : NULL;
    return faces[0] != NULL;
}
