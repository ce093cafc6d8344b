#!/usr/bin/python3
"""Writes the documents the FolioDocuments tests read, into the folder given (Debian's
python3-cairo and python3-pil). Each PDF page is filled with its own colour and carries its
number, so a test can tell which page it sees; `long.pdf` has the page count given."""
import hashlib, io, os, random, sys, tarfile, zipfile
import cairo
from PIL import Image

out, long_pages = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40


def colour(i):
    # Distinct, saturated colours, one per page number.
    return [(0.9, 0.1, 0.1), (0.1, 0.7, 0.1), (0.1, 0.2, 0.9), (0.9, 0.8, 0.1), (0.7, 0.1, 0.8)][i % 5]


def pdf(name, sizes, title=None):
    path = os.path.join(out, name)
    surface = cairo.PDFSurface(path, *sizes[0])
    if title:
        surface.set_metadata(cairo.PDFMetadata.TITLE, title)
    for i, (w, h) in enumerate(sizes):
        surface.set_size(w, h)
        cr = cairo.Context(surface)
        cr.set_source_rgb(*colour(i))
        # A band across the middle half: paper above and below.
        cr.rectangle(0, h / 4, w, h / 2)
        cr.fill()
        cr.set_source_rgb(0, 0, 0)
        cr.select_font_face("sans-serif")
        cr.set_font_size(min(w, h) / 6)
        cr.move_to(w / 10, h / 8)
        cr.show_text(str(i + 1))
        cr.show_page()
    surface.finish()
    return path


portrait = pdf("portrait.pdf", [(420, 595)] * 10, title="A Portrait Document")
pdf("landscape.pdf", [(842, 595)] * 3)
pdf("mixed.pdf", [(420, 595), (842, 595), (500, 500)])
# A first page no book can take the shape of (200:1): the book keeps the reference shape.
pdf("strip.pdf", [(20000, 100), (420, 595)])
pdf("long.pdf", [(420, 595)] * long_pages)

# Thin black lines one point apart: sharp only when rasterised at the size shown.
surface = cairo.PDFSurface(os.path.join(out, "lines.pdf"), 400, 400)
cr = cairo.Context(surface)
cr.set_source_rgb(0, 0, 0)
cr.set_line_width(0.25)
for k in range(40):
    cr.move_to(100 + 2 * k + 0.5, 100)
    cr.line_to(100 + 2 * k + 0.5, 300)
cr.stroke()
cr.show_page()
surface.finish()

# Ten black bars two points wide, each at another fraction of a pixel: strokes wider than a
# pixel at fit, whose edges show how sharp a zoomed page is drawn.
surface = cairo.PDFSurface(os.path.join(out, "bars.pdf"), 400, 400)
cr = cairo.Context(surface)
cr.set_source_rgb(0, 0, 0)
for k in range(10):
    cr.rectangle(100 + 8.3 * k, 100, 2, 200)
cr.fill()
cr.show_page()
surface.finish()

# Printed page labels (roman front matter, then from 1) and an author in the metadata.
surface = cairo.PDFSurface(os.path.join(out, "labelled.pdf"), 420, 595)
surface.set_metadata(cairo.PDFMetadata.AUTHOR, "A. Writer")
cr = cairo.Context(surface)
for label in ["i", "ii", "iii", "1", "2"]:
    surface.set_page_label(label)
    cr.show_page()
surface.finish()

