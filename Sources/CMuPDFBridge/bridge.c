#include "MuPDFBridge.h"
#include "typeset.h"
#include <mupdf/fitz.h>
#include <ctype.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/// A page break of an EPUB's print edition (its navigation's `page-list`): the spine item it
/// lies in, where it points, the printed page's label, and the page it falls on in this layout
/// (-2: not looked for yet, -1: not found) and how far down it (points).
struct page_mark { int chapter; char *target; char *label; int page; float y; };

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
    /// Characters of each spine item's text (an EPUB's chapters, in MuPDF's order), for
    /// estimating the pages of chapters not laid out yet; `spine_count` 0 when unknown.
    size_t *spine_text;
    int spine_count;
    /// Each spine item's archive entry (malloc'd; NULL where unknown), and the book's archive
    /// opened again to read their text (`folio_mu_chapter_markup_text`) once asked.
    char **spine_names;
    fz_archive *text_archive;
    /// Whether MuPDF's chapters are the spine's items, one for one (0: not looked at yet, 1 yes,
    /// -1 no): only then does a spine item's text or page break belong to a chapter.
    int spine_is_chapters;
    /// An EPUB's page list (its print edition's page breaks: `folio_mu_printed_label`), read once.
    struct page_mark *marks;
    int mark_count, marks_read;
    /// An EPUB's package file (its OPF), or NULL.
    char *opf_path;
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

static void fail(folio_mu_error *error, const char *message) {
    if (error) snprintf(error->message, sizeof error->message, "%s", message ? message : "unknown error");
}

// MARK: page numbers

/// Counts chapters' pages (laying them out, as MuPDF does to number a page) until page `index`
/// or chapter `chapter` is counted, or the book ends. Under the document's mutex.
static void count_through(fz_context *ctx, folio_mu_doc *d, int index, int chapter) {
    if (!d->starts) {
        d->chapters = fz_count_chapters(ctx, d->doc);
        d->starts = fz_malloc(ctx, 16 * sizeof *d->starts);
        d->starts_capacity = 16;
        d->starts[0] = 0;
        d->counted = 0;
    }
    while (d->counted < d->chapters && (d->starts[d->counted] <= index || d->counted <= chapter)) {
        int n = fz_count_chapter_pages(ctx, d->doc, d->counted);
        if (d->counted + 1 >= d->starts_capacity) {
            d->starts = fz_realloc(ctx, d->starts, (size_t)d->starts_capacity * 2 * sizeof *d->starts);
            d->starts_capacity *= 2;
        }
        d->starts[d->counted + 1] = d->starts[d->counted] + (n > 0 ? n : 0);
        d->counted++;
    }
}

/// Page `index`'s chapter and place in it (MuPDF's fz_location_from_page_number, without its
/// walk of the chapters for each chapter); throws for a page past the end.
static fz_location page_location(fz_context *ctx, folio_mu_doc *d, int index) {
    count_through(ctx, d, index, -1);
    if (index < 0 || index >= d->starts[d->counted]) fz_throw(ctx, FZ_ERROR_GENERIC, "invalid page number: %d", index + 1);
    // The last chapter starting at or before the page (chapters of no pages are passed over).
    int lo = 0, hi = d->counted - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (d->starts[mid] <= index) lo = mid; else hi = mid - 1;
    }
    return fz_make_location(lo, index - d->starts[lo]);
}

/// The page number of `at` (MuPDF's fz_page_number_from_location), or -1.
static int page_number(fz_context *ctx, folio_mu_doc *d, fz_location at) {
    if (at.chapter < 0) return -1;
    count_through(ctx, d, -1, at.chapter);
    return at.chapter < d->counted ? d->starts[at.chapter] + at.page : -1;
}

/// Page `index`, loaded by its chapter and place.
static fz_page *load_page(fz_context *ctx, folio_mu_doc *d, int index) {
    fz_location at = page_location(ctx, d, index);
    return fz_load_chapter_page(ctx, d->doc, at.chapter, at.page);
}

/// A context of this document's family for the calling thread (NULL if memory is out).
static fz_context *thread_context(folio_mu_doc *d, folio_mu_error *error) {
    fz_context *ctx = fz_clone_context(d->ctx);
    if (!ctx) { fail(error, "out of memory"); return NULL; }
    fz_set_warning_callback(ctx, quiet, NULL);
    fz_set_error_callback(ctx, quiet, NULL);
    return ctx;
}

// MARK: the package (EPUB's OPF and DRM files)

static fz_xml *entry_xml(fz_context *ctx, fz_archive *arch, const char *name) {
    if (!fz_has_archive_entry(ctx, arch, name)) return NULL;
    fz_buffer *buf = fz_read_archive_entry(ctx, arch, name);
    fz_xml *xml = NULL;
    fz_try(ctx) xml = fz_parse_xml(ctx, buf, 0);
    fz_always(ctx) fz_drop_buffer(ctx, buf);
    fz_catch(ctx) fz_rethrow(ctx);
    return xml;
}

/// Whether an encryption method is only the font obfuscation EPUB allows (not DRM).
static int font_obfuscation(const char *algorithm) {
    return algorithm && (!strcmp(algorithm, "http://www.idpf.org/2008/embedding")
                         || !strcmp(algorithm, "http://ns.adobe.com/pdf/enc#RC"));
}

// MARK: markup depth

static int starts_with(const unsigned char *s, size_t n, const char *word);

// MuPDF builds, lays out and frees its trees recursively, so markup nesting elements too deep
// must not reach its parsers. It reads a chapter as XML and, when that fails, as HTML (gumbo):
// a file passes when neither reading, each counted on the raw bytes, nests deeper than
// `folio_mu_max_depth`; when one does, MuPDF's XML parser (which does not recurse) says which
// reading applies.

/// The index after the first `end` at or after `i` (`n` when there is none).
static size_t skip_past(const unsigned char *s, size_t n, size_t i, const char *end) {
    size_t k = strlen(end);
    for (; i + k <= n; i++)
        if (!memcmp(s + i, end, k)) return i + k;
    return n;
}

static int white(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

/// Reads a tag from its name at `i` to its `>`: the name (lower case, cut to 15 bytes) into
/// `name`, whether it ends `/>` into `empty`; attribute values in quotes may hold `>` and `/>`.
/// Returns the index after the tag.
static size_t read_tag(const unsigned char *s, size_t n, size_t i, char name[16], int *empty) {
    size_t k = 0;
    while (i < n && white(s[i])) i++;
    for (; i < n && !white(s[i]) && s[i] != '>' && s[i] != '/'; i++)
        if (k < 15) name[k++] = (char)tolower(s[i]);
    name[k] = 0;
    *empty = 0;
    while (i < n) {
        if (s[i] == '>') return i + 1;
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '>') { *empty = 1; return i + 2; }
        if (s[i] == '=') {
            i++;
            while (i < n && white(s[i])) i++;
            if (i < n && (s[i] == '"' || s[i] == '\'')) {
                unsigned char quote = s[i++];
                while (i < n && s[i] != quote) i++;
            }
            if (i < n && s[i] != '>') i++;
        } else {
            i++;
        }
    }
    return n;
}

/// Whether the XML reading (MuPDF's parser: every closing tag closes one element, comments end
/// at `-->`, CDATA at `]]>`) nests too deep.
static int xml_too_deep(const unsigned char *s, size_t n) {
    int depth = 0;
    size_t i = 0;
    while (i < n) {
        if (s[i++] != '<' || i >= n) continue;
        char name[16];
        int empty;
        if (s[i] == '/') { if (depth > 0) depth--; i = skip_past(s, n, i, ">"); }
        else if (s[i] == '?') i = skip_past(s, n, i, "?>");
        else if (starts_with(s + i, n - i, "!--")) i = skip_past(s, n, i + 3, "-->");
        else if (starts_with(s + i, n - i, "![CDATA[")) i = skip_past(s, n, i, "]]>");
        else if (s[i] == '!') i = skip_past(s, n, i, ">");
        else {
            i = read_tag(s, n, i, name, &empty);
            if (!empty && ++depth > folio_mu_max_depth) return 1;
        }
    }
    return 0;
}

/// What the HTML reading does with an element (the HTML standard's tree construction, as
/// far as it decides how deep a tree goes).
enum {
    element_void = 1,        ///< never holds others
    element_raw = 2,         ///< holds text only, up to its closing tag
    element_formatting = 4,  ///< reopened in later blocks until closed by name
    element_special = 8,     ///< a closing tag of another name does not reach past it
    element_closes_p = 16,   ///< closes an open `p`
};

static int element_kind(const char *name) {
    static const struct { const char *name; int kind; } kinds[] = {
        {"area", 1 | 8}, {"base", 1 | 8}, {"basefont", 1 | 8}, {"bgsound", 1 | 8}, {"br", 1 | 8}, {"col", 1 | 8},
        {"embed", 1 | 8}, {"frame", 1 | 8}, {"hr", 1 | 8 | 16}, {"image", 1}, {"img", 1 | 8}, {"input", 1 | 8},
        {"keygen", 1}, {"link", 1 | 8}, {"meta", 1 | 8}, {"param", 1 | 8}, {"source", 1 | 8}, {"track", 1 | 8},
        {"wbr", 1 | 8},
        {"script", 2 | 8}, {"style", 2 | 8}, {"xmp", 2 | 8 | 16}, {"iframe", 2 | 8}, {"noembed", 2 | 8},
        {"noframes", 2 | 8}, {"textarea", 2 | 8}, {"title", 2 | 8}, {"plaintext", 2 | 8 | 16},
        {"a", 4}, {"b", 4}, {"big", 4}, {"code", 4}, {"em", 4}, {"font", 4}, {"i", 4}, {"nobr", 4}, {"s", 4},
        {"small", 4}, {"strike", 4}, {"strong", 4}, {"tt", 4}, {"u", 4},
        {"address", 8 | 16}, {"article", 8 | 16}, {"aside", 8 | 16}, {"blockquote", 8 | 16}, {"center", 8 | 16},
        {"details", 8 | 16}, {"dialog", 16}, {"dir", 8 | 16}, {"div", 8 | 16}, {"dl", 8 | 16}, {"fieldset", 8 | 16},
        {"figcaption", 8 | 16}, {"figure", 8 | 16}, {"footer", 8 | 16}, {"form", 8 | 16}, {"h1", 8 | 16},
        {"h2", 8 | 16}, {"h3", 8 | 16}, {"h4", 8 | 16}, {"h5", 8 | 16}, {"h6", 8 | 16}, {"header", 8 | 16},
        {"hgroup", 8 | 16}, {"listing", 8 | 16}, {"main", 8 | 16}, {"menu", 8 | 16}, {"nav", 8 | 16}, {"ol", 8 | 16},
        {"p", 8 | 16}, {"pre", 8 | 16}, {"section", 8 | 16}, {"summary", 8 | 16}, {"table", 8 | 16}, {"ul", 8 | 16},
        {"li", 8 | 16}, {"dd", 8 | 16}, {"dt", 8 | 16},
        {"applet", 8}, {"body", 8}, {"button", 8}, {"caption", 8}, {"colgroup", 8}, {"head", 8}, {"html", 8},
        {"marquee", 8}, {"noscript", 8}, {"object", 8}, {"select", 8}, {"tbody", 8}, {"td", 8}, {"template", 8},
        {"tfoot", 8}, {"th", 8}, {"thead", 8}, {"tr", 8},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(name, kinds[i].name)) return kinds[i].kind;
    return 0;
}

