"""A PDF written object by object, for the fixture scripts (Python alone)."""
import io


def raw_pdf(path, objs, trailer=b"", xref_shift=0):
    """A PDF of the objects given (object n is objs[n - 1]), with its cross-reference table;
    `trailer` adds to the trailer dictionary; `xref_shift` moves every offset of the table by
    that many bytes (a damaged file a reader must repair)."""
    body, offsets = io.BytesIO(), []
    body.write(b"%PDF-1.4\n")
    for n, obj in enumerate(objs, 1):
        offsets.append(body.tell())
        body.write(b"%d 0 obj\n" % n + obj + b"\nendobj\n")
    xref = body.tell()
    body.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for off in offsets:
        body.write(b"%010d 00000 n \n" % (off + xref_shift))
    body.write(b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, trailer, xref))
    open(path, "wb").write(body.getvalue())
