#!/usr/bin/python3
"""Writes hostile e-books into the folder given (Python's zipfile only), each a case of
docs/hostile-files.md: markup nested deeper than Folio lays out, hidden from a scan of the tags
(behind comments, in chapters of other names, in SVG, FB2 and MOBI text), MOBI records past the
end of the file, resources named outside the book (an absolute path, `../`, a FIFO), a spine of
more items than Folio opens. Beside them, `outside/` holds the files those books name: a
hostile book must never open them. Depths and sizes are the tests' own (DEPTH levels)."""
import os, struct, sys, zipfile

out = sys.argv[1]
DEPTH = 30000
outside = os.path.join(out, "outside")
os.makedirs(outside, exist_ok=True)
SECRET = os.path.join(outside, "secret.ttf")
with open(SECRET, "w") as f:
    f.write("not a font")
PIPE = os.path.join(outside, "pipe.ttf")
if not os.path.exists(PIPE):
    os.mkfifo(PIPE)
PLAIN = "<p>ALPHA words of a plain chapter.</p>"


def page(body, head=""):
    return ('<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>t</title>{head}</head><body>{body}</body></html>")


def epub(name, items, spine=None, absent=()):
    """items: [(name in OEBPS/, text, media type, in the spine)]; absent: [(id, href)] in the
    manifest but not in the archive."""
    with zipfile.ZipFile(os.path.join(out, name), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                   "</rootfiles></container>")
        manifest, refs = [], []
        for i, (fname, data, media, listed) in enumerate(items):
            z.writestr("OEBPS/" + fname, data)
            manifest.append(f'<item id="i{i}" href="{fname}" media-type="{media}"/>')
            if listed:
                refs.append(f'<itemref idref="i{i}"/>')
        for ident, href in absent:
            manifest.append(f'<item id="{ident}" href="{href}" media-type="application/xhtml+xml"/>')
        z.writestr("OEBPS/content.opf",
                   '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">'
                   '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Hostile</dc:title>'
                   f'<dc:identifier id="id">{name}</dc:identifier></metadata>'
                   f'<manifest>{"".join(manifest)}</manifest><spine>{spine or "".join(refs)}</spine></package>')


xhtml = "application/xhtml+xml"
plain = ("plain.xhtml", page(PLAIN), xhtml, True)
deep = "<div>" * DEPTH + "deep" + "</div>" * DEPTH
# Closing tags inside a comment, which a scan of tags alone counts, pay for the opening ones.
hidden = "<!-- " + "</div>" * DEPTH + " -->" + deep
epub("deep-behind-comment.epub", [plain, ("c.xhtml", page(hidden), xhtml, True)])
epub("deep-xht.epub", [plain, ("c.xht", page(deep), xhtml, True)])
epub("deep-no-extension.epub", [plain, ("chapter", page(deep), xhtml, True)])
# Attribute values holding "/>" and ">" made the scan take every element for an empty one.
# A chapter named as a stylesheet (scripts and stylesheets are not scanned unless the spine lists them).
epub("deep-named-css.epub", [plain, ("c.css", page(deep), xhtml, True)])
epub("deep-attributes.epub", [plain, ("c.xhtml", page('<div title="/>">' * DEPTH + "x" + "</div>" * DEPTH), xhtml, True)])
svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' + "<g>" * DEPTH + "</g>" * DEPTH + "</svg>"
epub("deep-svg.epub", [("c.xhtml", page('<p>x</p><img src="pic.svg"/>'), xhtml, True), ("pic.svg", svg, "image/svg+xml", False)])
# Not deep: a flat chapter of many line breaks, and many empty elements (page markers) in XML.
epub("flat-breaks.epub", [("c.xhtml", page("<p>ALPHA</p>" + "<br>" * 640 + "<p>end</p>").replace("<br>", "<br/>"), xhtml, True)])
epub("flat-html.epub", [("c.xhtml", "<html><body><p>ALPHA" + "<br>line" * 640 + "</body></html>", xhtml, True)])
# A script of 2,000 comparisons (`i<n`, `a > b`), which no parser reads as markup.
epub("script.epub", [("c.xhtml", page("<p>ALPHA</p>", '<script src="s.js"></script>'), xhtml, True),
                     ("s.js", "".join(f"for (i{k} = 0; i{k}<n{k}; i{k}++) if (a > b) f();\n" for k in range(2000)), "text/javascript", False)])
epub("page-markers.epub", [("c.xhtml", page("<p>ALPHA</p>" + '<span id="p"/>' * 700), xhtml, True)])

with open(os.path.join(out, "deep.fb2"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
            "<description><title-info><book-title>Deep</book-title></title-info></description><body>"
            + "<!-- " + "</section>" * DEPTH + " -->" + "<section>" * DEPTH + "<p>x</p>" + "</section>" * DEPTH + "</body></FictionBook>")
with open(os.path.join(out, "deep.xhtml"), "w") as f:
    f.write(page(hidden))


def mobi(name, text, offsets=None):
    """A MOBI book: the Palm database header, a record of PalmDOC and MOBI headers, then the text
    in records of 4096 bytes, PalmDOC-compressed (ASCII bytes are literals: the text as it is).
    `offsets` replaces the record table's offsets."""
    text = text.encode()
    records = [text[i:i + 4096] for i in range(0, len(text), 4096)]
    header0 = struct.pack(">HHIHHHH", 2, 0, len(text), len(records), 4096, 0, 0) + b"MOBI" + struct.pack(">III", 232, 2, 65001)
    records.insert(0, header0 + bytes(232 - 16))
    head = name.encode()[:31].ljust(32, b"\0") + bytes(28) + b"BOOKMOBI" + bytes(8) + struct.pack(">H", len(records))
    at, table = len(head) + 8 * len(records) + 2, []
    for r in records:
        table.append(at)
        at += len(r)
    table = offsets(table) if offsets else table
    index = b"".join(struct.pack(">II", o, i) for i, o in enumerate(table))
    with open(os.path.join(out, name), "wb") as f:
        f.write(head + index + b"\0\0" + b"".join(records))


# An empty end tag before an element HTML does not know, on which MuPDF 1.21's HTML parser crashes.
EMPTY_END = "<html><body><p>ALPHA</p></><aside-note>after the empty end tag</aside-note></body></html>"
epub("empty-end-tag.epub", [("c.xhtml", EMPTY_END, xhtml, True)])
with open(os.path.join(out, "empty-end-tag.xhtml"), "w") as f:
    f.write(EMPTY_END)
mobi("deep.mobi", "<html><body>" + deep + "</body></html>")
mobi("empty-end-tag.mobi", EMPTY_END)
book = "<html><body>" + "<p>ALPHA words of a plain book.</p>" * 400 + "</body></html>"
mobi("records-past-end.mobi", book, offsets=lambda t: t[:-1] + [0x7FFF0000])
mobi("records-backwards.mobi", book, offsets=lambda t: t[:-2] + [t[-1], t[-2]])

# Resources outside the book: an absolute path, `../` from the chapter (and so from the working
# folder, where MuPDF reads a font its archive lacks), a FIFO.
faces = "".join(f'@font-face {{ font-family: f{i}; src: url({u}); }} ' for i, u in
                enumerate([SECRET, "../../outside/secret.ttf", PIPE, "/dev/zero"]))
fonts = "<style>" + faces + "p { font-family: f0, f1, f2, f3; }</style>"
epub("fonts-outside.epub", [("c.xhtml", page("<p>ALPHA outside fonts</p>", fonts), xhtml, True),
                            ("s.css", faces, "text/css", False)])
# An XHTML file may read the files in its folder (its images): this one's is page/.
os.makedirs(os.path.join(out, "page"), exist_ok=True)
with open(os.path.join(out, "page", "fonts-outside.xhtml"), "w") as f:
    f.write(page(f'<p>ALPHA outside</p><img src="{SECRET}"/><img src="../outside/secret.ttf"/>', fonts))
mobi("fonts-outside.mobi", "<html><head>" + fonts + "</head><body><p>ALPHA outside fonts</p></body></html>")

# Spine items the archive lacks: a chapter left out of it, and one named outside it.
epub("missing-chapter.epub", [plain], spine='<itemref idref="i0"/><itemref idref="gone"/>', absent=[("gone", "gone.xhtml")])
epub("chapter-outside.epub", [plain], spine='<itemref idref="i0"/><itemref idref="up"/>', absent=[("up", "../../etc/passwd")])

# More spine items than Folio opens, all naming one chapter.
epub("long-spine.epub", [plain], spine='<itemref idref="i0"/>' * 12000)

# An XPS whose second page is missing from its archive.
with zipfile.ZipFile(os.path.join(out, "missing-page.xps"), "w") as z:
    z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
               '<Default Extension="fdseq" ContentType="application/vnd.ms-package.xps-fixeddocumentsequence+xml"/>'
               '<Default Extension="fdoc" ContentType="application/vnd.ms-package.xps-fixeddocument+xml"/>'
               '<Default Extension="fpage" ContentType="application/vnd.ms-package.xps-fixedpage+xml"/>'
               '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>')
    z.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
               '<Relationship Type="http://schemas.microsoft.com/xps/2005/06/fixedrepresentation" Target="/doc.fdseq" Id="R0"/></Relationships>')
    z.writestr("doc.fdseq", '<FixedDocumentSequence xmlns="http://schemas.microsoft.com/xps/2005/06"><DocumentReference Source="/d.fdoc"/></FixedDocumentSequence>')
    z.writestr("d.fdoc", '<FixedDocument xmlns="http://schemas.microsoft.com/xps/2005/06"><PageContent Source="/p0.fpage"/>'
               '<PageContent Source="/p1.fpage"/></FixedDocument>')
    z.writestr("p0.fpage", '<FixedPage xmlns="http://schemas.microsoft.com/xps/2005/06" Width="400" Height="600" xml:lang="en">'
               '<Path Data="M 0,150 L 400,150 400,450 0,450 Z" Fill="#FF1A33E6"/></FixedPage>')
