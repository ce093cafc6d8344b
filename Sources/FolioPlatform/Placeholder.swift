enum FolioPlatformPlaceholder {}
