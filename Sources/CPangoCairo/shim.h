// pango's text shaping on cairo image surfaces, for the on-screen layer (FolioOverlayText).
//
// The few pango calls the layer makes are declared here rather than through <pango/pangocairo.h>:
// that header needs glib's include folders, which only pkg-config knows, and pkg-config adds a
// -pthread SwiftPM refuses with a warning. These are pango's stable C ABI (pango 1.x).
#include <cairo/cairo.h>

typedef struct _PangoLayout PangoLayout;
typedef struct _PangoFontDescription PangoFontDescription;

enum { FOLIO_PANGO_SCALE = 1024 };
enum { FOLIO_PANGO_WEIGHT_BOLD = 700 };
enum { FOLIO_PANGO_ELLIPSIZE_END = 3 };
enum { FOLIO_PANGO_WRAP_WORD_CHAR = 2 };
enum { FOLIO_PANGO_ALIGN_LEFT = 0, FOLIO_PANGO_ALIGN_CENTER = 1, FOLIO_PANGO_ALIGN_RIGHT = 2 };

PangoLayout *pango_cairo_create_layout(cairo_t *cr);
void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);
PangoFontDescription *pango_font_description_from_string(const char *str);
void pango_font_description_free(PangoFontDescription *desc);
void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);
void pango_font_description_set_weight(PangoFontDescription *desc, int weight);
void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_set_width(PangoLayout *layout, int width);
void pango_layout_set_ellipsize(PangoLayout *layout, int ellipsize);
void pango_layout_set_wrap(PangoLayout *layout, int wrap);
int pango_layout_is_ellipsized(PangoLayout *layout);
int pango_layout_get_line_count(PangoLayout *layout);
void pango_layout_set_single_paragraph_mode(PangoLayout *layout, int setting);
void pango_layout_set_alignment(PangoLayout *layout, int alignment);
void pango_layout_get_pixel_size(PangoLayout *layout, int *width, int *height);
void g_object_unref(void *object);