/// Whether `name` is one of the space-separated names in `list`.
static int named(const char *name, const char *list) {
    size_t k = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += k)
        if ((p == list || p[-1] == ' ') && (p[k] == ' ' || !p[k])) return 1;
    return 0;
}

typedef struct { char name[16]; int kind; } open_element;

/// The open element nearest the top of `stack` named in `names`, searched down to one named in
/// `bounds`: its index, or -1.
static int open_named(const open_element *stack, int top, const char *names, const char *bounds) {
    for (int k = top - 1; k >= 0; k--) {
        if (named(stack[k].name, names)) return k;
        if (named(stack[k].name, bounds)) return -1;
    }
    return -1;
}

/// Whether the HTML reading nests too deep: the elements open (closed by name, by the start of
/// a block that closes them, as `p`, `li` and table cells are, or not at all: void elements)
/// plus the formatting elements still to be reopened in the blocks that follow (at most three
/// alike, as the HTML standard keeps them).
static int html_too_deep(const unsigned char *s, size_t n) {
    enum { max = folio_mu_max_depth + 1 };
    open_element *stack = malloc(max * sizeof *stack);
    struct { char name[16]; uint32_t hash; } *active = malloc(max * sizeof *active);
    int top = 0, formatting = 0, deep = 0;
    size_t i = 0;
    if (!stack || !active) deep = 1;
    while (!deep && i < n) {
        if (s[i++] != '<' || i >= n) continue;
        if (starts_with(s + i, n - i, "!--")) {
            // A comment ends at the first "-->" or "--!>"; "<!-->" and "<!--->" are whole ones.
            size_t a = skip_past(s, n, i + 1, "-->"), b = skip_past(s, n, i + 1, "--!>");
            i = a < b ? a : b;
            continue;
        }
        if (s[i] == '!' || s[i] == '?') { i = skip_past(s, n, i, ">"); continue; }
        int closing = s[i] == '/';
        if (i + closing >= n || !isalpha(s[i + closing])) { if (closing) i = skip_past(s, n, i, ">"); continue; }
        char name[16];
        int empty;
        size_t start = i + closing;
        i = read_tag(s, n, start, name, &empty);
        int kind = element_kind(name);
        if (closing) {
            int at = -1;
            if (kind & element_formatting)
                for (int k = formatting - 1; k >= 0; k--)
                    if (!strcmp(active[k].name, name)) { memmove(active + k, active + k + 1, (size_t)(formatting - k - 1) * sizeof *active); formatting--; break; }
            for (int k = top - 1; k >= 0 && at < 0; k--) {
                if (!strcmp(stack[k].name, name)) at = k;
                else if (!(kind & (element_special | element_formatting)) && (stack[k].kind & element_special)) break;
            }
            if (at >= 0) top = at;
            continue;
        }
        if (kind & element_void || named(name, "html head body")) continue;
        if (kind & element_raw) {
            // To its closing tag, in any case.
            size_t k = strlen(name);
            while (i < n && !(s[i] == '<' && i + 2 + k <= n && s[i + 1] == '/' && !strncasecmp((const char *)s + i + 2, name, k))) i++;
            continue;
        }
        int at = -1;
        if (kind & element_closes_p) at = open_named(stack, top, "p", "applet caption html table td th marquee object template button");
        if (at >= 0) top = at;
        if (!strcmp(name, "li")) at = open_named(stack, top, "li", "ul ol table");
        else if (named(name, "dd dt")) at = open_named(stack, top, "dd dt", "dl table");
        else if (named(name, "td th")) at = open_named(stack, top, "td th", "tr table");
        else if (!strcmp(name, "tr")) at = open_named(stack, top, "tr", "table");
        else if (named(name, "tbody thead tfoot")) at = open_named(stack, top, "tbody thead tfoot", "table");
        else if (named(name, "option optgroup")) at = open_named(stack, top, "option", "select");
        else if (name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && !name[2]) at = open_named(stack, top, "h1 h2 h3 h4 h5 h6", "");
        if (at >= 0) top = at;
        if (kind & element_formatting) {
            uint32_t hash = 2166136261u;
            for (size_t k = start; k < i; k++) hash = (hash ^ s[k]) * 16777619u;
            int link = !strcmp(name, "a"), alike = 0, first = -1;
            for (int k = 0; k < formatting; k++)
                if (link ? !strcmp(active[k].name, "a") : active[k].hash == hash) {
                    if (first < 0) first = k;
                    alike++;
                }
            // A link closes the one before it; a fourth formatting element alike drops the first.
            if (first >= 0 && (link || alike >= 3)) {
                memmove(active + first, active + first + 1, (size_t)(formatting - first - 1) * sizeof *active);
                formatting--;
            }
            if (link && (at = open_named(stack, top, "a", "")) >= 0) top = at;
            if (formatting < max) { snprintf(active[formatting].name, 16, "%s", name); active[formatting++].hash = hash; }
        }
        if (top + formatting >= max) { deep = 1; break; }
        snprintf(stack[top].name, 16, "%s", name);
        stack[top++].kind = kind;
    }
    free(stack);
    free(active);
    return deep;
}

/// Whether a parsed tree nests deeper than `folio_mu_max_depth` (walked without recursion).
static int tree_too_deep(fz_xml *xml) {
    int depth = 0;
    for (fz_xml *x = fz_xml_root(xml); x;) {
        fz_xml *down = fz_xml_down(x);
        if (down) {
            x = down;
            if (++depth > folio_mu_max_depth) return 1;
            continue;
        }
        while (depth > 0 && !fz_xml_next(x)) { x = fz_xml_up(x); depth--; }
        x = depth > 0 ? fz_xml_next(x) : NULL;
    }
    return 0;
}

/// How MuPDF reads a markup file: as XML, then as HTML when that fails (chapters, XHTML, MOBI
/// text, and whatever else an archive holds), or as HTML alone (.html files).
enum { read_either, read_html };