data = open(portrait, "rb").read()
open(os.path.join(out, "truncated.pdf"), "wb").write(data[: len(data) // 3])
random.seed(7)
open(os.path.join(out, "garbage.pdf"), "wb").write(bytes(random.randrange(256) for _ in range(5000)))


def rc4(key, data):
    s, j, out_ = list(range(256)), 0, bytearray()
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    i = j = 0
    for b in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out_.append(b ^ s[(s[i] + s[j]) % 256])
    return bytes(out_)


def encrypted_pdf(path, user_password):
    """A one-page PDF under the standard security handler, revision 2 (40-bit RC4): opens only
    with `user_password` (PDF 1.7, 7.6.3, algorithms 2 and 4)."""
    pad = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
    file_id = bytes(range(16))
    o = rc4(hashlib.md5(pad).digest()[:5], pad)  # owner password empty
    p = -4
    key = hashlib.md5((user_password.encode() + pad)[:32] + o + p.to_bytes(4, "little", signed=True) + file_id).digest()[:5]
    u = rc4(key, pad)

    def enc(num, data):
        return rc4(hashlib.md5(key + num.to_bytes(3, "little") + b"\0\0").digest()[:10], data)

    content = enc(4, b"0 0 1 rg 0 0 200 200 re f")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Filter /Standard /V 1 /R 2 /O <" + o.hex().encode() + b"> /U <" + u.hex().encode() + b"> /P -4 >>",
    ]
    body, offsets = io.BytesIO(), []
    body.write(b"%PDF-1.4\n")
    for n, obj in enumerate(objs, 1):
        offsets.append(body.tell())
        body.write(b"%d 0 obj\n" % n + obj + b"\nendobj\n")
    xref = body.tell()
    body.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for off in offsets:
        body.write(b"%010d 00000 n \n" % off)
    body.write(b"trailer\n<< /Size %d /Root 1 0 R /Encrypt 5 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n"
               % (len(objs) + 1, file_id.hex().encode(), file_id.hex().encode(), xref))
    open(path, "wb").write(body.getvalue())


encrypted_pdf(os.path.join(out, "encrypted.pdf"), "secret")

# JPEGs of every kind: the same red-over-blue picture, 64 × 48.
picture = Image.new("RGB", (64, 48), (220, 30, 30))
picture.paste((30, 30, 220), (0, 24, 64, 48))
picture.save(os.path.join(out, "baseline.jpg"), quality=95)
picture.save(os.path.join(out, "progressive.jpg"), quality=95, progressive=True)
picture.convert("L").save(os.path.join(out, "grey.jpg"), quality=95)
picture.convert("CMYK").save(os.path.join(out, "cmyk.jpg"), quality=95)  # Adobe marker, inverted
Image.new("RGB", (1600, 1200), (30, 160, 60)).save(os.path.join(out, "large.jpg"), quality=90)
whole = open(os.path.join(out, "progressive.jpg"), "rb").read()
open(os.path.join(out, "ends-early.jpg"), "wb").write(whole[: len(whole) * 2 // 3])


def png(rgb, size=(60, 90)):
    b = io.BytesIO()
    Image.new("RGB", size, rgb).save(b, "PNG")
    return b.getvalue()


# A comic: pages stored out of order, with entries that are not pages.
pages = {"p10.png": png((0, 0, 255)), "p2.jpg": open(os.path.join(out, "baseline.jpg"), "rb").read(),
         "p1.png": png((255, 0, 0)), "notes.txt": b"not a page", "__MACOSX/._p1.png": b"\0\5\26\7"}
with zipfile.ZipFile(os.path.join(out, "comic.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    for name in ["p10.png", "notes.txt", "p2.jpg", "__MACOSX/._p1.png", "p1.png"]:
        z.writestr(name, pages[name])
with tarfile.open(os.path.join(out, "comic.cbt"), "w") as t:
    for name in ["p10.png", "p1.png"]:
        info = tarfile.TarInfo(name)
        info.size = len(pages[name])
        t.addfile(info, io.BytesIO(pages[name]))

# A tar cut short inside its third page.
with tarfile.open(os.path.join(out, "cut.cbt"), "w") as t:
    for name, rgb in [("1.png", (255, 0, 0)), ("2.png", (0, 255, 0)), ("3.png", (0, 0, 255))]:
        data = png(rgb, (300, 300))
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
cut = open(os.path.join(out, "cut.cbt"), "rb").read()
open(os.path.join(out, "cut.cbt"), "wb").write(cut[: cut.find(b"3.png") + 512 + 100])

# A zip whose second page is damaged (its deflate stream overwritten).
big = png((0, 200, 0), (300, 300))
with zipfile.ZipFile(os.path.join(out, "broken.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.png", png((255, 0, 0)))
    z.writestr("b.png", big)
    z.writestr("c.png", png((0, 0, 255)))
raw = bytearray(open(os.path.join(out, "broken.cbz"), "rb").read())
start = raw.find(b"b.png") + len("b.png")
for k in range(start + 10, start + 40):
    raw[k] ^= 0x5A
open(os.path.join(out, "broken.cbz"), "wb").write(bytes(raw))
