// A plain-text book as an EPUB, which Folio then sets as it sets any (document.c opens a
// `.txt` so): its encoding found, its paragraphs joined where the text wraps them and kept line
// by line where it is verse, its chapter headings made chapters of their own and its contents,
// its title, author and language taken from a Project Gutenberg header.
// Does not: read anything but the file's bytes, keep a prose paragraph's own line breaks, or
// find headings other than numbered ones (chapters, parts, books, cantos…, `第…章`) and a few
// named ones (preface, prologue…).
#include "bridge.h"
#include <ctype.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/// Text `s` (`n` bytes) as UTF-8, without a byte-order mark: as it is when it is UTF-8, from
/// UTF-16 when a mark says so, else from GB18030 when a tenth or more of its bytes are above
/// ASCII (Chinese novels are most plain-text books in another encoding than UTF-8), else from
/// Windows-1252 (ISO 8859-1 where that has no character for a byte). NULL when it holds a NUL
/// (a binary file named `.txt`) or converts from nothing. g_free it.
static char *utf8_text(const unsigned char *s, size_t n, size_t *length) {
    if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) s += 3, n -= 3;
    const char *from = NULL;
    if (n >= 2 && ((s[0] == 0xFF && s[1] == 0xFE) || (s[0] == 0xFE && s[1] == 0xFF))) {
        from = s[0] == 0xFF ? "UTF-16LE" : "UTF-16BE";
        s += 2, n -= 2;
    } else if (!memchr(s, 0, n)) {
        if (g_utf8_validate((const char *)s, (gssize)n, NULL)) {
            *length = n;
            return g_strndup((const char *)s, n);
        }
        size_t high = 0;
        for (size_t i = 0; i < n; i++) high += s[i] >= 0x80;
        from = high >= n / 10 ? "GB18030" : "WINDOWS-1252";
    } else {
        return NULL;
    }
    // UTF-16 as its mark says; else the guess, then Windows-1252, then ISO 8859-1 (every byte a
    // character).
    const char *tries[] = {from, "WINDOWS-1252", "ISO-8859-1"};
    for (size_t k = 0; k < (strncmp(from, "UTF-16", 6) ? 3 : 1); k++) {
        const char *encoding = tries[k];
        if (k && !strcmp(encoding, from)) continue;
        gsize written = 0;
        char *text = g_convert((const char *)s, (gssize)n, "UTF-8", encoding, NULL, &written, NULL);
        if (!text) continue;
        if (memchr(text, 0, written)) { g_free(text); return NULL; }
        *length = written;
        return text;
    }
    return NULL;
}

/// The language of a text written in Chinese, Japanese or Korean ("zh", "ja", "ko": a third of
/// the first 64 KiB's letters Han, kana or Hangul, kana a twentieth), else "" (not known: a
/// Project Gutenberg header may name it).
static const char *cjk_language(const char *s, size_t n) {
    size_t letters = 0, han = 0, kana = 0, hangul = 0;
    for (const char *p = s, *end = s + (n < 65536 ? n : 65536); p < end; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char_validated(p, end - p);
        if (c == (gunichar)-1 || c == (gunichar)-2) break;
        if (!g_unichar_isalpha(c)) continue;
        letters++;
        GUnicodeScript script = g_unichar_get_script(c);
        han += script == G_UNICODE_SCRIPT_HAN;
        kana += script == G_UNICODE_SCRIPT_HIRAGANA || script == G_UNICODE_SCRIPT_KATAKANA;
        hangul += script == G_UNICODE_SCRIPT_HANGUL;
    }
    if (!letters || 3 * (han + kana + hangul) < letters) return "";
    return 20 * kana >= letters ? "ja" : hangul > han ? "ko" : "zh";
}

/// A line of the text: `n` bytes at `s`, white space at both ends (an ideographic space too)
/// left out; `chars` characters.
typedef struct {
    const char *s;
    size_t n;
    size_t chars;
} text_line;

