// SQLite for FolioState: the reading state kept in one database. Its API reports errors by
// return codes, so Swift calls it directly.
#include <sqlite3.h>
