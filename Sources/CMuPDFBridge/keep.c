// A heading kept with its text: MuPDF 1.21 reads no `page-break-after: avoid` and left headings
// at a page's foot, their text overleaf (typeset.c puts what this file writes into a chapter's
// copy).
// Does not: look at a stylesheet (the room kept is a number of the heading's ems), or keep any
// other element with the next one.
#include "bridge.h"
#include <stdio.h>
#include <string.h>

/// Put first in every heading but a file's first, so that MuPDF does not leave a heading at a
/// page's foot with its text overleaf: MuPDF 1.21 reads no `page-break-after: avoid`
/// (html-layout.c), but moves a line that does not fit to the next page. This block's one line
/// is a picture of no width as tall as the heading, its bottom margin and two lines of text
/// after it: 6.5 of the heading's ems, room for Standard Ebooks' 3 em below a heading with one
/// line or more after it, two lines after a heading of smaller margins. Its own bottom margin
/// takes that height back, so where it fits nothing moves, and where it does not it takes the
/// heading with it, leaving the page that much shorter. A heading that another follows with
/// nothing between them (a poem's title, then its first part's number) keeps room for both: 13
/// ems (the two were parted, the first left at a page's foot). Each costs MuPDF a few KiB (its
/// boxes and picture): `heading_keeps` of them a file at most, past which headings are set as
/// before (100,000 headings took 450 MiB and four times as long to open). Its hair of top
/// padding keeps its margin from joining the heading's (MuPDF joins a first or last block's
/// margins with its parent's, taking the larger, unless the block has top padding). Styled in
/// place: a book's own rules for `div` or `img` would undo the balance.
enum { heading_keeps = 2000 };
static const char heading_keep[] =
    "<div style=\"display:block;font-size:1em;margin:0 0 -%sem 0;padding:0.01px 0 0 0;border:none;page-break-before:auto;page-break-after:auto\">"
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=\""
    " alt=\"\" style=\"display:inline;width:0;height:%sem;margin:0;padding:0;border:none\"/></div>";

/// Where a heading starts that the start tag at `i` leads to: the tag is the heading's, or
/// elements that hold nothing yet (a section, a header, an anchor) lead to it; 0 when none does.
/// `*scanned`: where looking stopped, so that the elements looked past are not looked past again.
static size_t heading_ahead(const unsigned char *s, size_t n, size_t i, size_t *scanned) {
    static const char *const leading[] = {"div", "section", "article", "header", "hgroup", "main", "a", "span"};
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) i++;
        *scanned = i;
        if (i + 1 >= n || s[i] != '<') return 0;
        size_t end = fb_tag_end(s, n, i);
        if (end >= n) return 0;
        const unsigned char *tag = s + i + 1;
        size_t len = end - i;
        if (fb_is_heading(tag, len)) {
            *scanned = end + 1;
            return s[end - 1] == '/' ? 0 : i;
        }
        int end_tag = tag[0] == '/', skipped = 0;
        for (size_t k = 0; k < sizeof leading / sizeof *leading && !skipped; k++)
            skipped = fb_tag_named(tag + end_tag, len - end_tag, leading[k]) && (!end_tag || leading[k][0] == 'a' || leading[k][0] == 's');
        if (!skipped) return 0;
        i = end + 1;
    }
    return 0;
}

void fb_look_for_heading(fb_heading_keep *k, const unsigned char *s, size_t n, size_t i) {
    if (k->count >= heading_keeps || i < k->scanned || !(k->heading = heading_ahead(s, n, i, &k->scanned))) return;
    k->from = i;
    k->length = 0;
    k->count++;
}

/// Moves the `id` of start tag `s` (`n` bytes; an `a`'s `name`) to `k`'s spans, writing the tag
/// without it into `out` (`size` bytes); its length, or 0 where it stays: MuPDF finds an element
/// by its first content, which would be the keep's picture at the foot of the keep's line, a
/// heading's height below it (the running head of a page opening with it took it for a section
/// lower down). An id over 200 bytes, or past the room for them, stays where it is.
static size_t without_anchor(fb_heading_keep *k, const unsigned char *s, size_t n, unsigned char *out, size_t size) {
    size_t start, end;
    const char *name = "id";
    int found = fb_attribute_at(s + 1, n - 1, name, &start, &end);
    if (!found && fb_tag_named(s + 1, n - 1, "a")) found = fb_attribute_at(s + 1, n - 1, name = "name", &start, &end);
    size_t value = end - start;
    if (!found || end + 1 >= n - 1 || value > 200 || memchr(s + 1 + start, '<', value) || memchr(s + 1 + start, '"', value)
        || k->length + value + 24 > sizeof k->spans)
        return 0;
    // Cut from the white space before the name (`fb_attribute_at` found one there) to the
    // closing quote: back from the opening quote over spaces, '=' and spaces to the name.
    size_t cut = start - 1;
    while (s[1 + cut - 1] == ' ') cut--;
    cut--;
    while (s[1 + cut - 1] == ' ') cut--;
    cut -= strlen(name) + 1;
    size_t kept = 1 + cut, rest = n - (1 + end + 1);
    if (kept + rest > size) return 0;
    k->length += snprintf(k->spans + k->length, sizeof k->spans - k->length, "<span id=\"%.*s\"></span>", (int)value,
                          (const char *)s + 1 + start);
    memcpy(out, s, kept);
    memcpy(out + kept, s + 1 + end + 1, rest);
    return kept + rest;
}

int fb_keeps_tag(fb_heading_keep *k, size_t i, const unsigned char **s, size_t *n, unsigned char *buffer, size_t size) {
    if (!k->heading || i < k->from || i > k->heading || (*s)[1] == '/') return 0;
    size_t plain = without_anchor(k, *s, *n, buffer, size);
    if (plain) *s = buffer, *n = plain;
    return 1;
}

void fb_put_heading_keep(fb_writer *w, fb_heading_keep *k, const unsigned char *s, size_t n, size_t end, const unsigned char *tag,
                         size_t tag_len) {
    // Whether another heading follows this one (looked for once per stretch: headings that never
    // close would each send the look to the end).
    size_t after = k->heading >= k->heading_end ? fb_element_end(s, n, end, tag, tag_len) : 0, looked;
    if (after) k->heading_end = after;
    const char *ems = after && heading_ahead(s, n, after, &looked) ? "13" : "6.5";
    fz_append_printf(w->ctx, w->out, heading_keep, ems, ems);
    fz_append_data(w->ctx, w->out, k->spans, k->length);
    k->heading = 0;
}
