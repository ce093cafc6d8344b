// Checks before MuPDF parses a book: markup nesting deeper than its recursion survives (in its
// XML and HTML readings) and an archive of too many entries. Does not read the package or a MOBI's
// records (package.c).
#include "bridge.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: markup depth

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
        else if (fb_starts_with(s + i, n - i, "!--")) i = skip_past(s, n, i + 3, "-->");
        else if (fb_starts_with(s + i, n - i, "![CDATA[")) i = skip_past(s, n, i, "]]>");
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
        if (fb_starts_with(s + i, n - i, "!--")) {
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

/// Whether markup nests too deep in the reading MuPDF takes. UTF-16 is counted in its low
/// bytes (tags are ASCII), as far as MuPDF reads: to the first NUL.
int fb_too_deep(fz_context *ctx, fz_buffer *buf, int reading) {
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

// MARK: an archive's entries

/// Whether an archive entry may be markup: any but those that start as an image or a font does.
int fb_markup_entry(fz_context *ctx, fz_buffer *buf) {
    unsigned char *head;
    size_t n = fz_buffer_storage(ctx, buf, &head);
    if (n < 8) return n > 0;
    return !(fz_recognize_image_format(ctx, head) || !memcmp(head, "OTTO", 4) || !memcmp(head, "\0\1\0\0", 4)
             || !memcmp(head, "wOFF", 4) || !memcmp(head, "wOF2", 4) || !memcmp(head, "true", 4));
}

int fb_by_name(const void *a, const void *b) { return fz_strcasecmp(((const entry_text *)a)->name, ((const entry_text *)b)->name); }

/// Whether an archive entry is a stylesheet or a script by its name, which MuPDF does not parse
/// as markup unless the spine lists it (`read_spine_text` scans it then): a script's `i<n`
/// would count as elements opened. A name holding ".svg" is read as a picture whatever it ends in.
int fb_style_or_script(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot && (!fz_strcasecmp(dot, ".css") || !fz_strcasecmp(dot, ".js")) && !strstr(name, ".svg");
}

/// Whether a file is one MuPDF reads as HTML alone (not XML first).
int fb_html_name(const char *path) {
    const char *dot = strrchr(path, '.');
    return dot && (!fz_strcasecmp(dot, ".html") || !fz_strcasecmp(dot, ".htm"));
}

const char fb_empty_end_tag_refusal[] = "its markup holds an empty end tag (</>), on which MuPDF's HTML parser crashes; not opened";

int fb_empty_end_tag(const unsigned char *s, size_t n) { return n == 3 && s[0] == '<' && s[1] == '/' && s[2] == '>'; }

int fb_holds_empty_end_tag(const unsigned char *s, size_t n) {
    for (size_t i = 0; i + 3 <= n; i++)
        if (s[i] == '<' && fb_empty_end_tag(s + i, 3)) return 1;
    return 0;
}

/// Before MuPDF parses anything: names in `info->too_deep` the first markup that nests too
/// deep (any entry of an archive whatever its name, images, fonts, stylesheets and scripts
/// aside; a file of markup; a MOBI's text), and says in `info->refused` why a book is not opened
/// at all (a MOBI's records outside the file, more archive entries than `folio_mu_max_entries`).
/// A PDF is not markup.
/// An archive's markup entries' characters of text go into `texts`, sorted by name.
void fb_check_depth(fz_context *ctx, const char *path, fz_archive *arch, folio_mu_info *info, entry_texts *texts) {
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
            if (fb_palm_database(path, d, n)) fb_check_mobi(ctx, buf, info);
            else if (fb_too_deep(ctx, buf, fb_html_name(path) ? read_html : read_either)) snprintf(info->too_deep, sizeof info->too_deep, "the text");
            else if (fb_holds_empty_end_tag(d, n)) snprintf(info->refused, sizeof info->refused, "%s", fb_empty_end_tag_refusal);
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
            if (name && *name && name[strlen(name) - 1] != '/' && !fb_style_or_script(name)) {
                buf = fz_read_archive_entry(ctx, arch, name);
                if (fb_markup_entry(ctx, buf)) {
                    if (fb_too_deep(ctx, buf, read_either)) snprintf(info->too_deep, sizeof info->too_deep, "%s", name);
                    unsigned char *data;
                    size_t bytes = fz_buffer_storage(ctx, buf, &data);
                    texts->entries[texts->count].text = fb_text_characters(data, bytes);
                    texts->entries[texts->count].name = fz_strdup(ctx, name);
                    texts->count++;
                }
            }
        }
        fz_always(ctx) fz_drop_buffer(ctx, buf);
        fz_catch(ctx) { /* damaged entry */ }
    }
    qsort(texts->entries, (size_t)texts->count, sizeof *texts->entries, fb_by_name);
}
