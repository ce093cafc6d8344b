#!/usr/bin/python3
"""Writes the documents the FolioDocuments tests read, into the folder given (Debian's
python3-cairo and python3-pil). Each PDF page is filled with its own colour and carries its
number, so a test can tell which page it sees; `long.pdf` has the page count given."""
import hashlib, io, os, random, sys, tarfile, zipfile
import cairo
from PIL import Image
from raw_pdf import raw_pdf

out, long_pages = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40


def colour(i):
    # Distinct, saturated colours, one per page number.
    return [(0.9, 0.1, 0.1), (0.1, 0.7, 0.1), (0.1, 0.2, 0.9), (0.9, 0.8, 0.1), (0.7, 0.1, 0.8)][i % 5]


def pdf(name, sizes, title=None, author=None):
    path = os.path.join(out, name)
    surface = cairo.PDFSurface(path, *sizes[0])
    if title:
        surface.set_metadata(cairo.PDFMetadata.TITLE, title)
    if author:
        surface.set_metadata(cairo.PDFMetadata.AUTHOR, author)
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
# A square cover before portrait pages, as scans and PDFs with a cover have.
pdf("covered.pdf", [(500, 500)] + [(420, 595)] * 5)
pdf("long.pdf", [(420, 595)] * long_pages)
# Metadata as a Perl producer slips and writes it: references printed for their values.
pdf("slipped.pdf", [(420, 595)], title="HASH(0x55d0c0ffee10)", author="ARRAY(0x2c7cf020)")

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
    raw_pdf(path, objs, b" /Encrypt 5 0 R /ID [<%s> <%s>]" % (file_id.hex().encode(), file_id.hex().encode()))


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


# A comic: pages stored out of order, with entries that are not pages, and a square picture
# (not wide enough to be a spread) among its portrait pages.
square = io.BytesIO()
picture.crop((8, 0, 56, 48)).save(square, "JPEG", quality=95)
pages = {"p10.png": png((0, 0, 255)), "p2.jpg": square.getvalue(),
         "p1.png": png((255, 0, 0)), "notes.txt": b"not a page", "__MACOSX/._p1.png": b"\0\5\26\7"}
