#!/usr/bin/python3
"""Writes the e-books the typesetting tests read, into the folder given (Python's zipfile and
zlib only): each is a case a real book has and Folio must set like a printed book.

  margin0.epub     a novel whose stylesheet sets `body { margin: 0 }` and paints the body white,
                   its paragraphs justified and full of long words, in English (dc:language en)
  rtl.epub         Arabic, `<html dir="rtl" lang="ar">`, short paragraphs of one line each
  vertical.epub    Japanese whose stylesheet sets `writing-mode: vertical-rl`
  front.epub       a novel that opens with front matter (a title page, epigraphs of short
                   lines, a contents list) before twenty long chapters of prose
  notes.epub       a chapter referring to a footnote (an aside), an endnote in a notes file and
                   another chapter, each by a link; the footnote links to the chapter, the
                   endnote and an address, the endnote back to its reference (↩)
  pictures.epub    a fixed-layout book whose spine items are pictures: a PNG, an SVG, and an
                   XHTML page wrapping an SVG picture, each one colour
  pixelbody.epub   a fixed-layout page as publishers export it: a body sized to its viewport in CSS
                   pixels (600 × 800), absolutely placed, holding an SVG of the whole page (width
                   and height 100%) with a black square at 10–20 % across and 50–60 % down
  widebody.epub    a novel whose stylesheet sets `body { width: 1024px }` and a picture 1024 px
                   wide (a blue 1024 × 400 PNG) between its paragraphs
  math.epub        MathML as LaTeX converters write it: a column vector in brackets (`mfenced`
                   round an `mtable`), fractions, a root, scripts, a TeX annotation, a matrix
                   standing bare, and displayed equations aligned in a table
  gutenberg.epub   chapters as Project Gutenberg's EPUBs set them: `div.chapter { page-break-before:
                   always; margin-top: 4em }` round `h2 { page-break-before: always }`, one file a
                   chapter (the second's box with an empty `style`), and a last file holding two chapters; its
                   contents lead to each
  russian.epub     justified Russian prose of long words (dc:language ru: Debian's patterns for it
                   are KOI8-R, not UTF-8)
  german.epub      justified German prose of long compounds (dc:language de: Debian's patterns for it
                   are the largest, seconds to load); german3.epub the same named by its ISO 639-2
                   code, "ger", as older converters name it
  xmlchapters.epub the novel of margin0.epub with its chapter named `main0.xml`, as Feedbooks names
                   them
  sections.epub    one file of three `<section id>`s inside a fourth (HTML5 blocks MuPDF 1.21 sets
                   inline), each a heading "Part N" and pages of prose, its navigation pointing at
                   each inner section
  keep.epub        one file of 40 sections, each a heading "Section N" (its stylesheet asks
                   `page-break-after: avoid`, as books do) and one to five one-line paragraphs,
                   so that headings fall at pages' feet; every fifth a `<section>` whose heading
                   is followed by a second, "Part N"; its contents lead to each heading or section
                   (the seventh's id written `id = 's7'` between other attributes)
  generated.epub   text its stylesheet puts before and after elements (`::before`, `::after {
                   content: "…" }`), as Standard Ebooks' plays put stage directions in parentheses:
                   by `epub:type`, by element and class (a hexadecimal escape: an em dash), and
                   rules that must put nothing (an empty string, a descendant selector, `@media
                   print, a selector of three parts), between siblings (`.kw + .kw::before`: a
                   dash between keywords, not before the first, nor before one inside another or
                   after a line break), in an ancestor (`td i::after`) or a parent (`p.par > b`),
                   the most specific of the rules for one element (`b::after` below it), a space
                   after an inline heading its rule gives room on its right; a
                   second chapter whose own `<style>` generates text, and a third it
                   is not for
  parts.epub       one file of 24 parts of a few one-line paragraphs each, its contents leading to
                   each part's heading, parts 13 to 24 listed under part 12, parts 3 and 16
                   starting pages
  obfuscated.epub  the machine's monospace embedded twice, obfuscated by the IDPF's algorithm and by
                   Adobe's (its key a second identifier, a urn:uuid), words of i, m, l and w in each;
                   misobfuscated.epub the same, obfuscated with another book's keys
  imports.epub     a stylesheet that `@import`s, from another folder, one declaring a face (the
                   machine's monospace, found by fontconfig) by a path relative to itself, and a
                   stylesheet for print only that would undo it; two words of eight i and eight m
                   in that face, and eight l and eight w in a face whose sources name local faces
                   before that file
  transparent.epub a page holding an SVG picture across it, transparent but for a black square at its
                   top left, as Standard Ebooks' title pages and logos are
  chapters.epub    thirty chapters of prose; "Café Ægir" in three of them, written with character
                   references, a CDATA section and a soft hyphen, and in a fourth with `&eacute;`
                   (which MuPDF shows as written: no hit there)
  printed.epub     a book with its print edition's page breaks (`epub:type="pagebreak"`, listed in
                   its navigation's `page-list`, the nav item's properties "nav scripted"): front
                   matter without breaks, then two chapters with breaks 12 to 19, each right
                   before a paragraph starting with the word "markN"
  printed2.epub    the same as an EPUB 2: its page list in its NCX's `pageList`, no navigation document;
                   its contents' one label broken over two lines
  misled.epub      two chapters in Text/, "Part 1" and "Part 2", whose navigation document, in Text/
                   too, links "Text/c0.xhtml#h0" (strictly Text/Text/…, which the book lacks)
  firstchild.epub  a stylesheet's `p > span:first-child { font-size: 3em }` over spans first in their
                   paragraph (ALPHA; CHARLIE after text), second (BRAVO) and after an element (DELTA)
  headed.epub      a heading in small caps twice, bold then light, and an epigraph in the header as
                   Standard Ebooks set it (`display: inline-block; margin: auto; text-align: initial`)
  entities.epub    a chapter whose DOCTYPE declares its quotation marks as entities (`&O;`, `&C;`),
                   as Readium's *Alice* does, and entities expanding to entities ten times over
  epubtype.epub    rules by `epub:type`, as Standard Ebooks writes them (`@namespace epub`,
                   `[epub|type~="noteref"]`, and one with an escaped colon): note references set
                   small, a poem's lines spans made blocks, each followed by a line break the
                   stylesheet hides
  covered.epub     a red cover declared in the package (`cover-image`) and not in the reading
                   order, which starts on a title page (as Standard Ebooks' books do); shown.epub
                   the same whose title page shows the cover; placeholder.epub one whose declared
                   cover (an EPUB 2 `<meta name="cover">`) is a placeholder of 1 × 1 pixels
  svgstyle.epub    a cover that is an SVG filling its lettering white by a rule of its own
                   stylesheet (`path { fill: #fff }`) over a black box, as Standard Ebooks' are
  spans.epub       a table whose cells span columns (`colspan`) and rows (`rowspan`); a table
                   of half the line, a long name beside a cell of many lines
  media.epub       paragraphs set right by rules inside `@media` blocks: for screens, portrait pages,
                   all but print, nested; and by blocks for print (one in a comment), wide screens
                   and a Kindle
  smallcaps.epub   400 words in small capitals, in "Times New Roman"
  widths.epub      a table whose names' cells a rule gives a quarter of it (`table.cast td.name`), and
                   one whose first cell is `width="40%"`, its lines short
  play.epub        a scene set as Standard Ebooks sets a play: a table row a speech, the speaker's
                   name in one cell (set flush right by a rule naming the body's type) and the speech in the other, in
                   paragraphs of lines (`span`s made blocks, between `br`s) or as text; lines
                   spoken together ruled on their left
  legacy.epub      an older book's presentational markup (Project Gutenberg's HTML), its stylesheet
                   opening with a named page and a margin box (as Word writes), another with a
                   byte-order mark, a `calc()` and a comment before a brace: a root sized
                   62.5 %, a body sized in points, a span in pixels, one in pixels inside a block
                   in pixels, one in rems, page numbers in pixels around anchors that link
                   nowhere, a heading's anchor, `align` on paragraphs, a div and a cell, `<center>`;
                   tables shown `inline-table` by a rule (Project Gutenberg's `.xhtml_div_align
                   table`) and by a style attribute, one shown as a block (pandoc 3's stylesheet), a
                   list whose items a stylesheet shows as a table's rows (Springer's), a block wider
                   than the page by a rule in inches (LibreOffice's) and a table by a style in
                   pixels; a
                   table `border="1"` of rows crossing pages;
                   paragraphs whose line height is in pixels or points, by a rule and by a style
                   attribute round spans in points (as Word writes them)
  meant.epub       what a browser shows of rules MuPDF reads otherwise: a title page's heading and
                   a span hidden from the eye as Standard Ebooks and "sr-only" rules hide them
                   (placed far off the page, clipped to a pixel) and one clipped to the whole of
                   it, one whose hiding is commented out, a paragraph of a rule for pictures too, a paragraph 40 % wide centred by
                   auto margins, a rule 50 % wide (centred by a browser's own style), all small
                   caps beside small caps, and a play's verse in a table cell of justified text
                   (a line of short words, then one too long to join them)
  unhyphenated.epub  justified paragraphs of long words, some its publisher keeps unhyphenated
                   (`hyphens: none` by class, in `@media`, and in a style attribute), some not
  ruby.epub        a word with its reading in ruby (`rt`); a line of code far longer than the page
  dotted.epub      two chapters whose archive entries are named `OEBPS/./contents/c0.xhtml`, as
                   ebooklib names them from a manifest's `./contents/c0.xhtml`; backslashed.epub
                   every entry named with backslashes (`OEBPS\\text\\c0.xhtml`), as zipped on Windows
  gutenberg.txt    plain text as Project Gutenberg writes it: a header naming title, author and
                   language, chapters headed `CHAPTER I.` over their names, prose wrapped at 70
                   characters, verse, CRLF line ends; novel.txt a Chinese novel in GB18030;
                   latin.txt Windows-1252; wide.txt UTF-16 with its mark; binary.txt and
                   blank.txt no text
"""
import os, struct, subprocess, sys, textwrap, zipfile, zlib

