"""Writes the DjVu test documents into the folder given, with djvulibre-bin's tools.

book.djvu, bundled, three pages:
  1. a colour photo (c44), 400 x 600: red above y = 300, blue below; titled "Cover".
  2. a bitonal page (cjb2), 1600 x 2400 at 400 dpi: a black bar x 200..1400, y 400..560
     (from the top), and 1-pixel stripes (odd columns black) x 800..1200, y 1600..2000; a text
     layer with the words "Hello" (x 200..700) and "DjVu" (x 900..1400) on the bar; a link
     to page 1 over the bar's left half and one to https://example.org over its right half.
  3. a bitonal page, 400 x 600, a black square x 0..100, y 0..100, rotated a quarter turn
     counter-clockwise: shown 600 x 400 with the square at the bottom left; the word
     "Square" on the square.
  Outline: Photo -> #1, Text -> #2 (child: Bar -> #2), Nowhere -> #99 (no such page).
  Metadata: title "A DjVu Book", author "Ann Author".
indirect/index.djvu: the same book as an indirect document (one file per page).
escape/inner/index.djvu: an indirect document whose page is "../outside.djvu".
cycle/index.djvu, cycle2/index.djvu: indirect documents whose page includes itself (INCL), and
  includes a shared file that includes it back; fifo/index.djvu: one whose second page is a FIFO.
covered.djvu: a red square cover, 400 x 400 (c44), then page 1 twice.
Bad input: garbage.djvu, truncated.djvu, lying.djvu (a chunk claims 2 GB), huge.djvu (a page
claims 65535 x 65535 pixels), looping.djvu (the book, changed so that reading a page's
annotations includes the document without end).
"""
import os
import shutil
import subprocess
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
tmp = os.path.join(out, "parts")
os.makedirs(tmp, exist_ok=True)


