// FolioApp — a book's faces as images for the scene: which page image each face shows
// (`PageImages`), the page caches behind them (`FaceImages`) and the crops of zoomed vector
// pages (`PageDetail`). Does not: upload textures, draw, or decide what is on screen (the
// scene says).
