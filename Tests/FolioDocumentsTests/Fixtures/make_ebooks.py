#!/usr/bin/python3
"""Writes the e-books the FolioMuPDF tests read, into the folder given (Python's zipfile and
zlib only). Each chapter of a reflowable book starts with a word no other chapter has
(ALPHA, BRAVO, ...), so a test can tell which text lands on which page; fixed and image pages
are filled with one colour each. The bad books are the damage named in docs/documents.md."""
import base64, os, struct, sys, zipfile, zlib

out = sys.argv[1]
WORDS = ["ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT", "GOLF", "HOTEL"]
FILLER = ("The traveller sat by the fire and told of the machine, the years it crossed, and the "
          "people he met at the end of the world, while the lamps burned low. ")
COLOURS = [(230, 26, 26), (26, 179, 26), (26, 51, 230), (230, 204, 26)]


def png(w, h, rgb):
    row = b"\x00" + bytes(rgb) * w
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * h)) + chunk(b"IEND", b""))


def huge_png(side):
    """A 1-bit grey PNG of side × side pixels, small on disk (rows of zeros compress well)."""
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    z = zlib.compressobj(9)
    row = b"\x00" * (1 + (side + 7) // 8)
    data = b"".join(z.compress(row) for _ in range(side)) + z.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", data) + chunk(b"IEND", b""))


def chapter(title, body, css=""):
    style = f"<style>{css}</style>" if css else ""
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>{title}</title>{style}</head><body>{body}</body></html>")


def prose(word, paragraphs, lead=""):
    return f"<h1>{word}</h1>{lead}" + "".join(f"<p>{word.lower()} {FILLER * 3}</p>" for _ in range(paragraphs))


def epub(name, items, version="2.0", title="Reflowing Words", author="A. Writer", spine_attrs="",
         meta="", ncx=True, nav=False, extra=None, spine=None):
    """items: [(file name, bytes or str, media type)]; the XHTML ones are the spine."""
    path = os.path.join(out, name)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                   "</rootfiles></container>")
        manifest, refs = [], []
        for i, (fname, data, media) in enumerate(items):
            z.writestr("OEBPS/" + fname, data)
            manifest.append(f'<item id="i{i}" href="{fname}" media-type="{media}"/>')
            if media == "application/xhtml+xml":
                refs.append(f'<itemref idref="i{i}"/>')
        chapters = [f for f, _, m in items if m == "application/xhtml+xml"]
        if ncx:
            points = "".join(f'<navPoint id="n{i}" playOrder="{i + 1}"><navLabel><text>Chapter {i + 1}</text></navLabel>'
                             f'<content src="{f}"/></navPoint>' for i, f in enumerate(chapters))
            z.writestr("OEBPS/toc.ncx", '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">'
                       f"<head/><docTitle><text>{title}</text></docTitle><navMap>{points}</navMap></ncx>")
            manifest.append('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')
        if nav:
            lis = "".join(f'<li><a href="{f}">Part {i + 1}</a></li>' for i, f in enumerate(chapters))
            z.writestr("OEBPS/nav.xhtml", chapter("Contents", f'<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc"><ol>{lis}</ol></nav>'))
            manifest.append('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>')
        for fname, data in (extra or {}).items():
            z.writestr(fname, data)
        toc = ' toc="ncx"' if ncx else ""
        z.writestr("OEBPS/content.opf",
                   f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="{version}" unique-identifier="id">'
                   f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title>'
                   f'<dc:creator>{author}</dc:creator><dc:identifier id="id">folio-{name}</dc:identifier>{meta}</metadata>'
                   f'<manifest>{"".join(manifest)}</manifest><spine{toc}{spine_attrs}>{spine or "".join(refs)}</spine></package>')
    return path


xhtml = "application/xhtml+xml"
# The first chapter links to the third and outside the book.
links = '<p><a href="c2.xhtml">to charlie</a> and <a href="https://example.org/">away</a></p>'
reflow = [(f"c{i}.xhtml", chapter(w, prose(w, 6, links if i == 0 else "")), xhtml) for i, w in enumerate(WORDS[:4])]
epub("reflow2.epub", reflow)
epub("reflow3.epub", reflow, version="3.0", ncx=False, nav=True, title="Navigated Words")
# Thirty chapters: more than a book opens on (it lays the rest out in the background).
epub("long.epub", [(f"l{i}.xhtml", chapter(f"Part {i}", prose(WORDS[i % 4], 6)), xhtml) for i in range(30)], title="Long Words")

# Every word numbered (w1, w2, ...: no word twice), in four chapters of several pages each, and a
# picture between paragraphs: any word says exactly where in the text a page is.
numbered = iter(range(1, 100000))
epub("numbered.epub", [(f"n{c}.xhtml", chapter(f"Part {c + 1}", f"<h1>Part {c + 1}</h1>" + "".join(
    "<p>" + " ".join(f"w{next(numbered)}" for _ in range(90)) + "</p>" + ('<p><img src="dot.png"/></p>' if p == 7 else "")
    for p in range(24))), xhtml) for c in range(4)] + [("dot.png", png(40, 40, COLOURS[0]), "image/png")], title="Numbered Words")

