#!/usr/bin/python3
"""Writes PDFs whose Type 3 glyphs draw themselves in a cycle, into the folder given, with
nothing but Python. Modelled on pdf.js's ContentStreamCycleType3insideType3.pdf: font A's glyph
shows font B, whose glyph fills with a tiling pattern that shows font A again (poppler follows
it until memory runs out). Three pages: blue at the lower left, the cycle, and a plain Type 3
font (no resources of its own, as TeX's bitmap fonts) drawing a black square at the lower left.
`type3-cycle.pdf` is written object by object; `type3-cycle-compressed.pdf` has its streams
Flate-compressed and its fonts and pattern inside an object stream."""
import os, sys, zlib
from raw_pdf import raw_pdf

out = sys.argv[1]


def stream(content, compress, extra=b""):
    data = zlib.compress(content) if compress else content
    return (b"<< %s%s /Length %d >>\nstream\n" % (extra, b" /Filter /FlateDecode" if compress else b"", len(data))
            + data + b"\nendstream")


def write(name, compress):
    glyph_a = b"1000 0 d0 20 w 1 0 0 RG 0 0 750 750 re s BT /FB 50 Tf (ccc) Tj ET"
    glyph_b = b"900 0 d0 2 Tr 10 w 0 0 1 RG /Pattern cs /P1 scn BT /F1 60 Tf 30 0 0 30 15 15 Tm -3 Tc 0 Tw (ab) Tj ET"
    pattern = b"BT /CyclicFont 4 Tf 10 0 0 10 1 1 Tm 0 Tc 0 Tw 1 0 1 rg (ba) Tj ET"
    square = b"1000 0 0 0 1000 1000 d1 0 0 1000 1000 re f"
    # Objects 10 on: the fonts and the pattern's dictionary parts, in an object stream when compressed.
    fonts = {
        10: b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.01 0 0 0.01 0 0]"
            b" /Encoding << /Type /Encoding /Differences [97 /rect /tri] >> /FirstChar 97 /LastChar 98 /Widths [1000 1000]"
            b" /Resources << /Font << /FB 11 0 R >> >> /CharProcs << /rect 20 0 R /tri 20 0 R >> >>",
        11: b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.004 0 0 0.004 0 0]"
            b" /Encoding << /Type /Encoding /Differences [99 /inside] >> /FirstChar 99 /LastChar 99 /Widths [900]"
            b" /Resources << /Font << /F1 12 0 R >> /Pattern << /P1 22 0 R >> >> /CharProcs << /inside 21 0 R >> >>",
        12: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        13: b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0]"
            b" /Encoding << /Type /Encoding /Differences [120 /sq] >> /FirstChar 120 /LastChar 120 /Widths [1000]"
            b" /CharProcs << /sq 23 0 R >> >>",
    }
    objs = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R 5 0 R 7 0 R] /Count 3 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>",
        4: stream(b"0 0 1 rg 0 0 100 100 re f", compress),
        5: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 840] /Resources << /Font << /FA 10 0 R >> >> /Contents 6 0 R >>",
        6: stream(b"BT 1 0 0 1 100 500 Tm 2 Tr /FA 20 Tf 20 20 Td 50 Tw (ab) Tj ET", compress),
        7: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Resources << /Font << /FX 13 0 R >> >> /Contents 8 0 R >>",
        8: stream(b"0 g BT /FX 100 Tf 0 0 Td (x) Tj ET", compress),
        20: stream(glyph_a, compress),
        21: stream(glyph_b, compress),
        22: stream(pattern, compress, b"/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 2 /Matrix [0.9 0 0 0.9 0 0] /BBox [0 0 60 60]"
                                      b" /XStep 55 /YStep 32 /Resources << /Font << /CyclicFont 10 0 R >> >>"),
        23: stream(square, compress),
    }
    if not compress:
        objs.update(fonts)
        # raw_pdf numbers objects 1…n: fill the gaps with nulls.
        raw_pdf(os.path.join(out, name), [objs.get(n, b"null") for n in range(1, max(objs) + 1)])
        return
    # Objects in an object stream are found through a cross-reference stream only.
    header, body = b"", b""
    for n, obj in sorted(fonts.items()):
        header += b"%d %d " % (n, len(body))
        body += obj + b"\n"
    objs[14] = stream(header + body, True, b"/Type /ObjStm /N %d /First %d" % (len(fonts), len(header)))
    data, offsets = bytearray(b"%PDF-1.5\n"), {}
    for n, obj in sorted(objs.items()):
        offsets[n] = len(data)
        data += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    size = max(objs) + 2
    xref_num, rows = size - 1, b""
    offsets[xref_num] = len(data)
    inside = {n: i for i, n in enumerate(sorted(fonts))}
    for n in range(size):
        if n in inside:
            rows += bytes([2]) + (14).to_bytes(4, "big") + inside[n].to_bytes(2, "big")
        elif n in offsets:
            rows += bytes([1]) + offsets[n].to_bytes(4, "big") + b"\0\0"
        else:
            rows += bytes([0]) + b"\0" * 6
    data += b"%d 0 obj\n" % xref_num + stream(rows, True, b"/Type /XRef /Size %d /W [1 4 2] /Root 1 0 R" % size) + b"\nendobj\n"
    data += b"startxref\n%d\n%%%%EOF\n" % offsets[xref_num]
    open(os.path.join(out, name), "wb").write(bytes(data))


write("type3-cycle.pdf", False)
write("type3-cycle-compressed.pdf", True)