/// Whether markup nests too deep in the reading MuPDF takes. UTF-16 is counted in its low
/// bytes (tags are ASCII), as far as MuPDF reads: to the first NUL.
static int too_deep(fz_context *ctx, fz_buffer *buf, int reading) {
    unsigned char *data;
    size_t n = fz_buffer_storage(ctx, buf, &data);
    unsigned char *narrow = NULL;
    if (n >= 2 && ((data[0] == 0xFE && data[1] == 0xFF) || (data[0] == 0xFF && data[1] == 0xFE))) {
        int low = data[0] == 0xFF;
        narrow = fz_malloc(ctx, n / 2);
        for (size_t i = 1; i < n / 2; i++) {
            unsigned c = low ? data[2 * i] | data[2 * i + 1] << 8 : data[2 * i] << 8 | data[2 * i + 1];
            narrow[i - 1] = c < 0x80 ? (unsigned char)c : 'x';
        }
        data = narrow;
        n = n / 2 - 1;
    }
    // MuPDF's parsers read up to the first NUL (its XML parser, and gumbo given `strlen`):
    // what follows one (in a font, a sound) is never markup to them.
    const unsigned char *nul = memchr(data, 0, n);
    if (nul) n = (size_t)(nul - data);
    int xml = reading == read_either && xml_too_deep(data, n);
    int html = html_too_deep(data, n);
    fz_free(ctx, narrow);
    if (!xml && !html) return 0;
    if (reading == read_html) return 1;
    fz_xml *tree = NULL;
    int deep = 1;
    fz_var(tree);
    fz_try(ctx) {
        tree = fz_parse_xml(ctx, buf, 1);
        deep = tree_too_deep(tree);
    }
    fz_always(ctx) fz_drop_xml(ctx, tree);
    fz_catch(ctx) deep = fz_caught(ctx) == FZ_ERROR_SYNTAX ? html : 1;
    return deep;
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/// Copies `n` bytes of text into `out` (of `size`), cut at a character boundary.
static void copy_text(char *out, size_t size, const unsigned char *text, size_t n) {
    if (n >= size) {
        n = size - 1;
        while (n > 0 && (text[n] & 0xC0) == 0x80) n--;  // not inside a UTF-8 sequence
    }
    memcpy(out, text, n);
    out[n] = 0;
}

/// A MOBI/AZW3 book's title and author from its first record (the Palm database header
/// points at it): the EXTH records 503 (title) and 100 (author), else the header's full name.
/// Everything is bounds-checked against the bytes read; a damaged header gives nothing.
static void read_mobi_header(fz_context *ctx, const char *path, folio_mu_info *info) {
    enum { limit = 1 << 20 };
    fz_stream *file = NULL;
    unsigned char *d = NULL;
    fz_var(file); fz_var(d);
    fz_try(ctx) {
        file = fz_open_file(ctx, path);
        d = fz_malloc(ctx, limit);
        size_t n = fz_read(ctx, file, d, limit);
        if (n < 82 || memcmp(d + 60, "BOOKMOBI", 8)) break;
        size_t r0 = be32(d + 78);
        if (r0 > n || n - r0 < 132 || memcmp(d + r0 + 16, "MOBI", 4)) break;
        size_t name_at = r0 + be32(d + r0 + 84), name_len = be32(d + r0 + 88);
        if (name_at <= n && name_len <= n - name_at) copy_text(info->mobi_title, sizeof info->mobi_title, d + name_at, name_len);
        size_t header = be32(d + r0 + 20);
        if (!(be32(d + r0 + 128) & 0x40) || header > n - r0 - 16) break;
        size_t e = r0 + 16 + header;
        if (n - e < 12 || memcmp(d + e, "EXTH", 4)) break;
        size_t p = e + 12, end = e + be32(d + e + 4);
        if (end > n) end = n;
        for (uint32_t i = 0, count = be32(d + e + 8); i < count && p + 8 <= end; i++) {
            uint32_t type = be32(d + p), len = be32(d + p + 4);
            if (len < 8 || len > end - p) break;
            if (type == 503) copy_text(info->mobi_title, sizeof info->mobi_title, d + p + 8, len - 8);
            if (type == 100) copy_text(info->mobi_author, sizeof info->mobi_author, d + p + 8, len - 8);
            p += len;
        }
    }
    fz_always(ctx) {
        fz_free(ctx, d);
        fz_drop_stream(ctx, file);
    }
    fz_catch(ctx) { /* unreadable: MuPDF says why when it opens the file */ }
}

/// Whether MuPDF reads a file as a Palm database (MOBI): by its name, or by its type whatever
/// the name.
static int palm_database(const char *path, const unsigned char *d, size_t n) {
    const char *dot = strrchr(path, '.');
    if (dot && (!fz_strcasecmp(dot, ".mobi") || !fz_strcasecmp(dot, ".prc") || !fz_strcasecmp(dot, ".pdb")
                || !fz_strcasecmp(dot, ".azw") || !fz_strcasecmp(dot, ".azw3")))
        return 1;
    return n >= 68 && (!memcmp(d + 60, "BOOKMOBI", 8) || !memcmp(d + 60, "TEXtREAd", 8));
}

/// PalmDOC-decompresses the bytes from `p` into `out` until it holds `end` bytes, as MuPDF
/// does (mobi.c: past the record's end if need be).
static void palmdoc(fz_context *ctx, fz_buffer *out, const unsigned char *d, size_t n, size_t p, size_t end) {
    while (out->len < end && p < n) {
        unsigned c = d[p++];
        if (c >= 1 && c <= 8) {
            size_t k = c < n - p ? c : n - p;
            fz_append_data(ctx, out, d + p, k);
            p += k;
        } else if (c <= 0x7f) {
            fz_append_byte(ctx, out, (int)c);
        } else if (c <= 0xbf) {
            if (p >= n) break;
            unsigned x = c << 8 | d[p++];
            size_t distance = x >> 3 & 0x7ff, length = (x & 7) + 3;
            if (distance > 0 && distance <= out->len)
                for (size_t k = 0; k < length; k++) fz_append_byte(ctx, out, out->data[out->len - distance]);
        } else {
            fz_append_byte(ctx, out, ' ');
            fz_append_byte(ctx, out, (int)(c ^ 0x80));
        }
    }
}

/// A MOBI's record table, which MuPDF follows unchecked (mobi.c reads each record at the
/// offset the table gives): every record must start within the file, none before the one
/// before it; `info->refused` says which does not. Then its text, which MuPDF parses as
/// markup, is checked for depth.
static void check_mobi(fz_context *ctx, fz_buffer *file, folio_mu_info *info) {
    unsigned char *d;
    size_t n = fz_buffer_storage(ctx, file, &d);
    if (n < 78) return;  // MuPDF finds it cut short
    uint32_t count = (uint32_t)d[76] << 8 | d[77], previous = 0;
    if (78 + 8 * (size_t)count > n) {
        snprintf(info->refused, sizeof info->refused, "its record table (%u records) runs past the end of the file; not opened", count);
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t at = be32(d + 78 + 8 * i);
        if (at > n) {
            snprintf(info->refused, sizeof info->refused,
                     "record %u starts at byte %u, past the end of the file (%zu bytes); not opened", i, at, n);
            return;
        }
        if (at < previous) {
            snprintf(info->refused, sizeof info->refused, "record %u starts before record %u; not opened", i, i - 1);
            return;
        }
        previous = at;
    }
    size_t r0 = count ? be32(d + 78) : n;
    if (count < 2 || n - r0 < 16) return;
    unsigned compression = (unsigned)d[r0] << 8 | d[r0 + 1];
    uint32_t length = be32(d + r0 + 4), records = (uint32_t)d[r0 + 8] << 8 | d[r0 + 9];
    if (compression != 1 && compression != 2) return;  // MuPDF refuses it
    fz_buffer *out = fz_new_buffer(ctx, 1 << 16);
    fz_try(ctx) {
        for (uint32_t i = 1; i <= records && i < count; i++) {
            uint32_t remain = length - (uint32_t)out->len;
            size_t p = be32(d + 78 + 8 * i), end = out->len + (remain < 4096 ? remain : 4096);
            if (compression == 2) palmdoc(ctx, out, d, n, p, end);
            else fz_append_data(ctx, out, d + p, end - out->len < n - p ? end - out->len : n - p);
        }
        // MuPDF escapes the text of a plain-text database (TEXtREAd, or of an unknown type).
        int markup = !memcmp(d + 60, "BOOKMOBI", 8) || (out->len > 6 && !fz_strncasecmp((const char *)out->data, "<html>", 6));
        if (markup && too_deep(ctx, out, read_either)) snprintf(info->too_deep, sizeof info->too_deep, "the text");
    }
    fz_always(ctx) fz_drop_buffer(ctx, out);
    fz_catch(ctx) fz_rethrow(ctx);
}

/// Whether an archive entry may be markup: any but those that start as an image or a font does.
static int markup_entry(fz_context *ctx, fz_buffer *buf) {
    unsigned char *head;
    size_t n = fz_buffer_storage(ctx, buf, &head);
    if (n < 8) return n > 0;
    return !(fz_recognize_image_format(ctx, head) || !memcmp(head, "OTTO", 4) || !memcmp(head, "\0\1\0\0", 4)
             || !memcmp(head, "wOFF", 4) || !memcmp(head, "wOF2", 4) || !memcmp(head, "true", 4));
}

/// The characters of text of each markup entry of an archive (`text_characters`), by name
/// (sorted as MuPDF matches names, case aside): `check_depth` reads each entry once and
/// `read_spine_text` finds its chapters here, for MuPDF finds an entry by a linear search of the
/// archive's names (a book of 10,000 chapters read that way took minutes).
typedef struct { char *name; size_t text; } entry_text;
typedef struct { entry_text *entries; int count; } entry_texts;

static size_t text_characters(const unsigned char *s, size_t n);

static int by_name(const void *a, const void *b) { return fz_strcasecmp(((const entry_text *)a)->name, ((const entry_text *)b)->name); }

static void drop_entry_texts(fz_context *ctx, entry_texts *texts) {
    for (int i = 0; i < texts->count; i++) fz_free(ctx, texts->entries[i].name);
    fz_free(ctx, texts->entries);
}

/// Whether an archive entry is a stylesheet or a script by its name, which MuPDF does not parse
/// as markup unless the spine lists it (`read_spine_text` scans it then): a script's `i<n`
/// would count as elements opened. A name holding ".svg" is read as a picture whatever it ends in.
static int style_or_script(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot && (!fz_strcasecmp(dot, ".css") || !fz_strcasecmp(dot, ".js")) && !strstr(name, ".svg");
}

/// Whether a file is one MuPDF reads as HTML alone (not XML first).
static int html_name(const char *path) {
    const char *dot = strrchr(path, '.');
    return dot && (!fz_strcasecmp(dot, ".html") || !fz_strcasecmp(dot, ".htm"));
}

/// Before MuPDF parses anything: names in `info->too_deep` the first markup that nests too
/// deep (any entry of an archive whatever its name, images, fonts, stylesheets and scripts
/// aside; a file of markup; a MOBI's text), and says in `info->refused` why a book is not opened
/// at all (a MOBI's records outside the file, more archive entries than `folio_mu_max_entries`).
/// A PDF is not markup.
/// An archive's markup entries' characters of text go into `texts`, sorted by name.
static void check_depth(fz_context *ctx, const char *path, fz_archive *arch, folio_mu_info *info, entry_texts *texts) {
    if (!arch) {
        unsigned char head[1024];
        size_t got = 0;
        fz_stream *stm = fz_open_file(ctx, path);
        fz_try(ctx) got = fz_read(ctx, stm, head, sizeof head);
        fz_always(ctx) fz_drop_stream(ctx, stm);
        fz_catch(ctx) fz_rethrow(ctx);
        for (size_t k = 0; k + 5 <= got; k++)
            if (!memcmp(head + k, "%PDF-", 5)) return;
        fz_buffer *buf = fz_read_file(ctx, path);
        fz_try(ctx) {
            unsigned char *d;
            size_t n = fz_buffer_storage(ctx, buf, &d);
            if (palm_database(path, d, n)) check_mobi(ctx, buf, info);
            else if (too_deep(ctx, buf, html_name(path) ? read_html : read_either)) snprintf(info->too_deep, sizeof info->too_deep, "the text");
        }
        fz_always(ctx) fz_drop_buffer(ctx, buf);
        fz_catch(ctx) fz_rethrow(ctx);
        return;
    }
    int n = fz_count_archive_entries(ctx, arch);
    if (n > folio_mu_max_entries) {
        snprintf(info->refused, sizeof info->refused, "its archive holds %d files, more than %d; not opened", n, folio_mu_max_entries);
        return;
    }
    texts->entries = fz_malloc_array(ctx, n ? n : 1, entry_text);
    for (int i = 0; i < n && !info->too_deep[0]; i++) {
        const char *name = fz_list_archive_entry(ctx, arch, i);
        fz_buffer *buf = NULL;
        fz_var(buf);
        // An entry that cannot be read is passed over: MuPDF cannot parse it either.
        fz_try(ctx) {
            if (name && *name && name[strlen(name) - 1] != '/' && !style_or_script(name)) {
                buf = fz_read_archive_entry(ctx, arch, name);
                if (markup_entry(ctx, buf)) {
                    if (too_deep(ctx, buf, read_either)) snprintf(info->too_deep, sizeof info->too_deep, "%s", name);
                    unsigned char *data;
                    size_t bytes = fz_buffer_storage(ctx, buf, &data);
                    texts->entries[texts->count].text = text_characters(data, bytes);
                    texts->entries[texts->count].name = fz_strdup(ctx, name);
                    texts->count++;
                }
            }
        }
        fz_always(ctx) fz_drop_buffer(ctx, buf);
        fz_catch(ctx) { /* damaged entry */ }
    }
    qsort(texts->entries, (size_t)texts->count, sizeof *texts->entries, by_name);
}

/// Reads the package into `info`.
/// The number after `key=` in a viewport's content ("width=1200, height=1600"), or 0.
static float viewport_value(const char *content, const char *key) {
    const char *at = content ? strstr(content, key) : NULL;
    if (!at) return 0;
    at += strlen(key);
    while (*at == ' ') at++;
    if (*at++ != '=') return 0;
    float v = strtof(at, NULL);
    return v > 0 && v < 100000 ? v : 0;
}

/// The archive entry a manifest `item` names (fz_malloc'd), or NULL when it names none.
static char *item_entry(fz_context *ctx, fz_xml *item, const char *opf_path) {
    const char *href = item ? fz_xml_att(item, "href") : NULL;
    if (!href) return NULL;
    const char *slash = strrchr(opf_path, '/');
    size_t dir = slash ? (size_t)(slash - opf_path + 1) : 0, n = dir + strlen(href) + 1;
    char *name = fz_malloc(ctx, n);
    snprintf(name, n, "%.*s%s", (int)dir, opf_path, href);
    return fz_cleanname(fz_urldecode(name));
}

/// The archive entry a spine `itemref` names (fz_malloc'd), or NULL when the manifest has no
/// such item (MuPDF passes it over too).
static char *spine_entry(fz_context *ctx, fz_xml *opf, fz_xml *itemref, const char *opf_path) {
    const char *idref = fz_xml_att(itemref, "idref");
    return item_entry(ctx, idref ? fz_xml_find_dfs(opf, "item", "id", idref) : NULL, opf_path);
}

/// Whether the `n` bytes at `s` start with `word`, letters in any case.
static int starts_with(const unsigned char *s, size_t n, const char *word) {
    size_t k = strlen(word);
    return n >= k && strncasecmp((const char *)s, word, k) == 0;
}

/// A piece of a markup file's text (`markup_text`): `n` bytes of characters at `s`, or an
/// entity's name between `&` and `;` (`entity`).
typedef void (*text_piece)(void *user, const unsigned char *s, size_t n, int entity);

/// Hands `take` what lies outside tags, comments and the `head`, `style` and `script` elements
/// of `n` bytes of markup, in order: runs of characters (a CDATA section's among them) and
/// entities (a lone `&` is a character).
static void markup_text(const unsigned char *s, size_t n, text_piece take, void *user) {
    static const char *hidden[] = {"head", "style", "script"};
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '<') {
            if (starts_with(s + i, n - i, "<![CDATA[")) {
                size_t j = i + 9;
                while (j < n && !starts_with(s + j, n - j, "]]>")) j++;
                take(user, s + i + 9, j - i - 9, 0);
                i = j + 3;
                continue;
            }
            const char *skip = NULL;
            if (starts_with(s + i, n - i, "<!--")) skip = "-->";
            for (int h = 0; h < 3 && !skip; h++) {
                size_t k = strlen(hidden[h]);
                if (starts_with(s + i + 1, n - i - 1, hidden[h]) && i + 1 + k < n && !isalnum(s[i + 1 + k])) skip = hidden[h];
            }
            size_t j = i + 1;
            if (skip && skip[0] == '-') {
                while (j < n && !starts_with(s + j, n - j, "-->")) j++;
            } else if (skip) {
                while (j < n && s[j] != '>') j++;
                // An element not closed by its start tag: to its end tag.
                if (j < n && s[j - 1] != '/')
                    while (j < n && !(s[j] == '<' && j + 1 < n && s[j + 1] == '/' && starts_with(s + j + 2, n - j - 2, skip))) j++;
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
static size_t text_characters(const unsigned char *s, size_t n) {
    size_t count = 0;
    markup_text(s, n, count_piece, &count);
    return count;
}

/// A manifest item by its id, with its text's characters once read.
typedef struct { const char *id; int order; fz_xml *item; size_t text; int read; char *entry; } manifest_item;

static int by_id(const void *a, const void *b) {
    const manifest_item *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : x->order - y->order;
}

/// The first of `items` (sorted) of id `id`, or NULL.
static manifest_item *find_item(manifest_item *items, int count, const char *id) {
    int lo = 0, hi = count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(items[mid].id, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < count && !strcmp(items[lo].id, id) ? items + lo : NULL;
}

/// The characters of each spine item's text into `d` (0 for an item missing from the archive),
/// from the entries' `texts`; a spine of more than `folio_mu_max_spine` items refuses the book
/// (`info->refused`). Items are found by id in a sorted index, once however often the spine
/// lists them.
static void read_spine_text(fz_context *ctx, fz_archive *arch, const entry_texts *texts, fz_xml *opf, const char *opf_path,
                            folio_mu_doc *d, folio_mu_info *info) {
    int refs = 0, count = 0;
    for (fz_xml *x = fz_xml_find_dfs(opf, "itemref", NULL, NULL); x; x = fz_xml_find_next_dfs(x, "itemref", NULL, NULL)) refs++;
    if (refs > folio_mu_max_spine) {
        snprintf(info->refused, sizeof info->refused, "its spine lists %d items, more than %d; not opened", refs, folio_mu_max_spine);
        return;
    }
    for (fz_xml *x = fz_xml_find_dfs(opf, "item", NULL, NULL); x; x = fz_xml_find_next_dfs(x, "item", NULL, NULL)) count++;
    manifest_item *items = NULL;
    char *name = NULL;
    fz_buffer *buf = NULL;
    fz_var(items); fz_var(name); fz_var(buf);
    fz_try(ctx) {
        items = fz_malloc_array(ctx, count ? count : 1, manifest_item);
        int known = 0;
        for (fz_xml *x = fz_xml_find_dfs(opf, "item", NULL, NULL); x; x = fz_xml_find_next_dfs(x, "item", NULL, NULL)) {
            const char *id = fz_xml_att(x, "id");
            if (!id) continue;
            items[known] = (manifest_item){ id, known, x, 0, 0, NULL };
            known++;
        }
        qsort(items, (size_t)known, sizeof *items, by_id);
        d->spine_text = malloc((size_t)(refs ? refs : 1) * sizeof *d->spine_text);
        d->spine_names = calloc((size_t)(refs ? refs : 1), sizeof *d->spine_names);
        if (!d->spine_text || !d->spine_names) fz_throw(ctx, FZ_ERROR_GENERIC, "out of memory");
        for (fz_xml *itemref = fz_xml_find_dfs(opf, "itemref", NULL, NULL); itemref;
             itemref = fz_xml_find_next_dfs(itemref, "itemref", NULL, NULL)) {
            const char *idref = fz_xml_att(itemref, "idref");
            manifest_item *m = idref ? find_item(items, known, idref) : NULL;
            if (!m) continue;
            if (!m->read) {
                name = item_entry(ctx, m->item, opf_path);
                if (!name) continue;
                entry_text key = { name, 0 };
                const entry_text *found = bsearch(&key, texts->entries, (size_t)texts->count, sizeof key, by_name);
                m->text = found ? found->text : 0;
                if (style_or_script(name) && fz_has_archive_entry(ctx, arch, name)) {
                    // A chapter named as a stylesheet: `check_depth` passed it over.
                    buf = fz_read_archive_entry(ctx, arch, name);
                    if (too_deep(ctx, buf, read_either)) snprintf(info->too_deep, sizeof info->too_deep, "%s", name);
                    unsigned char *data;
                    size_t bytes = fz_buffer_storage(ctx, buf, &data);
                    m->text = text_characters(data, bytes);
                    fz_drop_buffer(ctx, buf);
                    buf = NULL;
                }
                m->entry = name;
                name = NULL;
                m->read = 1;
            }
            d->spine_names[d->spine_count] = strdup(m->entry);
            d->spine_text[d->spine_count++] = m->text;
        }
    }
    fz_always(ctx) {
        fz_drop_buffer(ctx, buf);
        fz_free(ctx, name);
        for (int i = 0; items && i < count; i++) fz_free(ctx, items[i].entry);
        fz_free(ctx, items);
    }
    fz_catch(ctx) d->spine_count = 0;
}

/// A picture's size in pixels (an SVG's view box or width and height); 0 × 0 if unknown.
static void picture_size(fz_context *ctx, fz_archive *arch, const char *name, float *width, float *height) {
    fz_buffer *buf = NULL;
    fz_xml *svg = NULL;
    fz_image *image = NULL;
    fz_var(buf); fz_var(svg); fz_var(image);
    fz_try(ctx) {
        buf = fz_read_archive_entry(ctx, arch, name);
        const char *dot = strrchr(name, '.');
        if (dot && !fz_strcasecmp(dot, ".svg")) {
            svg = fz_parse_xml(ctx, buf, 0);
            fz_xml *root = fz_xml_find(svg, "svg");
            const char *box = root ? fz_xml_att(root, "viewBox") : NULL;
            float x, y, w = 0, h = 0;
            if (!box || sscanf(box, "%f %f %f %f", &x, &y, &w, &h) != 4) {
                const char *ws = root ? fz_xml_att(root, "width") : NULL, *hs = root ? fz_xml_att(root, "height") : NULL;
                w = ws && !strchr(ws, '%') ? strtof(ws, NULL) : 0;
                h = hs && !strchr(hs, '%') ? strtof(hs, NULL) : 0;
            }
            *width = w; *height = h;
        } else {
            image = fz_new_image_from_buffer(ctx, buf);
            *width = image->w; *height = image->h;
        }
    }
    fz_always(ctx) {
        fz_drop_image(ctx, image);
        fz_drop_xml(ctx, svg);
        fz_drop_buffer(ctx, buf);
    }
    fz_catch(ctx) { *width = *height = 0; }
    if (!(*width > 0 && *width < 100000 && *height > 0 && *height < 100000)) *width = *height = 0;
}

/// A fixed-layout book's page size in CSS pixels: the OPF's `rendition:viewport`, else the
/// viewport `meta` of the first of its first spine items that has one (a reflowable note may
/// come first), or the size of the first that is a picture (a manga of pictures in its spine).
static void read_viewport(fz_context *ctx, fz_archive *arch, fz_xml *opf, const char *opf_path, folio_mu_info *info) {
    fz_xml *meta = fz_xml_find_dfs(opf, "meta", "property", "rendition:viewport");
    const char *content = meta ? fz_xml_text(fz_xml_down(meta)) : NULL;
    fz_xml *page = NULL;
    char *name = NULL;
    fz_var(page); fz_var(name);
    fz_try(ctx) {
        fz_xml *itemref = fz_xml_find_dfs(opf, "itemref", NULL, NULL);
        for (int tried = 0; !content && itemref && tried < 8; tried++, itemref = fz_xml_find_next_dfs(itemref, "itemref", NULL, NULL)) {
            fz_free(ctx, name);
            name = NULL;
            name = spine_entry(ctx, opf, itemref, opf_path);
            if (!name) continue;
            const char *idref = fz_xml_att(itemref, "idref");
            fz_xml *item = idref ? fz_xml_find_dfs(opf, "item", "id", idref) : NULL;
            const char *type = item ? fz_xml_att(item, "media-type") : NULL;
            if (type && !strncmp(type, "image/", 6)) {
                picture_size(ctx, arch, name, &info->viewport_width, &info->viewport_height);
                if (info->viewport_width > 0) break;
                continue;
            }
            fz_drop_xml(ctx, page);
            page = NULL;
            page = entry_xml(ctx, arch, name);
            fz_xml *tag = page ? fz_xml_find_dfs(page, "meta", "name", "viewport") : NULL;
            content = tag ? fz_xml_att(tag, "content") : NULL;
        }
        if (content) {
            info->viewport_width = viewport_value(content, "width");
            info->viewport_height = viewport_value(content, "height");
        }
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, page);
        fz_free(ctx, name);
    }
    fz_catch(ctx) { info->viewport_width = info->viewport_height = 0; }
}

/// Whether one of the archive's stylesheets sets text vertically (a Japanese novel's
/// `writing-mode: vertical-rl`, or EPUB 2's `-epub-writing-mode`).
static int sets_vertical(fz_context *ctx, fz_archive *arch) {
    int vertical = 0, n = fz_count_archive_entries(ctx, arch);
    for (int i = 0; i < n && !vertical; i++) {
        const char *name = fz_list_archive_entry(ctx, arch, i);
        const char *dot = name ? strrchr(name, '.') : NULL;
        if (!dot || fz_strcasecmp(dot, ".css")) continue;
        fz_buffer *css = fz_read_archive_entry(ctx, arch, name);
        const char *text = fz_string_from_buffer(ctx, css);
        for (const char *at = strstr(text, "writing-mode"); at && !vertical; at = strstr(at + 1, "writing-mode")) {
            const char *colon = strchr(at, ':');
            while (colon && (*++colon == ' ' || *colon == '\t')) {}
            vertical = colon && !strncmp(colon, "vertical", 8);
        }
        fz_drop_buffer(ctx, css);
    }
    return vertical;
}

static void read_package(fz_context *ctx, const char *path, folio_mu_info *info, folio_mu_doc *d) {
    fz_archive *arch = NULL;
    fz_xml *container = NULL, *opf = NULL, *enc = NULL;
    char *opf_path = NULL;
    entry_texts texts = { NULL, 0 };
    fz_var(arch); fz_var(container); fz_var(opf); fz_var(enc); fz_var(opf_path); fz_var(texts);
    fz_try(ctx) arch = fz_open_archive(ctx, path);
    fz_catch(ctx) arch = NULL;  // not an archive: FB2, XHTML, MOBI
    if (!arch) read_mobi_header(ctx, path, info);
    fz_try(ctx) {
        check_depth(ctx, path, arch, info, &texts);
        if (!arch) break;
        if (fz_has_archive_entry(ctx, arch, "META-INF/rights.xml")) info->encrypted = 1;
        enc = entry_xml(ctx, arch, "META-INF/encryption.xml");
        for (fz_xml *m = enc ? fz_xml_find_dfs(enc, "EncryptionMethod", NULL, NULL) : NULL; m;
             m = fz_xml_find_next_dfs(m, "EncryptionMethod", NULL, NULL))
            if (!font_obfuscation(fz_xml_att(m, "Algorithm"))) info->encrypted = 1;
        info->obfuscated_fonts = enc && !info->encrypted;
        container = entry_xml(ctx, arch, "META-INF/container.xml");
        fz_xml *root = container ? fz_xml_find_dfs(container, "rootfile", NULL, NULL) : NULL;
        const char *full = root ? fz_xml_att(root, "full-path") : NULL;
        if (full) {
            opf_path = fz_strdup(ctx, full);
            opf = entry_xml(ctx, arch, opf_path);
        }
        info->epub = opf != NULL;
        fz_xml *spine = opf ? fz_xml_find_dfs(opf, "spine", NULL, NULL) : NULL;
        const char *ppd = spine ? fz_xml_att(spine, "page-progression-direction") : NULL;
        if (ppd && !strcmp(ppd, "rtl")) info->right_to_left = 1;
        fz_xml *layout = opf ? fz_xml_find_dfs(opf, "meta", "property", "rendition:layout") : NULL;
        const char *value = layout ? fz_xml_text(fz_xml_down(layout)) : NULL;
        if (value && strstr(value, "pre-paginated")) info->pre_paginated = 1;
        if (info->pre_paginated) read_viewport(ctx, arch, opf, opf_path, info);
        fz_xml *language = opf ? fz_xml_find_dfs(opf, "language", NULL, NULL) : NULL;
        const char *lang = language ? fz_xml_text(fz_xml_down(language)) : NULL;
        if (lang) snprintf(info->language, sizeof info->language, "%s", lang);
        info->vertical = sets_vertical(ctx, arch);
        if (opf) read_spine_text(ctx, arch, &texts, opf, opf_path, d, info);
        if (opf) d->opf_path = strdup(opf_path);
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, enc);
        fz_drop_xml(ctx, container);
        fz_drop_xml(ctx, opf);
        fz_free(ctx, opf_path);
        drop_entry_texts(ctx, &texts);
        fz_drop_archive(ctx, arch);
    }
    fz_catch(ctx) { /* no package, or a damaged one: MuPDF says what when it opens the file */ }
}

/// Whether `encryption.xml` lists `name` among what it obfuscates.
static int obfuscated(fz_xml *enc, const char *name) {
    for (fz_xml *r = enc ? fz_xml_find_dfs(enc, "CipherReference", NULL, NULL) : NULL; r;
         r = fz_xml_find_next_dfs(r, "CipherReference", NULL, NULL)) {
        const char *uri = fz_xml_att(r, "URI");
        if (uri && !strcmp(uri, name)) return 1;
    }
    return 0;
}

/// What a prepared copy leaves out: META-INF/encryption.xml and the fonts it obfuscates.
static int obfuscation_entry(void *user, const char *name) {
    return !strcmp(name, "META-INF/encryption.xml") || obfuscated(user, name);
}

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

/// Sets `css` as the user stylesheet; a prepared copy (`copied`) holds the default serif's files
/// (typeset.c), declared before it.
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

/// The document from a prepared copy (typeset.c) where the book is an EPUB or FB2: its text
/// hyphenated, its root's direction kept, its picture pages given pages. MuPDF refuses every EPUB holding
/// META-INF/encryption.xml ("locked by DRM"), though EPUB's font obfuscation is no DRM: the copy
/// leaves out that file and the fonts it obfuscates (which MuPDF could not read: its own fonts
/// stand in).
static fz_document *open_prepared(fz_context *ctx, const char *path, const char *opf_path, const folio_mu_setting *setting,
                                  folio_mu_info *info, fz_buffer **kept) {
    fz_archive *arch = NULL;
    fz_xml *enc = NULL;
    fz_buffer *copy = NULL, *file = NULL;
    fz_stream *stream = NULL;
    fz_document *doc = NULL;
    folio_pattern_cache cache = {.dirs = setting ? setting->pattern_dirs : NULL};
    folio_typeset_options options = {.hyphenate = setting && setting->hyphenate && !info->pre_paginated};
    // The reader's face, for an EPUB Folio lays out (its files go into the copy).
    if (setting && setting->family && info->epub && !info->pre_paginated) info->face = folio_faces(ctx, setting->family, options.faces);
    const char *dot = strrchr(path, '.');
    int fb2 = dot && !fz_strcasecmp(dot, ".fb2");
    fz_stream *counts = NULL;
    fz_var(arch); fz_var(enc); fz_var(copy); fz_var(file); fz_var(stream); fz_var(counts);
    fz_try(ctx) {
        if (fb2) {
            file = fz_read_file(ctx, path);
            fb2_language(file, info->language, sizeof info->language);
            copy = folio_prepare_markup(ctx, file, &options, info->language, &cache);
            stream = fz_open_buffer(ctx, copy);
            doc = fz_open_document_with_stream(ctx, "application/x-fictionbook", stream);
        } else if (info->epub || info->obfuscated_fonts) {
            arch = fz_open_archive(ctx, path);
            enc = entry_xml(ctx, arch, "META-INF/encryption.xml");
            copy = folio_prepare_epub(ctx, arch, opf_path, &options, info->language, enc ? obfuscation_entry : NULL, enc, &cache);
            stream = fz_open_buffer(ctx, copy);
            // MuPDF 1.21 keeps an EPUB's page counts only for the stylesheet it was opened with
            // (the sum taken when opening, compared at each count).
            const char *css = !setting ? NULL : info->pre_paginated ? setting->css_fixed : info->face ? setting->css_with_face : setting->css;
            if (css) set_user_css(ctx, 1, css);
            counts = layout_counts(ctx, setting);
            doc = fz_open_accelerated_document_with_stream(ctx, "application/epub+zip", stream, counts);
            *kept = fz_keep_buffer(ctx, copy);
        } else {
            doc = fz_open_document(ctx, path);
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

int __wrap_fz_file_exists(fz_context *ctx, const char *name) {
    folio_mu_doc *d = fz_user_context(ctx);
    return (!d || inside_book(d, name)) && __real_fz_file_exists(ctx, name);
}

/// Confines a new document's context to the book (and an XHTML file's folder).
static void confine(folio_mu_doc *d) {
    fz_set_user_context(d->ctx, d);
    const char *dot = strrchr(d->path, '.');
    if (!dot || !(html_name(d->path) || !fz_strcasecmp(dot, ".xhtml") || !fz_strcasecmp(dot, ".xht"))) return;
    // Its images and stylesheets are read from its folder (none for a file at the root).
    const char *slash = strrchr(d->path, '/');
    d->folder = !slash ? strdup(".") : slash > d->path ? strndup(d->path, (size_t)(slash - d->path)) : NULL;
}

const char *folio_mu_outside(folio_mu_doc *d) { return atomic_load(&d->outside); }

// MARK: documents

folio_mu_doc *folio_mu_open(const char *path, size_t memory_limit, const folio_mu_setting *setting,
                            folio_mu_info *info, folio_mu_error *error) {
    folio_mu_doc *d = calloc(1, sizeof *d);
    if (!d) { fail(error, "out of memory"); return NULL; }
    d->limit = memory_limit;
    d->path = strdup(path);
    pthread_mutex_init(&d->mutex, NULL);
    for (int i = 0; i < FZ_LOCK_MAX; i++) pthread_mutex_init(&d->locks[i], NULL);
    fz_alloc_context alloc = { d, doc_malloc, doc_realloc, doc_free };
    fz_locks_context locks = { d, doc_lock, doc_unlock };
    d->ctx = fz_new_context(&alloc, &locks, 64 << 20);
    if (!d->ctx) { fail(error, "out of memory"); folio_mu_close(d); return NULL; }
    fz_context *ctx = d->ctx;
    fz_set_warning_callback(ctx, quiet, NULL);
    fz_set_error_callback(ctx, quiet, NULL);
    confine(d);
    memset(info, 0, sizeof *info);
    // Before MuPDF parses the book: a file nesting too deep must not reach its parser.
    read_package(ctx, path, info, d);
    if (info->too_deep[0] || info->refused[0] || info->encrypted) return d;
    int ok = 1;
    fz_try(ctx) {
        fz_register_document_handlers(ctx);
        d->doc = open_prepared(ctx, path, d->opf_path, setting, info, &d->copy);
        if (fz_needs_password(ctx, d->doc)) fz_throw(ctx, FZ_ERROR_GENERIC, "the document is password-protected");
        info->reflowable = fz_is_document_reflowable(ctx, d->doc);
    }
    fz_catch(ctx) { fail(error, fz_caught_message(ctx)); ok = 0; }
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
        fz_drop_context(d->ctx);
    }
    pthread_mutex_destroy(&d->mutex);
    for (int i = 0; i < FZ_LOCK_MAX; i++) pthread_mutex_destroy(&d->locks[i]);
    for (int i = 0; d->spine_names && i < d->spine_count; i++) free(d->spine_names[i]);
    free(d->spine_names);
    for (int i = 0; i < d->mark_count; i++) {
        free(d->marks[i].target);
        free(d->marks[i].label);
    }
    free(d->marks);
    free(d->spine_text);
    free(d->opf_path);
    free(d->folder);
    free(atomic_load(&d->outside));
    free(d->path);
    free(d);
}

size_t folio_mu_chapter_text(folio_mu_doc *d, int chapter) {
    return chapter >= 0 && chapter < d->spine_count ? d->spine_text[chapter] : 0;
}

int folio_mu_spine_count(folio_mu_doc *d) { return d->spine_count; }

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

int folio_mu_layout(folio_mu_doc *d, float w, float h, float em, folio_mu_error *error) {
    int status = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        fz_layout_document(d->ctx, d->doc, w, h, em);
        d->counted = 0;
        for (int i = 0; i < d->mark_count; i++) d->marks[i].page = -2;
        status = 0;
    }
    fz_catch(d->ctx) fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return status;
}

int folio_mu_count_chapters(folio_mu_doc *d, folio_mu_error *error) {
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_count_chapters(d->ctx, d->doc);
    fz_catch(d->ctx) fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return n;
}

int folio_mu_count_chapter_pages(folio_mu_doc *d, int chapter, folio_mu_error *error) {
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_count_chapter_pages(d->ctx, d->doc, chapter);
    fz_catch(d->ctx) fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return n;
}

int folio_mu_count_pages(folio_mu_doc *d, folio_mu_error *error) {
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_count_pages(d->ctx, d->doc);
    fz_catch(d->ctx) fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return n;
}

char *folio_mu_metadata(folio_mu_doc *d, const char *key) {
    char buf[1024];
    int n = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) n = fz_lookup_metadata(d->ctx, d->doc, key, buf, sizeof buf);
    fz_catch(d->ctx) n = -1;
    pthread_mutex_unlock(&d->mutex);
    return n > 1 ? strdup(buf) : NULL;
}

int folio_mu_bounds(folio_mu_doc *d, int index, float box[4], folio_mu_error *error) {
    int status = -1;
    fz_page *page = NULL;
    fz_var(page);
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        page = load_page(d->ctx, d, index);
        fz_rect r = fz_bound_page(d->ctx, page);
        box[0] = r.x0; box[1] = r.y0; box[2] = r.x1; box[3] = r.y1;
        status = 0;
    }
    fz_always(d->ctx) fz_drop_page(d->ctx, page);
    fz_catch(d->ctx) fail(error, fz_caught_message(d->ctx));
    pthread_mutex_unlock(&d->mutex);
    return status;
}

struct folio_mu_cookie { fz_cookie cookie; };

folio_mu_cookie *folio_mu_new_cookie(void) { return calloc(1, sizeof(folio_mu_cookie)); }
void folio_mu_abort(folio_mu_cookie *c) { c->cookie.abort = 1; }
void folio_mu_drop_cookie(folio_mu_cookie *c) { free(c); }

/// Page `index` recorded as a display list (under the document's mutex), with its box; the
/// recording stops when `cookie` is aborted (NULL then).
static fz_display_list *record(folio_mu_doc *d, fz_context *ctx, int index, fz_rect *bounds, fz_cookie *cookie,
                               folio_mu_error *error) {
    fz_display_list *list = NULL;
    fz_page *page = NULL;
    fz_device *dev = NULL;
    fz_var(page); fz_var(list); fz_var(dev);
    pthread_mutex_lock(&d->mutex);
    fz_try(ctx) {
        page = load_page(ctx, d, index);
        *bounds = fz_bound_page(ctx, page);
        list = fz_new_display_list(ctx, *bounds);
        dev = fz_new_list_device(ctx, list);
        fz_run_page(ctx, page, dev, fz_identity, cookie);
        fz_close_device(ctx, dev);
    }
    fz_always(ctx) {
        fz_drop_device(ctx, dev);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) {
        fail(error, fz_caught_message(ctx));
        fz_drop_display_list(ctx, list);
        list = NULL;
    }
    pthread_mutex_unlock(&d->mutex);
    if (list && cookie && cookie->abort) {
        fz_drop_display_list(ctx, list);
        list = NULL;
    }
    return list;
}

int folio_mu_render(folio_mu_doc *d, int index, float sx, float sy, float tx, float ty,
                    int width, int height, unsigned char *rgba, unsigned int paper, const folio_mu_furniture *furniture,
                    folio_mu_cookie *stop, folio_mu_error *error) {
    // Drawn without alpha (MuPDF's opaque painters: quicker than blending into an alpha
    // channel) into the first three quarters of the buffer, on the paper, then spread to RGBA in place.
    size_t count = (size_t)width * height;
    if (paper == 0xFFFFFF) {
        memset(rgba, 255, count * 3);
    } else {
        const unsigned char pixel[3] = {paper >> 16 & 255, paper >> 8 & 255, paper & 255};
        for (size_t i = 0; i < count; i++) memcpy(rgba + i * 3, pixel, 3);
    }
    fz_context *ctx = thread_context(d, error);
    if (!ctx) return -1;
    fz_cookie *cookie = stop ? &stop->cookie : NULL;
    fz_rect bounds;
    fz_display_list *list = record(d, ctx, index, &bounds, cookie, error);
    int status = list ? 0 : (cookie && cookie->abort ? -2 : -1);
    fz_pixmap *pix = NULL;
    fz_device *dev = NULL;
    fz_var(pix); fz_var(dev);
    if (list) {
        fz_try(ctx) {
            pix = fz_new_pixmap_with_bbox_and_data(ctx, fz_device_rgb(ctx), fz_make_irect(0, 0, width, height), NULL, 0, rgba);
            fz_matrix ctm = fz_make_matrix(sx, 0, 0, sy, tx - sx * bounds.x0, ty - sy * bounds.y0);
            dev = fz_new_draw_device(ctx, ctm, pix);
            // The list's nodes are culled against this area in the page's own space (the device
            // does the transform): the pixmap's rectangle taken back there, not the pixmap's
            // pixels read as points (a small render kept only the page's top-left points).
            fz_rect area = fz_transform_rect(fz_make_rect(0, 0, width, height), fz_invert_matrix(ctm));
            fz_run_display_list(ctx, list, dev, fz_identity, area, cookie);
            // The draw device maps page points to pixels itself: the lines are given in the page's points.
            if (furniture) folio_draw_furniture(ctx, dev, fz_translate(bounds.x0, bounds.y0), furniture);
            fz_close_device(ctx, dev);
        }
        fz_always(ctx) {
            fz_drop_device(ctx, dev);
            fz_drop_pixmap(ctx, pix);
            fz_drop_display_list(ctx, list);
        }
        fz_catch(ctx) { fail(error, fz_caught_message(ctx)); status = -1; }
        if (status == 0 && cookie && cookie->abort) status = -2;
    }
    fz_drop_context(ctx);
    // From the last pixel back: pixel i's RGBA never overwrites the RGB of a pixel before it.
    for (size_t i = count; i-- > 0;) {
        unsigned char r = rgba[3 * i], g = rgba[3 * i + 1], b = rgba[3 * i + 2];
        rgba[4 * i] = r; rgba[4 * i + 1] = g; rgba[4 * i + 2] = b; rgba[4 * i + 3] = 255;
    }
    return status;
}

// MARK: places

int folio_mu_chapter_of(folio_mu_doc *d, int index, int *page_in_chapter, int *chapter_pages) {
    int chapter = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        fz_location loc = page_location(d->ctx, d, index);
        *page_in_chapter = loc.page;
        *chapter_pages = fz_count_chapter_pages(d->ctx, d->doc, loc.chapter);
        chapter = loc.chapter;
    }
    fz_catch(d->ctx) chapter = -1;
    pthread_mutex_unlock(&d->mutex);
    return chapter;
}