# Front matter (six one-line pages) before thirty chapters of several pages each, as books are.
epub("front-matter.epub", [(f"f{i}.xhtml", chapter(f"Front {i}", f"<p>{WORDS[i % 4]}</p>"), xhtml) for i in range(6)]
     + [(f"l{i}.xhtml", chapter(f"Part {i}", prose(WORDS[i % 4], 6)), xhtml) for i in range(30)], title="Front Matter")

# Markup-heavy, as some converters write books: four plain chapters (what a book opens on), then
# chapters of the same text with every word in a span of its own (class and id): their bytes are
# several times their text.
spans = iter(range(1, 1000000))
def spanned(word, paragraphs):
    return f"<h1>{word}</h1>" + "".join("<p>" + " ".join(f'<span class="calibre-w c{n % 7}" id="w{n}">{w}</span>'
        for w, n in zip(f"{word.lower()} {FILLER * 3}".split(), spans)) + "</p>" for _ in range(paragraphs))
epub("markup-heavy.epub", [(f"m{i}.xhtml", chapter(f"Part {i}", prose(WORDS[i % 4], 6) if i < 4 else spanned(WORDS[i % 4], 6)), xhtml)
                           for i in range(30)], title="Markup Words")

# Chapters of little text on many pages (each line on a page of its own): its text says far
# fewer pages than it has, so a page asked for past the estimate needs the chapters up to it.
epub("page-breaks.epub", [(f"b{i}.xhtml", chapter(f"Part {i}", prose(WORDS[i % 4], 6) if i < 4 else "".join(
    f'<p style="page-break-before: always">{WORDS[i % 4].lower()} {n}</p>' for n in range(20))), xhtml) for i in range(14)],
     title="Broken Pages")

# Pages that are one coloured image each: fixed layout, and a right-to-left picture book.
pictures = [(f"p{i}.png", png(60, 90, c), "image/png") for i, c in enumerate(COLOURS)]
image_pages = [(f"p{i}.xhtml", chapter(f"p{i}", f'<img src="p{i}.png" style="width:100%;height:100%"/>'), xhtml)
               for i in range(len(COLOURS))]
epub("fixed.epub", pictures + image_pages, version="3.0", title="Fixed Pages",
     meta='<meta property="rendition:layout">pre-paginated</meta>')
epub("manga-rtl.epub", pictures + image_pages, version="3.0", title="Right to Left",
     spine_attrs=' page-progression-direction="rtl"', meta='<meta property="rendition:layout">pre-paginated</meta>')
# A manga as publishers make them: pictures of the viewport's pixels, no stylesheet sizing them.
viewport_pages = [(f"v{i}.xhtml", '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>'
                   f'<title>v{i}</title><meta name="viewport" content="width=120, height=180"/></head>'
                   f'<body><img src="v{i}.png"/></body></html>', xhtml) for i in range(len(COLOURS))]
epub("manga-viewport.epub", [(f"v{i}.png", png(120, 180, c), "image/png") for i, c in enumerate(COLOURS)] + viewport_pages,
     version="3.0", title="Viewport Pages", spine_attrs=' page-progression-direction="rtl"',
     meta='<meta property="rendition:layout">pre-paginated</meta>')

with open(os.path.join(out, "book.fb2"), "w") as f:
    sections = "".join(f"<section><title><p>{w}</p></title><p>{w.lower()} {FILLER * 4}</p></section>" for w in WORDS[:3])
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><author><first-name>Fiction</first-name><last-name>Writer</last-name></author>"
            f"<book-title>Fiction Words</book-title></title-info></description><body>{sections}</body></FictionBook>")


# An FB2 in English with a title libhyphen would break, and pages of long paragraphs.
with open(os.path.join(out, "long.fb2"), "w") as f:
    sections = "".join(f"<section><title><p>Part {n}</p></title>" + f"<p>{FILLER * 4}</p>" * 6 + "</section>" for n in range(3))
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><author><first-name>Ellis</first-name><last-name>Peters</last-name></author>"
            f"<book-title>The Sanctuary Sparrow</book-title><lang>en</lang></title-info></description><body>{sections}</body></FictionBook>")


# An FB2 with its notes in a body of their own, twelve of them, each a section with a title.
with open(os.path.join(out, "notes.fb2"), "w") as f:
    notes = "".join(f'<section id="n{k}"><title><p>{k}</p></title><p>NOTE{k} of the translator.</p></section>' for k in range(1, 13))
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" '
            'xmlns:l="http://www.w3.org/1999/xlink"><description><title-info><book-title>Noted</book-title><lang>en</lang>'
            f'</title-info></description><body><section><title><p>Chapter</p></title><p>{FILLER}<a l:href="#n1" type="note">[1]</a></p>'
            f'</section></body><body name="notes"><title><p>Notes</p></title>{notes}</body></FictionBook>')