out = sys.argv[1]
LONG = ("Notwithstanding the extraordinary circumstances, the international correspondence "
        "demonstrated incomprehensible responsibilities, characteristically misunderstood by "
        "representatives, administrators and photographers alike. ")


def png(w, h, rgb):
    row = b"\x00" + bytes(rgb) * w
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * h)) + chunk(b"IEND", b""))


def entry(z, name, data):
    info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def xhtml(body, head="", html_attributes="", body_attributes=""):
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"{html_attributes}>'
            f"<head><title>t</title>{head}</head><body{body_attributes}>{body}</body></html>")


def epub(name, title, language, files, spine, metadata="", spine_attributes="", properties=None, version="3.0", root=None):
    """files: (href, media type, data) under OEBPS/; spine: the hrefs in reading order;
    properties: an item's properties by href; root: entries by name at the archive's root."""
    with zipfile.ZipFile(os.path.join(out, name), "w") as z:
        entry(z, "mimetype", "application/epub+zip")
        for root_name, data in (root or {}).items():
            entry(z, root_name, data)
        entry(z, "META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
              'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
              'media-type="application/oebps-package+xml"/></rootfiles></container>')
        items, refs = [], []
        for i, (href, media, data) in enumerate(files):
            entry(z, "OEBPS/" + href, data)
            extra = f' properties="{properties[href]}"' if properties and href in properties else ""
            items.append(f'<item id="i{i}" href="{href}" media-type="{media}"{extra}/>')
            if href in spine:
                refs.append((spine.index(href), f'<itemref idref="i{i}"/>'))
        refs = [r for _, r in sorted(refs)]
        entry(z, "OEBPS/content.opf", f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="{version}" '
              'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
              f'<dc:identifier id="id">folio-{name}</dc:identifier><dc:title>{title}</dc:title>'
              f'<dc:language>{language}</dc:language>{metadata}</metadata>'
              f'<manifest>{"".join(items)}</manifest><spine{spine_attributes}>{"".join(refs)}</spine></package>')


# A publisher's stylesheet that takes the page's margins away and paints a white box.
css = "body { margin: 0; padding: 0; background-color: #ffffff; } p { text-align: justify; margin: 0; text-indent: 1em; }"
chapters = [xhtml(f"<h1>Chapter {n}</h1>" + "".join(f"<p>{LONG * 3}</p>" for _ in range(12)),
                  '<link rel="stylesheet" href="book.css" type="text/css"/>') for n in (1, 2)]
epub("margin0.epub", "Margins Lost", "en",
     [("book.css", "text/css", css)] + [(f"c{i}.xhtml", "application/xhtml+xml", c) for i, c in enumerate(chapters)],
     ["c0.xhtml", "c1.xhtml"])

# Paragraphs of KEPT's words the publisher keeps whole, after a heading of them (display type
# is never hyphenated); LONG's are hyphenated as usual.
KEPT = ("Incontrovertibly, counterrevolutionaries unconstitutionally disproportionated "
        "electroencephalographic telecommunications, institutionalisation notwithstanding. ")
kept_css = ("p { text-align: justify; margin: 0; } p.whole { -epub-hyphens: none; hyphens: none; }"
            " @media screen { blockquote { -webkit-hyphens: none } }")
epub("unhyphenated.epub", "Kept Whole", "en",
     [("k.css", "text/css", kept_css),
      ("c0.xhtml", "application/xhtml+xml",
       xhtml(f"<h2>{KEPT}</h2>" + "".join(f'<p class="whole">{KEPT * 3}</p><p>{LONG * 3}</p><blockquote>{KEPT * 2}</blockquote>'
                                           f'<p style="hyphens: none">{KEPT * 2}</p>' for _ in range(3)),
             '<link rel="stylesheet" href="k.css" type="text/css"/>'))],
     ["c0.xhtml"])

arabic = "مرحبا بالعالم."
epub("rtl.epub", "كتاب", "ar",
     [("c0.xhtml", "application/xhtml+xml", xhtml("".join(f"<p>{arabic}</p>" for _ in range(20)),
                                                   html_attributes=' dir="rtl" lang="ar" xml:lang="ar"'))],
     ["c0.xhtml"], spine_attributes=' page-progression-direction="rtl"')

epub("vertical.epub", "縦書き", "ja",
     [("v.css", "text/css", "html { writing-mode: vertical-rl; -epub-writing-mode: vertical-rl; }"),
      ("c0.xhtml", "application/xhtml+xml", xhtml("<p>吾輩は猫である。名前はまだ無い。</p>",
                                                   '<link rel="stylesheet" href="v.css" type="text/css"/>'))],
     ["c0.xhtml"], spine_attributes=' page-progression-direction="rtl"')

svg = ('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="600" height="800" viewBox="0 0 600 800">'
       '<rect x="0" y="0" width="600" height="800" fill="#1a33e6"/></svg>')
wrapped = xhtml('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100%" height="100%" '
                'viewBox="0 0 600 800"><image width="600" height="800" xlink:href="p3.png"/></svg>',
                '<meta name="viewport" content="width=600, height=800"/>')