/// Whether MuPDF's chapters are the spine's items (`spine_is_chapters`), counted once: MuPDF
/// walks its list of chapters to count them. Under the document's mutex.
static int chapters_are_spine(fz_context *ctx, folio_mu_doc *d) {
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
        if (chapter >= 0 && chapter < d->spine_count && d->spine_names && d->spine_names[chapter] && chapters_are_spine(ctx, d)) {
            if (!d->text_archive) d->text_archive = fz_open_archive(ctx, d->path);
            markup = fz_read_archive_entry(ctx, d->text_archive, d->spine_names[chapter]);
            unsigned char *data;
            size_t n = fz_buffer_storage(ctx, markup, &data);
            g.out = fz_new_buffer(ctx, n / 2 + 16);
            // A picture in the spine has no text.
            if (markup_entry(ctx, markup)) markup_text(data, n, gather_piece, &g);
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

int folio_mu_chapter_page(folio_mu_doc *d, int chapter, int page) {
    int number = -1;
    pthread_mutex_lock(&d->mutex);
    fz_try(d->ctx) {
        int n = fz_count_chapter_pages(d->ctx, d->doc, chapter);
        if (n > 0) number = page_number(d->ctx, d, fz_make_location(chapter, page < 0 ? 0 : page >= n ? n - 1 : page));
    }
    fz_catch(d->ctx) number = -1;
    pthread_mutex_unlock(&d->mutex);
    return number;
}

/// A device that counts the characters drawn, white space and hyphens left out: lines break at
/// white space, and at a soft hyphen MuPDF draws a hyphen only where the line breaks.
typedef struct { fz_device super; int count; } character_counter;

static void count_characters(character_counter *counter, const fz_text *text) {
    for (fz_text_span *span = text->head; span; span = span->next)
        for (int i = 0; i < span->len; i++) {
            int c = span->items[i].ucs;
            if (c > ' ' && c != 0xA0 && c != 0x3000 && c != '-' && c != 0xAD && c != 0x2010) counter->count++;
        }
}

static void counter_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_colorspace *cs,
                              const float *color, float alpha, fz_color_params params) {
    (void)ctx; (void)ctm; (void)cs; (void)color; (void)alpha; (void)params;
    count_characters((character_counter *)dev, text);
}

static void counter_ignore_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm) {
    (void)ctx; (void)ctm;
    count_characters((character_counter *)dev, text);
}

