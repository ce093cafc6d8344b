// Hyphenation patterns as libhyphen compiles them, kept in a file between runs: libhyphen 2.8.8
// takes 2.5 s to compile Debian's German patterns (1 MB of them into 278,832 states), which every
// German book paid at its first open in a process. One file per pattern file, named by a hash of
// its path, holding what the states were compiled from (the pattern file's identity and
// libhyphen's own file), the states and a checksum. A file that does not match, is cut short, or
// whose states do not form the tree libhyphen builds is compiled again and replaced. Patterns
// with replacements (non-standard hyphenation: Catalan's, Hungarian's, compiled in 0.2 s at most)
// are not kept: libhyphen follows their places and cuts unchecked, and Folio leaves every word
// they apply to unhyphenated (hyphenate.c).
// Does not: keep anything but compiled patterns, write outside its folder or follow a link in it,
// or decide which patterns a book uses (hyphenate.c).
#define _GNU_SOURCE
#include "bridge.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <hyphen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// Kept files are read up to this size (Debian's German patterns make 5 MiB).
enum { largest_kept = 64 << 20 };

static pthread_mutex_t folder_lock = PTHREAD_MUTEX_INITIALIZER;
static char kept_folder[PATH_MAX];

void folio_keep_patterns_in(const char *folder) {
    pthread_mutex_lock(&folder_lock);
    snprintf(kept_folder, sizeof kept_folder, "%s", folder && folder[0] == '/' && strlen(folder) + 32 < sizeof kept_folder ? folder : "");
    pthread_mutex_unlock(&folder_lock);
}

/// FNV-1a, 64 bits: a kept file's name from its pattern file's path (the key inside tells a
/// collision from a match), and its checksum.
static uint64_t fnv1a(const unsigned char *d, size_t n) {
    uint64_t hash = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) hash = (hash ^ d[i]) * 0x100000001b3u;
    return hash;
}