epub("pictures.epub", "Pictures", "ja",
     [("p1.png", "image/png", png(600, 800, (230, 26, 26))), ("p2.svg", "image/svg+xml", svg),
      ("p3.png", "image/png", png(600, 800, (26, 179, 26))), ("p3.xhtml", "application/xhtml+xml", wrapped)],
     ["p1.png", "p2.svg", "p3.xhtml"], metadata='<meta property="rendition:layout">pre-paginated</meta>')

# A body in CSS pixels: MuPDF takes a pixel for a point, so unless Folio's stylesheet lets the body
# span its page, the page's SVG is placed as if the page were a third wider (shifted right, cut off).
square = ('<svg xmlns="http://www.w3.org/2000/svg" width="450pt" height="600pt" viewBox="0 0 450 600">'
          '<rect x="45" y="300" width="45" height="60" fill="#000000"/></svg>')
epub("pixelbody.epub", "Pixel Body", "fr",
     [("s.css", "text/css", "body { position: absolute; top: 0; left: 0; margin: 0; width: 600px; height: 800px; } "
                            "svg { position: absolute; top: 0; left: 0; width: 100%; height: 100%; }"),
      ("p1.xhtml", "application/xhtml+xml", xhtml(square, '<meta name="viewport" content="width=600, height=800"/>'
                                                  '<link rel="stylesheet" href="s.css" type="text/css"/>'))],
     ["p1.xhtml"], metadata='<meta property="rendition:layout">pre-paginated</meta>')

epub("widebody.epub", "Wide Body", "en",
     [("w.css", "text/css", "body { width: 1024px; } img { width: 1024px; }"), ("wide.png", "image/png", png(1024, 400, (26, 51, 230))),
      ("c0.xhtml", "application/xhtml+xml", xhtml('<p>Before the picture.</p><p><img src="wide.png" alt="wide"/></p><p>After it.</p>',
                                                  '<link rel="stylesheet" href="w.css" type="text/css"/>'))],
     ["c0.xhtml"])

# MathML, which MuPDF 1.21 sets token after token ("b = 8 − 1 2 4").
M = 'xmlns="http://www.w3.org/1998/Math/MathML"'
vector = ('<math ' + M + '><mi>b</mi><mo>=</mo><mfenced separators="" open="[" close="]"><mrow><mtable>'
          '<mtr><mtd><mn>8</mn></mtd></mtr><mtr><mtd><mo>−</mo><mn>1</mn><mn>2</mn></mtd></mtr><mtr><mtd><mn>4</mn></mtd></mtr>'
          '</mtable></mrow></mfenced></math>')
fraction = ('<math ' + M + '><mi>x</mi><mo>=</mo><mo>−</mo><mfrac><msqrt><mn>3</mn></msqrt><mn>2</mn></mfrac>'
            '<mo>,</mo><mi>y</mi><mo>=</mo><mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></mfrac></math>')
annotated = ('<math ' + M + '><semantics><mrow><msup><mi>e</mi><mi>t</mi></msup><mo>+</mo><msub><mi>c</mi><mn>0</mn></msub></mrow>'
             '<annotation encoding="application/x-tex">e^{t} + c_0 TEXSOURCE</annotation></semantics></math>')
bare = ('<math ' + M + '><mi>A</mi><mo>=</mo><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>2</mn></mtd></mtr>'
        '<mtr><mtd><mn>3</mn></mtd><mtd><mn>4</mn></mtd></mtr></mtable></math>')
aligned = ('<math display="block" ' + M + '><mtable><mtr><mtd><mi>u</mi></mtd><mtd><mo>=</mo><mn>11</mn></mtd></mtr>'
           '<mtr><mtd><mi>w</mi></mtd><mtd><mo>=</mo><mn>22</mn></mtd></mtr></mtable></math>')
epub("math.epub", "Math", "en",
     [("c0.xhtml", "application/xhtml+xml", xhtml(f"<p>The vector {vector} is given.</p><p>Then {fraction} hold.</p>"
                                                  f"<p>Growth {annotated} here.</p><p>The matrix {bare} is square.</p>"
                                                  f"<p>Aligned:</p>{aligned}<p>The end.</p>"))],
     ["c0.xhtml"])

# A forced break where a file begins, after a block's margin: MuPDF broke there, a blank page.
pg_css = ("div.chapter { page-break-before: always; margin-top: 4em; } "
          "h2 { page-break-before: always; padding-top: 1em; } p { text-indent: 1em; }")
