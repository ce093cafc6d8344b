// Palm databases (mobi.c), their indexes (kf8.c, ncx.c) and KF8 parts (kf8.c).
// Included by bridge.h, which the bridge's files include.
#ifndef FOLIO_PALM_H
#define FOLIO_PALM_H

static inline uint32_t fb_be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t fb_be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/// A Palm database's records, its table checked, and what its first record's PalmDOC and MOBI
/// headers say, read where MuPDF reads them (mobi.c: from the record's start, past its end if
/// need be).
typedef struct {
    const unsigned char *d;
    size_t n;
    uint32_t count;
    unsigned compression;  ///< 1 none, 2 PalmDOC (MuPDF refuses others)
    uint32_t text_length, text_records;
    size_t r0;  ///< where the first record starts
    int mobi;   ///< it has a MOBI header
} palm_db;

static inline size_t fb_record_at(const palm_db *db, uint32_t i) { return fb_be32(db->d + 78 + 8 * i); }
static inline size_t fb_record_end(const palm_db *db, uint32_t i) { return i + 1 < db->count ? fb_record_at(db, i + 1) : db->n; }

uint32_t fb_varlen(const unsigned char *d, size_t *p, size_t end);

/// Tags of an index entry kept (their first two values).
enum { fb_index_tags = 32 };
/// One entry of an index: its name, and the first values of each of its tags below
/// `fb_index_tags` (`count`: how many, at most 2).
typedef struct {
    const unsigned char *name;
    size_t name_len;
    uint32_t values[fb_index_tags][2];
    unsigned char count[fb_index_tags];
} fb_index_entry;

/// Calls `use` with each entry of the index whose first record is `first`, at most
/// `folio_mu_max_entries`; its CNCX record count and encoding into the last two. The number of
/// its entry records (its CNCX records follow them), or -1 when it is no index.
int fb_read_index(fz_context *ctx, const palm_db *db, uint32_t first, void (*use)(fz_context *ctx, const fb_index_entry *e, void *user),
                  void *user, uint32_t *cncx_count, uint32_t *encoding);

/// A KF8 book's parts: each skeleton (how many fragments go into it, and where it lies in the
/// text), each fragment (where it goes, counted over the whole text, and where it lies after
/// its skeleton), and the text's flows (the first the parts, the others their stylesheets and
/// pictures).
enum { fb_kf8_flows = 256 };
typedef struct { uint32_t frags, offset, length; } fb_kf8_skeleton;
typedef struct { uint32_t insert, offset, length; } fb_kf8_fragment;
typedef struct { uint32_t start, end; } fb_kf8_flow;
typedef struct {
    fb_kf8_skeleton *skels;
    fb_kf8_fragment *frags;
    int skel_count, skel_capacity, frag_count, frag_capacity, flow_count;
    fb_kf8_flow flows[fb_kf8_flows];
} fb_kf8;

/// Reads a KF8 (AZW3) book's parts into `k`: 1 when it is one (`fb_kf8_drop` frees them).
int fb_kf8_read(fz_context *ctx, const palm_db *db, fb_kf8 *k);
void fb_kf8_drop(fb_kf8 *k);
/// Adds the entries of the NCX index whose first record is `ncx` to `contents`, in the order of
/// the text, each a place in the book's one chapter (`#fileposN`; positions in `kf8`'s parts put
/// together where it is one) (ncx.c).
void fb_read_ncx(fz_context *ctx, const palm_db *db, uint32_t ncx, const fb_kf8 *kf8, struct page_marks *contents);
/// The first flow of `text` (the book's decompressed text) with each part's fragments in its
/// skeleton: the parts in order, as long as that flow, so that a position (`fb_kf8_position`)
/// is a byte of it.
fz_buffer *fb_kf8_text(fz_context *ctx, const fb_kf8 *k, const fz_buffer *text);
/// Whether the `n` bytes at `s` start a position (`kindle:pos:fid:XXXX:off:YYYYYYYYYY`), and
/// where in the parts it points.
int fb_kf8_position(const fb_kf8 *k, const unsigned char *s, size_t n, uint32_t *pos);
/// The resource `kindle:embed:XXXX` at `s` names (1 the first), or -1.
int64_t fb_kf8_resource(const unsigned char *s, size_t n);
/// Appends a `<style>` for each stylesheet flow the parts (`s`, `n` bytes) link
/// (`kindle:flow:XXXX?mime=text/css`), from `text`.
void fb_kf8_styles(fz_context *ctx, const fb_kf8 *k, const fz_buffer *text, const unsigned char *s, size_t n, fz_buffer *out);

/// A MOBI's record table, which MuPDF follows unchecked: every record must start within the
/// file, none before the one before it; `info->refused` says which does not. Then its text,
/// which MuPDF parses as markup, is checked for depth.
void fb_check_mobi(fz_context *ctx, fz_buffer *file, folio_mu_info *info);
/// Copies `n` bytes of text into `out` (of `size`), cut at a character boundary (mobi.c).
void fb_copy_text(char *out, size_t size, const unsigned char *text, size_t n);

#endif
