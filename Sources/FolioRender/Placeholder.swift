enum FolioRenderPlaceholder {}