int folio_mu_page_characters(folio_mu_doc *d, int index, folio_mu_error *error) {
    fz_context *ctx = d->ctx;
    int count = -1;
    fz_page *page = NULL;
    character_counter *counter = NULL;
    fz_var(page); fz_var(counter);
    pthread_mutex_lock(&d->mutex);
    fz_try(ctx) {
        page = load_page(ctx, d, index);
        counter = fz_new_derived_device(ctx, character_counter);
        counter->super.fill_text = counter_fill_text;
        counter->super.ignore_text = counter_ignore_text;
        fz_run_page(ctx, page, &counter->super, fz_identity, NULL);
        fz_close_device(ctx, &counter->super);
        count = counter->count;
    }
    fz_always(ctx) {
        fz_drop_device(ctx, counter ? &counter->super : NULL);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) fail(error, fz_caught_message(ctx));
    pthread_mutex_unlock(&d->mutex);
    return count;
}

// MARK: text, links, outline

/// Appends `*count` + 1 items of `size` bytes to a malloc'd array (capacity doubling).
static void *grow(fz_context *ctx, void *array, int count, int *capacity, size_t size) {
    if (count < *capacity) return array;
    *capacity = *capacity ? *capacity * 2 : 64;
    void *bigger = realloc(array, (size_t)*capacity * size);
    if (!bigger) fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory");
    return bigger;
}

