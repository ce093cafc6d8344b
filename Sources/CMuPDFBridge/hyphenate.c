// Hyphenation: pattern files found and loaded (libhyphen; kept compiled between runs by
// keptpatterns.c), soft hyphens put into a text's words, and the elements a book's stylesheets
// keep unhyphenated. Does not read tags (typeset.c).
#include "bridge.h"
#include <hyphen.h>
#include <dirent.h>
#include <iconv.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// MARK: patterns

/// ISO 639-2 codes (bibliographic and terminological) of the languages pattern files are made
/// for, and their ISO 639-1 codes, which the files are named by: books from older converters
/// name their language "pol", "ger" or "fre" ("pol" turned Polish hyphenation off).
static const char *const three_letters[][2] = {
    {"afr", "af"}, {"bel", "be"}, {"bul", "bg"}, {"cat", "ca"}, {"ces", "cs"}, {"cze", "cs"}, {"cym", "cy"}, {"wel", "cy"},
    {"dan", "da"}, {"deu", "de"}, {"ger", "de"}, {"ell", "el"}, {"gre", "el"}, {"eng", "en"}, {"epo", "eo"}, {"spa", "es"},
    {"est", "et"}, {"eus", "eu"}, {"baq", "eu"}, {"fin", "fi"}, {"fra", "fr"}, {"fre", "fr"}, {"gle", "ga"}, {"glg", "gl"},
    {"hin", "hi"}, {"hrv", "hr"}, {"hun", "hu"}, {"hye", "hy"}, {"arm", "hy"}, {"ind", "id"}, {"isl", "is"}, {"ice", "is"},
    {"ita", "it"}, {"kat", "ka"}, {"geo", "ka"}, {"lat", "la"}, {"lit", "lt"}, {"lav", "lv"}, {"mon", "mn"}, {"nob", "nb"},
    {"nno", "nn"}, {"nld", "nl"}, {"dut", "nl"}, {"pol", "pl"}, {"por", "pt"}, {"ron", "ro"}, {"rum", "ro"}, {"rus", "ru"},
    {"slk", "sk"}, {"slo", "sk"}, {"slv", "sl"}, {"sqi", "sq"}, {"alb", "sq"}, {"srp", "sr"}, {"swe", "sv"}, {"tel", "te"},
    {"tha", "th"}, {"tur", "tr"}, {"ukr", "uk"}, {"zul", "zu"},
};

/// Whether `name` is a pattern file for `lang` ("en-US": hyph_en_US.dic, else hyph_en.dic, else
/// any hyph_en_*.dic; a three-letter code as its two-letter one): its rank, lower is better, or -1.
static int pattern_rank(const char *name, const char *lang) {
    char want[64];
    size_t n = 0;
    const char *p = lang;
    size_t given = strcspn(lang, "-_");
    for (size_t k = 0; given == 3 && k < sizeof three_letters / sizeof *three_letters; k++)
        if (!strncasecmp(lang, three_letters[k][0], 3)) {
            memcpy(want, three_letters[k][1], 2);
            n = 2, p = lang + 3;
            break;
        }
    for (; *p && n + 1 < sizeof want; p++) want[n++] = *p == '-' ? '_' : *p;
    want[n] = 0;
    size_t primary = strcspn(want, "_");
    if (strncmp(name, "hyph_", 5) != 0) return -1;
    const char *rest = name + 5;
    size_t len = strlen(rest);
    if (len < 5 || strcmp(rest + len - 4, ".dic") != 0) return -1;
    len -= 4;
    if (len == n && strncasecmp(rest, want, n) == 0) return 0;
    if (len == primary && strncasecmp(rest, want, primary) == 0) return 1;
    if (len > primary && rest[primary] == '_' && strncasecmp(rest, want, primary) == 0) return 2;
    return -1;
}

/// Pattern files at most this large are read (Debian's largest, hyph_de, is under 1 MiB).
enum { largest_patterns = 16 << 20 };

