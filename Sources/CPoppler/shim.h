// poppler's GLib API with cairo, for FolioPDF (poppler is GPL: see README, Licence), and zlib
// for the light reader of a file's objects (PageHazards.swift).
#include <poppler.h>
#include <cairo.h>
#include <zlib.h>