# An FB2's contents as FB2s write them: a title of two paragraphs with a note reference, a
# subtitle, titled sections nested in untitled ones (one with an id of its own), a section
# named in a comment, and a notes body.
with open(os.path.join(out, "sections.fb2"), "w") as f:
    text = "".join(f"<p>{FILLER * 2}</p>" for _ in range(6))
    def section(word, title, inner="", id=""):
        return (f'<section{id}><title>{title}</title><p>{word} {FILLER}</p>{text}{inner}</section>')
    deep = section("GOLF", "<p>Part 1.1.1</p>", id=' id="given"')
    nested = "<section>" + section("FOXTROT", "<p>Part 1.1</p>", "<section>" + deep + "</section>") + "</section>"
    one = section("ECHO", '<p>Chapter 1</p><p>The Beginning <a l:href="#n1" type="note">[1]</a></p>',
                  "<subtitle>A Subtitle</subtitle>" + nested)
    two = section("HOTEL", "<p>Chapter 2</p><empty-line/>")
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" '
            'xmlns:l="http://www.w3.org/1999/xlink"><description><title-info><book-title>Sectioned</book-title><lang>en</lang>'
            '</title-info></description><body><title><p>Sectioned</p></title><!-- a > b, <section> named --><section>'
            f'{one}</section>{two}</body><body name="notes"><title><p>Notes</p></title>'
            '<section id="n1"><title><p>1</p></title><p>A note.</p></section></body></FictionBook>')


# An FB2 of one story: its author and title in its body's title, its sections untitled.
with open(os.path.join(out, "story.fb2"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><book-title>Story</book-title><lang>en</lang></title-info></description><body>"
            "<title><p>Ann Writer</p><p>The Story</p></title>"
            + "".join(f"<section><p>{FILLER * 4}</p></section>" for _ in range(3)) + "</body></FictionBook>")


# An FB2 with a red cover and a picture that is no picture (its bytes damaged), and pages of text.
with open(os.path.join(out, "pictured.fb2"), "w") as f:
    cover = base64.b64encode(png(60, 90, COLOURS[0])).decode()
    damaged = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(200)).decode()
    text = "".join(f"<p>{FILLER * 2}</p>" for _ in range(24))
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" '
            'xmlns:l="http://www.w3.org/1999/xlink"><description><title-info><book-title>Pictured</book-title>'
            '<coverpage><image l:href="#cover.png"/></coverpage><lang>en</lang></title-info></description>'
            f'<body><section><title><p>Chapter</p></title><image l:href="#damaged.png"/>{text}</section></body>'
            f'<binary id="cover.png" content-type="image/png">{cover}</binary>'
            f'<binary id="damaged.png" content-type="image/png">{damaged}</binary></FictionBook>')


def varlen(v):
    """An integer as a MOBI index writes it: 7 bits a byte, most significant first, the last
    byte's top bit set."""
    out = [v & 0x7F | 0x80]
    while v > 0x7F:
        v >>= 7
        out.insert(0, v & 0x7F)
    return bytes(out)


def ncx_records(entries):
    """A MOBI's NCX index, as Kindle tools write one: its primary INDX record (with the TAGX table
    of tags 1 offset, 2 length, 3 label, 4 depth), one record of entries and one of labels
    (CNCX). `entries`: (text offset, depth, label), in the index's order."""
    cncx, labels = b"", []
    for _, _, label in entries:
        labels.append(len(cncx))
        cncx += varlen(len(label.encode())) + label.encode()
    tagx = b"TAGX" + struct.pack(">II", 12 + 4 * 5, 1) + bytes([1, 1, 1, 0, 2, 1, 2, 0, 3, 1, 4, 0, 4, 1, 8, 0, 0, 0, 0, 1])
    primary = bytearray(192)
    primary[0:4] = b"INDX"
    struct.pack_into(">I", primary, 4, 192)
    struct.pack_into(">IIIII", primary, 24, 1, 65001, 0, len(entries), 0)
    struct.pack_into(">I", primary, 52, 1)
    body, starts = b"", []
    for i, (offset, depth, _) in enumerate(entries):
        starts.append(192 + len(body))
        name = b"%03d" % i
        body += bytes([len(name)]) + name + bytes([0x0F]) + varlen(offset) + varlen(100) + varlen(labels[i]) + varlen(depth)
    record = bytearray(192)
    record[0:4] = b"INDX"
    struct.pack_into(">I", record, 4, 192)
    struct.pack_into(">II", record, 20, 192 + len(body), len(entries))
    record += body + b"IDXT" + b"".join(struct.pack(">H", o) for o in starts)
    return [bytes(primary) + tagx, bytes(record), cncx]