# The second's box has an empty style, as Project Gutenberg writes some (`<div class="lgc" style="">`).
empty_style = ' style=""'
chapter = lambda n: f'<div class="chapter"{empty_style if n == 2 else ""}><h2><a id="c{n}"/>CHAPTER {n}.</h2><p>Words of chapter {n}.</p></div>'
pg_nav = xhtml('<nav epub:type="toc"><ol>' + "".join(f'<li><a href="c{min(n, 3)}.xhtml#c{n}">Chapter {n}</a></li>' for n in range(1, 5))
               + "</ol></nav>", html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
epub("gutenberg.epub", "Gutenberg", "en",
     [("pg.css", "text/css", pg_css), ("nav.xhtml", "application/xhtml+xml", pg_nav)] +
     [(f"c{n}.xhtml", "application/xhtml+xml", xhtml(body, '<link rel="stylesheet" href="pg.css" type="text/css"/>'))
      for n, body in [(1, chapter(1)), (2, chapter(2)), (3, chapter(3) + chapter(4))]],
     ["c1.xhtml", "c2.xhtml", "c3.xhtml"], properties={"nav.xhtml": "nav"})

RUSSIAN = ("Достопримечательности Санкт-Петербурга неоднократно привлекали внимание путешественников, "
           "исследователей, архитекторов и фотографов, восхищавшихся великолепием многочисленных дворцов. ")
epub("russian.epub", "Книга", "ru",
     [("c0.xhtml", "application/xhtml+xml", xhtml("".join(f"<p>{RUSSIAN * 4}</p>" for _ in range(12)),
                                                   '<style>p { text-align: justify; }</style>'))],
     ["c0.xhtml"])
GERMAN = ("Die Donaudampfschifffahrtsgesellschaft veröffentlichte ihre Jahresabschlussberichte "
          "gemeinsam mit den Versicherungsunternehmen und Rechtsschutzversicherungsgesellschaften. ")
for name, code in [("german.epub", "de"), ("german3.epub", "ger")]:
    epub(name, "Buch", code,
         [("c0.xhtml", "application/xhtml+xml", xhtml("".join(f"<p>{GERMAN * 4}</p>" for _ in range(12)),
                                                       '<style>p { text-align: justify; }</style>'))],
         ["c0.xhtml"])
epub("xmlchapters.epub", "Xml Chapters", "en",
     [("main0.xml", "application/xhtml+xml", xhtml("".join(f"<p>{LONG * 3}</p>" for _ in range(12))))], ["main0.xml"])

# Sections, which MuPDF 1.21's own stylesheet does not make blocks: links to them led to the file's top.
body = '<section id="s0"><h1>The Whole</h1>' + "".join(
    f'<section id="s{n}"><h2>Part {n}</h2>' + "".join(f"<p>{LONG}</p>" for _ in range(24)) + "</section>" for n in range(1, 4)) + "</section>"
nav = xhtml('<nav epub:type="toc"><ol>' + "".join(f'<li><a href="one.xhtml#s{n}">Part {n}</a></li>' for n in range(1, 4))
            + "</ol></nav>", html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
# Parts of a few short lines each, so that some part starts a few lines down a page, below the
# end of the one before it; parts 3 and 16 start pages.
parts_body = "".join(f'<h2 id="s{n}"{chr(32) + "style=" + chr(34) + "page-break-before:always" + chr(34) if n in (3, 16) else ""}>Part {n}</h2>'
                     + "".join(f"<p>Line {k} of part {n}.</p>" for k in range(n % 7 + 2)) for n in range(1, 25))
part_item = lambda n: f'<li><a href="one.xhtml#s{n}">Part {n}</a></li>'
parts_nav = xhtml('<nav epub:type="toc"><ol>' + "".join(part_item(n) for n in range(1, 12))
                  + '<li><a href="one.xhtml#s12">Part 12</a><ol>' + "".join(part_item(n) for n in range(13, 25)) + "</ol></li>"
                  + "</ol></nav>", html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
# Generated content, which MuPDF does not read.
generated_css = ('@namespace epub "http://www.idpf.org/2007/ops";\n'
                 '[epub|type~="z3998:stage-direction"]::before { content: "("; font-style: normal; }\n'
                 '[epub|type~="z3998:stage-direction"]::after { content: ")"; font-style: normal; }\n'
                 'p.mark::before { content: "\\2014  "; }\n'
                 "q::before, q::after { content: ''; }\n"
                 'td i::after { content: "NO"; }\n'
                 '@media print { p::after { content: "PRINT"; } }\n'
                 "/* a comment { } */ span.x:after { color: red; content: 'Z' }\n"
                 '.kw + .kw:before { content: " \\2013  "; }\n'
                 'p.par > b::after { content: "!"; } body p.par b::after { content: "THREE"; } b::after { content: "?"; }\n'
                 'div.kws .head { display: inline; padding-right: 0.5em; }\n')
generated_body = ('<p>Enter <i epub:type="z3998:stage-direction">Exit <b>Ham</b>.</i> now.</p><p class="other mark">Marked</p>'
                  '<table><tr><td><i>cell</i></td></tr></table><p>A <span class="x">y</span> <q>b</q>.</p>'
                  '<div class="kws"><span class="head">Keys</span><span class="kw">one</span><span class="kw">two</span>'
                  '<span class="kw"><span class="kw">in</span></span><br/><span class="kw">three</span></div>'
                  '<p class="par"><b>Bold</b> <span><b>deep</b></span></p>')
epub("generated.epub", "Generated", "en",
     [("g.css", "text/css", generated_css),
      ("g.xhtml", "application/xhtml+xml", xhtml(generated_body, '<link rel="stylesheet" href="g.css" type="text/css"/>',
                                                 ' xmlns:epub="http://www.idpf.org/2007/ops"')),
      # A chapter whose own style generates text, and one after it that the style is not for.
      ("h.xhtml", "application/xhtml+xml", xhtml('<p class="cue">Line</p>', '<style type="text/css">p.cue::before { content: "CUE "; }</style>')),
      ("i.xhtml", "application/xhtml+xml", xhtml('<p class="cue">After</p>'))], ["g.xhtml", "h.xhtml", "i.xhtml"])

# Headings that fall at pages' feet: a printed book carries each over to its text.
keep_lines = lambda n: "".join(f"<p>Line {k} of section {n}.</p>" for k in range(n * 7 % 5 + 1))
keep_body = "".join(f'<section id="s{n}"><h3>Section {n}</h3><h4>Part {n}</h4>{keep_lines(n)}</section>' if n % 5 == 0
                    else (f"<h3 class='h' id = 's{n}' title='t'>" if n == 7 else f'<h3 id="s{n}">') + f'Section {n}</h3>{keep_lines(n)}'
                    for n in range(1, 41))
keep_nav = xhtml('<nav epub:type="toc"><ol>' + "".join(f'<li><a href="one.xhtml#s{n}">Section {n}</a></li>' for n in range(1, 41))
                 + "</ol></nav>", html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
epub("keep.epub", "Keep", "en", [("nav.xhtml", "application/xhtml+xml", keep_nav), ("one.xhtml", "application/xhtml+xml",
                                  xhtml(keep_body, "<style>h3 { margin: 1.5em 0 0.5em; page-break-after: avoid; }</style>"))],
     ["one.xhtml"], properties={"nav.xhtml": "nav"})
epub("parts.epub", "Parts", "en", [("nav.xhtml", "application/xhtml+xml", parts_nav), ("one.xhtml", "application/xhtml+xml", xhtml(parts_body))],
     ["one.xhtml"], properties={"nav.xhtml": "nav"})
epub("sections.epub", "Sections", "en", [("nav.xhtml", "application/xhtml+xml", nav), ("one.xhtml", "application/xhtml+xml", xhtml(body))],
     ["one.xhtml"], properties={"nav.xhtml": "nav"})

# A navigation document in Text/ whose links name the folder again ("Text/c0.xhtml"), as
# EDRLab's large-tables.epub does: strictly Text/Text/c0.xhtml, which the book lacks.
misled = [(f"Text/c{n}.xhtml", "application/xhtml+xml", xhtml(f'<h1 id="h{n}">Part {n + 1}</h1>' + "".join(f"<p>{LONG}</p>" for _ in range(24))))
          for n in range(2)]
nav = xhtml('<nav epub:type="toc"><ol>' + "".join(f'<li><a href="Text/c{n}.xhtml#h{n}">Part {n + 1}</a></li>' for n in range(2))
            + "</ol></nav>", html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
epub("misled.epub", "Misled", "en", [("Text/nav.xhtml", "application/xhtml+xml", nav)] + misled, [f for f, _, _ in misled],
     properties={"Text/nav.xhtml": "nav"})

# `:first-child`, which MuPDF's CSS does not read (Standard Ebooks set a hgroup's first heading
# bold by it): a span first in its paragraph set large, then one after text, one after another
# element.
firsts = xhtml('<p><span>ALPHA</span> <span>BRAVO</span> words.</p><p>Some <span>CHARLIE</span> words.</p>'
               '<p><b>x</b> <span>DELTA</span> words.</p>', '<style>p > span:first-child { font-size: 3em; }</style>')
epub("firstchild.epub", "First Child", "en", [("c.xhtml", "application/xhtml+xml", firsts)], ["c.xhtml"])

# Standard Ebooks' headings: a part's hgroup in small caps, its first heading bold, and an
# epigraph in a header that they shrink to its lines and centre (MuPDF cannot).
headed_css = ('@namespace epub "http://www.idpf.org/2007/ops";\n'
              'h2, hgroup { font-variant: small-caps; } h2.light { font-weight: normal; }\n'
              'header { text-align: center; }\n'
              'section > header [epub|type~="epigraph"] { display: inline-block; margin: auto; text-align: initial; }\n')
headed = xhtml('<section><header><h2>Mississippi</h2><h2 class="light">Mississippi</h2>'
               '<blockquote epub:type="epigraph"><p>Short epigraph.</p></blockquote></header>'
               + "".join(f"<p>{LONG}</p>" for _ in range(3)) + "</section>",
               '<link rel="stylesheet" href="se.css" type="text/css"/>', html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
epub("headed.epub", "Headed", "en", [("se.css", "text/css", headed_css), ("c.xhtml", "application/xhtml+xml", headed)], ["c.xhtml"])

# Rules a browser reads otherwise than MuPDF (Standard Ebooks' se.css and local.css).
meant_css = ('@namespace epub "http://www.idpf.org/2007/ops";\n'
             'body { text-align: justify; }\n'
             'section[epub|type~="titlepage"] h1 { left: -999em; position: absolute; }\n'
             '.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }\n'
             'p.mid { width: 40%; margin: 1em auto; text-indent: 0; }\n'
             'hr { width: 50%; border: none; border-top: 6px solid black; height: 0; }\n'
             'var { font-variant: all-small-caps; font-style: normal; } .sc { font-variant: small-caps; }\n'
             '.whole { position: absolute; clip: rect(auto, auto, auto, auto); }\n'
             '.commented { color: black; /* color: red; position: absolute; left: -999em; */ }\n'
             'img, p.also { margin-left: auto; margin-right: auto; }\n'
             'td { text-align: justify; }\n')
meant = xhtml('<section epub:type="titlepage"><h1>Hiddentitle</h1></section>'
              '<p>Visible <span class="sr-only">Screenreader</span> <span class="whole">Unclipped</span> <span class="commented">Uncommented</span> text.</p><p class="mid">Middle</p>'
              '<p class="also">Alsoleft</p>'
              '<p>Above</p><hr/><p>Below</p><p><var>Abc</var> and <span class="sc">Abc</span></p>'
              # A line of a few words, then one too long to join them: justified, they span the cell.
              '<table><tr><td epub:type="z3998:verse">Verse a b c 123456789012345678901234567890123456789012</td></tr>'
              '<tr><td>Prose a b c 123456789012345678901234567890123456789012</td></tr></table>',
              '<link rel="stylesheet" href="se.css" type="text/css"/>', html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
epub("meant.epub", "Meant", "en", [("se.css", "text/css", meant_css), ("c.xhtml", "application/xhtml+xml", meant)], ["c.xhtml"])

# Entities a chapter declares (MuPDF prints them as written), and a bomb of entities.
bomb = "".join(f'<!ENTITY {a} "{("&" + b + ";") * 10}">' for a, b in zip("abcdefgh", "bcdefghi")) + '<!ENTITY i "LOL">'
declared = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html [<!ENTITY O "&#x201C;"> <!ENTITY C \'&#x201D;\'>' + bomb + "]>"
            '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>'
            "<p>A bottle marked &O;poison,&C; is almost certain to disagree with you.</p><p>&a;</p></body></html>")
epub("entities.epub", "Entities", "en", [("c.xhtml", "application/xhtml+xml", declared)], ["c.xhtml"])

# Rules by epub:type (Standard Ebooks' core.css and local.css).
typed_css = ('@namespace epub "http://www.idpf.org/2007/ops";\n'
             'a[epub|type~="noteref"] { font-size: 0.5em; vertical-align: super; }\n'
             'a[epub\\:type~="endnote"] { font-size: 0.5em; }\n'
             '[epub|type~="z3998:poem"] p { text-align: left; text-indent: 0; }\n'
             '[epub|type~="z3998:poem"] p + p { margin-top: 1em; }\n'
             '[epub|type~="z3998:poem"] p > span { display: block; padding-left: 1em; text-indent: -1em; }\n'
             '[epub|type~="z3998:poem"] p > span + br { display: none; }\n')
typed = ('<p>Blessed be God, at the end of the year <a href="#n" epub:type="noteref">47</a> I was in good health,'
         ' upon taking of cold <a href="#n" epub:type="endnote">48</a> in Axe Yard.</p>'
         '<article epub:type="z3998:poem"><p><span>ALPHA one</span><br/><span>BRAVO two</span>\n<br/><span>CHARLIE three</span></p>'
         "<p><span>DELTA four</span><br/><span>ECHO five</span></p></article>")
epub("epubtype.epub", "Typed", "en",
     [("se.css", "text/css", typed_css),
      ("c.xhtml", "application/xhtml+xml", xhtml(typed, '<link rel="stylesheet" href="se.css" type="text/css"/>', ' xmlns:epub="http://www.idpf.org/2007/ops"'))],
     ["c.xhtml"])

# Covers declared in the package.
title_page = xhtml("<h1>TITLEPAGE</h1><p>The title page.</p>")
epub("covered.epub", "Covered", "en", [("images/cover.png", "image/png", png(200, 300, (230, 26, 26))), ("text/title.xhtml", "application/xhtml+xml", title_page)],
     ["text/title.xhtml"], properties={"images/cover.png": "cover-image"})
epub("shown.epub", "Shown", "en", [("cover.png", "image/png", png(200, 300, (230, 26, 26))),
                                   ("title.xhtml", "application/xhtml+xml", xhtml('<img src="cover.png" alt=""/><h1>TITLEPAGE</h1>'))],
     ["title.xhtml"], properties={"cover.png": "cover-image"})
epub("placeholder.epub", "Placeholder", "en", [("title.xhtml", "application/xhtml+xml", title_page), ("cover.png", "image/png", png(1, 1, (230, 26, 26)))],
     ["title.xhtml"], metadata='<meta name="cover" content="i1"/>')

# An SVG cover styled by its own stylesheet.
svg_cover = ('<?xml version="1.0" encoding="utf-8"?><svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 100 150">'
             '<style type="text/css">path { fill: #fff; } .box { fill: #000; }</style>'
             '<rect class="box" x="0" y="0" width="100" height="150"/><path d="M20 20 H80 V80 H20 Z"/></svg>')
epub("svgstyle.epub", "Styled Cover", "en", [("cover.svg", "image/svg+xml", svg_cover), ("title.xhtml", "application/xhtml+xml", title_page)],
     ["title.xhtml"], properties={"cover.svg": "cover-image"})

# A play, a speech a table row (Standard Ebooks' markup and stylesheet).
play_css = ("table { width: 100%; border-collapse: collapse; } td { vertical-align: top; padding: 0.5em; }"
            ' [epub|type~="z3998:drama"] td[epub|type~="z3998:persona"] { text-align: right; width: 20%; } tr.together td + td { border-left: 1px solid; }'
            ' [epub|type~="z3998:verse"] p > span { display: block; padding-left: 1em; text-indent: -1em; }')
speech = ('<tr><td class="persona" epub:type="z3998:persona">Laertes</td><td epub:type="z3998:verse">'
          "<p><span>DREAD lord,</span><br/><span>LEAVE and favour</span></p><p><span>SECOND stanza</span></p></td></tr>"
          '<tr><td class="persona" epub:type="z3998:persona">Hamlet</td><td>PROSE speech.</td></tr>'
          '<tr class="together"><td epub:type="z3998:persona">Both</td><td>TOGETHER we speak, and at length, a line as long as the page is wide.</td></tr>')
epub("play.epub", "Play", "en",
     [("play.css", "text/css", "@namespace epub \"http://www.idpf.org/2007/ops\"; " + play_css),
      ("scene.xhtml", "application/xhtml+xml", xhtml("<h2>Scene I</h2><table>" + speech + "</table>", '<link rel="stylesheet" href="play.css" type="text/css"/>',
                                                     ' xmlns:epub="http://www.idpf.org/2007/ops"', ' epub:type="bodymatter z3998:drama"'))],
     ["scene.xhtml"])

# A table of cells spanning columns and rows, which MuPDF 1.21 lays out as if they spanned none.
spans = ('<table><tr><td colspan="3">SPANNING the table</td></tr>'
         '<tr><td rowspan="2">Year</td><td>FIRST of two rows of a longer text than the others have</td><td>ONE</td></tr>'
         '<tr><td>SECOND row</td><td>TWO</td></tr><tr><td colspan="2">ACROSS two</td><td>THREE</td></tr></table>'
         # A table of half the line, its second cell's lines ragged though the body is justified.
         '<table style="width: 50%"><tr><td>Rosencrantz</td><td>a bb ccc dddd eeeee a bb ccc dddd eeeee a bb ccc dddd eeeee'
         ' a bb ccc dddd eeeee a bb ccc dddd eeeee END</td></tr></table>')
epub("spans.epub", "Spans", "en", [("c.xhtml", "application/xhtml+xml", xhtml(spans))], ["c.xhtml"])

# Rules inside `@media` blocks, which MuPDF 1.21 skips whole: those for a reader's page (screen,
# all, portrait, not print) apply, the others (print, a Kindle's, a width) do not.
media_css = ("p { text-align: left; } @media screen { p.screen { text-align: right; } } /* @media screen { p.print { text-align: right } } */"
             " @media print { p.print { text-align: right; } } @media only screen and (orientation: portrait) { p.portrait { text-align: right; } }"
             " @media screen and (min-width: 640px) { p.wide { text-align: right; } } @media not print { p.notprint { text-align: right; } }"
             " @media amzn-kf8 { p.kindle { display: none; } } @media print, screen { @media all { p.nested { text-align: right; } } }")
epub("media.epub", "Media", "en",
     [("m.css", "text/css", media_css),
      ("c.xhtml", "application/xhtml+xml", xhtml("".join(f'<p class="{c}">{c.upper()}</p>' for c in
                                                        ["screen", "print", "portrait", "wide", "notprint", "kindle", "nested"]),
                                                '<link rel="stylesheet" href="m.css" type="text/css"/>'))],
     ["c.xhtml"])

# Covers in SVG wrappers, as Project Gutenberg and calibre write them: a wide picture and a tall one,
# each a chapter of its own, then text.
def wrapper(picture, w, h):
    return xhtml(f'<div><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="100%"'
                 f' height="100%" viewBox="0 0 {w} {h}" preserveAspectRatio="xMidYMid meet"><image width="{w}" height="{h}" xlink:href="{picture}"/>'
                 "</svg></div>")
epub("wrapped.epub", "Wrapped", "en",
     [("wide.png", "image/png", png(300, 200, (230, 26, 26))), ("tall.png", "image/png", png(100, 300, (26, 51, 230))),
      ("w.xhtml", "application/xhtml+xml", wrapper("wide.png", 300, 200)), ("t.xhtml", "application/xhtml+xml", wrapper("tall.png", 100, 300)),
      ("c.xhtml", "application/xhtml+xml", xhtml("<p>After the pictures.</p>"))], ["w.xhtml", "t.xhtml", "c.xhtml"])

# 400 words in small capitals in a body set in "Times New Roman" (a family MuPDF's built-in fonts
# answer to), its stylesheet in a folder of its own.
epub("smallcaps.epub", "Small Caps", "en",
     [("css/s.css", "text/css", 'body { font-family: "Times New Roman", Times, serif; } .sc { font-variant: small-caps; }'),
      ("c.xhtml", "application/xhtml+xml", xhtml("".join(f'<p>Word <span class="sc">Small{n}</span> after.</p>' for n in range(400)),
                                                '<link rel="stylesheet" href="css/s.css" type="text/css"/>'))], ["c.xhtml"])

# Cells given a share of their table: by a rule whose selector's last part names them, and by
# their own `width` attribute, in a table of short lines.
widths = ('<table class="cast"><tr><td class="name">Ann</td><td>NAMED speaks at length, a line as long as the page is wide and longer still.</td></tr>'
          '<tr><td class="name">Bo</td><td>Short.</td></tr></table>'
          '<table><tr><td width="40%">A</td><td>SHORT line</td></tr></table>')
epub("widths.epub", "Widths", "en", [("w.css", "text/css", "table.cast td.name { width: 25%; } td.name::before { width: 90%; }"),
                                     ("c.xhtml", "application/xhtml+xml", xhtml(widths, '<link rel="stylesheet" href="w.css" type="text/css"/>'))],
     ["c.xhtml"])

# An older book's presentational markup, as Project Gutenberg's HTML has it: sizes in points and
# pixels, anchors that link nowhere, `align`, `<center>`, and a ruled table crossing pages.
legacy_css = ("@page WordSection1 { size: 8.5in 11in; margin: 1in; @top-center { content: 'Head'; } } div.WordSection1 { page: WordSection1; }"
              " html { font-size: 62.5%; } body { font-size: 10pt; } .big { font-size: 24px; } .remmed { font-size: 1.2rem; } p { text-align: justify; } .small { font-size: 12px; }"
              " .pagenum { position: absolute; left: 92%; font-size: 13px; color: #ababab; }"
              " .xhtml_div_align table { display: inline-table; text-align: initial; }"
              " table.pandoc { overflow-x: auto; display: block; }"
              " .OrderedList { display: table; } .ListItem { /* margin-left: 0; */ display: table-row; }"
              " .ItemNumber, .ItemContent { display: table-cell; } div.letter { width: 6.6931in; }"
              " .list { display: table; } .list-item { display: table-row; } .list-label, .list-content { display: table-cell; }"
              " section.spaced { font-size: 16px; line-height: 20px; }")
legacy = ('<h2><a name="CHAPTER_I" id="CHAPTER_I">ANCHORED</a></h2>'
          '<p>Text before <a href="#CHAPTER_I">LINKED</a> and <span class="small">SMALLWORD</span> beside NORMALWORD. '
          '<span class="pagenum"><a name="Page_3" id="Page_3">[Pg 3]</a></span> '
          '<span style="color: black; font-size:12PX !important">QQQ</span> <span style="font-size: 120%">PPP</span></p>'
          '<div class="big">Large <span class="small">NESTEDWORD</span> and <span class="remmed">REMWORD</span></div>'
          '<p align="center">CENTRED</p><p align="RIGHT">RIGHTWARD</p><div align="center">DIVIDED</div><center>OLDCENTRE</center>'
          '<table><tr><td align="right">CELLRIGHT</td></tr></table><p><a href=#CHAPTER_I>UNQUOTED</a> link</p>'
          '<div class="xhtml_div_align" style="text-align: center;"><table><tbody><tr><td><p>RULETABLED</p></td><td>CELLED</td></tr></tbody></table></div>'
          '<table style="display:inline-table"><tr><td>STYLETABLED</td></tr></table>'
          '<table class="pandoc"><thead><tr><th>PANDOCHEAD</th><th>PANDOCSIDE</th></tr></thead><tbody><tr><td>PANDOCCELL</td><td>x</td></tr></tbody></table>'
          '<div class="OrderedList"><ol><li class="ListItem"><span class="ItemNumber">1.</span><div class="ItemContent"><p>LISTONE item.</p></div></li>'
          '<li class="ListItem"><span class="ItemNumber">2.</span><div class="ItemContent"><p>LISTTWO item.</p></div></li></ol></div>'
          '<p><span class="list"><span class="list-item"><span class="list-label">(1)</span><span class="list-content">HANGFIRST '
          + "hanging words " * 6 + 'HANGLAST</span></span></span></p>'
          '<table><tr class="list-item"><td class="list-label">9</td><td class="list-content">TABLEKEPT as a table</td></tr></table>'
          '<div class="letter">' + "LETTERWIDE words " * 7 + '</div>'
          '<table style="width: 900px"><tr><td>Item</td><td>Item</td><td>PIXELLAST</td></tr></table>')
ruled = '<table border="1" cellpadding="4">' + "".join(
    f"<tr><td>R{n}</td><td>{'a bb ccc dddd eeeee ' * (4 + n % 5)}END{n}</td></tr>" for n in range(30)) + "</table>"
epub("legacy.epub", "Legacy", "en",
     [("l.css", "text/css", legacy_css), ("bom.css", "text/css", "\ufeff@charset \"utf-8\"; p.bommed { text-align: right; }"
                                                                 " p.calced { margin-left: calc(10% - 1em); text-align: right; }"
                                                                 " p.noted /* a note */ { text-align: right; }"),
      ("c0.xhtml", "application/xhtml+xml", xhtml(legacy + '<p class="bommed">BOMMED</p><p class="calced">CALCED</p><p class="noted">NOTED</p>',
                                                  '<link rel="stylesheet" href="l.css" type="text/css"/><link rel="stylesheet" href="bom.css" type="text/css"/>')),
      ("c1.xhtml", "application/xhtml+xml", xhtml(ruled, '<link rel="stylesheet" href="l.css" type="text/css"/>')),
      ("c2.xhtml", "application/xhtml+xml", xhtml(
          '<section class="spaced">RULEFIRST ' + "word " * 40 + 'RULELAST</section>'
          '<p style="line-height:15.0pt"><span style="font-size:12.0pt">STYLEFIRST ' + "word " * 40 + 'STYLELAST</span></p>',
          '<link rel="stylesheet" href="l.css" type="text/css"/>'))],
     ["c0.xhtml", "c1.xhtml", "c2.xhtml"])

# Imports, which MuPDF 1.21 does not read: the face is declared in an imported stylesheet.
mono = subprocess.run(["fc-match", "-f", "%{file}", "monospace"], capture_output=True, text=True).stdout
if mono and os.path.isfile(mono):
    with open(mono, "rb") as f:
        face = f.read()
    epub("imports.epub", "Imports", "en",
         [("css/main.css", "text/css", '@import url("../fonts/faces.css");\n@import "print.css" print;\n'),
          ("css/print.css", "text/css", "p.mono { font-family: serif !important; }"),
          ("fonts/faces.css", "text/css", '@font-face { font-family: "Imported Face"; src: url(mono.ttf); } p.mono { font-family: "Imported Face"; }'
           ' @font-face { font-family: "Local Face"; src: local("Nowhere Sans"), local(NowhereSans-Regular), url(mono.ttf) format("truetype"); }'
           ' p.local { font-family: "Local Face"; }'),
          ("fonts/mono.ttf", "font/ttf", face),
          ("c0.xhtml", "application/xhtml+xml", xhtml('<p class="mono">iiiiiiii</p><p class="mono">mmmmmmmm</p>'
                                                      '<p class="local">llllllll</p><p class="local">wwwwwwww</p>',
                                                      '<link rel="stylesheet" href="css/main.css" type="text/css"/>'))],
         ["c0.xhtml"])

# Fonts obfuscated as publishers embed them: by the IDPF's algorithm (the SHA-1 of the unique
# identifier over the first 1040 bytes) and by Adobe's (the 16 bytes of a urn:uuid identifier
# over the first 1024); and a book whose font was obfuscated with another book's key.
if mono and os.path.isfile(mono):
    import hashlib

    def obfuscated(data, key, span):
        return bytes(b ^ key[i % len(key)] for i, b in enumerate(data[:span])) + data[span:]

    def encryption(*fonts):
        return ('<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#">' + "".join(
                    f'<enc:EncryptedData><enc:EncryptionMethod Algorithm="{algorithm}"/>'
                    f'<enc:CipherData><enc:CipherReference URI="OEBPS/{font}"/></enc:CipherData></enc:EncryptedData>'
                    for font, algorithm in fonts) + "</encryption>")

    IDPF, ADOBE = "http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"
    uuid = "urn:uuid:12345678-9abc-def0-1234-56789abcdef0"
    faces_css = ('@font-face { font-family: "Idpf Face"; src: url(fonts/idpf.ttf); } p.idpf { font-family: "Idpf Face"; }'
                 ' @font-face { font-family: "Adobe Face"; src: url(fonts/adobe.ttf); } p.adobe { font-family: "Adobe Face"; }')
    faces_text = xhtml('<p class="idpf">iiiiiiii</p><p class="idpf">mmmmmmmm</p><p class="adobe">llllllll</p><p class="adobe">wwwwwwww</p>',
                       '<link rel="stylesheet" href="f.css" type="text/css"/>')
    for book, identifier in [("obfuscated.epub", "folio-obfuscated.epub"), ("misobfuscated.epub", "folio-another-book")]:
        epub(book, "Obfuscated", "en",
             [("f.css", "text/css", faces_css), ("c0.xhtml", "application/xhtml+xml", faces_text),
              ("fonts/idpf.ttf", "font/ttf", obfuscated(face, hashlib.sha1(identifier.encode()).digest(), 1040)),
              ("fonts/adobe.ttf", "font/ttf", obfuscated(face, bytes.fromhex("123456789abcdef0123456789abcdef0"), 1024))],
             ["c0.xhtml"], metadata=f"<dc:identifier>{uuid if book == 'obfuscated.epub' else 'urn:isbn:0'}</dc:identifier>",
             root={"META-INF/encryption.xml": encryption(("fonts/idpf.ttf", IDPF), ("fonts/adobe.ttf", ADOBE))})

# A transparent SVG picture, which MuPDF paints on white.
logo = ('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="300" height="300" viewBox="0 0 300 300">'
        '<rect x="0" y="0" width="30" height="30" fill="#000000"/></svg>')
epub("transparent.epub", "Transparent", "en",
     [("logo.svg", "image/svg+xml", logo),
      ("c0.xhtml", "application/xhtml+xml", xhtml('<p>Above.</p><p><img src="logo.svg" alt="logo" style="width: 100%"/></p>'))],
     ["c0.xhtml"])

# Front matter fills pages with little text; the chapters after it are dense prose.
lines = "".join(f"<p>A short line of verse, {n}.</p>" for n in range(60))
front = [xhtml("<h1>The Title</h1><p>by An Author</p>"), xhtml(lines), xhtml(lines),
         xhtml("<ol>" + "".join(f"<li>Chapter {n}</li>" for n in range(20)) + "</ol>")]
prose = [xhtml(f"<h1>Chapter {n}</h1>" + "".join(f"<p>{LONG * 4}</p>" for _ in range(10 + 3 * (n % 4)))) for n in range(20)]
files = [(f"f{i}.xhtml", "application/xhtml+xml", c) for i, c in enumerate(front)] + \
        [(f"c{i}.xhtml", "application/xhtml+xml", c) for i, c in enumerate(prose)]
epub("front.epub", "Front Matter", "en", files, [f for f, _, _ in files])

# Notes: an aside footnote in the chapter, an endnote in a file of notes, a plain link.
chapter = xhtml('<p>A claim<a epub:type="noteref" href="#n1">1</a> and another<a epub:type="noteref" href="notes.xhtml#e1">2</a>, '
                'a third<a epub:type="noteref" href="notes.xhtml#e2">3</a> '
                'and <a href="c1.xhtml">the next chapter</a>.</p>'
                '<aside epub:type="footnote" id="n1"><p>The footnote says why.</p><p>It has a second paragraph.</p>'
                '<p>See <a href="c1.xhtml">the next chapter</a>, <a href="notes.xhtml#e1">the endnote</a> or '
                '<a href="https://example.org/why">the source</a>.</p></aside>',
                html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
# The second endnote as Standard Ebooks writes them: an item of the endnotes' list, untyped.
notes = xhtml('<section epub:type="endnotes"><ol><li epub:type="endnote" id="e1"><p>The endnote says more. '
              '<a href="c0.xhtml">\u21a9</a></p></li><li id="e2"><p>The list holds this one.</p></li></ol></section>',
              html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
epub("notes.epub", "Notes", "en", [("c0.xhtml", "application/xhtml+xml", chapter), ("c1.xhtml", "application/xhtml+xml", xhtml("<p>Next.</p>")),
                                   ("notes.xhtml", "application/xhtml+xml", notes)], ["c0.xhtml", "c1.xhtml", "notes.xhtml"])

# Thirty chapters; the phrase "Café Ægir" only in chapters 7, 18 and 26, each spelt otherwise.
spelt = {3: "Caf&eacute; \u00c6gir", 7: "Caf&#233; &#198;gir", 18: "CAF&#xE9; <![CDATA[AE]]>gir".replace("AE", "\u00c6"), 26: "Caf\u00e9 \u00c6&shy;gir"}
files = []
for n in range(30):
    body = f"<h1>Chapter {n + 1}</h1>" + "".join(f"<p>{LONG}</p>" for _ in range(8))
    if n in spelt:
        body += f"<p>They met at the {spelt[n]} by the harbour.</p>" + "".join(f"<p>{LONG}</p>" for _ in range(4))
    files.append((f"c{n}.xhtml", "application/xhtml+xml", xhtml(body)))
epub("chapters.epub", "Thirty Chapters", "en", files, [f for f, _, _ in files])

# Front matter, then two chapters whose print pages 12 to 19 break every six paragraphs.
front = xhtml("<h1>Preface</h1>" + "".join(f"<p>{LONG}</p>" for _ in range(10)))
printed, n = [], 12
for c in range(2):
    body = f"<h1>Part {c + 1}</h1>"
    for _ in range(4):
        body += f'<span epub:type="pagebreak" id="p{n}" title="{n}"/><p>mark{n} {LONG}</p>' + "".join(f"<p>{LONG}</p>" for _ in range(5))
        n += 1
    printed.append(xhtml(body, html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"'))
nav = xhtml('<nav epub:type="toc"><ol><li><a href="front.xhtml">Preface</a></li><li><a href="p0.xhtml">Part 1</a></li>'
            '<li><a href="p1.xhtml">Part 2</a></li></ol></nav><nav epub:type="page-list" hidden="hidden"><ol>'
            + "".join(f'<li><a href="p{(k - 12) // 4}.xhtml#p{k}"> {k} </a></li>' for k in range(12, 20)) + "</ol></nav>",
            html_attributes=' xmlns:epub="http://www.idpf.org/2007/ops"')
pages = [("front.xhtml", "application/xhtml+xml", front), ("p0.xhtml", "application/xhtml+xml", printed[0]),
         ("p1.xhtml", "application/xhtml+xml", printed[1])]
epub("printed.epub", "Printed Pages", "en", [("nav.xhtml", "application/xhtml+xml", nav)] + pages, [f for f, _, _ in pages],
     properties={"nav.xhtml": "nav scripted"})

# The same book as an EPUB 2: the page list in the NCX, whose label breaks its line.
ncx = ('<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/>'
       '<docTitle><text>Printed Pages</text></docTitle><navMap><navPoint id="a" playOrder="1"><navLabel><text>Part\n   1</text>'
       '</navLabel><content src="p0.xhtml"/></navPoint></navMap><pageList>'
       + "".join(f'<pageTarget id="t{k}" type="normal" value="{k}"><navLabel><text>{k}</text></navLabel>'
                 f'<content src="p{(k - 12) // 4}.xhtml#p{k}"/></pageTarget>' for k in range(12, 20)) + "</pageList></ncx>")
epub("printed2.epub", "Printed Pages", "en", [("toc.ncx", "application/x-dtbncx+xml", ncx)] + pages, [f for f, _, _ in pages],
     spine_attributes=' toc="i0"', version="2.0")

# Ruby: a reading over a word, which MuPDF 1.21 sets after it, inline.
epub("ruby.epub", "Ruby", "en", [("c0.xhtml", "application/xhtml+xml",
                                  xhtml('<p>Before <ruby>BASEWORD <rt>READING</rt></ruby> after.</p>'
                                        '<pre>' + "CODE = " + "first_value + another_long_identifier + " * 8 + "LASTCODE;\n  short line\n" + '</pre>'))], ["c0.xhtml"])

# Chapters named as ebooklib names them from a manifest's `./contents/…`: `OEBPS/./contents/c0.xhtml`.
epub("dotted.epub", "Dotted", "en", [("./contents/c0.xhtml", "application/xhtml+xml", xhtml("<p>DOTTED first chapter.</p>")),
                                     ("./contents/c1.xhtml", "application/xhtml+xml", xhtml("<p>DOTTED second chapter.</p>"))],
     ["./contents/c0.xhtml", "./contents/c1.xhtml"])

# A book zipped on Windows by a careless tool: every name with backslashes (`OEBPS\\c0.xhtml`).
with zipfile.ZipFile(os.path.join(out, "backslashed.epub"), "w") as z:
    z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
    z.writestr("META-INF\\container.xml", '<?xml version="1.0"?><container version="1.0" '
               'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
               'media-type="application/oebps-package+xml"/></rootfiles></container>')
    z.writestr("OEBPS\\content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
               'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">b</dc:identifier>'
               '<dc:title>Backslashed</dc:title><dc:language>en</dc:language></metadata><manifest>'
               '<item id="c0" href="text/c0.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c0"/></spine></package>')
    z.writestr("OEBPS\\text\\c0.xhtml", xhtml("<p>BACKSLASHED chapter.</p>"))

# Plain-text books: Project Gutenberg's (a header naming title, author and language; chapters
# headed `CHAPTER I.` with a name on the next line; prose wrapped at 70 characters; verse), a
# Chinese novel in GB18030 (a paragraph a line, indented with ideographic spaces; `第一章`), one
# in Windows-1252, one in UTF-16 with its mark, a binary file and an empty one named `.txt`.
PROSE = ("Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing to do: "
         "once or twice she had peeped into the book her sister was reading, but it had no pictures in it.")
gutenberg_text = ("The Project Gutenberg eBook of Plain Wonderland\n\nTitle: Plain Wonderland\n\nAuthor: Lewis Carroll\n\n"
                  "Language: English\n\n*** START OF THE PROJECT GUTENBERG EBOOK PLAIN WONDERLAND ***\n\n\n")
for number in ["I", "II", "III"]:
    gutenberg_text += f"\n\nCHAPTER {number}.\nThe Name of {number}\n\n\n"
    gutenberg_text += "".join("\n".join(textwrap.wrap(f"{PROSE} Joined{number}{k} here.", 70)) + "\n\n" for k in range(6))
    gutenberg_text += "    How doth the little crocodile\n    Improve his shining tail,\n    And pour the waters of the Nile\n\n"
# Headed as Doyle's and Kafka's are: a Roman numeral alone, and one before a title in capitals.
for heading in ["IV.", "V. THE LAST STORY"]:
    gutenberg_text += f"\n\n{heading}\n\n" + "\n".join(textwrap.wrap(PROSE, 70)) + "\n\n"
gutenberg_text += "She was _very_ tired, and _took a watch out of its\nwaistcoat-pocket_, said snake_case_name.\n\n"
# A story headed by its title alone, set apart by four blank lines (*The Jungle Book*'s).
gutenberg_text += "\n\n\n\nThe White Seal\n\n" + "\n".join(textwrap.wrap(PROSE, 70)) + "\n\n"
texts = {
    "gutenberg.txt": gutenberg_text.replace("\n", "\r\n").encode(),
    "novel.txt": "".join(f"第{n}章 标题\n" + "".join(f"\u3000\u3000这是第{n}章的第{k}段文字。\n" for k in range(30))
                         for n in "一二三").encode("gb18030"),
    "latin.txt": "Caf\u00e9 \u00c6gir na\u00efve \u2014 \u201cquoted\u201d.\n\nSecond.\n".encode("cp1252"),
    "wide.txt": "\ufeffWide UTF-16 words.\n\nSecond.\n".encode("utf-16-le"),
    "binary.txt": bytes(range(256)) * 4,
    "blank.txt": b"\n \n\t\n",
}
for name, data in texts.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
