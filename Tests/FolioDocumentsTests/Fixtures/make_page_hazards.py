#!/usr/bin/python3
"""Writes PDFs whose pages poppler (22.12, cairo) never finishes, into the folder given, with
nothing but Python. Each has one page of 200 x 200 points.

- `shading-turned.pdf`, `shading-mirrored.pdf`: a function-based shading (type 1) whose
  matrix turns it by 45 degrees, or mirrors it (as pdf.js's function_based_shading.pdf);
  `shading-plain.pdf`: the same unturned, which draws (black to white from left to right).
- `jbig2-bomb.pdf`: a content stream filtered by JBIG2Decode whose page information segment
  says 90000 x 90000 pixels (as pdf.js's bomb_giant.pdf).
- `forms-fan-out.pdf`: forms nested 30 deep, each drawing the next twice (2^30 drawings).
- `type3-set-often.pdf`: a Type 3 font of 300 glyphs set 4,000 times (as TeX's bitmap fonts
  are, word by word): not a fan-out, it draws."""
import struct, sys
from raw_pdf import raw_pdf

out = sys.argv[1]


def stream(dict_, data):
    return b"<< %s /Length %d >>\nstream\n" % (dict_, len(data)) + data + b"\nendstream"


def page(contents, resources=b"<< >>"):
    return [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources %s >>" % resources,
            contents]


def shading(name, matrix):
    function = stream(b"/FunctionType 4 /Domain [0 1 0 1] /Range [0 1]", b"{ pop }")
    sh = b"<< /ShadingType 1 /ColorSpace /DeviceGray /Domain [0 1 0 1] /Matrix %s /Function 6 0 R >>" % matrix
    raw_pdf(out + "/" + name, page(stream(b"", b"q 0 0 200 200 re W n /S sh Q"), b"<< /Shading << /S 5 0 R >> >>")
            + [sh, function])


shading("shading-turned.pdf", b"[100 100 -100 100 100 0]")
shading("shading-mirrored.pdf", b"[200 0 0 -200 0 200]")
shading("shading-plain.pdf", b"[200 0 0 200 0 0]")

# Segment 0: page information (type 48), page 1, 19 bytes: width, height, resolutions, flags.
info = struct.pack(">IIIIBH", 90000, 90000, 0, 0, 0, 0)
segment = struct.pack(">IBBBI", 0, 48, 0, 1, len(info)) + info
raw_pdf(out + "/jbig2-bomb.pdf", page(stream(b"/Filter /JBIG2Decode", segment + b"\xff" * 64)))

depth = 30
forms = [stream(b"/Type /XObject /Subtype /Form /BBox [0 0 200 200]"
                + (b"" if k == depth - 1 else b" /Resources << /XObject << /X %d 0 R >> >>" % (6 + k)),
                b"0 0 1 rg 10 10 20 20 re f" if k == depth - 1 else b"/X Do /X Do") for k in range(depth)]
raw_pdf(out + "/forms-fan-out.pdf", page(stream(b"", b"/X Do"), b"<< /XObject << /X 5 0 R >> >>") + forms)

glyphs = 300
names = b" ".join(b"/g%d" % k for k in range(glyphs))
font = (b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.001 0 0 0.001 0 0]"
        b" /Encoding << /Type /Encoding /Differences [0 %s] >> /FirstChar 0 /LastChar %d /Widths [%s]"
        b" /CharProcs << %s >> >>" % (names, glyphs - 1, b" ".join([b"1000"] * glyphs), b" ".join(b"/g%d 6 0 R" % k for k in range(glyphs))))
words = b" ".join(b"BT /T 12 Tf %d %d Td <%02x> Tj ET" % (10 + k % 180, 10 + k // 22, k % glyphs) for k in range(4000))
raw_pdf(out + "/type3-set-often.pdf", page(stream(b"", words), b"<< /Font << /T 5 0 R >> >>")
        + [font, stream(b"", b"1000 0 0 0 750 750 d1 0 0 750 750 re f")])