/// The page's words: the page recorded under the document's mutex (`record`), its text read
/// from the recording on this thread's own context, so searches read pages in parallel.
int folio_mu_words(folio_mu_doc *d, int index, folio_mu_word **out, folio_mu_error *error) {
    *out = NULL;
    fz_context *ctx = thread_context(d, error);
    if (!ctx) return -1;
    fz_rect bounds;
    fz_display_list *list = record(d, ctx, index, &bounds, NULL, error);
    if (!list) {
        fz_drop_context(ctx);
        return -1;
    }
    folio_mu_word *words = NULL;
    int count = 0, capacity = 0;
    fz_stext_page *text = NULL;
    fz_var(text); fz_var(words); fz_var(count); fz_var(capacity);
    char buf[512];
    int len = 0;
    fz_rect box = fz_empty_rect;
    fz_try(ctx) {
        text = fz_new_stext_page_from_display_list(ctx, list, NULL);
        for (fz_stext_block *b = text->first_block; b; b = b->next) {
            if (b->type != FZ_STEXT_BLOCK_TEXT) continue;
            for (fz_stext_line *l = b->u.t.first_line; l; l = l->next) {
                for (fz_stext_char *c = l->first_char; ; c = c->next) {
                    int end = !c || c->c == ' ' || c->c == '\t' || c->c == 0xA0;
                    if (end && len > 0) {
                        words = grow(ctx, words, count, &capacity, sizeof *words);
                        buf[len] = 0;
                        words[count] = (folio_mu_word){ strdup(buf), box.x0, box.y0, box.x1, box.y1 };
                        count++;
                        len = 0;
                        box = fz_empty_rect;
                    }
                    if (!c) break;
                    if (end || len + FZ_UTFMAX + 1 >= (int)sizeof buf) continue;
                    len += fz_runetochar(buf + len, c->c);
                    box = fz_union_rect(box, fz_rect_from_quad(c->quad));
                }
            }
        }
    }
    fz_always(ctx) {
        fz_drop_stext_page(ctx, text);
        fz_drop_display_list(ctx, list);
    }
    fz_catch(ctx) {
        fail(error, fz_caught_message(ctx));
        folio_mu_free_words(words, count);
        words = NULL;
        count = -1;
    }
    fz_drop_context(ctx);
    *out = words;
    return count;
}