static text_line trimmed(const char *s, size_t n) {
    for (;;) {
        if (n && (*s == ' ' || *s == '\t' || *s == '\f' || *s == '\v')) s++, n--;
        else if (n >= 3 && !memcmp(s, "\xE3\x80\x80", 3)) s += 3, n -= 3;
        else break;
    }
    for (;;) {
        if (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\f' || s[n - 1] == '\v')) n--;
        else if (n >= 3 && !memcmp(s + n - 3, "\xE3\x80\x80", 3)) n -= 3;
        else break;
    }
    return (text_line){s, n, (size_t)g_utf8_strlen(s, (gssize)n)};
}

/// Whether `word` (lower case) opens line `l` as a word of its own.
static int opens_with(text_line l, const char *word) {
    size_t k = strlen(word);
    return l.n >= k && !strncasecmp(l.s, word, k) && (l.n == k || !isalpha((unsigned char)l.s[k]));
}

/// Whether line `l`, a paragraph of its own, is a heading: a numbered part (`CHAPTER XII.`,
/// `Book 2: The Storm`, `第十二章 …`), a number alone (`II.`), a Roman numeral before a title in
/// capitals, or a named part standing alone (`PREFACE`).
static int heading(text_line l) {
    if (!l.n || l.chars > 80) return 0;
    static const char *const numbered[] = {"chapter", "part", "book", "volume", "canto", "letter", "stave", "act", "section"};
    for (size_t k = 0; k < sizeof numbered / sizeof *numbered; k++) {
        if (!opens_with(l, numbered[k])) continue;
        const char *p = l.s + strlen(numbered[k]), *end = l.s + l.n;
        if (p >= end || *p != ' ') return 0;
        while (p < end && *p == ' ') p++;
        // A number, a Roman numeral or a number's word, then nothing or punctuation.
        const char *word = p;
        while (p < end && isalnum((unsigned char)*p)) p++;
        if (p == word) return 0;
        int roman = 1, digits = 1;
        for (const char *c = word; c < p; c++) {
            roman &= strchr("ivxlcdmIVXLCDM", *c) != NULL;
            digits &= isdigit((unsigned char)*c) != 0;
        }
        static const char *const words[] = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                                             "eleven", "twelve", "first", "second", "third", "last", "the"};
        int named = 0;
        for (size_t w = 0; w < sizeof words / sizeof *words && !named; w++)
            named = (size_t)(p - word) >= strlen(words[w]) && !strncasecmp(word, words[w], strlen(words[w]));
        return (roman || digits || named) && (p == end || !isalnum((unsigned char)*p));
    }
    // A Roman numeral or a number alone (`II.`, `12`), or a Roman numeral before a title in
    // capitals (`VII. THE ADVENTURE OF THE BLUE CARBUNCLE`).
    size_t k = 0;
    int roman = 1;
    while (k < l.n && isalnum((unsigned char)l.s[k])) roman &= strchr("IVXLCDM", l.s[k]) != NULL, k++;
    int digits = k > 0 && k <= 3;
    for (size_t d = 0; d < k; d++) digits &= isdigit((unsigned char)l.s[d]) != 0;
    if (k && (roman || digits) && (k == l.n || (k + 1 == l.n && l.s[k] == '.'))) return 1;
    if (k && roman && k + 2 < l.n && l.s[k] == '.' && l.s[k + 1] == ' ') {
        int capitals = 0, lower = 0;
        for (size_t c = k + 2; c < l.n; c++) capitals += isupper((unsigned char)l.s[c]) != 0, lower += islower((unsigned char)l.s[c]) != 0;
        if (capitals >= 3 && !lower) return 1;
    }
    static const char *const named[] = {"preface", "prologue", "epilogue", "introduction", "foreword", "afterword", "contents"};
    for (size_t k = 0; k < sizeof named / sizeof *named; k++) {
        size_t w = strlen(named[k]);
        if (opens_with(l, named[k]) && l.n <= w + 1) return 1;
    }
    // 第…章: a number in Chinese or Arabic numerals, then the part's name.
    if (l.n >= 6 && !memcmp(l.s, "第", 3)) {
        const char *p = l.s + 3, *end = l.s + l.n;
        int digits = 0;
        while (p < end && digits < 12) {
            gunichar c = g_utf8_get_char_validated(p, end - p);
            if (c == (gunichar)-1 || c == (gunichar)-2) return 0;
            if (!g_unichar_isdigit(c) && !g_utf8_strchr("零〇一二三四五六七八九十百千万两", -1, c)) break;
            p = g_utf8_next_char(p);
            digits++;
        }
        return digits && p < end && g_utf8_strchr("章回节節卷部集篇幕", -1, g_utf8_get_char(p)) != NULL;
    }
    return 0;
}

/// Whether the paragraph of lines `i…last` of `lines` is a title set apart as Project Gutenberg
/// sets its chapters' and stories' (*The Jungle Book*'s "The White Seal"): one or two short lines
/// after three blank ones or more, not ending as a line of verse goes on (`,` `;` `:`).
static int set_apart(const text_line *lines, size_t i, size_t last) {
    size_t blank = 0;
    while (blank < i && !lines[i - 1 - blank].n) blank++;
    if (blank < 3 || blank == i || last > i + 2) return 0;
    for (size_t k = i; k < last; k++)
        if (lines[k].chars > 60 || strchr(",;:", lines[k].s[lines[k].n - 1])) return 0;
    return 1;
}

