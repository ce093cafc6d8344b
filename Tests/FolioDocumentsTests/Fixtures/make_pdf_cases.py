#!/usr/bin/python3
"""Writes the PDFs poppler and MuPDF are compared on (docs/documents.md, "PDF: poppler or MuPDF"),
into the folder given, with nothing but Python: each is one page whose colours lie at known
places, so that a test can tell whether an engine drew it right. Page boxes other than the
plain one, a rotated page, a form field drawn only by its appearance, transparency, a damaged
cross-reference table."""
import os, sys
from raw_pdf import raw_pdf

out = sys.argv[1]


def page_pdf(name, page, content, extra=(), xref_ok=True, acroform=None):
    """One page: `page` adds to its dictionary, `content` is its content stream, `extra` are
    objects 5 on, `acroform` the catalog's form dictionary; with `xref_ok` false its
    cross-reference table points 7 bytes off."""
    form = acroform or (b"<< /Fields [5 0 R] >>" if name == "form.pdf" else None)
    objs = [b"<< /Type /Catalog /Pages 2 0 R%s >>" % (b" /AcroForm " + form if form else b""),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R " + page + b" /Contents 4 0 R >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"] + list(extra)
    raw_pdf(os.path.join(out, name), objs, xref_shift=0 if xref_ok else 7)


# Red in the top-left quarter of a 200 x 300 portrait page turned 90 degrees clockwise: shown
# as a 300 x 200 landscape page with red in its top-right quarter.
page_pdf("rotated.pdf", b"/MediaBox [0 0 200 300] /Rotate 90", b"1 0 0 rg 0 150 100 150 re f")
# A crop box inside the media box: red outside it (never shown), blue in the crop's lower-left
# quarter (shown as a 200 x 300 page, blue at its lower left).
page_pdf("cropped.pdf", b"/MediaBox [0 0 400 400] /CropBox [100 100 300 400]",
         b"1 0 0 rg 0 0 100 400 re f 0 0 1 rg 100 100 100 150 re f")
# A media box whose origin is not 0,0: green in its lower-left quarter.
page_pdf("origin.pdf", b"/MediaBox [-100 -100 100 200]", b"0 0.6 0 rg -100 -100 100 150 re f")
# Black at half opacity over the whole page: grey.
page_pdf("transparency.pdf", b"/MediaBox [0 0 200 300] /Resources << /ExtGState << /G << /ca 0.5 >> >> >>",
         b"/G gs 0 0 0 rg 0 0 200 300 re f")
# A form's text field with no page content, drawn by its appearance stream: yellow over the
# page's top half.
appearance = b"1 1 0 rg 0 0 200 150 re f"
page_pdf("form.pdf", b"/MediaBox [0 0 200 300] /Annots [5 0 R]", b"",
         [b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [0 150 200 300] /F 4 /P 3 0 R /AP << /N 6 0 R >> >>",
          b"<< /Type /XObject /Subtype /Form /BBox [0 0 200 150] /Length %d >>\nstream\n" % len(appearance) + appearance + b"\nendstream"])
# A form to fill: a text field "name" (Helvetica 14, empty) across the top, and a check box
# "agree" below it whose on state draws a black square.
square = b"0 g 0 0 20 20 re f"
page_pdf("fillable.pdf", b"/MediaBox [0 0 200 300] /Annots [5 0 R 6 0 R]", b"",
         [b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [20 240 180 270] /F 4 /P 3 0 R /DA (/Helv 14 Tf 0 g) >>",
          b"<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /Rect [20 180 40 200] /F 4 /P 3 0 R /V /Off /AS /Off"
          b" /AP << /N << /Yes 7 0 R /Off 8 0 R >> >> >>",
          b"<< /Type /XObject /Subtype /Form /BBox [0 0 20 20] /Length %d >>\nstream\n" % len(square) + square + b"\nendstream",
          b"<< /Type /XObject /Subtype /Form /BBox [0 0 20 20] /Length 0 >>\nstream\n\nendstream",
          b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"],
         acroform=b"<< /Fields [5 0 R 6 0 R] /DA (/Helv 14 Tf 0 g) /DR << /Font << /Helv 9 0 R >> >> >>")
# Every cross-reference offset wrong by 7 bytes: magenta over the whole page once repaired.
page_pdf("bad-xref.pdf", b"/MediaBox [0 0 200 300]", b"1 0 1 rg 0 0 200 300 re f", xref_ok=False)