void folio_mu_free_words(folio_mu_word *words, int count) {
    for (int i = 0; i < count; i++) free(words[i].text);
    free(words);
}

/// Where the `count` links inside a note go (`refs`, `folio_note`), into `link`.
static void note_links(fz_context *ctx, folio_mu_doc *d, folio_notes *notes, const folio_note_ref *refs, int count, folio_mu_link *link) {
    link->note_links = calloc((size_t)(count ? count : 1), sizeof *link->note_links);
    if (!link->note_links) fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory");
    for (int i = 0; i < count; i++) {
        folio_mu_note_link *kept = link->note_links + link->note_link_count++;
        *kept = (folio_mu_note_link){ strdup(refs[i].label), -1, NULL, NULL };
        if (fz_is_external_link(ctx, refs[i].target)) {
            kept->uri = strdup(refs[i].target);
            continue;
        }
        fz_try(ctx) {
            kept->page = page_number(ctx, d, fz_resolve_link(ctx, d->doc, refs[i].target, NULL, NULL));
            kept->note = folio_note(ctx, notes, d->copy, refs[i].target, NULL, NULL);
        }
        fz_catch(ctx) kept->page = -1;  // a target MuPDF cannot find: the link goes nowhere
    }
}

int folio_mu_links(folio_mu_doc *d, int index, folio_mu_link **out, folio_mu_error *error) {
    folio_mu_link *links = NULL;
    int count = 0, capacity = 0;
    fz_page *page = NULL;
    fz_link *first = NULL;
    folio_notes notes = {0};
    // The links of the note a link points at, found anew for each.
    folio_note_ref *refs = calloc(folio_note_link_limit, sizeof *refs);
    fz_var(page); fz_var(first); fz_var(links); fz_var(count); fz_var(capacity);
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        if (!refs) fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory");
        page = load_page(ctx, d, index);
        first = fz_load_links(ctx, page);
        for (fz_link *l = first; l; l = l->next) {
            if (!l->uri) continue;
            links = grow(ctx, links, count, &capacity, sizeof *links);
            folio_mu_link link = { l->rect.x0, l->rect.y0, l->rect.x1, l->rect.y1, -1, NULL, NULL, NULL, 0 };
            if (fz_is_external_link(ctx, l->uri)) link.uri = strdup(l->uri);
            else {
                link.page = page_number(ctx, d, fz_resolve_link(ctx, d->doc, l->uri, NULL, NULL));
                int inside = 0;
                if (d->copy) link.note = folio_note(ctx, &notes, d->copy, l->uri, refs, &inside);
                // Counted now, so that the link is freed whole if resolving its note's links fails.
                links[count++] = link;
                if (inside) note_links(ctx, d, &notes, refs, inside, &links[count - 1]);
                continue;
            }
            links[count++] = link;
        }
    }
    fz_always(ctx) {
        free(refs);
        folio_drop_notes(ctx, &notes);
        fz_drop_link(ctx, first);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx) {
        fail(error, fz_caught_message(ctx));
        folio_mu_free_links(links, count);
        links = NULL;
        count = -1;
    }
    pthread_mutex_unlock(&d->mutex);
    *out = links;
    return count;
}

void folio_mu_free_links(folio_mu_link *links, int count) {
    for (int i = 0; i < count; i++) {
        free(links[i].uri);
        free(links[i].note);
        for (int k = 0; k < links[i].note_link_count; k++) {
            folio_mu_note_link *n = links[i].note_links + k;
            free(n->label);
            free(n->uri);
            free(n->note);
        }
        free(links[i].note_links);
    }
    free(links);
}

/// Outlines deeper than this are cut (a hostile file's nesting must not exhaust the stack).
enum { max_outline_depth = 32 };

static void flatten(fz_context *ctx, folio_mu_doc *d, fz_outline *o, int depth,
                    folio_mu_outline **entries, int *count, int *capacity) {
    for (; o && depth < max_outline_depth; o = o->next) {
        *entries = grow(ctx, *entries, *count, capacity, sizeof **entries);
        // An EPUB's entries carry only their target (a chapter file): resolve it in this layout.
        fz_location at = o->page;
        if (at.chapter < 0 && o->uri && !fz_is_external_link(ctx, o->uri)) at = fz_resolve_link(ctx, d->doc, o->uri, NULL, NULL);
        int page = page_number(ctx, d, at);
        (*entries)[(*count)++] = (folio_mu_outline){ strdup(o->title ? o->title : ""), page, depth };
        flatten(ctx, d, o->down, depth + 1, entries, count, capacity);
    }
}

static const char *xml_type(fz_xml *x) {
    const char *t = fz_xml_att(x, "epub:type");
    return t ? t : fz_xml_att(x, "type");
}

/// The entries of an EPUB 3 navigation list (`ol` of `li`, each an `a` and maybe an `ol`).
static void nav_list(fz_context *ctx, folio_mu_doc *d, fz_xml *ol, const char *base, int depth,
                     folio_mu_outline **entries, int *count, int *capacity) {
    for (fz_xml *li = ol ? fz_xml_find_down(ol, "li") : NULL; li && depth < max_outline_depth; li = fz_xml_find_next(li, "li")) {
        fz_xml *a = fz_xml_find_down(li, "a");
        if (!a) a = fz_xml_find_down(li, "span");
        char title[512] = "", target[2048];
        if (a) folio_xml_text(a, title, sizeof title);
        const char *href = a ? fz_xml_att(a, "href") : NULL;
        int page = -1;
        if (href && !fz_is_external_link(ctx, href)) {
            snprintf(target, sizeof target, "%s%s", base, href);
            fz_urldecode(target);
            fz_cleanname(target);
            fz_try(ctx) {
                fz_location at = fz_resolve_link(ctx, d->doc, target, NULL, NULL);
                page = page_number(ctx, d, at);
            }
            fz_catch(ctx) page = -1;
        }
        *entries = grow(ctx, *entries, *count, capacity, sizeof **entries);
        (*entries)[(*count)++] = (folio_mu_outline){ strdup(title), page, depth };
        nav_list(ctx, d, fz_xml_find_down(li, "ol"), base, depth + 1, entries, count, capacity);
    }
}