/// Appends the `n` bytes at `s` to `out`, escaped for XML; control characters left out.
static void put_escaped(fz_context *ctx, fz_buffer *out, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '&') fz_append_string(ctx, out, "&amp;");
        else if (c == '<') fz_append_string(ctx, out, "&lt;");
        else if (c == '>') fz_append_string(ctx, out, "&gt;");
        else if (c == '"') fz_append_string(ctx, out, "&quot;");
        else if (c == '\t') fz_append_byte(ctx, out, ' ');
        else if (c >= 0x20 && c != 0x7F) fz_append_byte(ctx, out, c);
    }
}

/// Appends the `n` bytes of text at `s` to `out` as `put_escaped` does, a word or words between
/// underscores (`_very_`, Project Gutenberg's way of writing italics in plain text) in italics;
/// `*italic` says whether they are open, across the lines of a paragraph.
static void put_text(fz_context *ctx, fz_buffer *out, const char *s, size_t n, int *italic) {
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_') continue;
        int before = i > 0 && (isalnum((unsigned char)s[i - 1]) || (unsigned char)s[i - 1] >= 0x80);
        int after = i + 1 < n && (isalnum((unsigned char)s[i + 1]) || (unsigned char)s[i + 1] >= 0x80);
        if (*italic ? after : before || !after) continue;
        put_escaped(ctx, out, s + from, i - from);
        fz_append_string(ctx, out, *italic ? "</i>" : "<i>");
        *italic = !*italic;
        from = i + 1;
    }
    put_escaped(ctx, out, s + from, n - from);
}

/// What a Project Gutenberg header says after `key` (`Title: `) in its first lines, into `out`.
static void header_value(const text_line *lines, size_t count, const char *key, char *out, size_t size) {
    size_t k = strlen(key);
    for (size_t i = 0; i < count && i < 200; i++) {
        if (lines[i].n <= k || strncasecmp(lines[i].s, key, k)) continue;
        text_line v = trimmed(lines[i].s + k, lines[i].n - k);
        snprintf(out, size, "%.*s", (int)v.n, v.s);
        return;
    }
}

/// Bytes of text a chapter file holds at most before the next paragraph starts another (a
/// novel without headings is laid out a file at a time, as an EPUB's chapters are); files a
/// book is cut into at most, past which headings start no file (MuPDF finds each by a linear
/// search, and Folio refuses an EPUB of more than `folio_mu_max_spine`); bytes of text read.
enum { text_file_bytes = 96 << 10, text_files = 4000, text_bytes = 256 << 20 };

/// The book being written: its archive, the chapter file open, and the contents so far.
typedef struct {
    fz_context *ctx;
    fz_zip_writer *zip;
    fz_buffer *chapter, *nav, *spine;
    const char *lang;
    int files, headings;
} text_epub;

/// Writes `*b` as entry `name` of the book and lets it go.
static void put_entry(text_epub *e, const char *name, fz_buffer **b) {
    fz_write_zip_entry(e->ctx, e->zip, name, *b, 0);
    fz_drop_buffer(e->ctx, *b);
    *b = NULL;
}

static void close_chapter(text_epub *e) {
    if (!e->chapter) return;
    fz_append_string(e->ctx, e->chapter, "</body></html>\n");
    char name[32];
    snprintf(name, sizeof name, "OEBPS/c%05d.xhtml", e->files);
    put_entry(e, name, &e->chapter);
    fz_append_printf(e->ctx, e->spine, "<itemref idref=\"c%d\"/>", e->files);
    e->files++;
}

static void open_chapter(text_epub *e) {
    close_chapter(e);
    e->chapter = fz_new_buffer(e->ctx, text_file_bytes + 4096);
    fz_append_printf(e->ctx, e->chapter, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"%s%s%s>"
                     "<head><title>%d</title><style>h2 { text-align: center; } p { margin: 0; text-indent: %s; } h2 + p { text-indent: 0; }"
                     " .verse { margin: 1em 0 1em 2em; } .verse p { text-indent: 0; }</style></head><body>\n",
                     *e->lang ? " lang=\"" : "", e->lang, *e->lang ? "\"" : "", e->files + 1,
                     // Chinese and Japanese indent a paragraph by two of their characters.
                     !strcmp(e->lang, "zh") || !strcmp(e->lang, "ja") ? "2em" : "1.5em");
}