/// The pattern file at `path`, loaded. One in an 8-bit encoding other than Latin-1 (its first
/// line names it: Debian's Russian patterns are KOI8-R) is turned into UTF-8 first, as the words
/// hyphenated are (`hyphenate_word`): libhyphen compares bytes.
static HyphenDict *load_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char cset[64] = "";
    if (!fgets(cset, sizeof cset, f)) { fclose(f); return NULL; }
    cset[strcspn(cset, "\r\n")] = 0;
    if (!strcasecmp(cset, "UTF-8") || !strcasecmp(cset, "ISO8859-1") || !strcasecmp(cset, "ISO-8859-1")) {
        fclose(f);
        return hnj_hyphen_load(path);
    }
    HyphenDict *dict = NULL;
    struct stat st;
    size_t size = fstat(fileno(f), &st) == 0 && st.st_size > 0 && st.st_size <= largest_patterns ? (size_t)st.st_size : 0;
    // An 8-bit character is at most three bytes of UTF-8.
    char *in = size ? malloc(size) : NULL, *out = size ? malloc(3 * size + 8) : NULL;
    size_t got = in ? fread(in, 1, size, f) : 0;
    iconv_t cd = iconv_open("UTF-8", cset);
    if (in && out && cd != (iconv_t)-1) {
        memcpy(out, "UTF-8\n", 6);
        char *from = in, *to = out + 6;
        size_t left = got, room = 3 * size + 2;
        if (iconv(cd, &from, &left, &to, &room) != (size_t)-1) {
            FILE *converted = fmemopen(out, (size_t)(to - out), "rb");
            if (converted) {
                dict = hnj_hyphen_load_file(converted);
                fclose(converted);
            }
        }
    }
    if (cd != (iconv_t)-1) iconv_close(cd);
    free(in);
    free(out);
    fclose(f);
    return dict;
}

// MARK: patterns shared by the books of a process

/// Pattern files loaded in this process, kept for its life and shared by every book: libhyphen
/// 2.8.8 takes seconds to load Debian's German file (10 MB once loaded), which every German book
/// paid at each open and each change of its type. A file is known by its device, inode, size and
/// time of change, whatever link named it (Debian's hyph_de_AT.dic and hyph_de.dic are links to
/// one file). Past `shared_files`, a book's patterns are its own (`owned`), dropped with it.
enum { shared_files = 8 };
static struct shared_file {
    struct stat st;
    HyphenDict *dict;
} shared[shared_files];
static int shared_count;
/// Held while a file loads, so that two books opening together load it once.
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/// The patterns at `path` (`st` its identity): those kept compiled, or those compiled now (then kept).
static HyphenDict *compiled(const char *path, const struct stat *st) {
    HyphenDict *dict = fb_kept_patterns(path, st);
    if (!dict && (dict = load_file(path))) fb_keep_patterns(path, st, dict);
    return dict;
}

/// The patterns at `path`, loaded once in this process; `*owned` is set when they are not
/// shared (the table is full) and are the caller's to free.
static HyphenDict *shared_patterns(const char *path, int *owned) {
    *owned = 0;
    struct stat st;
    if (stat(path, &st) != 0) return NULL;
    pthread_mutex_lock(&shared_lock);
    HyphenDict *dict = NULL;
    int i = 0;
    while (i < shared_count && !same_file(&shared[i].st, &st)) i++;
    if (i < shared_count) {
        dict = shared[i].dict;
    } else if (shared_count < shared_files) {
        shared[shared_count] = (struct shared_file){.st = st, .dict = compiled(path, &st)};
        dict = shared[shared_count++].dict;
    } else {
        dict = compiled(path, &st);
        *owned = dict != NULL;
    }
    pthread_mutex_unlock(&shared_lock);
    return dict;
}

int folio_pattern_loads(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    int loads = 0;
    pthread_mutex_lock(&shared_lock);
    for (int i = 0; i < shared_count; i++) loads += same_file(&shared[i].st, &st);
    pthread_mutex_unlock(&shared_lock);
    return loads;
}

/// The patterns for `lang` from the first of `dirs` (colon-separated) that has them, or NULL;
/// `*owned` as `shared_patterns` sets it.
static HyphenDict *load_patterns(const char *dirs, const char *lang, int *owned) {
    *owned = 0;
    if (!dirs || !lang || !*lang) return NULL;
    char best[1024] = "";
    int best_rank = 3;
    const char *start = dirs;
    while (*start && best_rank > 0) {
        size_t len = strcspn(start, ":");
        char dir[768];
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, start, len);
            dir[len] = 0;
            DIR *d = opendir(dir);
            for (struct dirent *e; d && (e = readdir(d));) {
                int rank = pattern_rank(e->d_name, lang);
                if (rank >= 0 && rank < best_rank) {
                    best_rank = rank;
                    snprintf(best, sizeof best, "%s/%s", dir, e->d_name);
                }
            }
            if (d) closedir(d);
        }
        start += len + (start[len] == ':');
        if (best[0]) break;
    }
    return best[0] ? shared_patterns(best, owned) : NULL;
}

// MARK: pattern cache

