// EPUB's font obfuscation undone in the prepared copy (epubcopy.c), so that a book's own fonts
// set it: publishers obfuscate the fonts they embed (InDesign by Adobe's algorithm, Sigil and
// calibre by the IDPF's), which is no DRM: the key is the book's own identifier. The first 1040
// bytes of a font (IDPF) are XORed with the SHA-1 of the package's unique identifier, white
// space taken out; the first 1024 (Adobe) with the 16 bytes of its `urn:uuid:` identifier.
// Does not: decrypt anything else (a book encrypted otherwise is refused: package.c), or keep a
// font whose bytes, undone, are no font (a wrong key): it is emptied, and MuPDF's fonts stand in.
#include "bridge.h"
#include <glib.h>
#include <ctype.h>
#include <string.h>

int fb_font_obfuscation(const char *algorithm) {
    if (!algorithm) return 0;
    return !strcmp(algorithm, "http://www.idpf.org/2008/embedding") ? 1 : !strcmp(algorithm, "http://ns.adobe.com/pdf/enc#RC") ? 2 : 0;
}

/// The 16 bytes of UUID `text` (`urn:uuid:` and dashes allowed) into `key`; 0 when it is none.
static int uuid_bytes(const char *text, unsigned char key[16]) {
    if (!strncasecmp(text, "urn:uuid:", 9)) text += 9;
    int digits = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '-' || isspace((unsigned char)*c)) continue;
        if (!isxdigit((unsigned char)*c) || digits >= 32) return 0;
        int v = isdigit((unsigned char)*c) ? *c - '0' : tolower((unsigned char)*c) - 'a' + 10;
        key[digits / 2] = (unsigned char)(digits % 2 ? key[digits / 2] | v : v << 4);
        digits++;
    }
    return digits == 32;
}

void fb_read_obfuscation(fz_context *ctx, fz_archive *arch, const char *opf_path, fz_xml *enc, fb_obfuscation *o) {
    memset(o, 0, sizeof *o);
    o->enc = enc;
    fz_xml *opf = NULL;
    fz_var(opf);
    fz_try(ctx) {
        opf = opf_path ? fb_entry_xml(ctx, arch, opf_path) : NULL;
        fz_xml *package = opf ? fz_xml_find_dfs(opf, "package", NULL, NULL) : NULL;
        const char *unique = package ? fz_xml_att(package, "unique-identifier") : NULL;
        fz_xml *id = unique ? fz_xml_find_dfs(opf, "identifier", "id", unique) : NULL;
        const char *text = id ? fz_xml_text(fz_xml_down(id)) : NULL;
        if (text) {
            char bare[1024];
            size_t k = 0;
            for (const char *c = text; *c && k + 1 < sizeof bare; c++)
                if (*c != ' ' && *c != '\t' && *c != '\r' && *c != '\n') bare[k++] = *c;
            GChecksum *sha1 = g_checksum_new(G_CHECKSUM_SHA1);
            gsize length = sizeof o->idpf;
            g_checksum_update(sha1, (const guchar *)bare, (gssize)k);
            g_checksum_get_digest(sha1, o->idpf, &length);
            g_checksum_free(sha1);
            o->has_idpf = length == sizeof o->idpf;
            o->has_adobe = uuid_bytes(text, o->adobe);
        }
        // Adobe's key is a UUID among the identifiers where the unique one is not.
        for (fz_xml *other = opf ? fz_xml_find_dfs(opf, "identifier", NULL, NULL) : NULL; other && !o->has_adobe;
             other = fz_xml_find_next_dfs(other, "identifier", NULL, NULL)) {
            const char *t = fz_xml_text(fz_xml_down(other));
            o->has_adobe = t && !strncasecmp(t, "urn:uuid:", 9) && uuid_bytes(t, o->adobe);
        }
    }
    fz_always(ctx) fz_drop_xml(ctx, opf);
    fz_catch(ctx) o->has_idpf = o->has_adobe = 0;
}

/// Whether the `n` bytes at `s` begin as a font file does (TrueType, OpenType, a collection, WOFF).
static int font_signature(const unsigned char *s, size_t n) {
    static const char *const tags[] = {"OTTO", "true", "ttcf", "wOFF", "wOF2", "typ1"};
    if (n < 4) return 0;
    if (!memcmp(s, "\x00\x01\x00\x00", 4)) return 1;
    for (size_t k = 0; k < sizeof tags / sizeof *tags; k++)
        if (!memcmp(s, tags[k], 4)) return 1;
    return 0;
}

int fb_undo_obfuscation(fz_context *ctx, fb_obfuscation *o, const char *name, fz_buffer *entry) {
    if (!strcmp(name, "META-INF/encryption.xml")) return 0;
    for (fz_xml *data = o->enc ? fz_xml_find_dfs(o->enc, "EncryptedData", NULL, NULL) : NULL; data;
         data = fz_xml_find_next_dfs(data, "EncryptedData", NULL, NULL)) {
        fz_xml *reference = fz_xml_find_dfs(data, "CipherReference", NULL, NULL), *method = fz_xml_find_dfs(data, "EncryptionMethod", NULL, NULL);
        const char *uri = reference ? fz_xml_att(reference, "URI") : NULL, *algorithm = method ? fz_xml_att(method, "Algorithm") : NULL;
        if (!uri || strcmp(uri, name)) continue;
        int idpf = fb_font_obfuscation(algorithm) == 1 && o->has_idpf;
        int adobe = fb_font_obfuscation(algorithm) == 2 && o->has_adobe;
        unsigned char *s;
        size_t n = fz_buffer_storage(ctx, entry, &s);
        const unsigned char *key = idpf ? o->idpf : o->adobe;
        size_t key_len = idpf ? sizeof o->idpf : sizeof o->adobe, span = idpf ? 1040 : 1024;
        for (size_t i = 0; (idpf || adobe) && i < span && i < n; i++) s[i] ^= key[i % key_len];
        if (!(idpf || adobe) || !font_signature(s, n)) {
            // Emptied, not left out: MuPDF then looked for the font outside the book.
            fz_clear_buffer(ctx, entry);
            o->unread++;
        }
        return 1;
    }
    return 1;
}
