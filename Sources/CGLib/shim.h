// GLib for CMuPDFBridge: its SHA-1 (`GChecksum`), the key of EPUB's font obfuscation
// (obfuscation.c). GLib is already Folio's through poppler-glib and pango.
#include <glib.h>
