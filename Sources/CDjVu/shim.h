// djvulibre's ddjvuapi, for FolioDjVu (djvulibre is GPL: see docs/djvu.md).
#include <libdjvu/ddjvuapi.h>
#include <libdjvu/miniexp.h>

// Function-like macros Swift cannot call.
static inline ddjvu_status_t folio_ddjvu_pageinfo(ddjvu_document_t *doc, int page, ddjvu_pageinfo_t *info) {
    return ddjvu_document_get_pageinfo(doc, page, info);
}
static inline ddjvu_status_t folio_ddjvu_fileinfo(ddjvu_document_t *doc, int file, ddjvu_fileinfo_t *info) {
    return ddjvu_document_get_fileinfo(doc, file, info);
}
static inline int folio_miniexp_is_dummy(miniexp_t p) { return p == miniexp_dummy; }

#include <linux/memfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/// An anonymous file in memory, closed on exec, or -1 (memfd_create, which glibc declares only
/// under _GNU_SOURCE).
static inline int folio_memory_file(const char *name) { return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC); }