/// The archive path of `href` written in the package file `opf_path`, and its folder into `base`.
static void package_entry(const char *opf_path, const char *href, char *path, size_t size, char *base, size_t base_size) {
    const char *slash = strrchr(opf_path, '/');
    snprintf(path, size, "%.*s%s", slash ? (int)(slash - opf_path + 1) : 0, opf_path, href);
    fz_urldecode(path);
    fz_cleanname(path);
    slash = strrchr(path, '/');
    snprintf(base, base_size, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
}

/// Calls `use` with the list of the `nav` of type `type` ("toc", "page-list") of an EPUB 3
/// book's navigation document (its `ol`) and the folder its links are relative to; for a page
/// list an EPUB 2's NCX `pageList` where the book has no navigation document's; nothing when
/// there is none.
static void nav_document(fz_context *ctx, folio_mu_doc *d, const char *type,
                         void (*use)(fz_context *ctx, folio_mu_doc *d, fz_xml *list, const char *base, void *user), void *user) {
    fz_archive *arch = NULL;
    fz_xml *container = NULL, *opf = NULL, *nav = NULL, *ncx = NULL;
    fz_var(arch); fz_var(container); fz_var(opf); fz_var(nav); fz_var(ncx);
    fz_try(ctx) {
        arch = fz_open_archive(ctx, d->path);
        container = entry_xml(ctx, arch, "META-INF/container.xml");
        fz_xml *root = container ? fz_xml_find_dfs(container, "rootfile", NULL, NULL) : NULL;
        const char *opf_path = root ? fz_xml_att(root, "full-path") : NULL;
        if (!opf_path) break;
        opf = entry_xml(ctx, arch, opf_path);
        // The item whose properties hold the word "nav" ("nav scripted").
        const char *href = NULL;
        for (fz_xml *item = opf ? fz_xml_find_dfs(opf, "item", NULL, NULL) : NULL; item && !href; item = fz_xml_find_next_dfs(item, "item", NULL, NULL)) {
            const char *p = fz_xml_att(item, "properties");
            for (const char *w = p; w && (w = strstr(w, "nav")); w += 3)
                if ((w == p || isspace((unsigned char)w[-1])) && (!w[3] || isspace((unsigned char)w[3]))) href = fz_xml_att(item, "href");
        }
        // Paths in the OPF are relative to its folder; those in the nav to the nav's.
        char path[2048], base[2048] = "";
        fz_xml *list = NULL;
        if (href) {
            package_entry(opf_path, href, path, sizeof path, base, sizeof base);
            nav = entry_xml(ctx, arch, path);
            for (fz_xml *n = nav ? fz_xml_find_dfs(nav, "nav", NULL, NULL) : NULL; n && !list; n = fz_xml_find_next_dfs(n, "nav", NULL, NULL)) {
                const char *t = xml_type(n);
                if (t && strstr(t, type)) list = fz_xml_find_dfs(n, "ol", NULL, NULL);
            }
        }
        if (!list && !strcmp(type, "page-list")) {
            // The spine names its NCX by the manifest item's id.
            fz_xml *spine = opf ? fz_xml_find_dfs(opf, "spine", NULL, NULL) : NULL;
            const char *toc = spine ? fz_xml_att(spine, "toc") : NULL;
            fz_xml *item = toc ? fz_xml_find_dfs(opf, "item", "id", toc) : NULL;
            const char *ncx_href = item ? fz_xml_att(item, "href") : NULL;
            if (ncx_href) {
                package_entry(opf_path, ncx_href, path, sizeof path, base, sizeof base);
                ncx = entry_xml(ctx, arch, path);
                list = ncx ? fz_xml_find_dfs(ncx, "pageList", NULL, NULL) : NULL;
            }
        }
        if (list) use(ctx, d, list, base, user);
    }
    fz_always(ctx) {
        fz_drop_xml(ctx, ncx);
        fz_drop_xml(ctx, nav);
        fz_drop_xml(ctx, opf);
        fz_drop_xml(ctx, container);
        fz_drop_archive(ctx, arch);
    }
    fz_catch(ctx) { /* no navigation document: nothing */ }
}

typedef struct { folio_mu_outline **entries; int *count, *capacity; } outline_list;

static void use_toc(fz_context *ctx, folio_mu_doc *d, fz_xml *ol, const char *base, void *user) {
    outline_list *list = user;
    nav_list(ctx, d, ol, base, 0, list->entries, list->count, list->capacity);
}

/// The outline of an EPUB 3 book's navigation document (MuPDF reads only the EPUB 2 NCX).
static void nav_outline(fz_context *ctx, folio_mu_doc *d, folio_mu_outline **entries, int *count, int *capacity) {
    outline_list list = {entries, count, capacity};
    nav_document(ctx, d, "toc", use_toc, &list);
}

/// Reads the page list's entries into `d->marks` (a navigation document's `ol` of `li` > `a`, or
/// an NCX's `pageList` of `pageTarget`s), each with the spine item its target lies in (those
/// outside the spine left out).
static void use_page_list(fz_context *ctx, folio_mu_doc *d, fz_xml *list, const char *base, void *user) {
    int capacity = 0, ncx = !strcmp(fz_xml_tag(list), "pageList");
    const char *tag = ncx ? "pageTarget" : "li";
    for (fz_xml *li = fz_xml_find_down(list, tag); li; li = fz_xml_find_next(li, tag)) {
        fz_xml *a = ncx ? fz_xml_find_down(li, "content") : fz_xml_find_down(li, "a");
        fz_xml *words = ncx ? fz_xml_find_down(fz_xml_find_down(li, "navLabel"), "text") : a;
        const char *href = a ? fz_xml_att(a, ncx ? "src" : "href") : NULL;
        char label[64] = "", target[2048];
        if (!href || !words || fz_is_external_link(ctx, href)) continue;
        folio_xml_text(words, label, sizeof label);
        snprintf(target, sizeof target, "%s%s", base, href);
        fz_urldecode(target);
        fz_cleanname(target);
        size_t file = strcspn(target, "#");
        int chapter = -1;
        for (int c = 0; c < d->spine_count && chapter < 0; c++)
            if (d->spine_names[c] && strlen(d->spine_names[c]) == file && !strncmp(d->spine_names[c], target, file)) chapter = c;
        // A list longer than a book's archive may be is a hostile one: the rest is not read.
        if (chapter < 0 || !*label || d->mark_count >= folio_mu_max_entries) continue;
        d->marks = grow(ctx, d->marks, d->mark_count, &capacity, sizeof *d->marks);
        d->marks[d->mark_count++] = (struct page_mark){ chapter, strdup(target), strdup(label), -2, 0 };
    }
}

/// Chapters looked back through for the page break a page follows, and how far down its page
/// (points) a break may lie and still name it: a page takes the number of the printed page it
/// starts in, as a reader takes the first lines for the page they are on.
enum { printed_label_reach = 4, printed_label_top = 24 };

int folio_mu_printed_label(folio_mu_doc *d, int index, char *label, size_t size) {
    int found = -1;
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        if (!d->marks_read) {
            d->marks_read = 1;
            if (chapters_are_spine(ctx, d)) nav_document(ctx, d, "page-list", use_page_list, NULL);
        }
        if (d->mark_count) {
            found = 0;
            int chapter = page_location(ctx, d, index).chapter, best = -1;
            // The last break on or before the page, in its chapter or the few before it (laid out
            // already: their pages come first).
            for (int c = chapter; c >= 0 && c > chapter - printed_label_reach && best < 0; c--) {
                for (int i = 0; i < d->mark_count; i++) {
                    struct page_mark *m = d->marks + i;
                    if (m->chapter != c) continue;
                    if (m->page == -2) {
                        fz_try(ctx) m->page = page_number(ctx, d, fz_resolve_link(ctx, d->doc, m->target, NULL, &m->y));
                        fz_catch(ctx) m->page = -1;
                    }
                    int before = m->page >= 0 && (m->page < index || (m->page == index && m->y <= printed_label_top));
                    if (before && (best < 0 || m->page > d->marks[best].page || (m->page == d->marks[best].page && m->y >= d->marks[best].y))) best = i;
                }
            }
            if (best >= 0) {
                snprintf(label, size, "%s", d->marks[best].label);
                found = 1;
            }
        }
    }
    fz_catch(ctx) found = -1;
    pthread_mutex_unlock(&d->mutex);
    return found;
}

int folio_mu_outline_entries(folio_mu_doc *d, folio_mu_outline **out, folio_mu_error *error) {
    folio_mu_outline *entries = NULL;
    int count = 0, capacity = 0;
    fz_outline *outline = NULL;
    fz_var(outline); fz_var(entries); fz_var(count); fz_var(capacity);
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        outline = fz_load_outline(ctx, d->doc);
        flatten(ctx, d, outline, 0, &entries, &count, &capacity);
        if (count == 0) nav_outline(ctx, d, &entries, &count, &capacity);
    }
    fz_always(ctx) fz_drop_outline(ctx, outline);
    fz_catch(ctx) {
        fail(error, fz_caught_message(ctx));
        folio_mu_free_outline(entries, count);
        entries = NULL;
        count = -1;
    }
    pthread_mutex_unlock(&d->mutex);
    *out = entries;
    return count;
}

/// Gives each chapter the title of the first of `item`'s entries (and their children) that
/// points into it; a link's chapter is found from its file alone, which lays nothing out.
static void title_chapters(fz_context *ctx, fz_document *doc, fz_outline *item, char **titles, int count) {
    for (; item; item = item->next) {
        if (item->uri && item->title && !fz_is_external_link(ctx, item->uri)) {
            char file[2048];
            snprintf(file, sizeof file, "%s", item->uri);
            file[strcspn(file, "#")] = 0;
            fz_location at = fz_resolve_link_dest(ctx, doc, file).loc;
            if (at.chapter >= 0 && at.chapter < count && !titles[at.chapter]) titles[at.chapter] = strdup(item->title);
        }
        title_chapters(ctx, doc, item->down, titles, count);
    }
}

int folio_mu_chapter_titles(folio_mu_doc *d, char ***out, folio_mu_error *error) {
    char **titles = NULL;
    int count = -1;
    fz_outline *outline = NULL;
    fz_var(outline); fz_var(titles); fz_var(count);
    pthread_mutex_lock(&d->mutex);
    fz_context *ctx = d->ctx;
    fz_try(ctx) {
        count = fz_count_chapters(ctx, d->doc);
        titles = calloc(count > 0 ? (size_t)count : 1, sizeof *titles);
        if (!titles) fz_throw(ctx, FZ_ERROR_GENERIC, "out of memory");
        outline = fz_load_outline(ctx, d->doc);
        title_chapters(ctx, d->doc, outline, titles, count);
    }
    fz_always(ctx) fz_drop_outline(ctx, outline);
    fz_catch(ctx) {
        fail(error, fz_caught_message(ctx));
        folio_mu_free_titles(titles, count);
        titles = NULL;
        count = -1;
    }
    pthread_mutex_unlock(&d->mutex);
    *out = titles;
    return count;
}

void folio_mu_free_titles(char **titles, int count) {
    for (int i = 0; titles && i < count; i++) free(titles[i]);
    free(titles);
}

void folio_mu_free_outline(folio_mu_outline *entries, int count) {
    for (int i = 0; i < count; i++) free(entries[i].title);
    free(entries);
}