def index_records(tags, entries, cncx=None):
    """An index as Kindle tools write one: its primary INDX record with the TAGX table of `tags`
    ((tag, values, mask), one control byte), one record of `entries` ((name, control byte,
    values)) and the CNCX record `cncx` of labels, if any."""
    tagx = b"TAGX" + struct.pack(">II", 12 + 4 * (len(tags) + 1), 1) + b"".join(bytes([t, v, m, 0]) for t, v, m in tags) + bytes([0, 0, 0, 1])
    primary = bytearray(192)
    primary[0:4] = b"INDX"
    struct.pack_into(">I", primary, 4, 192)
    struct.pack_into(">IIIII", primary, 24, 1, 65001, 0, len(entries), 0)
    struct.pack_into(">I", primary, 52, 1 if cncx is not None else 0)
    body, starts = b"", []
    for name, control, values in entries:
        starts.append(192 + len(body))
        body += bytes([len(name)]) + name + bytes([control]) + b"".join(varlen(v) for v in values)
    record = bytearray(192)
    record[0:4] = b"INDX"
    struct.pack_into(">I", record, 4, 192)
    struct.pack_into(">II", record, 20, 192 + len(body), len(entries))
    record += body + b"IDXT" + b"".join(struct.pack(">H", o) for o in starts)
    return [bytes(primary) + tagx, bytes(record)] + ([cncx] if cncx is not None else [])


def palmdoc(data):
    """PalmDOC compression at its simplest: runs of up to 8 bytes copied as they are."""
    return b"".join(bytes([len(data[i:i + 8])]) + data[i:i + 8] for i in range(0, len(data), 8))


def mobi(name, html, full_name, exth, name_length=None, encoding="utf-8", pictures=(), cover=None, ncx=(), kf8=None):
    """A MOBI book as Kindle tools write one: a Palm database whose first record holds the
    PalmDOC and MOBI headers and the EXTH metadata (type, bytes); then the text (uncompressed in
    UTF-8, PalmDOC-compressed otherwise), the pictures (the cover, EXTH 201, one of them) and an
    NCX index of `ncx` entries. `kf8`: a KF8 book's NCX, skeleton and fragment index records and
    FDST record, which follow, named by its version 8 header."""
    text = html.encode(encoding) if isinstance(html, str) else html
    compressed = encoding != "utf-8"
    records = [text[i:i + 4096] for i in range(0, len(text), 4096)]
    records = [palmdoc(r) if compressed else r for r in records]
    first_picture = len(records) + 1
    if cover is not None:
        exth = exth + [(201, struct.pack(">I", cover))]
    ex = b"".join(struct.pack(">II", t, 8 + len(v)) + v for t, v in exth)
    ex = b"EXTH" + struct.pack(">II", 12 + len(ex), len(exth)) + ex
    header_length = 264 if kf8 else 232
    mobi_header = bytearray(header_length)
    mobi_header[0:4] = b"MOBI"
    struct.pack_into(">III", mobi_header, 4, header_length, 2, 65001 if encoding == "utf-8" else 1252)
    name_at = 16 + header_length + len(ex)
    struct.pack_into(">II", mobi_header, 68, name_at, len(full_name) if name_length is None else name_length)
    struct.pack_into(">I", mobi_header, 92, first_picture if pictures else 0xFFFFFFFF)
    struct.pack_into(">I", mobi_header, 112, 0x40)  # EXTH present
    struct.pack_into(">I", mobi_header, 228, first_picture + len(pictures) if ncx else 0xFFFFFFFF)
    palmdoc_header = struct.pack(">HHIHHHH", 2 if compressed else 1, 0, len(text), len(records), 4096, 0, 0)
    records.insert(0, palmdoc_header + bytes(mobi_header) + ex + full_name.encode() + b"\0\0")
    records += list(pictures) + (ncx_records(ncx) if ncx else [])
    if kf8:
        struct.pack_into(">I", mobi_header, 20, 8)  # version
        at = len(records)
        for field, key in [(228, "ncx"), (236, "skel"), (232, "frag"), (176, "fdst")]:
            struct.pack_into(">I", mobi_header, field, at)
            at += len(kf8[key])
            records += kf8[key]
        records[0] = palmdoc_header + bytes(mobi_header) + ex + full_name.encode() + b"\0\0"
    header = name.encode()[:31].ljust(32, b"\0") + bytes(28) + b"BOOKMOBI" + bytes(8) + struct.pack(">H", len(records))
    at = len(header) + 8 * len(records) + 2
    index = b""
    for i, r in enumerate(records):
        index += struct.pack(">II", at, i)
        at += len(r)
    with open(os.path.join(out, name), "wb") as f:
        f.write(header + index + b"\0\0" + b"".join(records))


