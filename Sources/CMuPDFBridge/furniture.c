// The furniture of a reflowable book's page: its running head and folio, drawn in MuPDF's own
// serif round the text block.
// Does not: choose what the head says (outline.c) or lay out the page's text.
#include "bridge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// The width of `text` set in `font` at `size`, and, with `dev`, the text drawn from `x`, `y`.
static float show(fz_context *ctx, fz_device *dev, fz_matrix ctm, fz_font *font, float size, const char *text,
                  float x, float y, const float *color) {
    fz_text *t = NULL;
    float width = 0;
    fz_var(t);
    fz_try(ctx) {
        t = fz_new_text(ctx);
        fz_matrix trm = fz_scale(size, -size);
        trm.e = x;
        trm.f = y;
        for (const char *p = text; *p;) {
            int c;
            p += fz_chartorune(&c, p);
            fz_font *used = font;
            int gid = fz_encode_character_with_fallback(ctx, font, c, 0, FZ_LANG_UNSET, &used);
            fz_show_glyph(ctx, t, used, trm, gid, c, 0, 0, FZ_BIDI_LTR, FZ_LANG_UNSET);
            float advance = fz_advance_glyph(ctx, used, gid, 0) * size;
            trm.e += advance;
            width += advance;
        }
        if (dev) fz_fill_text(ctx, dev, t, ctm, fz_device_rgb(ctx), color, 1, fz_default_color_params);
    }
    fz_always(ctx) fz_drop_text(ctx, t);
    fz_catch(ctx) fz_rethrow(ctx);
    return width;
}

/// `text` on the line at `y`, placed by `align` between `left` and `right`; a line too long for
/// the measure is cut at a word and ends in an ellipsis.
static void line(fz_context *ctx, fz_device *dev, fz_matrix ctm, fz_font *font, float size, const char *text, int align,
                 float left, float right, float y, const float *color) {
    if (!text || !*text) return;
    char fitted[512];
    snprintf(fitted, sizeof fitted, "%s", text);
    float width = show(ctx, NULL, ctm, font, size, fitted, 0, 0, color);
    while (width > right - left) {
        char *end = strrchr(fitted, ' ');
        if (!end) return;
        // Punctuation before the cut goes with the words cut.
        while (end > fitted && strchr(",;:.-", end[-1])) end--;
        strcpy(end, "\xE2\x80\xA6");
        width = show(ctx, NULL, ctm, font, size, fitted, 0, 0, color);
    }
    float x = align == 0 ? left : align == 2 ? right - width : (left + right - width) / 2;
    show(ctx, dev, ctm, font, size, fitted, x, y, color);
}

void folio_draw_furniture(fz_context *ctx, fz_device *dev, fz_matrix ctm, const folio_mu_furniture *f) {
    fz_font *roman = NULL, *italic = NULL;
    fz_var(roman); fz_var(italic);
    const float color[3] = {(f->ink >> 16 & 255) / 255.0f, (f->ink >> 8 & 255) / 255.0f, (f->ink & 255) / 255.0f};
    fz_try(ctx) {
        roman = fz_new_base14_font(ctx, "Times-Roman");
        italic = fz_new_base14_font(ctx, "Times-Italic");
        line(ctx, dev, ctm, italic, f->size, f->head, f->head_align, f->left, f->right, f->head_y, color);
        line(ctx, dev, ctm, roman, f->size, f->foot, f->foot_align, f->left, f->right, f->foot_y, color);
    }
    fz_always(ctx) {
        fz_drop_font(ctx, roman);
        fz_drop_font(ctx, italic);
    }
    fz_catch(ctx) fz_rethrow(ctx);
}
