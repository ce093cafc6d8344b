// FolioReader — the reading state machine and its input: actions played against time
// (`BookController`, one queue for actions that wait), the key map, pointer gestures (pinch
// included), zoom and pan, page-number entry, reading positions, bookmarks, reader settings,
// tuning (`Tune`), the image-to-image flip (`FlipTransition`) and the reading session (books,
// controller, places). Does not: draw or touch GL, load page images, read the clock (time comes
// with each action), or know of scripts, windows and the command line.