mobi_text = "<html><body>" + "".join(f"<h1>{w}</h1><p>{w.lower()} {FILLER * 3}</p>" for w in WORDS[:3]) + "</body></html>"
mobi("book.mobi", mobi_text, "Kindle Words Full Name", [(100, b"K. Writer"), (503, "Kindle Words \u2014 Updated".encode())])
# Headings that fall at pages' feet, as keep.epub of make_typeset_ebooks.py has them: its contents
# are MuPDF's, made from the headings.
keep_lines = lambda n: "".join(f"<p>Line {k} of section {n}.</p>" for k in range(n * 7 % 5 + 1))
mobi("keep.mobi", "<html><body>" + "".join(f"<h3>Section {n}</h3>" + (f"<h4>Part {n}</h4>" if n % 5 == 0 else "") + keep_lines(n)
                                             for n in range(1, 41)) + "</body></html>", "Keep", [(100, b"W")])
# 2,500 headings: MuPDF's contents hold the first 2,000, the rest are set as paragraphs.
mobi("headings.mobi", "<html><body>" + "".join(f"<h3>Section {n}</h3><p>Line of section {n}.</p>" for n in range(1, 2501))
     + "</body></html>", "Headings", [(100, b"W")])
# A poem as Kindle tools quote one: ten blockquotes deep (40 points each side in MuPDF's own
# stylesheet, which pushed it off the page), among paragraphs enough for pages.
quoted = ("<html><body>" + "".join(f"<p>{FILLER * 3}</p>" for _ in range(6)) + "<blockquote>" * 10
          + "<p>How doth the little crocodile improve his shining tail</p>" + "</blockquote>" * 10
          + "".join(f"<p>{FILLER * 3}</p>" for _ in range(12)) + "</body></html>")
mobi("quoted.mobi", quoted, "Quoted", [(100, b"Q. Writer")])
# A Kindle book as Kindle tools write one: Windows-1252 text, PalmDOC-compressed, its contents
# page linking by `filepos` (a byte offset into the text), a picture in the text (the blue
# one, recindex 1), a red cover (EXTH 201: the second picture) and an NCX index listed out of
# the text's order. Chapter Two starts with ZULU.
def kindle_text(at):
    link = lambda key, words: f"<a filepos={at.get(key, 0):010d}>{words}</a>"
    return ("<html><head><guide><reference type=\"toc\" title=\"Contents\" " + f"filepos={at.get('toc', 0):010d}" + " /></guide></head><body>"
            + "[toc]<p>Contents</p><p>" + link("one", "Chapter One") + "</p><p>" + link("two", "Chapter Two") + "</p>"
            + "<mbp:pagebreak/>[part]<p height=\"3em\">Part One</p>"
            + "<mbp:pagebreak/>[one]<p>YANKEE the traveller\u2019s tale. " + FILLER * 3 + "</p>"
            + "".join(f"<p>{FILLER * 3}</p>" for _ in range(8)) + "<p><img recindex=\"00001\"/></p>"
            + "<mbp:pagebreak/>[two]<p>ZULU " + FILLER * 3 + "</p></body></html>")


def kindle_offsets():
    marked = kindle_text({}).encode("cp1252")
    at, cut = {}, 0
    for key in ["toc", "part", "one", "two"]:
        i = marked.index(f"[{key}]".encode())
        at[key] = i - cut
        cut += len(key) + 2
    return at


KINDLE = kindle_offsets()
kindle = kindle_text(KINDLE)
for key in KINDLE:
    kindle = kindle.replace(f"[{key}]", "")
mobi("kindle.mobi", kindle.encode("cp1252"), "Kindle", [(100, b"K. Writer"), (524, b"en")], encoding="cp1252",
     pictures=[png(40, 30, COLOURS[2]), png(60, 90, COLOURS[0])], cover=1,
     ncx=[(KINDLE["two"], 1, "Chapter Two"), (KINDLE["part"], 0, "Part One"), (KINDLE["one"], 1, "Chapter One \u2014 D\u00e9but")])
