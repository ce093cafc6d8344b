// FolioScript — the record-script language (`Script`, and `ScriptRunner`, which plays it on a
// controller at a frame rate through the controller's actions) and the command line's formats
// (`LayoutJSON`, `StillState`), shared by the `folio` command and the tests. Does not: draw,
// read or write files, or parse options (the command does).