HyphenDict *folio_patterns(folio_pattern_cache *cache, const char *lang) {
    // A tag longer than a cache slot names no language patterns exist for.
    if (!lang || !*lang || strlen(lang) >= sizeof cache->langs[0]) return NULL;
    for (int i = 0; i < cache->count; i++)
        if (!strcasecmp(cache->langs[i], lang)) return cache->dicts[i];
    if (cache->count == folio_pattern_cache_size) return NULL;
    int i = cache->count++;
    HyphenDict *dict = load_patterns(cache->dirs, lang, &cache->owned[i]);
    snprintf(cache->langs[i], sizeof cache->langs[i], "%s", lang);
    cache->dicts[i] = dict;
    if (dict && !cache->used[0]) snprintf(cache->used, sizeof cache->used, "%s", lang);
    return dict;
}

void folio_drop_patterns(folio_pattern_cache *cache) {
    for (int i = 0; i < cache->count; i++)
        if (cache->owned[i]) hnj_hyphen_free(cache->dicts[i]);
    cache->count = 0;
}

// MARK: words

/// The code point at `s` (of `n` bytes) and its length in `*len`; -1 for a byte that starts none.
static int decode(const unsigned char *s, size_t n, int *len) {
    unsigned char c = s[0];
    if (c < 0x80) { *len = 1; return c; }
    int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (!need || (size_t)need > n) { *len = 1; return -1; }
    int cp = c & (0x3F >> (need - 1));
    for (int i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80) { *len = 1; return -1; }
        cp = cp << 6 | (s[i] & 0x3F);
    }
    *len = need;
    return cp;
}

/// Letters that patterns hyphenate: Latin (with its accents), Greek and Cyrillic.
static int is_letter(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7)
        || (c >= 0x370 && c <= 0x3FF) || (c >= 0x400 && c <= 0x52F);
}

static int lower(int c) {
    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x410 && c <= 0x42F)) return c + 0x20;
    if (c >= 0x400 && c <= 0x40F) return c + 0x50;
    if (c >= 0x391 && c <= 0x3A9) return c + 0x20;
    return c;
}

static int encode(int c, unsigned char *out) {
    if (c < 0x80) { out[0] = c; return 1; }
    if (c < 0x800) { out[0] = 0xC0 | c >> 6; out[1] = 0x80 | (c & 0x3F); return 2; }
    out[0] = 0xE0 | c >> 12; out[1] = 0x80 | (c >> 6 & 0x3F); out[2] = 0x80 | (c & 0x3F); return 3;
}

/// Words shorter than this are never hyphenated (a break in them saves little and reads badly).
enum { shortest_word = 6, longest_word = 60 };

/// Writes the word of `n` bytes at `s` with soft hyphens where `dict` allows.
static void hyphenate_word(fb_writer *w, HyphenDict *dict, const unsigned char *s, size_t n, int letters) {
    if (!dict || letters < shortest_word || letters > longest_word) { fb_put(w, s, n); return; }
    // The patterns' words are lower case, in the dictionary's encoding (UTF-8 or Latin-1).
    unsigned char word[longest_word * 4 + 1];
    // The source byte after each letter: libhyphen gives a UTF-8 word's breaks by letter, not
    // by byte (read by byte, every break after an accented or Cyrillic letter moved).
    size_t at[longest_word + 1];
    size_t len = 0, letter = 0;
    for (size_t i = 0; i < n;) {
        int k, c = lower(decode(s + i, n - i, &k));
        unsigned char bytes[4];
        int m = dict->utf8 ? encode(c, bytes) : (c < 0x100 ? (bytes[0] = c, 1) : 0);
        if (!m) { fb_put(w, s, n); return; }  // a letter the patterns' encoding lacks
        for (int j = 0; j < m; j++) word[len++] = bytes[j];
        at[letter++] = i + k;
        i += k;
    }
    word[len] = 0;
    char hyphens[sizeof word + 5];
    char **rep = NULL;
    int *pos = NULL, *cut = NULL;
    if (hnj_hyphen_hyphenate3(dict, (const char *)word, (int)len, hyphens, NULL, &rep, &pos, &cut, 2, 3, 2, 3) != 0 || rep) {
        // Non-standard breaks (a spelling that changes at the break) are left out.
        if (rep) {
            for (size_t i = 0; i < len; i++) free(rep[i]);
            free(rep); free(pos); free(cut);
        }
        fb_put(w, s, n);
        return;
    }
    size_t from = 0;
    for (size_t i = 0; i + 1 < letter; i++) {
        if (!(hyphens[i] & 1) || at[i] == from) continue;
        fb_put(w, s + from, at[i] - from);
        fb_put(w, (const unsigned char *)"\xC2\xAD", 2);
        from = at[i];
    }
    fb_put(w, s + from, n - from);
}