# A KF8 (AZW3) book as Calibre writes one: two parts, each a skeleton (an XHTML file with its
# head) with its fragments after it, put in place by the fragment index; the first part's
# contents page links the second part's heading by position (kindle:pos), shows the blue picture
# (kindle:embed:0001) and takes a stylesheet from the text's second flow (kindle:flow:0001),
# which sets "Contents" large (a span: Folio holds paragraphs at the reader's size); the second
# part holds two fragments, ZULU's and XRAY's, each in a div of its skeleton, WHISKEY between
# them in the skeleton. The cover is the red picture; the NCX points by fragment and offset.
def kf8_book(name="kf8.azw3", repeats=1):
    head = '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>KF8</title>'
    css_link = '<link href="kindle:flow:0001?mime=text/css" rel="stylesheet" type="text/css"/>'
    skeletons = [(head + css_link + '</head><body aid="0">').encode(), b'</body></html>']
    part0 = ('<div aid="1"><p><span class="big">Contents</span></p><p><a href="kindle:pos:fid:0001:off:0000000000">Chapter Two</a></p>'
             '<p>YANKEE the traveller\u2019s tale. ' + FILLER * 3 + '</p>' + "".join(f"<p>{FILLER * 3}</p>" for _ in range(8))
             + '<p><img src="kindle:embed:0001?mime=image/png" alt=""/></p></div>').encode()
    skeleton1 = (head + '</head><body aid="2"><div id="a"></div><p>WHISKEY</p><div id="b"></div></body></html>').encode()
    zulu = ('<h1>Chapter Two</h1><p>ZULU ' + FILLER * 3 + '</p>').encode()
    xray = ('<p>XRAY ' + FILLER * 3 + '</p>').encode()
    skeleton0 = skeletons[0] + skeletons[1]
    start1 = len(skeleton0) + len(part0)
    a, b = (skeleton1.index(tag) + len(tag) for tag in (b'<div id="a">', b'<div id="b">'))
    frags = [(len(skeletons[0]), 0, len(part0)), (start1 + a, 0, len(zulu)), (start1 + b + len(zulu), len(zulu), len(xray))]
    flow0 = skeleton0 + part0 + skeleton1 + zulu + xray
    css = b"span.big { font-size: 3em; }"
    frags = frags[:1] * repeats + frags[1:]
    skel = index_records([(1, 1, 0x03), (6, 2, 0x0C)],
                         [(b"SKEL%010d" % 0, 0x05, [repeats, 0, len(skeleton0)]), (b"SKEL%010d" % 1, 0x05, [2, start1, len(skeleton1)])])
    frag = index_records([(2, 1, 0x01), (3, 1, 0x02), (4, 1, 0x04), (6, 2, 0x08)],
                         [(b"%010d" % insert, 0x0F, [0, i // 2 + (i > 0), i, offset, length]) for i, (insert, offset, length) in enumerate(frags)],
                         cncx=varlen(1) + b"P")
    cncx, labels = b"", []
    for label in ["Contents", "Chapter Two"]:
        labels.append(len(cncx))
        cncx += varlen(len(label)) + label.encode()
    ncx = index_records([(3, 1, 0x01), (4, 1, 0x02), (6, 2, 0x04)],
                        [(b"000", 0x07, [labels[0], 0, 0, 0]), (b"001", 0x07, [labels[1], 0, 1, 0])], cncx=cncx)
    fdst = b"FDST" + struct.pack(">II", 12, 2) + struct.pack(">IIII", 0, len(flow0), len(flow0), len(flow0) + len(css))
    mobi(name, flow0 + css, "KF8 Book", [(100, b"K. Writer"), (524, b"en")], pictures=[png(40, 30, COLOURS[2]), png(60, 90, COLOURS[0])],
         cover=1, kf8={"ncx": ncx, "skel": skel, "frag": frag, "fdst": [fdst]})


kf8_book()
# The same whose first skeleton names its fragment 3,000 times: a damaged index must not
# multiply the text.
kf8_book("kf8-repeats.azw3", repeats=3000)
# Hostile KF8 books: one skeleton (the whole text, `flow`) and its fragments (insert, offset,
# length), no contents.
def kf8_plain(name, flow, frags=(), pictures=()):
    skel = index_records([(1, 1, 0x03), (6, 2, 0x0C)], [(b"SKEL%010d" % 0, 0x05, [len(frags), 0, len(flow) - sum(f[2] for f in frags)])])
    frag = index_records([(2, 1, 0x01), (3, 1, 0x02), (4, 1, 0x04), (6, 2, 0x08)],
                         [(b"%010d" % insert, 0x0F, [0, 0, i, offset, length]) for i, (insert, offset, length) in enumerate(frags)],
                         cncx=varlen(1) + b"P")
    ncx = index_records([(3, 1, 0x01), (4, 1, 0x02), (6, 2, 0x04)], [(b"000", 0x07, [0, 0, 0, 0])], cncx=varlen(3) + b"One")
    css = b"p { }"
    fdst = b"FDST" + struct.pack(">II", 12, 2) + struct.pack(">IIII", 0, len(flow), len(flow), len(flow) + len(css))
    mobi(name, flow + css, "KF8 Hostile", [(100, b"W"), (524, b"en")], pictures=list(pictures),
         kf8={"ncx": ncx, "skel": skel, "frag": frag, "fdst": [fdst]})


# 50,000 heads never closed (each looked for its end to the text's end).
kf8_plain("kf8-heads.azw3", b'<html><body aid="0"><p>ALPHA words</p>' + b"<head>" * 50000 + b"</body></html>")
# 40,000 pictures named among 30,000 records (each counted the records).
kf8_plain("kf8-embeds.azw3", b'<html><body aid="0"><p>ALPHA words</p>' + b'<img src="kindle:embed:0001?mime=image/png"/>' * 40000
          + b"</body></html>", pictures=[b"not a picture %d" % i for i in range(30000)])
# A skeleton of a megabyte (a comment) and 1,000 one-letter fragments, each put at its start.
big = b'<html><body aid="0"><p>ALPHA words</p><!--' + b"x" * (1 << 20) + b"--></body></html>"
kf8_plain("kf8-fragments.azw3", big + b"Q" * 1000, frags=[(0, i, 1) for i in range(1000)])
# A MOBI whose 2,000 text records all start at one place (4 KiB), claiming 8 MB of text.
with open(os.path.join(out, "overlapping.mobi"), "wb") as f:
    f.write(b"")
mobi("overlapping.mobi", "<html><body><p>ALPHA words</p></body></html>" + " " * 4000, "Overlapping", [(100, b"W")])
raw = bytearray(open(os.path.join(out, "overlapping.mobi"), "rb").read())
count = struct.unpack(">H", raw[76:78])[0]
text_at = struct.unpack(">I", raw[78 + 8:78 + 12])[0]
records = [struct.unpack(">I", raw[78 + 8 * i:82 + 8 * i])[0] for i in range(count)]
r0 = records[0]
head = bytes(raw[:76]) + struct.pack(">H", 2001)
table = struct.pack(">II", r0 + 8 * (2001 - count), 0) + b"".join(struct.pack(">II", text_at + 8 * (2001 - count), i + 1) for i in range(2000))
first = bytearray(raw[r0:text_at])
struct.pack_into(">IH", first, 4, 2000 * 4096, 2000)
with open(os.path.join(out, "overlapping.mobi"), "wb") as f:
    f.write(head + table + b"\0\0" + bytes(first) + bytes(raw[text_at:text_at + 4096]))
# An FB2 of 30,000 titled sections (MuPDF resolved each title through the whole book at every
# layout).
with open(os.path.join(out, "titles.fb2"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><book-title>Titles</book-title></title-info></description><body>"
            "<section><title><p>ALPHA</p></title><p>words</p></section>"
            + "<section><title><p>T</p></title><p>x</p></section>" * 30000 + "</body></FictionBook>")
# Markup cut short at a '<', in each of the three formats Folio prepares.
mobi("cut-short.mobi", "<html><body><p>ALPHA words</p><", "Cut Short", [(100, b"W")])
with open(os.path.join(out, "cut-short.fb2"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><book-title>Cut</book-title></title-info></description><body><section><p>ALPHA words</p></section></body><")

# A MOBI that is a tar archive too, as MuPDF recognizes one (whole 512-byte blocks, six zero
# bytes at 257), its last record starting past the file's end: read as an archive, it passed
# over the checks of its records, and MuPDF's reader crashed.
mobi("tar-shaped.mobi", mobi_text, "Tar Shaped", [(100, b"W")])
raw = bytearray(open(os.path.join(out, "tar-shaped.mobi"), "rb").read())
raw += bytes(-len(raw) % 512)
raw[257:263] = bytes(6)
struct.pack_into(">I", raw, 78 + 8 * (struct.unpack(">H", raw[76:78])[0] - 1), len(raw) + 4096)
with open(os.path.join(out, "tar-shaped.mobi"), "wb") as f:
    f.write(raw)

# A header that claims a full name longer than the file, and no EXTH title.
mobi("lying-header.mobi", mobi_text, "Short", [(100, b"Unknown")], name_length=0x7fffffff)

with zipfile.ZipFile(os.path.join(out, "sheet.xps"), "w") as z:
    z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
               '<Default Extension="fdseq" ContentType="application/vnd.ms-package.xps-fixeddocumentsequence+xml"/>'
               '<Default Extension="fdoc" ContentType="application/vnd.ms-package.xps-fixeddocument+xml"/>'
               '<Default Extension="fpage" ContentType="application/vnd.ms-package.xps-fixedpage+xml"/>'
               '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>')
    z.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
               '<Relationship Type="http://schemas.microsoft.com/xps/2005/06/fixedrepresentation" Target="/doc.fdseq" Id="R0"/></Relationships>')
    z.writestr("doc.fdseq", '<FixedDocumentSequence xmlns="http://schemas.microsoft.com/xps/2005/06"><DocumentReference Source="/d.fdoc"/></FixedDocumentSequence>')
    z.writestr("d.fdoc", '<FixedDocument xmlns="http://schemas.microsoft.com/xps/2005/06">'
               + "".join(f'<PageContent Source="/p{i}.fpage"/>' for i in range(2)) + "</FixedDocument>")
    for i in range(2):
        r, g, b = COLOURS[i]
        z.writestr(f"p{i}.fpage", f'<FixedPage xmlns="http://schemas.microsoft.com/xps/2005/06" Width="400" Height="600" xml:lang="en">'
                   f'<Path Data="M 0,150 L 400,150 400,450 0,450 Z" Fill="#FF{r:02X}{g:02X}{b:02X}"/></FixedPage>')

# Bad books.
good = open(os.path.join(out, "reflow2.epub"), "rb").read()
open(os.path.join(out, "truncated.epub"), "wb").write(good[: len(good) // 3])
open(os.path.join(out, "garbage.epub"), "wb").write(bytes((i * 7919) % 251 for i in range(20000)))
epub("missing-spine.epub", reflow[:1], spine='<itemref idref="i0"/><itemref idref="gone"/>')
epub("outside-spine.epub", reflow[:1] + [("../../../etc/passwd", "x", xhtml)])
laughs = ('<?xml version="1.0"?><!DOCTYPE html [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
          + "".join(f'<!ENTITY {chr(99 + i)} "{("&" + chr(98 + i) + ";") * 10}">' for i in range(7))
          + ']><html xmlns="http://www.w3.org/1999/xhtml"><body><p>&i;</p></body></html>')
epub("laughs.epub", [("c0.xhtml", laughs, xhtml)] + reflow[1:2])
epub("nested.epub", [("c0.xhtml", chapter("deep", "<div>" * 100000 + "deep" + "</div>" * 100000), xhtml)] + reflow[1:2])
epub("huge-image.epub", [("big.png", huge_png(30000), "image/png"), ("c0.xhtml", chapter("big", '<img src="big.png"/>'), xhtml)] + reflow[1:2])
epub("absurd-css.epub", [("c0.xhtml", chapter("absurd", prose("ALPHA", 2), css="p { font-size: 1e9px; margin: -1e9px; } h1 { font-size: 1e9px }"), xhtml)] + reflow[1:2])
epub("drm.epub", reflow, extra={"META-INF/encryption.xml":
     '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">'
     '<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
     '<enc:CipherData><enc:CipherReference URI="OEBPS/c0.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>'})
# A chapter cut short at a '<'; one in UTF-16 (the copy's UTF-8 put it out of step); one with
# 300,000 tags that no '>' ever closes after a heading; one word of 400,000 letters; a head of
# 50,000 styles; a stylesheet of 50,000 faces.
epub("cut-short.epub", [("c0.xhtml", "<html><body><p>ALPHA words</p><", xhtml)])
epub("utf16.epub", [("c0.xhtml", chapter("utf16", "<p>ALPHA words</p>").replace('encoding="utf-8"', 'encoding="UTF-16"').encode("utf-16"), xhtml)])
epub("unclosed.epub", [("c0.xhtml", "<html><body><h1>T</h1><p>ALPHA words</p><h1>" + "<h1 " * 300000, xhtml)])
epub("long-word.epub", [("c0.xhtml", chapter("long", "<p>ALPHA " + "x" * 400000 + "</p>"), xhtml)])
# Runs longer than a line that break where they are: words parted by zero-width spaces (as Thai
# is written), a web address of short parts.
epub("breakable.epub", [("c0.xhtml", chapter("breakable", "<p>ZWSP " + "\u200b".join(["abcdefghij"] * 20) + "</p><p>URL http://example.org/"
                                                       + "/".join(["abcdefghijklmnop"] * 8) + "</p>"), xhtml)])
epub("styles.epub", [("c0.xhtml", chapter("styles", "<p>ALPHA words</p>").replace("</head>", "<style>p { }</style>" * 50000 + "</head>"), xhtml)])
epub("faces.epub", [("c0.xhtml", chapter("faces", "<p>ALPHA words</p>", css="@font-face { font-family: f; src: url(none.ttf); }" * 50000), xhtml)])
# A chapter that takes MuPDF seconds to lay out (nesting just under the refusal, many
# times over) between two quick ones.
slow = "".join("<div>" * 450 + "slow words " * 20 + "</div>" * 450 for _ in range(300))
epub("slow-layout.epub", reflow[:1] + [("slow.xhtml", chapter("slow", slow), xhtml)] + reflow[1:2])
# Fonts obfuscated as EPUB allows (not DRM), and a folder listed as an entry of its own, as
# real books have them: the text reads.
epub("obfuscated-fonts.epub", reflow, extra={"OEBPS/fonts/": "", "OEBPS/fonts/f.otf": bytes(64), "META-INF/encryption.xml":
     '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">'
     '<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>'
     '<enc:CipherData><enc:CipherReference URI="OEBPS/fonts/f.otf"/></enc:CipherData></enc:EncryptedData></encryption>'})
with open(os.path.join(out, "broken-base64.fb2"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" '
            'xmlns:l="http://www.w3.org/1999/xlink"><description><title-info><book-title>Broken</book-title></title-info></description>'
            '<body><section><p>ALPHA words</p><image l:href="#pic"/></section></body>'
            '<binary id="pic" content-type="image/png">' + base64.b64encode(png(10, 10, (1, 2, 3)))[:20].decode() + "!!**%%</binary></FictionBook>")
