// libarchive for FolioArchive: reads zip, tar, 7z and rar (what libarchive reads) without
// unpacking to disk. Its API reports errors by return codes, so Swift calls it directly.
#include <archive.h>
#include <archive_entry.h>