/// Writes text (outside tags) with its words hyphenated.
/// Characters in a row with nowhere to break, at most, that MuPDF is given unbroken (combining
/// marks not counted), and the length of the pieces a longer run is cut into (soft hyphens
/// between them). A run longer than a line overflows it, and one of 400,000 letters took MuPDF
/// minutes to draw and to read the text of.
enum { longest_run = 80, run_piece = 24 };

/// Whether character `c` is one a line may break at or after: white space, a zero-width space
/// (Thai, Khmer, Lao and Burmese books part their words with it), a hyphen, a dash or a slash
/// (a web address breaks after its slashes), a soft hyphen, or a CJK character (ideographs,
/// kana, Hangul, full-width forms: their text has no spaces).
static int breaks(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '-' || c == '/' || c == 0xAD || c == 0x200B
        || (c >= 0x2010 && c <= 0x2014) || (c >= 0x2E80 && c <= 0xFFEF);
}

/// Whether `c` is a combining mark, which adds no width of its own (Latin accents, Hebrew
/// points, Arabic vowels, the signs of Devanagari, Bengali and Thai).
static int combining(int c) {
    return (c >= 0x300 && c <= 0x36F) || (c >= 0x591 && c <= 0x5C7) || (c >= 0x610 && c <= 0x61A) || (c >= 0x64B && c <= 0x65F)
        || (c >= 0x900 && c <= 0x903) || (c >= 0x93A && c <= 0x957) || (c >= 0x962 && c <= 0x963) || (c >= 0x981 && c <= 0x983)
        || (c >= 0x9BC && c <= 0x9D7) || c == 0xE31 || (c >= 0xE34 && c <= 0xE3A) || (c >= 0xE47 && c <= 0xE4E);
}

/// Writes a run of `n` bytes with nowhere to break, a soft hyphen after every `run_piece`
/// characters (an entity, `&amp;`, counted as one and never cut; combining marks not counted).
static void put_cut(fb_writer *w, const unsigned char *s, size_t n) {
    size_t i = 0, from = 0;
    int count = 0, k;
    while (i < n) {
        if (s[i] == '&') {
            const unsigned char *semi = memchr(s + i, ';', n - i);
            i = semi && semi - (s + i) < 12 ? (size_t)(semi - s) + 1 : i + 1;
            count++;
        } else {
            count += !combining(decode(s + i, n - i, &k));
            i += (size_t)k;
        }
        // Never before a combining mark: it stays with its letter.
        if (count >= run_piece && i < n && !combining(decode(s + i, n - i, &k))) {
            fb_put(w, s + from, i - from);
            fz_append_string(w->ctx, w->out, "\xC2\xAD");
            from = i, count = 0;
        }
    }
    fb_put(w, s + from, n - from);
}

static void hyphenate_text(fb_writer *w, HyphenDict *dict, const unsigned char *s, size_t n);

void fb_hyphenate_text(fb_writer *w, HyphenDict *dict, const unsigned char *s, size_t n) {
    // Runs longer than a line holds are cut (`put_cut`); the rest is hyphenated.
    size_t from = 0, i = 0;
    while (i < n) {
        int k, c = decode(s + i, n - i, &k);
        if (breaks(c)) { i += (size_t)k; continue; }
        size_t j = i, chars = 0;
        for (int d; j < n && !breaks(d = decode(s + j, n - j, &k)); j += (size_t)k) chars += !combining(d);
        if (chars > longest_run) {
            hyphenate_text(w, dict, s + from, i - from);
            put_cut(w, s + i, j - i);
            from = j;
        }
        i = j;
    }
    hyphenate_text(w, dict, s + from, n - from);
}

static void hyphenate_text(fb_writer *w, HyphenDict *dict, const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        int k, c = decode(s + i, n - i, &k);
        if (!is_letter(c)) {
            size_t j = i + k;
            // Up to the next letter (an entity is passed over whole: `&amp;` holds letters).
            while (j < n) {
                if (s[j] == '&') { while (j < n && s[j] != ';') j++; if (j < n) j++; continue; }
                int k2, c2 = decode(s + j, n - j, &k2);
                if (is_letter(c2)) break;
                j += k2;
            }
            fb_put(w, s + i, j - i);
            i = j;
            continue;
        }
        size_t j = i;
        int letters = 0;
        while (j < n) {
            int k2, c2 = decode(s + j, n - j, &k2);
            if (!is_letter(c2)) break;
            j += k2;
            letters++;
        }
        // A word running into a soft hyphen or an entity is already broken by its publisher.
        if (j < n && (s[j] == '&' || (j + 1 < n && s[j] == 0xC2 && s[j + 1] == 0xAD))) fb_put(w, s + i, j - i);
        else hyphenate_word(w, dict, s + i, j - i, letters);
        i = j;
    }
}