fz_buffer *folio_text_book(fz_context *ctx, fz_buffer *file, const char *path) {
    unsigned char *bytes;
    size_t n = fz_buffer_storage(ctx, file, &bytes), length = 0;
    if (n > text_bytes) fz_throw(ctx, FZ_ERROR_GENERIC, "a text of %zu MB; at most %d MB are read", n >> 20, text_bytes >> 20);
    char *text = utf8_text(bytes, n, &length);
    if (!text) fz_throw(ctx, FZ_ERROR_GENERIC, "not a text file (it holds bytes no text has)");
    fz_buffer *book = NULL, *head = NULL;
    text_line *lines = NULL;
    text_epub e = {ctx};
    fz_var(book); fz_var(head); fz_var(lines); fz_var(e);
    fz_try(ctx) {
        size_t count = 0, room = 0, blank = 0;
        for (size_t i = 0; i <= length;) {
            size_t end = i;
            while (end < length && text[end] != '\n' && text[end] != '\r') end++;
            if (count == room) lines = fz_realloc_array(ctx, lines, room = room ? 2 * room : 1024, text_line);
            lines[count] = trimmed(text + i, end - i);
            blank += !lines[count].n;
            count++;
            if (end >= length) break;
            i = end + (text[end] == '\r' && end + 1 < length && text[end + 1] == '\n' ? 2 : 1);
        }
        if (blank == count) fz_throw(ctx, FZ_ERROR_GENERIC, "the text file holds no text");
        // Paragraphs are parted by blank lines, unless there are hardly any (one a line, as
        // Chinese novels and texts written by word processors are).
        int by_blanks = blank * 20 >= count - blank;
        // The width the text is wrapped at: nine lines in ten are no longer.
        size_t widths[256] = {0}, seen = 0, wrap = 0;
        for (size_t i = 0; i < count; i++) if (lines[i].n) widths[lines[i].chars < 255 ? lines[i].chars : 255]++, seen++;
        for (size_t w = 0, below = 0; w < 256; w++) if ((below += widths[w]) * 10 >= seen * 9) { wrap = w; break; }
        if (wrap < 40) wrap = 40;

        char title[256] = "", author[256] = "", language[64] = "";
        header_value(lines, count, "Title:", title, sizeof title);
        header_value(lines, count, "Author:", author, sizeof author);
        header_value(lines, count, "Language:", language, sizeof language);
        if (!title[0]) {
            const char *base = strrchr(path, '/');
            base = base ? base + 1 : path;
            const char *dot = strrchr(base, '.');
            snprintf(title, sizeof title, "%.*s", (int)(dot && dot > base ? dot - base : (ptrdiff_t)strlen(base)), base);
        }
        static const char *const languages[][2] = {{"English", "en"}, {"French", "fr"}, {"German", "de"}, {"Spanish", "es"},
            {"Italian", "it"}, {"Portuguese", "pt"}, {"Dutch", "nl"}, {"Finnish", "fi"}, {"Russian", "ru"}, {"Chinese", "zh"},
            {"Latin", "la"}, {"Swedish", "sv"}, {"Danish", "da"}, {"Polish", "pl"}, {"Hungarian", "hu"}, {"Greek", "el"}};
        e.lang = cjk_language(text, length);
        for (size_t k = 0; k < sizeof languages / sizeof *languages; k++)
            if (!strcasecmp(language, languages[k][0])) e.lang = languages[k][1];

        book = fz_new_buffer(ctx, length + length / 4 + 4096);
        e.zip = fz_new_zip_writer_with_output(ctx, fz_new_output_with_buffer(ctx, book));
        head = fz_new_buffer_from_copied_data(ctx, (const unsigned char *)"application/epub+zip", 20);
        put_entry(&e, "mimetype", &head);
        e.nav = fz_new_buffer(ctx, 4096);
        e.spine = fz_new_buffer(ctx, 4096);
        // A title page, as a printed book opens with (and the shelf shows as its cover).
        open_chapter(&e);
        fz_append_string(ctx, e.chapter, "<div style=\"margin-top: 40%; text-align: center\"><h1 style=\"font-size: 1.8em\">");
        put_escaped(ctx, e.chapter, title, strlen(title));
        fz_append_string(ctx, e.chapter, "</h1>");
        if (author[0]) {
            fz_append_string(ctx, e.chapter, "<p style=\"text-indent: 0; margin-top: 1.5em; font-size: 1.2em\">");
            put_escaped(ctx, e.chapter, author, strlen(author));
            fz_append_string(ctx, e.chapter, "</p>");
        }
        fz_append_string(ctx, e.chapter, "</div>\n");
        open_chapter(&e);
        for (size_t i = 0; i < count;) {
            if (!lines[i].n) { i++; continue; }
            size_t last = i + 1;
            if (by_blanks) while (last < count && lines[last].n) last++;
            // A heading, and the name that may follow it on a line or two of its own: a chapter.
            if (last <= i + 3 && (heading(lines[i]) || (by_blanks && set_apart(lines, i, last)))) {
                if (e.chapter->len > 700 && e.files < text_files) open_chapter(&e);
                fz_append_printf(ctx, e.nav, "<li><a href=\"c%05d.xhtml#h%d\">", e.files, e.headings);
                fz_append_printf(ctx, e.chapter, "<h2 id=\"h%d\">", e.headings++);
                for (size_t k = i; k < last; k++) {
                    if (k > i) fz_append_string(ctx, e.chapter, "<br/>"), fz_append_byte(ctx, e.nav, ' ');
                    put_escaped(ctx, e.chapter, lines[k].s, lines[k].n);
                    put_escaped(ctx, e.nav, lines[k].s, lines[k].n);
                }
                fz_append_string(ctx, e.chapter, "</h2>\n");
                fz_append_string(ctx, e.nav, "</a></li>");
                i = last;
                continue;
            }
            if (e.chapter->len > text_file_bytes && e.files < text_files) open_chapter(&e);
            // Prose fills its lines to the wrap, but for its last; verse does not.
            int verse = 0;
            for (size_t k = i; k + 1 < last; k++) verse |= lines[k].chars * 10 < wrap * 6;
            if (verse) fz_append_string(ctx, e.chapter, "<div class=\"verse\">");
            int italic = 0;
            for (size_t k = i; k < last; k++) {
                if (verse || k == i) fz_append_string(ctx, e.chapter, "<p>");
                else fz_append_byte(ctx, e.chapter, ' ');
                put_text(ctx, e.chapter, lines[k].s, lines[k].n, &italic);
                if (!verse && k + 1 < last) continue;
                fz_append_string(ctx, e.chapter, italic ? "</i></p>" : "</p>");
                italic = 0;
            }
            fz_append_string(ctx, e.chapter, verse ? "</div>\n" : "\n");
            i = last;
        }
        close_chapter(&e);

        head = fz_new_buffer(ctx, 1024);
        fz_append_string(ctx, head, "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">"
                                    "<rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles></container>");
        put_entry(&e, "META-INF/container.xml", &head);
        head = fz_new_buffer(ctx, 4096 + e.spine->len * 4);
        fz_append_string(ctx, head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\">"
                                    "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"id\">folio-text</dc:identifier><dc:title>");
        put_escaped(ctx, head, title, strlen(title));
        fz_append_string(ctx, head, "</dc:title>");
        if (author[0]) {
            fz_append_string(ctx, head, "<dc:creator>");
            put_escaped(ctx, head, author, strlen(author));
            fz_append_string(ctx, head, "</dc:creator>");
        }
        if (*e.lang) fz_append_printf(ctx, head, "<dc:language>%s</dc:language>", e.lang);
        fz_append_string(ctx, head, "</metadata><manifest><item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>");
        for (int f = 0; f < e.files; f++)
            fz_append_printf(ctx, head, "<item id=\"c%d\" href=\"c%05d.xhtml\" media-type=\"application/xhtml+xml\"/>", f, f);
        fz_append_string(ctx, head, "</manifest><spine>");
        fz_append_buffer(ctx, head, e.spine);
        fz_append_string(ctx, head, "</spine></package>");
        put_entry(&e, "OEBPS/content.opf", &head);
        head = fz_new_buffer(ctx, 1024 + e.nav->len);
        fz_append_string(ctx, head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">"
                                    "<head><title>Contents</title></head><body><nav epub:type=\"toc\"><ol>");
        fz_append_buffer(ctx, head, e.nav);
        fz_append_string(ctx, head, "</ol></nav></body></html>");
        put_entry(&e, "OEBPS/nav.xhtml", &head);
        fz_close_zip_writer(ctx, e.zip);
    }
    fz_always(ctx) {
        fz_drop_buffer(ctx, head);
        fz_drop_buffer(ctx, e.chapter);
        fz_drop_buffer(ctx, e.nav);
        fz_drop_buffer(ctx, e.spine);
        fz_drop_zip_writer(ctx, e.zip);
        fz_free(ctx, lines);
        g_free(text);
    }
    fz_catch(ctx) {
        fz_drop_buffer(ctx, book);
        fz_rethrow(ctx);
    }
    return book;
}
