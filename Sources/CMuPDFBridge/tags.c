// Markup read as tags: a tag's name, its end, an attribute's value, an element's end.
// Does not parse markup into a tree or check it (hostile.c), nor write anything.
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int fb_tag_named(const unsigned char *s, size_t n, const char *name) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp((const char *)s, name, k) != 0) return 0;
    unsigned char next = s[k];
    return next == '>' || next == '/' || next == ' ' || next == '\t' || next == '\n' || next == '\r';
}

size_t fb_tag_end(const unsigned char *s, size_t n, size_t i) {
    size_t end = i + 1;
    unsigned char quote = 0;
    while (end < n && (quote || s[end] != '>')) {
        if (quote && s[end] == quote) quote = 0;
        else if (!quote && (s[end] == '"' || s[end] == '\'')) quote = s[end];
        end++;
    }
    return end;
}

/// Where the value of attribute `name` lies in the start tag `tag` (of `n` bytes): from `*start`
/// to `*end`, its closing quote (`n` when it has none); 0 if absent.
int fb_attribute_at(const unsigned char *tag, size_t n, const char *name, size_t *start, size_t *end) {
    size_t k = strlen(name);
    for (size_t i = 1; i + k + 2 < n; i++) {
        unsigned char before = tag[i - 1];
        if ((before != ' ' && before != '\t' && before != '\n' && before != '\r') || strncmp((const char *)tag + i, name, k) != 0) continue;
        size_t j = i + k;
        while (j < n && tag[j] == ' ') j++;
        if (j >= n || tag[j] != '=') continue;
        j++;
        while (j < n && tag[j] == ' ') j++;
        if (j >= n || (tag[j] != '"' && tag[j] != '\'')) continue;
        unsigned char quote = tag[j++];
        *start = *end = j;
        while (*end < n && tag[*end] != quote) (*end)++;
        return 1;
    }
    return 0;
}

/// The value of attribute `name` in the start tag `tag` (of `n` bytes) into `out`; 0 if absent.
int fb_attribute(const unsigned char *tag, size_t n, const char *name, char *out, size_t size) {
    size_t start, end;
    if (!fb_attribute_at(tag, n, name, &start, &end)) return 0;
    size_t len = end - start < size - 1 ? end - start : size - 1;
    memcpy(out, tag + start, len);
    out[len] = 0;
    return 1;
}

/// Where the element whose start tag (named `tag`, `n` bytes) ends at `end` ends: after its
/// matching end tag (elements of the same name inside it counted), or the markup's end.
size_t fb_tag_name_length(const unsigned char *tag, size_t n) {
    size_t len = 0;
    while (len < n && tag[len] != ' ' && tag[len] != '>' && tag[len] != '/' && tag[len] != '\t' && tag[len] != '\n' && tag[len] != '\r') len++;
    return len;
}

size_t fb_element_end(const unsigned char *s, size_t total, size_t end, const unsigned char *tag, size_t n) {
    size_t len = fb_tag_name_length(tag, n);
    if (!len || (end >= 2 && s[end - 2] == '/')) return end;
    int depth = 1;
    // The first '>' at or after the tag looked at, found once for all the tags before it (each
    // looked for it to the markup's end: tags that never close made the search quadratic).
    size_t gt = end;
    for (size_t j = end; j + 1 + len < total; j++) {
        if (s[j] != '<') continue;
        int closing = s[j + 1] == '/';
        const unsigned char *name = s + j + 1 + closing;
        if ((size_t)(s + total - name) <= len || strncasecmp((const char *)name, (const char *)tag, len)) continue;
        unsigned char after = name[len];
        if (after != '>' && after != ' ' && after != '/' && after != '\t' && after != '\n' && after != '\r') continue;
        if (gt < j) gt = j;
        while (gt < total && s[gt] != '>') gt++;
        if (!closing) {
            if (gt < total && s[gt - 1] != '/') depth++;
        } else if (--depth == 0) {
            return gt < total ? gt + 1 : total;
        }
    }
    return total;
}

size_t fb_section_end(const unsigned char *s, size_t n, size_t i, const char *open, const char *close) {
    size_t a = strlen(open), b = strlen(close);
    if (n - i < a || memcmp(s + i, open, a)) return 0;
    size_t end = i + a;
    while (end + b <= n && memcmp(s + end, close, b)) end++;
    return end + b <= n ? end + b : n;
}

/// Headings, display type a printed book does not break ("Avertisse-ments"): their text is not
/// hyphenated, their tags prepared as any others (a heading's spans keep their `epub:type`).
int fb_is_heading(const unsigned char *tag, size_t n) {
    static const char *const headings[] = {"h1", "h2", "h3", "h4", "h5", "h6"};
    for (size_t k = 0; k < sizeof headings / sizeof *headings; k++)
        if (fb_tag_named(tag, n, headings[k])) return 1;
    return 0;
}

int fb_style_at(const unsigned char *s, size_t n, size_t i, size_t *open, size_t *close) {
    if (i + 7 >= n || s[i] != '<' || !fb_tag_named(s + i + 1, n - i - 1, "style")) return 0;
    *open = fb_tag_end(s, n, i);
    if (*open >= n) return -1;
    *close = *open + 1;
    while (*close + 8 <= n && !(s[*close] == '<' && !strncasecmp((const char *)s + *close, "</style", 7))) (*close)++;
    return *close + 8 > n ? -1 : 1;
}