// MARK: hyphens: none

/// Whether `n` bytes of CSS declarations (or a `style` attribute) set `hyphens: none`, with any
/// vendor prefix (`-epub-`, `-webkit-`).
static int sets_no_hyphens(const unsigned char *s, size_t n) {
    for (size_t i = 0; i + 7 <= n; i++) {
        if (strncasecmp((const char *)s + i, "hyphens", 7)) continue;
        size_t j = i + 7;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) j++;
        if (j >= n || s[j] != ':') continue;
        j++;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) j++;
        if (j + 4 <= n && !strncasecmp((const char *)s + j, "none", 4)) return 1;
    }
    return 0;
}

/// Adds the simple selectors of a stylesheet's rules that set `hyphens: none` to `options`. A
/// rule's selectors are the text since the last `{`, `}` or `;` before its block (so rules in
/// `@media` are read too); compound selectors (descendants, children, attributes) are left out.
void fb_read_unhyphenated(const unsigned char *css, size_t n, folio_typeset_options *options) {
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (css[i] == '}' || css[i] == ';') { start = i + 1; continue; }
        if (css[i] != '{') continue;
        size_t end = i + 1;
        while (end < n && css[end] != '}' && css[end] != '{') end++;
        if (sets_no_hyphens(css + i + 1, end - i - 1)) {
            size_t a = start;
            while (a < i && options->unhyphenated_count < folio_unhyphenated_size) {
                size_t b = a;
                while (b < i && css[b] != ',') b++;
                size_t x = a, y = b;
                while (x < y && (css[x] == ' ' || css[x] == '\t' || css[x] == '\n' || css[x] == '\r')) x++;
                while (y > x && (css[y - 1] == ' ' || css[y - 1] == '\t' || css[y - 1] == '\n' || css[y - 1] == '\r')) y--;
                int simple = y > x && y - x < sizeof options->unhyphenated[0];
                for (size_t k = x; k < y && simple; k++)
                    simple = (css[k] >= 'a' && css[k] <= 'z') || (css[k] >= 'A' && css[k] <= 'Z') || (css[k] >= '0' && css[k] <= '9')
                             || css[k] == '-' || css[k] == '_' || (css[k] == '.' && k + 1 < y);
                if (simple) {
                    char *out = options->unhyphenated[options->unhyphenated_count++];
                    memcpy(out, css + x, y - x);
                    out[y - x] = 0;
                }
                a = b + 1;
            }
        }
        // A block of rules (`@media`): the first rule's selectors start inside it.
        if (end < n && css[end] == '{') {
            start = i + 1;
            i = end - 1;
        } else {
            start = end + 1;
            i = end;
        }
    }
}

/// Whether the element of start tag `tag` (`n` bytes after '<') is not to be hyphenated: its
/// own style says so, or a selector of `options` names it (its name, a class of it, or both).
int fb_unhyphenated(const unsigned char *tag, size_t n, const folio_typeset_options *options) {
    char value[512];
    if (fb_attribute(tag, n, "style", value, sizeof value) && sets_no_hyphens((const unsigned char *)value, strlen(value))) return 1;
    if (!options->unhyphenated_count) return 0;
    size_t len = fb_tag_name_length(tag, n < 47 ? n : 47);
    char classes[512] = "";
    fb_attribute(tag, n, "class", classes, sizeof classes);
    for (int k = 0; k < options->unhyphenated_count; k++) {
        const char *sel = options->unhyphenated[k], *dot = strchr(sel, '.');
        size_t name = dot ? (size_t)(dot - sel) : strlen(sel);
        if (name && (name != len || strncasecmp(sel, (const char *)tag, len))) continue;
        if (!dot) return 1;
        // The class among the attribute's words.
        size_t c = strlen(dot + 1);
        for (const char *p = classes; (p = strstr(p, dot + 1)); p += c)
            if ((p == classes || p[-1] == ' ') && (p[c] == 0 || p[c] == ' ')) return 1;
    }
    return 0;
}