def run(*args, stdin=None):
    subprocess.run(args, check=True, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def path(name):
    return os.path.join(tmp, name)


def pbm(name, w, h, black):
    rows = bytearray()
    for y in range(h):
        for x0 in range(0, w, 8):
            v = 0
            for x in range(x0, x0 + 8):
                v = (v << 1) | (1 if x < w and black(x, y) else 0)
            rows.append(v)
    with open(path(name), "wb") as f:
        f.write(b"P4\n%d %d\n" % (w, h) + bytes(rows))


def ppm(name, w, h, colour):
    with open(path(name), "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + b"".join(bytes(colour(y)) * w for y in range(h)))


ppm("photo.ppm", 400, 600, lambda y: (220, 30, 30) if y < 300 else (30, 30, 220))
run("c44", path("photo.ppm"), path("photo.djvu"))
pbm("text.pbm", 1600, 2400, lambda x, y: (200 <= x < 1400 and 400 <= y < 560)
    or (800 <= x < 1200 and 1600 <= y < 2000 and x % 2 == 1))
run("cjb2", "-dpi", "400", path("text.pbm"), path("text.djvu"))
pbm("square.pbm", 400, 600, lambda x, y: x < 100 and y < 100)
run("cjb2", "-dpi", "100", path("square.pbm"), path("square.djvu"))

book = os.path.join(out, "book.djvu")
run("djvm", "-c", book, path("photo.djvu"), path("text.djvu"), path("square.djvu"))
with open(path("outline"), "w") as f:
    f.write('(bookmarks ("Photo" "#1") ("Text" "#2" ("Bar" "#2")) ("Nowhere" "#99"))\n')
with open(path("text"), "w") as f:
    f.write('(page 0 0 1600 2400 (line 200 1840 1400 2000 (word 200 1840 700 2000 "Hello") (word 900 1840 1400 2000 "DjVu")))\n')
with open(path("square-text"), "w") as f:
    f.write('(page 0 0 400 600 (word 0 500 100 600 "Square"))\n')
with open(path("links"), "w") as f:
    f.write('(maparea "#1" "" (rect 200 1840 600 160))\n(maparea "https://example.org" "" (rect 800 1840 600 160))\n')
with open(path("meta"), "w") as f:
    f.write('title "A DjVu Book"\nauthor "Ann Author"\n')
script = (f"set-outline {path('outline')}\n"
          f"create-shared-ant\nselect-shared-ant\nset-meta {path('meta')}\n"
          f"select 1\nset-page-title Cover\n"
          f"select 2\nset-txt {path('text')}\nset-ant {path('links')}\n"
          f"select 3\nset-rotation 1\nset-txt {path('square-text')}\nsave\n")
run("djvused", book, "-f", "/dev/stdin", stdin=script.encode())

# A square cover before two portrait pages: the book takes the pages' shape.
ppm("cover.ppm", 400, 400, lambda y: (220, 30, 30))
run("c44", path("cover.ppm"), path("cover.djvu"))
run("djvm", "-c", os.path.join(out, "covered.djvu"), path("cover.djvu"), path("photo.djvu"), path("photo.djvu"))

os.makedirs(os.path.join(out, "indirect"), exist_ok=True)
run("djvmcvt", "-i", book, os.path.join(out, "indirect"), "index.djvu")

# An indirect document's directory (DIRM) naming "../outside.djvu": version 1, one file, then
# bzz-compressed: its size (3 bytes), flags (1: a page) and id.
os.makedirs(os.path.join(out, "escape", "inner"), exist_ok=True)
shutil.copy(path("photo.djvu"), os.path.join(out, "escape", "outside.djvu"))
with open(path("dirm"), "wb") as f:
    f.write((2155).to_bytes(3, "big") + b"\x01" + b"../outside.djvu\x00")
run("bzz", "-e", path("dirm"), path("dirm.bzz"))
dirm = b"\x01\x00\x01" + open(path("dirm.bzz"), "rb").read()
dirm_chunk = b"DIRM" + len(dirm).to_bytes(4, "big") + dirm + (b"\x00" if len(dirm) % 2 else b"")
with open(os.path.join(out, "escape", "inner", "index.djvu"), "wb") as f:
    f.write(b"AT&TFORM" + (4 + len(dirm_chunk)).to_bytes(4, "big") + b"DJVM" + dirm_chunk)

data = open(book, "rb").read()
with open(os.path.join(out, "truncated.djvu"), "wb") as f:
    f.write(data[: len(data) // 3])
with open(os.path.join(out, "garbage.djvu"), "wb") as f:
    f.write(bytes((i * 7919 + 13) % 251 for i in range(4096)))
photo = bytearray(open(path("photo.djvu"), "rb").read())
i = photo.find(b"BG44")
photo[i + 4:i + 8] = (0x7FFFFFF0).to_bytes(4, "big")
with open(os.path.join(out, "lying.djvu"), "wb") as f:
    f.write(photo)
square = bytearray(open(path("square.djvu"), "rb").read())
i = square.find(b"INFO")
square[i + 8:i + 12] = b"\xff\xff\xff\xff"
with open(os.path.join(out, "huge.djvu"), "wb") as f:
    f.write(square)

def form(kind, parts):
    body = kind + b"".join(c + len(d).to_bytes(4, "big") + d + (b"\x00" if len(d) % 2 else b"") for c, d in parts)
    return b"AT&TFORM" + len(body).to_bytes(4, "big") + body


def chunks(data):
    i, found = 0, []
    while i + 8 <= len(data):
        n = int.from_bytes(data[i + 4:i + 8], "big")
        found.append((data[i:i + 4], data[i + 8:i + 8 + n]))
        i += 8 + n + (n & 1)
    return found


def indirect(folder, files):
    """An indirect document's index: its directory names `files` [(name, 1 for a page, 0 for
    an included file)], each of 100 bytes (djvulibre reads the sizes from the files)."""
    os.makedirs(folder, exist_ok=True)
    with open(path("dirm"), "wb") as f:
        f.write(b"".join((100).to_bytes(3, "big") for _ in files) + bytes(k for _, k in files)
                + b"".join(n.encode() + b"\x00" for n, _ in files))
    run("bzz", "-e", path("dirm"), path("dirm.bzz"))
    dirm = b"\x01" + len(files).to_bytes(2, "big") + open(path("dirm.bzz"), "rb").read()
    with open(os.path.join(folder, "index.djvu"), "wb") as f:
        f.write(form(b"DJVM", [(b"DIRM", dirm)]))


photo_chunks = chunks(open(path("photo.djvu"), "rb").read()[16:])
cycle = os.path.join(out, "cycle")
indirect(cycle, [("p1.djvu", 1)])
with open(os.path.join(cycle, "p1.djvu"), "wb") as f:
    f.write(form(b"DJVU", photo_chunks[:1] + [(b"INCL", b"p1.djvu")] + photo_chunks[1:]))
cycle = os.path.join(out, "cycle2")
indirect(cycle, [("shared.djvi", 0), ("p1.djvu", 1)])
with open(os.path.join(cycle, "p1.djvu"), "wb") as f:
    f.write(form(b"DJVU", photo_chunks[:1] + [(b"INCL", b"shared.djvi")] + photo_chunks[1:]))
with open(os.path.join(cycle, "shared.djvi"), "wb") as f:
    f.write(form(b"DJVI", [(b"INCL", b"p1.djvu")]))
fifo = os.path.join(out, "fifo")
indirect(fifo, [("p1.djvu", 1), ("p2.djvu", 1)])
shutil.copy(path("photo.djvu"), os.path.join(fifo, "p1.djvu"))
os.mkfifo(os.path.join(fifo, "p2.djvu"))
# The book with three bytes changed and a chunk name put in (as a fuzzer changed it): reading a
# page's annotations, djvulibre includes the document without end, posting messages all along.
looping = bytearray(open(book, "rb").read())
looping[2055] = 0xEF
looping[2660] = 0x7F
looping[2110:2110] = b"NAVM"
with open(os.path.join(out, "looping.djvu"), "wb") as f:
    f.write(looping)
shutil.rmtree(tmp)
