// A markup file's text walked outside its tags: its characters counted, a chapter's text gathered.
// Does not parse markup into a tree, nor check its depth (hostile.c).
#include "bridge.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: text outside tags

/// Whether the `n` bytes at `s` start with `word`, letters in any case.
int fb_starts_with(const unsigned char *s, size_t n, const char *word) {
    size_t k = strlen(word);
    return n >= k && strncasecmp((const char *)s, word, k) == 0;
}

/// A piece of a markup file's text (`markup_text`): `n` bytes of characters at `s`, or an
/// entity's name between `&` and `;` (`entity`).
typedef void (*text_piece)(void *user, const unsigned char *s, size_t n, int entity);

/// Hands `take` what lies outside tags, comments and the `head`, `style` and `script` elements
/// (and MathML's annotations, which a page leaves out: mathml.c) of `n` bytes of markup, in
/// order: runs of characters (a CDATA section's among them) and entities (a lone `&` is a
/// character).
static void markup_text(const unsigned char *s, size_t n, text_piece take, void *user) {
    static const char *hidden[] = {"head", "style", "script", "annotation"};
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '<') {
            if (fb_starts_with(s + i, n - i, "<![CDATA[")) {
                size_t j = i + 9;
                while (j < n && !fb_starts_with(s + j, n - j, "]]>")) j++;
                take(user, s + i + 9, j - i - 9, 0);
                i = j + 3;
                continue;
            }
            const char *skip = NULL;
            if (fb_starts_with(s + i, n - i, "<!--")) skip = "-->";
            for (size_t h = 0; h < sizeof hidden / sizeof *hidden && !skip; h++) {
                size_t k = strlen(hidden[h]);
                if (fb_starts_with(s + i + 1, n - i - 1, hidden[h]) && i + 1 + k < n && !isalnum(s[i + 1 + k])) skip = hidden[h];
            }
            size_t j = i + 1;
            if (skip && skip[0] == '-') {
                while (j < n && !fb_starts_with(s + j, n - j, "-->")) j++;
            } else if (skip) {
                while (j < n && s[j] != '>') j++;
                // An element not closed by its start tag: to its end tag.
                if (j < n && s[j - 1] != '/')
                    while (j < n && !(s[j] == '<' && j + 1 < n && s[j + 1] == '/' && fb_starts_with(s + j + 2, n - j - 2, skip))) j++;
            }
            while (j < n && s[j] != '>') j++;
            // A tag parts words (`<br/>`, a paragraph's end).
            take(user, (const unsigned char *)" ", 1, 0);
            i = j + 1;
        } else if (c == '&') {
            size_t j = i + 1;
            while (j < n && j < i + 12 && s[j] != ';' && s[j] != '<') j++;
            if (j < n && s[j] == ';') {
                take(user, s + i + 1, j - i - 1, 1);
                i = j + 1;
            } else {
                take(user, s + i, 1, 0);
                i++;
            }
        } else {
            size_t j = i;
            while (j < n && s[j] != '<' && s[j] != '&') j++;
            take(user, s + i, j - i, 0);
            i = j;
        }
    }
}

static void count_piece(void *user, const unsigned char *s, size_t n, int entity) {
    size_t *count = user;
    if (entity) {
        (*count)++;
        return;
    }
    // Not white space, not a UTF-8 continuation byte.
    for (size_t i = 0; i < n; i++)
        if (s[i] > ' ' && (s[i] & 0xC0) != 0x80) (*count)++;
}

/// The characters of text in `n` bytes of markup (`markup_text`), white space left out, an
/// entity one character. A chapter's markup may be mostly tags (a `span` a word): its text, not
/// its bytes, fills pages.
size_t fb_text_characters(const unsigned char *s, size_t n) {
    size_t count = 0;
    markup_text(s, n, count_piece, &count);
    return count;
}

// MARK: a chapter's text

/// Whether MuPDF's chapters are the spine's items (`spine_is_chapters`), counted once: MuPDF
/// walks its list of chapters to count them. Under the document's mutex.
int fb_chapters_are_spine(fz_context *ctx, folio_mu_doc *d) {
    if (!d->spine_is_chapters) d->spine_is_chapters = d->spine_count && fz_count_chapters(ctx, d->doc) == d->spine_count ? 1 : -1;
    return d->spine_is_chapters > 0;
}

/// A chapter's text being gathered (`folio_mu_chapter_markup_text`); `unknown` once an entity is
/// met that may stand for a letter and is not read here.
typedef struct { fz_context *ctx; fz_buffer *out; int unknown; } gathered_text;

static void gather_piece(void *user, const unsigned char *s, size_t n, int entity) {
    gathered_text *g = user;
    if (!entity) {
        fz_append_data(g->ctx, g->out, s, n);
        return;
    }
    // Entities of marks and spaces, read as a space: only letters are compared.
    static const char *spaces[] = {"nbsp", "ensp", "emsp", "thinsp", "shy", "zwj", "zwnj", "mdash", "ndash", "hellip",
                                   "lsquo", "rsquo", "ldquo", "rdquo", "sbquo", "bdquo", "laquo", "raquo", "copy", "reg",
                                   "trade", "middot", "bull", "dagger", "Dagger", "sect", "para", "deg", "times", "divide",
                                   "minus", "prime", "Prime", "quot", "apos", "amp", "lt", "gt"};
    char name[16] = "";
    if (n >= sizeof name) { g->unknown = 1; return; }
    memcpy(name, s, n);
    if (name[0] == '#') {
        long c = name[1] == 'x' || name[1] == 'X' ? strtol(name + 2, NULL, 16) : strtol(name + 1, NULL, 10);
        if (c > 0 && c <= 0x10FFFF) fz_append_rune(g->ctx, g->out, (int)c);
        return;
    }
    for (size_t k = 0; k < sizeof spaces / sizeof *spaces; k++)
        if (!strcmp(name, spaces[k])) { fz_append_byte(g->ctx, g->out, ' '); return; }
    g->unknown = 1;
}

char *folio_mu_chapter_markup_text(folio_mu_doc *d, int chapter, size_t *length) {
    char *text = NULL;
    *length = 0;
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_buffer *markup = NULL;
    gathered_text g = {ctx, NULL, 0};
    fz_var(markup);
    fz_var(text);
    fz_try(ctx) {
        // MuPDF's chapters are the spine's items only where it counts as many.
        if (chapter >= 0 && chapter < d->spine_count && d->spine_names && d->spine_names[chapter] && fb_chapters_are_spine(ctx, d)) {
            if (!d->text_archive) d->text_archive = fb_open_book_archive(ctx, d);
            markup = fz_read_archive_entry(ctx, d->text_archive, d->spine_names[chapter]);
            unsigned char *data;
            size_t n = fz_buffer_storage(ctx, markup, &data);
            g.out = fz_new_buffer(ctx, n / 2 + 16);
            // A picture in the spine has no text.
            if (fb_markup_entry(ctx, markup)) markup_text(data, n, gather_piece, &g);
            n = fz_buffer_storage(ctx, g.out, &data);
            if (!g.unknown && (text = malloc(n + 1))) {
                memcpy(text, data, n);
                text[n] = 0;
                *length = n;
            }
        }
    }
    fz_always(ctx) {
        fz_drop_buffer(ctx, markup);
        fz_drop_buffer(ctx, g.out);
    }
    fz_catch(ctx) {
        free(text);
        text = NULL;
    }
    pthread_mutex_unlock(&d->mutex);
    return text;
}
