// pango's text shaping on cairo image surfaces, for the on-screen layer (FolioOverlayText),
// through pango's own headers: their include folders (glib's among them) come from pkg-config.
#include <pango/pangocairo.h>