/// A file's identity: its device, inode, size and times of change.
static void identity(char out[128], const struct stat *st) {
    snprintf(out, 128, "%ju:%ju:%jd:%jd.%09ld:%jd.%09ld", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino, (intmax_t)st->st_size,
             (intmax_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/// The kept file for pattern file `path` (`st` its identity) in `file`, and what it must begin
/// with in `key`: the pattern file's path and identity, libhyphen's file's, and the program's
/// own (a new build may read patterns otherwise: hyphenate.c converts some before libhyphen
/// does); 0 when none is kept (no folder set) or the file cannot be named.
static int kept_file(const char *path, const struct stat *st, char *file, size_t file_size, char *key, size_t key_size) {
    char folder[PATH_MAX], real[PATH_MAX];
    pthread_mutex_lock(&folder_lock);
    memcpy(folder, kept_folder, sizeof folder);
    pthread_mutex_unlock(&folder_lock);
    Dl_info lib_info;
    struct stat lib, program;
    if (!folder[0] || !realpath(path, real) || !dladdr((void *)hnj_hyphen_load, &lib_info) || !lib_info.dli_fname
        || stat(lib_info.dli_fname, &lib) != 0 || stat("/proc/self/exe", &program) != 0)
        return 0;
    char source[128], library[128], self[128];
    identity(source, st), identity(library, &lib), identity(self, &program);
    int named = snprintf(file, file_size, "%s/%016jx.patterns", folder, (uintmax_t)fnv1a((const unsigned char *)real, strlen(real)));
    int keyed = snprintf(key, key_size, "folio patterns 2\n%s\n%s\nlibhyphen %s\nprogram %s\n", real, source, library, self);
    return named > 0 && (size_t)named < file_size && keyed > 0 && (size_t)keyed < key_size;
}

// MARK: the tree libhyphen builds

/// Whether `d`'s states are what libhyphen's loader makes of a pattern file, so that its
/// hyphenation stays within the word and ends: the transitions a tree from state 0 reaching
/// every state once, each state's fallback a state nearer the root (state 0's none), each match
/// digits no longer than its state's depth and one (its depth, where its path begins with the
/// word's '.': libhyphen reaches such a state with as many letters read as its depth, and the
/// match would start before the word), no replacement, and the words kept whole (`nohyphen`)
/// `nohyphenl` + 1 strings, none empty (libhyphen looks for each and walks off the word at an
/// empty one).
static int forms_a_tree(const HyphenDict *d) {
    int n = d->num_states, ok = n > 0;
    for (size_t at = 0, k = 0; ok && d->nohyphen && k <= (size_t)d->nohyphenl; k++) {
        size_t len = strlen(d->nohyphen + at);
        ok = len > 0;
        at += len + 1;
    }
    int *depth = ok ? malloc((size_t)n * sizeof *depth) : NULL, *queue = ok ? malloc((size_t)n * sizeof *queue) : NULL;
    char *dotted = ok ? calloc((size_t)n, 1) : NULL;
    ok = depth && queue && dotted;
    for (int i = 0; ok && i < n; i++) depth[i] = -1;
    int head = 0, tail = 0;
    if (ok) depth[0] = 0, queue[tail++] = 0;
    while (ok && head < tail) {
        const HyphenState *s = &d->states[queue[head++]];
        for (int t = 0; ok && t < s->num_trans; t++) {
            int next = s->trans[t].new_state;
            ok = next > 0 && next < n && depth[next] < 0;
            if (ok) depth[next] = depth[s - d->states] + 1, queue[tail++] = next;
            if (ok) dotted[next] = s == d->states ? s->trans[t].ch == '.' : dotted[s - d->states];
        }
    }
    ok = ok && tail == n;
    for (int i = 0; ok && i < n; i++) {
        const HyphenState *s = &d->states[i];
        int fallback = s->fallback_state;
        ok = i == 0 ? fallback == -1 : fallback >= 0 && fallback < n && depth[fallback] < depth[i];
        if (ok && s->match) {
            size_t len = strlen(s->match);
            ok = len <= (size_t)depth[i] + !dotted[i] && strspn(s->match, "0123456789") == len;
        }
        ok = ok && !s->repl;
    }
    free(dotted);
    free(depth);
    free(queue);
    return ok;
}

// MARK: writing

typedef struct {
    unsigned char *d;
    size_t n, capacity;
    int failed;
} kept_out;

static void put(kept_out *o, const void *p, size_t n) {
    if (o->failed) return;
    if (o->n + n > o->capacity) {
        size_t capacity = o->capacity ? o->capacity : 1 << 16;
        while (capacity < o->n + n) capacity *= 2;
        unsigned char *d = capacity <= largest_kept ? realloc(o->d, capacity) : NULL;
        if (!d) { o->failed = 1; return; }
        o->d = d, o->capacity = capacity;
    }
    memcpy(o->d + o->n, p, n);
    o->n += n;
}

static void put32(kept_out *o, int32_t v) {
    uint32_t u = (uint32_t)v;
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
    put(o, b, 4);
}

/// A string as its length and one (0: none), then its `n` bytes.
static void put_string(kept_out *o, const char *s, size_t n) {
    put32(o, s ? (int32_t)n + 1 : 0);
    if (s) put(o, s, n);
}

static void put_level(kept_out *o, const HyphenDict *d) {
    signed char mins[4] = {d->lhmin, d->rhmin, d->clhmin, d->crhmin};
    put(o, mins, 4);
    // `nohyphen` holds `nohyphenl` + 1 strings, one after another (the last one's 0 is put_string's):
    // `forms_a_tree` found them so, each read up to a 0 inside what libhyphen allocated.
    size_t nohyphen = 0;
    for (int k = 0; d->nohyphen && k <= d->nohyphenl; k++) nohyphen += strlen(d->nohyphen + nohyphen) + 1;
    put32(o, d->nohyphenl);
    put_string(o, d->nohyphen, nohyphen ? nohyphen - 1 : 0);
    put(o, d->cset, sizeof d->cset);
    put32(o, d->utf8);
    put32(o, d->num_states);
    for (int i = 0; i < d->num_states; i++) {
        const HyphenState *s = &d->states[i];
        put_string(o, s->match, s->match ? strlen(s->match) : 0);
        put32(o, s->fallback_state);
        put32(o, s->num_trans);
        for (int t = 0; t < s->num_trans; t++) {
            put(o, &s->trans[t].ch, 1);
            put32(o, s->trans[t].new_state);
        }
    }
    unsigned char next = d->nextlevel != NULL;
    put(o, &next, 1);
}

/// Makes `folder` and the folders above it that are missing.
static int make_folder(const char *folder) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", folder);
    for (char *slash = path + 1;; slash++) {
        if (*slash && *slash != '/') continue;
        char end = *slash;
        *slash = 0;
        struct stat st;
        if (stat(path, &st) != 0 ? mkdir(path, 0777) != 0 && errno != EEXIST : !S_ISDIR(st.st_mode)) return 0;
        if (!end) return 1;
        *slash = end;
    }
}

void fb_keep_patterns(const char *path, const struct stat *st, const HyphenDict *dict) {
    char file[PATH_MAX + 64], key[2 * PATH_MAX + 256];
    if (!kept_file(path, st, file, sizeof file, key, sizeof key)) return;
    // libhyphen 2.8.8 makes two levels: the compound level a file's NEXTLEVEL divides off (or
    // its default), then the words'.
    int levels = 0;
    for (const HyphenDict *level = dict; level; level = level->nextlevel, levels++)
        if (levels == 2 || !forms_a_tree(level)) return;
    kept_out o = {0};
    put(&o, key, strlen(key));
    size_t body = o.n;
    for (const HyphenDict *level = dict; level; level = level->nextlevel) put_level(&o, level);
    uint64_t sum = fnv1a(o.d + body, o.n - body);
    for (int k = 0; k < 8; k++) put(&o, (unsigned char[]){(unsigned char)(sum >> 8 * k)}, 1);
    char *slash = strrchr(file, '/'), aside[PATH_MAX + 64];
    *slash = 0;
    // Named as every writer of Folio names what it has not finished (`OutputFile.temporaryName`),
    // so that one left by a killed process is removed as theirs are.
    snprintf(aside, sizeof aside, "%s/.folio-%d-XXXXXX", file, (int)getpid());
    int fd = !o.failed && make_folder(file) ? mkstemp(aside) : -1;
    *slash = '/';
    if (fd >= 0) {
        size_t done = 0;
        while (done < o.n) {
            ssize_t wrote = write(fd, o.d + done, o.n - done);
            if (wrote == 0 || (wrote < 0 && errno != EINTR)) break;
            if (wrote > 0) done += (size_t)wrote;
        }
        // Whole or not at all: renamed over the kept file (a link there is replaced, not followed).
        if (close(fd) != 0 || done != o.n || rename(aside, file) != 0) unlink(aside);
    }
    free(o.d);
}

// MARK: reading

typedef struct {
    const unsigned char *d;
    size_t n, at;
    int bad;
} kept_in;

static const unsigned char *take(kept_in *r, size_t n) {
    if (r->bad || n > r->n - r->at) { r->bad = 1; return NULL; }
    r->at += n;
    return r->d + r->at - n;
}

static int32_t get32(kept_in *r) {
    const unsigned char *b = take(r, 4);
    return b ? (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) : 0;
}

/// A string `put_string` wrote, malloc'd; NULL for none (or when `r` is bad). `parts` strings
/// one after another make it, each ending with a 0, the last at its end (`forms_a_tree` checks
/// that none is empty); a string of one part holds no 0 inside.
static char *get_string(kept_in *r, int parts) {
    int32_t len = get32(r);
    if (r->bad || len == 0) return NULL;
    const unsigned char *s = len > 0 ? take(r, (size_t)len - 1) : NULL;
    char *copy = s ? malloc((size_t)len) : NULL;
    if (!copy) { r->bad = 1; return NULL; }
    memcpy(copy, s, (size_t)len - 1);
    copy[len - 1] = 0;
    size_t at = 0;
    int k = 0;
    for (; k < parts && at < (size_t)len; k++) at += strlen(copy + at) + 1;
    if (k != parts || at != (size_t)len) r->bad = 1;
    return copy;
}

/// One level `put_level` wrote, or NULL; `*next` says whether a level follows.
static HyphenDict *get_level(kept_in *r, int *next) {
    HyphenDict *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    const unsigned char *mins = take(r, 4);
    if (mins) d->lhmin = (char)mins[0], d->rhmin = (char)mins[1], d->clhmin = (char)mins[2], d->crhmin = (char)mins[3];
    d->nohyphenl = get32(r);
    if (d->nohyphenl < 0 || d->nohyphenl > 1 << 16) r->bad = 1;
    d->nohyphen = r->bad ? NULL : get_string(r, d->nohyphenl + 1);
    const unsigned char *cset = take(r, sizeof d->cset);
    if (cset) memcpy(d->cset, cset, sizeof d->cset), d->cset[sizeof d->cset - 1] = 0;
    d->utf8 = get32(r);
    int32_t states = get32(r);
    // A state takes 12 bytes at least: states beyond what the file holds are not made.
    if (states <= 0 || (size_t)states > (r->n - r->at) / 12) r->bad = 1;
    d->states = r->bad ? NULL : calloc((size_t)states, sizeof *d->states);
    for (int32_t i = 0; d->states && i < states && !r->bad; i++) {
        HyphenState *s = &d->states[i];
        d->num_states = i + 1;
        s->match = get_string(r, 1);
        s->fallback_state = get32(r);
        int32_t trans = get32(r);
        if (trans < 0 || trans > 256 || (size_t)trans > (r->n - r->at) / 5) { r->bad = 1; break; }
        s->trans = trans ? malloc((size_t)trans * sizeof *s->trans) : NULL;
        if (trans && !s->trans) r->bad = 1;
        for (int32_t t = 0; t < trans && !r->bad; t++) {
            const unsigned char *ch = take(r, 1);
            s->trans[t].ch = ch ? (char)*ch : 0;
            s->trans[t].new_state = get32(r);
        }
        s->num_trans = r->bad ? 0 : trans;
    }
    const unsigned char *more = take(r, 1);
    *next = more && *more == 1;
    if (!d->states || r->bad || (more && *more > 1) || !forms_a_tree(d)) {
        hnj_hyphen_free(d);
        r->bad = 1;
        return NULL;
    }
    return d;
}

HyphenDict *fb_kept_patterns(const char *path, const struct stat *st) {
    char file[PATH_MAX + 64], key[2 * PATH_MAX + 256];
    if (!kept_file(path, st, file, sizeof file, key, sizeof key)) return NULL;
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat kept;
    size_t key_len = strlen(key), size = 0;
    unsigned char *d = NULL;
    if (fstat(fd, &kept) == 0 && S_ISREG(kept.st_mode) && kept.st_size > (off_t)(key_len + 8) && kept.st_size <= largest_kept) {
        size = (size_t)kept.st_size;
        d = malloc(size);
        size_t got = 0;
        while (d && got < size) {
            ssize_t n = read(fd, d + got, size - got);
            if (n == 0 || (n < 0 && errno != EINTR)) break;
            if (n > 0) got += (size_t)n;
        }
        if (d && got != size) free(d), d = NULL;
    }
    close(fd);
    HyphenDict *dict = NULL;
    uint64_t sum = 0;
    for (int k = 0; d && k < 8; k++) sum |= (uint64_t)d[size - 8 + k] << 8 * k;
    if (d && !memcmp(d, key, key_len) && fnv1a(d + key_len, size - 8 - key_len) == sum) {
        kept_in r = {.d = d, .n = size - 8, .at = key_len};
        int next = 0;
        dict = get_level(&r, &next);
        if (dict && next) dict->nextlevel = get_level(&r, &next);
        if (dict && (r.bad || next || r.at != r.n)) hnj_hyphen_free(dict), dict = NULL;
    }
    free(d);
    return dict;
}
