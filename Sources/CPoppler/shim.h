// poppler's GLib API with cairo, for FolioPDF (poppler is GPL: see README, Licence).
#include <poppler.h>
#include <cairo.h>
