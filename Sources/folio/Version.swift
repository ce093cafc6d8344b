/// Folio's version: `folio --version`, and the Makefile reads it from this line for the Debian
/// package (keep the form `let folioVersion = "X.Y.Z"`).
let folioVersion = "0.1.0"