with zipfile.ZipFile(os.path.join(out, "comic.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    for name in ["p10.png", "notes.txt", "p2.jpg", "__MACOSX/._p1.png", "p1.png"]:
        z.writestr(name, pages[name])
with tarfile.open(os.path.join(out, "comic.cbt"), "w") as t:
    for name in ["p10.png", "p1.png"]:
        info = tarfile.TarInfo(name)
        info.size = len(pages[name])
        t.addfile(info, io.BytesIO(pages[name]))

# A comic of WebP pages (lossless green, lossy blue, an animation), among a PNG and a GIF.
def webp(rgb, size=(60, 90), **options):
    b = io.BytesIO()
    Image.new("RGB", size, rgb).save(b, "WEBP", **options)
    return b.getvalue()


animation = io.BytesIO()
Image.new("RGB", (60, 90), (255, 0, 0)).save(animation, "WEBP", save_all=True, append_images=[Image.new("RGB", (60, 90), (0, 0, 255))],
                                             duration=100, loop=0)
gif = io.BytesIO()
Image.new("RGB", (60, 90), (0, 255, 255)).save(gif, "GIF")
with zipfile.ZipFile(os.path.join(out, "webp.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in [("1.png", png((255, 0, 0), (60, 90))), ("2.webp", webp((0, 255, 0), lossless=True)), ("3.gif", gif.getvalue()),
                       ("4.webp", webp((0, 0, 255), (600, 900), quality=90)), ("5.webp", animation.getvalue())]:
        z.writestr(name, data)

# A manga as comic tools write one: a ComicInfo.xml naming its series, number, title and writer
# (entities in them) and its reading right to left.
with zipfile.ZipFile(os.path.join(out, "manga.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("ComicInfo.xml", '<?xml version="1.0"?><ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
               "<Title>The Beginning</Title><Series>Captain &amp; Science</Series><Number>1</Number>"
               "<Writer>A. Writer &#x2014; B. Writer</Writer><Manga>YesAndRightToLeft</Manga></ComicInfo>")
    for name, rgb in [("1.png", (255, 0, 0)), ("2.png", (0, 255, 0))]:
        z.writestr(name, png(rgb, (60, 90)))

# Comics with double-page spreads (a picture twice as wide as the pages, its halves two
# colours): after the cover, where no blank page is needed, and after the third page, where one
# is; the same read right to left; and a book of nothing but wide pictures, which is not split.
def spread(left, right, size=(120, 90)):
    image = Image.new("RGB", size, left)
    image.paste(Image.new("RGB", (size[0] // 2, size[1]), right), (size[0] // 2, 0))
    b = io.BytesIO()
    image.save(b, "PNG")
    return b.getvalue()


spreads = [("1.png", png((255, 0, 0))), ("2.png", spread((0, 0, 255), (255, 255, 0))), ("3.png", png((0, 255, 0))),
           ("4.png", spread((255, 0, 255), (0, 255, 255))), ("5.png", png((0, 0, 0)))]
with zipfile.ZipFile(os.path.join(out, "spreads.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in spreads:
        z.writestr(name, data)
with zipfile.ZipFile(os.path.join(out, "spreads-rtl.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("ComicInfo.xml", "<ComicInfo><Manga>YesAndRightToLeft</Manga></ComicInfo>")
    for name, data in spreads:
        z.writestr(name, data)
# A comic whose ComicInfo marks its one double page: another picture as wide, unmarked, is a
# page scanned sideways.
with zipfile.ZipFile(os.path.join(out, "spreads-marked.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("ComicInfo.xml", '<ComicInfo><Pages><Page Image="0" Type="FrontCover"/><Page Image="2" DoublePage="True"/>'
               "<Page Image='3' Type='Story'/></Pages></ComicInfo>")
    for name, data in [("1.png", png((255, 0, 0))), ("2.png", png((0, 255, 0))), ("3.png", spread((0, 0, 255), (255, 255, 0))),
                       ("4.png", spread((0, 0, 0), (0, 0, 0))), ("5.png", png((255, 0, 255)))]:
        z.writestr(name, data)
with zipfile.ZipFile(os.path.join(out, "landscape.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    for name, (a, b) in [("1.png", ((255, 0, 0), (0, 255, 0))), ("2.png", ((0, 0, 255), (255, 255, 0)))]:
        z.writestr(name, spread(a, b))

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

# Entries of one name, each a page of its own (archive order among them).
import warnings
warnings.simplefilter("ignore")
with zipfile.ZipFile(os.path.join(out, "twins.cbz"), "w", zipfile.ZIP_DEFLATED) as z:
    for name, rgb in [("leaf.png", (0, 255, 0)), ("a.png", (255, 0, 0)), ("leaf.png", (0, 0, 255)), ("leaf.png", (255, 255, 0))]:
        z.writestr(name, png(rgb))

# Entries whose paths leave the archive (passed over, with a note), one named through "."
# folders (a page), and a page of 10 GiB that GNU tar stores sparse in a few blocks (refused by
# the size it declares, before it is read).
import shutil, subprocess
parts = os.path.join(out, "strays")
os.makedirs(parts)
for name, rgb in [("1.png", (255, 0, 0)), ("u.png", (0, 255, 0)), ("a.png", (0, 0, 255)), ("d.png", (255, 255, 0))]:
    open(os.path.join(parts, name), "wb").write(png(rgb))
with open(os.path.join(parts, "2.png"), "wb") as f:
    f.write(png((0, 0, 0))[:16])
    f.truncate(10 << 30)
subprocess.run(["tar", "--format=gnu", "--sparse", "-P", "--transform", "s,^u.png$,../up.png,;s,^a.png$,/abs.png,;s,^d.png$,./././d.png,",
                "-cf", os.path.abspath(os.path.join(out, "strays.cbt")), "-C", parts, "1.png", "u.png", "a.png", "d.png", "2.png"], check=True)
shutil.rmtree(parts)

# A tar of 2,400 small pages: read page after page, it must cost one pass, not one per page.
tiny = png((90, 90, 200), (8, 12))
with tarfile.open(os.path.join(out, "wide.cbt"), "w") as t:
    for i in range(2400):
        info = tarfile.TarInfo("%04d.png" % i)
        info.size = len(tiny)
        t.addfile(info, io.BytesIO(tiny))

# A photo stored turned, with the EXIF orientation (1-8) that turns it back: shown, red is
# top left and blue bottom right of a 60 x 40 landscape picture.
from PIL import Image as PILImage
seen = PILImage.new("RGB", (60, 40), (255, 255, 255))
seen.paste((255, 0, 0), (0, 0, 30, 20))
seen.paste((0, 0, 255), (30, 20, 60, 40))
undo = {2: PILImage.FLIP_LEFT_RIGHT, 3: PILImage.ROTATE_180, 4: PILImage.FLIP_TOP_BOTTOM, 5: PILImage.TRANSPOSE,
        6: PILImage.ROTATE_90, 7: PILImage.TRANSVERSE, 8: PILImage.ROTATE_270}
for o in range(1, 9):
    exif = PILImage.Exif()
    exif[0x0112] = o
    (seen if o == 1 else seen.transpose(undo[o])).save(os.path.join(out, "turned-%d.jpg" % o), quality=95, exif=exif.tobytes())

# A progressive colour JPEG of 10,000 x 10,000 in quarters red, green / blue, white: its
# coefficients alone take 300 MB, so it is shown at 1/8 scale from its DC scans.
huge = PILImage.new("RGB", (10000, 10000), (255, 0, 0))
huge.paste((0, 255, 0), (5000, 0, 10000, 5000))
huge.paste((0, 0, 255), (0, 5000, 5000, 10000))
huge.paste((255, 255, 255), (5000, 5000, 10000, 10000))
huge.save(os.path.join(out, "huge-progressive.jpg"), progressive=True, quality=30)

# Small progressive JPEGs of odd sizes (smooth gradients and a block), colour 4:2:0 and 4:4:4
# and grey, to compare the DC scans' 1/8 scale with libjpeg's.
varied = PILImage.new("RGB", (203, 157))
varied.putdata([(x * 255 // 202, y * 255 // 156, (x + y) * 255 // 358) for y in range(157) for x in range(203)])
varied.paste((250, 250, 20), (32, 32, 96, 80))
varied.save(os.path.join(out, "progressive-420.jpg"), progressive=True, quality=90)
varied.save(os.path.join(out, "progressive-444.jpg"), progressive=True, quality=90, subsampling=0)
varied.convert("L").save(os.path.join(out, "progressive-grey.jpg"), progressive=True, quality=90)
varied.convert("CMYK").save(os.path.join(out, "progressive-cmyk.jpg"), progressive=True, quality=90)

# A small progressive JPEG whose last scan is repeated until it has some 700 scans.
buf = io.BytesIO()
PILImage.new("RGB", (64, 48), (40, 160, 90)).save(buf, "JPEG", progressive=True)
data = buf.getvalue()
last = data.rfind(b"\xff\xda")
open(os.path.join(out, "many-scans.jpg"), "wb").write(data[:last] + data[last:-2] * 700 + b"\xff\xd9")

# Finding one's way (FolioFind, PDF navigation): three 420 x 595 pages labelled i, ii, 1, with
# words at known places (20-point text, baselines at y = 100 and 130), an outline, internal
# link on page 2 to page 3 (a named destination), and links out (https, javascript).
surface = cairo.PDFSurface(os.path.join(out, "navigation.pdf"), 420, 595)
surface.set_metadata(cairo.PDFMetadata.AUTHOR, "A. Writer")
lines = [["The quick brown fox", "jumps over the lazy dog"], ["Café crème at the lazy", "dog days of summer"], ["The end"]]
for i, page in enumerate(lines):
    surface.set_page_label(["i", "ii", "1"][i])
    cr = cairo.Context(surface)
    cr.select_font_face("sans-serif")
    cr.set_font_size(20)
    if i == 2:
        cr.tag_begin(cairo.TAG_DEST, "name='end'")
    for k, line in enumerate(page):
        cr.move_to(50, 100 + 30 * k)
        cr.show_text(line)
    if i == 2:
        cr.tag_end(cairo.TAG_DEST)
    if i == 0:
        # Page 1 links to page 3 (the next spread) at (50, 300, 100 x 30).
        cr.tag_begin(cairo.TAG_LINK, "dest='end'")
        cr.rectangle(50, 300, 100, 30)
        cr.fill()
        cr.tag_end(cairo.TAG_LINK)
    if i == 1:
        # A named destination (cairo 1.16 writes no target for a link to "page=N").
        cr.tag_begin(cairo.TAG_LINK, "dest='end'")
        cr.rectangle(50, 200, 100, 30)
        cr.fill()
        cr.tag_end(cairo.TAG_LINK)
        cr.tag_begin(cairo.TAG_LINK, "uri='https://example.org/'")
        cr.move_to(50, 300)
        cr.show_text("site")
        cr.tag_end(cairo.TAG_LINK)
        cr.tag_begin(cairo.TAG_LINK, "uri='javascript:alert(1)'")
        cr.move_to(50, 400)
        cr.show_text("script")
        cr.tag_end(cairo.TAG_LINK)
    cr.show_page()
part1 = surface.add_outline(cairo.PDF_OUTLINE_ROOT, "Part one", "page=1", 0)
surface.add_outline(part1, "Section A", "page=2", 0)
surface.add_outline(cairo.PDF_OUTLINE_ROOT, "Part two", "page=3", 0)
surface.finish()

# 12,000 outline entries on one page: more than are read.
surface = cairo.PDFSurface(os.path.join(out, "outline-12k.pdf"), 200, 200)
cairo.Context(surface).show_page()
for k in range(12000):
    surface.add_outline(cairo.PDF_OUTLINE_ROOT, "Entry %d" % k, "page=1", 0)
surface.finish()


# An outline whose entries point at each other in a ring, one of them at page 99 of a
# one-page document, and a link whose target is a page that does not exist.
raw_pdf(os.path.join(out, "outline-loop.pdf"), [
    b"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [7 0 R] >>",
    b"<< /Type /Outlines /First 5 0 R /Last 6 0 R /Count 2 >>",
    b"<< /Title (Ring A) /Parent 4 0 R /Next 6 0 R /First 6 0 R /Last 6 0 R /Count 1 /Dest [3 0 R /Fit] >>",
    b"<< /Title (Ring B) /Parent 4 0 R /Next 5 0 R /Prev 5 0 R /First 5 0 R /Last 5 0 R /Count 1 /Dest [98 /Fit] >>",
    b"<< /Type /Annot /Subtype /Link /Rect [10 10 50 50] /Dest [98 /Fit] >>",
])
